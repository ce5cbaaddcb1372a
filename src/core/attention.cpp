#include "core/attention.h"

#include <cmath>
#include <limits>

#include "kernels/kernels.h"

namespace ap {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

std::string dims(const Mat& m) { return shape_str(m); }

void check_params_finite(const ScoreParams& p) {
  check_finite("params.W", p.W);
  check_finite("params.Wq", p.Wq);
  check_finite("params.Wk", p.Wk);
  check_finite("params.v", p.v.data(), static_cast<std::size_t>(p.v.size()));
  check_finite("params.W", p.concatW);
  check_finite("params.b", p.concatB.data(), static_cast<std::size_t>(p.concatB.size()));
  check_finite("params.combineW", p.combineW);
  check_finite("params.combineB", p.combineB.data(), static_cast<std::size_t>(p.combineB.size()));
}

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
    require(n == static_cast<std::size_t>(nk) || n == static_cast<std::size_t>(batch) * nk,
            "mask.keyPadding: expected " + std::to_string(nk) + " entries (one per key)" +
                (batch > 1 ? " or " + std::to_string(batch * nk) + " (batch · keys)" : std::string()) +
                ", got " + std::to_string(n));
  } else if (kind == Kind::Matrix) {
    const std::size_t per = static_cast<std::size_t>(nq) * nk;
    const std::size_t n = matrix.size();
    require(n == per || n == static_cast<std::size_t>(batch) * per,
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

void validate_attention(const Mat& Q, const Mat& K, const Mat& V, const AttentionOptions& opts, int batch) {
  const long long nq = Q.rows(), dq = Q.cols(), nk = K.rows(), dk = K.cols(), nv = V.rows(), dv = V.cols();
  require(nq > 0 && dq > 0, "query: needs at least one row and one column, got " + dims(Q));
  require(nk > 0 && dk > 0, "key: needs at least one row and one column, got " + dims(K));
  require(nv > 0 && dv > 0, "value: needs at least one row and one column, got " + dims(V));
  require(dq <= kMaxDim && dk <= kMaxDim && dv <= kMaxDim,
          "query/key/value: feature sizes are limited to " + std::to_string(kMaxDim) + ", got dq = " +
              std::to_string(dq) + ", dk = " + std::to_string(dk) + ", dv = " + std::to_string(dv));
  require(nq <= kMaxSeq && nk <= kMaxSeq && nv <= kMaxSeq,
          "query/key/value: sequences are limited to " + std::to_string(kMaxSeq) + " rows, got " + dims(Q) +
              ", " + dims(K) + ", " + dims(V));
  require(std::isfinite(opts.temperature) && opts.temperature >= 1e-6f && opts.temperature <= 1e6f,
          "temperature: must be a number from 1e-6 to 1e6, got " + std::to_string(opts.temperature));
  require(std::isfinite(opts.scale), "scale: must be finite, got " + std::to_string(opts.scale));
  check_finite("query", Q);
  check_finite("key", K);
  check_finite("value", V);
  const ScoreParams& p = opts.params;
  check_params_finite(p);

  switch (opts.score) {
    case ScoreRule::Dot:
    case ScoreRule::ScaledDot:
      require(dq == dk, std::string("query/key: score '") + score_name(opts.score) +
                            "' needs dq = dk, got query " + dims(Q) + " and key " + dims(K));
      break;
    case ScoreRule::General:
      require(p.W.rows() == dq && p.W.cols() == dk,
              "params.W: score 'general' needs W [dq, dk] = " + shape_str({dq, dk}) + ", got " + dims(p.W));
      break;
    case ScoreRule::Additive: {
      const long long h = p.Wq.rows();
      require(h > 0 && p.Wq.cols() == dq,
              "params.Wq: score 'additive' needs Wq [h, dq] = [h, " + std::to_string(dq) + "] with h > 0, got " +
                  dims(p.Wq));
      require(p.Wk.rows() == h && p.Wk.cols() == dk,
              "params.Wk: score 'additive' needs Wk [h, dk] = " + shape_str({h, dk}) + ", got " + dims(p.Wk));
      require(p.v.size() == h,
              "params.v: score 'additive' needs v [h] = " + shape_str({h}) + ", got " + shape_str({p.v.size()}));
      break;
    }
    case ScoreRule::Concat:
      require(nq == nk, "key: score 'concat' pairs query row i with key row i, so query and key need the same "
                        "number of rows, got query " + dims(Q) + " and key " + dims(K));
      require(p.concatW.rows() == nv && p.concatW.cols() == dq + dk,
              "params.W: score 'concat' needs W [nv, dq + dk] = " + shape_str({nv, dq + dk}) + ", got " +
                  dims(p.concatW));
      require(p.concatB.size() == nv,
              "params.b: score 'concat' needs b [nv] = " + shape_str({nv}) + ", got " + shape_str({p.concatB.size()}));
      if (p.combineW.size() > 0 || p.combineB.size() > 0) {
        require(p.combineW.cols() == dq + dv && p.combineW.rows() > 0,
                "params.combineW: needs [out, dq + dv] = [out, " + std::to_string(dq + dv) + "], got " +
                    dims(p.combineW));
        require(p.combineB.size() == p.combineW.rows(),
                "params.combineB: needs [out] = " + shape_str({p.combineW.rows()}) + ", got " +
                    shape_str({p.combineB.size()}));
      }
      break;
  }
  if (opts.score != ScoreRule::Concat) {
    require(nv == nk, "value: needs one row per key row, got key " + dims(K) + " and value " + dims(V));
  }
  if (opts.needWeights) {
    require(nq * nv <= kMaxMatrix, "query/key: the weights matrix [" + std::to_string(nq) + ", " +
                                       std::to_string(nv) + "] is over the limit of " + std::to_string(kMaxMatrix) +
                                       " cells; pass needWeights: false for long inputs");
  }
  opts.mask.validate(batch, static_cast<int>(nq), static_cast<int>(nv));
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
    std::vector<float> ws(static_cast<std::size_t>(
        kernels::flash_workspace_floats(nq, nv, static_cast<int>(Q.cols()), dv)));
    kernels::flash_attention(Q.data(), K.data(), V.data(), r.context.data(), nq, nv, static_cast<int>(Q.cols()),
                             dv, r.scale, invTemp, opts.mask.kind == Mask::Kind::Causal, ws.data());
    r.output = r.context;
    return r;
  }

  r.scores = compute_scores(Q, K, opts.score, opts.params);
  r.scaledScores = r.scores * r.scale;
  if (!r.scaledScores.allFinite()) {
    throw Error("query/key: the scores overflow float32 (a |score| above 3.4e38); scale the inputs down");
  }
  r.maskedScores = r.scaledScores;
  if (opts.mask.kind != Mask::Kind::None) {
    for (int i = 0; i < nq; ++i)
      for (int j = 0; j < nv; ++j)
        if (opts.mask.masked(b, i, j, nq, nv)) r.maskedScores(i, j) = kNegInf;
  }
  r.weights = r.maskedScores;
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
  if (!opts.needWeights) {
    r.scores.resize(0, 0);
    r.scaledScores.resize(0, 0);
    r.maskedScores.resize(0, 0);
    r.weights.resize(0, 0);
  }
  return r;
}

}  // namespace ap
