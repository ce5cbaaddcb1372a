// libFuzzer target: multi_head_attention(): numHeads 0..9 against E, packed or separate projections (or both), biases,
// causal, key padding and attention masks, hostile values. Decoding and invariants live in fuzz_common.h, shared with
// tests/native/test_fuzz_regressions.cpp.
#include <cstddef>
#include <cstdint>

#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  apfuzz::run_multihead(apfuzz::decode_multihead(data, size));
  return 0;
}
