// Native timing of the same kernels the wasm module runs (here their scalar twin, compiled by the
// host compiler): the unfused path qkt + softmax_rows + weights_v and the fused flash kernel.
// One thread; prints one JSON line per case with the median of the runs. bench/run.mjs reads it.
//   ap_bench_native [--quick]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/kernels.h"

namespace k = ap::kernels;

static double g_min_ms = 0;  // fastest run of the last median_ms call: less sensitive to load

template <class F>
static double median_ms(F f, int runs) {
  f();  // warm caches and page in the buffers
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  g_min_ms = t.front();
  return t[t.size() / 2];
}

// One JSON line per measurement (bench/run.mjs reads them).
static void report(const char* path, int n, int d, bool causal, double ms, double flops, int runs) {
  std::printf(
      "{\"impl\":\"native\",\"path\":\"%s\",\"backend\":\"%s\",\"n\":%d,\"d\":%d,\"causal\":%s,\"ms\":%.4f,"
      "\"gflops\":%.2f,\"min_ms\":%.4f,\"runs\":%d}\n",
      path, k::backend(), n, d, causal ? "true" : "false", ms, flops / ms / 1e6, g_min_ms, runs);
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--quick")) quick = true;
  std::mt19937 g(1);
  std::uniform_real_distribution<float> U(-1.f, 1.f);
  for (int d : {64, 128}) {
    for (int n : {128, 512, 2048, 8192}) {
      if (quick && (n > 2048 || d > 64)) continue;
      std::vector<float> Q(size_t(n) * d), K(size_t(n) * d), V(size_t(n) * d), O(size_t(n) * d);
      for (auto& x : Q) x = U(g);
      for (auto& x : K) x = U(g);
      for (auto& x : V) x = U(g);
      const float alpha = 1.f / std::sqrt(float(d));
      const double flops = 4.0 * n * n * d;
      const int runs = n >= 8192 ? 5 : n >= 2048 ? 7 : 21;
      std::vector<float> ws(size_t(k::flash_workspace_floats(n, n, d, d)));
      for (bool causal : {false, true}) {
        const double ms = median_ms(
            [&] {
              k::flash_attention(Q.data(), K.data(), V.data(), O.data(), n, n, d, d, alpha, 1.f, causal, ws.data());
            },
            runs);
        report("flash", n, d, causal, ms, flops, runs);
        if (n > 2048) continue;  // the n×n matrix is the point of the fused path past this
        std::vector<float> S(size_t(n) * n);
        const double ms2 = median_ms(
            [&] {
              k::qkt(Q.data(), K.data(), S.data(), n, n, d, alpha);
              if (causal)
                for (int i = 0; i < n; ++i)
                  std::fill(S.begin() + size_t(i) * n + i + 1, S.begin() + size_t(i + 1) * n, -INFINITY);
              k::softmax_rows(S.data(), n, n, 1.f);
              k::weights_v(S.data(), V.data(), O.data(), n, n, d);
            },
            runs);
        report("unfused", n, d, causal, ms2, flops, runs);
      }
    }
  }
  return 0;
}
