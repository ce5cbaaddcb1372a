// Hot loops of attention. Row-major float buffers, no allocation, no exceptions.
// Under __wasm_simd128__ they run hand-written SIMD128 code; elsewhere the scalar twin,
// which computes the same results to 1e-5 and is what the native tests run.
#pragma once

namespace ap::kernels {

// S[nq, nk] = alpha * Q[nq, d] · K[nk, d]ᵀ
void qkt(const float* Q, const float* K, float* S, int nq, int nk, int d, float alpha) noexcept;

// Row-wise softmax of S[nq, nk] / temperature, in place, max-subtracted.
// -inf entries are masked cells; a row with every cell -inf becomes all zeros.
// +inf (an overflowed score) counts as the largest float, so no row ever yields NaN.
void softmax_rows(float* S, int nq, int nk, float invTemp) noexcept;

// O[nq, dv] = W[nq, nk] · V[nk, dv]
void weights_v(const float* W, const float* V, float* O, int nq, int nk, int dv) noexcept;

// O[nq, dv] = softmax(alpha·Q·Kᵀ / T (causal: j > i masked)) · V, without building the nq×nk matrix.
// window > 0 (implies causal): a sliding window, row i sees keys i - window < j <= i plus keys j < sinks; blocks of
// keys wholly outside every row's window are skipped, like those past the diagonal.
// workspace: at least flash_workspace_floats(nq, nk, d, dv) floats. Fully masked rows give 0.
long long flash_workspace_floats(int nq, int nk, int d, int dv) noexcept;
void flash_attention(const float* Q, const float* K, const float* V, float* O, int nq, int nk, int d, int dv,
                     float alpha, float invTemp, bool causal, float* workspace, int window = 0, int sinks = 0) noexcept;

// The fused kernel's own loops (the same driver, one thread) with blocks of br query rows × bc keys (1 <= br <= 36,
// 1 <= bc <= 128; the kernel itself runs 36 × 128), temperature 1, calling record after each tile with the block's
// first row i0, its rows, the tile's first key j0 and keys, each row's running max m and running sum
// l = Σ exp(s - m) (rows floats each), and the block's rows of the output so far, not yet divided by l.
// workspace: flash_trace_workspace_floats(nk, d, dv, bc) floats.
using FlashRecord = void (*)(void* ctx, int i0, int rows, int j0, int cols, const float* m, const float* l,
                             const float* O);
struct FlashTraceSpec {
  int br, bc;
  FlashRecord record;
  void* ctx;
};
int flash_block_rows() noexcept;  // the kernel's br (36)
int flash_block_cols() noexcept;  // the kernel's bc for d <= 64 (128; 64 above)
long long flash_trace_workspace_floats(int nk, int d, int dv, int bc) noexcept;
void flash_trace(const float* Q, const float* K, const float* V, float* O, int nq, int nk, int d, int dv, float alpha,
                 bool causal, int br, int bc, float* workspace, FlashRecord record, void* ctx) noexcept;

// The weights path: W[nq, nk] = softmax(alpha·Q·Kᵀ / T (causal: j > i masked)) and O[nq, dv] = W·V, a block of
// rows at a time (W written once, then summed over V while in cache). Same workspace as flash_attention.
// Fully masked rows give 0.
void attention_weights(const float* Q, const float* K, const float* V, float* W, float* O, int nq, int nk, int d,
                       int dv, float alpha, float invTemp, bool causal, float* workspace) noexcept;

// The language model's matrix products (src/core/lm_products.cpp): C[m, n] = A'·B' (accumulate: C += A'·B'), where
// A'[i][t] = A.p[i·A.rs + t·A.cs] and B'[t][j] = B.p[t·B.rs + j·B.cs]: the strides say whether an operand is read as
// stored or transposed (A·Bᵀ, A·B, Aᵀ·B are all this call). C has row stride ldc. A packed GEMM on the attention
// kernels' register tile (kTileOf<Engine>: kMR rows × 8 columns): B packed once per call as panels of 8 columns,
// A a block of rows at a time as [k][kMR] groups. Every cell sums its k terms in order onto its start (0, or C's
// value when accumulating), whatever m, the blocking or the thread count, so the bits of a cell never depend on
// the shape of the call around it (the KV cache's one-row products equal the full forward's rows).
// workspace: gemm_workspace_floats(m, n, k) floats.
struct GemmOperand {
  const float* p;
  long rs, cs;
};
long long gemm_workspace_floats(int m, int n, int k) noexcept;
void gemm(int m, int n, int k, GemmOperand A, GemmOperand B, float* C, long ldc, bool accumulate,
          float* workspace) noexcept;

// The language model's other steps, cheap beside its products (one thread):
// y[0, n) = GELU(x) (torch.nn.GELU(), exact: x·Φ(x) with erf from a rational interpolant good to a couple of ulp),
// dx = dy·GELU'(x) = dy·(Φ(x) + x·φ(x)).
void gelu(const float* x, float* y, long n) noexcept;
void gelu_backward(const float* x, const float* dy, float* dx, long n) noexcept;
// The sum over rows with a target (targets[r] >= 0) of log Σ_j exp(Z[r, j] − max_r) + max_r − Z[r, targets[r]], in
// double (the softmax kernel's exponentials); with keepRows, dZ [rows, V] = softmax(Z)·invCount, minus invCount at the
// target, 0 on rows without one (the mean loss's gradient when invCount = 1 / the count); otherwise dZ is V floats of
// scratch.
double cross_entropy(const float* Z, const int* targets, int rows, int V, float invCount, float* dZ,
                     bool keepRows) noexcept;
// torch's LayerNorm over rows of C (biased variance, eps 1e-5, the statistics summed in double): Y = x̂·w + b (b may be
// null), mean and rstd one per row. Its backward from the same statistics: g = dY·w, dX = rstd·(g − mean(g) −
// x̂·mean(g·x̂)); dw += Σ_rows dY·x̂, db += Σ_rows dY (db may be null). One implementation (scalar, double sums) in every
// engine.
void layer_norm(const float* X, int rows, int C, const float* w, const float* b, float* Y, float* mean,
                float* rstd) noexcept;
void layer_norm_backward(const float* X, const float* dY, int rows, int C, const float* w, const float* mean,
                         const float* rstd, float* dX, float* dw, float* db) noexcept;

// Threads for the kernels above (gemm included): with n > 1, a call big enough to pay for it splits its rows
// of Q (or S) over n threads (the caller's and n - 1 pool threads that wait between calls), each
// with its own workspace; the results are bit-identical to one thread. Builds without thread
// support (AP_THREADS undefined) keep 1. set_threads starts or stops the pool and returns the
// count in effect; it must not be called while a kernel runs.
int set_threads(int n) noexcept;
int threads() noexcept;

// Runs every kernel a few hundred times on 48×32 inputs (~15 ms in wasm). V8 runs wasm in its
// baseline tier until a function has done enough work, and a call in progress never switches
// tier: without this, the first long attention (n = 2048) takes ~150-500 ms instead of ~45 ms.
// Call it once after instantiation, or when idle. Allocates; a failure is ignored.
void warm_up() noexcept;

// Which implementation this build runs ("relaxed-simd", "simd128" or "scalar").
const char* backend() noexcept;

// The portable twins, compiled in every build, so that a wasm build can check its SIMD path
// against them in the same module. Same contracts and workspace size as above; q0 is the index of Q's first
// row in the whole query (a thread's share: the causal mask is j > q0 + i), and packedK, when given, is K
// already packed by the caller (the tail of a workspace from flash_workspace_floats; for the fused kernel of an engine
// that packs V, detail::kPackV, V packed after it), which the threads share:
// each then needs only the head of a workspace, its scratch (detail::FlashLayout: the floats before `kt`).
// gemm's packedB likewise: B packed by the caller (detail::gemm_pack_b, after the scratch of gemm_layout).
// The entry points of one implementation; defined by AP_KERNEL_ENTRY_POINTS (kernels_driver.h).
#define AP_KERNEL_DECLARATIONS                                                                                        \
  void qkt(const float* Q, const float* K, float* S, int nq, int nk, int d, float alpha) noexcept;                    \
  void softmax_rows(float* S, int nq, int nk, float invTemp) noexcept;                                                \
  void weights_v(const float* W, const float* V, float* O, int nq, int nk, int dv) noexcept;                          \
  void flash_attention(const float* Q, const float* K, const float* V, float* O, int nq, int nk, int d, int dv,       \
                       float alpha, float invTemp, bool causal, float* workspace, int q0 = 0,                         \
                       const float* packedK = nullptr, int window = 0, int sinks = 0,                                 \
                       const FlashTraceSpec* trace = nullptr) noexcept;                                               \
  void attention_weights(const float* Q, const float* K, const float* V, float* W, float* O, int nq, int nk, int d,   \
                         int dv, float alpha, float invTemp, bool causal, float* workspace, int q0 = 0,               \
                         const float* packedK = nullptr) noexcept;                                                    \
  void gemm(int m, int n, int k, GemmOperand A, GemmOperand B, float* C, long ldc, bool accumulate, float* workspace, \
            const float* packedB = nullptr) noexcept;                                                                 \
  void gelu(const float* x, float* y, long n) noexcept;                                                               \
  void gelu_backward(const float* x, const float* dy, float* dx, long n) noexcept;                                    \
  double cross_entropy(const float* Z, const int* targets, int rows, int V, float invCount, float* dZ,                \
                       bool keepRows) noexcept;

namespace scalar {
AP_KERNEL_DECLARATIONS
}  // namespace scalar

#ifdef __wasm_simd128__
// The SIMD128 versions (only in wasm builds); the unqualified functions above call these.
namespace simd {
AP_KERNEL_DECLARATIONS
// The two register tiles alone, `reps` times over the same few KiB (cache-resident), for bench/wasm_harness's
// ceiling: qk_tile over qp ([d][tile_rows()]) and kt ([d][8]) into out (tile_rows() × 8); pv_tile<8> over p
// (tile_rows() rows of nj <= 128 weights at stride 128) and v ([nj][8]) into o (tile_rows() × 8). Unreferenced
// by the package, so not in its module.
int tile_rows() noexcept;
void qk_tile_repeat(const float* qp, const float* kt, int d, float* out, int reps) noexcept;
void pv_tile_repeat(const float* p, int nj, const float* v, float* o, int reps) noexcept;
}  // namespace simd
#endif

// Test hook for wasm builds (bind it to JS to let Vitest check SIMD128 against the scalar twin in
// the shipped module): runs `kernel` ("qkt", "softmax", "weights_v", "flash", "flash_causal", "flash_window"
// (window nk / 3 + 1 with 2 sinks), "weights", "weights_causal", "gemm_nt", "gemm_nn", "gemm_tn" (m = nq, n = nk,
// k = d; judged against the largest |cell|)) on deterministic pseudo-random inputs of the given
// sizes through both implementations and returns the largest |simd - scalar| / max(|scalar|, 1e-6). Returns -1 in a
// build without SIMD128 and for an unknown kernel name or sizes outside 1..4096. Unreferenced, it costs the module
// nothing.
double twin_max_rel_diff(const char* kernel, int nq, int nk, int d, int dv, unsigned seed) noexcept;

}  // namespace ap::kernels
