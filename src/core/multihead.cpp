#include "core/multihead.h"

#include <cmath>
#include <limits>

#include "kernels/kernels.h"

namespace ap {
namespace {

void check_shape(const std::string& name, const Mat& m, long long rows, long long cols) {
  AP_REQUIRE(m.rows() == rows && m.cols() == cols,
             name + ": expected " + shape_str({rows, cols}) + ", got " + shape_str(m));
}

}  // namespace

MultiHeadResult multi_head_attention(const Mat& query, const Mat& key, const Mat& value, const MultiHeadParams& p) {
  const long long E = query.cols(), nq = query.rows(), nk = key.rows();
  AP_REQUIRE(nq > 0 && E > 0, "query: needs at least one row and one column, got " + shape_str(query));
  AP_REQUIRE(nk > 0 && key.cols() > 0, "key: needs at least one row and one column, got " + shape_str(key));
  AP_REQUIRE(value.rows() == nk, "value: needs one row per key row, got key " + shape_str(key) + " and value " +
                                     shape_str(value));
  AP_REQUIRE(E <= kMaxDim && key.cols() <= kMaxDim && value.cols() <= kMaxDim,
             "query/key/value: feature sizes are limited to " + std::to_string(kMaxDim));
  AP_REQUIRE(nq * nk <= kMaxMatrix, "query/key: the weights matrix " + shape_str({nq, nk}) + " is over the limit of " +
                                        std::to_string(kMaxMatrix) + " cells");
  AP_REQUIRE(p.numHeads >= 1 && p.numHeads <= E && E % p.numHeads == 0,
             "numHeads: must divide the embedding size E = " + std::to_string(E) + ", got " + std::to_string(p.numHeads));
  check_finite("query", query);
  check_finite("key", key);
  check_finite("value", value);

  Mat Wq, Wk, Wv;
  if (p.inProjWeight.size() > 0) {
    AP_REQUIRE(p.qProjWeight.size() == 0 && p.kProjWeight.size() == 0 && p.vProjWeight.size() == 0,
               "inProjWeight: give either inProjWeight or qProjWeight + kProjWeight + vProjWeight, not both");
    check_shape("inProjWeight", p.inProjWeight, 3 * E, E);
    AP_REQUIRE(key.cols() == E && value.cols() == E,
               "key/value: with a packed inProjWeight key and value need E = " + std::to_string(E) +
                   " columns, got key " + shape_str(key) + " and value " + shape_str(value) +
                   " (pass qProjWeight, kProjWeight, vProjWeight for other sizes)");
    Wq = p.inProjWeight.topRows(E);
    Wk = p.inProjWeight.middleRows(E, E);
    Wv = p.inProjWeight.bottomRows(E);
  } else {
    AP_REQUIRE(p.qProjWeight.size() > 0 && p.kProjWeight.size() > 0 && p.vProjWeight.size() > 0,
               "inProjWeight: missing; give inProjWeight [3E, E] or all of qProjWeight, kProjWeight, vProjWeight");
    check_shape("qProjWeight", p.qProjWeight, E, E);
    check_shape("kProjWeight", p.kProjWeight, E, key.cols());
    check_shape("vProjWeight", p.vProjWeight, E, value.cols());
    Wq = p.qProjWeight;
    Wk = p.kProjWeight;
    Wv = p.vProjWeight;
  }
  check_finite("inProjWeight", Wq);
  check_finite("inProjWeight", Wk);
  check_finite("inProjWeight", Wv);
  AP_REQUIRE(p.inProjBias.size() == 0 || p.inProjBias.size() == 3 * E,
             "inProjBias: expected [" + std::to_string(3 * E) + "], got [" + std::to_string(p.inProjBias.size()) + "]");
  check_shape("outProjWeight", p.outProjWeight, E, E);
  check_finite("outProjWeight", p.outProjWeight);
  AP_REQUIRE(p.outProjBias.size() == 0 || p.outProjBias.size() == E,
             "outProjBias: expected [" + std::to_string(E) + "], got [" + std::to_string(p.outProjBias.size()) + "]");
  check_finite("inProjBias", p.inProjBias.data(), static_cast<std::size_t>(p.inProjBias.size()));
  check_finite("outProjBias", p.outProjBias.data(), static_cast<std::size_t>(p.outProjBias.size()));
  AP_REQUIRE(p.keyPaddingMask.empty() || static_cast<long long>(p.keyPaddingMask.size()) == nk,
             "keyPaddingMask: expected " + std::to_string(nk) + " entries (one per key), got " +
                 std::to_string(p.keyPaddingMask.size()));
  AP_REQUIRE(p.attnMask.empty() || static_cast<long long>(p.attnMask.size()) == nq * nk,
             "attnMask: expected nq·nk = " + std::to_string(nq * nk) + " entries, got " + std::to_string(p.attnMask.size()));

  Mat q = query * Wq.transpose();
  Mat k = key * Wk.transpose();
  Mat v = value * Wv.transpose();
  if (p.inProjBias.size() > 0) {
    q.rowwise() += p.inProjBias.segment(0, E).transpose();
    k.rowwise() += p.inProjBias.segment(E, E).transpose();
    v.rowwise() += p.inProjBias.segment(2 * E, E).transpose();
  }

  check_no_overflow("inProjWeight: the projections overflow", q);
  check_no_overflow("inProjWeight: the projections overflow", k);
  check_no_overflow("inProjWeight: the projections overflow", v);
  const int H = p.numHeads;
  const int hd = static_cast<int>(E / H);
  const float scale = 1.f / std::sqrt(static_cast<float>(hd));
  MultiHeadResult r;
  Mat context(nq, E);
  // The three masks combined once (1 = masked), shared by every head.
  std::vector<uint8_t> masked(static_cast<std::size_t>(nq * nk));
  for (long long i = 0; i < nq; ++i) {
    bool all = true;
    for (long long j = 0; j < nk; ++j) {
      const bool m = (p.causal && j > i) || (!p.keyPaddingMask.empty() && p.keyPaddingMask[j]) ||
                     (!p.attnMask.empty() && p.attnMask[i * nk + j]);
      masked[i * nk + j] = m;
      all = all && m;
    }
    if (all) r.maskedRows.push_back(static_cast<int>(i));
  }
  for (int h = 0; h < H; ++h) {
    const Mat qh = q.middleCols(h * hd, hd);
    const Mat kh = k.middleCols(h * hd, hd);
    const Mat vh = v.middleCols(h * hd, hd);
    Mat S(nq, nk);
    kernels::qkt(qh.data(), kh.data(), S.data(), static_cast<int>(nq), static_cast<int>(nk), hd, scale);
    check_no_overflow("inProjWeight: the scores of head " + std::to_string(h) + " overflow", S);
    for (long long c = 0; c < nq * nk; ++c)
      if (masked[c]) S.data()[c] = -std::numeric_limits<float>::infinity();
    kernels::softmax_rows(S.data(), static_cast<int>(nq), static_cast<int>(nk), 1.f);
    Mat ch(nq, hd);
    kernels::weights_v(S.data(), vh.data(), ch.data(), static_cast<int>(nq), static_cast<int>(nk), hd);
    context.middleCols(h * hd, hd) = ch;
    r.weights.push_back(std::move(S));
  }
  r.output = context * p.outProjWeight.transpose();
  if (p.outProjBias.size() > 0) r.output.rowwise() += p.outProjBias.transpose();
  check_no_overflow("outProjWeight: the output overflows", r.output);
  return r;
}

}  // namespace ap
