// JS <-> core conversions for the embind layer: one decoder per concept (a number, an integer, a string, a
// boolean, a Tensor, an integer array, an options object) and the encoders of results. Every array crossing the
// boundary is copied: wasm memory can grow (and detach views), so nothing handed to JS points into it.
#pragma once

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <new>
#include <optional>
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
  if (!v.isNumber()) ap::fail(name + ": expected a number, got a " + type_of(v));
  const double d = v.as<double>();
  if (!std::isfinite(d)) ap::fail(name + ": must be finite, got " + ap::fmt(d));
  return d;
}

inline int int_of(const val& v, const std::string& name) {
  const double d = number_of(v, name);
  if (d != std::floor(d) || std::fabs(d) > 2147483647.0) ap::fail(name + ": expected an integer, got " + ap::fmt(d));
  return static_cast<int>(d);
}

inline std::string string_of(const val& v, const std::string& name) {
  if (!v.isString()) ap::fail(name + ": expected a string, got a " + type_of(v));
  return v.as<std::string>();
}

inline bool bool_of(const val& v, const std::string& name) {
  if (!v.isTrue() && !v.isFalse()) ap::fail(name + ": expected true or false, got a " + type_of(v));
  return v.isTrue();
}

// "name[i]", an element's name in messages.
__attribute__((noinline)) inline std::string element_name(const std::string& name, std::size_t i) {
  return name + "[" + std::to_string(i) + "]";
}

// The n elements of the JS array or typed array `a` as doubles, when every one is an integer (Number.isInteger): two
// calls into JS however long it is. Otherwise false, and fail_integers names the first that is not.
inline bool integers_of(const val& a, std::size_t n, std::vector<double>& out) {
  if (!a.call<bool>("every", val::global("Number")["isInteger"])) return false;
  out.resize(n);
  if (n > 0) val(emscripten::typed_memory_view(n, out.data())).call<void>("set", a);
  return true;
}

// Throws int_of's message for the first element of `a` that is not an integer (or not one an int holds).
[[noreturn]] __attribute__((noinline)) inline void fail_integers(const val& a, const std::string& name) {
  for (std::size_t i = 0;; ++i) int_of(a[i], element_name(name, i));
}

// Copies `count` floats of the JS array-like `data` starting at `offset` into dst.
inline void copy_in(const val& data, float* dst, long long offset, long long count) {
  if (count == 0) return;
  val view{emscripten::typed_memory_view(static_cast<std::size_t>(count), dst)};
  if (offset == 0 && data["length"].as<double>() == count) {
    view.call<void>("set", data);
  } else {
    view.call<void>("set",
                    data.call<val>("subarray", static_cast<double>(offset), static_cast<double>(offset + count)));
  }
}

// ---- Tensors: the one decoder ----

// A Tensor { data, shape } as the caller gave it, its shape checked against its data: at most 8 sizes, each an
// integer ≥ 0, 2^28 elements in all. Anything but { data: Float32Array, shape } (nested arrays, a typed array as
// 1-D, { data: number[] }) is made one first by the package's toTensor (src/js/util.ts tensorOf: the same
// flattening and messages as everywhere in the package), which the loader puts on the module.
struct TensorIn {
  std::vector<long long> shape;
  val data = val::undefined();
  long long size = 1;
  void copy_to(float* dst, long long offset, long long count) const { copy_in(data, dst, offset, count); }
};

inline TensorIn tensor_in(const val& given, const std::string& name) {
  val t = given;
  if (!has(given, "data") || !given["data"].instanceof (val::global("Float32Array"))) {
    const val tensor_of = val::module_property("tensorOf");
    if (tensor_of.isUndefined()) ap::fail(name + ": expected a Tensor { data: Float32Array, shape: number[] }");
    t = tensor_of(given, val(name));
    if (has(t, "error")) ap::fail(t["error"].as<std::string>());
  }
  TensorIn out;
  const val shape = t["shape"];
  if (!shape.isArray()) ap::fail(name + ".shape: expected an array of sizes");
  const int rank = shape["length"].as<int>();
  if (rank > 8) ap::fail(name + ".shape: at most 8 sizes, got " + std::to_string(rank));
  for (int i = 0; i < rank; ++i) {
    const int d = int_of(shape[i], element_name(name + ".shape", static_cast<std::size_t>(i)));
    if (d < 0) ap::fail(name + ".shape: sizes must be ≥ 0, got " + std::to_string(d));
    out.shape.push_back(d);
    out.size *= d;
    if (out.size > (1LL << 28)) ap::fail(name + ": too many elements (limit 2^28)");
  }
  out.data = t["data"];
  const double len = out.data["length"].as<double>();
  if (len != static_cast<double>(out.size)) {
    ap::fail(name + ": data has " + ap::fmt(len) + " values but shape " + ap::shape_str(out.shape) + " needs " +
             std::to_string(out.size));
  }
  return out;
}

inline ap::Mat matrix_from_js(const val& v, const std::string& name) {
  const TensorIn t = tensor_in(v, name);
  if (t.shape.size() != 2) ap::fail(name + ": expected a 2-D Tensor [rows, cols], got " + ap::shape_str(t.shape));
  ap::Mat m(t.shape[0], t.shape[1]);
  t.copy_to(m.data(), 0, m.size());
  return m;
}

inline ap::Vec vector_from_js(const val& v, const std::string& name) {
  const TensorIn t = tensor_in(v, name);
  if (t.shape.size() != 1) ap::fail(name + ": expected a 1-D Tensor [n], got " + ap::shape_str(t.shape));
  ap::Vec out(t.shape[0]);
  t.copy_to(out.data(), 0, out.size());
  return out;
}

// [n, d] -> one item; [batch, n, d] -> batch items. `shape` receives the Tensor's.
inline std::vector<ap::Mat> batch_from_js(const val& v, const std::string& name, std::vector<long long>* shape) {
  const TensorIn t = tensor_in(v, name);
  const auto& dims = t.shape;
  if (dims.size() != 2 && dims.size() != 3)
    ap::fail(name + ": expected [n, d] or [batch, n, d], got " + ap::shape_str(dims));
  const long long b = dims.size() == 3 ? dims[0] : 1;
  if (b < 1) ap::fail(name + ": the batch size must be at least 1, got 0");
  const long long n = dims[dims.size() - 2], d = dims[dims.size() - 1];
  std::vector<ap::Mat> items;
  for (long long i = 0; i < b; ++i) {
    ap::Mat m(n, d);
    t.copy_to(m.data(), i * n * d, n * d);
    items.push_back(std::move(m));
  }
  *shape = dims;
  return items;
}

// A Tensor of exactly the shape `want` (a model's parameter), read into rows × cols, every value finite.
inline ap::Mat exact_from_js(const val& v, const std::string& name, const std::vector<long long>& want, long long rows,
                             long long cols) {
  const TensorIn t = tensor_in(v, name);
  if (t.shape != want) ap::fail(name + ": expected " + ap::shape_str(want) + ", got " + ap::shape_str(t.shape));
  ap::Mat m(rows, cols);
  t.copy_to(m.data(), 0, m.size());
  ap::check_finite(name, m);
  return m;
}

// ---- Integer arrays: the one decoder ----

// A JS Array or typed array of integers, at most ap::kMaxInts long. What the integers
// mean (positions, token ids, a context) is the caller's to check.
inline std::vector<int> ints_from_js(const val& a, const std::string& name) {
  if ((!a.isArray() && !val::global("ArrayBuffer").call<bool>("isView", a)) || a["length"].isUndefined())
    ap::fail(name + ": expected an array of integers, got a " + type_of(a));
  const double n = a["length"].as<double>();
  if (n > static_cast<double>(ap::kMaxInts)) {
    ap::fail(name + ": " + ap::fmt(n) + " integers is more than the limit of " + std::to_string(ap::kMaxInts));
  }
  std::vector<double> values;
  if (!integers_of(a, static_cast<std::size_t>(n), values)) fail_integers(a, name);
  std::vector<int> out(values.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!(std::fabs(values[i]) <= 2147483647.0)) fail_integers(a, name);  // NaN too (a hole read as undefined)
    out[i] = static_cast<int>(values[i]);
  }
  return out;
}

inline std::vector<uint8_t> bytes_from_js(const val& a, const std::string& name) {
  if (a["length"].isUndefined()) ap::fail(name + ": expected an array");
  const long long n = static_cast<long long>(a["length"].as<double>());
  if (n > (1LL << 28)) ap::fail(name + ": too long");
  std::vector<uint8_t> out(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const val e = a[i];
    if (e.isNumber())
      out[i] = e.as<double>() != 0 ? 1 : 0;
    else if (e.isTrue() || e.isFalse())
      out[i] = e.isTrue() ? 1 : 0;
    else
      ap::fail(element_name(name, i) + ": expected a boolean or 0/1, got a " + type_of(e));
  }
  return out;
}

// ---- Options: the one reader ----

// The known name a misspelt `key` most likely meant: the same but for case, else the nearest at most two edits
// away (and fewer edits than the key has letters); empty if none is that near. src/js/util.ts's is the same.
inline std::string nearest_option(const std::string& key, const std::vector<const char*>& known) {
  std::string best;
  std::size_t bestDistance = std::min<std::size_t>(3, key.size());
  for (const char* k : known) {
    // Levenshtein distance, case-insensitive, one row at a time.
    const std::size_t m = std::strlen(k);
    std::vector<std::size_t> row(m + 1);
    for (std::size_t j = 0; j <= m; ++j) row[j] = j;
    for (std::size_t i = 1; i <= key.size(); ++i) {
      std::size_t diagonal = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= m; ++j) {
        const std::size_t up = row[j];
        const bool same =
            std::tolower(static_cast<unsigned char>(key[i - 1])) == std::tolower(static_cast<unsigned char>(k[j - 1]));
        row[j] = std::min(std::min(row[j], row[j - 1]) + 1, diagonal + (same ? 0 : 1));
        diagonal = up;
      }
    }
    if (row[m] < bestDistance) {
      bestDistance = row[m];
      best = k;
    }
  }
  return best;
}

// Reads one options object. Every key a decoder asks about is recorded, present or not, and done() rejects every
// other key by name — "run: unknown option 'temprature' (did you mean 'temperature'?); known options: text, …" —
// so no list of option names is kept beside the code that reads them. Values are named by their key with the
// object's prefix ("params.W", "loss.query"), as the messages of the core name them.
class Options {
 public:
  // where: the call ("run") or the nested option ("attention: params"). An absent object reads as empty.
  Options(val o, std::string where, std::string prefix = "")
      : o_(std::move(o)), where_(std::move(where)), prefix_(std::move(prefix)) {
    if (o_.isUndefined()) return;
    if (o_.isNull() || type_of(o_) != "object" || o_.isArray()) {
      ap::fail(where_ + ": options must be an object, got " + (o_.isNull() ? "null" : type_of(o_)));
    }
  }

  bool has(const char* key) {
    if (std::none_of(known_.begin(), known_.end(), [&](const char* k) { return std::strcmp(k, key) == 0; }))
      known_.push_back(key);
    return apb::has(o_, key);
  }
  val get(const char* key) {
    has(key);
    return o_.isUndefined() ? val::undefined() : o_[key];
  }
  // A value's name in messages.
  std::string name(const char* key) const { return prefix_ + key; }
  // An object option read the same way ("attention: params", values "params.W").
  Options child(const char* key) { return Options(get(key), where_ + ": " + key, prefix_ + key + "."); }

  // Each reads `key` into dst when present (and says whether it was), leaving dst as it is otherwise.
  bool read(const char* key, int& dst) { return read_with(key, dst, int_of); }
  bool read(const char* key, std::optional<int>& dst) {
    int v = 0;
    return read(key, v) && (dst = v, true);
  }
  bool read(const char* key, bool& dst) { return read_with(key, dst, bool_of); }
  bool read(const char* key, std::string& dst) { return read_with(key, dst, string_of); }
  bool read(const char* key, ap::Mat& dst) { return read_with(key, dst, matrix_from_js); }
  bool read(const char* key, std::optional<ap::Mat>& dst) {
    ap::Mat m;
    return read(key, m) && (dst = std::move(m), true);
  }
  bool read(const char* key, ap::Vec& dst) { return read_with(key, dst, vector_from_js); }
  bool read(const char* key, std::vector<int>& dst) { return read_with(key, dst, ints_from_js); }
  bool read(const char* key, float& dst) {
    return read_with(key, dst, [](const val& v, const std::string& n) { return static_cast<float>(number_of(v, n)); });
  }
  // A seed: an integer JS holds exactly (0 to 2^53 − 1), as run() and createTrainer() take it.
  bool read(const char* key, uint64_t& dst) {
    return read_with(key, dst, [](const val& v, const std::string& n) {
      const double s = number_of(v, n);
      if (s < 0 || s != std::floor(s) || s > 9007199254740991.0)
        ap::fail(n + ": expected an integer from 0 to 2^53 - 1, got " + ap::fmt(s));
      return static_cast<uint64_t>(s);
    });
  }

  // Throws on the first key nobody asked about, naming every key that was.
  void done() const {
    const std::string key = first_unknown();
    if (key.empty()) return;
    std::string message = unknown(key) + "; known options:";
    for (std::size_t k = 0; k < known_.size(); ++k) message += std::string(k ? ", " : " ") + known_[k];
    ap::fail(known_.empty() ? message + " none" : message);
  }

  // A required `key` is absent: a key given near it that nobody asked about was meant (a typo), and that is the
  // error; else `message`.
  [[noreturn]] void missing(const char* key, const std::string& message) {
    has(key);
    const std::string typo = first_unknown(key);
    ap::fail(typo.empty() ? message : unknown(typo));
  }

 private:
  // The first key given that nobody asked about (with `near`: the first that is a near miss of it).
  std::string first_unknown(const char* near = nullptr) const {
    if (o_.isUndefined()) return "";
    const val keys = val::global("Object").call<val>("keys", o_);
    const int n = keys["length"].as<int>();
    for (int i = 0; i < n; ++i) {
      const std::string key = keys[i].as<std::string>();
      if (std::any_of(known_.begin(), known_.end(), [&](const char* k) { return key == k; })) continue;
      if (!near || !nearest_option(key, {near}).empty()) return key;
    }
    return "";
  }

  std::string unknown(const std::string& key) const {
    const std::string near = nearest_option(key, known_);
    return where_ + ": unknown option '" + key + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)");
  }

  template <class T, class Decode>
  bool read_with(const char* key, T& dst, Decode decode) {
    if (!has(key)) return false;
    dst = decode(o_[key], name(key));
    return true;
  }

  val o_;
  std::string where_, prefix_;
  std::vector<const char*> known_;
};

// ---- Encoders ----

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

// Runs call(f); an exception becomes { error: message } so the JS side can throw a real Error while the module
// keeps running (a C++ exception must not cross into JS, and a JS throw would skip destructors). One body for every
// binding: as a template it was ~790 bytes of catch handlers per bound function (about 12 KB of the page engine).
__attribute__((noinline)) inline val guarded_call(val (*call)(const void*), const void* f) {
  try {
    return call(f);
  } catch (const ap::Error& e) {
    return error_value(e.what());
  } catch (const std::bad_alloc&) {
    return error_value(
        "out of memory: the request needs more memory than the engine can have (2 GiB); use smaller inputs");
  } catch (const std::exception& e) {
    return error_value(std::string("internal error: ") + e.what());
  }
}

template <class F>
val guarded(const F& f) {
  return guarded_call([](const void* p) { return (*static_cast<const F*>(p))(); }, &f);
}

}  // namespace apb
