// Input checks of attention(): cold code, kept apart so it can be built for size.
#include <cmath>

#include "core/attention.h"

namespace ap {
namespace {

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

namespace {

// ALiBi's slope and what it biases (attention()'s alibiSlope).
void validate_alibi(const AttentionOptions& opts, long long nq, long long nk) {
  AP_REQUIRE(std::isfinite(opts.alibiSlope) && opts.alibiSlope >= 0.f && opts.alibiSlope <= 1e3f,
             "alibiSlope: must be a number from 0 to 1000, got " + fmt(opts.alibiSlope));
  AP_REQUIRE(opts.score != ScoreRule::Concat,
             "alibiSlope: biases the score of query i for key j by their distance, but score 'concat' has no "
             "query-key scores (one per value row); use another score");
  AP_REQUIRE(nq * nk <= kMaxMatrix, "alibiSlope: the bias [" + std::to_string(nq) + ", " + std::to_string(nk) +
                                        "] is over the limit of " + std::to_string(kMaxMatrix) + " cells");
}

}  // namespace

void validate_attention(const Mat& Q, const Mat& K, const Mat& V, const AttentionOptions& opts, int batch) {
  const long long nq = Q.rows(), dq = Q.cols(), nk = K.rows(), dk = K.cols(), nv = V.rows(), dv = V.cols();
  AP_REQUIRE(nq > 0 && dq > 0, "query: needs at least one row and one column, got " + shape_str(Q));
  AP_REQUIRE(nk > 0 && dk > 0, "key: needs at least one row and one column, got " + shape_str(K));
  AP_REQUIRE(nv > 0 && dv > 0, "value: needs at least one row and one column, got " + shape_str(V));
  AP_REQUIRE(dq <= kMaxDim && dk <= kMaxDim && dv <= kMaxDim,
             "query/key/value: feature sizes are limited to " + std::to_string(kMaxDim) +
                 ", got dq = " + std::to_string(dq) + ", dk = " + std::to_string(dk) + ", dv = " + std::to_string(dv));
  AP_REQUIRE(nq <= kMaxSeq && nk <= kMaxSeq && nv <= kMaxSeq,
             "query/key/value: sequences are limited to " + std::to_string(kMaxSeq) + " rows, got " + shape_str(Q) +
                 ", " + shape_str(K) + ", " + shape_str(V));
  AP_REQUIRE(std::isfinite(opts.temperature) && opts.temperature >= 1e-6f && opts.temperature <= 1e6f,
             "temperature: must be a number from 1e-6 to 1e6, got " + fmt(opts.temperature));
  AP_REQUIRE(std::isfinite(opts.scale), "scale: must be finite, got " + fmt(opts.scale));
  AP_REQUIRE(!opts.hasSinkLogit || std::isfinite(opts.sinkLogit),
             "sinkLogit: must be a finite number (a logit; 0 is softmax off by one), got " + fmt(opts.sinkLogit));
  check_finite("query", Q);
  check_finite("key", K);
  check_finite("value", V);
  const ScoreParams& p = opts.params;
  check_params_finite(p);

  switch (opts.score) {
    case ScoreRule::Dot:
    case ScoreRule::ScaledDot:
      AP_REQUIRE(dq == dk, std::string("query/key: score '") + score_name(opts.score) + "' needs dq = dk, got query " +
                               shape_str(Q) + " and key " + shape_str(K));
      break;
    case ScoreRule::General:
      AP_REQUIRE(p.W.rows() == dq && p.W.cols() == dk,
                 "params.W: score 'general' needs W [dq, dk] = " + shape_str({dq, dk}) + ", got " + shape_str(p.W));
      break;
    case ScoreRule::Additive: {
      const long long h = p.Wq.rows();
      AP_REQUIRE(h > 0 && p.Wq.cols() == dq, "params.Wq: score 'additive' needs Wq [h, dq] = [h, " +
                                                 std::to_string(dq) + "] with h > 0, got " + shape_str(p.Wq));
      AP_REQUIRE(p.Wk.rows() == h && p.Wk.cols() == dk,
                 "params.Wk: score 'additive' needs Wk [h, dk] = " + shape_str({h, dk}) + ", got " + shape_str(p.Wk));
      AP_REQUIRE(p.v.size() == h,
                 "params.v: score 'additive' needs v [h] = " + shape_str({h}) + ", got " + shape_str({p.v.size()}));
      // One tanh per (query, key, hidden unit): bound the whole, not just the parts, so no call runs for minutes.
      AP_REQUIRE(nq * nk * h <= kMaxAdditiveWork,
                 "params.Wq: score 'additive' needs nq·nk·h = " + std::to_string(nq) + "·" + std::to_string(nk) + "·" +
                     std::to_string(h) + " tanh evaluations, over the limit of " + std::to_string(kMaxAdditiveWork) +
                     "; use fewer tokens or a smaller hidden size");
      break;
    }
    case ScoreRule::Concat:
      AP_REQUIRE(nq == nk,
                 "key: score 'concat' pairs query row i with key row i, so query and key need the same "
                 "number of rows, got query " +
                     shape_str(Q) + " and key " + shape_str(K));
      AP_REQUIRE(p.concatW.rows() == nv && p.concatW.cols() == dq + dk,
                 "params.W: score 'concat' needs W [nv, dq + dk] = " + shape_str({nv, dq + dk}) + ", got " +
                     shape_str(p.concatW));
      AP_REQUIRE(p.concatB.size() == nv, "params.b: score 'concat' needs b [nv] = " + shape_str({nv}) + ", got " +
                                             shape_str({p.concatB.size()}));
      if (p.combineW.size() > 0 || p.combineB.size() > 0) {
        AP_REQUIRE(p.combineW.cols() == dq + dv && p.combineW.rows() > 0,
                   "params.combineW: needs [out, dq + dv] = [out, " + std::to_string(dq + dv) + "], got " +
                       shape_str(p.combineW));
        AP_REQUIRE(p.combineB.size() == p.combineW.rows(),
                   "params.combineB: needs [out] = " + shape_str({p.combineW.rows()}) + ", got " +
                       shape_str({p.combineB.size()}));
      }
      break;
  }
  if (opts.score != ScoreRule::Concat) {
    AP_REQUIRE(nv == nk, "value: needs one row per key row, got key " + shape_str(K) + " and value " + shape_str(V));
  }
  if (opts.needWeights) {
    AP_REQUIRE(nq * nv <= kMaxMatrix, "query/key: the weights matrix [" + std::to_string(nq) + ", " +
                                          std::to_string(nv) + "] is over the limit of " + std::to_string(kMaxMatrix) +
                                          " cells; pass needWeights: false for long inputs");
  }
  opts.mask.validate(batch, static_cast<int>(nq), static_cast<int>(nv));
  validate_rope(opts.rope, nq, dq, nk, dk);
  if (opts.hasAlibi) validate_alibi(opts, nq, nk);
}

}  // namespace ap
