// Dispatch: one build runs one implementation, chosen at compile time (wasm has no runtime
// feature detection worth paying for: a module either validates with SIMD128 or not at all; the
// relaxed-SIMD engine is a second build, picked by the JS loader). Large calls split their rows
// over a thread pool in builds with threads.
#include "kernels.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <memory>
#include <new>
#include <vector>
#ifdef AP_THREADS
#include <condition_variable>
#include <mutex>
#include <thread>
#endif
#ifdef AP_THREAD_TRACE
#include <emscripten.h>

#include <cstdio>
#endif

#include "kernels_driver.h"
#include "kernels_internal.h"

namespace ap::kernels {

#ifdef __wasm_simd128__
namespace impl = simd;
#else
namespace impl = scalar;
#endif

namespace {

#ifdef AP_THREAD_TRACE
// Bench-only (bench/threads_page.mjs --trace builds an engine with -DAP_THREAD_TRACE): per split call and per part,
// the time prepare() took before it (scratch, packing K), when the part started (enter), when it began its first
// block and ended its last, how many blocks it took, their summed time, and which block it took first; ms from the
// call's start (emscripten_get_now, which pool threads correct by their start-up offset from the page's clock: off by
// up to ~3 ms, the same for every call of a page; the block indices need no clock). set_threads prints what was
// recorded, one "TRACE" line a call, on the page's console: outside any timed call.
struct PartTrace {
  double enter = 0, first = 0, last = 0, busy = 0;
  int blocks = 0, firstIndex = -1;
};
struct CallTrace {
  double start = 0, end = 0, prepare = 0;
  int parts = 0, blocks = 0;
  PartTrace part[4];
};
CallTrace g_traces[256];
int g_traced = 0;

void print_traces() {
  for (int c = 0; c < g_traced; ++c) {
    const CallTrace& t = g_traces[c];
    std::printf("TRACE parts %d blocks %d ms %.3f prepare %.3f", t.parts, t.blocks, t.end - t.start, t.prepare);
    for (int k = 0; k < t.parts && k < 4; ++k) {
      const PartTrace& q = t.part[k];
      std::printf(" | part %d enter %.3f first %.3f last %.3f blocks %d busy %.3f firstIndex %d", k, q.enter - t.start,
                  q.first - t.start, q.last - t.start, q.blocks, q.busy, q.firstIndex);
    }
    std::printf("\n");
  }
  g_traced = 0;
}
#endif

#ifdef AP_THREADS
// Pool threads live as long as the count is > 1 and sleep between calls. (Not a thread per call: in
// the browser a finished pthread's worker returns to Emscripten's pool only when the main thread's
// event loop runs, so back-to-back synchronous calls would run out of workers and deadlock.)
class Pool {
 public:
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }
  int size() const { return active_; }

  // Threads are only ever added: a lower count leaves the extra ones asleep. (In the browser a thread that
  // exits hands its worker back only when the main thread's event loop runs, so a pool torn down and
  // rebuilt within one synchronous stretch would find no workers.)
  int resize(int n) {
    long long start;
    {
      std::lock_guard<std::mutex> lock(mu_);
      // A new thread counts generations from here on: earlier jobs are not its own.
      start = generation_;
    }
    try {
      while (static_cast<int>(workers_.size()) + 1 < n) {
        const int i = static_cast<int>(workers_.size()) + 1;
        workers_.emplace_back([this, i, start] { loop(i, start); });
      }
    } catch (...) {  // no more threads (e.g. the browser's pool is smaller): keep what started
    }
    active_ = std::max(1, std::min(n, static_cast<int>(workers_.size()) + 1));
    return active_;
  }

  // Runs part(k) for k = 0..parts-1 (parts <= size()), part 0 on the calling thread; returns when all are done.
  void run(int parts, const std::function<void(int)>& part) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      job_ = &part;
      parts_ = parts;
      pending_ = parts - 1;
      ++generation_;
    }
    wake_.notify_all();
    part(0);
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [this] { return pending_ == 0; });
    job_ = nullptr;
  }

 private:
  void loop(int index, long long seen) {
    for (;;) {
      const std::function<void(int)>* job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        if (index >= parts_ || !job_) continue;
        job = job_;
      }
      (*job)(index);
      {
        std::lock_guard<std::mutex> lock(mu_);
        --pending_;
      }
      done_.notify_one();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* job_ = nullptr;
  long long generation_ = 0;
  int parts_ = 0, pending_ = 0;
  bool stop_ = false;
  int active_ = 1;
};

Pool& pool() {
  static Pool p;
  return p;
}
#endif

// Runs body(r0, r1, part) over rows [0, n) in whole flash blocks (kBR rows), in parallel when the pool has threads
// and the call does `work` multiply-adds. The threads take blocks one at a time from a shared counter rather than
// fixed shares: a thread that runs slower (its core shared with other processes: in Chromium that made the pool's
// worker, or with threads pinned the page's thread, take ~0.6 ms a block to the other's 0.45; docs/perf-notes.md) then
// does fewer blocks instead of holding up the call.
// causal: row i costs ~i, so blocks are handed out last first, the costliest while every thread is still busy. Every
// block is computed the same way whichever thread takes it, so the result is the same bits for any thread count.
// prepare(parts) runs on the calling thread just before a split (not when the call stays on one thread); returning
// false keeps the call on this thread.
template <class Body, class Prepare>
void split_rows(int n, double work, bool causal, const Body& body, const Prepare& prepare) {
#ifdef AP_THREADS
  // Below ~4 M multiply-adds a call is over in ~0.2 ms, where waking threads costs more than it saves.
  constexpr double kMinParallelWork = 4.0e6;
  const int blocks = (n + detail::kBR - 1) / detail::kBR;
  const int parts = std::min(pool().size(), blocks);
#ifdef AP_THREAD_TRACE
  const double before = emscripten_get_now();
#endif
  if (parts > 1 && work >= kMinParallelWork && prepare(parts)) {
    std::atomic<int> next{0};
#ifdef AP_THREAD_TRACE
    CallTrace* trace = g_traced < 256 ? &g_traces[g_traced++] : nullptr;
    if (trace) *trace = CallTrace{emscripten_get_now(), 0, 0, parts, blocks, {}};
    if (trace) trace->prepare = trace->start - before;
#endif
    pool().run(parts, [&](int part) {
#ifdef AP_THREAD_TRACE
      PartTrace q;
      q.enter = emscripten_get_now();
#endif
      for (int i = next.fetch_add(1, std::memory_order_relaxed); i < blocks;
           i = next.fetch_add(1, std::memory_order_relaxed)) {
        const int b = causal ? blocks - 1 - i : i;
#ifdef AP_THREAD_TRACE
        const double t0 = emscripten_get_now();
        if (q.firstIndex < 0) q = PartTrace{q.enter, t0, t0, 0, 0, i};
#endif
        body(b * detail::kBR, std::min(n, (b + 1) * detail::kBR), part);
#ifdef AP_THREAD_TRACE
        q.last = emscripten_get_now();
        q.busy += q.last - t0;
        ++q.blocks;
#endif
      }
#ifdef AP_THREAD_TRACE
      if (trace && part < 4) trace->part[part] = q;
#endif
    });
#ifdef AP_THREAD_TRACE
    if (trace) trace->end = emscripten_get_now();
#endif
    return;
  }
#else
  (void)work;
  (void)causal;
  (void)prepare;
#endif
  body(0, n, 0);
}

template <class Body>
void split_rows(int n, double work, bool causal, const Body& body) {
  split_rows(n, work, causal, body, [](int) { return true; });
}

}  // namespace

int set_threads(int n) noexcept {
#ifdef AP_THREAD_TRACE
  print_traces();
#endif
#ifdef AP_THREADS
  return pool().resize(std::max(1, std::min(n, 16)));
#else
  (void)n;
  return 1;
#endif
}

int threads() noexcept {
#ifdef AP_THREADS
  return pool().size();
#else
  return 1;
#endif
}

void qkt(const float* Q, const float* K, float* S, int nq, int nk, int d, float alpha) noexcept {
  split_rows(nq, static_cast<double>(nq) * nk * d, false, [&](int r0, int r1, int) {
    impl::qkt(Q + static_cast<long long>(r0) * d, K, S + static_cast<long long>(r0) * nk, r1 - r0, nk, d, alpha);
  });
}

void softmax_rows(float* S, int nq, int nk, float invTemp) noexcept {
  // exp costs ~10 multiply-adds a cell
  split_rows(nq, 10.0 * nq * nk, false, [&](int r0, int r1, int) {
    impl::softmax_rows(S + static_cast<long long>(r0) * nk, r1 - r0, nk, invTemp);
  });
}

void weights_v(const float* W, const float* V, float* O, int nq, int nk, int dv) noexcept {
  split_rows(nq, static_cast<double>(nq) * nk * dv, false, [&](int r0, int r1, int) {
    impl::weights_v(W + static_cast<long long>(r0) * nk, V, O + static_cast<long long>(r0) * dv, r1 - r0, nk, dv);
  });
}

long long flash_workspace_floats(int nq, int nk, int d, int dv) noexcept {
  return detail::flash_workspace_floats(nq, nk, d, dv);
}

namespace {

// Splits rows of Q like split_rows for the kernels that need a workspace. Split, K (and V, when given: the fused
// kernel's) is packed once into the caller's workspace and shared; part 0 uses the caller's scratch, the others get
// their own (a few KiB each). Out of memory for one of those, the whole call runs on this thread instead.
template <class Body>
void split_with_workspace(const float* K, const float* V, int nq, int nk, int d, int dv, bool causal, float* workspace,
                          const Body& body) {
  const double work = static_cast<double>(nq) * nk * (d + dv) * (causal ? 0.5 : 1.0);
  const detail::FlashLayout L = detail::flash_layout(nk, d, dv);
  const float* packedK = nullptr;
  std::vector<std::unique_ptr<float[]>> scratch;
  split_rows(
      nq, work, causal,
      [&](int r0, int r1, int part) { body(r0, r1, part > 0 ? scratch[part - 1].get() : workspace, packedK); },
      [&](int parts) {
        for (int k = 1; k < parts; ++k) {
          scratch.emplace_back(new (std::nothrow) float[static_cast<std::size_t>(L.kt)]);
          if (!scratch.back()) return false;
        }
        detail::pack_keys(K, nk, d > 0 ? d : 0, workspace + L.kt);
        if (detail::kPackV && V && dv > 0) detail::pack_values(V, nk, dv, workspace + L.vt);
        packedK = workspace + L.kt;
        return true;
      });
}

}  // namespace

void flash_attention(const float* Q, const float* K, const float* V, float* O, int nq, int nk, int d, int dv,
                     float alpha, float invTemp, bool causal, float* workspace, int window, int sinks) noexcept {
  const bool triangle = causal || window > 0;
  split_with_workspace(K, V, nq, nk, d, dv, triangle, workspace, [&](int r0, int r1, float* ws, const float* packedK) {
    impl::flash_attention(Q + static_cast<long long>(r0) * d, K, V, O + static_cast<long long>(r0) * dv, r1 - r0, nk, d,
                          dv, alpha, invTemp, triangle, ws, r0, packedK, window, sinks);
  });
}

int flash_block_rows() noexcept { return detail::kBR; }
int flash_block_cols() noexcept { return detail::kBC; }

long long flash_trace_workspace_floats(int nk, int d, int dv, int bc) noexcept {
  return detail::flash_trace_workspace_floats(nk, d, dv, bc);
}

void flash_trace(const float* Q, const float* K, const float* V, float* O, int nq, int nk, int d, int dv, float alpha,
                 bool causal, int br, int bc, float* workspace, FlashRecord record, void* ctx) noexcept {
  const FlashTraceSpec spec{br, bc, record, ctx};
  impl::flash_attention(Q, K, V, O, nq, nk, d, dv, alpha, 1.f, causal, workspace, 0, nullptr, 0, 0, &spec);
}

void attention_weights(const float* Q, const float* K, const float* V, float* W, float* O, int nq, int nk, int d,
                       int dv, float alpha, float invTemp, bool causal, float* workspace) noexcept {
  split_with_workspace(
      K, nullptr, nq, nk, d, dv, causal, workspace, [&](int r0, int r1, float* ws, const float* packedK) {
        impl::attention_weights(Q + static_cast<long long>(r0) * d, K, V, W + static_cast<long long>(r0) * nk,
                                O + static_cast<long long>(r0) * dv, r1 - r0, nk, d, dv, alpha, invTemp, causal, ws, r0,
                                packedK);
      });
}

long long gemm_workspace_floats(int, int n, int k) noexcept { return detail::gemm_layout(n, k).total; }

// Rows of C split like the attention kernels' (blocks of kBR rows; every cell's bits the same for any split); B packed
// once into the caller's workspace and shared, each other part with an A block of its own.
void gemm(int m, int n, int k, GemmOperand A, GemmOperand B, float* C, long ldc, bool accumulate,
          float* workspace) noexcept {
  const detail::GemmLayout L = detail::gemm_layout(n, k);
  const float* packedB = nullptr;
  std::vector<std::unique_ptr<float[]>> scratch;
  split_rows(
      m, static_cast<double>(m) * n * k, false,
      [&](int r0, int r1, int part) {
        const GemmOperand Ap{A.p + static_cast<long long>(r0) * A.rs, A.rs, A.cs};
        impl::gemm(r1 - r0, n, k, Ap, B, C + static_cast<long long>(r0) * ldc, ldc, accumulate,
                   part > 0 ? scratch[part - 1].get() : workspace, packedB);
      },
      [&](int parts) {
        if (k <= 0) return false;
        for (int p = 1; p < parts; ++p) {
          scratch.emplace_back(new (std::nothrow) float[static_cast<std::size_t>(L.b)]);
          if (!scratch.back()) return false;
        }
        detail::gemm_pack_b(B, n, k, workspace + L.b);
        packedB = workspace + L.b;
        return true;
      });
}

void gelu(const float* x, float* y, long n) noexcept { impl::gelu(x, y, n); }
void gelu_backward(const float* x, const float* dy, float* dx, long n) noexcept { impl::gelu_backward(x, dy, dx, n); }
double cross_entropy(const float* Z, const int* targets, int rows, int V, float invCount, float* dZ,
                     bool keepRows) noexcept {
  return impl::cross_entropy(Z, targets, rows, V, invCount, dZ, keepRows);
}

namespace {

// One thread's warm-up: every kernel a few hundred times on 48×32 inputs. Sizes and counts from
// bench/wasm_harness (--first-call): 300 small flash calls were what it took for the first n = 2048 call
// to run at full speed.
void warm_up_this_thread() noexcept {
  try {
    constexpr int n = 48, d = 32;
    std::vector<float> a(n * d, 0.5f), s(n * n), o(n * d);
    std::vector<float> ws(static_cast<std::size_t>(flash_workspace_floats(n, n, d, d)));
    std::vector<float> gws(static_cast<std::size_t>(gemm_workspace_floats(n, d, d)));
    for (int r = 0; r < 300; ++r)
      impl::flash_attention(a.data(), a.data(), a.data(), o.data(), n, n, d, d, 0.1f, 1.f, r % 2 == 1, ws.data());
    for (int r = 0; r < 100; ++r) {
      impl::attention_weights(a.data(), a.data(), a.data(), s.data(), o.data(), n, n, d, d, 0.1f, 1.f, r % 2 == 1,
                              ws.data());
      impl::qkt(a.data(), a.data(), s.data(), n, n, d, 0.1f);
      impl::softmax_rows(s.data(), n, n, 1.f);
      impl::weights_v(s.data(), a.data(), o.data(), n, n, d);
      impl::gemm(n, d, d, {a.data(), d, 1}, {a.data(), 1, d}, o.data(), d, r % 2 == 1, gws.data());
    }
  } catch (...) {  // bad_alloc: warming up is only an optimization
  }
}

}  // namespace

void warm_up() noexcept {
#ifdef AP_THREADS
  // Every pool thread runs its own warm-up, at the same time: a worker's first long calls were measured
  // at half the calling thread's speed in Chromium until it had run the kernels itself.
  if (pool().size() > 1) {
    pool().run(pool().size(), [](int) { warm_up_this_thread(); });
    return;
  }
#endif
  warm_up_this_thread();
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
