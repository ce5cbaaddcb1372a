// SIMD128 inner loops for the shared drivers (kernels_driver.h), compiled twice: as plain SIMD128
// (every product a mul followed by an add: the fallback that every SIMD engine runs) and, in the
// relaxed-SIMD build (-mrelaxed-simd, clang >= 16), with f32x4.relaxed_madd, which V8 lowers to one
// FMA instruction where the CPU has it. AP_FMADD is the only difference between the two builds.
// pmax/pmin are used instead of max/min: they lower to one maxps/minps on x86, while the
// NaN-propagating max/min need a fix-up sequence; the inputs here are never NaN. (relaxed_min/max
// lower to the same minps/maxps, so the relaxed build gains nothing from them; its laneselect
// would replace a single v128.and in exp2_neg4, so that stays too.)
#ifdef __wasm_simd128__

#include <wasm_simd128.h>

#include <algorithm>
#include <cfloat>

#include "kernels.h"
#include "kernels_driver.h"

namespace ap::kernels::simd {
namespace {

using namespace ap::kernels::detail;

// Forced inline: if this file is ever built at -Os, clang leaves these as calls (measured 25x
// slower), so the hot loops must not depend on the optimization level to be inlined.
#define AP_HOT inline __attribute__((always_inline))

// a·b + c: fused (one rounding) in the relaxed build, mul then add otherwise.
#ifdef __wasm_relaxed_simd__
#define AP_FMADD(a, b, c) __builtin_wasm_relaxed_madd_f32x4((a), (b), (c))
#else
#define AP_FMADD(a, b, c) wasm_f32x4_add(wasm_f32x4_mul((a), (b)), (c))
#endif

AP_HOT v128_t madd(v128_t acc, v128_t a, v128_t b) { return AP_FMADD(a, b, acc); }

// 2^t lane-wise, the same steps as detail::exp2_neg.
AP_HOT v128_t exp2_neg4(v128_t t) {
  const v128_t magic = wasm_f32x4_splat(kExpMagic);
  const v128_t v = wasm_f32x4_add(t, magic);
  const v128_t n = wasm_f32x4_sub(v, magic);
  const v128_t f = wasm_f32x4_sub(t, n);
  v128_t p = wasm_f32x4_splat(kP0);
  p = AP_FMADD(p, f, wasm_f32x4_splat(kP1));
  p = AP_FMADD(p, f, wasm_f32x4_splat(kP2));
  p = AP_FMADD(p, f, wasm_f32x4_splat(kP3));
  p = AP_FMADD(p, f, wasm_f32x4_splat(kP4));
  p = AP_FMADD(p, f, wasm_f32x4_splat(kP5));
  p = wasm_f32x4_mul(p, f);
  p = wasm_f32x4_add(p, wasm_f32x4_splat(1.0f));
  const v128_t scale = wasm_i32x4_shl(v, 23);
  const v128_t r = wasm_f32x4_mul(p, scale);
  return wasm_v128_and(r, wasm_f32x4_gt(t, wasm_f32x4_splat(kExpMin)));
}

// erf lane-wise, the same steps as detail::erf_approx; GELU and its slope as detail::gelu_of / gelu_slope.
AP_HOT v128_t erf4(v128_t a) {
  const v128_t x = wasm_f32x4_pmax(wasm_f32x4_pmin(a, wasm_f32x4_splat(4.f)), wasm_f32x4_splat(-4.f));
  const v128_t x2 = wasm_f32x4_mul(x, x);
  v128_t p = AP_FMADD(x2, wasm_f32x4_splat(kErfA13), wasm_f32x4_splat(kErfA11));
  p = AP_FMADD(x2, p, wasm_f32x4_splat(kErfA9));
  p = AP_FMADD(x2, p, wasm_f32x4_splat(kErfA7));
  p = AP_FMADD(x2, p, wasm_f32x4_splat(kErfA5));
  p = AP_FMADD(x2, p, wasm_f32x4_splat(kErfA3));
  p = AP_FMADD(x2, p, wasm_f32x4_splat(kErfA1));
  p = wasm_f32x4_mul(x, p);
  v128_t q = AP_FMADD(x2, wasm_f32x4_splat(kErfB8), wasm_f32x4_splat(kErfB6));
  q = AP_FMADD(x2, q, wasm_f32x4_splat(kErfB4));
  q = AP_FMADD(x2, q, wasm_f32x4_splat(kErfB2));
  q = AP_FMADD(x2, q, wasm_f32x4_splat(kErfB0));
  return wasm_f32x4_div(p, q);
}

AP_HOT v128_t phi4(v128_t x) {  // Φ(x) = (1 + erf(x / √2)) / 2
  return wasm_f32x4_mul(wasm_f32x4_splat(0.5f),
                        wasm_f32x4_add(wasm_f32x4_splat(1.f), erf4(wasm_f32x4_mul(x, wasm_f32x4_splat(kSqrtHalf)))));
}

struct SimdOps {
  // The register tile: kMR rows × 8 columns of accumulators (two f32x4 per row). The loops over rows have
  // constant trip counts: clang unrolls them and keeps every accumulator in a register.
  static void qk_tile(const float* qp, const float* kt, int d, float* out, int ldo) {
    v128_t acc[kMR][2];
    for (auto& a : acc) a[0] = a[1] = wasm_f32x4_splat(0.f);
    for (int t = 0; t < d; ++t, qp += kMR, kt += kNR) {
      const v128_t b0 = wasm_v128_load(kt);
      const v128_t b1 = wasm_v128_load(kt + 4);
      for (int r = 0; r < kMR; ++r) {
        const v128_t x = wasm_v128_load32_splat(qp + r);
        acc[r][0] = madd(acc[r][0], x, b0);
        acc[r][1] = madd(acc[r][1], x, b1);
      }
    }
    for (int r = 0; r < kMR; ++r) {
      wasm_v128_store(out + r * ldo, acc[r][0]);
      wasm_v128_store(out + r * ldo + 4, acc[r][1]);
    }
  }

  // qk_tile's loop onto C: the accumulators start from c (load) or 0 and are stored back. as: the floats between
  // one term's kMR values of A and the next's (kMR when packed; A's row pitch when read in place).
  static void gemm_tile(const float* ap, long as, const float* bp, int k, float* c, int ldc, bool load) {
    v128_t acc[kMR][2];
    if (load)
      for (int r = 0; r < kMR; ++r) {
        acc[r][0] = wasm_v128_load(c + r * ldc);
        acc[r][1] = wasm_v128_load(c + r * ldc + 4);
      }
    else
      for (auto& a : acc) a[0] = a[1] = wasm_f32x4_splat(0.f);
    for (int t = 0; t < k; ++t, ap += as, bp += kNR) {
      const v128_t b0 = wasm_v128_load(bp);
      const v128_t b1 = wasm_v128_load(bp + 4);
      for (int r = 0; r < kMR; ++r) {
        const v128_t x = wasm_v128_load32_splat(ap + r);
        acc[r][0] = madd(acc[r][0], x, b0);
        acc[r][1] = madd(acc[r][1], x, b1);
      }
    }
    for (int r = 0; r < kMR; ++r) {
      wasm_v128_store(c + r * ldc, acc[r][0]);
      wasm_v128_store(c + r * ldc + 4, acc[r][1]);
    }
  }

  // pack_q's copy (rows <= kMR of A', row r at a + r·rs; the rows past them repeat the last), 4 terms at a time: one
  // shuffle per pair of rows and pair of terms interleaves them (p[0][r / 2]: rows r and r + 1 at terms 0 and 1, 64
  // bits a term; p[1][r / 2]: terms 2 and 3), and store_terms puts those halves in [t][kMR] order as kMR whole
  // vectors: the copy is bound by its stores, and storing each half on its own (64-bit stores) ran dQ = dS·K ~7 %
  // (SIMD128) and ~8 % (relaxed) slower. An odd kMR (only in the tile sweep, AP_TILE_ROWS) keeps pack_q's walk.
  static void pack_rows(const float* a, long rs, int rows, int kc, float* dst) {
    if constexpr (kMR % 2 != 0) {
      pack_q(a, static_cast<int>(rs), 0, rows, 0, kc, dst);
    } else {
      const float* row[kMR];
      for (int r = 0; r < kMR; ++r) row[r] = a + std::min(r, rows - 1) * rs;
      int t = 0;
      for (; t + 4 <= kc; t += 4, dst += 4 * kMR) {
        v128_t p[2][kMR / 2];
        for (int r = 0; r < kMR; r += 2) {
          const v128_t x = wasm_v128_load(row[r] + t), y = wasm_v128_load(row[r + 1] + t);
          p[0][r / 2] = wasm_i32x4_shuffle(x, y, 0, 4, 1, 5);
          p[1][r / 2] = wasm_i32x4_shuffle(x, y, 2, 6, 3, 7);
        }
        store_terms<0>(p, dst);
      }
      for (; t < kc; ++t, dst += kMR)
        for (int r = 0; r < kMR; ++r) dst[r] = row[r][t];
    }
  }

  // Vector V of pack_rows' 4 terms × kMR values in [t][kMR] order: its 64-bit halves s = 2V and 2V + 1, half s being
  // term t = s / (kMR / 2) of rows 2·(s % (kMR / 2)) and the next, i.e. half t % 2 of p[t / 2][s % (kMR / 2)].
  template <int V>
  static AP_HOT void store_terms(const v128_t (&p)[2][kMR / 2], float* dst) {
    constexpr int P = kMR / 2, t0 = 2 * V / P, t1 = (2 * V + 1) / P;
    wasm_v128_store(dst + 4 * V,
                    wasm_i64x2_shuffle(p[t0 / 2][2 * V % P], p[t1 / 2][(2 * V + 1) % P], t0 % 2, 2 + t1 % 2));
    if constexpr (V + 1 < kMR) store_terms<V + 1>(p, dst);
  }

  static void gelu(const float* x, float* y, long n) {
    long i = 0;
    for (; i + 4 <= n; i += 4) {
      const v128_t v = wasm_v128_load(x + i);
      const v128_t e = erf4(wasm_f32x4_mul(v, wasm_f32x4_splat(kSqrtHalf)));
      wasm_v128_store(
          y + i, wasm_f32x4_mul(wasm_f32x4_mul(wasm_f32x4_splat(0.5f), v), wasm_f32x4_add(wasm_f32x4_splat(1.f), e)));
    }
    for (; i < n; ++i) y[i] = gelu_of(x[i]);
  }

  static void gelu_backward(const float* x, const float* dy, float* dx, long n) {
    long i = 0;
    const v128_t half = wasm_f32x4_splat(-0.5f), l2e = wasm_f32x4_splat(kLog2e);
    for (; i + 4 <= n; i += 4) {
      const v128_t v = wasm_v128_load(x + i);
      const v128_t t = wasm_f32x4_mul(wasm_f32x4_mul(wasm_f32x4_mul(half, v), v), l2e);
      const v128_t pdf = wasm_f32x4_mul(wasm_f32x4_splat(kInvSqrt2Pi), exp2_neg4(t));
      wasm_v128_store(dx + i, wasm_f32x4_mul(wasm_v128_load(dy + i), AP_FMADD(v, pdf, phi4(v))));
    }
    for (; i < n; ++i) dx[i] = dy[i] * gelu_slope(x[i]);
  }

  static float copy_max(const float* src, float* s, int n) {
    v128_t vm = wasm_f32x4_splat(kNegInf);
    int j = 0;
    for (; j + 4 <= n; j += 4) {
      const v128_t x = wasm_v128_load(src + j);
      wasm_v128_store(s + j, x);
      vm = wasm_f32x4_pmax(vm, x);
    }
    float m = std::max(std::max(wasm_f32x4_extract_lane(vm, 0), wasm_f32x4_extract_lane(vm, 1)),
                       std::max(wasm_f32x4_extract_lane(vm, 2), wasm_f32x4_extract_lane(vm, 3)));
    for (; j < n; ++j) m = std::max(m, s[j] = src[j]);
    return m;
  }

  static float scale_max(float* s, int n, float alpha) {
    const v128_t va = wasm_f32x4_splat(alpha);
    const v128_t big = wasm_f32x4_splat(FLT_MAX);
    v128_t vm = wasm_f32x4_splat(kNegInf);
    int j = 0;
    for (; j + 4 <= n; j += 4) {
      const v128_t x = wasm_f32x4_pmin(wasm_f32x4_mul(va, wasm_v128_load(s + j)), big);
      wasm_v128_store(s + j, x);
      vm = wasm_f32x4_pmax(vm, x);
    }
    float m = std::max(std::max(wasm_f32x4_extract_lane(vm, 0), wasm_f32x4_extract_lane(vm, 1)),
                       std::max(wasm_f32x4_extract_lane(vm, 2), wasm_f32x4_extract_lane(vm, 3)));
    for (; j < n; ++j) {
      const float x = std::min(alpha * s[j], FLT_MAX);
      s[j] = x;
      m = std::max(m, x);
    }
    return m;
  }

  static float exp_sum(float* s, int n, float m, float ls) {
    const v128_t vm = wasm_f32x4_splat(m);
    const v128_t vls = wasm_f32x4_splat(ls);
    v128_t sum = wasm_f32x4_splat(0.f);
    int j = 0;
    for (; j + 4 <= n; j += 4) {
      const v128_t e = exp2_neg4(wasm_f32x4_mul(wasm_f32x4_sub(wasm_v128_load(s + j), vm), vls));
      wasm_v128_store(s + j, e);
      sum = wasm_f32x4_add(sum, e);
    }
    float tail = 0.f;
    for (; j < n; ++j) {
      const float e = exp2_neg((s[j] - m) * ls);
      s[j] = e;
      tail = tail + e;
    }
    return ((wasm_f32x4_extract_lane(sum, 0) + wasm_f32x4_extract_lane(sum, 1)) +
            (wasm_f32x4_extract_lane(sum, 2) + wasm_f32x4_extract_lane(sum, 3))) +
           tail;
  }

  static void scale(float* s, int n, float k) {
    const v128_t vk = wasm_f32x4_splat(k);
    int j = 0;
    for (; j + 4 <= n; j += 4) wasm_v128_store(s + j, wasm_f32x4_mul(wasm_v128_load(s + j), vk));
    for (; j < n; ++j) s[j] = s[j] * k;
  }

  // o[r][0..C) = c[r]·o[r] + Σ_j p[r·kBC + j]·v[j·ldv + 0..C), C / 4 f32x4 per row, in the scalar twin's order.
  template <int C>
  static void pv_tile(const float* p, int nj, const float* v, int ldv, float* const o[kMR], const float c[kMR]) {
    constexpr int W = C / 4;
    v128_t acc[kMR][W];
    for (int r = 0; r < kMR; ++r) {
      const v128_t cr = wasm_f32x4_splat(c[r]);
      for (int x = 0; x < W; ++x) acc[r][x] = wasm_f32x4_mul(wasm_v128_load(o[r] + 4 * x), cr);
    }
    for (int j = 0; j < nj; ++j, ++p, v += ldv) {
      v128_t b[W];
      for (int x = 0; x < W; ++x) b[x] = wasm_v128_load(v + 4 * x);
      for (int r = 0; r < kMR; ++r) {
        const v128_t a = wasm_v128_load32_splat(p + r * kBC);
        for (int x = 0; x < W; ++x) acc[r][x] = madd(acc[r][x], a, b[x]);
      }
    }
    for (int r = 0; r < kMR; ++r)
      for (int x = 0; x < W; ++x) wasm_v128_store(o[r] + 4 * x, acc[r][x]);
  }
};

}  // namespace

AP_KERNEL_ENTRY_POINTS(SimdOps)

int tile_rows() noexcept { return kMR; }

void qk_tile_repeat(const float* qp, const float* kt, int d, float* out, int reps) noexcept {
  for (int r = 0; r < reps; ++r) SimdOps::qk_tile(qp, kt, d, out, kNR);
}

void pv_tile_repeat(const float* p, int nj, const float* v, float* o, int reps) noexcept {
  float* rows[kMR];
  float one[kMR];
  for (int r = 0; r < kMR; ++r) {
    rows[r] = o + r * kNR;
    one[r] = 1.f;
  }
  for (int r = 0; r < reps; ++r) SimdOps::pv_tile<8>(p, nj, v, kNR, rows, one);
}

}  // namespace ap::kernels::simd

#endif  // __wasm_simd128__
