#include "core/multihead.h"

#include <cmath>

#include "core/attention.h"

namespace ap {
namespace {

void check_shape(const std::string& name, const Mat& m, long long rows, long long cols) {
  AP_REQUIRE(m.rows() == rows && m.cols() == cols,
             name + ": expected " + shape_str({rows, cols}) + ", got " + shape_str(m));
}

// The caller's causal flag, key padding and attention mask as one ap::Mask (1 = masked), shared by every
// head; a float attention mask becomes the mask's additive term.
Mask combined_mask(const MultiHeadParams& p, long long nq, long long nk) {
  Mask m;
  m.additive = p.attnMaskAdditive;
  if (!p.causal && p.keyPaddingMask.empty() && p.attnMask.empty()) return m;
  m.kind = Mask::Kind::Matrix;
  m.matrix.resize(static_cast<std::size_t>(nq * nk));
  for (long long i = 0; i < nq; ++i)
    for (long long j = 0; j < nk; ++j)
      m.matrix[i * nk + j] = (p.causal && j > i) || (!p.keyPaddingMask.empty() && p.keyPaddingMask[j]) ||
                             (!p.attnMask.empty() && p.attnMask[i * nk + j]);
  return m;
}

}  // namespace

MultiHeadResult multi_head_attention(const Mat& query, const Mat& key, const Mat& value, const MultiHeadParams& p) {
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
  check_finite("query", query);
  check_finite("key", key);
  check_finite("value", value);

  // Errors name the weights as the caller passed them: the packed one, or the three separate ones.
  const bool packed = p.inProjWeight.size() > 0;
  const std::string qName = packed ? "inProjWeight" : "qProjWeight";
  const std::string kName = packed ? "inProjWeight" : "kProjWeight";
  const std::string vName = packed ? "inProjWeight" : "vProjWeight";
  Mat Wq, Wk, Wv;
  if (packed) {
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
    const bool anySeparate = p.qProjWeight.size() > 0 || p.kProjWeight.size() > 0 || p.vProjWeight.size() > 0;
    AP_REQUIRE(anySeparate,
               "inProjWeight: missing; give inProjWeight [3E, E] or all of qProjWeight, kProjWeight, vProjWeight");
    for (const auto& [name, w] : {std::pair<const std::string&, const Mat&>{qName, p.qProjWeight},
                                  {kName, p.kProjWeight},
                                  {vName, p.vProjWeight}}) {
      AP_REQUIRE(w.size() > 0, name +
                                   ": missing; the separate projections need all of qProjWeight, kProjWeight, "
                                   "vProjWeight (or inProjWeight [3E, E] alone)");
    }
    check_shape(qName, p.qProjWeight, E, E);
    check_shape(kName, p.kProjWeight, E, key.cols());
    check_shape(vName, p.vProjWeight, E, value.cols());
    Wq = p.qProjWeight;
    Wk = p.kProjWeight;
    Wv = p.vProjWeight;
  }
  check_finite(qName, Wq);
  check_finite(kName, Wk);
  check_finite(vName, Wv);
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

  Mat q = query * Wq.transpose();
  Mat k = key * Wk.transpose();
  Mat v = value * Wv.transpose();
  if (p.inProjBias.size() > 0) {
    q.rowwise() += p.inProjBias.segment(0, E).transpose();
    k.rowwise() += p.inProjBias.segment(E, E).transpose();
    v.rowwise() += p.inProjBias.segment(2 * E, E).transpose();
  }

  check_no_overflow(qName + ": the projections overflow", q);
  check_no_overflow(kName + ": the projections overflow", k);
  check_no_overflow(vName + ": the projections overflow", v);
  const int H = p.numHeads;
  const int hd = static_cast<int>(E / H);
  // torch.nn.MultiheadAttention's head: scaled-dot (1/√hd), temperature 1, the caller's masks.
  AttentionOptions head;
  head.mask = combined_mask(p, nq, nk);
  head.keepSteps = false;
  head.needScores = false;
  MultiHeadResult r;
  Mat context(nq, E);
  for (Eigen::Index h = 0; h < H; ++h) {
    const Mat qh = q.middleCols(h * hd, hd);
    const Mat kh = k.middleCols(h * hd, hd);
    const Mat vh = v.middleCols(h * hd, hd);
    AttentionResult a;
    try {
      a = attention(qh, kh, vh, head);
    } catch (const Error&) {
      // The only failure left once the inputs are checked: the projected scores overflow.
      throw overflow_error((packed ? qName : qName + "/" + kName) + (p.attnMaskAdditive.empty() ? "" : "/attnMask") +
                           ": the scores of head " + std::to_string(h) + " overflow");
    }
    context.middleCols(h * hd, hd) = a.output;
    if (h == 0) r.maskedRows = std::move(a.maskedRows);
    r.weights.push_back(std::move(a.weights));
  }
  r.output = context * p.outProjWeight.transpose();
  if (p.outProjBias.size() > 0) r.output.rowwise() += p.outProjBias.transpose();
  check_no_overflow("outProjWeight: the output overflows", r.output);
  return r;
}

}  // namespace ap
