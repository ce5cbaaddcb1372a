// The course's program as one call: text -> tokens -> embeddings -> Q, K, V -> scores -> scale -> mask ->
// softmax -> weights · V, with every intermediate kept (the "trace") under the fixed step names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/attention.h"
#include "core/common.h"
#include "core/tokenizer.h"

namespace ap {

struct RunOptions {
  std::string text = "this is my cat";
  bool cross = false;  // cross attention: queries from target, keys/values from source
  std::string source, target;
  std::string tokenizer = "word-sorted";
  TokenizerOptions tokenizerOptions;
  int dModel = 16, dq = 24, dk = 24, dv = 28;
  uint64_t seed = 123;
  ScoreRule score = ScoreRule::ScaledDot;
  bool hasScale = false;
  float scale = 1.f;
  Mask mask;
  float temperature = 1.f;
  int heads = 1;
  Positions positions = Positions::None;  // how word order enters (core/positions.h)
  float ropeBase = static_cast<float>(kDefaultRopeBase);
  // A learned sink in every head (attention's sinkLogit): one more logit in each row's softmax, its share dropped.
  bool hasSinkLogit = false;
  float sinkLogit = 0.f;
  // Edited cells: when given they replace what the seed drew (the draws still happen, so the rest stays put).
  std::optional<Mat> embeddings, sourceEmbeddings, Wq, Wk, Wv;
};

struct Trace {
  Tokenized tokens;        // the queries' sequence (text, or target)
  Tokenized sourceTokens;  // cross only
  bool selfAttention = true;
  Mat embeddings, sourceEmbeddings;
  Mat positions;   // sinusoidal / learned: the table added to the embeddings [max(nq, nk), dModel]
  Mat Wq, Wk, Wv;  // course layout [dModel, d]: Q = embeddings · Wq
  Mat Q, K, V;
  int heads = 1;
  // One entry per head, each [nq, nk].
  std::vector<Mat> scores, scaledScores, maskedScores, weights;
  Mat rotatedQ, rotatedK;         // rope: [nq, dq], [nk, dk], each head rotated on its own
  std::vector<Mat> positionBias;  // alibi: one [nq, nk] per head
  Mat output;                     // [nq, dv], heads concatenated
  std::vector<int> maskedRows;
  std::vector<ScoreParams> params;  // per head
  float scale = 1.f;
};

Trace run(const RunOptions& opts);

// run() up to Q, K and V: the tokens, the seed's draws (the rule's parameters too) and the projections, by the
// same code and with the same checks of those options; no attention, so nothing nq × nk (the long view's rows).
// The attention fields of the Trace stay empty; `scale` is the multiplier run() would apply.
Trace projections(const RunOptions& opts);

// The course's check (lesson 000): Q = K = V element for element means self-attention.
bool is_self_attention(const Mat& Q, const Mat& K, const Mat& V);

}  // namespace ap
