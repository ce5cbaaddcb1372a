// What the language model's two bindings (lm_bindings.cpp: the package's model; lm_train_bindings.cpp: the trainer)
// copy out the same way: head scores, the tensors by nanoGPT name, a sampler seed.
#pragma once

#include <emscripten/val.h>

#include <cmath>
#include <string>
#include <vector>

#include "bindings/convert.h"
#include "core/lm.h"

namespace apb {

// A bias or a LayerNorm weight: 1-D in torch.
inline bool lm_vector_tensor(const std::string& name) {
  return name.find(".bias") != std::string::npos || name.find("ln_") != std::string::npos;
}

// Every tensor by its nanoGPT name (copies; biases and LayerNorm weights 1-D).
inline emscripten::val lm_parameters_to_js(const ap::lm::Model& m) {
  emscripten::val o = emscripten::val::object();
  ap::lm::for_each_tensor(m.config(), m.params(), [&](const std::string& name, const ap::Mat& t, int, int cols) {
    o.set(name, lm_vector_tensor(name) ? tensor_to_js(t.data(), {cols}) : tensor_to_js(t));
  });
  return o;
}

// { previousLine, previousChar, lineEnd: [layers][heads], labels: (role | null)[layers][heads], threshold }
inline emscripten::val head_scores_to_js(const ap::lm::HeadScores& s, int layers, int heads) {
  using emscripten::val;
  auto rows = [&](const std::vector<double>& v) {
    val a = val::array();
    for (int l = 0; l < layers; ++l)
      a.call<void>("push", val::array(std::vector<double>(v.begin() + l * heads, v.begin() + (l + 1) * heads)));
    return a;
  };
  val out = val::object();
  out.set("previousLine", rows(s.previousLine));
  out.set("previousChar", rows(s.previousChar));
  out.set("lineEnd", rows(s.lineEnd));
  val labels = val::array();
  for (int l = 0; l < layers; ++l) {
    val row = val::array();
    for (int h = 0; h < heads; ++h) {
      const std::string& lab = s.labels[static_cast<std::size_t>(l * heads + h)];
      row.call<void>("push", lab.empty() ? val::null() : val(lab));
    }
    labels.call<void>("push", row);
  }
  out.set("labels", labels);
  out.set("threshold", ap::lm::kHeadLabelThreshold);
  return out;
}

// mulberry32's seed: an integer from 0 to 2^32 − 1.
inline uint32_t sampler_seed_of(const emscripten::val& v) {
  const double seed = number_of(v, "seed");
  AP_REQUIRE(seed == std::floor(seed) && seed >= 0 && seed <= 4294967295.0,
             "seed: must be an integer from 0 to 4294967295, got " + ap::fmt(seed));
  return static_cast<uint32_t>(seed);
}

}  // namespace apb
