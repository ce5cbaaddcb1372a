// embind for the language-model trainer (lm_train.h's lm::Trainer, the Train tab's task `poems`): decode JS
// values, call the core, copy results out. Every method returns a plain object or { error } (guarded, convert.h);
// src/js/poemsTrainer.ts checks the option names and kinds first and turns { error } into an AttentionError.
// Apart from train_bindings.cpp so that issue 38's training-only module can take it whole.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "bindings/convert.h"
#include "bindings/lm_convert.h"
#include "core/lm_train.h"

namespace {

using emscripten::val;
using namespace apb;
namespace lm = ap::lm;

// Ids (src/js/poemsTrainer.ts hands over every id array as an Int32Array); absent: none.
std::vector<int> ids_in(const val& a, const std::string& name) {
  return a.isUndefined() || a.isNull() ? std::vector<int>() : ints_from_js(a, name);
}

class LmTrainerHandle {
 public:
  // opts: { layers, heads, dModel, vocabSize, context, batch, positions, lr, warmup, decaySteps, minLr, weightDecay,
  // beta1, beta2, gradClip, seed } (all given: the JS side fills the defaults); train / validation: Int32Array or
  // undefined; vocab: string[] (may be empty).
  val configure(val opts, val train, val validation, val vocab) {
    return guarded([&] {
      lm::TrainOptions o;
      o.model.layers = int_of(opts["layers"], "layers");
      o.model.heads = int_of(opts["heads"], "heads");
      o.model.dModel = int_of(opts["dModel"], "dModel");
      o.model.vocab = int_of(opts["vocabSize"], "vocabSize");
      o.model.context = int_of(opts["context"], "context");
      o.model.positions = ap::parse_positions(string_of(opts["positions"], "positions"));
      o.batch = int_of(opts["batch"], "batch");
      o.lr = number_of(opts["lr"], "lr");
      o.warmup = int_of(opts["warmup"], "warmup");
      o.decaySteps = int_of(opts["decaySteps"], "decaySteps");
      o.minLr = number_of(opts["minLr"], "minLr");
      o.gradClip = number_of(opts["gradClip"], "gradClip");
      o.adamw.weightDecay = number_of(opts["weightDecay"], "weightDecay");
      o.adamw.beta1 = number_of(opts["beta1"], "beta1");
      o.adamw.beta2 = number_of(opts["beta2"], "beta2");
      o.seed = sampler_seed_of(opts["seed"]);
      std::vector<std::string> words;
      const int nv = vocab["length"].as<int>();
      for (int i = 0; i < nv; ++i) words.push_back(string_of(vocab[i], "vocab[" + std::to_string(i) + "]"));
      t_ = std::make_unique<lm::Trainer>(o, ids_in(train, "train"), ids_in(validation, "validation"), std::move(words));
      val r = val::object();
      r.set("parameters", static_cast<double>(o.model.parameter_count()));
      r.set("windows", t_->windows());
      r.set("validationPoems", t_->validation_poems());
      r.set("lrInUse", t_->lr_now());
      return r;
    });
  }

  val step(int n) {
    return guarded([&] {
      const double loss = trainer().step(n);
      return progress(loss);
    });
  }

  val trainOn(val windows, int batch) {
    return guarded([&] {
      const double loss = trainer().train_on(ids_in(windows, "windows"), batch);
      return progress(loss);
    });
  }

  val evaluate(int limit) {
    return guarded([&] {
      val r = val::object();
      r.set("loss", trainer().evaluate(limit));
      return r;
    });
  }

  // { prompt: string | Int32Array, maxTokens, temperature, topK, topP, seed }
  val sample(val o) {
    return guarded([&] {
      const lm::Model& m = trainer().model();
      const val p = o["prompt"];
      const std::vector<int> prompt = type_of(p) == "string" ? m.encode(string_of(p, "prompt")) : ids_in(p, "prompt");
      lm::GenerateOptions g;
      g.maxTokens = int_of(o["maxTokens"], "maxTokens");
      g.sample.temperature = number_of(o["temperature"], "temperature");
      g.sample.topK = int_of(o["topK"], "topK");
      g.sample.topP = number_of(o["topP"], "topP");
      g.sample.seed = sampler_seed_of(o["seed"]);
      g.stopId = 0;  // the poems' "\n"
      const lm::GenerateResult r = lm::generate(m, prompt, g);
      val out = val::object();
      out.set("promptIds", val::array(prompt));
      out.set("ids", val::array(r.ids));
      if (!m.vocab().empty()) out.set("text", m.decode(r.ids));
      out.set("reason", r.reason);
      return out;
    });
  }

  val headScores(int limit) {
    return guarded([&] {
      const lm::Config& c = trainer().model().config();
      return head_scores_to_js(trainer().head_scores(limit), c.layers, c.heads);
    });
  }

  // Every tensor by its nanoGPT name (copies; biases and LayerNorm weights 1-D), as LanguageModelHandle's.
  val parameters() {
    return guarded([&] { return lm_parameters_to_js(trainer().model()); });
  }

  // { name: { shape, data: Float32Array } } for some or all tensors; all are checked before any is changed.
  val setParameters(val obj) {
    return guarded([&] {
      lm::Model& m = trainer().model_mut();
      const lm::Config& c = m.config();
      const val keys = val::global("Object").call<val>("keys", obj);
      const int n = keys["length"].as<int>();
      const std::vector<std::string> names = lm::tensor_names(c);
      std::vector<ap::Mat*> tensors = lm::tensor_list(c, m.params_mut());
      std::vector<std::pair<ap::Mat*, ap::Mat>> updates;
      for (int i = 0; i < n; ++i) {
        const std::string k = keys[i].as<std::string>();
        const auto it = std::find(names.begin(), names.end(), k);
        if (it == names.end()) ap::fail("parameters." + k + ": no such tensor in this model");
        ap::Mat* dst = tensors[static_cast<std::size_t>(it - names.begin())];
        const std::vector<long long> want = lm_vector_tensor(k) ? std::vector<long long>{dst->cols()}
                                                                : std::vector<long long>{dst->rows(), dst->cols()};
        updates.emplace_back(dst, exact_from_js(obj[k], "parameters." + k, want, dst->rows(), dst->cols()));
      }
      for (auto& [dst, v] : updates) *dst = std::move(v);
      return val::object();
    });
  }

 private:
  std::unique_ptr<lm::Trainer> t_;

  lm::Trainer& trainer() const {
    if (!t_) ap::fail("trainer: not configured (or disposed)");
    return *t_;
  }

  val progress(double loss) const {
    val r = val::object();
    r.set("loss", loss);
    r.set("steps", t_->steps());
    r.set("lrInUse", t_->lr_now());
    return r;
  }
};

}  // namespace

EMSCRIPTEN_BINDINGS(lm_train) {
  emscripten::class_<LmTrainerHandle>("LmTrainerHandle")
      .constructor<>()
      .function("configure", &LmTrainerHandle::configure)
      .function("step", &LmTrainerHandle::step)
      .function("trainOn", &LmTrainerHandle::trainOn)
      .function("evaluate", &LmTrainerHandle::evaluate)
      .function("sample", &LmTrainerHandle::sample)
      .function("headScores", &LmTrainerHandle::headScores)
      .function("parameters", &LmTrainerHandle::parameters)
      .function("setParameters", &LmTrainerHandle::setParameters);
}
