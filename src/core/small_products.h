// Small dense products on row-major buffers, written out instead of going through Eigen's GEMM: the wasm
// build links Eigen's GEMM kernels from whichever object file instantiated them first, and in the
// size-optimised (-Os) ones the inner multiply-add is an out-of-line call (measured: training 20x slower,
// 220 -> 9 steps/s, when the link order changed). Used by the backward passes (backward.cpp, train.cpp).
// Inner loops run over contiguous j (sizes 4..64), with SIMD128 in wasm.
#pragma once

#include "core/common.h"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace ap {
namespace small {

struct CView {
  const float* p;
  int rows, cols;
  long stride;
};
struct MView {
  float* p;
  int rows, cols;
  long stride;
};
template <class M>
CView cview(const M& m) {
  return {m.data(), static_cast<int>(m.rows()), static_cast<int>(m.cols()), static_cast<long>(m.outerStride())};
}
template <class M>
MView mview(M&& m) {
  return {m.data(), static_cast<int>(m.rows()), static_cast<int>(m.cols()), static_cast<long>(m.outerStride())};
}

// c[0..n) += a · b[0..n): four lanes at a time in wasm (the intrinsics are always inlined, even at
// -Os), the same multiply then add per element as the scalar tail, so results match the native build.
inline void axpy(float* c, const float* b, float a, int n) {
  int j = 0;
#if defined(__wasm_simd128__)
  const v128_t av = wasm_f32x4_splat(a);
  for (; j + 4 <= n; j += 4)
    wasm_v128_store(c + j, wasm_f32x4_add(wasm_v128_load(c + j), wasm_f32x4_mul(av, wasm_v128_load(b + j))));
#endif
  for (; j < n; ++j) c[j] += a * b[j];
}

inline void zero(MView C) {
  for (int i = 0; i < C.rows; ++i)
    for (int j = 0; j < C.cols; ++j) C.p[i * C.stride + j] = 0.0f;
}

// C (+)= A·B
inline void mm(MView C, CView A, CView B, bool acc) {
  if (!acc) zero(C);
  for (int i = 0; i < A.rows; ++i) {
    float* c = C.p + i * C.stride;
    for (int k = 0; k < A.cols; ++k) {
      const float a = A.p[i * A.stride + k];
      if (a == 0.0f) continue;
      axpy(c, B.p + k * B.stride, a, B.cols);
    }
  }
}

// C (+)= Aᵀ·B
inline void mm_tn(MView C, CView A, CView B, bool acc) {
  if (!acc) zero(C);
  for (int k = 0; k < A.rows; ++k) {
    const float* a = A.p + k * A.stride;
    const float* b = B.p + k * B.stride;
    for (int i = 0; i < A.cols; ++i) {
      const float ai = a[i];
      if (ai == 0.0f) continue;
      axpy(C.p + i * C.stride, b, ai, B.cols);
    }
  }
}

// C (+)= A·Bᵀ, through Bᵀ copied once so the inner loop stays contiguous.
inline void mm_nt(MView C, CView A, CView B, bool acc) {
  Mat bt(B.cols, B.rows);
  for (int r = 0; r < B.rows; ++r)
    for (int k = 0; k < B.cols; ++k) bt(k, r) = B.p[r * B.stride + k];
  mm(C, A, cview(bt), acc);
}

inline Mat mul(CView A, CView B) {
  Mat C(A.rows, B.cols);
  mm(mview(C), A, B, false);
  return C;
}
inline Mat mul_tn(CView A, CView B) {
  Mat C(A.cols, B.cols);
  mm_tn(mview(C), A, B, false);
  return C;
}
inline Mat mul_nt(CView A, CView B) {
  Mat C(A.rows, B.rows);
  mm_nt(mview(C), A, B, false);
  return C;
}

}  // namespace small
}  // namespace ap
