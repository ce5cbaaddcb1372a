#include "core/attention.h"

#include <cmath>
#include <limits>
#include <memory>

#include "kernels/kernels.h"

namespace ap {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();
}  // namespace

ScoreRule parse_score(const std::string& name) {
  if (name == "dot") return ScoreRule::Dot;
  if (name == "scaled-dot") return ScoreRule::ScaledDot;
  if (name == "general") return ScoreRule::General;
  if (name == "additive") return ScoreRule::Additive;
  if (name == "concat") return ScoreRule::Concat;
  throw Error("score: unknown rule '" + name +
              "'; expected one of dot, scaled-dot, general, additive, concat");
}

const char* score_name(ScoreRule rule) {
  switch (rule) {
    case ScoreRule::Dot: return "dot";
    case ScoreRule::ScaledDot: return "scaled-dot";
    case ScoreRule::General: return "general";
    case ScoreRule::Additive: return "additive";
    case ScoreRule::Concat: return "concat";
  }
  return "?";
}

bool Mask::masked(int b, int i, int j, int nq, int nk) const {
  switch (kind) {
    case Kind::None: return false;
    case Kind::Causal: return j > i;
    case Kind::KeyPadding: {
      const std::size_t off = keyPadding.size() == static_cast<std::size_t>(nk) ? 0 : static_cast<std::size_t>(b) * nk;
      return keyPadding[off + j] != 0;
    }
    case Kind::Matrix: {
      const std::size_t per = static_cast<std::size_t>(nq) * nk;
      const std::size_t off = matrix.size() == per ? 0 : static_cast<std::size_t>(b) * per;
      return matrix[off + static_cast<std::size_t>(i) * nk + j] != 0;
    }
  }
  return false;
}

void Mask::validate(int batch, int nq, int nk) const {
  if (kind == Kind::KeyPadding) {
    const std::size_t n = keyPadding.size();
    AP_REQUIRE(n == static_cast<std::size_t>(nk) || n == static_cast<std::size_t>(batch) * nk,
               "mask.keyPadding: expected " + std::to_string(nk) + " entries (one per key)" +
                   (batch > 1 ? " or " + std::to_string(batch * nk) + " (batch · keys)" : std::string()) +
                   ", got " + std::to_string(n));
  } else if (kind == Kind::Matrix) {
    const std::size_t per = static_cast<std::size_t>(nq) * nk;
    const std::size_t n = matrix.size();
    AP_REQUIRE(n == per || n == static_cast<std::size_t>(batch) * per,
               "mask.matrix: expected " + std::to_string(per) + " entries (nq·nk = " + std::to_string(nq) + "·" +
                   std::to_string(nk) + ")" +
                   (batch > 1 ? " or " + std::to_string(batch * per) + " (batch · nq · nk)" : std::string()) +
                   ", got " + std::to_string(n));
  }
}

float resolve_scale(const AttentionOptions& opts, int dk) {
  if (opts.hasScale) return opts.scale;
  return opts.score == ScoreRule::ScaledDot ? 1.f / std::sqrt(static_cast<float>(dk)) : 1.f;
}

Mat compute_scores(const Mat& Q, const Mat& K, ScoreRule rule, const ScoreParams& p) {
  const int nq = static_cast<int>(Q.rows());
  const int nk = static_cast<int>(K.rows());
  switch (rule) {
    case ScoreRule::Dot:
    case ScoreRule::ScaledDot: {
      Mat S(nq, nk);
      kernels::qkt(Q.data(), K.data(), S.data(), nq, nk, static_cast<int>(Q.cols()), 1.f);
      return S;
    }
    case ScoreRule::General: {
      // qᵀ W k for every pair: (Q W) Kᵀ, with Q W computed once.
      Mat QW = Q * p.W;
      Mat S(nq, nk);
      kernels::qkt(QW.data(), K.data(), S.data(), nq, nk, static_cast<int>(QW.cols()), 1.f);
      return S;
    }
    case ScoreRule::Additive: {
      const Mat A = Q * p.Wq.transpose();  // [nq, h]
      const Mat B = K * p.Wk.transpose();  // [nk, h]
      const int h = static_cast<int>(p.v.size());
      Mat S(nq, nk);
      for (int i = 0; i < nq; ++i)
        for (int j = 0; j < nk; ++j) {
          float acc = 0.f;
          for (int t = 0; t < h; ++t) acc += p.v[t] * std::tanh(A(i, t) + B(j, t));
          S(i, j) = acc;
        }
      return S;
    }
    case ScoreRule::Concat: {
      // Linear over [q_i; k_i]: W [nv, dq + dk] split into its query and key halves.
      const auto dq = Q.cols();
      Mat S = Q * p.concatW.leftCols(dq).transpose() + K * p.concatW.rightCols(K.cols()).transpose();
      S.rowwise() += p.concatB.transpose();
      return S;
    }
  }
  throw Error("score: unknown rule");
}

AttentionResult attention(const Mat& Q, const Mat& K, const Mat& V, const AttentionOptions& opts, int b) {
  AttentionResult r;
  const int nq = static_cast<int>(Q.rows());
  const int nv = static_cast<int>(V.rows());
  const int dv = static_cast<int>(V.cols());
  r.scale = resolve_scale(opts, static_cast<int>(K.cols()));
  const float invTemp = 1.f / opts.temperature;

  for (int i = 0; i < nq; ++i) {
    bool all = true;
    for (int j = 0; j < nv && all; ++j) all = opts.mask.masked(b, i, j, nq, nv);
    if (all) r.maskedRows.push_back(i);
  }

  const bool fusable = (opts.score == ScoreRule::Dot || opts.score == ScoreRule::ScaledDot) &&
                       (opts.mask.kind == Mask::Kind::None || opts.mask.kind == Mask::Kind::Causal);
  // The fused kernel cannot report an overflow; when one is possible, take the checked path below.
  const double bound = static_cast<double>(Q.cols()) * Q.cwiseAbs().maxCoeff() * K.cwiseAbs().maxCoeff() *
                       std::fabs(r.scale) * invTemp;
  if (!opts.needWeights && fusable && bound < 1e37) {
    r.context.resize(nq, dv);
    // Uninitialized on purpose: the kernel writes every workspace cell before reading it (its tests poison it).
    std::unique_ptr<float[]> ws(new float[static_cast<std::size_t>(
        kernels::flash_workspace_floats(nq, nv, static_cast<int>(Q.cols()), dv))]);
    kernels::flash_attention(Q.data(), K.data(), V.data(), r.context.data(), nq, nv, static_cast<int>(Q.cols()),
                             dv, r.scale, invTemp, opts.mask.kind == Mask::Kind::Causal, ws.get());
    check_no_overflow("query/key/value: the output overflows", r.context);
    r.output = r.context;
    return r;
  }

  r.scores = compute_scores(Q, K, opts.score, opts.params);
  // One n×n buffer becomes the scaled, then the masked scores, then the weights, in place; the
  // intermediate steps are copied out only when they are kept for display.
  r.weights = r.scores * r.scale;
  check_no_overflow("query/key: the scores overflow", r.weights);
  if (opts.keepSteps) r.scaledScores = r.weights;
  if (opts.mask.kind != Mask::Kind::None) {
    for (int i = 0; i < nq; ++i)
      for (int j = 0; j < nv; ++j)
        if (opts.mask.masked(b, i, j, nq, nv)) r.weights(i, j) = kNegInf;
  }
  if (opts.keepSteps) r.maskedScores = r.weights;
  kernels::softmax_rows(r.weights.data(), nq, nv, invTemp);
  r.context.resize(nq, dv);
  kernels::weights_v(r.weights.data(), V.data(), r.context.data(), nq, nv, dv);

  if (opts.score == ScoreRule::Concat && opts.params.hasCombine()) {
    const ScoreParams& p = opts.params;
    const auto dq = Q.cols();
    r.output = Q * p.combineW.leftCols(dq).transpose() + r.context * p.combineW.rightCols(dv).transpose();
    r.output.rowwise() += p.combineB.transpose();
  } else {
    r.output = r.context;
  }
  check_no_overflow(opts.params.hasCombine() && opts.score == ScoreRule::Concat ? "params.combineW: the output overflows"
                                                                             : "query/key/value: the output overflows",
                    r.output);
  if (!opts.needWeights) {
    r.scores.resize(0, 0);
    r.scaledScores.resize(0, 0);
    r.maskedScores.resize(0, 0);
    r.weights.resize(0, 0);
  }
  return r;
}

}  // namespace ap
