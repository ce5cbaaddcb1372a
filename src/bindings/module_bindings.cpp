// What every wasm module of the package answers: its memory, its engine, its threads. Linked into the page
// engine (attention*.wasm) and into the trainer module (attention-train*.wasm), each about its own memory.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <malloc.h>

#include <string>

#include "kernels/kernels.h"

namespace {

using emscripten::val;

// Bytes of wasm memory and bytes malloc has handed out (for leak checks and the memory budget).
val memoryStats() {
  val o = val::object();
  const struct mallinfo mi = mallinfo();
  o.set("heapBytes", static_cast<double>(emscripten_get_heap_size()));
  o.set("allocatedBytes", static_cast<double>(mi.uordblks));
  return o;
}

std::string backend() { return ap::kernels::backend(); }

// Runs each kernel once on small data so V8 tiers the hot functions up before the first long call.
void warmUp() { ap::kernels::warm_up(); }

// The kernels' thread count (1 in builds without threads); returns the count in effect.
int setThreads(int n) { return ap::kernels::set_threads(n); }
int threads() { return ap::kernels::threads(); }

}  // namespace

EMSCRIPTEN_BINDINGS(module) {
  emscripten::function("memoryStats", &memoryStats);
  emscripten::function("backend", &backend);
  emscripten::function("warmUp", &warmUp);
  emscripten::function("setThreads", &setThreads);
  emscripten::function("threads", &threads);
}
