// twin_max_rel_diff: the SIMD128 kernels against their scalar twins inside one wasm module.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels.h"

namespace ap::kernels {

#ifdef __wasm_simd128__
namespace {

// xorshift32 in [-2, 2): no <random>, so the hook adds little to the module.
std::vector<float> noise(std::size_t n, unsigned& s) {
  std::vector<float> v(n);
  for (auto& x : v) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    x = static_cast<float>(s) / 4294967296.f * 4.f - 2.f;
  }
  return v;
}

double worst(const std::vector<float>& a, const std::vector<float>& b) {
  double w = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) != std::isnan(b[i])) return std::numeric_limits<double>::infinity();
    w = std::max(w, std::fabs(double(a[i]) - b[i]) / std::max(std::fabs(double(b[i])), 1e-6));
  }
  return w;
}

// gemm_nt / gemm_nn / gemm_tn (mode 0, 1, 2): C[nq, nk] = A'·B' over d terms, A·Bᵀ, A·B or Aᵀ·B as the language model
// calls them, then once more accumulating onto the result; judged against the largest |cell| (a cell near 0 is a
// cancellation, which relaxed SIMD's fused multiply-add rounds differently).
double gemm_diff(int mode, const std::vector<float>& Q, const std::vector<float>& K, int nq, int nk, int d) {
  const GemmOperand A = mode == 2 ? GemmOperand{Q.data(), 1, nq} : GemmOperand{Q.data(), d, 1};
  const GemmOperand B = mode == 0 ? GemmOperand{K.data(), 1, d} : GemmOperand{K.data(), nk, 1};
  std::vector<float> ws(static_cast<std::size_t>(gemm_workspace_floats(nq, nk, d)));
  std::vector<float> a(std::size_t(nq) * nk), b(a.size());
  double w = 0;
  for (bool acc : {false, true}) {
    simd::gemm(nq, nk, d, A, B, a.data(), nk, acc, ws.data());
    scalar::gemm(nq, nk, d, A, B, b.data(), nk, acc, ws.data());
    double diff = 0, top = 1e-30;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (std::isnan(a[i]) != std::isnan(b[i])) return std::numeric_limits<double>::infinity();
      diff = std::max(diff, std::fabs(double(a[i]) - b[i]));
      top = std::max(top, std::fabs(double(b[i])));
    }
    w = std::max(w, diff / top);
  }
  return w;
}

}  // namespace
#endif

double twin_max_rel_diff(const char* kernel, int nq, int nk, int d, int dv, unsigned seed) noexcept {
#ifdef __wasm_simd128__
  const auto ok = [](int x) { return x >= 1 && x <= 4096; };
  if (!kernel || !ok(nq) || !ok(nk) || !ok(d) || !ok(dv)) return -1;
  try {
    unsigned s = seed | 1u;
    const auto Q = noise(std::size_t(nq) * d, s), K = noise(std::size_t(nk) * d, s), V = noise(std::size_t(nk) * dv, s);
    const float alpha = 1.f / std::sqrt(float(d));
    if (!std::strcmp(kernel, "qkt")) {
      std::vector<float> a(std::size_t(nq) * nk), b(a.size());
      simd::qkt(Q.data(), K.data(), a.data(), nq, nk, d, alpha);
      scalar::qkt(Q.data(), K.data(), b.data(), nq, nk, d, alpha);
      return worst(a, b);
    }
    if (!std::strcmp(kernel, "softmax")) {
      auto a = noise(std::size_t(nq) * nk, s);
      for (int i = 0; i < nq; ++i)  // causal cells masked; row 0 fully masked when nq > 1
        for (int j = 0; j < nk; ++j)
          if (j > i || (i == 0 && nq > 1)) a[std::size_t(i) * nk + j] = -std::numeric_limits<float>::infinity();
      auto b = a;
      simd::softmax_rows(a.data(), nq, nk, 0.7f);
      scalar::softmax_rows(b.data(), nq, nk, 0.7f);
      return worst(a, b);
    }
    if (!std::strcmp(kernel, "weights_v")) {
      const auto W = noise(std::size_t(nq) * nk, s);
      std::vector<float> a(std::size_t(nq) * dv), b(a.size());
      simd::weights_v(W.data(), V.data(), a.data(), nq, nk, dv);
      scalar::weights_v(W.data(), V.data(), b.data(), nq, nk, dv);
      return worst(a, b);
    }
    const bool causal = !std::strcmp(kernel, "flash_causal");
    const bool window = !std::strcmp(kernel, "flash_window");  // window nk / 3 + 1, two sinks
    if (causal || window || !std::strcmp(kernel, "flash")) {
      std::vector<float> ws(static_cast<std::size_t>(flash_workspace_floats(nq, nk, d, dv)));
      std::vector<float> a(std::size_t(nq) * dv), b(a.size());
      const int w = window ? nk / 3 + 1 : 0, sinks = window ? std::min(2, nk) : 0;
      simd::flash_attention(Q.data(), K.data(), V.data(), a.data(), nq, nk, d, dv, alpha, 0.8f, causal, ws.data(), 0,
                            nullptr, w, sinks);
      scalar::flash_attention(Q.data(), K.data(), V.data(), b.data(), nq, nk, d, dv, alpha, 0.8f, causal, ws.data(), 0,
                              nullptr, w, sinks);
      return worst(a, b);
    }
    // gemm_nt / gemm_nn / gemm_tn (gemm_diff)
    const char* modes[] = {"gemm_nt", "gemm_nn", "gemm_tn"};
    for (int mode = 0; mode < 3; ++mode)
      if (!std::strcmp(kernel, modes[mode])) return gemm_diff(mode, Q, K, nq, nk, d);
    const bool weightsCausal = !std::strcmp(kernel, "weights_causal");
    if (weightsCausal || !std::strcmp(kernel, "weights")) {
      std::vector<float> ws(static_cast<std::size_t>(flash_workspace_floats(nq, nk, d, dv)));
      std::vector<float> wa(std::size_t(nq) * nk), wb(wa.size()), a(std::size_t(nq) * dv), b(a.size());
      simd::attention_weights(Q.data(), K.data(), V.data(), wa.data(), a.data(), nq, nk, d, dv, alpha, 0.8f,
                              weightsCausal, ws.data());
      scalar::attention_weights(Q.data(), K.data(), V.data(), wb.data(), b.data(), nq, nk, d, dv, alpha, 0.8f,
                                weightsCausal, ws.data());
      return std::max(worst(wa, wb), worst(a, b));
    }
  } catch (...) {  // bad_alloc of the test buffers
  }
  return -1;
#else
  (void)kernel, (void)nq, (void)nk, (void)d, (void)dv, (void)seed;
  return -1;
#endif
}

}  // namespace ap::kernels
