// Positions: how attention learns word order. One home for the four encodings every caller uses —
// run (pipeline.cpp), attention() (rope, alibi), multi_head_attention and training.
//   sinusoidal: P[pos, 2i] = sin(pos / 10000^(2i/d)), P[pos, 2i+1] = cos(same) (Vaswani et al. 2017)
//   learned:    an nn.Embedding(n, d) table (GPT-2, BERT); drawn by the caller
//   rope:       Q and K rotated per position as Hugging Face's LLaMA does (rotate_half: dimension i pairs
//               with i + d/2; inv_freq_i = base^(-2i/d); position m turns pair i by m·inv_freq_i)
//   alibi:      a bias -m_h·|i - j| on the scaled scores, slopes as BLOOM's build_alibi_tensor
#pragma once

#include <string>
#include <vector>

#include "core/common.h"

namespace ap {

enum class Positions { None, Sinusoidal, Learned, Rope, Alibi };

Positions parse_positions(const std::string& name);  // throws naming the argument `positions`
const char* positions_name(Positions p);

// Positions a rope call may name: 0 … kMaxPosition.
constexpr int kMaxPosition = kMaxSeq - 1;
constexpr double kDefaultRopeBase = 10000.0;

// The sinusoidal table [n, d] (computed in double, stored as float32).
Mat sinusoidal_table(int n, int d);

// RoPE's inverse frequencies in float32 as transformers computes them: 1 / base^(arange(0, d, 2) / d).
std::vector<float> rope_inv_freq(int d, float base);

// X [n, d] (d even) rotated row by row: row r by position positions[r] (0, 1, … when positions is empty):
// x·cos + rotate_half(x)·sin with cos/sin of cat(freqs, freqs), freqs = position · inv_freq (float32).
// inverse: the transposed rotation Rᵀ (each pair turned back by the same angle), which carries a gradient
// on the rotated rows back to the rows: dX = Rᵀ·dX_rotated.
Mat rope_rotate(const Mat& X, const std::vector<int>& positions, float base, bool inverse = false);

// The rope options of one attention call; checks name `name` (e.g. "rope" or "positions").
struct RopeOptions {
  bool enabled = false;
  float base = static_cast<float>(kDefaultRopeBase);
  std::vector<int> queryPositions, keyPositions;  // empty: 0, 1, …
};
void validate_rope(const RopeOptions& rope, long long nq, long long dq, long long nk, long long dk);

// ALiBi's head slopes for H heads (BLOOM's build_alibi_tensor): 2^(-8h/H), h = 1..H, for H a power of
// two; otherwise those of the largest power of two below H, then every other slope of twice that many.
std::vector<float> alibi_slopes(int heads);

// The bias -slope·|i - j| [nq, nk].
Mat alibi_bias(int nq, int nk, float slope);

}  // namespace ap
