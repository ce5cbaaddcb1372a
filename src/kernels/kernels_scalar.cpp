// The portable twin: the same drivers as the SIMD128 build with plain loops inside. Compiled in
// every build (native tests run it; in wasm it is the reference the SIMD path is checked against).
// The loops over the 8 columns of a tile have constant trip counts so compilers vectorize them.
#include <algorithm>
#include <cfloat>

#include "kernels.h"
#include "kernels_driver.h"

// GCC -O3 otherwise vectorizes the tiles' outer loop (over d or keys) with shuffles and gathers,
// 3-5x slower than the straight-line 8-wide code its SLP pass makes of the fully unrolled inner
// loops. Clang (the wasm build) already picks the inner loops.
#if defined(__GNUC__) && !defined(__clang__)
#define AP_TILE_LOOPS __attribute__((optimize("no-tree-loop-vectorize")))
#else
#define AP_TILE_LOOPS
#endif

namespace ap::kernels::scalar {
namespace {

using namespace ap::kernels::detail;

struct ScalarOps {
  AP_TILE_LOOPS static void qk_tile(const float* qp, const float* kt, int d, float* out, int ldo) {
    float acc[kMR][kNR] = {};
    for (int t = 0; t < d; ++t) {
      const float* b = kt + t * kNR;
      for (int r = 0; r < kMR; ++r) {
        const float a = qp[t * kMR + r];
        for (int c = 0; c < kNR; ++c) acc[r][c] = acc[r][c] + a * b[c];
      }
    }
    for (int r = 0; r < kMR; ++r)
      for (int c = 0; c < kNR; ++c) out[r * ldo + c] = acc[r][c];
  }

  AP_TILE_LOOPS static void gemm_tile(const float* ap, long as, const float* bp, int k, float* c, int ldc, bool load) {
    float acc[kMR][kNR];
    for (int r = 0; r < kMR; ++r)
      for (int x = 0; x < kNR; ++x) acc[r][x] = load ? c[r * ldc + x] : 0.f;
    for (int t = 0; t < k; ++t) {
      const float* b = bp + t * kNR;
      for (int r = 0; r < kMR; ++r) {
        const float a = ap[t * as + r];
        for (int x = 0; x < kNR; ++x) acc[r][x] = acc[r][x] + a * b[x];
      }
    }
    for (int r = 0; r < kMR; ++r)
      for (int x = 0; x < kNR; ++x) c[r * ldc + x] = acc[r][x];
  }

  static void pack_rows(const float* a, long rs, int rows, int kc, float* dst) {
    pack_q(a, static_cast<int>(rs), 0, rows, 0, kc, dst);
  }

  static void gelu(const float* x, float* y, long n) {
    for (long i = 0; i < n; ++i) y[i] = gelu_of(x[i]);
  }

  static void gelu_backward(const float* x, const float* dy, float* dx, long n) {
    for (long i = 0; i < n; ++i) dx[i] = dy[i] * gelu_slope(x[i]);
  }

  static float copy_max(const float* src, float* s, int n) {
    float m = kNegInf;
    for (int j = 0; j < n; ++j) m = std::max(m, s[j] = src[j]);
    return m;
  }

  static float scale_max(float* s, int n, float alpha) {
    // max is exact, so the SIMD version's lane order gives the same result.
    float m = kNegInf;
    for (int j = 0; j < n; ++j) {
      const float x = std::min(alpha * s[j], FLT_MAX);
      s[j] = x;
      m = std::max(m, x);
    }
    return m;
  }

  static float exp_sum(float* s, int n, float m, float ls) {
    // Four partial sums, lane j % 4, added as the SIMD version does at the end.
    float part[4] = {0.f, 0.f, 0.f, 0.f};
    int j = 0;
    for (; j + 4 <= n; j += 4)
      for (int k = 0; k < 4; ++k) {
        const float e = exp2_neg((s[j + k] - m) * ls);
        s[j + k] = e;
        part[k] = part[k] + e;
      }
    float tail = 0.f;
    for (; j < n; ++j) {
      const float e = exp2_neg((s[j] - m) * ls);
      s[j] = e;
      tail = tail + e;
    }
    return ((part[0] + part[1]) + (part[2] + part[3])) + tail;
  }

  static void scale(float* s, int n, float k) {
    for (int j = 0; j < n; ++j) s[j] = s[j] * k;
  }

  // o[r][0..W) = c[r]·o[r] + Σ_j p[r·kBC + j]·v[j·ldv + 0..W)
  template <int W>
  AP_TILE_LOOPS static void pv_tile(const float* p, int nj, const float* v, int ldv, float* const o[kMR],
                                    const float c[kMR]) {
    float acc[kMR][W];
    for (int r = 0; r < kMR; ++r)
      for (int x = 0; x < W; ++x) acc[r][x] = o[r][x] * c[r];
    for (int j = 0; j < nj; ++j) {
      const float* b = v + static_cast<long long>(j) * ldv;
      for (int r = 0; r < kMR; ++r) {
        const float a = p[r * kBC + j];
        for (int x = 0; x < W; ++x) acc[r][x] = acc[r][x] + a * b[x];
      }
    }
    for (int r = 0; r < kMR; ++r)
      for (int x = 0; x < W; ++x) o[r][x] = acc[r][x];
  }
};

}  // namespace

AP_KERNEL_ENTRY_POINTS(ScalarOps)

}  // namespace ap::kernels::scalar
