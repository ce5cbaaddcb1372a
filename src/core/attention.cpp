#include "core/attention.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>

#include "core/enum_names.h"
#include "kernels/kernels.h"

namespace ap {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// A · Bᵀ for row-major A [m, d] and B [n, d], through the kernel.
Mat times_transposed(const Mat& A, const Mat& B) {
  Mat S(A.rows(), B.rows());
  kernels::qkt(A.data(), B.data(), S.data(), static_cast<int>(A.rows()), static_cast<int>(B.rows()),
               static_cast<int>(A.cols()), 1.f);
  return S;
}

// The sink's share of each row of masked scores S (softmax over the row and one more logit `sink`, all divided by
// the temperature), into *share; returns what the row keeps, Σ / (Σ + e^sink), computed without cancellation.
std::vector<double> sink_shares(const Mat& S, float sink, double invTemp, std::vector<float>* share) {
  std::vector<double> keep(static_cast<std::size_t>(S.rows()));
  if (share) share->resize(keep.size());
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    double m = sink;
    for (Eigen::Index j = 0; j < S.cols(); ++j) m = std::max(m, static_cast<double>(S(i, j)));
    double z = 0;
    for (Eigen::Index j = 0; j < S.cols(); ++j)
      if (S(i, j) != kNegInf) z += std::exp((S(i, j) - m) * invTemp);
    const double zs = std::exp((sink - m) * invTemp);
    keep[static_cast<std::size_t>(i)] = z / (z + zs);
    if (share) (*share)[static_cast<std::size_t>(i)] = static_cast<float>(zs / (z + zs));
  }
  return keep;
}

}  // namespace

ScoreRule parse_score(const std::string& name) {
  static constexpr std::array kRules{ScoreRule::Dot, ScoreRule::ScaledDot, ScoreRule::General, ScoreRule::Additive,
                                     ScoreRule::Concat};
  return parse_enum_name(name, kRules, score_name, "score", "rule");
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
  if (!additive.empty() && additive[static_cast<std::size_t>(i) * nk + j] == kNegInf) return true;
  switch (kind) {
    case Kind::None: return false;
    case Kind::Causal: return j > i;
    case Kind::Window: return j > i || (j <= i - window && j >= sinks);
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

void Mask::validate(int batch, int nq, int nk, const std::string& prefix) const {
  if (kind == Kind::Window) validate_window(window, sinks, nk, prefix);
  if (kind == Kind::KeyPadding) {
    const std::size_t n = keyPadding.size();
    AP_REQUIRE(n == static_cast<std::size_t>(nk) || n == static_cast<std::size_t>(batch) * nk,
               "mask.keyPadding: expected " + std::to_string(nk) + " entries (one per key)" +
                   (batch > 1 ? " or " + std::to_string(batch * nk) + " (batch · keys)" : std::string()) + ", got " +
                   std::to_string(n));
  } else if (kind == Kind::Matrix) {
    const std::size_t per = static_cast<std::size_t>(nq) * nk;
    const std::size_t n = matrix.size();
    AP_REQUIRE(n == per || n == static_cast<std::size_t>(batch) * per,
               "mask.matrix: expected " + std::to_string(per) + " entries (nq·nk = " + std::to_string(nq) + "·" +
                   std::to_string(nk) + ")" +
                   (batch > 1 ? " or " + std::to_string(batch * per) + " (batch · nq · nk)" : std::string()) +
                   ", got " + std::to_string(n));
  }
  if (!additive.empty()) {
    AP_REQUIRE(additive.size() == static_cast<std::size_t>(nq) * nk,
               "mask.additive: expected [nq, nk] = " + shape_str({nq, nk}) + " (" + std::to_string(nq * nk) +
                   " values), got " + std::to_string(additive.size()));
    for (std::size_t c = 0; c < additive.size(); ++c)
      AP_REQUIRE(!std::isnan(additive[c]) && additive[c] != -kNegInf,
                 "mask.additive: every value must be finite or -inf, got " + fmt(additive[c]) + " at [" +
                     std::to_string(c / nk) + ", " + std::to_string(c % nk) + "]");
  }
}

void validate_window(int window, int sinks, int nk, const std::string& prefix) {
  AP_REQUIRE(window >= 1,
             prefix + "window: a sliding window needs at least 1 key (the query's own), got " + std::to_string(window));
  AP_REQUIRE(sinks >= 0 && sinks <= nk, prefix + "sinks: the kept first keys must be from 0 to the " +
                                            std::to_string(nk) + " keys, got " + std::to_string(sinks));
}

float default_scale(ScoreRule rule, int dk) {
  return rule == ScoreRule::ScaledDot ? 1.f / std::sqrt(static_cast<float>(dk)) : 1.f;
}

Mat compute_scores(const Mat& Q, const Mat& K, ScoreRule rule, const ScoreParams& p, ScoreCache* cache) {
  const int nq = static_cast<int>(Q.rows());
  const int nk = static_cast<int>(K.rows());
  switch (rule) {
    case ScoreRule::Dot:
    case ScoreRule::ScaledDot: return times_transposed(Q, K);
    case ScoreRule::General: {
      // qᵀ W k for every pair: (Q W) Kᵀ, with Q W computed once (as Q · (Wᵀ)ᵀ).
      const Mat Wt = p.W.transpose();
      return times_transposed(times_transposed(Q, Wt), K);
    }
    case ScoreRule::Additive: {
      const Mat A = times_transposed(Q, p.Wq);  // [nq, h]: Wq q_i
      const Mat B = times_transposed(K, p.Wk);  // [nk, h]: Wk k_j
      const int h = static_cast<int>(p.v.size());
      std::vector<float> scratch(cache ? 0 : static_cast<std::size_t>(h));
      if (cache) cache->tanh.resize(static_cast<Eigen::Index>(nq) * nk, h);
      Mat S(nq, nk);
      // Plain loops: nq·nk·h tanh with no temporaries (an Eigen row expression per cell allocates).
      for (int i = 0; i < nq; ++i) {
        const float* a = A.data() + static_cast<std::ptrdiff_t>(i) * h;
        for (int j = 0; j < nk; ++j) {
          const float* b = B.data() + static_cast<std::ptrdiff_t>(j) * h;
          float* th = cache ? cache->tanh.data() + (static_cast<std::ptrdiff_t>(i) * nk + j) * h : scratch.data();
          float acc = 0.f;
          for (int t = 0; t < h; ++t) {
            th[t] = std::tanh(a[t] + b[t]);
            acc += th[t] * p.v[t];
          }
          S(i, j) = acc;
        }
      }
      return S;
    }
    case ScoreRule::Concat: {
      // Linear over [q_i; k_i]: one score per value row.
      Mat local;
      Mat& C = cache ? cache->queryKey : local;
      C.resize(nq, Q.cols() + K.cols());
      C << Q, K;
      Mat S = times_transposed(C, p.concatW);
      S.rowwise() += p.concatB.transpose();
      return S;
    }
  }
  throw Error("score: unknown rule");
}

bool weights_from_scores(const Mat& scores, float scale, const Mask& mask, int b, float temperature, Mat& weights,
                         Mat* scaledScores, Mat* maskedScores, const float* sinkLogit, std::vector<float>* sinkShare) {
  const int nq = static_cast<int>(scores.rows());
  const int nk = static_cast<int>(scores.cols());
  // One buffer becomes the scaled, then the masked scores, then the weights, in place; the middle steps
  // are copied out only when they are kept for display.
  weights = scores * scale;
  const bool finite = weights.allFinite();
  if (scaledScores) *scaledScores = weights;
  bool sumFinite = true;
  if (!mask.additive.empty()) {
    // The additive term is finite or -inf; a finite sum that overflows to ±inf is an overflow, -inf bars the key.
    for (int i = 0; i < nq; ++i)
      for (int j = 0; j < nk; ++j) {
        const float a = mask.additive[static_cast<std::size_t>(i) * nk + j];
        if (a == kNegInf) continue;
        weights(i, j) += a;
        sumFinite = sumFinite && std::isfinite(weights(i, j));
      }
  }
  if (mask.active()) {
    for (int i = 0; i < nq; ++i)
      for (int j = 0; j < nk; ++j)
        if (mask.masked(b, i, j, nq, nk)) weights(i, j) = kNegInf;
  }
  if (maskedScores) *maskedScores = weights;
  std::vector<double> keep;
  if (sinkLogit) keep = sink_shares(weights, *sinkLogit, 1.0 / temperature, sinkShare);
  kernels::softmax_rows(weights.data(), nq, nk, 1.f / temperature);
  for (std::size_t i = 0; i < keep.size(); ++i)
    weights.row(static_cast<Eigen::Index>(i)) *= static_cast<float>(keep[i]);
  return finite && sumFinite;
}

namespace {

// max |x| over a matrix of finite values (validated before): the overflow bound's scan, run on every call. A plain
// loop: this file is built at -Os, where Eigen's cwiseAbs().maxCoeff() calls a function per element (a CPU profile
// of attention() at n = 512 put 15 % of the whole call there).
float max_abs(const Mat& m) {
  float r = 0.f;
  const float* p = m.data();
  for (Eigen::Index i = 0, n = m.size(); i < n; ++i) {
    const float a = std::fabs(p[i]);
    r = a > r ? a : r;
  }
  return r;
}

// Rows whose every key is masked (their weights and context are 0).
std::vector<int> masked_rows(const Mask& mask, int b, int nq, int nv) {
  std::vector<int> rows;
  for (int i = 0; i < nq; ++i) {
    bool all = true;
    for (int j = 0; j < nv && all; ++j) all = mask.masked(b, i, j, nq, nv);
    if (all) rows.push_back(i);
  }
  return rows;
}

// The whole step in the kernels (dot scores, no mask, causal or a sliding window, nothing can overflow): the fused
// kernel, or with weightsPath the one that also writes the weights. Fills r.context, r.output and (weightsPath)
// r.weights.
void fused_attention(const Mat& Q, const Mat& K, const Mat& V, const Mask& mask, bool weightsPath, float invTemp,
                     AttentionResult& r) {
  const bool causal = mask.kind == Mask::Kind::Causal;
  const bool window = mask.kind == Mask::Kind::Window;  // the fused kernel only (not weightsPath)
  const int nq = static_cast<int>(Q.rows()), nv = static_cast<int>(V.rows());
  const int d = static_cast<int>(Q.cols()), dv = static_cast<int>(V.cols());
  r.context.resize(nq, dv);
  // Uninitialized on purpose: the kernels write every workspace cell before reading it (their tests poison it).
  std::unique_ptr<float[]> ws(new float[static_cast<std::size_t>(kernels::flash_workspace_floats(nq, nv, d, dv))]);
  if (weightsPath) {
    r.weights.resize(nq, nv);
    kernels::attention_weights(Q.data(), K.data(), V.data(), r.weights.data(), r.context.data(), nq, nv, d, dv, r.scale,
                               invTemp, causal, ws.get());
  } else {
    kernels::flash_attention(Q.data(), K.data(), V.data(), r.context.data(), nq, nv, d, dv, r.scale, invTemp, causal,
                             ws.get(), window ? mask.window : 0, window ? mask.sinks : 0);
  }
  if (!all_finite(r.context)) throw overflow_error("query/key/value: the output overflows");
  r.output = r.context;
}

// The step without positions (attention() applies rope and alibi around it).
AttentionResult attend(const Mat& Q, const Mat& K, const Mat& V, const AttentionOptions& opts, int b) {
  AttentionResult r;
  const int nq = static_cast<int>(Q.rows());
  const int nv = static_cast<int>(V.rows());
  const int dv = static_cast<int>(V.cols());
  r.scale = opts.hasScale ? opts.scale : default_scale(opts.score, static_cast<int>(K.cols()));
  const float invTemp = 1.f / opts.temperature;

  r.maskedRows = masked_rows(opts.mask, b, nq, nv);

  const bool window = opts.mask.kind == Mask::Kind::Window;
  // The sliding window runs in the fused kernel only (the weights path falls back to the general one).
  const bool fusable =
      (opts.score == ScoreRule::Dot || opts.score == ScoreRule::ScaledDot) &&
      (opts.mask.kind == Mask::Kind::None || opts.mask.kind == Mask::Kind::Causal || (window && !opts.needWeights)) &&
      opts.mask.additive.empty() && !opts.hasSinkLogit;
  // The kernels below cannot report an overflow in the scores; when one is possible, take the checked path.
  const double scaledBound = static_cast<double>(Q.cols()) * max_abs(Q) * max_abs(K) * std::fabs(r.scale);
  const double bound = scaledBound * invTemp;
  // Two kernels take the whole step when nothing can overflow (the bound): the fused one when the weights are
  // not wanted, and the weights path when they are but no earlier step is kept (each block of rows of the
  // weights written once, straight into the buffer handed back, and summed over V while still in cache).
  const bool weightsPath = opts.needWeights && !opts.needScores && !opts.keepSteps;
  if (fusable && bound < 1e37 && (!opts.needWeights || weightsPath)) {
    fused_attention(Q, K, V, opts.mask, weightsPath, invTemp, r);
    return r;
  }

  const bool dot = opts.score == ScoreRule::Dot || opts.score == ScoreRule::ScaledDot;
  const float* sink = opts.hasSinkLogit ? &opts.sinkLogit : nullptr;
  bool finite;
  if (!opts.needScores && dot && scaledBound < 1e37) {
    // Nothing can overflow and the raw scores are not wanted: the kernel writes the scaled scores straight
    // into the weights' buffer, which then becomes the weights in place.
    r.weights.resize(nq, nv);
    kernels::qkt(Q.data(), K.data(), r.weights.data(), nq, nv, static_cast<int>(Q.cols()), r.scale);
    finite = weights_from_scores(r.weights, 1.f, opts.mask, b, opts.temperature, r.weights,
                                 opts.keepSteps ? &r.scaledScores : nullptr, opts.keepSteps ? &r.maskedScores : nullptr,
                                 sink, &r.sinkShare);
  } else {
    r.scores = compute_scores(Q, K, opts.score, opts.params);
    finite = weights_from_scores(r.scores, r.scale, opts.mask, b, opts.temperature, r.weights,
                                 opts.keepSteps ? &r.scaledScores : nullptr, opts.keepSteps ? &r.maskedScores : nullptr,
                                 sink, &r.sinkShare);
    if (!opts.needScores) r.scores.resize(0, 0);
  }
  if (!finite) {
    throw overflow_error("query/key: the scores overflow");
  }
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
  check_no_overflow(opts.params.hasCombine() && opts.score == ScoreRule::Concat
                        ? "params.combineW: the output overflows"
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

}  // namespace

AttentionResult attention(const Mat& Q, const Mat& K, const Mat& V, const AttentionOptions& opts, int b) {
  if (!opts.rope.enabled && !opts.hasAlibi) return attend(Q, K, V, opts, b);
  // Positions: Q and K rotated (rope), the bias joined to the mask's additive term (alibi: after the scale,
  // before the mask, like PyTorch's float attn_mask). The inner call sees plain attention.
  AttentionOptions inner = opts;
  inner.rope = RopeOptions();
  inner.hasAlibi = false;
  Mat bias;
  if (opts.hasAlibi) {
    const int nq = static_cast<int>(Q.rows()), nk = static_cast<int>(V.rows());
    bias = alibi_bias(nq, nk, opts.alibiSlope);
    if (inner.mask.additive.empty()) {
      inner.mask.additive.assign(bias.data(), bias.data() + bias.size());
    } else {
      for (std::size_t c = 0; c < inner.mask.additive.size(); ++c) inner.mask.additive[c] += bias.data()[c];
    }
  }
  AttentionResult r;
  if (opts.rope.enabled) {
    Mat rq = rope_rotate(Q, opts.rope.queryPositions, opts.rope.base);
    Mat rk = rope_rotate(K, opts.rope.keyPositions, opts.rope.base);
    r = attend(rq, rk, V, inner, b);
    r.rotatedQ = std::move(rq);
    r.rotatedK = std::move(rk);
  } else {
    r = attend(Q, K, V, inner, b);
  }
  r.positionBias = std::move(bias);
  return r;
}

namespace {

struct TraceSink {
  FlashTraceResult* out;
  int br, bc, dv;
  static void record(void* ctx, int i0, int rows, int j0, int, const float* m, const float* l, const float* O) {
    auto* t = static_cast<TraceSink*>(ctx);
    FlashStep s;
    s.rowBlock = i0 / t->br;
    s.colBlock = j0 / t->bc;
    s.m.assign(m, m + rows);
    s.l.assign(l, l + rows);
    s.O = Eigen::Map<const Mat>(O, rows, t->dv);
    t->out->steps.push_back(std::move(s));
  }
};

}  // namespace

FlashTraceResult flash_trace(const Mat& Q, const Mat& K, const Mat& V, int blockRows, int blockCols, bool causal,
                             bool hasScale, float scale) {
  const int maxRows = kernels::flash_block_rows(), maxCols = kernels::flash_block_cols();
  AP_REQUIRE(blockRows >= 1 && blockRows <= maxRows, "blockRows: must be an integer from 1 to " +
                                                         std::to_string(maxRows) + " (the kernel's own), got " +
                                                         std::to_string(blockRows));
  AP_REQUIRE(blockCols >= 1 && blockCols <= maxCols, "blockCols: must be an integer from 1 to " +
                                                         std::to_string(maxCols) + " (the kernel's own), got " +
                                                         std::to_string(blockCols));
  AttentionOptions o;
  o.hasScale = hasScale;
  o.scale = scale;
  if (causal) o.mask.kind = Mask::Kind::Causal;
  validate_attention(Q, K, V, o);
  const int nq = static_cast<int>(Q.rows()), nk = static_cast<int>(K.rows());
  const int d = static_cast<int>(Q.cols()), dv = static_cast<int>(V.cols());
  const long long tiles = static_cast<long long>((nq + blockRows - 1) / blockRows) * ((nk + blockCols - 1) / blockCols);
  AP_REQUIRE(tiles * blockRows * (dv + 2) <= kMaxFlashTraceFloats,
             "query/key: a trace of " + std::to_string(tiles) + " tiles of " + std::to_string(blockRows) + " rows × " +
                 std::to_string(dv) + " values is over the limit of " + std::to_string(kMaxFlashTraceFloats) +
                 " floats; use fewer rows or larger blocks");
  FlashTraceResult r;
  r.scale = hasScale ? scale : default_scale(ScoreRule::ScaledDot, d);
  const double bound = static_cast<double>(d) * max_abs(Q) * max_abs(K) * std::fabs(r.scale);
  if (!(bound < 1e37)) throw overflow_error("query/key: the scores overflow");
  r.output.resize(nq, dv);
  std::vector<float> ws(static_cast<std::size_t>(kernels::flash_trace_workspace_floats(nk, d, dv, blockCols)));
  TraceSink sink{&r, blockRows, blockCols, dv};
  kernels::flash_trace(Q.data(), K.data(), V.data(), r.output.data(), nq, nk, d, dv, r.scale, causal, blockRows,
                       blockCols, ws.data(), &TraceSink::record, &sink);
  check_no_overflow("query/key/value: the output overflows", r.output);
  return r;
}

}  // namespace ap
