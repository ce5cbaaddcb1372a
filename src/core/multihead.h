// Multi-head attention with torch.nn.MultiheadAttention's conventions (weights in Linear layout [out, in]).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/common.h"

namespace ap {

// Grouped-query heads: numKVHeads K/V heads of E / numHeads columns each (kv = numKVHeads · E / numHeads rows of
// the K and V projections); query head h reads K/V head h · numKVHeads / numHeads (Hugging Face's repeat_kv).
struct MultiHeadParams {
  int numHeads = 1;
  int numKVHeads = 0;                         // 0 = numHeads (multi-head); 1 = multi-query
  Mat inProjWeight;                           // [E + 2kv, E] packed q/k/v projection, or empty
  Mat qProjWeight, kProjWeight, vProjWeight;  // [E, E], [kv, kdim], [kv, vdim] when not packed
  Vec inProjBias;                             // [E + 2kv] or empty (no bias)
  Mat outProjWeight;                          // [E, E]
  Vec outProjBias;                            // [E] or empty
  bool causal = false;                        // attn_mask = upper triangle
  std::vector<uint8_t> keyPaddingMask;        // [nk], 1 = padding; empty = none
  std::vector<uint8_t> attnMask;              // [nq·nk], 1 = masked; empty = none
  std::vector<float> attnMaskAdditive;        // [nq·nk], PyTorch's float attn_mask: added to the scores,
                                              // -inf = masked; empty = none (not with attnMask)
  bool hasWindow = false;                     // a causal sliding window: i - window < j <= i, plus
  int window = 0;                             // the first `sinks` keys
  int sinks = 0;
  std::vector<float> sinkLogits;  // one per head, or empty: each head's learned sink logit
  bool rope = false;              // each head's q and k rotated by position (0, 1, …)
  float ropeBase = 10000.f;
  bool alibi = false;  // head h's scores biased by -m_h·|i - j| (alibi_slopes)
};

struct MultiHeadResult {
  Mat output;                   // [nq, E]
  std::vector<Mat> weights;     // numHeads × [nq, nk]
  std::vector<int> maskedRows;  // rows with every key masked: their weights and context are 0 (PyTorch gives NaN)
  std::vector<std::vector<float>> sinkShare;  // with sinkLogits: numHeads × [nq], each row's weight on the sink
};

// The names errors give the q, k and v projection weights: inProjWeight thrice, or the three separate ones.
struct ProjectionNames {
  std::string q, k, v;
};
ProjectionNames projection_names(const MultiHeadParams& p);
// Rows of the K and V projections: numKVHeads · E / numHeads (E when numKVHeads is numHeads or 0).
long long kv_rows(const MultiHeadParams& p, long long E);
// Projection which = 0, 1, 2 (q, k, v) as [E or kv, in]: its rows of the packed inProjWeight or the separate weight.
Mat projection_weight(const MultiHeadParams& p, int which, long long E);
// Every input check of multi_head_attention() (multihead_checks.cpp); throws ap::Error naming the argument.
void validate_multihead(const Mat& query, const Mat& key, const Mat& value, const MultiHeadParams& p);

// query [nq, E], key [nk, kdim], value [nk, vdim]. Throws ap::Error naming the argument.
MultiHeadResult multi_head_attention(const Mat& query, const Mat& key, const Mat& value, const MultiHeadParams& p);

}  // namespace ap
