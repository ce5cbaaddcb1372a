// The backward pass of attention: dL/dQ, dL/dK, dL/dV and the gradients on the way (the weights', the
// scores'), one function that both ap.attentionBackward / ap.runBackward and the trainer call.
#pragma once

#include <vector>

#include "core/attention.h"
#include "core/pipeline.h"

namespace ap {

// One head: S = c · scores (c = scale / temperature; masked cells -inf), A = softmax(S) by rows, O = A·V.
struct AttentionGrads {
  Mat dWeights;  // dL/dA = dO·Vᵀ (+ a gradient arriving at A directly, e.g. a loss on A)
  Mat dScores;   // dL/dS = A ⊙ (dA − rowsum(dA ⊙ A)): 0 where A is 0 (masked cells, fully masked rows)
  Mat dValue;    // dL/dV = Aᵀ·dO
  Mat dQuery;    // dot products only: c · dS·K
  Mat dKey;      // dot products only: c · dSᵀ·Q
};

// The steps every rule shares, from the forward weights A [nq, nk], V [nk, dv] and dO [nq, dv]:
// dWeights, dScores, dValue. extraDA (optional, [nq, nk]) is added to dWeights before softmax's backward.
void softmax_attention_backward(const Mat& A, const Mat& V, const Mat& dO, const Mat* extraDA, AttentionGrads& g);

// dot / scaled-dot: dQuery and dKey from dScores (g filled by softmax_attention_backward), c = scale / temperature.
void dot_scores_backward(const Mat& Q, const Mat& K, float c, AttentionGrads& g);

// ap.attentionBackward for one batch item: the forward steps (attention's own), then the two above.
AttentionGrads attention_backward(const Mat& Q, const Mat& K, const Mat& V, const Mat& dO, const AttentionOptions& opts,
                                  int batchIndex = 0);

// Throws unless `rule` has a backward pass here (dot, scaled-dot); fn names the caller in the message.
void require_backward_rule(ScoreRule rule, const char* fn);

// Checks what attention_backward needs beyond validate_attention: a rule with a backward pass here
// (dot, scaled-dot), a finite dO of the output's shape. Throws ap::Error naming the argument.
void validate_attention_backward(const Mat& Q, const Mat& K, const Mat& V, const Mat& dO, const AttentionOptions& opts,
                                 int batch = 1);

// The loss of ap.runBackward, on the course pipeline's trace.
struct PipelineLoss {
  enum class Kind { Attend, Output };
  Kind kind = Kind::Attend;
  int query = 0;  // the row i
  int key = 0;    // attend: the column j; loss = −log A[i, j] (of head `head`)
  int head = 0;
  Vec target;  // output: loss = Σ_c (O[i, c] − target_c)², target [dv]
};

struct PipelineGrads {
  Trace trace;
  double loss = 0;
  Mat dEmbeddings, dSourceEmbeddings;  // cross: the target's and the source's
  Mat dWq, dWk, dWv;                   // [dModel, dq] …
  Mat dQ, dK, dV, dOutput;             // heads side by side, like Q, K, V, output
  std::vector<Mat> dWeights, dScores;  // per head [nq, nk]
};

// run(), then the loss and its gradients back to the embeddings and W_q, W_k, W_v.
PipelineGrads run_backward(const RunOptions& opts, const PipelineLoss& loss);

}  // namespace ap
