// Scaled dot-product attention and its relatives, one step at a time, so every intermediate matrix can be shown.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/common.h"
#include "core/positions.h"

namespace ap {

// The scoring rules. dot / scaled-dot: qᵀk; general (Luong): qᵀ W k; additive (Bahdanau, the course's
// rule 2): vᵀ tanh(Wq q + Wk k); concat (the course's rule 1, its seq2seq Attn class): Linear([q_i; k_i])
// gives one score per value row.
enum class ScoreRule { Dot, ScaledDot, General, Additive, Concat };

ScoreRule parse_score(const std::string& name);  // throws naming the argument `score`
const char* score_name(ScoreRule rule);

struct Mask {
  // Window: causal with a sliding window (Mistral, Gemma): query i sees keys i - window < j <= i, plus the first
  // `sinks` keys (StreamingLLM's kept tokens).
  enum class Kind { None, Causal, KeyPadding, Matrix, Window };
  Kind kind = Kind::None;
  int window = 0;                   // Window: keys per row, >= 1
  int sinks = 0;                    // Window: the first keys every row keeps, 0..nk
  std::vector<uint8_t> keyPadding;  // nk, or batch·nk; 1 = this key is padding
  std::vector<uint8_t> matrix;      // nq·nk, or batch·nq·nk; 1 = masked
  // Optional, with any kind: PyTorch's float attn_mask, nq·nk shared by the batch, added to the scaled
  // scores before softmax; -inf bars the key (a row of -inf is fully masked). Never NaN or +inf.
  std::vector<float> additive;

  // Does the mask do anything (a kind other than None, or an additive term)?
  bool active() const { return kind != Kind::None || !additive.empty(); }
  // Is query row i barred from key j (for batch item b)? Counts an additive -inf.
  bool masked(int b, int i, int j, int nq, int nk) const;
  // Check sizes against the shapes; throws naming `mask` (prefix: how the caller calls the window's options).
  void validate(int batch, int nq, int nk, const std::string& prefix = "mask.") const;
};

// A sliding window's options: window >= 1, sinks in [0, nk]; throws naming prefix + "window" / "sinks".
void validate_window(int window, int sinks, int nk, const std::string& prefix);

// Parameters of the rules that have them (shapes in PyTorch's Linear layout: [out, in]).
struct ScoreParams {
  Mat W;         // general: [dq, dk]
  Mat Wq, Wk;    // additive: [h, dq], [h, dk]
  Vec v;         // additive: [h]
  Mat concatW;   // concat: [nv, dq + dk]
  Vec concatB;   // concat: [nv]
  Mat combineW;  // concat, optional: [out, dq + dv]
  Vec combineB;  // concat, optional: [out]
  bool hasCombine() const { return combineW.size() > 0; }
};

struct AttentionOptions {
  ScoreRule score = ScoreRule::ScaledDot;
  bool hasScale = false;  // false: the rule's default (1/√dk for scaled-dot, 1 otherwise)
  float scale = 1.f;      // a multiplier on the scores
  Mask mask;
  float temperature = 1.f;
  ScoreParams params;
  bool needWeights = true;  // false: the fused kernel, no nq×nk matrix (dot / scaled-dot, none / causal)
  bool keepSteps = true;    // false: scaledScores and maskedScores are not kept (less memory traffic)
  bool needScores = true;   // false: the raw scores are not kept; the scaled scores go straight into weights
  // A learned sink (gpt-oss; "softmax off by one" at 0): one more logit in every row's softmax, whose share is
  // dropped, so a row's weights sum to 1 - sinkShare[i]. Divided by the temperature like the scores.
  bool hasSinkLogit = false;
  float sinkLogit = 0.f;
  RopeOptions rope;       // enabled: Q and K rotated by their positions before the scores
  bool hasAlibi = false;  // true: -alibiSlope·|i - j| added to the scaled scores before the mask
  float alibiSlope = 0.f;
};

// One batch item, every step kept. With needWeights = false only output (and context) are filled; with
// keepSteps = false, scaledScores and maskedScores stay empty; with needScores = false, scores.
struct AttentionResult {
  Mat scores;        // raw rule scores [nq, nk]
  Mat scaledScores;  // scale · scores
  Mat maskedScores;  // masked cells = -inf
  Mat weights;       // softmax(maskedScores / temperature), fully masked rows = 0
  Mat context;       // weights · V
  Mat output;        // context, or the combine layer's output (concat with combine params)
  std::vector<int> maskedRows;
  std::vector<float> sinkShare;  // with a sink logit: each row's weight on the sink (1 for a fully masked row)
  float scale = 1.f;
  Mat rotatedQ, rotatedK;  // rope only: Q and K as the scores saw them
  Mat positionBias;        // alibi only: the bias [nq, nk]
};

// The multiplier of step scaledScores when the caller gives none: 1/√dk for scaled-dot, 1 for the other rules.
float default_scale(ScoreRule rule, int dk);

// Validates everything (shapes, finiteness, rule parameters, mask sizes) and throws ap::Error naming the argument.
void validate_attention(const Mat& Q, const Mat& K, const Mat& V, const AttentionOptions& opts, int batch = 1);

// Q [nq, dq], K [nk, dk], V [nv, dv]; batchIndex selects this item's slice of a batched mask.
AttentionResult attention(const Mat& Q, const Mat& K, const Mat& V, const AttentionOptions& opts, int batchIndex = 0);

// What a backward pass needs from step scores (training keeps it; attention() does not ask).
struct ScoreCache {
  Mat tanh;      // additive: tanh(Wq q_i + Wk k_j) in row i·nk + j, [nq·nk, h]
  Mat queryKey;  // concat: row i is [q_i; k_i], [nq, dq + dk]
};

// Step scores: the rule's raw scores [nq, nk] (concat: [nq, nv]). Products go through kernels::qkt
// only, never Eigen's GEMM, so the wasm build runs the same fast code whichever file calls this.
Mat compute_scores(const Mat& Q, const Mat& K, ScoreRule rule, const ScoreParams& params, ScoreCache* cache = nullptr);

// Steps scaledScores, maskedScores and weights: the one place their order and rules live, used by
// attention() (so by run and multi-head too) and by training's forward pass.
//   scaledScores = scale · scores
//   maskedScores = scaledScores + mask.additive (if any), with -inf where `mask` bars the key (batch item
//                  batchIndex)
//   weights      = softmax(maskedScores / temperature) row by row; a fully masked row is all 0
//                  (with sinkLogit: softmax over the row and the sink, the sink's share into *sinkShare)
// The two middle steps are copied out only when asked for. Returns false when a scaled score overflowed
// float32: the caller knows which of its arguments to name.
[[nodiscard]] bool weights_from_scores(const Mat& scores, float scale, const Mask& mask, int batchIndex,
                                       float temperature, Mat& weights, Mat* scaledScores = nullptr,
                                       Mat* maskedScores = nullptr, const float* sinkLogit = nullptr,
                                       std::vector<float>* sinkShare = nullptr);

// FlashAttention's tiles, as the fused kernel computes them (scaled-dot product scores, temperature 1, no mask or
// causal): after each tile of blockRows query rows × blockCols keys, each row's running max m of the scaled
// scores, running sum l = Σ exp(s - m) and unnormalised output O.
struct FlashStep {
  int rowBlock = 0, colBlock = 0;
  std::vector<float> m, l;  // the block's rows
  Mat O;                    // [rows, dv], not yet divided by l
};
struct FlashTraceResult {
  std::vector<FlashStep> steps;
  Mat output;
  float scale = 1.f;
};
// Throws ap::Error naming blockRows / blockCols (1..36, 1..128), the inputs as validate_attention does, and
// limits the steps recorded (kMaxFlashSteps).
FlashTraceResult flash_trace(const Mat& Q, const Mat& K, const Mat& V, int blockRows, int blockCols, bool causal,
                             bool hasScale, float scale);

}  // namespace ap
