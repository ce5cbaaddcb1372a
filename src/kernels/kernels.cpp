// Dispatch: one build runs one implementation, chosen at compile time (wasm has no runtime
// feature detection worth paying for: a module either validates with SIMD128 or not at all).
#include "kernels.h"

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

const char* backend() noexcept {
#ifdef __wasm_simd128__
  return "simd128";
#else
  return "scalar";
#endif
}

}  // namespace ap::kernels
