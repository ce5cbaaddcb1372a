// Shared by the scalar and SIMD128 kernels: tile sizes, the workspace layout and the exp
// approximation, so that both twins run the same arithmetic in the same order.
#pragma once

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <cstring>

namespace ap::kernels::detail {

// Register tile: kMR rows × 8 columns = 2·kMR f32x4 accumulators, plus 2 loads of K (or V) and one broadcast of Q
// (or P) at a time. Flash blocks: kBR query rows (a multiple of kMR) share one pass over each block of keys, kBC keys
// wide for d <= 64 and kBC / 2 above, so that the block's packed K (keys × d floats) stays near 32 KiB of L1/L2
// while the kBR rows reuse it.
// Each engine has its own tile and row block (kTileOf<Engine>), chosen by interleaved A/B runs (bench/tile-sweep.mjs
// in Node, bench/ab_page.mjs in Chromium; the tables are in docs/perf-notes.md): SIMD128 (mul + add)
// runs 4 × 8 (Chromium: 1.21–1.85× the 6 × 8 tile's speed), relaxed SIMD (FMA) keeps 6 × 8 (4 × 8 ran 0.89–0.98× of
// it in Chromium, where that engine runs). None of this changes a result: every output cell is summed over the same
// terms in the same order whatever the tile or the row block (kBC, which sets where the online softmax rescales, is
// the same for all engines). The row block stays 36 (a multiple of both tiles): it is also flashTrace's largest
// blockRows, a public contract. AP_TILE_ROWS / AP_FLASH_BR override the engine's entry only for the sweep.
enum class Engine { scalar, simd128, relaxed };
// The fused kernel packs V in panels of 8 columns (pack_values) for SIMD128, where it measured faster in Node and
// Chromium at n = 512 and 2048; not for relaxed SIMD, where Chromium measured it 0.98× at n = 512
// (docs/perf-notes.md). The scalar twin natively packs, so that the native tests run that path.
struct TileShape {
  int rows;         // kMR
  int blockRows;    // kBR
  bool packValues;  // kPackV
};
template <Engine E>
inline constexpr TileShape kTileOf = {6, 36, true};  // the scalar twin natively (GCC's vectorized 8-wide rows)
template <>
inline constexpr TileShape kTileOf<Engine::simd128> = {4, 36, true};
template <>
inline constexpr TileShape kTileOf<Engine::relaxed> = {6, 36, false};
#if defined(__wasm_relaxed_simd__)
constexpr Engine kEngine = Engine::relaxed;
#elif defined(__wasm_simd128__)
constexpr Engine kEngine = Engine::simd128;
#else
constexpr Engine kEngine = Engine::scalar;
#endif
#ifdef AP_TILE_ROWS
constexpr int kMR = AP_TILE_ROWS;
#else
constexpr int kMR = kTileOf<kEngine>.rows;
#endif
#ifdef AP_FLASH_BR
constexpr int kBR = AP_FLASH_BR;
#else
constexpr int kBR = kTileOf<kEngine>.blockRows;
#endif
#ifdef AP_PACK_V
constexpr bool kPackV = AP_PACK_V;
#else
constexpr bool kPackV = kTileOf<kEngine>.packValues;
#endif
constexpr int kNR = 8;
// Overridable only to let bench/wasm_harness sweep it: it changes the bits (where the online softmax rescales).
#ifndef AP_FLASH_BC
#define AP_FLASH_BC 128
#endif
constexpr int kBC = AP_FLASH_BC;
static_assert(kBR % kMR == 0 && kBC % kNR == 0, "flash blocks must be whole tiles");
// qkt packs K in blocks of kQB keys × at most kDC dims on the stack (64 KiB) because it gets
// no workspace; larger d is summed over chunks.
constexpr int kQB = 64;
constexpr int kDC = 256;
// weights_v walks V in blocks of kJB rows so a block stays in cache across all row groups; a row group's
// weights for one block are copied to a tile of stride kBC (pv_tile's row stride) first.
constexpr int kJB = 256;

constexpr float kLog2e = 1.44269504088896341f;

inline long long round_up(long long x, long long m) { return (x + m - 1) / m * m; }

// Layout: the scratch of one call (the S/P tile, the per-row running max, running sum and rescale
// factor, a scratch output row for the tail rows of a block past nq, the block's rows of Q packed for the
// tile: kBR / kMR groups of [d][kMR]), then packed Kᵀ (panels of kNR keys, [d][kNR] each, zero-padded), then
// (kPackV) V packed for the fused kernel (panels of kNR columns, [nk][kNR] each, zero past dv).
// Scratch first, so that threads sharing one packed K and V each need only `kt` floats of their own.
struct FlashLayout {
  long long s = 0, m = 0, l = 0, c = 0, orow = 0, qp = 0, kt = 0, vt = 0, total = 0;
};

inline FlashLayout flash_layout(int nk, int d, int dv) {
  FlashLayout f;
  f.s = 0;
  f.m = f.s + static_cast<long long>(kBR) * kBC;
  f.l = f.m + kBR;
  f.c = f.l + kBR;
  f.orow = f.c + kBR;
  f.qp = round_up(f.orow + round_up(dv > 0 ? dv : 0, kNR) + kNR, 4);
  f.kt = f.qp + static_cast<long long>(kBR) * (d > 0 ? d : 0);
  f.vt = f.kt + round_up(nk > 0 ? nk : 0, kNR) * (d > 0 ? d : 0);
  f.total = f.vt + (kPackV ? static_cast<long long>(nk > 0 ? nk : 0) * round_up(dv > 0 ? dv : 0, kNR) : 0);
  return f;
}

inline long long flash_workspace_floats(int, int nk, int d, int dv) noexcept { return flash_layout(nk, d, dv).total; }

// gemm's blocking: k is summed kGemmKC at a time (a panel of packed B, kGemmKC × 8 floats, stays in L1 while every
// row group of the A block passes over it), and A is packed a block of about kGemmABlock floats at a time (kMR-row
// groups, [kc][kMR] each: the tile reads them through one pointer at constant offsets), so that the block stays in
// L2 across all of B's panels. Neither changes a result: every cell sums its k terms in order.
constexpr int kGemmKC = 256;
constexpr int kGemmABlock = 16384;
#ifndef AP_GEMM_IN_PLACE
#define AP_GEMM_IN_PLACE 1
#endif
constexpr bool kGemmInPlace = AP_GEMM_IN_PLACE;
inline int gemm_kc(int k) { return k < kGemmKC ? (k > 0 ? k : 1) : kGemmKC; }
inline int gemm_mc(int k) {
  const int g = kGemmABlock / gemm_kc(k) / kMR;
  return (g > 1 ? g : 1) * kMR;
}
// Layout of gemm's workspace: one A block (the scratch a thread needs of its own), then B packed whole: ceil(n / 8)
// panels of [k][8], zero past n.
struct GemmLayout {
  long long a = 0, b = 0, total = 0;
};
inline GemmLayout gemm_layout(int n, int k) {
  GemmLayout g;
  const long long kk = k > 0 ? k : 0;
  g.b = static_cast<long long>(gemm_mc(k)) * gemm_kc(k);
  g.total = g.b + round_up(n > 0 ? n : 0, kNR) * kk;
  return g;
}

inline std::uint32_t bits_of(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}
inline float float_of(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

// 2^t for t <= 0 (the softmax only ever exponentiates max-subtracted values). Cephes exp2f:
// t = n + f with n = round(t), |f| <= 1/2, 2^f = 1 + f·P(f) (relative error ~2e-7), 2^n put
// straight into the exponent bits. The rounding uses the 1.5·2^23 trick, whose low mantissa
// bits then hold n + 127, so no float->int conversion is needed (SIMD128's trunc_sat is slow
// on x86). Below -126 the result would be subnormal (< 1.2e-38); it is returned as 0, as are
// -inf and NaN inputs (a masked cell times a zero inverse temperature).
constexpr float kExpMagic = 12582912.0f + 127.0f;
constexpr float kP0 = 1.535336188319500e-4f;
constexpr float kP1 = 1.339887440266574e-3f;
constexpr float kP2 = 9.618437357674640e-3f;
constexpr float kP3 = 5.550332471162809e-2f;
constexpr float kP4 = 2.402264791363012e-1f;
constexpr float kP5 = 6.931472028550421e-1f;
constexpr float kExpMin = -126.0f;

inline float exp2_neg(float t) {
  const float v = t + kExpMagic;
  const float n = v - kExpMagic;
  const float f = t - n;
  float p = kP0;
  p = p * f + kP1;
  p = p * f + kP2;
  p = p * f + kP3;
  p = p * f + kP4;
  p = p * f + kP5;
  p = p * f;
  p = p + 1.0f;
  const float scale = float_of(bits_of(v) << 23);
  const float r = p * scale;
  return t > kExpMin ? r : 0.0f;
}

// erf(x) for GELU: Eigen 3.4's generic_fast_erf_float (a 13/8-degree rational interpolant, "accurate up to a couple
// of ulp" on [-4, 4], ±1 outside), written out so that the SIMD version (erf4) runs the same steps lane by lane.
constexpr float kErfA1 = -1.60960333262415e-02f, kErfA3 = -2.95459980854025e-03f, kErfA5 = -7.34990630326855e-04f,
                kErfA7 = -5.69250639462346e-05f, kErfA9 = -2.10102402082508e-06f, kErfA11 = 2.77068142495902e-08f,
                kErfA13 = -2.72614225801306e-10f;
constexpr float kErfB0 = -1.42647390514189e-02f, kErfB2 = -7.37332916720468e-03f, kErfB4 = -1.68282697438203e-03f,
                kErfB6 = -2.13374055278905e-04f, kErfB8 = -1.45660718464996e-05f;
constexpr float kSqrtHalf = 0.70710678118654752f;    // GELU's x / √2
constexpr float kInvSqrt2Pi = 0.39894228040143268f;  // the normal density's 1 / √(2π)

inline float erf_approx(float a) {
  const float x = std::max(std::min(a, 4.f), -4.f);
  const float x2 = x * x;
  float p = x2 * kErfA13 + kErfA11;
  p = x2 * p + kErfA9;
  p = x2 * p + kErfA7;
  p = x2 * p + kErfA5;
  p = x2 * p + kErfA3;
  p = x2 * p + kErfA1;
  p = x * p;
  float q = x2 * kErfB8 + kErfB6;
  q = x2 * q + kErfB4;
  q = x2 * q + kErfB2;
  q = x2 * q + kErfB0;
  return p / q;
}

// torch.nn.GELU() (exact): x·Φ(x), Φ(x) = (1 + erf(x / √2)) / 2; and its derivative Φ(x) + x·φ(x).
inline float gelu_of(float x) { return 0.5f * x * (1.f + erf_approx(x * kSqrtHalf)); }
inline float gelu_slope(float x) {
  const float cdf = 0.5f * (1.f + erf_approx(x * kSqrtHalf));
  const float pdf = kInvSqrt2Pi * exp2_neg(-0.5f * x * x * kLog2e);
  return cdf + x * pdf;
}

}  // namespace ap::kernels::detail
