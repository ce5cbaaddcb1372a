#include "core/multihead.h"

#include <cmath>

#include "core/attention.h"

namespace ap {
namespace {

// The caller's causal flag, key padding and attention mask as one ap::Mask (1 = masked), shared by every
// head; a float attention mask becomes the mask's additive term.
Mask combined_mask(const MultiHeadParams& p, long long nq, long long nk) {
  Mask m;
  m.additive = p.attnMaskAdditive;
  Mask window;
  window.kind = Mask::Kind::Window;
  window.window = p.window;
  window.sinks = p.sinks;
  if (p.hasWindow && !p.causal && p.keyPaddingMask.empty() && p.attnMask.empty()) {
    window.additive = std::move(m.additive);
    return window;
  }
  if (!p.causal && !p.hasWindow && p.keyPaddingMask.empty() && p.attnMask.empty()) return m;
  m.kind = Mask::Kind::Matrix;
  m.matrix.resize(static_cast<std::size_t>(nq * nk));
  for (long long i = 0; i < nq; ++i)
    for (long long j = 0; j < nk; ++j)
      m.matrix[i * nk + j] = (p.causal && j > i) || (p.hasWindow && (j > i || (j <= i - p.window && j >= p.sinks))) ||
                             (!p.keyPaddingMask.empty() && p.keyPaddingMask[j]) ||
                             (!p.attnMask.empty() && p.attnMask[i * nk + j]);
  return m;
}

}  // namespace

MultiHeadResult multi_head_attention(const Mat& query, const Mat& key, const Mat& value, const MultiHeadParams& p) {
  validate_multihead(query, key, value, p);
  const long long E = query.cols(), nq = query.rows(), nk = key.rows();
  const ProjectionNames names = projection_names(p);
  const bool packed = p.inProjWeight.size() > 0;
  const std::string& qName = names.q;
  if (p.rope) {
    AP_REQUIRE((E / p.numHeads) % 2 == 0,
               "rope: pairs dimension i with i + d/2 in each head, so it needs an even head size, got E / numHeads = " +
                   std::to_string(E) + " / " + std::to_string(p.numHeads) + " = " + std::to_string(E / p.numHeads));
    AP_REQUIRE(std::isfinite(p.ropeBase) && p.ropeBase >= 1.f && p.ropeBase <= 1e9f,
               "rope.base: must be a number from 1 to 1e9, got " + fmt(p.ropeBase));
  }

  Mat q = query * projection_weight(p, 0, E).transpose();
  Mat k = key * projection_weight(p, 1, E).transpose();
  Mat v = value * projection_weight(p, 2, E).transpose();
  if (p.inProjBias.size() > 0) {
    q.rowwise() += p.inProjBias.segment(0, E).transpose();
    const long long kv = kv_rows(p, E);
    k.rowwise() += p.inProjBias.segment(E, kv).transpose();
    v.rowwise() += p.inProjBias.segment(E + kv, kv).transpose();
  }

  check_no_overflow(qName + ": the projections overflow", q);
  check_no_overflow(names.k + ": the projections overflow", k);
  check_no_overflow(names.v + ": the projections overflow", v);
  const int H = p.numHeads;
  const int hd = static_cast<int>(E / H);
  // torch.nn.MultiheadAttention's head: scaled-dot (1/√hd), temperature 1, the caller's masks.
  AttentionOptions head;
  head.mask = combined_mask(p, nq, nk);
  head.keepSteps = false;
  head.needScores = false;
  head.rope.enabled = p.rope;
  head.rope.base = p.ropeBase;
  const std::vector<float> slopes = p.alibi ? alibi_slopes(H) : std::vector<float>();
  head.hasAlibi = p.alibi;
  MultiHeadResult r;
  Mat context(nq, E);
  const int KV = p.numKVHeads == 0 ? H : p.numKVHeads;
  for (Eigen::Index h = 0; h < H; ++h) {
    const Eigen::Index g = h * KV / H;  // the K/V head this query head reads (Hugging Face's repeat_kv)
    const Mat qh = q.middleCols(h * hd, hd);
    const Mat kh = k.middleCols(g * hd, hd);
    const Mat vh = v.middleCols(g * hd, hd);
    head.hasSinkLogit = !p.sinkLogits.empty();
    if (head.hasSinkLogit) head.sinkLogit = p.sinkLogits[static_cast<std::size_t>(h)];
    if (p.alibi) head.alibiSlope = slopes[static_cast<std::size_t>(h)];
    AttentionResult a;
    try {
      a = attention(qh, kh, vh, head);
    } catch (const Error&) {
      // The only failure left once the inputs are checked: the projected scores overflow.
      throw overflow_error((packed ? qName : qName + "/" + names.k) + (p.attnMaskAdditive.empty() ? "" : "/attnMask") +
                           ": the scores of head " + std::to_string(h) + " overflow");
    }
    context.middleCols(h * hd, hd) = a.output;
    if (h == 0) r.maskedRows = std::move(a.maskedRows);
    r.weights.push_back(std::move(a.weights));
    if (head.hasSinkLogit) r.sinkShare.push_back(std::move(a.sinkShare));
  }
  r.output = context * p.outProjWeight.transpose();
  if (p.outProjBias.size() > 0) r.output.rowwise() += p.outProjBias.transpose();
  check_no_overflow("outProjWeight: the output overflows", r.output);
  return r;
}

}  // namespace ap
