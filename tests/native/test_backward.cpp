// The backward pass of attention against central differences of a double-precision forward pass written
// from the formulas (S = c·Q·Kᵀ, masked cells -inf, A = softmax(S), O = A·V).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "core/backward.h"
#include "random_mat.h"

using ap::Mat;
using ap::testing::random_mat;

namespace {

using DMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Σ O ⊙ G for O = softmax(c·Q·Kᵀ, masked) · V, in double.
double forward_loss(const DMat& Q, const DMat& K, const DMat& V, const DMat& G, double c, const ap::Mask& mask) {
  const auto nq = Q.rows(), nk = K.rows();
  double L = 0;
  for (Eigen::Index i = 0; i < nq; ++i) {
    std::vector<double> s(nk);
    double mx = -std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < nk; ++j) {
      s[j] = mask.masked(0, int(i), int(j), int(nq), int(nk)) ? -std::numeric_limits<double>::infinity()
                                                              : c * Q.row(i).dot(K.row(j));
      mx = std::max(mx, s[j]);
    }
    if (std::isinf(mx)) continue;  // fully masked: the row is 0
    double z = 0;
    for (double& x : s) z += (x = std::exp(x - mx));
    for (Eigen::Index j = 0; j < nk; ++j) L += s[j] / z * V.row(j).dot(G.row(i));
  }
  return L;
}

// d(loss)/d(M) by central differences, M one of Q, K, V.
DMat numeric(DMat& M, const std::function<double()>& loss) {
  DMat g(M.rows(), M.cols());
  const double h = 1e-6;
  for (Eigen::Index i = 0; i < M.size(); ++i) {
    const double x = M.data()[i];
    M.data()[i] = x + h;
    const double up = loss();
    M.data()[i] = x - h;
    const double down = loss();
    M.data()[i] = x;
    g.data()[i] = (up - down) / (2 * h);
  }
  return g;
}

void expect_close(const Mat& got, const DMat& want, const char* what) {
  ASSERT_EQ(got.rows(), want.rows()) << what;
  ASSERT_EQ(got.cols(), want.cols()) << what;
  const double scale = std::max(1.0, want.cwiseAbs().maxCoeff());
  for (Eigen::Index i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got.data()[i], want.data()[i], 2e-5 * scale) << what << " at " << i;
}

void check_case(int nq, int nk, int d, int dv, ap::AttentionOptions o, unsigned seed) {
  const Mat Q = random_mat(nq, d, seed), K = random_mat(nk, d, seed + 1), V = random_mat(nk, dv, seed + 2);
  const Mat G = random_mat(nq, dv, seed + 3);
  ap::validate_attention_backward(Q, K, V, G, o);
  const ap::AttentionGrads g = ap::attention_backward(Q, K, V, G, o);
  const double c = (o.hasScale ? o.scale : ap::default_scale(o.score, d)) / o.temperature;
  DMat q = Q.cast<double>(), k = K.cast<double>(), v = V.cast<double>();
  const DMat gd = G.cast<double>();
  auto loss = [&] { return forward_loss(q, k, v, gd, c, o.mask); };
  expect_close(g.dQuery, numeric(q, loss), "dQuery");
  expect_close(g.dKey, numeric(k, loss), "dKey");
  expect_close(g.dValue, numeric(v, loss), "dValue");
  // dWeights = dO·Vᵀ, exactly by its definition; dScores is 0 wherever the weights are.
  const ap::AttentionResult a = ap::attention(Q, K, V, o);
  for (int i = 0; i < nq; ++i)
    for (int j = 0; j < nk; ++j) {
      EXPECT_NEAR(g.dWeights(i, j), G.row(i).dot(V.row(j)), 1e-5f);
      if (a.weights(i, j) == 0.f) EXPECT_EQ(g.dScores(i, j), 0.f) << i << ", " << j;
    }
}

TEST(AttentionBackward, MatchesFiniteDifferences) {
  ap::AttentionOptions o;
  check_case(4, 4, 8, 6, o, 1);
  check_case(3, 6, 5, 4, o, 5);
  o.temperature = 0.5f;
  check_case(4, 5, 8, 6, o, 9);
  o.temperature = 1.f;
  o.score = ap::ScoreRule::Dot;
  check_case(4, 5, 8, 6, o, 13);
}

TEST(AttentionBackward, MaskedCellsAndFullyMaskedRowsGetNothing) {
  ap::AttentionOptions o;
  o.mask.kind = ap::Mask::Kind::Causal;
  check_case(5, 5, 8, 6, o, 17);
  o.mask.kind = ap::Mask::Kind::Matrix;
  o.mask.matrix = {0, 1, 0, 1, 1, 1, 0, 0, 1};  // row 1 fully masked
  check_case(3, 3, 4, 4, o, 21);
}

TEST(AttentionBackward, RejectsARuleWithoutBackwardAndABadGradOutput) {
  const Mat Q = random_mat(3, 4, 1), V = random_mat(3, 2, 2);
  ap::AttentionOptions o;
  o.score = ap::ScoreRule::General;
  o.params.W = random_mat(4, 4, 3);
  EXPECT_THROW(
      {
        try {
          ap::validate_attention_backward(Q, Q, V, random_mat(3, 2, 4), o);
        } catch (const ap::Error& e) {
          EXPECT_NE(std::string(e.what()).find("score: attentionBackward"), std::string::npos) << e.what();
          throw;
        }
      },
      ap::Error);
  o.score = ap::ScoreRule::ScaledDot;
  try {
    ap::validate_attention_backward(Q, Q, V, random_mat(3, 3, 4), o);
    FAIL() << "no error";
  } catch (const ap::Error& e) {
    EXPECT_EQ(std::string(e.what()), "gradOutput: expected the output's shape [nq, dv] = [3, 2], got [3, 3]");
  }
}

TEST(RunBackward, AttendLossMatchesFiniteDifferencesOfTheWeights) {
  ap::RunOptions r;
  r.text = "the cat sat on the mat";
  r.tokenizer = "word";
  ap::PipelineLoss l;
  l.query = 1;
  l.key = 4;
  const ap::PipelineGrads g = ap::run_backward(r, l);
  // d(−log A[i, j])/dWq by differences of run() itself (float, so a coarse step and a loose bound).
  const float h = 1e-2f;
  for (int cell : {0, 7, 100}) {
    ap::RunOptions up = r, down = r;
    up.Wq = g.trace.Wq;
    down.Wq = g.trace.Wq;
    up.Wq->data()[cell] += h;
    down.Wq->data()[cell] -= h;
    const double lu = -std::log(double(ap::run(up).weights[0](1, 4)));
    const double ld = -std::log(double(ap::run(down).weights[0](1, 4)));
    EXPECT_NEAR(g.dWq.data()[cell], (lu - ld) / (2 * h), 2e-2 * std::max(1.0, std::fabs((lu - ld) / (2 * h))));
  }
  EXPECT_NEAR(g.loss, -std::log(double(g.trace.weights[0](1, 4))), 1e-6);
  EXPECT_TRUE(g.dWv.isZero()) << "the weights do not depend on Wv";
}

TEST(RunBackward, RejectsAMaskedTargetCell) {
  ap::RunOptions r;
  r.mask.kind = ap::Mask::Kind::Causal;
  ap::PipelineLoss l;
  l.query = 0;
  l.key = 2;
  try {
    ap::run_backward(r, l);
    FAIL() << "no error";
  } catch (const ap::Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "loss.key: weights[0, 2] is 0 (masked, or too small for float32), so −log of it is infinite");
  }
}

// projections() is run() up to Q, K, V by the same code: the same tensors, no attention steps, run's errors.
TEST(Projections, EqualRunUpToQkvWithoutAttention) {
  for (const auto score : {ap::ScoreRule::ScaledDot, ap::ScoreRule::Additive, ap::ScoreRule::Concat}) {
    for (const int heads : {1, 2}) {
      ap::RunOptions r;
      r.score = score;
      r.heads = heads;
      const ap::Trace t = ap::run(r), p = ap::projections(r);
      EXPECT_EQ(p.Q, t.Q);
      EXPECT_EQ(p.K, t.K);
      EXPECT_EQ(p.V, t.V);
      EXPECT_EQ(p.embeddings, t.embeddings);
      EXPECT_EQ(p.scale, t.scale);
      ASSERT_EQ(p.params.size(), t.params.size());
      EXPECT_TRUE(p.weights.empty() && p.scores.empty() && p.output.size() == 0);
    }
  }
  ap::RunOptions bad;
  bad.dk = 16;
  EXPECT_THROW(ap::projections(bad), ap::Error);
}

}  // namespace
