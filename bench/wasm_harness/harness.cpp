// Standalone check + timing of the kernels in WebAssembly, without the package: SIMD128 against the
// scalar twin in the same module, then GFLOP/s of the core paths. Built by build.sh, run by Node.
//   node build/h-kern-wasm/harness.mjs [--quick] [--check-only]
#include <emscripten.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "core/lm_products.h"
#include "kernels/kernels.h"
#include "kernels/kernels_driver.h"

using namespace ap::kernels;

static double max_rel(const std::vector<float>& a, const std::vector<float>& b, double floor_) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) return INFINITY;
    const double e = std::fabs(double(a[i]) - b[i]) / std::max(floor_, std::fabs(double(b[i])));
    worst = std::max(worst, e);
  }
  return worst;
}

static int check_gemm(std::mt19937& g) {
  std::normal_distribution<float> N(0.f, 1.f);
  int bad = 0;
  // The language model's products (gemm): A·Bᵀ, A·B and Aᵀ·B, overwriting and accumulating, against the scalar twin:
  // the same bits in the SIMD128 build (each cell the same mul-then-add chain), within 1e-6 of the largest cell with
  // relaxed SIMD's fused multiply-add.
  for (int m : {1, 3, 7, 17, 64, 130})
    for (int n : {1, 5, 8, 17, 130})
      for (int k : {1, 5, 64, 300})
        for (int mode = 0; mode < 3; ++mode) {
          std::vector<float> A(size_t(m) * k), B(size_t(k) * n), C0(size_t(m) * n);
          for (auto* v : {&A, &B, &C0})
            for (auto& x : *v) x = N(g);
          const GemmOperand a = mode == 2 ? GemmOperand{A.data(), 1, m} : GemmOperand{A.data(), k, 1};
          const GemmOperand b = mode == 0 ? GemmOperand{B.data(), 1, k} : GemmOperand{B.data(), n, 1};
          std::vector<float> ws(gemm_workspace_floats(m, n, k));
          for (bool acc : {false, true}) {
            std::vector<float> C1 = C0, C2 = C0;
            gemm(m, n, k, a, b, C1.data(), n, acc, ws.data());
            scalar::gemm(m, n, k, a, b, C2.data(), n, acc, ws.data());
            double diff = 0, top = 1e-30;
            for (size_t i = 0; i < C1.size(); ++i) {
              diff = std::isnan(C1[i]) ? INFINITY : std::max(diff, std::fabs(double(C1[i]) - C2[i]));
              top = std::max(top, std::fabs(double(C2[i])));
            }
#ifdef __wasm_relaxed_simd__
            const bool same = diff <= 1e-6 * top;
#else
            const bool same = diff == 0;
#endif
            if (!same) {
              ++bad;
              std::printf("{\"mismatch\":true,\"gemm\":%d,\"m\":%d,\"n\":%d,\"k\":%d,\"acc\":%d,\"max_diff\":%g}\n",
                          mode, m, n, k, acc, diff);
            }
          }
        }
  return bad;
}

static int check_lm_steps(std::mt19937& g) {
  std::normal_distribution<float> N(0.f, 1.f);
  int bad = 0;
  // The model's other SIMD steps: GELU and its backward pass over 1,001 values (a tail past the last vector) in
  // [-6, 6], the cross-entropy of 7 rows of 1,001 logits (its loss and gradient): the same bits in the SIMD128 build,
  // within 1e-6 (of the largest value) with relaxed SIMD.
  {
    std::vector<float> x(1001), dy(1001), z(7 * 1001);
    for (auto& v : x) v = 2.f * N(g);
    for (auto& v : dy) v = N(g);
    for (auto& v : z) v = 3.f * N(g);
    std::vector<float> y1(x.size()), y2(x.size()), d1(x.size()), d2(x.size()), g1(z.size()), g2(z.size());
    gelu(x.data(), y1.data(), long(x.size()));
    scalar::gelu(x.data(), y2.data(), long(x.size()));
    gelu_backward(x.data(), dy.data(), d1.data(), long(x.size()));
    scalar::gelu_backward(x.data(), dy.data(), d2.data(), long(x.size()));
    const int targets[7] = {0, 5, 1000, -1, 17, 999, 3};
    const double l1 = cross_entropy(z.data(), targets, 7, 1001, 1.f / 6, g1.data(), true);
    const double l2 = scalar::cross_entropy(z.data(), targets, 7, 1001, 1.f / 6, g2.data(), true);
    const auto diff = [](const std::vector<float>& a, const std::vector<float>& b) {
      double d = 0, top = 1e-30;
      for (size_t i = 0; i < a.size(); ++i) {
        d = std::isnan(a[i]) ? INFINITY : std::max(d, std::fabs(double(a[i]) - b[i]));
        top = std::max(top, std::fabs(double(b[i])));
      }
      return d / top;
    };
    const double worst = std::max({diff(y1, y2), diff(d1, d2), diff(g1, g2), std::fabs(l1 - l2) / std::fabs(l2)});
#ifdef __wasm_relaxed_simd__
    const bool same = worst <= 1e-6;
#else
    const bool same = worst == 0;
#endif
    if (!same) {
      ++bad;
      std::printf("{\"mismatch\":true,\"lm_steps\":%g}\n", worst);
    }
  }
  return bad;
}

static int check() {
  std::mt19937 g(7);
  std::normal_distribution<float> N(0.f, 1.f);
  int bad = 0;
  const int sizes[] = {1, 3, 7, 17, 64, 130};
  const int dims[] = {1, 5, 24, 64, 300};
  for (int nq : sizes)
    for (int nk : sizes)
      for (int d : dims) {
        const int dv = d == 24 ? 28 : d;
        std::vector<float> Q(nq * d), K(nk * d), V(nk * dv);
        for (auto& x : Q) x = N(g);
        for (auto& x : K) x = N(g);
        for (auto& x : V) x = N(g);
        const float alpha = 1.f / std::sqrt(float(d));
        std::vector<float> S1(nq * nk), S2(nq * nk);
        qkt(Q.data(), K.data(), S1.data(), nq, nk, d, alpha);
        scalar::qkt(Q.data(), K.data(), S2.data(), nq, nk, d, alpha);
        double e1 = max_rel(S1, S2, 1e-3);
        for (bool causal : {false, true}) {
          std::vector<float> W1 = S2, W2 = S2;
          if (causal)
            for (int i = 0; i < nq; ++i)
              for (int j = i + 1; j < nk; ++j) W1[i * nk + j] = W2[i * nk + j] = -INFINITY;
          softmax_rows(W1.data(), nq, nk, 0.7f);
          scalar::softmax_rows(W2.data(), nq, nk, 0.7f);
          double e2 = max_rel(W1, W2, 1e-30);
          std::vector<float> O1(nq * dv), O2(nq * dv), F1(nq * dv), F2(nq * dv);
          weights_v(W2.data(), V.data(), O1.data(), nq, nk, dv);
          scalar::weights_v(W2.data(), V.data(), O2.data(), nq, nk, dv);
          double e3 = max_rel(O1, O2, 1e-3);
          std::vector<float> ws(flash_workspace_floats(nq, nk, d, dv));
          flash_attention(Q.data(), K.data(), V.data(), F1.data(), nq, nk, d, dv, alpha, 0.7f, causal, ws.data());
          scalar::flash_attention(Q.data(), K.data(), V.data(), F2.data(), nq, nk, d, dv, alpha, 0.7f, causal,
                                  ws.data());
          double e4 = max_rel(F1, F2, 1e-3);
          double e5 = max_rel(
              F2, O2, 0.1);  // flash vs unfused; outputs near 0 are cancellations, judged against their O(1) scale
          if (e1 > 1e-5 || e2 > 1e-5 || e3 > 1e-5 || e4 > 1e-5 || e5 > 1e-5) {
            ++bad;
            std::printf(
                "{\"mismatch\":true,\"nq\":%d,\"nk\":%d,\"d\":%d,\"causal\":%d,\"qkt\":%g,\"softmax\":%g,\"wv\":%g,"
                "\"flash\":%g,\"flash_vs_unfused\":%g}\n",
                nq, nk, d, causal, e1, e2, e3, e4, e5);
          }
        }
      }
  bad += check_gemm(g);
  bad += check_lm_steps(g);
  // The embind test hook must agree (and must see a difference where there is one: it is
  // compared against the direct check above on the same kind of inputs).
  for (const char* kname : {"qkt", "softmax", "weights_v", "flash", "flash_causal", "weights", "weights_causal",
                            "gemm_nt", "gemm_nn", "gemm_tn"}) {
    const double e = twin_max_rel_diff(kname, 37, 130, 24, 28, 5);
    if (!(e >= 0 && e <= 1e-5)) {
      ++bad;
      std::printf("{\"mismatch\":true,\"hook\":\"%s\",\"max_rel\":%g}\n", kname, e);
    }
  }
  std::printf("{\"check\":\"simd128 vs scalar\",\"backend\":\"%s\",\"mismatches\":%d}\n", backend(), bad);
  return bad;
}

template <class F>
static std::vector<double> samples_ms(F f, int runs) {
  f();  // warm-up (tier-up, page faults)
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const double t0 = emscripten_get_now();
    f();
    t.push_back(emscripten_get_now() - t0);
  }
  std::sort(t.begin(), t.end());
  return t;
}

template <class F>
static double time_ms(F f, int runs) {
  const auto t = samples_ms(f, runs);
  return t[t.size() / 2];
}

static void bench(bool quick) {
  std::mt19937 g(1);
  std::uniform_real_distribution<float> U(-1.f, 1.f);
  const int ns[] = {128, 512, 2048, 8192};
  for (int d : {64, 128}) {
    if (quick && d == 128) continue;
    for (int n : ns) {
      if (quick && n == 8192) continue;
      std::vector<float> Q(n * d), K(n * d), V(n * d), O(n * d);
      for (auto& x : Q) x = U(g);
      for (auto& x : K) x = U(g);
      for (auto& x : V) x = U(g);
      std::vector<float> ws(flash_workspace_floats(n, n, d, d));
      const double flops = 4.0 * n * n * d;
      const int runs = n >= 8192 ? 3 : n >= 2048 ? 5 : 15;
      const float alpha = 1.f / std::sqrt(float(d));
      for (bool causal : {false, true}) {
        double ms = time_ms(
            [&] { flash_attention(Q.data(), K.data(), V.data(), O.data(), n, n, d, d, alpha, 1.f, causal, ws.data()); },
            runs);
        std::printf("{\"path\":\"flash\",\"n\":%d,\"d\":%d,\"causal\":%s,\"ms\":%.3f,\"gflops\":%.2f}\n", n, d,
                    causal ? "true" : "false", ms, flops / ms / 1e6);
      }
      if (n <= 2048) {
        std::vector<float> S(size_t(n) * n);
        double ms = time_ms(
            [&] {
              qkt(Q.data(), K.data(), S.data(), n, n, d, alpha);
              softmax_rows(S.data(), n, n, 1.f);
              weights_v(S.data(), V.data(), O.data(), n, n, d);
            },
            runs);
        std::printf("{\"path\":\"unfused\",\"n\":%d,\"d\":%d,\"causal\":false,\"ms\":%.3f,\"gflops\":%.2f}\n", n, d, ms,
                    flops / ms / 1e6);
        double ms1 = time_ms([&] { qkt(Q.data(), K.data(), S.data(), n, n, d, alpha); }, runs);
        double ms2 = time_ms([&] { softmax_rows(S.data(), n, n, 1.f); }, runs);
        double ms3 = time_ms([&] { weights_v(S.data(), V.data(), O.data(), n, n, d); }, runs);
        std::printf(
            "{\"path\":\"parts\",\"n\":%d,\"d\":%d,\"qkt_gflops\":%.2f,\"softmax_ms\":%.3f,\"wv_gflops\":%.2f}\n", n, d,
            2.0 * n * n * d / ms1 / 1e6, ms2, 2.0 * n * n * d / ms3 / 1e6);
      }
      std::fflush(stdout);
    }
  }
}

// --flash n d runs: flash alone, non-causal, min and median (for sweeping block sizes under load).
static void flash_only(int n, int d, int runs) {
  std::mt19937 g(1);
  std::uniform_real_distribution<float> U(-1.f, 1.f);
  std::vector<float> Q(size_t(n) * d), K(size_t(n) * d), V(size_t(n) * d), O(size_t(n) * d);
  for (auto* v : {&Q, &K, &V})
    for (auto& x : *v) x = U(g);
  std::vector<float> ws(flash_workspace_floats(n, n, d, d));
  warm_up();  // past V8's baseline tier before the first long call
  std::vector<double> t;
  for (int r = 0; r <= runs; ++r) {
    const double t0 = emscripten_get_now();
    flash_attention(Q.data(), K.data(), V.data(), O.data(), n, n, d, d, 0.125f, 1.f, false, ws.data());
    if (r) t.push_back(emscripten_get_now() - t0);
  }
  std::sort(t.begin(), t.end());
  const double flops = 4.0 * n * n * d;
  // FNV-1a over the output's bits: two builds that must agree bit for bit print the same hash.
  unsigned long long hash = 1469598103934665603ull;
  for (float x : O) {
    unsigned u;
    std::memcpy(&u, &x, 4);
    hash = (hash ^ u) * 1099511628211ull;
  }
  std::printf(
      "{\"path\":\"flash\",\"n\":%d,\"d\":%d,\"min_gflops\":%.2f,\"median_gflops\":%.2f,\"out_hash\":\"%016llx\"}\n", n,
      d, flops / t.front() / 1e6, flops / t[t.size() / 2] / 1e6, hash);
  std::fflush(stdout);
}

// The register tiles alone on cache-resident operands (a few KiB, reused every call): qk_tile over d steps and
// pv_tile<8> over 128 keys, each repeated until about `ms` have passed, `rounds` times after a first (tier-up) round;
// the fastest round per tile. The kernels' flops are half in each tile (2·n²·d each), so the ceiling is their harmonic
// mean.
struct Ceiling {
  double qk, pv, gflops;
};
static Ceiling tile_ceiling(int d, int rounds, double ms) {
  const int mr = simd::tile_rows();
  std::vector<float> qp(size_t(d) * mr), kt(size_t(d) * 8), out(size_t(mr) * 8);
  std::vector<float> p(size_t(mr) * 128), v(128 * 8), o(size_t(mr) * 8, 0.f);
  std::mt19937 g(3);
  std::uniform_real_distribution<float> U(-1.f, 1.f);
  for (auto* x : {&qp, &kt, &p, &v})
    for (auto& y : *x) y = U(g) * 0.01f;
  const auto rate = [&](double flopsPerCall, auto call) {
    int reps = 64;
    double best = 0;
    for (int round = 0; round <= rounds; ++round) {
      const double t0 = emscripten_get_now();
      call(reps);
      const double took = emscripten_get_now() - t0;
      if (round > 0) best = std::max(best, flopsPerCall * reps / took / 1e6);  // round 0: tier-up
      if (took < ms) reps = int(reps * std::min(8.0, ms / std::max(took, 0.01)));
    }
    return best;
  };
  const double qk =
      rate(2.0 * mr * 8 * d, [&](int reps) { simd::qk_tile_repeat(qp.data(), kt.data(), d, out.data(), reps); });
  const double pv =
      rate(2.0 * mr * 8 * 128, [&](int reps) { simd::pv_tile_repeat(p.data(), 128, v.data(), o.data(), reps); });
  if (out[0] + o[0] == 12345.f) std::printf("\n");  // keeps the tiles' results alive
  return {qk, pv, 2.0 / (1.0 / qk + 1.0 / pv)};
}

// --ceiling d: tile_ceiling with 5 rounds of ~40 ms.
static void ceiling(int d) {
  const Ceiling c = tile_ceiling(d, 5, 40);
  std::printf(
      "{\"path\":\"ceiling\",\"backend\":\"%s\",\"tile_rows\":%d,\"d\":%d,\"qk_gflops\":%.2f,\"pv_gflops\":%.2f,"
      "\"gflops\":%.2f}\n",
      backend(), simd::tile_rows(), d, c.qk, c.pv, c.gflops);
  std::fflush(stdout);
}

// --phases n d runs: where one fused call (non-causal, one thread) spends its time: packing K (and V, where the engine
// packs it), the tail block (the last n % 36 rows), the softmax (exp of every score: softmax_rows over the n×n scores,
// the same per-cell work as the online softmax's) and the register tiles (what remains). Medians of `runs` calls, in
// ms.
static void phases(int n, int d, int runs) {
  std::mt19937 g(1);
  std::uniform_real_distribution<float> U(-1.f, 1.f);
  std::vector<float> Q(size_t(n) * d), K(size_t(n) * d), V(size_t(n) * d), O(size_t(n) * d), S(size_t(n) * n);
  for (auto* x : {&Q, &K, &V})
    for (auto& y : *x) y = U(g);
  std::vector<float> ws(flash_workspace_floats(n, n, d, d));
  const float alpha = 1.f / std::sqrt(float(d));
  const long long kt = detail::flash_layout(n, d, d).kt;
  const int br = flash_block_rows(), tail = n % br, tail0 = n - tail;
  const auto med = [&](auto f) {
    const auto t = samples_ms(f, runs);
    return t[t.size() / 2];
  };
  const double all =
      med([&] { flash_attention(Q.data(), K.data(), V.data(), O.data(), n, n, d, d, alpha, 1.f, false, ws.data()); });
  const long long vt = detail::flash_layout(n, d, d).vt;
  const double pack = med([&] {
    detail::pack_keys(K.data(), n, d, ws.data() + kt);
    if (detail::kPackV) detail::pack_values(V.data(), n, d, ws.data() + vt);
  });
  const double prepacked = med([&] {
    simd::flash_attention(Q.data(), K.data(), V.data(), O.data(), n, n, d, d, alpha, 1.f, false, ws.data(), 0,
                          ws.data() + kt);
  });
  const double tailMs = tail == 0 ? 0.0 : med([&] {
    simd::flash_attention(Q.data() + size_t(tail0) * d, K.data(), V.data(), O.data(), tail, n, d, d, alpha, 1.f, false,
                          ws.data(), tail0, ws.data() + kt);
  });
  for (auto& x : S) x = U(g);
  const double soft = med([&] { simd::softmax_rows(S.data(), n, n, 1.f); });
  std::printf(
      "{\"path\":\"phases\",\"backend\":\"%s\",\"tile_rows\":%d,\"n\":%d,\"d\":%d,\"flash_ms\":%.4f,"
      "\"pack_ms\":%.4f,\"prepacked_ms\":%.4f,\"tail_rows\":%d,\"tail_ms\":%.4f,\"softmax_ms\":%.4f}\n",
      backend(), simd::tile_rows(), n, d, all, pack, prepacked, tail, tailMs, soft);
  std::fflush(stdout);
}

// --products runs: the language model's matrix products (src/core/lm_products.cpp, the package's code and flags) at
// the poems model's shapes (batch 32 × context 64 = 2,048 rows, d_model 64, MLP 256, vocabulary 2,401; attention's
// backward per sequence and head: 64 × 64 weights, head size 16), each as the model calls it (forward: mm_nt
// overwriting; the input gradients: mm_nn overwriting; the weight gradients: mm_tn accumulating), and the model's other
// steps (GELU, LayerNorm, cross-entropy and their backward passes). `runs` rounds; each round measures the register
// tile's ceiling at d = 64 (the fastest of 3 runs of ~10 ms) and then times every product (the fastest of 3 calls,
// small ones repeated to ~2e7 flops each time), so that each product's fraction of the ceiling is a ratio within one
// round (the load of this shared machine falls on both). One JSON line per product: medians over the rounds of ms,
// GFLOP/s (2·m·n·k) and of the per-round fraction; the fastest round's ms. Then one line per other step (median and
// fastest ms), and the ceiling's median.
static double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct ProductCase {
  const char* name;
  char kind;  // 't' mm_nt, 'n' mm_nn, 'T' mm_tn
  int m, n, k;
  bool acc;
  std::vector<float> A, B, C;
  std::vector<double> ms, fraction;
};

// The poems model's shape, as the bench script reads it from the package (POEMS_DEFAULTS): rows = batch · context,
// d_model C, the MLP's F = 4 · C, vocabulary V, context T, head size hs = C / heads.
struct PoemsShape {
  int M, C, F, V, T, hs;
};

// The products of the poems model, A and B filled from g.
static std::vector<ProductCase> product_cases(std::mt19937& g, const PoemsShape& s) {
  const int M = s.M, C = s.C, F = s.F, V = s.V, T = s.T, hs = s.hs;
  std::vector<ProductCase> cases = {
      {"c_attn forward", 't', M, 3 * C, C, false, {}, {}, {}, {}, {}},
      {"attn.c_proj forward", 't', M, C, C, false, {}, {}, {}, {}, {}},
      {"mlp.c_fc forward", 't', M, F, C, false, {}, {}, {}, {}, {}},
      {"mlp.c_proj forward", 't', M, C, F, false, {}, {}, {}, {}, {}},
      {"unembedding forward", 't', M, V, C, false, {}, {}, {}, {}, {}},
      {"unembedding dX", 'n', M, C, V, false, {}, {}, {}, {}, {}},
      {"unembedding dW", 'T', V, C, M, true, {}, {}, {}, {}, {}},
      {"mlp.c_fc dX", 'n', M, C, F, false, {}, {}, {}, {}, {}},
      {"mlp.c_fc dW", 'T', F, C, M, true, {}, {}, {}, {}, {}},
      {"mlp.c_proj dX", 'n', M, F, C, false, {}, {}, {}, {}, {}},
      {"mlp.c_proj dW", 'T', C, F, M, true, {}, {}, {}, {}, {}},
      {"attn.c_proj dX", 'n', M, C, C, false, {}, {}, {}, {}, {}},
      {"attn.c_proj dW", 'T', C, C, M, true, {}, {}, {}, {}, {}},
      {"c_attn dX", 'n', M, C, 3 * C, false, {}, {}, {}, {}, {}},
      {"c_attn dW", 'T', 3 * C, C, M, true, {}, {}, {}, {}, {}},
      {"attention dA = dO·Vᵀ", 't', T, T, hs, false, {}, {}, {}, {}, {}},
      {"attention dV = Aᵀ·dO", 'T', T, hs, T, false, {}, {}, {}, {}, {}},
      {"attention dQ = dS·K", 'n', T, hs, T, false, {}, {}, {}, {}, {}},
  };
  std::uniform_real_distribution<float> U(-1.f, 1.f);
  for (ProductCase& c : cases) {
    // A and B as the product reads them: mm_nt A [m, k] B [n, k]; mm_nn A [m, k] B [k, n]; mm_tn A [k, m] B [k, n].
    c.A.resize(size_t(c.m) * c.k);
    c.B.resize(size_t(c.k) * c.n);
    c.C.assign(size_t(c.m) * c.n, 0.f);
    for (auto& x : c.A) x = U(g);
    for (auto& x : c.B) x = U(g);
  }
  return cases;
}

// One product's ms (the fastest of `once`'s timings, small ones repeated to ~2e7 flops).
template <class Once>
static double time_product(ProductCase& c, Once once) {
  using ap::lm::In;
  using ap::lm::Out;
  const double flops = 2.0 * c.m * c.n * c.k;
  const int ar = c.kind == 'T' ? c.k : c.m, ac = c.kind == 'T' ? c.m : c.k;
  const int br = c.kind == 't' ? c.n : c.k, bc = c.kind == 't' ? c.k : c.n;
  const In a{c.A.data(), ar, ac, ac}, bb{c.B.data(), br, bc, bc};
  const Out o{c.C.data(), c.m, c.n, c.n};
  const int reps = std::max(1, int(2e7 / flops));
  return once(
      [&] {
        if (c.kind == 't') ap::lm::mm_nt(o, a, bb, c.acc);
        if (c.kind == 'n') ap::lm::mm_nn(o, a, bb, c.acc);
        if (c.kind == 'T') ap::lm::mm_tn(o, a, bb, c.acc);
      },
      reps);
}

// One JSON line per product: medians over the rounds.
static void print_products(const std::vector<ProductCase>& cases) {
  for (const ProductCase& c : cases) {
    const double med = median_of(c.ms);
    std::printf(
        "{\"path\":\"products\",\"backend\":\"%s\",\"name\":\"%s\",\"kind\":\"mm_%s\",\"m\":%d,\"n\":%d,"
        "\"k\":%d,\"accumulate\":%s,\"ms\":%.5f,\"min_ms\":%.5f,\"gflops\":%.3f,\"fraction\":%.4f,\"checksum\":%g}\n",
        backend(), c.name,
        c.kind == 't'   ? "nt"
        : c.kind == 'n' ? "nn"
                        : "tn",
        c.m, c.n, c.k, c.acc ? "true" : "false", med, *std::min_element(c.ms.begin(), c.ms.end()),
        2.0 * c.m * c.n * c.k / med / 1e6, median_of(c.fraction), double(c.C[0]));
  }
}

static void products(int runs, const PoemsShape& s) {
  const int M = s.M, C = s.C, F = s.F, V = s.V;
  std::mt19937 g(5);
  std::uniform_real_distribution<float> U(-1.f, 1.f);
  std::vector<ProductCase> cases = product_cases(g, s);
  // The other steps at the model's shapes: GELU over the MLP's 2,048 × 256, LayerNorm over 2,048 × 64, the
  // cross-entropy of 2,048 × 2,401 logits.
  std::vector<float> act(size_t(M) * F), act2(act.size()), dact(act.size()), x(size_t(M) * C), y(x.size()),
      dy(x.size()), dx(x.size()), w(C, 1.f), b(C, 0.f), dw(C), db(C), mean(M), rstd(M), logits(size_t(M) * V),
      dlogits(logits.size());
  std::vector<int> targets(M);
  for (auto* v : {&act, &dact, &x, &dy, &w, &b, &logits})
    for (auto& e : *v) e = U(g) * 3.f;
  for (int i = 0; i < M; ++i) targets[i] = (i * 7919) % V;
  struct Step {
    const char* name;
    long elements;
    std::function<void()> run;
    std::vector<double> ms;
  };
  std::vector<Step> steps = {
      {"GELU forward", long(M) * F, [&] { gelu(act.data(), act2.data(), long(M) * F); }, {}},
      {"GELU backward", long(M) * F, [&] { gelu_backward(act.data(), dact.data(), act2.data(), long(M) * F); }, {}},
      {"LayerNorm forward",
       long(M) * C,
       [&] { layer_norm(x.data(), M, C, w.data(), b.data(), y.data(), mean.data(), rstd.data()); },
       {}},
      {"LayerNorm backward",
       long(M) * C,
       [&] {
         layer_norm_backward(x.data(), dy.data(), M, C, w.data(), mean.data(), rstd.data(), dx.data(), dw.data(),
                             db.data());
       },
       {}},
      {"cross-entropy and its gradient",
       long(M) * V,
       [&] { cross_entropy(logits.data(), targets.data(), M, V, 1.f / M, dlogits.data(), true); },
       {}},
  };
  std::vector<double> ceilings;
  // The fastest of 3 timings (each of `reps` calls), as the ceiling is the fastest of its rounds: a call of 15 ms on a
  // machine with many runnable processes is preempted nearly every time.
  const auto once = [](auto f, int reps) {
    double best = 1e300;
    for (int k = 0; k < 3; ++k) {
      const double t0 = emscripten_get_now();
      for (int r = 0; r < reps; ++r) f();
      best = std::min(best, (emscripten_get_now() - t0) / reps);
    }
    return best;
  };
  for (int round = 0; round <= runs; ++round) {  // round 0 warms up (tier-up, first touches)
    const double ceil = tile_ceiling(64, 3, 10).gflops;
    for (ProductCase& c : cases) {
      const double flops = 2.0 * c.m * c.n * c.k;
      const double ms = time_product(c, once);
      if (round == 0) continue;
      c.ms.push_back(ms);
      c.fraction.push_back(flops / ms / 1e6 / ceil);
    }
    for (Step& st : steps) {
      const double ms = once(st.run, 1);
      if (round > 0) st.ms.push_back(ms);
    }
    if (round > 0) ceilings.push_back(ceil);
  }
  print_products(cases);
  for (const Step& st : steps)
    std::printf(
        "{\"path\":\"steps\",\"backend\":\"%s\",\"name\":\"%s\",\"elements\":%ld,\"ms\":%.5f,\"min_ms\":%.5f}\n",
        backend(), st.name, st.elements, median_of(st.ms), *std::min_element(st.ms.begin(), st.ms.end()));
  std::printf("{\"path\":\"products_ceiling\",\"backend\":\"%s\",\"tile_rows\":%d,\"gflops\":%.2f,\"rounds\":%d}\n",
              backend(), simd::tile_rows(), median_of(ceilings), runs);
  std::fflush(stdout);
}

// Entry points for bench scripts that load the harness as a module (the relaxed build has no callable main: its
// metadata is read without binaryen's finalize, which is what finds main).
extern "C" {
EMSCRIPTEN_KEEPALIVE int harness_check() { return check(); }
EMSCRIPTEN_KEEPALIVE void harness_flash(int n, int d, int runs) { flash_only(n, d, runs); }
EMSCRIPTEN_KEEPALIVE void harness_ceiling(int d) { ceiling(d); }
EMSCRIPTEN_KEEPALIVE void harness_phases(int n, int d, int runs) { phases(n, d, runs); }
EMSCRIPTEN_KEEPALIVE void harness_products(int runs, int batch, int context, int dModel, int heads, int vocab) {
  products(runs, {batch * context, dModel, 4 * dModel, vocab, context, dModel / heads});
}
}

int main(int argc, char** argv) {
  bool quick = false, checkOnly = false;
  // --exports-only: nothing here; the script that loaded the module calls its harness_* exports.
  if (argc == 2 && !std::strcmp(argv[1], "--exports-only")) return 0;
  if (argc >= 2 && !std::strcmp(argv[1], "--first-call")) {
    // The first long call of a fresh module against the next ones: V8 runs wasm in its baseline
    // tier until a function has done enough work, and a running call never switches tier.
    // --first-call [warm-up calls at n = 48] [warm_up] shows how much small work it takes to get
    // past that, and whether kernels::warm_up() does.
    const int reps = argc >= 3 ? std::atoi(argv[2]) : 0;
    constexpr int m = 48, dm = 32;
    std::vector<float> a(m * dm, 0.5f), o(m * dm), wsm(flash_workspace_floats(m, m, dm, dm));
    const double w0 = emscripten_get_now();
    for (int r = 0; r < reps; ++r)
      flash_attention(a.data(), a.data(), a.data(), o.data(), m, m, dm, dm, 0.1f, 1.f, false, wsm.data());
    if (argc >= 4 && !std::strcmp(argv[3], "warm_up")) warm_up();
    const double tw = emscripten_get_now() - w0;
    const int n = 2048, d = 64;
    std::vector<float> Q(size_t(n) * d, 0.01f), O(size_t(n) * d);
    std::vector<float> ws(flash_workspace_floats(n, n, d, d));
    double t[3];
    for (double& x : t) {
      const double t0 = emscripten_get_now();
      flash_attention(Q.data(), Q.data(), Q.data(), O.data(), n, n, d, d, 0.125f, 1.f, false, ws.data());
      x = emscripten_get_now() - t0;
    }
    std::printf("{\"warm_up_calls\":%d,\"warm_up_ms\":%.2f,\"n2048_calls_ms\":[%.1f,%.1f,%.1f]}\n", reps, tw, t[0],
                t[1], t[2]);
    return 0;
  }
  if (argc == 3 && !std::strcmp(argv[1], "--ceiling")) {
    ceiling(std::atoi(argv[2]));
    return 0;
  }
  if (argc == 5 && !std::strcmp(argv[1], "--phases")) {
    phases(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]));
    return 0;
  }
  if (argc == 8 && !std::strcmp(argv[1], "--products")) {  // runs batch context dModel heads vocab
    int a[6];
    for (int i = 0; i < 6; ++i) a[i] = std::atoi(argv[2 + i]);
    harness_products(a[0], a[1], a[2], a[3], a[4], a[5]);
    return 0;
  }
  if (argc == 5 && !std::strcmp(argv[1], "--flash")) {
    flash_only(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]));
    return 0;
  }
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    if (!std::strcmp(argv[i], "--check-only")) checkOnly = true;
  }
  const int bad = check();
  if (!checkOnly) bench(quick);
  return bad ? 1 : 0;
}
