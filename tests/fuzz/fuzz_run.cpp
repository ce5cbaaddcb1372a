// libFuzzer target: run(), the course pipeline: dims (including 0 and negative), heads that do not divide, every rule
// and tokenizer, cross attention, overrides of the wrong shape, masks sized for a guess of the token count, and
// arbitrary text. Decoding and invariants live in fuzz_common.h, shared with tests/native/test_fuzz_regressions.cpp.
#include <cstddef>
#include <cstdint>

#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  apfuzz::run_run(apfuzz::decode_run(data, size));
  return 0;
}
