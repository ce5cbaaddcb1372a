// libFuzzer target: every tokenizer (and the joint source+target vocabulary) on arbitrary bytes: invalid UTF-8,
// whitespace of every kind, the bpe marker, huge and negative merge counts. Decoding and invariants live in
// fuzz_common.h, shared with tests/native/test_fuzz_regressions.cpp.
#include <cstddef>
#include <cstdint>

#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  apfuzz::run_tokenize(apfuzz::decode_tokenize(data, size));
  return 0;
}
