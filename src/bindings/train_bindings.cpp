// embind for the trainer: decode JS options, call the training core, copy results out.
// Every method returns a plain object or { error } (see guarded in convert.h); src/js/trainer.ts
// turns the latter into a thrown Error.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>
#include <optional>

#include "bindings/convert.h"
#include "core/train.h"

namespace {

using emscripten::val;
using namespace apb;
namespace tr = ap::train;

val score_to_js(const tr::Score& s) {
  val o = val::object();
  o.set("loss", s.loss);
  o.set("accuracy", s.accuracy);
  if (!std::isnan(s.restAccuracy)) o.set("restAccuracy", s.restAccuracy);
  return o;
}

val rows_to_js(const std::vector<std::vector<double>>& rows) {
  val a = val::array();
  for (const auto& r : rows) a.call<void>("push", val::array(r));
  return a;
}

val param_to_js(const tr::Param& p) {
  if (p.vector) return tensor_to_js(p.value.data(), {static_cast<int>(p.value.cols())});
  return tensor_to_js(p.value);
}

val params_to_js(const std::vector<tr::Param>& ps) {
  val o = val::object();
  for (const auto& p : ps) o.set(p.name, param_to_js(p));
  return o;
}

val grads_to_js(const std::vector<tr::Param>& ps, const std::vector<ap::Mat>& gs) {
  val o = val::object();
  for (size_t i = 0; i < ps.size(); ++i) {
    tr::Param g{ps[i].name, gs[i], ps[i].vector};
    o.set(g.name, param_to_js(g));
  }
  return o;
}

std::vector<tr::Example> batch_of(const val& b) {
  if (!b.isArray()) ap::fail("batch: expected an array of { ids, targets?, pointer? }, got a " + type_of(b));
  const int n = b["length"].as<int>();
  // Bounds the decoding work; an empty batch is the core's rule (Model::loss).
  if (n > 4096) ap::fail("batch: expected at most 4096 examples, got " + std::to_string(n));
  std::vector<tr::Example> out;
  for (int i = 0; i < n; ++i) {
    const std::string name = "batch[" + std::to_string(i) + "]";
    const val e = b[i];
    if (!has(e, "ids")) ap::fail(name + ".ids: required");
    tr::Example ex;
    ex.ids = ints_from_js(e["ids"], name + ".ids");
    if (has(e, "targets")) ex.targets = ints_from_js(e["targets"], name + ".targets");
    if (has(e, "pointer")) {
      const auto p = ints_from_js(e["pointer"], name + ".pointer");
      if (p.size() != 2) ap::fail(name + ".pointer: expected [from, to], got " + std::to_string(p.size()) + " numbers");
      ex.pointerFrom = p[0];
      ex.pointerTo = p[1];
    }
    out.push_back(std::move(ex));
  }
  return out;
}

val example_to_js(const tr::Example& e) {
  val o = val::object();
  o.set("ids", val::array(e.ids));
  if (!e.targets.empty()) o.set("targets", val::array(e.targets));
  if (e.pointerFrom >= 0) o.set("pointer", val::array(std::vector<int>{e.pointerFrom, e.pointerTo}));
  if (e.segLen > 0) o.set("segment", val::array(std::vector<int>{e.segStart, e.segLen}));
  return o;
}

class TrainerHandle {
 public:
  val configure(val opts) {
    return guarded([&] {
      tr::TrainerOptions o;
      Options in(opts, "createTrainer");
      const std::pair<const char*, std::string*> strings[] = {
          {"task", &o.task},         {"score", &o.score}, {"optimizer", &o.optimizer}, {"mask", &o.mask},
          {"schedule", &o.schedule}, {"text", &o.text},   {"positions", &o.positions}};
      for (const auto& [key, dst] : strings) in.read(key, *dst);
      in.read("ropeBase", o.ropeBase);
      const std::pair<const char*, std::optional<int>*> sizes[] = {
          {"heads", &o.heads}, {"dq", &o.dq}, {"dk", &o.dk}, {"dv", &o.dv}, {"layers", &o.layers}};
      for (const auto& [key, dst] : sizes) in.read(key, *dst);
      in.read("dModel", o.dModel);
      in.read("batchSize", o.batchSize);
      in.read("context", o.context);
      in.read("lr", o.lr);
      in.read("temperature", o.temperature);
      in.read("scale", o.scale);
      in.read("seed", o.seed);
      in.done();
      t_ = std::make_unique<tr::Trainer>(o);
      return info();
    });
  }

  val info() const {
    const auto& task = t_->task();
    const auto& c = t_->model().config();
    val o = val::object();
    o.set("task", task.name);
    o.set("vocab", val::array(task.vocab));
    o.set("classes", val::array(task.classes));
    o.set("tokenizer", task.tokenizer);
    o.set("maxLen", task.maxLen);
    o.set("sample", task.sample);
    o.set("trainSize", static_cast<int>(task.train.size()));
    o.set("testSize", static_cast<int>(task.test.size()));
    val cfg = val::object();
    cfg.set("dModel", c.dModel);
    cfg.set("dq", c.dq);
    cfg.set("dk", c.dk);
    cfg.set("dv", c.dv);
    cfg.set("heads", c.heads);
    cfg.set("layers", c.layers);
    cfg.set("score", std::string(ap::score_name(c.score)));
    cfg.set("scale", c.head_scale());
    cfg.set("temperature", c.temperature);
    cfg.set("mask", std::string(c.causal ? "causal" : "none"));
    cfg.set("positions", std::string(ap::positions_name(c.positions)));
    cfg.set("ropeBase", c.ropeBase);
    cfg.set("optimizer", t_->options().optimizer);
    cfg.set("lr", t_->base_lr());
    cfg.set("schedule", t_->schedule());
    cfg.set("lrInUse", t_->lr());
    cfg.set("batchSize", t_->options().batchSize);
    cfg.set("seed", static_cast<double>(t_->options().seed));
    o.set("config", cfg);
    return o;
  }

  val step(int n) {
    return guarded([&] {
      ready();
      return with_progress(score_to_js(t_->step(n)));
    });
  }

  val trainOn(val batch) {
    return guarded([&] {
      ready();
      return with_progress(score_to_js(t_->train_on(batch_of(batch))));
    });
  }

  val evaluate(val limit) {
    return guarded([&] {
      ready();
      const int n = limit.isUndefined() || limit.isNull() ? 0 : int_of(limit, "limit");
      return score_to_js(t_->evaluate(n));
    });
  }

  val headScores(val limit) {
    return guarded([&] {
      ready();
      const int n = limit.isUndefined() || limit.isNull() ? 0 : int_of(limit, "limit");
      const tr::HeadScores h = t_->head_scores(n);
      val r = val::object();
      r.set("previousToken", rows_to_js(h.previousToken));
      r.set("induction", rows_to_js(h.induction));
      r.set("duplicateToken", rows_to_js(h.duplicateToken));
      return r;
    });
  }

  val setLr(double lr) {
    return guarded([&] {
      ready();
      t_->set_lr(static_cast<float>(lr));
      val r = val::object();
      r.set("lrInUse", t_->lr());
      return r;
    });
  }

  val parameters() {
    return guarded([&] {
      ready();
      return params_to_js(t_->model().params());
    });
  }

  val setParameters(val obj) {
    return guarded([&] {
      ready();
      if (obj.isUndefined() || obj.isNull() || type_of(obj) != "object")
        ap::fail("parameters: expected an object { name: Tensor }");
      auto& ps = t_->model().params();
      const val keys = val::global("Object").call<val>("keys", obj);
      const int n = keys["length"].as<int>();
      // Decode and check everything first so a bad entry leaves the model untouched.
      std::vector<std::pair<int, ap::Mat>> updates;
      for (int i = 0; i < n; ++i) {
        const std::string k = keys[i].as<std::string>();
        const int idx = t_->model().param_index(k);
        if (idx < 0) ap::fail("parameters." + k + ": no such parameter in this model");
        const std::string name = "parameters." + k;
        const tr::Param& p = ps[idx];
        const long long rows = p.value.rows(), cols = p.value.cols();
        const std::vector<long long> want =
            p.vector ? std::vector<long long>{cols} : std::vector<long long>{rows, cols};
        updates.emplace_back(idx, exact_from_js(obj[k], name, want, rows, cols));
      }
      for (auto& [idx, m] : updates) ps[idx].value = std::move(m);
      return val::object();
    });
  }

  // Loss, accuracy and d(loss)/d(parameter) on a batch, without updating anything.
  val gradients(val batch) {
    return guarded([&] {
      ready();
      std::vector<tr::Example> b;
      if (batch.isUndefined() || batch.isNull()) {
        const auto& train = t_->task().train;
        const size_t n = std::min<size_t>(train.size(), static_cast<size_t>(t_->options().batchSize));
        b.assign(train.begin(), train.begin() + static_cast<long>(n));
      } else {
        b = batch_of(batch);
      }
      std::vector<ap::Mat> grads;
      const tr::Score s = t_->model().loss(b, &grads);
      val r = score_to_js(s);
      r.set("grads", grads_to_js(t_->model().params(), grads));
      return r;
    });
  }

  val examples(std::string split, int count) {
    return guarded([&] {
      ready();
      if (split != "train" && split != "test") ap::fail("split: expected 'train' or 'test', got '" + split + "'");
      const auto& set = split == "train" ? t_->task().train : t_->task().test;
      if (count < 0) ap::fail("count: expected ≥ 0, got " + std::to_string(count));
      val a = val::array();
      for (size_t i = 0; i < set.size() && static_cast<int>(i) < count; ++i)
        a.call<void>("push", example_to_js(set[i]));
      return a;
    });
  }

  val trace(val textVal, val layerVal) {
    return guarded([&] {
      ready();
      const std::string text = string_of(textVal, "text");
      const auto t = t_->trace(text);
      const auto& c = t_->model().config();
      int layer = static_cast<int>(t.layers.size()) - 1;
      if (!layerVal.isUndefined() && !layerVal.isNull()) {
        layer = int_of(layerVal, "layer");
        if (layer < 0 || layer >= static_cast<int>(t.layers.size()))
          ap::fail("layer: expected 0.." + std::to_string(t.layers.size() - 1) + ", got " + std::to_string(layer));
      }
      const tr::LayerTrace& L = t.layers[layer];
      const auto& ps = t_->model().params();
      const std::string pre = "layers." + std::to_string(layer) + ".";
      auto P = [&](const std::string& n) -> const tr::Param& { return ps[t_->model().param_index(pre + n)]; };
      val o = val::object();
      o.set("tokens", val::array(t.tokens));
      o.set("tokenIds", val::array(t.ids));
      o.set("vocab", val::array(t_->task().vocab));
      o.set("merges", val::array());
      o.set("selfAttention", true);
      set_steps(o, {L.input, P("Wq").value, P("Wk").value, P("Wv").value, L.Q, L.K, L.V, L.scores, L.scaledScores,
                    L.maskedScores, L.weights, L.output});
      val masked = val::array();
      o.set("maskedRows", masked);  // causal and no mask never mask a whole row
      o.set("scale", c.head_scale());
      val params = val::array();
      for (int h = 0; h < c.heads; ++h) {
        val hp = val::object();
        const std::string hn = "heads." + std::to_string(h) + ".";
        for (const char* k : {"W", "Wq", "Wk", "v", "b"}) {
          const int idx = t_->model().param_index(pre + hn + k);
          if (idx >= 0) hp.set(k, param_to_js(ps[idx]));
        }
        params.call<void>("push", hp);
      }
      o.set("params", c.heads == 1 ? val(params[0]) : params);
      o.set("layer", layer);
      o.set("layers", static_cast<int>(t.layers.size()));
      o.set("Wo", tensor_to_js(P("Wo").value));
      o.set("layerOutput", tensor_to_js(L.result));
      if (t.probs.size()) {
        o.set("probs", tensor_to_js(t.probs));
        o.set("classes", val::array(t_->task().classes));
      }
      return o;
    });
  }

 private:
  std::unique_ptr<tr::Trainer> t_;
  // A score after training steps, with how far the training is and the learning rate of its next step.
  val with_progress(val r) const {
    r.set("steps", static_cast<double>(t_->steps_done()));
    r.set("lrInUse", t_->lr());
    return r;
  }
  void ready() const {
    if (!t_) ap::fail("trainer: not configured (or disposed)");
  }
};

}  // namespace

EMSCRIPTEN_BINDINGS(train) {
  emscripten::class_<TrainerHandle>("TrainerHandle")
      .constructor<>()
      .function("configure", &TrainerHandle::configure)
      .function("step", &TrainerHandle::step)
      .function("trainOn", &TrainerHandle::trainOn)
      .function("evaluate", &TrainerHandle::evaluate)
      .function("headScores", &TrainerHandle::headScores)
      .function("setLr", &TrainerHandle::setLr)
      .function("parameters", &TrainerHandle::parameters)
      .function("setParameters", &TrainerHandle::setParameters)
      .function("gradients", &TrainerHandle::gradients)
      .function("examples", &TrainerHandle::examples)
      .function("trace", &TrainerHandle::trace);
}
