// JS <-> core conversions for the embind layer. Every array crossing the boundary is copied:
// wasm memory can grow (and detach views), so nothing handed to JS points into it.
#pragma once

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "core/common.h"

namespace apb {

using emscripten::val;

inline bool has(const val& o, const char* key) {
  if (o.isUndefined() || o.isNull()) return false;
  const val v = o[key];
  return !v.isUndefined() && !v.isNull();
}

inline std::string type_of(const val& v) { return v.typeOf().as<std::string>(); }

inline double number_of(const val& v, const std::string& name) {
  if (type_of(v) != "number") throw ap::Error(name + ": expected a number, got a " + type_of(v));
  const double d = v.as<double>();
  if (!std::isfinite(d)) throw ap::Error(name + ": must be finite, got " + ap::fmt(d));
  return d;
}

inline int int_of(const val& v, const std::string& name) {
  const double d = number_of(v, name);
  if (d != std::floor(d) || std::fabs(d) > 2147483647.0)
    throw ap::Error(name + ": expected an integer, got " + ap::fmt(d));
  return static_cast<int>(d);
}

inline std::string string_of(const val& v, const std::string& name) {
  if (type_of(v) != "string") throw ap::Error(name + ": expected a string, got a " + type_of(v));
  return v.as<std::string>();
}

inline bool bool_of(const val& v, const std::string& name) {
  if (type_of(v) != "boolean") throw ap::Error(name + ": expected true or false, got a " + type_of(v));
  return v.as<bool>();
}

inline std::vector<long long> shape_of(const val& t, const std::string& name) {
  if (!has(t, "shape") || !has(t, "data"))
    throw ap::Error(name + ": expected a Tensor { data: Float32Array, shape: number[] }");
  const val shape = t["shape"];
  if (!val::global("Array").call<bool>("isArray", shape)) throw ap::Error(name + ".shape: expected an array of sizes");
  const int rank = shape["length"].as<int>();
  std::vector<long long> dims;
  long long total = 1;
  for (int i = 0; i < rank; ++i) {
    const int d = int_of(shape[i], name + ".shape[" + std::to_string(i) + "]");
    if (d < 0) throw ap::Error(name + ".shape: sizes must be ≥ 0, got " + std::to_string(d));
    dims.push_back(d);
    total *= d;
    if (total > (1LL << 28)) throw ap::Error(name + ": too many elements (limit 2^28)");
  }
  const long long len =
      t["data"]["length"].isUndefined() ? -1 : static_cast<long long>(t["data"]["length"].as<double>());
  if (len != total) {
    throw ap::Error(name + ": data has " + std::to_string(len) + " values but shape " + ap::shape_str(dims) +
                    " needs " + std::to_string(total));
  }
  return dims;
}

// Copies `count` floats of the JS array-like `data` starting at `offset` into dst.
inline void copy_in(const val& data, float* dst, long long offset, long long count) {
  val view{emscripten::typed_memory_view(static_cast<std::size_t>(count), dst)};
  if (offset == 0 && data["length"].as<double>() == count) {
    view.call<void>("set", data);
  } else {
    view.call<void>("set",
                    data.call<val>("subarray", static_cast<double>(offset), static_cast<double>(offset + count)));
  }
}

inline ap::Mat matrix_from_js(const val& t, const std::string& name) {
  const auto dims = shape_of(t, name);
  if (dims.size() != 2) throw ap::Error(name + ": expected a 2-D Tensor [rows, cols], got " + ap::shape_str(dims));
  ap::Mat m(dims[0], dims[1]);
  if (m.size() > 0) copy_in(t["data"], m.data(), 0, m.size());
  return m;
}

inline ap::Vec vector_from_js(const val& t, const std::string& name) {
  const auto dims = shape_of(t, name);
  if (dims.size() != 1) throw ap::Error(name + ": expected a 1-D Tensor [n], got " + ap::shape_str(dims));
  ap::Vec v(dims[0]);
  if (v.size() > 0) copy_in(t["data"], v.data(), 0, v.size());
  return v;
}

// [n, d] -> one item; [batch, n, d] -> batch items.
inline std::vector<ap::Mat> batch_from_js(const val& t, const std::string& name, int* rank) {
  const auto dims = shape_of(t, name);
  if (dims.size() != 2 && dims.size() != 3)
    throw ap::Error(name + ": expected [n, d] or [batch, n, d], got " + ap::shape_str(dims));
  *rank = static_cast<int>(dims.size());
  const long long b = dims.size() == 3 ? dims[0] : 1;
  if (b < 1) throw ap::Error(name + ": the batch size must be at least 1, got 0");
  const long long n = dims[dims.size() - 2], d = dims[dims.size() - 1];
  std::vector<ap::Mat> items;
  for (long long i = 0; i < b; ++i) {
    ap::Mat m(n, d);
    if (m.size() > 0) copy_in(t["data"], m.data(), i * n * d, n * d);
    items.push_back(std::move(m));
  }
  return items;
}

inline std::vector<uint8_t> bytes_from_js(const val& a, const std::string& name) {
  if (a["length"].isUndefined()) throw ap::Error(name + ": expected an array");
  const long long n = static_cast<long long>(a["length"].as<double>());
  if (n > (1LL << 28)) throw ap::Error(name + ": too long");
  std::vector<uint8_t> out(static_cast<std::size_t>(n));
  for (long long i = 0; i < n; ++i) {
    const val e = a[static_cast<int>(i)];
    const std::string ty = type_of(e);
    if (ty == "boolean")
      out[i] = e.as<bool>() ? 1 : 0;
    else if (ty == "number")
      out[i] = e.as<double>() != 0 ? 1 : 0;
    else
      throw ap::Error(name + "[" + std::to_string(i) + "]: expected a boolean or 0/1, got a " + ty);
  }
  return out;
}

inline val tensor_to_js(const float* data, const std::vector<int>& shape) {
  std::size_t n = 1;
  for (int d : shape) n *= static_cast<std::size_t>(d);
  val out = val::object();
  // new Float32Array(view) copies, so the result never aliases wasm memory.
  out.set("data", val::global("Float32Array").new_(emscripten::typed_memory_view(n, data)));
  out.set("shape", val::array(shape));
  return out;
}

inline val tensor_to_js(const ap::Mat& m) {
  return tensor_to_js(m.data(), {static_cast<int>(m.rows()), static_cast<int>(m.cols())});
}

// A Float32Array copy of v.
inline val floats_to_js(const std::vector<float>& v) {
  return val::global("Float32Array").new_(emscripten::typed_memory_view(v.size(), v.data()));
}

inline val tensor_to_js(const ap::Vec& v) { return tensor_to_js(v.data(), {static_cast<int>(v.size())}); }

// Stacks equally shaped matrices into one [count, rows, cols] Tensor.
inline val stack_to_js(const std::vector<ap::Mat>& ms) {
  if (ms.empty()) return tensor_to_js(nullptr, {0});
  const int r = static_cast<int>(ms[0].rows()), c = static_cast<int>(ms[0].cols());
  const std::size_t per = static_cast<std::size_t>(r) * c;
  // Each matrix is copied once, straight into its slice of the JS array.
  val data = val::global("Float32Array").new_(static_cast<double>(per * ms.size()));
  for (std::size_t i = 0; i < ms.size(); ++i) {
    data.call<void>("set", val(emscripten::typed_memory_view(per, ms[i].data())), static_cast<double>(i * per));
  }
  val out = val::object();
  out.set("data", data);
  out.set("shape", val::array(std::vector<int>{static_cast<int>(ms.size()), r, c}));
  return out;
}

// The fixed step tensors of a trace (docs/design.md "Step names"); per-head matrices as [nq, nk] for one
// head and [heads, nq, nk] otherwise. Shared by ap.run and Trainer.trace so both traces read alike.
struct StepTensors {
  const ap::Mat &embeddings, &Wq, &Wk, &Wv, &Q, &K, &V;
  const std::vector<ap::Mat>&scores, &scaledScores, &maskedScores, &weights;
  const ap::Mat& output;
};

// A per-head step: [nq, nk] for one head, [heads, nq, nk] otherwise.
inline val per_head_to_js(const std::vector<ap::Mat>& ms) {
  return ms.size() == 1 ? tensor_to_js(ms[0]) : stack_to_js(ms);
}

// The steps up to V (embeddings, Wq, Wk, Wv, Q, K, V), in pipeline order: a trace's first steps, and all of
// what ap.projections returns.
inline void set_projections(val& o, const ap::Mat& embeddings, const ap::Mat& Wq, const ap::Mat& Wk, const ap::Mat& Wv,
                            const ap::Mat& Q, const ap::Mat& K, const ap::Mat& V) {
  const std::pair<const char*, const ap::Mat*> mats[] = {
      {"embeddings", &embeddings}, {"Wq", &Wq}, {"Wk", &Wk}, {"Wv", &Wv}, {"Q", &Q}, {"K", &K}, {"V", &V}};
  for (const auto& [name, m] : mats) o.set(name, tensor_to_js(*m));
}

inline void set_steps(val& o, const StepTensors& t) {
  // In pipeline order, which is also the order of the trace's keys.
  set_projections(o, t.embeddings, t.Wq, t.Wk, t.Wv, t.Q, t.K, t.V);
  const std::pair<const char*, const std::vector<ap::Mat>*> per_head[] = {{"scores", &t.scores},
                                                                          {"scaledScores", &t.scaledScores},
                                                                          {"maskedScores", &t.maskedScores},
                                                                          {"weights", &t.weights}};
  for (const auto& [name, ms] : per_head) o.set(name, per_head_to_js(*ms));
  o.set("output", tensor_to_js(t.output));
  o.set("heads", static_cast<int>(t.weights.size()));
}

// BPE merges as [[left, right], …].
inline val merges_to_js(const std::vector<std::pair<std::string, std::string>>& merges) {
  val a = val::array();
  for (const auto& m : merges) a.call<void>("push", val::array(std::vector<std::string>{m.first, m.second}));
  return a;
}

inline val error_value(const std::string& message) {
  val e = val::object();
  e.set("error", val(message));
  return e;
}

// Runs f; an exception becomes { error: message } so the JS side can throw a real Error while the
// module keeps running (a C++ exception must not cross into JS, and a JS throw would skip destructors).
template <class F>
val guarded(F&& f) {
  try {
    return f();
  } catch (const ap::Error& e) {
    return error_value(e.what());
  } catch (const std::bad_alloc&) {
    return error_value(
        "out of memory: the request needs more memory than the engine can have (2 GiB); use smaller inputs");
  } catch (const std::exception& e) {
    return error_value(std::string("internal error: ") + e.what());
  }
}

}  // namespace apb
