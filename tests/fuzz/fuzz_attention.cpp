// libFuzzer target: attention() as the bindings call it: random batch, shapes (often slightly wrong), rules, rule
// parameters, masks, scale, temperature, needWeights, and values from ordinary to NaN, ±inf and FLT_MAX. Decoding and
// invariants live in fuzz_common.h, shared with tests/native/test_fuzz_regressions.cpp.
#include <cstddef>
#include <cstdint>

#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  apfuzz::run_attention(apfuzz::decode_attention(data, size));
  return 0;
}
