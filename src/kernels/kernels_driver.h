// The blocking, masking and tail handling of every kernel, written once as templates over an
// `Ops` type that supplies the inner loops (scalar in kernels_scalar.cpp, SIMD128 in
// kernels_simd.cpp). Sharing the drivers keeps the two twins doing the same arithmetic in the
// same order, which is why they agree to ~1e-7 rather than merely 1e-5.
//
// Ops provides:
//   qk_tile(qp, kt, d, out, ldo)    out[r*ldo + c] = Σ_t qp[t*kMR + r]·kt[t*8 + c], r < kMR, c < 8
//   scale_max(s, n, alpha)          s[j] = min(alpha·s[j], FLT_MAX); returns max_j s[j]
//   copy_max(src, s, n)             s[j] = src[j]; returns max_j src[j] (finite inputs)
//   exp_sum(s, n, m, ls)            s[j] = 2^((s[j] - m)·ls); returns Σ s[j]
//   scale(s, n, k)                  s[j] *= k
//   pv_tile<C>(p, nj, v, ldv, o[kMR], c[kMR])  o[r][0..C) = c[r]·o[r] + Σ_j p[r*kBC + j]·v[j*ldv + 0..C),
//                                              C = 8 or 4 (v: V itself, ldv = dv, or a panel of packed V, ldv = 8)
//   gelu(x, y, n), gelu_backward(x, dy, dx, n)   y = GELU(x), dx = dy·GELU'(x) (detail::gelu_of, gelu_slope)
//   gemm_tile(ap, as, bp, k, c, ldc, load)  c[r*ldc + x] = (load ? c[r*ldc + x] : 0) + Σ_t ap[t*as + r]·bp[t*8 + x],
//                                       r < kMR, x < 8, the terms added in order of t (qk_tile's loop onto C)
//   pack_rows(a, rs, rows, kc, dst)    dst[t*kMR + r] = a[min(r, rows - 1)*rs + t], r < kMR, t < kc (pack_q's copy)
// Both tiles read their left operand through one pointer at constant offsets (Q packed as [d][kMR], P rows at
// the fixed stride kBC): a wasm load takes one address plus a constant, so kMR row pointers would cost kMR
// integer adds per step of the loop, beside its 2·kMR FMAs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels.h"
#include "kernels_internal.h"

namespace ap::kernels::detail {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Inlined into each kernel, whatever the compiler's budget says, so that each kernel's own body holds its
// SIMD loops (tests/integration/package-pack.test.ts counts them per function).
#if defined(__clang__) || defined(__GNUC__)
#define AP_INLINE inline __attribute__((always_inline))
#else
#define AP_INLINE inline
#endif

// Columns past the last multiple of 4: plain loops, the same order of operations as the tiles.
inline void pv_tile_tail(const float* p, int nj, const float* v, int ldv, float* const o[kMR], const float c[kMR],
                         int cols) {
  for (int r = 0; r < kMR; ++r)
    for (int x = 0; x < cols; ++x) {
      float acc = o[r][x] * c[r];
      for (int j = 0; j < nj; ++j) acc = acc + p[r * kBC + j] * v[static_cast<long long>(j) * ldv + x];
      o[r][x] = acc;
    }
}

// p: kMR rows of weights at stride kBC, nj <= kBC of them used. v: key j's column x is v[j·ldv + (x / kNR)·ps +
// x % kNR]: V itself (ldv = dv, ps = kNR) or V packed in panels of kNR columns (ldv = kNR, ps = a panel's floats,
// pack_values). One out-of-line copy per Ops, called by the flash, weights and weights_v kernels (a call per tile
// row group and block of keys, against thousands of multiply-adds): with the 4 × 8 tile clang would inline it into
// each of them.
#if defined(__clang__) || defined(__GNUC__)
#define AP_NOINLINE __attribute__((noinline))
#else
#define AP_NOINLINE
#endif
template <class Ops>
AP_NOINLINE void pv_rows(const float* p, int nj, const float* v, int ldv, long long ps, float* const o[kMR],
                         const float c[kMR], int dv) {
  float* ox[kMR];
  const auto at = [&](int x) {
    for (int r = 0; r < kMR; ++r) ox[r] = o[r] + x;
    return ox;
  };
  const auto col = [&](int x) { return v + (x / kNR) * ps + x % kNR; };
  int x = 0;
  for (; x + 8 <= dv; x += 8) Ops::template pv_tile<8>(p, nj, col(x), ldv, at(x), c);
  if (x + 4 <= dv) {
    Ops::template pv_tile<4>(p, nj, col(x), ldv, at(x), c);
    x += 4;
  }
  if (x < dv) pv_tile_tail(p, nj, col(x), ldv, at(x), c, dv - x);
}

// O(n·d) work against the O(n²·d) of the tiles: built for size (clang's -O3 unrolled it to
// 5 KiB of wasm, a tenth of the kernels' share of the .wasm budget).
#if defined(__clang__)
#define AP_COLD __attribute__((minsize, noinline))
#else
#define AP_COLD
#endif

// Packs kMR rows of Q from row `first` (row stride ld), dims [t0, t0 + d), as [d][kMR], the layout qk_tile reads.
// Only `rows` of them are real: the rest repeat the last real row (computed, never stored).
AP_COLD inline void pack_q(const float* Q, int ld, int first, int rows, int t0, int d, float* dst) {
  for (int r = 0; r < kMR; ++r) {
    const float* q = Q + static_cast<long long>(first + std::min(r, rows - 1)) * ld + t0;
    for (int t = 0; t < d; ++t) dst[t * kMR + r] = q[t];
  }
}

// Packs keys [j0, j0 + 8) × dims [t0, t0 + dc) of K (row stride d) as [dc][8], zero past nk.
AP_COLD inline void pack_panel(const float* K, int nk, int d, int j0, int t0, int dc, float* dst) {
  for (int c = 0; c < kNR; ++c) {
    const int j = j0 + c;
    if (j < nk) {
      const float* src = K + static_cast<long long>(j) * d + t0;
      for (int t = 0; t < dc; ++t) dst[t * kNR + c] = src[t];
    } else {
      for (int t = 0; t < dc; ++t) dst[t * kNR + c] = 0.f;
    }
  }
}

template <class Ops>
void qkt_driver(const float* Q, const float* K, float* S, int nq, int nk, int d, float alpha) {
  if (nq <= 0 || nk <= 0) return;
  if (d <= 0) {
    std::fill(S, S + static_cast<long long>(nq) * nk, 0.f);
    return;
  }
  alignas(16) float pack[kQB * kDC];
  alignas(16) float qp[kMR * kDC];
  alignas(16) float tile[kMR * kNR];
  const int chunks = (d + kDC - 1) / kDC;
  for (int j0 = 0; j0 < nk; j0 += kQB) {
    const int bc = std::min(kQB, nk - j0);
    const int panels = (bc + kNR - 1) / kNR;
    for (int ch = 0; ch < chunks; ++ch) {
      const int t0 = ch * kDC;
      const int dc = std::min(kDC, d - t0);
      for (int p = 0; p < panels; ++p) pack_panel(K, nk, d, j0 + p * kNR, t0, dc, pack + p * kNR * dc);
      const bool first = ch == 0, last = ch == chunks - 1;
      for (int i0 = 0; i0 < nq; i0 += kMR) {
        const int rows = std::min(kMR, nq - i0);
        pack_q(Q, d, i0, rows, t0, dc, qp);
        for (int p = 0; p < panels; ++p) {
          Ops::qk_tile(qp, pack + p * kNR * dc, dc, tile, kNR);
          const int cols = std::min(kNR, bc - p * kNR);
          for (int r = 0; r < rows; ++r) {
            float* s = S + static_cast<long long>(i0 + r) * nk + j0 + p * kNR;
            const float* a = tile + r * kNR;
            for (int c = 0; c < cols; ++c) {
              const float prev = first ? 0.f : s[c];
              const float sum = first ? a[c] : prev + a[c];
              s[c] = last ? alpha * sum : sum;
            }
          }
        }
      }
    }
  }
}

// One row's softmax over its first lim cells, s[j] = alpha·s[j] first; cells [lim, n) are masked and get 0,
// and so does a row whose every score is -inf.
template <class Ops>
void softmax_row(float* s, int lim, int n, float alpha, float ls) {
  const float m = Ops::scale_max(s, lim, alpha);
  if (m == kNegInf) {
    std::fill(s, s + n, 0.f);
    return;
  }
  const float sum = Ops::exp_sum(s, lim, m, ls);
  Ops::scale(s, lim, 1.0f / sum);
  std::fill(s + lim, s + n, 0.f);
}

template <class Ops>
void softmax_driver(float* S, int nq, int nk, float invTemp) {
  if (nk <= 0) return;
  const float ls = invTemp * kLog2e;
  for (int i = 0; i < nq; ++i) softmax_row<Ops>(S + static_cast<long long>(i) * nk, nk, nk, 1.0f, ls);
}

// O rows [i0, i0 + rows) += W rows · V rows [j0, j0 + jb), rows <= kMR, for one block of keys (W row stride ldw).
// Trailing zero weights (causal rows, masked keys) add nothing: the sum stops before them.
template <class Ops>
AP_INLINE void pv_block(const float* W, int ldw, const float* V, float* O, int i0, int rows, int j0, int jb, int dv) {
  alignas(16) float scratch[kNR];   // sink for the rows past the last one of a short row group
  alignas(16) float pt[kMR * kBC];  // the rows' weights at pv_tile's stride
  float one[kMR];
  std::fill(one, one + kMR, 1.f);
  const float* p[kMR];
  float* o[kMR];
  for (int r = 0; r < kMR; ++r) {
    p[r] = W + static_cast<long long>(i0 + std::min(r, rows - 1)) * ldw + j0;
    o[r] = r < rows ? O + static_cast<long long>(i0 + r) * dv : nullptr;
  }
  const auto zeroColumn = [&](int j) {
    for (int r = 0; r < kMR; ++r)
      if (p[r][j] != 0.f) return false;
    return true;
  };
  int nj = jb;
  while (nj > 0 && zeroColumn(nj - 1)) --nj;
  // kBC keys at a time; the sum goes on in O (stored and reloaded exactly), so the bits are those of one pass.
  for (int k0 = 0; k0 < nj; k0 += kBC) {
    const int kb = std::min(kBC, nj - k0);
    for (int r = 0; r < kMR; ++r) std::copy(p[r] + k0, p[r] + k0 + kb, pt + r * kBC);
    const float* v = V + static_cast<long long>(j0 + k0) * dv;
    if (rows == kMR) {
      pv_rows<Ops>(pt, kb, v, dv, kNR, o, one, dv);
      continue;
    }
    // The scratch row is only 8 wide: walk the columns in 8s so each tile has its own sink.
    for (int x = 0; x < dv; x += kNR) {
      const int w = std::min(kNR, dv - x);
      float* ox[kMR];
      for (int r = 0; r < kMR; ++r) ox[r] = r < rows ? o[r] + x : scratch;
      pv_rows<Ops>(pt, kb, v + x, dv, kNR, ox, one, w);
    }
  }
}

template <class Ops>
void weights_v_driver(const float* W, const float* V, float* O, int nq, int nk, int dv) {
  if (nq <= 0 || dv <= 0) return;
  std::fill(O, O + static_cast<long long>(nq) * dv, 0.f);
  if (nk <= 0) return;
  for (int j0 = 0; j0 < nk; j0 += kJB) {
    const int jb = std::min(kJB, nk - j0);
    for (int i0 = 0; i0 < nq; i0 += kMR) pv_block<Ops>(W, nk, V, O, i0, std::min(kMR, nq - i0), j0, jb, dv);
  }
}

// Packs all of K (row stride d) as panels of kNR keys, [d][kNR] each, zero past nk: what the flash and
// weights drivers stream for every block of query rows.
AP_COLD inline void pack_keys(const float* K, int nk, int d, float* kt) {
  const int panels = (nk + kNR - 1) / kNR;
  for (int p = 0; p < panels; ++p) pack_panel(K, nk, d, p * kNR, 0, d, kt + static_cast<long long>(p) * kNR * d);
}

// K packed as the drivers stream it: the caller's packing (threads share one), or packed here into ws.
inline const float* packed_keys(const float* K, int nk, int d, int dv, float* ws, const float* packedK) {
  if (packedK) return packedK;
  float* kt = ws + flash_layout(nk, d, dv).kt;
  pack_keys(K, nk, d, kt);
  return kt;
}

// Packs V (row stride dv) as ceil(dv / kNR) panels of kNR columns, [nk][kNR] each, zero past dv, panel x / kNR at
// x · nk: pv_tile then walks a block's keys as contiguous 32-byte rows, where in V itself it reads 8 floats out of
// every row (a new cache line per key, dv = 64), and the block's keys of one panel are 4 KiB instead of 32. Not
// built for size like the other packing, and 32 bytes per memcpy: at -Os (a float at a time) it took 0.065 ms at
// n = 512, dv = 64, 2–3 % of the call; now about what packing K takes.
inline void pack_values(const float* V, int nk, int dv, float* vt) {
  const int whole = dv / kNR * kNR;
  for (int j = 0; j < nk; ++j) {
    const float* src = V + static_cast<long long>(j) * dv;
    float* dst = vt + static_cast<long long>(j) * kNR;
    for (int x0 = 0; x0 < whole; x0 += kNR)
      std::memcpy(dst + static_cast<long long>(x0) * nk, src + x0, sizeof(float) * kNR);
    if (whole < dv)
      for (int c = 0; c < kNR; ++c) dst[static_cast<long long>(whole) * nk + c] = whole + c < dv ? src[whole + c] : 0.f;
  }
}

// V packed (pack_values) for the fused kernel: by the caller, after its packed K (the tail of a workspace from
// flash_layout's kt on, which the threads share), or here into ws.
inline const float* packed_values(const float* V, int nk, int d, int dv, float* ws, const float* packedK) {
  const FlashLayout L = flash_layout(nk, d, dv);
  if (packedK) return packedK + (L.vt - L.kt);
  pack_values(V, nk, dv, ws + L.vt);
  return ws + L.vt;
}

// The weights path (needWeights): W = softmax(alpha·Q·Kᵀ / T, causal: j > q0 + i masked) and O = W·V, for blocks
// of kBR query rows at a time, so that a block's rows of W are written once, straight into the caller's buffer,
// and summed over V while they are still in cache (rather than three passes over the whole nq×nk matrix). The
// arithmetic is qkt's, softmax_rows' and weights_v's, in the same order; masked keys stay out of the max and the
// sum and get weight 0. workspace: flash_workspace_floats(nq, nk, d, dv).
template <class Ops>
void weights_driver(const float* Q, const float* K, const float* V, float* W, float* O, int nq, int nk, int d, int dv,
                    float alpha, float invTemp, bool causal, float* ws, int q0, const float* packedK) {
  if (nq <= 0) return;
  if (dv > 0) std::fill(O, O + static_cast<long long>(nq) * dv, 0.f);
  if (nk <= 0) return;
  const int dd = d > 0 ? d : 0;
  const float* kt = packed_keys(K, nk, dd, dv, ws, packedK);
  float* qp = ws + flash_layout(nk, d, dv).qp;
  alignas(16) float tile[kMR * kNR];
  const float ls = invTemp * kLog2e;
  for (int i0 = 0; i0 < nq; i0 += kBR) {
    const int rows = std::min(kBR, nq - i0);
    const int kEnd = causal ? std::min(nk, q0 + i0 + rows) : nk;
    const int panels = (kEnd + kNR - 1) / kNR;
    for (int r0 = 0; r0 < rows; r0 += kMR) {
      const int rowsHere = std::min(kMR, rows - r0);
      pack_q(Q, dd, i0 + r0, rowsHere, 0, dd, qp);
      float* w = W + static_cast<long long>(i0 + r0) * nk;
      for (int p = 0; p < panels; ++p) {
        const int cols = std::min(kNR, kEnd - p * kNR);
        const float* panel = kt + static_cast<long long>(p) * kNR * dd;
        if (rowsHere == kMR && cols == kNR) {
          Ops::qk_tile(qp, panel, dd, w + p * kNR, nk);
          continue;
        }
        Ops::qk_tile(qp, panel, dd, tile, kNR);  // an edge tile: only its real rows and columns are kept
        for (int r = 0; r < rowsHere; ++r) std::copy(tile + r * kNR, tile + r * kNR + cols, w + r * nk + p * kNR);
      }
    }
    for (int r = 0; r < rows; ++r)
      softmax_row<Ops>(W + static_cast<long long>(i0 + r) * nk, causal ? std::min(nk, q0 + i0 + r + 1) : nk, nk, alpha,
                       ls);
    if (dv <= 0) continue;
    for (int j0 = 0; j0 < kEnd; j0 += kJB) {
      const int jb = std::min(kJB, kEnd - j0);
      for (int r0 = 0; r0 < rows; r0 += kMR) pv_block<Ops>(W, nk, V, O, i0 + r0, std::min(kMR, rows - r0), j0, jb, dv);
    }
  }
}

// The fused kernel's blocking: br query rows share one pass over each block of bc keys. The kernel runs kBR × kBC
// (kBC / 2 above d = 64); flash_trace runs the same loops with the small blocks a learner can follow.
// window > 0: a sliding window, row i (of the whole query) sees keys i - window < j <= i, plus keys j < sinks.
struct FlashShape {
  int br = kBR, bc = kBC;
  int window = 0, sinks = 0;
};

// K packed for blocks of bc keys: each block as ceil(bc / kNR) panels, zero past its end. For bc a multiple of kNR
// this is pack_keys' layout, panel p of the whole K at p · kNR · d.
inline long long blocked_panel(int j0, int bc, int p) {
  return static_cast<long long>(j0 / bc) * ((bc + kNR - 1) / kNR) + p;
}

AP_COLD inline void pack_keys_blocked(const float* K, int nk, int d, int bc, float* kt) {
  const int per = (bc + kNR - 1) / kNR;
  for (int j0 = 0; j0 < nk; j0 += bc)
    for (int p = 0; p < per; ++p)
      pack_panel(K, std::min(nk, j0 + bc), d, j0 + p * kNR, 0, d, kt + blocked_panel(j0, bc, p) * kNR * d);
}

// One row's online-softmax update for one tile: folds the tile's scores s[0, bc) (cells [lim, bc) are past the
// causal limit, [sk, lo) outside the window and not sinks) into the running max m and sum l; cf gets the factor by
// which the row's partial output must shrink (exp(m_old - m_new)), and s the tile's unnormalised weights.
template <class Ops>
AP_INLINE void online_row(float* s, int lim, int lo, int sk, int bc, float alpha, float ls, float& m, float& l,
                          float& cf) {
  float mb = lim > lo ? Ops::scale_max(s + lo, lim - lo, alpha) : kNegInf;
  if (sk > 0) mb = std::max(mb, Ops::scale_max(s, sk, alpha));
  const float mn = std::max(m, mb);
  if (lim <= 0 || (lim <= lo && sk <= 0) || mn == kNegInf) {  // nothing to add (yet) in this tile
    cf = 1.f;
    std::fill(s, s + bc, 0.f);
    return;
  }
  std::fill(s + sk, s + lo, kNegInf);  // exp_sum turns -inf into 0
  const float corr = exp2_neg((m - mn) * ls);
  const float sum = Ops::exp_sum(s, lim, mn, ls);
  std::fill(s + lim, s + bc, 0.f);
  l = l * corr + sum;
  cf = corr;
  m = mn;
}

// record (flash_trace; null for the kernel, one test per tile) sees the state after each tile. vt, ldv, ps: V as
// pv_rows reads it (V itself, or packed).
template <class Ops>
AP_INLINE void flash_blocks(const float* Q, const float* kt, const float* vt, int ldv, long long ps, float* O, int nq,
                            int nk, int d, int dv, float alpha, float invTemp, bool causal, float* ws, int q0,
                            const FlashShape& fs, FlashRecord record, void* ctx) {
  // q0: the index of Q's first row in the whole query (a thread's share of the rows): the causal
  // mask is j > q0 + i. Rows never depend on each other, so a split gives the same bits.
  const FlashLayout L = flash_layout(nk, d, dv);
  float* S = ws + L.s;
  float* m = ws + L.m;
  float* l = ws + L.l;
  float* cf = ws + L.c;
  float* orow = ws + L.orow;
  float* qp = ws + L.qp;
  const int dd = d > 0 ? d : 0;
  const float ls = invTemp * kLog2e;
  const int block = fs.bc;  // keys per block; S rows keep the stride kBC
  const int window = fs.window, sinks = fs.window > 0 ? fs.sinks : 0;

  for (int i0 = 0; i0 < nq; i0 += fs.br) {
    const int rows = std::min(fs.br, nq - i0);
    const int groups = (rows + kMR - 1) / kMR;
    const int g0 = q0 + i0;  // the block's first row in the whole query
    for (int r = 0; r < kBR; ++r) {
      m[r] = kNegInf;
      l[r] = 0.f;
      cf[r] = 1.f;
    }
    for (int g = 0; g < groups; ++g)
      pack_q(Q, dd, i0 + g * kMR, rows - g * kMR, 0, dd, qp + static_cast<long long>(g) * kMR * dd);
    // Causal: keys past the block's last row are masked for every row of it; skip those tiles. Window: so are
    // keys at or before g0 - window (the first row's window starts after them), except the sinks.
    const int kEnd = causal ? std::min(nk, g0 + rows) : nk;
    const int kStart = window > 0 ? std::max(0, g0 - window + 1) : 0;
    for (int j0 = 0; j0 < kEnd; j0 += block) {
      const int bc = std::min(block, kEnd - j0);
      if (j0 + bc <= kStart && j0 >= sinks) continue;
      const int panels = (bc + kNR - 1) / kNR;
      for (int g = 0; g < groups; ++g) {
        const int r0 = g * kMR;
        for (int p = 0; p < panels; ++p)
          Ops::qk_tile(qp + static_cast<long long>(r0) * dd, kt + blocked_panel(j0, block, p) * kNR * dd, dd,
                       S + r0 * kBC + p * kNR, kBC);
      }
      // Online softmax: fold this block into each row's running max and sum, remembering the
      // factor by which the row's partial output must shrink when the max grew.
      for (int r = 0; r < groups * kMR; ++r) {
        const int gi = g0 + r;
        const int lim = r >= rows ? 0 : causal ? std::min(bc, gi - j0 + 1) : bc;
        const int lo = window > 0 ? std::min(std::max(gi - window + 1 - j0, 0), std::max(lim, 0)) : 0;
        const int sk = std::min(std::max(sinks - j0, 0), lo);
        online_row<Ops>(S + r * kBC, lim, lo, sk, bc, alpha, ls, m[r], l[r], cf[r]);
      }
      for (int g = 0; g < groups; ++g) {
        const int r0 = g * kMR;
        const int rowsHere = std::min(kMR, rows - r0);
        // Causal: in a diagonal tile the group's last row sees the most keys.
        const int nj = causal ? std::min(bc, g0 + r0 + rowsHere - 1 - j0 + 1) : bc;
        float* o[kMR];
        for (int r = 0; r < kMR; ++r) o[r] = r < rowsHere ? O + static_cast<long long>(i0 + r0 + r) * dv : orow;
        if (nj <= 0) continue;  // all factors are 1 and all weights 0
        pv_rows<Ops>(S + r0 * kBC, nj, vt + static_cast<long long>(j0) * ldv, ldv, ps, o, cf + r0, dv);
      }
      if (record) record(ctx, i0, rows, j0, bc, m, l, O + static_cast<long long>(i0) * dv);
    }
    for (int r = 0; r < rows; ++r) {
      float* o = O + static_cast<long long>(i0 + r) * dv;
      // l == 0 only for a row with no finite score: its output is 0, never NaN.
      Ops::scale(o, dv, l[r] > 0.f ? 1.0f / l[r] : 0.f);
    }
  }
}

// The workspace of a trace with blocks of bc keys: K packed per block (ceil(bc / kNR) panels each), then (kPackV) V
// packed as for the kernel (flash_trace_vt floats in).
inline long long flash_trace_vt(int nk, int d, int dv, int bc) {
  const FlashLayout L = flash_layout(nk, d, dv);
  const long long blocks = bc > 0 ? (static_cast<long long>(nk) + bc - 1) / bc : 0;
  return L.kt + blocks * ((bc + kNR - 1) / kNR) * kNR * (d > 0 ? d : 0);
}
inline long long flash_trace_workspace_floats(int nk, int d, int dv, int bc) {
  const FlashLayout L = flash_layout(nk, d, dv);
  return flash_trace_vt(nk, d, dv, bc) + (L.total - L.vt);
}

// The fused kernel; with `trace` (flash_trace), the same code with the trace's blocks, recording after each tile
// (one copy of the loops in the module, and the trace is the kernel's own code).
template <class Ops>
void flash_driver(const float* Q, const float* K, const float* V, float* O, int nq, int nk, int d, int dv, float alpha,
                  float invTemp, bool causal, float* ws, int q0, const float* packedK, int window, int sinks,
                  const FlashTraceSpec* trace) {
  if (nq <= 0 || dv <= 0) return;
  if (trace && (trace->br < 1 || trace->br > kBR || trace->bc < 1 || trace->bc > kBC)) return;
  std::fill(O, O + static_cast<long long>(nq) * dv, 0.f);
  if (nk <= 0) return;
  const int dd = d > 0 ? d : 0;
  FlashShape fs;
  fs.bc = dd <= 64 ? kBC : kBC / 2;
  fs.window = window;
  fs.sinks = sinks;
  const float* kt;
  const float* vt = V;  // V itself unless kPackV
  int ldv = dv;
  long long ps = kNR;
  if (trace) {
    fs.br = trace->br;
    fs.bc = trace->bc;
    float* packed = ws + flash_layout(nk, d, dv).kt;
    pack_keys_blocked(K, nk, dd, fs.bc, packed);
    kt = packed;
    if (kPackV) {
      float* packedV = ws + flash_trace_vt(nk, d, dv, fs.bc);
      pack_values(V, nk, dv, packedV);
      vt = packedV;
    }
  } else {
    // K (and V) are packed once per call (or once for all threads); every query block then streams the packed panels.
    kt = packed_keys(K, nk, dd, dv, ws, packedK);
    if (kPackV) vt = packed_values(V, nk, dd, dv, ws, packedK);
  }
  if (kPackV) {
    ldv = kNR;
    ps = static_cast<long long>(nk) * kNR;
  }
  flash_blocks<Ops>(Q, kt, vt, ldv, ps, O, nq, nk, d, dv, alpha, invTemp, causal || window > 0, ws, q0, fs,
                    trace ? trace->record : nullptr, trace ? trace->ctx : nullptr);
}

// ---- gemm: the language model's products (kernels.h) ----------------------------------------------------------

// Element (i, t) of A' (or (t, j) of B'): the operand read through its strides.
inline float at(const GemmOperand& X, long long r, long long c) { return X.p[r * X.rs + c * X.cs]; }

// Rows [i0, i0 + rows) × terms [t0, t0 + kc) of A' as groups of kMR rows, [kc][kMR] each, group g at g·kc·kMR: the
// layout gemm_tile reads. A group past the last row repeats that row (computed, never stored). A' rows contiguous
// (A·Bᵀ, A·B): Ops::pack_rows (SIMD shuffles in the SIMD engines: at a product as small as attention's dQ = dS·K,
// 64 × 16 × 64, pack_q's float-at-a-time walk over its 4,096 floats was ~40 % of the call); otherwise element by
// element (a group short of kMR rows of Aᵀ·B, read in place elsewhere). Built for size like the attention kernels'
// packing: O(m·k) against the product's O(m·n·k).
template <class Ops>
AP_COLD void gemm_pack_a(const GemmOperand& A, int i0, int rows, int t0, int kc, float* dst) {
  for (int g = 0; g * kMR < rows; ++g) {
    float* d = dst + static_cast<long long>(g) * kc * kMR;
    const int first = i0 + g * kMR, here = std::min(kMR, rows - g * kMR);
    if (A.cs == 1) {
      Ops::pack_rows(A.p + static_cast<long long>(first) * A.rs + t0, A.rs, here, kc, d);
      continue;
    }
    for (int t = 0; t < kc; ++t)
      for (int r = 0; r < kMR; ++r) d[t * kMR + r] = at(A, first + std::min(r, here - 1), t0 + t);
  }
}

// All of B' (k × n) as ceil(n / 8) panels of [k][8], panel p at p·k·8, zero past n: the layout gemm_tile reads.
// Rows of B' contiguous (A·B, Aᵀ·B): 32 bytes per term; columns contiguous (A·Bᵀ: B' is Bᵀ, packed as K is for
// attention, pack_panel). Built for size, as above.
AP_COLD inline void gemm_pack_b(const GemmOperand& B, int n, int k, float* dst) {
  const int panels = (n + kNR - 1) / kNR;
  for (int p = 0; p < panels; ++p) {
    float* d = dst + static_cast<long long>(p) * k * kNR;
    const int j0 = p * kNR, cols = std::min(kNR, n - j0);
    if (B.rs == 1) {
      pack_panel(B.p, n, static_cast<int>(B.cs), j0, 0, k, d);
      continue;
    }
    for (int t = 0; t < k; ++t) {
      const float* src = B.p + static_cast<long long>(t) * B.rs + j0;
      if (B.cs == 1 && cols == kNR) {
        std::memcpy(d + t * kNR, src, sizeof(float) * kNR);
        continue;
      }
      for (int c = 0; c < kNR; ++c) d[t * kNR + c] = c < cols ? src[static_cast<long long>(c) * B.cs] : 0.f;
    }
  }
}

// C[m, n] (+)= A'·B' (kernels.h): for each chunk of kc terms, for each block of mc rows of A' (packed), for each panel
// of B', every row group's tile. Edge tiles (fewer than kMR rows or 8 columns) run on a copy and keep their real cells.
// packedB: B' packed by the caller (threads share one); otherwise packed here into the workspace.
template <class Ops>
void gemm_driver(int m, int n, int k, GemmOperand A, GemmOperand B, float* C, long ldc, bool accumulate, float* ws,
                 const float* packedB) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    if (!accumulate)
      for (int i = 0; i < m; ++i) std::fill(C + i * ldc, C + i * ldc + n, 0.f);
    return;
  }
  const GemmLayout L = gemm_layout(n, k);
  if (!packedB) {
    gemm_pack_b(B, n, k, ws + L.b);
    packedB = ws + L.b;
  }
  float* ap = ws + L.a;
  const int kc = gemm_kc(k), mc = gemm_mc(k), panels = (n + kNR - 1) / kNR;
  const bool inPlace = A.rs == 1 && kGemmInPlace;
  alignas(16) float tile[kMR * kNR];
  for (int t0 = 0; t0 < k; t0 += kc) {
    const int kb = std::min(kc, k - t0);
    const bool load = accumulate || t0 > 0;  // later chunks go on from the sum so far, stored exactly in C
    for (int i0 = 0; i0 < m; i0 += mc) {
      const int rows = std::min(mc, m - i0), groups = (rows + kMR - 1) / kMR;
      // A' with contiguous columns (Aᵀ·B) is read in place, a term's kMR values at A's row pitch; only a group short
      // of kMR rows is packed (its missing rows repeat the last).
      if (inPlace) {
        if (rows % kMR) gemm_pack_a<Ops>(A, i0 + (groups - 1) * kMR, rows % kMR, t0, kb, ap + (groups - 1) * kb * kMR);
      } else {
        gemm_pack_a<Ops>(A, i0, rows, t0, kb, ap);
      }
      for (int p = 0; p < panels; ++p) {
        const int cols = std::min(kNR, n - p * kNR);
        const float* b = packedB + (static_cast<long long>(p) * k + t0) * kNR;
        for (int g = 0; g < groups; ++g) {
          const int rg = std::min(kMR, rows - g * kMR);
          float* c = C + static_cast<long long>(i0 + g * kMR) * ldc + p * kNR;
          const float* a = ap + static_cast<long long>(g) * kb * kMR;
          long as = kMR;
          if (inPlace && rg == kMR) {
            a = A.p + static_cast<long long>(t0) * A.cs + i0 + g * kMR;
            as = A.cs;
          }
          if (rg == kMR && cols == kNR) {
            Ops::gemm_tile(a, as, b, kb, c, static_cast<int>(ldc), load);
            continue;
          }
          for (int r = 0; r < kMR; ++r)
            for (int x = 0; x < kNR; ++x) tile[r * kNR + x] = load && r < rg && x < cols ? c[r * ldc + x] : 0.f;
          Ops::gemm_tile(a, as, b, kb, tile, kNR, true);  // 0 + the first term is the term: the bits of load = false
          for (int r = 0; r < rg; ++r) std::copy(tile + r * kNR, tile + r * kNR + cols, c + r * ldc);
        }
      }
    }
  }
}

// ---- the language model's cross-entropy (kernels.h) --------------------------------------------------------------

// Per row with a target t >= 0: the term log Σ_j exp(z_j − max) + max − z_t (summed in double); with keepRows, dZ's
// row becomes softmax(z)·invCount − invCount at t (a row without a target: 0), otherwise dZ is one row of scratch.
// The exponentials are the softmax kernel's (exp_sum, scale).
template <class Ops>
double cross_entropy_driver(const float* Z, const int* targets, int rows, int V, float invCount, float* dZ,
                            bool keepRows) {
  double loss = 0;
  if (V <= 0) return loss;
  for (int r = 0; r < rows; ++r) {
    float* d = dZ + (keepRows ? static_cast<long long>(r) * V : 0);
    const int t = targets[r];
    if (t < 0) {
      if (keepRows) std::fill(d, d + V, 0.f);
      continue;
    }
    const float* z = Z + static_cast<long long>(r) * V;
    const float m = Ops::copy_max(z, d, V);
    const float sum = Ops::exp_sum(d, V, m, kLog2e);
    loss += std::log(static_cast<double>(sum)) + m - z[t];
    if (keepRows) {
      Ops::scale(d, V, invCount / sum);
      d[t] -= invCount;
    }
  }
  return loss;
}

}  // namespace ap::kernels::detail

// The entry points of one implementation (kernels.h, namespaces scalar and simd), each a driver over Ops.
#define AP_KERNEL_ENTRY_POINTS(Ops)                                                                                   \
  void qkt(const float* Q, const float* K, float* S, int nq, int nk, int d, float alpha) noexcept {                   \
    qkt_driver<Ops>(Q, K, S, nq, nk, d, alpha);                                                                       \
  }                                                                                                                   \
  void softmax_rows(float* S, int nq, int nk, float invTemp) noexcept { softmax_driver<Ops>(S, nq, nk, invTemp); }    \
  void weights_v(const float* W, const float* V, float* O, int nq, int nk, int dv) noexcept {                         \
    weights_v_driver<Ops>(W, V, O, nq, nk, dv);                                                                       \
  }                                                                                                                   \
  void flash_attention(const float* Q, const float* K, const float* V, float* O, int nq, int nk, int d, int dv,       \
                       float alpha, float invTemp, bool causal, float* workspace, int q0, const float* packedK,       \
                       int window, int sinks, const FlashTraceSpec* trace) noexcept {                                 \
    flash_driver<Ops>(Q, K, V, O, nq, nk, d, dv, alpha, invTemp, causal, workspace, q0, packedK, window, sinks,       \
                      trace);                                                                                         \
  }                                                                                                                   \
  void attention_weights(const float* Q, const float* K, const float* V, float* W, float* O, int nq, int nk, int d,   \
                         int dv, float alpha, float invTemp, bool causal, float* workspace, int q0,                   \
                         const float* packedK) noexcept {                                                             \
    weights_driver<Ops>(Q, K, V, W, O, nq, nk, d, dv, alpha, invTemp, causal, workspace, q0, packedK);                \
  }                                                                                                                   \
  void gemm(int m, int n, int k, GemmOperand A, GemmOperand B, float* C, long ldc, bool accumulate, float* workspace, \
            const float* packedB) noexcept {                                                                          \
    gemm_driver<Ops>(m, n, k, A, B, C, ldc, accumulate, workspace, packedB);                                          \
  }                                                                                                                   \
  void gelu(const float* x, float* y, long n) noexcept { Ops::gelu(x, y, n); }                                        \
  void gelu_backward(const float* x, const float* dy, float* dx, long n) noexcept {                                   \
    Ops::gelu_backward(x, dy, dx, n);                                                                                 \
  }                                                                                                                   \
  double cross_entropy(const float* Z, const int* targets, int rows, int V, float invCount, float* dZ,                \
                       bool keepRows) noexcept {                                                                      \
    return cross_entropy_driver<Ops>(Z, targets, rows, V, invCount, dZ, keepRows);                                    \
  }
