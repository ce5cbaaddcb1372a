// Input checks of multi_head_attention(): cold code, kept apart like attention_checks.cpp.
#include <cmath>
#include <utility>

#include "core/attention.h"
#include "core/multihead.h"

namespace ap {
namespace {

void check_shape(const std::string& name, const Mat& m, long long rows, long long cols) {
  AP_REQUIRE(m.rows() == rows && m.cols() == cols,
             name + ": expected " + shape_str({rows, cols}) + ", got " + shape_str(m));
}

void check_inputs(const Mat& query, const Mat& key, const Mat& value, const MultiHeadParams& p) {
  const long long E = query.cols(), nq = query.rows(), nk = key.rows();
  AP_REQUIRE(nq > 0 && E > 0, "query: needs at least one row and one column, got " + shape_str(query));
  AP_REQUIRE(nk > 0 && key.cols() > 0, "key: needs at least one row and one column, got " + shape_str(key));
  AP_REQUIRE(value.rows() == nk,
             "value: needs one row per key row, got key " + shape_str(key) + " and value " + shape_str(value));
  AP_REQUIRE(E <= kMaxDim && key.cols() <= kMaxDim && value.cols() <= kMaxDim,
             "query/key/value: feature sizes are limited to " + std::to_string(kMaxDim));
  AP_REQUIRE(nq * nk <= kMaxMatrix, "query/key: the weights matrix " + shape_str({nq, nk}) + " is over the limit of " +
                                        std::to_string(kMaxMatrix) + " cells");
  AP_REQUIRE(
      p.numHeads >= 1 && p.numHeads <= E && E % p.numHeads == 0,
      "numHeads: must divide the embedding size E = " + std::to_string(E) + ", got " + std::to_string(p.numHeads));
  const int KV = p.numKVHeads == 0 ? p.numHeads : p.numKVHeads;
  AP_REQUIRE(KV >= 1 && KV <= p.numHeads && p.numHeads % KV == 0,
             "numKVHeads: must divide numHeads = " + std::to_string(p.numHeads) +
                 " (each K/V head serves numHeads / numKVHeads query heads), got " + std::to_string(p.numKVHeads));
  if (p.hasWindow) validate_window(p.window, p.sinks, static_cast<int>(nk), "");
  AP_REQUIRE(p.sinkLogits.empty() || static_cast<int>(p.sinkLogits.size()) == p.numHeads,
             "sinkLogits: expected " + std::to_string(p.numHeads) + " values (one per head), got " +
                 std::to_string(p.sinkLogits.size()));
  for (std::size_t h = 0; h < p.sinkLogits.size(); ++h)
    AP_REQUIRE(std::isfinite(p.sinkLogits[h]),
               "sinkLogits[" + std::to_string(h) + "]: must be a finite number, got " + fmt(p.sinkLogits[h]));
  check_finite("query", query);
  check_finite("key", key);
  check_finite("value", value);
}

// The q/k/v projections: either the packed inProjWeight or all three separate ones, shaped for the inputs.
void check_projections(const Mat& key, const Mat& value, long long E, const MultiHeadParams& p) {
  const ProjectionNames n = projection_names(p);
  const long long kv = kv_rows(p, E);
  if (p.inProjWeight.size() > 0) {
    AP_REQUIRE(p.qProjWeight.size() == 0 && p.kProjWeight.size() == 0 && p.vProjWeight.size() == 0,
               "inProjWeight: give either inProjWeight or qProjWeight + kProjWeight + vProjWeight, not both");
    check_shape("inProjWeight", p.inProjWeight, E + 2 * kv, E);
    AP_REQUIRE(key.cols() == E && value.cols() == E,
               "key/value: with a packed inProjWeight key and value need E = " + std::to_string(E) +
                   " columns, got key " + shape_str(key) + " and value " + shape_str(value) +
                   " (pass qProjWeight, kProjWeight, vProjWeight for other sizes)");
  } else {
    const bool anySeparate = p.qProjWeight.size() > 0 || p.kProjWeight.size() > 0 || p.vProjWeight.size() > 0;
    AP_REQUIRE(anySeparate,
               "inProjWeight: missing; give inProjWeight [3E, E] or all of qProjWeight, kProjWeight, vProjWeight");
    for (const auto& [name, w] :
         {std::pair<const std::string&, const Mat&>{n.q, p.qProjWeight}, {n.k, p.kProjWeight}, {n.v, p.vProjWeight}}) {
      AP_REQUIRE(w.size() > 0, name +
                                   ": missing; the separate projections need all of qProjWeight, kProjWeight, "
                                   "vProjWeight (or inProjWeight [3E, E] alone)");
    }
    check_shape(n.q, p.qProjWeight, E, E);
    check_shape(n.k, p.kProjWeight, kv, key.cols());
    check_shape(n.v, p.vProjWeight, kv, value.cols());
  }
  for (int i = 0; i < 3; ++i) {
    const Mat w = projection_weight(p, i, E);
    check_finite(i == 0 ? n.q : i == 1 ? n.k : n.v, w);
  }
  AP_REQUIRE(
      p.inProjBias.size() == 0 || p.inProjBias.size() == E + 2 * kv,
      "inProjBias: expected [" + std::to_string(E + 2 * kv) + "], got [" + std::to_string(p.inProjBias.size()) + "]");
  check_shape("outProjWeight", p.outProjWeight, E, E);
  check_finite("outProjWeight", p.outProjWeight);
  AP_REQUIRE(p.outProjBias.size() == 0 || p.outProjBias.size() == E,
             "outProjBias: expected [" + std::to_string(E) + "], got [" + std::to_string(p.outProjBias.size()) + "]");
  check_finite("inProjBias", p.inProjBias.data(), static_cast<std::size_t>(p.inProjBias.size()));
  check_finite("outProjBias", p.outProjBias.data(), static_cast<std::size_t>(p.outProjBias.size()));
}

void check_masks(const Mat& query, const Mat& key, const MultiHeadParams& p) {
  const long long nq = query.rows(), nk = key.rows();
  AP_REQUIRE(p.keyPaddingMask.empty() || static_cast<long long>(p.keyPaddingMask.size()) == nk,
             "keyPaddingMask: expected " + std::to_string(nk) + " entries (one per key), got " +
                 std::to_string(p.keyPaddingMask.size()));
  AP_REQUIRE(
      p.attnMask.empty() || static_cast<long long>(p.attnMask.size()) == nq * nk,
      "attnMask: expected nq·nk = " + std::to_string(nq * nk) + " entries, got " + std::to_string(p.attnMask.size()));
  AP_REQUIRE(p.attnMask.empty() || p.attnMaskAdditive.empty(),
             "attnMask: give a boolean or a float (additive) mask, not both");
  AP_REQUIRE(p.attnMaskAdditive.empty() || static_cast<long long>(p.attnMaskAdditive.size()) == nq * nk,
             "attnMask: a float mask is added to the scores [nq, nk] = " + shape_str({nq, nk}) + " (query " +
                 shape_str(query) + ", key " + shape_str(key) + "), so it needs " + std::to_string(nq * nk) +
                 " values, got " + std::to_string(p.attnMaskAdditive.size()));
  for (std::size_t c = 0; c < p.attnMaskAdditive.size(); ++c) {
    const float a = p.attnMaskAdditive[c];
    const std::string at =
        " at [" + std::to_string(c / nk) + ", " + std::to_string(c % nk) + "] (index " + std::to_string(c) + ")";
    AP_REQUIRE(!std::isnan(a), "attnMask: a float mask must not hold NaN, got NaN" + at);
    AP_REQUIRE(!(std::isinf(a) && a > 0),
               "attnMask: a float mask allows finite values and -inf (masked), got +inf" + at);
  }
}

}  // namespace

ProjectionNames projection_names(const MultiHeadParams& p) {
  if (p.inProjWeight.size() > 0) return {"inProjWeight", "inProjWeight", "inProjWeight"};
  return {"qProjWeight", "kProjWeight", "vProjWeight"};
}

long long kv_rows(const MultiHeadParams& p, long long E) {
  return (p.numKVHeads == 0 ? p.numHeads : p.numKVHeads) * (E / p.numHeads);
}

Mat projection_weight(const MultiHeadParams& p, int which, long long E) {
  const long long kv = kv_rows(p, E);
  if (p.inProjWeight.size() > 0)
    return which == 0 ? p.inProjWeight.topRows(E) : p.inProjWeight.middleRows(E + (which - 1) * kv, kv);
  return which == 0 ? p.qProjWeight : which == 1 ? p.kProjWeight : p.vProjWeight;
}

void validate_multihead(const Mat& query, const Mat& key, const Mat& value, const MultiHeadParams& p) {
  check_inputs(query, key, value, p);
  check_projections(key, value, query.cols(), p);
  check_masks(query, key, p);
}

}  // namespace ap
