// The attention core against straightforward double-precision loops written from the formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "core/attention.h"
#include "core/multihead.h"
#include "random_mat.h"

using ap::Mat;
using ap::Vec;
using ap::testing::random_mat;

namespace {

Vec random_vec(int n, unsigned seed) { return random_mat(n, 1, seed).col(0); }

// Reference: scores by the rule's formula, then scale, mask, softmax / T, · V — all in double.
struct Ref {
  std::vector<std::vector<double>> weights, output;
  std::vector<int> maskedRows;
};

double rule_score(const Mat& Q, const Mat& K, int i, int j, ap::ScoreRule rule, const ap::ScoreParams& p) {
  double s = 0;
  switch (rule) {
    case ap::ScoreRule::Dot:
    case ap::ScoreRule::ScaledDot:
      for (int t = 0; t < Q.cols(); ++t) s += double(Q(i, t)) * K(j, t);
      return s;
    case ap::ScoreRule::General:
      for (int a = 0; a < Q.cols(); ++a)
        for (int b = 0; b < K.cols(); ++b) s += double(Q(i, a)) * p.W(a, b) * K(j, b);
      return s;
    case ap::ScoreRule::Additive:
      for (int h = 0; h < p.v.size(); ++h) {
        double x = 0;
        for (int a = 0; a < Q.cols(); ++a) x += double(p.Wq(h, a)) * Q(i, a);
        for (int b = 0; b < K.cols(); ++b) x += double(p.Wk(h, b)) * K(j, b);
        s += p.v[h] * std::tanh(x);
      }
      return s;
    case ap::ScoreRule::Concat:
      s = p.concatB[j];
      for (int a = 0; a < Q.cols(); ++a) s += double(p.concatW(j, a)) * Q(i, a);
      for (int b = 0; b < K.cols(); ++b) s += double(p.concatW(j, Q.cols() + b)) * K(i, b);
      return s;
  }
  return 0;
}

Ref reference(const Mat& Q, const Mat& K, const Mat& V, const ap::AttentionOptions& o) {
  const int nq = Q.rows(), nv = V.rows(), dv = V.cols();
  const double scale =
      o.hasScale ? o.scale : (o.score == ap::ScoreRule::ScaledDot ? 1 / std::sqrt(double(K.cols())) : 1);
  Ref r;
  r.weights.assign(nq, std::vector<double>(nv, 0));
  r.output.assign(nq, std::vector<double>(dv, 0));
  for (int i = 0; i < nq; ++i) {
    std::vector<double> s(nv);
    double m = -INFINITY;
    for (int j = 0; j < nv; ++j) {
      if (o.mask.masked(0, i, j, nq, nv)) {
        s[j] = -INFINITY;
        continue;
      }
      s[j] = rule_score(Q, K, i, j, o.score, o.params) * scale / o.temperature;
      m = std::max(m, s[j]);
    }
    if (m == -INFINITY) {
      r.maskedRows.push_back(i);
      continue;
    }
    double z = 0;
    for (int j = 0; j < nv; ++j) z += s[j] == -INFINITY ? 0 : std::exp(s[j] - m);
    for (int j = 0; j < nv; ++j) r.weights[i][j] = s[j] == -INFINITY ? 0 : std::exp(s[j] - m) / z;
    for (int j = 0; j < nv; ++j)
      for (int t = 0; t < dv; ++t) r.output[i][t] += r.weights[i][j] * V(j, t);
  }
  return r;
}

void expect_matches(const ap::AttentionResult& got, const Ref& want, double tol = 2e-5) {
  ASSERT_EQ(got.weights.rows(), static_cast<long>(want.weights.size()));
  for (int i = 0; i < got.weights.rows(); ++i)
    for (int j = 0; j < got.weights.cols(); ++j)
      EXPECT_NEAR(got.weights(i, j), want.weights[i][j], tol) << i << "," << j;
  for (int i = 0; i < got.context.rows(); ++i)
    for (int t = 0; t < got.context.cols(); ++t)
      EXPECT_NEAR(got.context(i, t), want.output[i][t], tol * 10) << i << "," << t;
  EXPECT_EQ(got.maskedRows, want.maskedRows);
}

ap::ScoreParams params_for(ap::ScoreRule rule, int dq, int dk, int nv, unsigned seed) {
  ap::ScoreParams p;
  if (rule == ap::ScoreRule::General) p.W = random_mat(dq, dk, seed, 0.3f);
  if (rule == ap::ScoreRule::Additive) {
    p.Wq = random_mat(5, dq, seed, 0.3f);
    p.Wk = random_mat(5, dk, seed + 1, 0.3f);
    p.v = random_vec(5, seed + 2);
  }
  if (rule == ap::ScoreRule::Concat) {
    p.concatW = random_mat(nv, dq + dk, seed, 0.3f);
    p.concatB = random_vec(nv, seed + 3);
  }
  return p;
}

// What multi_head_attention throws for these inputs, or "no error".
std::string mha_error(const Mat& q, const Mat& k, const Mat& v, const ap::MultiHeadParams& p) {
  try {
    ap::multi_head_attention(q, k, v, p);
  } catch (const ap::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

class EveryRule : public ::testing::TestWithParam<ap::ScoreRule> {};

TEST_P(EveryRule, MatchesTheFormulaUnderEveryMaskAndTemperature) {
  const ap::ScoreRule rule = GetParam();
  const int n = 6, dq = 8, dk = rule == ap::ScoreRule::Dot || rule == ap::ScoreRule::ScaledDot ? 8 : 7, dv = 5;
  const Mat Q = random_mat(n, dq, 1), K = random_mat(n, dk, 2), V = random_mat(n, dv, 3);
  for (int maskKind = 0; maskKind < 4; ++maskKind) {
    for (float T : {1.f, 0.5f, 3.f}) {
      ap::AttentionOptions o;
      o.score = rule;
      o.temperature = T;
      o.params = params_for(rule, dq, dk, n, 7);
      o.mask.kind = static_cast<ap::Mask::Kind>(maskKind);
      if (maskKind == 2) o.mask.keyPadding = {0, 1, 0, 0, 1, 0};
      if (maskKind == 3) {
        o.mask.matrix.assign(n * n, 0);
        for (int j = 0; j < n; ++j) o.mask.matrix[2 * n + j] = 1;  // row 2 fully masked
        o.mask.matrix[1] = 1;
      }
      ap::validate_attention(Q, K, V, o);
      const auto got = ap::attention(Q, K, V, o);
      SCOPED_TRACE(std::string(ap::score_name(rule)) + " mask " + std::to_string(maskKind) + " T " + std::to_string(T));
      expect_matches(got, reference(Q, K, V, o));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Rules, EveryRule,
                         ::testing::Values(ap::ScoreRule::Dot, ap::ScoreRule::ScaledDot, ap::ScoreRule::General,
                                           ap::ScoreRule::Additive, ap::ScoreRule::Concat));

TEST(Attention, FullyMaskedRowsAreZeroNotNaN) {
  const Mat Q = random_mat(3, 4, 1), K = random_mat(3, 4, 2), V = random_mat(3, 2, 3);
  ap::AttentionOptions o;
  o.mask.kind = ap::Mask::Kind::KeyPadding;
  o.mask.keyPadding = {1, 1, 1};
  const auto r = ap::attention(Q, K, V, o);
  EXPECT_EQ(r.maskedRows, (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE((r.weights.array() == 0.f).all());
  EXPECT_TRUE((r.output.array() == 0.f).all());
  EXPECT_TRUE(std::isinf(r.maskedScores(0, 0)) && r.maskedScores(0, 0) < 0);
}

TEST(Attention, CausalWeightsAboveTheDiagonalAreExactlyZero) {
  const Mat X = random_mat(9, 4, 5);
  ap::AttentionOptions o;
  o.mask.kind = ap::Mask::Kind::Causal;
  const auto r = ap::attention(X, X, X, o);
  for (int i = 0; i < 9; ++i)
    for (int j = i + 1; j < 9; ++j) EXPECT_EQ(r.weights(i, j), 0.f);
  EXPECT_FLOAT_EQ(r.weights(0, 0), 1.f);
}

TEST(Attention, FusedPathEqualsTheMaterializedOne) {
  for (bool causal : {false, true}) {
    const Mat Q = random_mat(37, 16, 1), K = random_mat(41, 16, 2), V = random_mat(41, 12, 3);
    ap::AttentionOptions o;
    o.temperature = 0.7f;
    if (causal) o.mask.kind = ap::Mask::Kind::Causal;
    const auto full = ap::attention(Q, K, V, o);
    o.needWeights = false;
    const auto fused = ap::attention(Q, K, V, o);
    EXPECT_EQ(fused.weights.size(), 0);
    ASSERT_EQ(fused.output.rows(), 37);
    EXPECT_LT((fused.output - full.output).cwiseAbs().maxCoeff(), 1e-5f);
  }
}

TEST(Attention, ScaleIsTemperature) {
  const Mat Q = random_mat(5, 16, 1), K = random_mat(5, 16, 2), V = random_mat(5, 3, 3);
  ap::AttentionOptions scaled;  // 1/√16
  const auto a = ap::attention(Q, K, V, scaled);
  ap::AttentionOptions tempered;
  tempered.hasScale = true;
  tempered.scale = 1.f;
  tempered.temperature = 4.f;
  const auto b = ap::attention(Q, K, V, tempered);
  EXPECT_LT((a.weights - b.weights).cwiseAbs().maxCoeff(), 1e-6f);
}

TEST(Attention, HugeLogitsGiveNoNaN) {
  Mat Q = random_mat(4, 2, 1, 1e15f), K = random_mat(4, 2, 2, 1e15f);
  const Mat V = random_mat(4, 2, 3);
  ap::AttentionOptions o;
  const auto r = ap::attention(Q, K, V, o);
  EXPECT_TRUE(r.weights.allFinite());
  EXPECT_TRUE(r.output.allFinite());
  Q *= 1e10f;  // now the scores overflow float32: a clear error instead of NaN
  EXPECT_THROW(ap::attention(Q, K, V, o), ap::Error);
}

TEST(Attention, ErrorsNameTheArgumentAndShapes) {
  const Mat Q = random_mat(4, 24, 1), K = random_mat(4, 16, 2), V = random_mat(4, 28, 3);
  ap::AttentionOptions o;
  try {
    ap::validate_attention(Q, K, V, o);
    FAIL() << "expected an error";
  } catch (const ap::Error& e) {
    EXPECT_NE(std::string(e.what()).find("dq = dk"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[4, 24]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[4, 16]"), std::string::npos) << e.what();
  }
  o.score = ap::ScoreRule::General;
  o.params.W = random_mat(3, 3, 4);
  try {
    ap::validate_attention(Q, K, V, o);
    FAIL();
  } catch (const ap::Error& e) {
    EXPECT_NE(std::string(e.what()).find("params.W"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[24, 16]"), std::string::npos) << e.what();
  }
  Mat bad = Q;
  bad(1, 2) = std::numeric_limits<float>::quiet_NaN();
  o = {};
  EXPECT_THROW(ap::validate_attention(bad, bad, bad, o), ap::Error);
  o.temperature = 0.f;
  EXPECT_THROW(ap::validate_attention(Q, Q, Q, o), ap::Error);
  EXPECT_THROW(ap::parse_score("cosine"), ap::Error);
}

TEST(MultiHead, EqualsPerHeadAttentionOfTheProjections) {
  const int E = 8, H = 2, n = 5, hd = E / H;
  ap::MultiHeadParams p;
  p.numHeads = H;
  p.inProjWeight = random_mat(3 * E, E, 1, 0.4f);
  p.inProjBias = random_vec(3 * E, 2);
  p.outProjWeight = random_mat(E, E, 3, 0.4f);
  p.outProjBias = random_vec(E, 4);
  p.causal = true;
  const Mat x = random_mat(n, E, 5);
  const auto r = ap::multi_head_attention(x, x, x, p);
  ASSERT_EQ(r.weights.size(), 2u);
  Mat q = x * p.inProjWeight.topRows(E).transpose(), k = x * p.inProjWeight.middleRows(E, E).transpose(),
      v = x * p.inProjWeight.bottomRows(E).transpose();
  q.rowwise() += p.inProjBias.segment(0, E).transpose();
  k.rowwise() += p.inProjBias.segment(E, E).transpose();
  v.rowwise() += p.inProjBias.segment(2 * E, E).transpose();
  Mat ctx(n, E);
  for (int h = 0; h < H; ++h) {
    ap::AttentionOptions o;
    o.mask.kind = ap::Mask::Kind::Causal;
    const Mat qh = q.middleCols(h * hd, hd), kh = k.middleCols(h * hd, hd), vh = v.middleCols(h * hd, hd);
    const Ref ref = reference(qh, kh, vh, o);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) EXPECT_NEAR(r.weights[h](i, j), ref.weights[i][j], 2e-5);
      for (int t = 0; t < hd; ++t) ctx(i, h * hd + t) = static_cast<float>(ref.output[i][t]);
    }
  }
  Mat out = ctx * p.outProjWeight.transpose();
  out.rowwise() += p.outProjBias.transpose();
  EXPECT_LT((out - r.output).cwiseAbs().maxCoeff(), 1e-4f);
}

// Each head is ap::attention on the projections, with the three masks as one ap::Mask: weights equal
// bit for bit, and fully masked rows are reported.
TEST(MultiHead, EachHeadIsApAttention) {
  const int E = 6, H = 3, nq = 4, nk = 5, hd = E / H;
  ap::MultiHeadParams p;
  p.numHeads = H;
  p.qProjWeight = random_mat(E, E, 1, 0.4f);
  p.kProjWeight = random_mat(E, 3, 2, 0.4f);
  p.vProjWeight = random_mat(E, 2, 3, 0.4f);
  p.outProjWeight = random_mat(E, E, 4, 0.4f);
  p.causal = true;
  p.keyPaddingMask = {0, 0, 0, 1, 0};
  p.attnMask.assign(nq * nk, 0);
  p.attnMask[1 * nk + 1] = 1;
  p.attnMask[0 * nk + 0] = 1;  // with causal, row 0 has no key left
  const Mat query = random_mat(nq, E, 5), key = random_mat(nk, 3, 6), value = random_mat(nk, 2, 7);
  const auto r = ap::multi_head_attention(query, key, value, p);
  const Mat q = query * p.qProjWeight.transpose(), k = key * p.kProjWeight.transpose(),
            v = value * p.vProjWeight.transpose();
  ap::AttentionOptions o;
  o.mask.kind = ap::Mask::Kind::Matrix;
  for (int i = 0; i < nq; ++i)
    for (int j = 0; j < nk; ++j) o.mask.matrix.push_back((j > i) || p.keyPaddingMask[j] || p.attnMask[i * nk + j]);
  for (int h = 0; h < H; ++h) {
    const Mat qh = q.middleCols(h * hd, hd), kh = k.middleCols(h * hd, hd), vh = v.middleCols(h * hd, hd);
    const ap::AttentionResult a = ap::attention(qh, kh, vh, o);
    EXPECT_EQ(r.weights[h], a.weights) << "head " << h;
    EXPECT_EQ(r.maskedRows, a.maskedRows);
  }
  EXPECT_EQ(r.maskedRows, std::vector<int>{0});
}

TEST(MultiHead, ErrorsNameTheWeightsTheCallerPassed) {
  const int E = 4;
  const Mat x = random_mat(3, E, 1);
  auto msg = [&](const ap::MultiHeadParams& p) { return mha_error(x, x, x, p); };
  ap::MultiHeadParams p;
  p.outProjWeight = random_mat(E, E, 2);
  EXPECT_EQ(msg(p).rfind("inProjWeight: missing", 0), 0u) << msg(p);
  p.qProjWeight = random_mat(E, E, 3);
  p.kProjWeight = random_mat(E, E, 4);
  EXPECT_EQ(msg(p).rfind("vProjWeight: missing", 0), 0u) << msg(p);
  p.vProjWeight = random_mat(E, E, 5);
  p.kProjWeight(1, 2) = std::numeric_limits<float>::infinity();
  EXPECT_EQ(msg(p).rfind("kProjWeight: every value must be finite, got inf", 0), 0u) << msg(p);
  p.kProjWeight = random_mat(E, E, 4, 1e20f);
  p.qProjWeight = random_mat(E, E, 3, 1e20f);
  EXPECT_EQ(msg(p).rfind("qProjWeight/kProjWeight: the scores of head 0 overflow float32", 0), 0u) << msg(p);
}

TEST(MultiHead, RejectsHeadsThatDoNotDivideE) {
  ap::MultiHeadParams p;
  p.numHeads = 3;
  p.inProjWeight = random_mat(24, 8, 1);
  p.outProjWeight = random_mat(8, 8, 2);
  const Mat x = random_mat(2, 8, 3);
  try {
    ap::multi_head_attention(x, x, x, p);
    FAIL();
  } catch (const ap::Error& e) {
    EXPECT_NE(std::string(e.what()).find("numHeads"), std::string::npos);
  }
}

// PyTorch's float attn_mask: added to each head's scaled scores before softmax (-inf = masked), in the
// shared mask step; a row of -inf is fully masked (zeros, reported), and it combines with key padding.
TEST(MultiHead, FloatAttnMaskIsAddedBeforeSoftmax) {
  const int E = 4, H = 2, nq = 3, nk = 4, hd = E / H;
  const float inf = std::numeric_limits<float>::infinity();
  ap::MultiHeadParams p;
  p.numHeads = H;
  p.inProjWeight = random_mat(3 * E, E, 1, 0.5f);
  p.outProjWeight = random_mat(E, E, 2, 0.5f);
  p.keyPaddingMask = {0, 0, 1, 0};
  p.attnMaskAdditive = {0.5f, -1.f, 2.f,  -inf,  // row 0: keys 0, 1 left
                        -inf, -inf, 0.f,  -inf,  // row 1: only key 2, which is padding: fully masked
                        1.5f, 0.f,  -2.f, 0.25f};
  const Mat query = random_mat(nq, E, 3), kv = random_mat(nk, E, 4);
  const auto r = ap::multi_head_attention(query, kv, kv, p);
  const Mat q = query * p.inProjWeight.topRows(E).transpose();
  const Mat k = kv * p.inProjWeight.middleRows(E, E).transpose();
  for (int h = 0; h < H; ++h) {
    for (int i = 0; i < nq; ++i) {
      std::vector<double> s(nk);
      double mx = -INFINITY, sum = 0;
      for (int j = 0; j < nk; ++j) {
        double dot = 0;
        for (int t = 0; t < hd; ++t) dot += double(q(i, h * hd + t)) * k(j, h * hd + t);
        s[j] = p.keyPaddingMask[j] ? -INFINITY : dot / std::sqrt(double(hd)) + p.attnMaskAdditive[i * nk + j];
        mx = std::max(mx, s[j]);
      }
      for (int j = 0; j < nk; ++j) sum += std::isinf(mx) ? 0 : std::exp(s[j] - mx);
      for (int j = 0; j < nk; ++j) {
        const double w = std::isinf(mx) ? 0 : std::exp(s[j] - mx) / sum;
        EXPECT_NEAR(r.weights[h](i, j), w, 2e-6) << "head " << h << " [" << i << ", " << j << "]";
      }
    }
  }
  EXPECT_EQ(r.maskedRows, std::vector<int>{1});
  EXPECT_TRUE(r.output.allFinite());
  EXPECT_EQ(r.output.row(1), (Mat::Zero(1, E) * p.outProjWeight.transpose()));

  auto msg = [&](const ap::MultiHeadParams& pp) { return mha_error(query, kv, kv, pp); };
  ap::MultiHeadParams bad = p;
  bad.attnMaskAdditive.resize(10);
  EXPECT_EQ(msg(bad).rfind("attnMask: a float mask is added to the scores [nq, nk] = [3, 4]", 0), 0u) << msg(bad);
  bad = p;
  bad.attnMaskAdditive[5] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(msg(bad).rfind("attnMask: a float mask must not hold NaN, got NaN at [1, 1]", 0), 0u) << msg(bad);
  bad.attnMaskAdditive[5] = inf;
  EXPECT_EQ(msg(bad).rfind("attnMask: a float mask allows finite values and -inf (masked), got +inf at [1, 1]", 0), 0u)
      << msg(bad);
  bad = p;
  bad.attnMask.assign(nq * nk, 0);
  EXPECT_EQ(msg(bad).rfind("attnMask: give a boolean or a float", 0), 0u) << msg(bad);
}
