// The backward pass of attention (docs/backward.md): the one code path of ap.attentionBackward,
// ap.runBackward and the trainer's layer_backward.
#if defined(__EMSCRIPTEN__) && !defined(EIGEN_STRONG_INLINE)
#define EIGEN_STRONG_INLINE __attribute__((always_inline)) inline
#endif
#include "core/backward.h"

#include <cmath>
#include <string>

#include "core/small_products.h"

namespace ap {

using small::cview;
using small::mview;

void softmax_attention_backward(const Mat& A, const Mat& V, const Mat& dO, const Mat* extraDA, AttentionGrads& g) {
  const int nq = static_cast<int>(A.rows()), nk = static_cast<int>(A.cols());
  g.dWeights = small::mul_nt(cview(dO), cview(V));
  if (extraDA) g.dWeights += *extraDA;
  g.dValue = small::mul_tn(cview(A), cview(dO));
  // softmax's Jacobian per row, diag(a) − a·aᵀ, applied to the row of dA: a ⊙ (dA − a·dA). Masked cells
  // (and fully masked rows) have a = 0, so they get exactly 0.
  g.dScores.resize(nq, nk);
  for (int i = 0; i < nq; ++i) {
    const float r = A.row(i).dot(g.dWeights.row(i));
    g.dScores.row(i) = A.row(i).array() * (g.dWeights.row(i).array() - r);
  }
}

void dot_scores_backward(const Mat& Q, const Mat& K, float c, AttentionGrads& g) {
  const Mat dS = g.dScores * c;
  g.dQuery = small::mul(cview(dS), cview(K));
  g.dKey = small::mul_tn(cview(dS), cview(Q));
}

void require_backward_rule(ScoreRule rule, const char* fn) {
  AP_REQUIRE(rule == ScoreRule::Dot || rule == ScoreRule::ScaledDot,
             std::string("score: ") + fn + " has the backward pass of 'dot' and 'scaled-dot', got '" +
                 score_name(rule) + "' (the trainer has the other rules')");
}

void validate_attention_backward(const Mat& Q, const Mat& K, const Mat& V, const Mat& dO, const AttentionOptions& opts,
                                 int batch) {
  require_backward_rule(opts.score, "attentionBackward");
  validate_attention(Q, K, V, opts, batch);
  AP_REQUIRE(dO.rows() == Q.rows() && dO.cols() == V.cols(),
             "gradOutput: expected the output's shape [nq, dv] = " + shape_str({Q.rows(), V.cols()}) + ", got " +
                 shape_str(dO));
  check_finite("gradOutput", dO);
}

AttentionGrads attention_backward(const Mat& Q, const Mat& K, const Mat& V, const Mat& dO, const AttentionOptions& opts,
                                  int b) {
  const float scale = opts.hasScale ? opts.scale : default_scale(opts.score, static_cast<int>(K.cols()));
  Mat A;
  if (!weights_from_scores(compute_scores(Q, K, opts.score, opts.params), scale, opts.mask, b, opts.temperature, A))
    throw overflow_error("query/key: the scores overflow");
  AttentionGrads g;
  softmax_attention_backward(A, V, dO, nullptr, g);
  dot_scores_backward(Q, K, scale / opts.temperature, g);
  check_no_overflow("gradOutput: the gradients overflow", g.dQuery);
  check_no_overflow("gradOutput: the gradients overflow", g.dKey);
  check_no_overflow("gradOutput: the gradients overflow", g.dValue);
  return g;
}

namespace {

void check_loss(const PipelineLoss& l, const Trace& t) {
  const long long nq = t.Q.rows(), nk = t.K.rows(), dv = t.V.cols();
  AP_REQUIRE(l.query >= 0 && l.query < nq, "loss.query: expected a query row from 0 to " + std::to_string(nq - 1) +
                                               ", got " + std::to_string(l.query));
  if (l.kind == PipelineLoss::Kind::Attend) {
    AP_REQUIRE(l.key >= 0 && l.key < nk,
               "loss.key: expected a key from 0 to " + std::to_string(nk - 1) + ", got " + std::to_string(l.key));
    AP_REQUIRE(l.head >= 0 && l.head < t.heads, "loss.head: expected a head from 0 to " + std::to_string(t.heads - 1) +
                                                    ", got " + std::to_string(l.head));
    AP_REQUIRE(t.weights[l.head](l.query, l.key) > 0,
               "loss.key: weights[" + std::to_string(l.query) + ", " + std::to_string(l.key) +
                   "] is 0 (masked, or too small for float32), so −log of it is infinite");
  } else {
    AP_REQUIRE(l.target.size() == dv, "loss.target: expected [dv] = " + shape_str({dv}) +
                                          " (one value per output "
                                          "column), got " +
                                          shape_str({l.target.size()}));
    check_finite("loss.target", l.target.data(), static_cast<std::size_t>(l.target.size()));
  }
}

}  // namespace

PipelineGrads run_backward(const RunOptions& opts, const PipelineLoss& loss) {
  require_backward_rule(opts.score, "runBackward");
  AP_REQUIRE(opts.positions == Positions::None,
             std::string("positions: runBackward differentiates the course's program, which has no positions; got '") +
                 positions_name(opts.positions) + "' (use 'none')");
  PipelineGrads r;
  r.trace = run(opts);
  const Trace& t = r.trace;
  check_loss(loss, t);
  const int H = t.heads, nq = static_cast<int>(t.Q.rows()), nk = static_cast<int>(t.K.rows());
  const int dqh = static_cast<int>(t.Q.cols()) / H, dkh = static_cast<int>(t.K.cols()) / H;
  const int dvh = static_cast<int>(t.V.cols()) / H;
  r.dOutput = Mat::Zero(nq, t.V.cols());
  if (loss.kind == PipelineLoss::Kind::Output) {
    const auto diff = (t.output.row(loss.query) - loss.target.transpose()).eval();
    r.loss = static_cast<double>(diff.squaredNorm());
    r.dOutput.row(loss.query) = 2.f * diff;
  } else {
    r.loss = -std::log(static_cast<double>(t.weights[loss.head](loss.query, loss.key)));
  }
  r.dQ.resize(nq, t.Q.cols());
  r.dK.resize(nk, t.K.cols());
  r.dV.resize(nk, t.V.cols());
  const float c = t.scale / opts.temperature;
  for (Eigen::Index h = 0; h < H; ++h) {
    Mat extra;
    if (loss.kind == PipelineLoss::Kind::Attend && h == loss.head) {
      extra = Mat::Zero(nq, nk);
      extra(loss.query, loss.key) = -1.f / t.weights[h](loss.query, loss.key);
    }
    AttentionGrads g;
    softmax_attention_backward(t.weights[h], t.V.middleCols(h * dvh, dvh), r.dOutput.middleCols(h * dvh, dvh),
                               extra.size() ? &extra : nullptr, g);
    dot_scores_backward(t.Q.middleCols(h * dqh, dqh), t.K.middleCols(h * dkh, dkh), c, g);
    r.dQ.middleCols(h * dqh, dqh) = g.dQuery;
    r.dK.middleCols(h * dkh, dkh) = g.dKey;
    r.dV.middleCols(h * dvh, dvh) = g.dValue;
    r.dWeights.push_back(std::move(g.dWeights));
    r.dScores.push_back(std::move(g.dScores));
  }
  // Q = X·Wq, K = Xkv·Wk, V = Xkv·Wv (Xkv = X for self-attention, the source's embeddings for cross).
  const Mat& X = t.embeddings;
  const Mat& Xkv = opts.cross ? t.sourceEmbeddings : t.embeddings;
  r.dWq = small::mul_tn(cview(X), cview(r.dQ));
  r.dWk = small::mul_tn(cview(Xkv), cview(r.dK));
  r.dWv = small::mul_tn(cview(Xkv), cview(r.dV));
  r.dEmbeddings = small::mul_nt(cview(r.dQ), cview(t.Wq));
  Mat& dKv = opts.cross ? r.dSourceEmbeddings : r.dEmbeddings;
  if (opts.cross) dKv = Mat::Zero(Xkv.rows(), Xkv.cols());
  small::mm_nt(mview(dKv), cview(r.dK), cview(t.Wk), true);
  small::mm_nt(mview(dKv), cview(r.dV), cview(t.Wv), true);
  for (const Mat* m : {&r.dWq, &r.dWk, &r.dWv, &r.dEmbeddings}) check_no_overflow("loss: the gradients overflow", *m);
  return r;
}

}  // namespace ap
