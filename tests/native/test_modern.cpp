// Sliding windows with sinks, the sink logit and flash_trace against double-precision loops written from the
// formulas (PyTorch's numbers are checked in Vitest, tests/kernels/engine-modern.test.ts).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>

#include "core/attention.h"
#include "core/multihead.h"
#include "random_mat.h"

using ap::Mat;
using ap::testing::random_mat;

namespace {

bool visible(int i, int j, int window, int sinks) { return j <= i && (j > i - window || j < sinks); }

// softmax over the visible keys (and a sink logit when given), · V, in double.
Mat reference(const Mat& Q, const Mat& K, const Mat& V, float scale, int window, int sinks, const float* sink,
              Mat* weights = nullptr) {
  const int nq = static_cast<int>(Q.rows()), nk = static_cast<int>(K.rows());
  Mat O = Mat::Zero(nq, V.cols());
  if (weights) *weights = Mat::Zero(nq, nk);
  for (int i = 0; i < nq; ++i) {
    std::vector<double> s(static_cast<std::size_t>(nk), -INFINITY);
    double m = sink ? *sink : -INFINITY;
    for (int j = 0; j < nk; ++j) {
      if (window > 0 && !visible(i, j, window, sinks)) continue;
      double x = 0;
      for (int t = 0; t < Q.cols(); ++t) x += double(Q(i, t)) * K(j, t);
      s[j] = x * scale;
      m = std::max(m, s[j]);
    }
    double z = sink ? std::exp(*sink - m) : 0;
    for (double x : s) z += std::isinf(x) ? 0 : std::exp(x - m);
    for (int j = 0; j < nk; ++j) {
      const double w = std::isinf(s[j]) ? 0 : std::exp(s[j] - m) / z;
      if (weights) (*weights)(i, j) = static_cast<float>(w);
      for (int c = 0; c < V.cols(); ++c) O(i, c) += static_cast<float>(w * V(j, c));
    }
  }
  return O;
}

ap::AttentionOptions window_options(int window, int sinks) {
  ap::AttentionOptions o;
  o.mask.kind = ap::Mask::Kind::Window;
  o.mask.window = window;
  o.mask.sinks = sinks;
  return o;
}

TEST(Window, WeightsAndFusedKernelFollowTheFormula) {
  // 300 keys: several blocks of 36 rows × 128 keys, so whole tiles before the window are skipped; d = 80 runs the
  // kernel's 64-key blocks.
  for (int n : {1, 7, 50, 300})
    for (int d : {16, 80})
      for (int window : {1, 3, 40, 1000})
        for (int sinks : {0, 2}) {
          if (sinks > n) continue;
          SCOPED_TRACE(testing::Message() << "n=" << n << " d=" << d << " window=" << window << " sinks=" << sinks);
          const Mat Q = random_mat(n, d, 1 + n), K = random_mat(n, d, 2 + n), V = random_mat(n, 12, 3 + n);
          const float scale = 1.f / std::sqrt(float(d));
          Mat W;
          const Mat ref = reference(Q, K, V, scale, window, sinks, nullptr, &W);
          auto o = window_options(window, sinks);
          const auto full = ap::attention(Q, K, V, o);
          EXPECT_LT((full.weights - W).cwiseAbs().maxCoeff(), 1e-5f);
          EXPECT_LT((full.output - ref).cwiseAbs().maxCoeff(), 1e-5f);
          for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
              if (!visible(i, j, window, sinks)) ASSERT_EQ(full.weights(i, j), 0.f) << i << "," << j;
          o.needWeights = false;
          const auto fused = ap::attention(Q, K, V, o);
          EXPECT_LT((fused.output - ref).cwiseAbs().maxCoeff(), 1e-5f);
        }
}

TEST(Window, AWindowAsLongAsTheTextIsCausal) {
  const Mat Q = random_mat(20, 8, 1), K = random_mat(20, 8, 2), V = random_mat(20, 5, 3);
  ap::AttentionOptions causal;
  causal.mask.kind = ap::Mask::Kind::Causal;
  const auto a = ap::attention(Q, K, V, causal);
  const auto b = ap::attention(Q, K, V, window_options(20, 0));
  EXPECT_LT((a.weights - b.weights).cwiseAbs().maxCoeff(), 1e-7f);
}

TEST(SinkLogit, RowsSumToOneMinusTheSinksShare) {
  const Mat Q = random_mat(9, 8, 4), K = random_mat(9, 8, 5), V = random_mat(9, 6, 6);
  for (float sink : {0.f, -3.f, 2.5f}) {
    ap::AttentionOptions o = window_options(4, 1);
    o.hasSinkLogit = true;
    o.sinkLogit = sink;
    Mat W;
    const Mat ref = reference(Q, K, V, 1.f / std::sqrt(8.f), 4, 1, &sink, &W);
    const auto r = ap::attention(Q, K, V, o);
    EXPECT_LT((r.weights - W).cwiseAbs().maxCoeff(), 1e-6f);
    EXPECT_LT((r.output - ref).cwiseAbs().maxCoeff(), 1e-5f);
    ASSERT_EQ(r.sinkShare.size(), 9u);
    for (int i = 0; i < 9; ++i) {
      EXPECT_NEAR(r.weights.row(i).sum() + r.sinkShare[i], 1.f, 1e-6f);
      EXPECT_GT(r.sinkShare[i], 0.f);
    }
    o.needWeights = false;  // the fused kernel has no sink: the checked path runs
    EXPECT_LT((ap::attention(Q, K, V, o).output - ref).cwiseAbs().maxCoeff(), 1e-5f);
  }
}

TEST(SinkLogit, AFullyMaskedRowGivesEverythingToTheSink) {
  const Mat X = random_mat(3, 4, 7);
  ap::AttentionOptions o;
  o.mask.kind = ap::Mask::Kind::Matrix;
  o.mask.matrix = {1, 1, 1, 0, 0, 0, 0, 0, 0};
  o.hasSinkLogit = true;
  const auto r = ap::attention(X, X, X, o);
  EXPECT_EQ(r.sinkShare[0], 1.f);
  EXPECT_EQ(r.weights.row(0).cwiseAbs().sum(), 0.f);
  EXPECT_EQ(r.output.row(0).cwiseAbs().sum(), 0.f);
}

// The online softmax in double, tile by tile, for one block of rows: what each step of flash_trace must hold.
TEST(FlashTrace, EveryStepIsTheOnlineSoftmaxAndTheEndIsAttention) {
  for (bool causal : {false, true})
    for (auto [br, bc] : {std::pair{2, 3}, {4, 4}, {3, 2}, {36, 128}, {1, 1}}) {
      const int nq = 11, nk = causal ? 11 : 13, d = 5, dv = 7;
      SCOPED_TRACE(testing::Message() << "causal=" << causal << " br=" << br << " bc=" << bc);
      const Mat Q = random_mat(nq, d, 8, 2.f), K = random_mat(nk, d, 9, 2.f), V = random_mat(nk, dv, 10);
      const auto t = ap::flash_trace(Q, K, V, br, bc, causal, false, 0.f);
      const float scale = 1.f / std::sqrt(float(d));
      EXPECT_EQ(t.scale, scale);
      ap::AttentionOptions o;
      if (causal) o.mask.kind = ap::Mask::Kind::Causal;
      const auto plain = ap::attention(Q, K, V, o);
      EXPECT_LT((t.output - plain.output).cwiseAbs().maxCoeff(), 1e-6f);
      std::size_t step = 0;
      for (int i0 = 0; i0 < nq; i0 += br) {
        const int rows = std::min(br, nq - i0);
        std::vector<double> m(rows, -INFINITY), l(rows, 0.0);
        Mat O = Mat::Zero(rows, dv);
        for (int j0 = 0; j0 < (causal ? std::min(nk, i0 + rows) : nk); j0 += bc) {
          ASSERT_LT(step, t.steps.size());
          const auto& s = t.steps[step++];
          EXPECT_EQ(s.rowBlock, i0 / br);
          EXPECT_EQ(s.colBlock, j0 / bc);
          for (int r = 0; r < rows; ++r) {
            const int i = i0 + r;
            double mn = m[r];
            for (int j = j0; j < std::min(nk, j0 + bc); ++j)
              if (!causal || j <= i) mn = std::max(mn, double(plain.scaledScores(i, j)));
            if (std::isinf(mn)) continue;
            const double corr = std::exp(m[r] - mn);
            l[r] *= corr;
            for (int c = 0; c < dv; ++c) O(r, c) = static_cast<float>(O(r, c) * corr);
            for (int j = j0; j < std::min(nk, j0 + bc); ++j) {
              if (causal && j > i) continue;
              const double p = std::exp(plain.scaledScores(i, j) - mn);
              l[r] += p;
              for (int c = 0; c < dv; ++c) O(r, c) = static_cast<float>(O(r, c) + p * V(j, c));
            }
            m[r] = mn;
          }
          ASSERT_EQ(s.m.size(), std::size_t(rows));
          for (int r = 0; r < rows; ++r) {
            if (std::isinf(m[r])) {
              EXPECT_TRUE(std::isinf(s.m[r]));
              EXPECT_EQ(s.l[r], 0.f);
              continue;
            }
            EXPECT_NEAR(s.m[r], m[r], 1e-5);
            EXPECT_NEAR(s.l[r], l[r], 1e-5 * l[r]);
          }
          EXPECT_LT((s.O - O).cwiseAbs().maxCoeff(), 1e-4f * (1.f + O.cwiseAbs().maxCoeff()));
        }
        // after the block's last tile: m is the row's max, l its Σ exp(s - m), O / l the output
        const auto& last = t.steps[step - 1];
        for (int r = 0; r < rows; ++r)
          for (int c = 0; c < dv; ++c) EXPECT_NEAR(last.O(r, c) / last.l[r], t.output(i0 + r, c), 1e-5f);
      }
      EXPECT_EQ(step, t.steps.size());
    }
}

// Grouped-query heads: query head h reads K/V head h · kv / H, i.e. the whole thing equals multi-head attention
// with each K/V head's projection repeated (Hugging Face's repeat_kv), which the test builds by hand.
TEST(GroupedQuery, EqualsMultiHeadWithTheKVProjectionsRepeated) {
  const int n = 6, E = 12, H = 6, hd = E / H;
  const Mat x = random_mat(n, E, 11);
  for (int KV : {1, 2, 3, 6}) {
    SCOPED_TRACE(testing::Message() << "numKVHeads=" << KV);
    ap::MultiHeadParams g;
    g.numHeads = H;
    g.numKVHeads = KV;
    g.qProjWeight = random_mat(E, E, 12, 0.3f);
    g.kProjWeight = random_mat(KV * hd, E, 13, 0.3f);
    g.vProjWeight = random_mat(KV * hd, E, 14, 0.3f);
    g.outProjWeight = random_mat(E, E, 15, 0.3f);
    g.hasWindow = true;
    g.window = 3;
    g.sinks = 1;
    ap::MultiHeadParams m = g;  // the same with every K/V head repeated H / KV times
    m.numKVHeads = 0;
    m.kProjWeight.resize(E, E);
    m.vProjWeight.resize(E, E);
    for (int h = 0; h < H; ++h) {
      m.kProjWeight.middleRows(h * hd, hd) = g.kProjWeight.middleRows((h * KV / H) * hd, hd);
      m.vProjWeight.middleRows(h * hd, hd) = g.vProjWeight.middleRows((h * KV / H) * hd, hd);
    }
    const auto a = ap::multi_head_attention(x, x, x, g);
    const auto b = ap::multi_head_attention(x, x, x, m);
    EXPECT_LT((a.output - b.output).cwiseAbs().maxCoeff(), 1e-6f);
    ASSERT_EQ(a.weights.size(), std::size_t(H));
    for (int h = 0; h < H; ++h) EXPECT_LT((a.weights[h] - b.weights[h]).cwiseAbs().maxCoeff(), 1e-6f);
    // heads sharing a K/V head see the same keys: their weights differ only through their queries
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (!visible(i, j, 3, 1)) EXPECT_EQ(a.weights[0](i, j), 0.f);
  }
}

TEST(GroupedQuery, SinkLogitsArePerHead) {
  const int n = 5, E = 8, H = 2;
  const Mat x = random_mat(n, E, 21);
  ap::MultiHeadParams p;
  p.numHeads = H;
  p.numKVHeads = 1;
  p.inProjWeight = random_mat(E + 2 * (E / H), E, 22, 0.3f);
  p.outProjWeight = random_mat(E, E, 23, 0.3f);
  p.sinkLogits = {-1.f, 3.f};
  const auto r = ap::multi_head_attention(x, x, x, p);
  ASSERT_EQ(r.sinkShare.size(), 2u);
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < n; ++i) EXPECT_NEAR(r.weights[h].row(i).sum() + r.sinkShare[h][i], 1.f, 1e-6f);
  EXPECT_GT(r.sinkShare[1][0], r.sinkShare[0][0]);  // the larger logit takes the larger share
}

void expect_error(const std::function<void()>& f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one naming " << part;
  } catch (const ap::Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(Modern, ErrorsNameTheOption) {
  const Mat X = random_mat(4, 3, 1);
  expect_error([&] { ap::flash_trace(X, X, X, 0, 2, false, false, 0.f); },
               "blockRows: must be an integer from 1 to 36");
  expect_error([&] { ap::flash_trace(X, X, X, 37, 2, false, false, 0.f); }, "blockRows");
  expect_error([&] { ap::flash_trace(X, X, X, 2, 0, false, false, 0.f); },
               "blockCols: must be an integer from 1 to 128");
  expect_error([&] { ap::flash_trace(X, X, X, 2, 129, false, false, 0.f); }, "blockCols");
  expect_error([&] { ap::flash_trace(X, random_mat(4, 2, 1), X, 2, 2, false, false, 0.f); }, "query/key");
  auto o = window_options(0, 0);
  expect_error([&] { ap::validate_attention(X, X, X, o); }, "mask.window: a sliding window needs at least 1 key");
  o = window_options(2, 5);
  expect_error([&] { ap::validate_attention(X, X, X, o); }, "mask.sinks: the kept first keys must be from 0 to the 4");
  o = ap::AttentionOptions{};
  o.hasSinkLogit = true;
  o.sinkLogit = std::numeric_limits<float>::infinity();
  expect_error([&] { ap::validate_attention(X, X, X, o); }, "sinkLogit: must be a finite number");
  ap::MultiHeadParams p;
  p.numHeads = 4;
  p.numKVHeads = 3;
  const Mat Y = random_mat(4, 8, 2);
  p.inProjWeight = random_mat(16, 8, 3);
  p.outProjWeight = random_mat(8, 8, 4);
  expect_error([&] { ap::multi_head_attention(Y, Y, Y, p); }, "numKVHeads: must divide numHeads = 4");
  p.numKVHeads = 2;  // kv = 2 · 8 / 4 = 4 rows each for K and V
  p.inProjWeight = random_mat(24, 8, 3);
  expect_error([&] { ap::multi_head_attention(Y, Y, Y, p); }, "inProjWeight: expected [16, 8], got [24, 8]");
  p.inProjWeight = random_mat(16, 8, 3);
  p.sinkLogits = {0.f, 1.f};
  expect_error([&] { ap::multi_head_attention(Y, Y, Y, p); }, "sinkLogits: expected 4 values (one per head), got 2");
  p.sinkLogits = {0.f, 1.f, NAN, 0.f};
  expect_error([&] { ap::multi_head_attention(Y, Y, Y, p); }, "sinkLogits[2]: must be a finite number, got nan");
  p.sinkLogits.clear();
  p.hasWindow = true;
  expect_error([&] { ap::multi_head_attention(Y, Y, Y, p); }, "window: a sliding window needs at least 1 key");
  p.window = 2;
  p.sinks = 9;
  expect_error([&] { ap::multi_head_attention(Y, Y, Y, p); }, "sinks: the kept first keys must be from 0 to the 4");
}

}  // namespace
