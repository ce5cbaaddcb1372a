// Multi-head attention with torch.nn.MultiheadAttention's conventions (weights in Linear layout [out, in]).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/common.h"

namespace ap {

struct MultiHeadParams {
  int numHeads = 1;
  Mat inProjWeight;                           // [3E, E] packed q/k/v projection, or empty
  Mat qProjWeight, kProjWeight, vProjWeight;  // [E, E], [E, kdim], [E, vdim] when not packed
  Vec inProjBias;                             // [3E] or empty (no bias)
  Mat outProjWeight;                          // [E, E]
  Vec outProjBias;                            // [E] or empty
  bool causal = false;                        // attn_mask = upper triangle
  std::vector<uint8_t> keyPaddingMask;        // [nk], 1 = padding; empty = none
  std::vector<uint8_t> attnMask;              // [nq·nk], 1 = masked; empty = none
  std::vector<float> attnMaskAdditive;        // [nq·nk], PyTorch's float attn_mask: added to the scores,
                                              // -inf = masked; empty = none (not with attnMask)
};

struct MultiHeadResult {
  Mat output;                   // [nq, E]
  std::vector<Mat> weights;     // numHeads × [nq, nk]
  std::vector<int> maskedRows;  // rows with every key masked: their weights and context are 0 (PyTorch gives NaN)
};

// The names errors give the q, k and v projection weights: inProjWeight thrice, or the three separate ones.
struct ProjectionNames {
  std::string q, k, v;
};
ProjectionNames projection_names(const MultiHeadParams& p);
// Projection which = 0, 1, 2 (q, k, v) as [E, in]: a third of the packed inProjWeight or the separate weight.
Mat projection_weight(const MultiHeadParams& p, int which, long long E);
// Every input check of multi_head_attention() (multihead_checks.cpp); throws ap::Error naming the argument.
void validate_multihead(const Mat& query, const Mat& key, const Mat& value, const MultiHeadParams& p);

// query [nq, E], key [nk, kdim], value [nk, vdim]. Throws ap::Error naming the argument.
MultiHeadResult multi_head_attention(const Mat& query, const Mat& key, const Mat& value, const MultiHeadParams& p);

}  // namespace ap
