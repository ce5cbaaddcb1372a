// The kernels against straightforward double-precision references, on sizes that are not
// multiples of the tiles (4×8 registers, flash blocks of 32 rows × 128 or 64 keys, 256-dim qkt chunks).
// Error bounds are relative to the magnitude of what is summed (Σ|terms|), not to the result,
// because a float sum of mixed-sign terms that nearly cancel is only ever that accurate.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/kernels.h"

namespace {

namespace k = ap::kernels;
constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<float> randn(std::size_t n, unsigned seed, float scale = 1.f) {
  std::mt19937 g(seed);
  std::normal_distribution<float> N(0.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = scale * N(g);
  return v;
}

struct Ref {
  std::vector<double> val, mag;  // value, and Σ|terms| that produced it
};

Ref ref_qkt(const std::vector<float>& Q, const std::vector<float>& K, int nq, int nk, int d, double alpha) {
  Ref r{std::vector<double>(std::size_t(nq) * nk), std::vector<double>(std::size_t(nq) * nk)};
  for (int i = 0; i < nq; ++i)
    for (int j = 0; j < nk; ++j) {
      double s = 0, m = 0;
      for (int t = 0; t < d; ++t) {
        const double p = double(Q[i * d + t]) * K[j * d + t];
        s += p;
        m += std::fabs(p);
      }
      r.val[i * nk + j] = alpha * s;
      r.mag[i * nk + j] = std::fabs(alpha) * m;
    }
  return r;
}

// Softmax of float scores in double; -inf cells are masked; an all-masked row is all zero.
std::vector<double> ref_softmax(const std::vector<float>& S, int nq, int nk, double invTemp) {
  std::vector<double> W(S.size(), 0.0);
  for (int i = 0; i < nq; ++i) {
    double m = -kInf;
    for (int j = 0; j < nk; ++j) m = std::max(m, double(S[i * nk + j]));
    if (m == -kInf) continue;
    double sum = 0;
    for (int j = 0; j < nk; ++j) {
      const double s = S[i * nk + j];
      const double e = s == -kInf ? 0.0 : std::exp((s - m) * invTemp);
      W[i * nk + j] = e;
      sum += e;
    }
    for (int j = 0; j < nk; ++j) W[i * nk + j] /= sum;
  }
  return W;
}

Ref ref_weights_v(const std::vector<double>& W, const std::vector<float>& V, int nq, int nk, int dv) {
  Ref r{std::vector<double>(std::size_t(nq) * dv), std::vector<double>(std::size_t(nq) * dv)};
  for (int i = 0; i < nq; ++i)
    for (int c = 0; c < dv; ++c) {
      double s = 0, m = 0;
      for (int j = 0; j < nk; ++j) {
        s += W[i * nk + j] * V[j * dv + c];
        m += std::fabs(W[i * nk + j] * V[j * dv + c]);
      }
      r.val[i * dv + c] = s;
      r.mag[i * dv + c] = m;
    }
  return r;
}

// The weights of full attention in double from float inputs (causal: j > i masked).
std::vector<double> ref_weights(const std::vector<float>& Q, const std::vector<float>& K, int nq, int nk, int d,
                                double alpha, double invTemp, bool causal) {
  const Ref s = ref_qkt(Q, K, nq, nk, d, alpha);
  std::vector<double> W(std::size_t(nq) * nk, 0.0);
  for (int i = 0; i < nq; ++i) {
    double m = -kInf;
    for (int j = 0; j < nk; ++j)
      if (!causal || j <= i) m = std::max(m, s.val[i * nk + j]);
    if (m == -kInf) continue;
    double sum = 0;
    for (int j = 0; j < nk; ++j) {
      const double e = (!causal || j <= i) ? std::exp((s.val[i * nk + j] - m) * invTemp) : 0.0;
      W[i * nk + j] = e;
      sum += e;
    }
    for (int j = 0; j < nk; ++j) W[i * nk + j] /= sum;
  }
  return W;
}

// Full attention in double from float inputs: the reference the flash and weights kernels must match.
Ref ref_attention(const std::vector<float>& Q, const std::vector<float>& K, const std::vector<float>& V, int nq, int nk,
                  int d, int dv, double alpha, double invTemp, bool causal) {
  return ref_weights_v(ref_weights(Q, K, nq, nk, d, alpha, invTemp, causal), V, nq, nk, dv);
}

void expect_close(const std::vector<float>& got, const Ref& want, double rel, const char* what) {
  ASSERT_EQ(got.size(), want.val.size());
  int reported = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double tol = rel * want.mag[i] + 1e-30;
    if (!(std::fabs(got[i] - want.val[i]) <= tol) && reported++ < 5)
      ADD_FAILURE() << what << "[" << i << "] = " << got[i] << ", want " << want.val[i] << " ± " << tol;
  }
}

const int kSizes[] = {1, 3, 7, 17, 64, 130};

TEST(Kernels, QktMatchesDoubleReference) {
  for (int nq : kSizes)
    for (int nk : kSizes)
      for (int d : {1, 5, 24, 64, 300}) {  // 300 crosses the 256-dim packing chunk
        SCOPED_TRACE(testing::Message() << "nq=" << nq << " nk=" << nk << " d=" << d);
        const auto Q = randn(std::size_t(nq) * d, 1 + nq), K = randn(std::size_t(nk) * d, 100 + nk);
        std::vector<float> S(std::size_t(nq) * nk, NAN);
        const float alpha = 1.f / std::sqrt(float(d));
        k::qkt(Q.data(), K.data(), S.data(), nq, nk, d, alpha);
        expect_close(S, ref_qkt(Q, K, nq, nk, d, alpha), 1e-5, "S");
      }
}

TEST(Kernels, SoftmaxMatchesDoubleReferenceWithMasksAndTemperature) {
  for (int nq : kSizes)
    for (int nk : kSizes)
      for (float invTemp : {1.f, 0.25f, 3.f}) {
        SCOPED_TRACE(testing::Message() << "nq=" << nq << " nk=" << nk << " invTemp=" << invTemp);
        auto S = randn(std::size_t(nq) * nk, 7 + nq * 31 + nk, 4.f);
        // Causal cells, plus row 1 fully masked when it exists.
        for (int i = 0; i < nq; ++i)
          for (int j = 0; j < nk; ++j)
            if (j > i || i == 1) S[i * nk + j] = -std::numeric_limits<float>::infinity();
        const auto want = ref_softmax(S, nq, nk, invTemp);
        k::softmax_rows(S.data(), nq, nk, invTemp);
        for (std::size_t x = 0; x < S.size(); ++x) {
          if (want[x] == 0.0) {
            ASSERT_EQ(S[x], 0.f) << "masked cell " << x << " must be exactly 0";
            continue;
          }
          // Weights under 1e-12 carry no visible mass; their relative error may exceed 1e-5.
          ASSERT_LE(std::fabs(S[x] - want[x]), 1e-5 * want[x] + 1e-12) << "cell " << x;
        }
        for (int i = 0; i < nq; ++i) {
          double sum = 0;
          for (int j = 0; j < nk; ++j) sum += S[i * nk + j];
          EXPECT_NEAR(sum, i == 1 ? 0.0 : 1.0, 1e-5) << "row " << i;
        }
      }
}

TEST(Kernels, SoftmaxOfHugeLogitsHasNoNanOrInf) {
  // ±1e30 after scaling: max-subtraction must keep exp in range; +inf (an overflowed score)
  // counts as the largest float rather than poisoning the row with inf - inf.
  const float big = 1e30f;
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> S = {big,  -big, 0.f,  big,  -big,    // two maxima tie
                          -big, -big, -big, -big, -3e30f,  // all very negative, finite
                          inf,  1.f,  -inf, 2.f,  inf};    // overflowed scores
  k::softmax_rows(S.data(), 3, 5, 1.f);
  const std::vector<float> want = {0.5f, 0, 0, 0.5f, 0, 0.25f, 0.25f, 0.25f, 0.25f, 0, 0.5f, 0, 0, 0, 0.5f};
  for (std::size_t x = 0; x < S.size(); ++x) {
    ASSERT_TRUE(std::isfinite(S[x])) << x;
    EXPECT_NEAR(S[x], want[x], 1e-6) << x;
  }
}

TEST(Kernels, WeightsVMatchesDoubleReference) {
  for (int nq : kSizes)
    for (int nk : {1, 3, 17, 130, 300})  // 300 crosses the 256-row V block
      for (int dv : {1, 3, 7, 12, 28, 64}) {
        SCOPED_TRACE(testing::Message() << "nq=" << nq << " nk=" << nk << " dv=" << dv);
        auto W = randn(std::size_t(nq) * nk, 3 + nq + nk);
        // Causal zeros exercise the trailing-zero skip.
        for (int i = 0; i < nq; ++i)
          for (int j = i + 1; j < nk; ++j) W[i * nk + j] = 0.f;
        const auto V = randn(std::size_t(nk) * dv, 5 + dv);
        std::vector<float> O(std::size_t(nq) * dv, NAN);
        k::weights_v(W.data(), V.data(), O.data(), nq, nk, dv);
        expect_close(O, ref_weights_v(std::vector<double>(W.begin(), W.end()), V, nq, nk, dv), 1e-5, "O");
      }
}

std::vector<float> run_flash(const std::vector<float>& Q, const std::vector<float>& K, const std::vector<float>& V,
                             int nq, int nk, int d, int dv, float alpha, float invTemp, bool causal) {
  // Workspace is poisoned so a read before write shows up as NaN.
  std::vector<float> ws(static_cast<std::size_t>(k::flash_workspace_floats(nq, nk, d, dv)) + 1, NAN);
  const float guard = 12345.f;
  ws.back() = guard;
  std::vector<float> O(std::size_t(nq) * dv, NAN);
  k::flash_attention(Q.data(), K.data(), V.data(), O.data(), nq, nk, d, dv, alpha, invTemp, causal, ws.data());
  EXPECT_EQ(ws.back(), guard) << "flash wrote past flash_workspace_floats";
  return O;
}

struct WeightsRun {
  std::vector<float> W, O;
};

// The weights path with a poisoned workspace and outputs (NaN): a cell read before it is written, or left
// unwritten, shows up.
WeightsRun run_weights(const std::vector<float>& Q, const std::vector<float>& K, const std::vector<float>& V, int nq,
                       int nk, int d, int dv, float alpha, float invTemp, bool causal) {
  std::vector<float> ws(static_cast<std::size_t>(k::flash_workspace_floats(nq, nk, d, dv)) + 1, NAN);
  const float guard = 12345.f;
  ws.back() = guard;
  WeightsRun r{std::vector<float>(std::size_t(nq) * nk, NAN), std::vector<float>(std::size_t(nq) * dv, NAN)};
  k::attention_weights(Q.data(), K.data(), V.data(), r.W.data(), r.O.data(), nq, nk, d, dv, alpha, invTemp, causal,
                       ws.data());
  EXPECT_EQ(ws.back(), guard) << "attention_weights wrote past flash_workspace_floats";
  return r;
}

// Every size pair of kSizes × d ∈ {1, 24, 64, 130} (dv 28 when d is 24), causal or not, at three temperatures.
template <class Check>
void for_each_reference_case(unsigned seed, const Check& check) {
  for (int nq : kSizes)
    for (int nk : kSizes)
      for (int d : {1, 24, 64, 130}) {
        const int dv = d == 24 ? 28 : d;
        const auto Q = randn(std::size_t(nq) * d, seed + nq), K = randn(std::size_t(nk) * d, seed + 2 + nk);
        const auto V = randn(std::size_t(nk) * dv, seed + 6 + nk);
        const float alpha = 1.f / std::sqrt(float(d));
        for (bool causal : {false, true})
          for (float invTemp : {1.f, 0.5f, 4.f}) {
            SCOPED_TRACE(testing::Message() << "nq=" << nq << " nk=" << nk << " d=" << d << " causal=" << causal
                                            << " invTemp=" << invTemp);
            check(Q, K, V, nq, nk, d, dv, alpha, invTemp, causal);
          }
      }
}

// The three-pass route: S = softmax(qkt, causal cells -inf), O = weights_v(S).
WeightsRun unfused(const std::vector<float>& Q, const std::vector<float>& K, const std::vector<float>& V, int nq,
                   int nk, int d, int dv, float alpha, float invTemp, bool causal) {
  WeightsRun r{std::vector<float>(std::size_t(nq) * nk), std::vector<float>(std::size_t(nq) * dv)};
  k::qkt(Q.data(), K.data(), r.W.data(), nq, nk, d, alpha);
  if (causal)
    for (int i = 0; i < nq; ++i)
      for (int j = i + 1; j < nk; ++j) r.W[std::size_t(i) * nk + j] = -std::numeric_limits<float>::infinity();
  k::softmax_rows(r.W.data(), nq, nk, invTemp);
  k::weights_v(r.W.data(), V.data(), r.O.data(), nq, nk, dv);
  return r;
}

TEST(Kernels, WeightsPathMatchesDoubleReference) {
  for_each_reference_case(51, [](const auto& Q, const auto& K, const auto& V, int nq, int nk, int d, int dv,
                                 float alpha, float invTemp, bool causal) {
    const auto r = run_weights(Q, K, V, nq, nk, d, dv, alpha, invTemp, causal);
    const auto W = ref_weights(Q, K, nq, nk, d, alpha, invTemp, causal);
    for (std::size_t x = 0; x < W.size(); ++x)
      ASSERT_NEAR(r.W[x], W[x], 1e-6 + 1e-5 * std::fabs(W[x])) << "W cell " << x;
    expect_close(r.O, ref_weights_v(W, V, nq, nk, dv), 1e-5, "O");
  });
}

TEST(Kernels, FlashMatchesDoubleReference) {
  for_each_reference_case(11, [](const auto& Q, const auto& K, const auto& V, int nq, int nk, int d, int dv,
                                 float alpha, float invTemp, bool causal) {
    const auto O = run_flash(Q, K, V, nq, nk, d, dv, alpha, invTemp, causal);
    expect_close(O, ref_attention(Q, K, V, nq, nk, d, dv, alpha, invTemp, causal), 1e-5, "O");
  });
}

TEST(Kernels, FlashAndWeightsPathEqualQktSoftmaxWeightsV) {
  // Three routes to the same numbers. The weights path does the three-pass route's arithmetic in the same order:
  // the same bits without a mask; with the causal mask the masked keys are left out of the sum rather than added
  // as zeros, so the last bits may differ. The fused kernel sums in another order (online softmax).
  const int nq = 150, nk = 211, d = 40, dv = 36;
  const auto Q = randn(nq * d, 1), K = randn(nk * d, 2), V = randn(nk * dv, 3);
  for (bool causal : {false, true}) {
    SCOPED_TRACE(testing::Message() << "causal=" << causal);
    const auto u = unfused(Q, K, V, nq, nk, d, dv, 0.3f, 0.8f, causal);
    const auto r = run_weights(Q, K, V, nq, nk, d, dv, 0.3f, 0.8f, causal);
    const auto F = run_flash(Q, K, V, nq, nk, d, dv, 0.3f, 0.8f, causal);
    const auto ref = ref_attention(Q, K, V, nq, nk, d, dv, 0.3, 0.8, causal);
    for (std::size_t x = 0; x < u.O.size(); ++x) {
      ASSERT_LE(std::fabs(F[x] - u.O[x]), 2e-5 * ref.mag[x] + 1e-30) << "flash, cell " << x;
      ASSERT_LE(std::fabs(r.O[x] - u.O[x]), 2e-5 * ref.mag[x] + 1e-30) << "weights path, cell " << x;
    }
    if (!causal) {
      EXPECT_EQ(r.W, u.W);
      EXPECT_EQ(r.O, u.O);
    }
    for (std::size_t x = 0; x < u.W.size(); ++x) ASSERT_NEAR(r.W[x], u.W[x], 1e-7 + 1e-6 * u.W[x]) << "W cell " << x;
  }
}

TEST(Kernels, FlashHugeLogitsStayFinite) {
  // Scores near ±1e30 after alpha: the softmax is one-hot on each row's best key.
  const int n = 37, d = 8;
  const auto Q = randn(n * d, 21), K = randn(n * d, 22), V = randn(n * d, 23);
  for (bool causal : {false, true}) {
    const auto O = run_flash(Q, K, V, n, n, d, d, 1e29f, 1.f, causal);
    const auto ref = ref_attention(Q, K, V, n, n, d, d, 1e29, 1.0, causal);
    for (std::size_t x = 0; x < O.size(); ++x) {
      ASSERT_TRUE(std::isfinite(O[x])) << x;
      EXPECT_NEAR(O[x], ref.val[x], 1e-5 * ref.mag[x] + 1e-30) << x;
    }
  }
  // Scores that overflow float: +inf counts as the largest float, -inf everywhere is a fully
  // masked row (output 0).
  std::vector<float> ones(4 * d, 1.f), neg(4 * d, -1.f), Vs = randn(4 * d, 5);
  const auto Opos = run_flash(ones, ones, Vs, 4, 4, d, d, 1e38f, 1.f, false);
  for (int c = 0; c < d; ++c) {  // all keys tie at +inf: the mean of V
    const double mean = (double(Vs[c]) + Vs[d + c] + Vs[2 * d + c] + Vs[3 * d + c]) / 4;
    EXPECT_NEAR(Opos[c], mean, 1e-5);
  }
  const auto Oneg = run_flash(ones, neg, Vs, 4, 4, d, d, 1e38f, 1.f, false);
  for (float x : Oneg) EXPECT_EQ(x, 0.f);
}

TEST(Kernels, FlashCausalWithMoreQueriesThanKeysAndEmptyKeys) {
  // Causal with nq > nk: rows past nk see every key; nk = 0 gives zeros, not NaN.
  const int nq = 70, nk = 9, d = 16;
  const auto Q = randn(nq * d, 31), K = randn(nk * d, 32), V = randn(nk * d, 33);
  const auto O = run_flash(Q, K, V, nq, nk, d, d, 0.25f, 1.f, true);
  expect_close(O, ref_attention(Q, K, V, nq, nk, d, d, 0.25, 1.0, true), 1e-5, "O");
  std::vector<float> none;
  const auto Z = run_flash(Q, none, none, nq, 0, d, d, 0.25f, 1.f, true);
  for (float x : Z) EXPECT_EQ(x, 0.f);
}

// ---- the language model's kernels ---------------------------------------------------------------------------------

// A'·B' in double, A' [m, k] and B' [k, n] read through the same strides as kernels::gemm, onto C0 when accumulating.
Ref ref_gemm(int m, int n, int k, k::GemmOperand A, k::GemmOperand B, const std::vector<float>& C0, bool acc) {
  Ref r{std::vector<double>(std::size_t(m) * n), std::vector<double>(std::size_t(m) * n)};
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = acc ? C0[i * n + j] : 0.0, mag = std::fabs(s);
      for (int t = 0; t < k; ++t) {
        const double p = double(A.p[i * A.rs + t * A.cs]) * B.p[t * B.rs + j * B.cs];
        s += p;
        mag += std::fabs(p);
      }
      r.val[i * n + j] = s;
      r.mag[i * n + j] = mag;
    }
  return r;
}

// The three ways the model calls it: A·Bᵀ (a Linear's forward), A·B (its input gradient), Aᵀ·B (its weight gradient).
struct GemmCall {
  std::vector<float> a, b;
  k::GemmOperand A, B;
  GemmCall(int mode, int m, int n, int kk, unsigned seed)
      : a(randn(std::size_t(m) * kk, seed)), b(randn(std::size_t(kk) * n, seed + 1)) {
    A = mode == 2 ? k::GemmOperand{a.data(), 1, m} : k::GemmOperand{a.data(), kk, 1};
    B = mode == 0 ? k::GemmOperand{b.data(), 1, kk} : k::GemmOperand{b.data(), n, 1};
  }
};

std::vector<float> run_gemm(int m, int n, int kk, const GemmCall& g, std::vector<float> C, bool acc) {
  std::vector<float> ws(static_cast<std::size_t>(k::gemm_workspace_floats(m, n, kk)));
  k::gemm(m, n, kk, g.A, g.B, C.data(), n, acc, ws.data());
  return C;
}

TEST(Kernels, GemmMatchesDoubleReferenceInEveryLayout) {
  // Sizes off the tile (6 × 8 natively), k across the 256-term chunk, both edges of the A block.
  for (int mode = 0; mode < 3; ++mode)
    for (int m : {1, 5, 13, 64, 300})
      for (int n : {1, 7, 8, 33})
        for (int kk : {1, 9, 64, 300}) {
          SCOPED_TRACE(testing::Message() << "mode=" << mode << " m=" << m << " n=" << n << " k=" << kk);
          const GemmCall g(mode, m, n, kk, 7 + m + n);
          const auto C0 = randn(std::size_t(m) * n, 3);
          for (bool acc : {false, true})
            expect_close(run_gemm(m, n, kk, g, C0, acc), ref_gemm(m, n, kk, g.A, g.B, C0, acc), 1e-5, "C");
        }
}

TEST(Kernels, GemmRowsDoNotDependOnTheCall) {
  // Each cell sums its terms in order onto its start: one row at a time (the KV cache's products) gives the bits of the
  // whole call (the forward pass), and so do the threads.
  const int m = 77, n = 45, kk = 300;
  for (int mode = 0; mode < 3; ++mode) {
    const GemmCall g(mode, m, n, kk, 11);
    const auto whole = run_gemm(m, n, kk, g, std::vector<float>(std::size_t(m) * n, NAN), false);
    std::vector<float> rows(whole.size(), NAN), ws(static_cast<std::size_t>(k::gemm_workspace_floats(1, n, kk)));
    for (int i = 0; i < m; ++i)
      k::gemm(1, n, kk, {g.A.p + i * g.A.rs, g.A.rs, g.A.cs}, g.B, rows.data() + std::size_t(i) * n, n, false,
              ws.data());
    EXPECT_EQ(rows, whole) << "mode " << mode;
    ASSERT_EQ(k::set_threads(3), 3);
    const auto threaded =
        run_gemm(m * 4, n, kk, GemmCall(mode, m * 4, n, kk, 11), std::vector<float>(std::size_t(m) * 4 * n), false);
    k::set_threads(1);
    EXPECT_EQ(threaded, run_gemm(m * 4, n, kk, GemmCall(mode, m * 4, n, kk, 11),
                                 std::vector<float>(std::size_t(m) * 4 * n), false))
        << "mode " << mode;
  }
}

TEST(Kernels, GeluAndItsSlopeMatchErf) {
  std::vector<float> x;
  for (int i = -1200; i <= 1200; ++i) x.push_back(i / 100.f);  // past ±4·√2, where erf is ±1 in float
  const auto r = randn(1001, 5, 3.f);
  x.insert(x.end(), r.begin(), r.end());
  const auto dy = randn(x.size(), 6);
  std::vector<float> y(x.size()), dx(x.size());
  k::gelu(x.data(), y.data(), static_cast<long>(x.size()));
  k::gelu_backward(x.data(), dy.data(), dx.data(), static_cast<long>(x.size()));
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = x[i], cdf = 0.5 * (1 + std::erf(v / std::sqrt(2.0)));
    const double pdf = std::exp(-0.5 * v * v) / std::sqrt(2 * M_PI);
    EXPECT_NEAR(y[i], v * cdf, 1e-6 * std::max(1.0, std::fabs(v))) << "x = " << v;
    EXPECT_NEAR(dx[i], dy[i] * (cdf + v * pdf), 1e-6 * std::max(1.f, std::fabs(dy[i]))) << "x = " << v;
  }
}

TEST(Kernels, CrossEntropyMatchesDoubleReference) {
  const int rows = 9, V = 1001;  // V off every vector width
  auto Z = randn(std::size_t(rows) * V, 8, 4.f);
  Z[5 * V + 17] = 60.f;  // a confident row
  const std::vector<int> t = {0, 17, 1000, -1, 3, 17, 999, 500, 2};
  const float inv = 1.f / 8;
  std::vector<float> dZ(Z.size(), NAN), scratch(V);
  const double loss = k::cross_entropy(Z.data(), t.data(), rows, V, inv, dZ.data(), true);
  EXPECT_EQ(k::cross_entropy(Z.data(), t.data(), rows, V, inv, scratch.data(), false), loss);
  double want = 0;
  for (int r = 0; r < rows; ++r) {
    const float* z = Z.data() + std::size_t(r) * V;
    double m = z[0], s = 0;
    for (int j = 0; j < V; ++j) m = std::max(m, double(z[j]));
    for (int j = 0; j < V; ++j) s += std::exp(z[j] - m);
    if (t[r] >= 0) want += std::log(s) + m - z[t[r]];
    for (int j = 0; j < V; ++j) {
      const double g = t[r] < 0 ? 0.0 : (std::exp(z[j] - m) / s - (j == t[r])) * inv;
      EXPECT_NEAR(dZ[std::size_t(r) * V + j], g, 1e-7) << "row " << r << " id " << j;
    }
  }
  EXPECT_NEAR(loss, want, 1e-5 * want);
}

TEST(Kernels, LayerNormAndItsBackwardMatchDoubleReference) {
  const int rows = 7, C = 37;
  const auto X = randn(std::size_t(rows) * C, 9, 3.f), w = randn(C, 10), b = randn(C, 11), dY = randn(X.size(), 12);
  std::vector<float> Y(X.size()), mean(rows), rstd(rows), dX(X.size()), dw(C, 0.5f), db(C, -0.25f);
  k::layer_norm(X.data(), rows, C, w.data(), b.data(), Y.data(), mean.data(), rstd.data());
  k::layer_norm_backward(X.data(), dY.data(), rows, C, w.data(), mean.data(), rstd.data(), dX.data(), dw.data(),
                         db.data());
  std::vector<double> dwRef(C, 0.5), dbRef(C, -0.25);
  for (int r = 0; r < rows; ++r) {
    const float* x = X.data() + r * C;
    double mu = 0, var = 0;
    for (int c = 0; c < C; ++c) mu += x[c] / double(C);
    for (int c = 0; c < C; ++c) var += (x[c] - mu) * (x[c] - mu) / C;
    const double rs = 1 / std::sqrt(var + 1e-5);
    double g1 = 0, g2 = 0;
    for (int c = 0; c < C; ++c) {
      const double xh = (x[c] - mu) * rs, g = double(dY[r * C + c]) * w[c];
      EXPECT_NEAR(Y[r * C + c], xh * w[c] + b[c], 1e-6);
      g1 += g / C;
      g2 += g * xh / C;
      dwRef[c] += dY[r * C + c] * xh;
      dbRef[c] += dY[r * C + c];
    }
    for (int c = 0; c < C; ++c) {
      const double xh = (x[c] - mu) * rs;
      EXPECT_NEAR(dX[r * C + c], rs * (double(dY[r * C + c]) * w[c] - g1 - xh * g2), 1e-5);
    }
  }
  for (int c = 0; c < C; ++c) {
    EXPECT_NEAR(dw[c], dwRef[c], 1e-5);
    EXPECT_NEAR(db[c], dbRef[c], 1e-5);
  }
}

TEST(Kernels, ScalarTwinIsWhatNativeRunsAndWorkspaceIsLinear) {
  EXPECT_STREQ(k::backend(), "scalar");
  // O(n·d): packed K and V plus fixed-size tiles, never n².
  const long long a = k::flash_workspace_floats(8192, 8192, 64, 64);
  const long long b = k::flash_workspace_floats(16384, 16384, 64, 64);
  EXPECT_LT(b, 2 * a + 10000);
  EXPECT_LT(b, 16384LL * 64 * 3);
}

// Rows split over threads (cuts at whole flash blocks; causal cuts for equal areas, with q0 offsetting
// the mask) give the same bits as one thread, for every kernel.
TEST(Kernels, ThreadsGiveTheSameBitsAsOneThread) {
  struct Case {
    int nq, nk, d;
    bool causal;
  };
  for (const Case c : {Case{300, 280, 64, false}, Case{301, 301, 64, true}, Case{517, 200, 40, true}}) {
    const auto Q = randn(std::size_t(c.nq) * c.d, 41), K = randn(std::size_t(c.nk) * c.d, 42);
    const auto V = randn(std::size_t(c.nk) * c.d, 43);
    std::vector<float> S1(std::size_t(c.nq) * c.nk), O1(std::size_t(c.nq) * c.d), F1;
    WeightsRun P1;
    auto run = [&](std::vector<float>& S, std::vector<float>& O, WeightsRun& P) {
      k::qkt(Q.data(), K.data(), S.data(), c.nq, c.nk, c.d, 0.125f);
      k::softmax_rows(S.data(), c.nq, c.nk, 1.f);
      k::weights_v(S.data(), V.data(), O.data(), c.nq, c.nk, c.d);
      P = run_weights(Q, K, V, c.nq, c.nk, c.d, c.d, 0.125f, 1.f, c.causal);
      return run_flash(Q, K, V, c.nq, c.nk, c.d, c.d, 0.125f, 1.f, c.causal);
    };
    ASSERT_EQ(k::set_threads(1), 1);
    F1 = run(S1, O1, P1);
    ASSERT_EQ(k::set_threads(3), 3);
    std::vector<float> S3(S1.size()), O3(O1.size());
    WeightsRun P3;
    const auto F3 = run(S3, O3, P3);
    EXPECT_EQ(k::threads(), 3);
    k::set_threads(1);
    EXPECT_EQ(S1, S3) << "softmax(qkt) nq=" << c.nq;
    EXPECT_EQ(O1, O3) << "weights_v nq=" << c.nq;
    EXPECT_EQ(F1, F3) << "flash nq=" << c.nq << " causal=" << c.causal;
    EXPECT_EQ(P1.W, P3.W) << "attention_weights W nq=" << c.nq << " causal=" << c.causal;
    EXPECT_EQ(P1.O, P3.O) << "attention_weights O nq=" << c.nq << " causal=" << c.causal;
    expect_close(F3, ref_attention(Q, K, V, c.nq, c.nk, c.d, c.d, 0.125, 1.0, c.causal), 1e-5, "O");
  }
}

}  // namespace
