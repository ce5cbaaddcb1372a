// Dispatch: one build runs one implementation, chosen at compile time (wasm has no runtime
// feature detection worth paying for: a module either validates with SIMD128 or not at all).
#include "kernels.h"

#include <vector>

#include "kernels_internal.h"

namespace ap::kernels {

#ifdef __wasm_simd128__
namespace impl = simd;
#else
namespace impl = scalar;
#endif

void qkt(const float* Q, const float* K, float* S, int nq, int nk, int d, float alpha) noexcept {
  impl::qkt(Q, K, S, nq, nk, d, alpha);
}

void softmax_rows(float* S, int nq, int nk, float invTemp) noexcept {
  impl::softmax_rows(S, nq, nk, invTemp);
}

void weights_v(const float* W, const float* V, float* O, int nq, int nk, int dv) noexcept {
  impl::weights_v(W, V, O, nq, nk, dv);
}

long long flash_workspace_floats(int nq, int nk, int d, int dv) noexcept {
  return detail::flash_workspace_floats(nq, nk, d, dv);
}

void flash_attention(const float* Q, const float* K, const float* V, float* O, int nq, int nk, int d,
                     int dv, float alpha, float invTemp, bool causal, float* workspace) noexcept {
  impl::flash_attention(Q, K, V, O, nq, nk, d, dv, alpha, invTemp, causal, workspace);
}

void warm_up() noexcept {
  try {
    // Sizes and counts from bench/wasm_harness (--first-call): 300 small flash calls were what it
    // took for the first n = 2048 call to run at full speed.
    constexpr int n = 48, d = 32;
    std::vector<float> a(n * d, 0.5f), s(n * n), o(n * d);
    std::vector<float> ws(static_cast<std::size_t>(flash_workspace_floats(n, n, d, d)));
    for (int r = 0; r < 300; ++r)
      flash_attention(a.data(), a.data(), a.data(), o.data(), n, n, d, d, 0.1f, 1.f, r % 2 == 1, ws.data());
    for (int r = 0; r < 100; ++r) {
      qkt(a.data(), a.data(), s.data(), n, n, d, 0.1f);
      softmax_rows(s.data(), n, n, 1.f);
      weights_v(s.data(), a.data(), o.data(), n, n, d);
    }
  } catch (...) {  // bad_alloc: warming up is only an optimization
  }
}

const char* backend() noexcept {
#if defined(__wasm_relaxed_simd__)
  return "relaxed-simd";
#elif defined(__wasm_simd128__)
  return "simd128";
#else
  return "scalar";
#endif
}

}  // namespace ap::kernels
