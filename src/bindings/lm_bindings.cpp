// embind for the language model (src/core/lm.h): decode JS values, call the core, copy results out. Every method
// returns a plain object or { error } (guarded, convert.h); src/js/languageModel.ts reads the file, checks the
// option names and turns { error } into a thrown AttentionError.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>

#include "bindings/convert.h"
#include "bindings/lm_convert.h"
#include "core/lm.h"

namespace {

using emscripten::val;
using namespace apb;
namespace lm = ap::lm;

// Token ids (the one integer-array decoder), at most `limit` of them (the model's context, where it applies).
std::vector<int> ids_of(const val& v, const std::string& name, long long limit) {
  std::vector<int> ids = ints_from_js(v, name);
  if (static_cast<long long>(ids.size()) > limit)
    ap::fail(name + ": " + std::to_string(ids.size()) + " ids is more than the limit of " + std::to_string(limit));
  return ids;
}

// The vocabulary as src/js/languageModel.ts sends it: every string joined into one, and each one's length in UTF-16
// code units. One crossing of the JS boundary for all of them, where a string at a time took four (2,401 strings:
// 38 ms of a fresh page's 90 ms load in Chromium). A length counts 2 for a 4-byte UTF-8 sequence, else 1.
std::vector<std::string> vocab_of(const val& text, const val& lengths) {
  const std::string name = "__metadata__.vocab";
  const std::string all = string_of(text, name);
  const std::vector<int> units = ints_from_js(lengths, name + " lengths");
  if (units.size() > static_cast<std::size_t>(lm::kMaxVocab) + 1)
    ap::fail(name + ": " + std::to_string(units.size()) + " entries is more than the limit of " +
             std::to_string(lm::kMaxVocab + 1));
  std::vector<std::string> out;
  out.reserve(units.size());
  std::size_t p = 0;
  for (std::size_t i = 0; i < units.size(); ++i) {
    if (units[i] < 0) ap::fail(element_name(name, i) + ": a negative length");
    const std::size_t start = p;
    for (int k = 0; k < units[i];) {
      if (p >= all.size()) ap::fail(element_name(name, i) + ": the lengths run past the joined text");
      const auto c = static_cast<unsigned char>(all[p]);
      const int bytes = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
      p += static_cast<std::size_t>(bytes);
      k += bytes == 4 ? 2 : 1;
    }
    out.emplace_back(all, start, p - start);
  }
  if (p != all.size()) ap::fail(name + ": the lengths end before the joined text");
  return out;
}

val candidates_to_js(const std::vector<lm::Candidate>& cs, const lm::Model& m) {
  val a = val::array();
  for (const auto& c : cs) {
    val o = val::object();
    o.set("id", c.id);
    if (!m.vocab().empty()) o.set("token", m.vocab()[static_cast<std::size_t>(c.id)]);
    o.set("p", c.p);
    a.call<void>("push", o);
  }
  return a;
}

val config_to_js(const lm::Config& c) {
  val o = val::object();
  o.set("vocabSize", c.vocab);
  o.set("context", c.context);
  o.set("layers", c.layers);
  o.set("heads", c.heads);
  o.set("dModel", c.dModel);
  o.set("positions", std::string(ap::positions_name(c.positions)));
  if (c.positions == ap::Positions::Rope) o.set("ropeBase", c.ropeBase);
  o.set("tied", c.tied);
  val b = val::object();
  const std::pair<const char*, bool> kinds[] = {
      {"ln_1", c.bias.ln1}, {"attn.c_attn", c.bias.attn}, {"attn.c_proj", c.bias.attnProj},
      {"ln_2", c.bias.ln2}, {"mlp.c_fc", c.bias.fc},      {"mlp.c_proj", c.bias.mlpProj},
      {"ln_f", c.bias.lnf}};
  for (const auto& [k, on] : kinds) b.set(k, on);
  o.set("biases", b);
  o.set("parameters", static_cast<double>(c.parameter_count()));
  return o;
}

// Rows [0, n) of per-head matrices as one [heads, n, n] Tensor.
val heads_to_js(const std::vector<ap::Mat>& w, std::size_t first, int heads) {
  return stack_to_js(
      std::vector<ap::Mat>(w.begin() + static_cast<long>(first), w.begin() + static_cast<long>(first) + heads));
}

// The top `k` of softmax(row) for each row of logits: { ids: number[][], probs: number[][] }.
val top_to_js(const ap::Mat& logits, int k) {
  val ids = val::array(), probs = val::array();
  for (Eigen::Index r = 0; r < logits.rows(); ++r) {
    lm::SampleOptions o;
    const lm::Draw d = lm::sample(logits.data() + r * logits.cols(), static_cast<int>(logits.cols()), o, 0.0, k);
    val ri = val::array(), rp = val::array();
    for (const auto& c : d.before) {
      ri.call<void>("push", c.id);
      rp.call<void>("push", c.p);
    }
    ids.call<void>("push", ri);
    probs.call<void>("push", rp);
  }
  val o = val::object();
  o.set("ids", ids);
  o.set("probs", probs);
  return o;
}

class LanguageModelHandle {
 public:
  // tensors: [{ name, shape, data: Float32Array }],
  // meta: { heads, positions?, ropeBase?, context?, vocabText, vocabLengths } (vocab_of)
  val load(val tensors, val meta) {
    return guarded([&] {
      if (!tensors.isArray()) ap::fail("file: expected the tensors as an array");
      const int count = tensors["length"].as<int>();
      // Sizes first, so a file far over the caps is refused before anything is copied in.
      long long total = 0;
      for (int i = 0; i < count; ++i) total += static_cast<long long>(tensors[i]["data"]["length"].as<double>());
      constexpr long long kMaxFloats = lm::kMaxParams + (1LL << 26);
      AP_REQUIRE(total <= kMaxFloats, "file: " + std::to_string(total) + " numbers is more than the limit of " +
                                          std::to_string(kMaxFloats) + " for a language model");
      std::vector<lm::NamedTensor> ts(static_cast<std::size_t>(count));
      for (int i = 0; i < count; ++i) {
        const val t = tensors[i];
        lm::NamedTensor& nt = ts[static_cast<std::size_t>(i)];
        nt.name = t["name"].as<std::string>();
        const TensorIn in = tensor_in(t, nt.name);
        nt.shape = in.shape;
        nt.data.resize(static_cast<std::size_t>(in.size));
        in.copy_to(nt.data.data(), 0, in.size);
      }
      lm::FileMeta fm;
      fm.heads = int_of(meta["heads"], "__metadata__.n_head");
      if (has(meta, "positions")) fm.positions = string_of(meta["positions"], "__metadata__.positions");
      if (has(meta, "ropeBase"))
        fm.ropeBase = static_cast<float>(number_of(meta["ropeBase"], "__metadata__.rope_base"));
      if (has(meta, "context")) fm.context = int_of(meta["context"], "__metadata__.context");
      fm.vocab = vocab_of(meta["vocabText"], meta["vocabLengths"]);
      std::vector<std::string> notes;
      auto loaded = std::make_unique<lm::Model>(lm::load_state_dict(std::move(ts), fm, &notes));
      // The C++ reader lets a caller go without a vocabulary (ids only); the package promises text, so one string
      // per id is required here (an empty JSON array too: found by the language-model fuzzing, seed 37000912).
      const lm::Config& lc = loaded->config();
      AP_REQUIRE(static_cast<int>(loaded->vocab().size()) == lc.vocab,
                 "__metadata__.vocab: expected " + std::to_string(lc.vocab) +
                     " strings (one per row of transformer.wte.weight " + ap::shape_str({lc.vocab, lc.dModel}) +
                     "), got " + std::to_string(loaded->vocab().size()));
      m_ = std::move(loaded);
      val o = val::object();
      o.set("config", config_to_js(m_->config()));
      o.set("notes", val::array(notes));
      return o;  // the vocabulary is the caller's own (sent above)
    });
  }

  // ids, { trace: bool, lens: top-k count }
  val forward(val idsIn, val opts) {
    return guarded([&] {
      const lm::Model& m = model();
      const std::vector<int> ids = ids_of(idsIn, "ids", m.config().context);
      AP_REQUIRE(!ids.empty(), "ids: give at least one token id");
      lm::Acts a;
      m.forward(ids, 1, static_cast<int>(ids.size()), a);
      val o = val::object();
      o.set("logits", tensor_to_js(a.logits));
      if (has(opts, "trace") && bool_of(opts["trace"], "trace")) o.set("trace", trace_to_js(m, a, opts));
      return o;
    });
  }

  val encode(val text) {
    return guarded([&] { return val::array(model().encode(string_of(text, "text"), "text")); });
  }

  val decode(val idsIn) {
    return guarded([&] {
      const std::vector<int> ids = ints_from_js(idsIn, "ids");
      model().check_ids(ids, "ids");
      return val(model().decode(ids));
    });
  }

  // { prompt: string | ids, maxTokens, temperature, topK, topP, seed, stop: string | null, cache, attention }
  val generate(val o) {
    return guarded([&] {
      const lm::Model& m = model();
      const lm::Config& c = m.config();
      const val p = o["prompt"];
      const std::vector<int> prompt =
          type_of(p) == "string" ? m.encode(string_of(p, "prompt")) : ids_of(p, "prompt", c.context + 1);
      lm::GenerateOptions g;
      g.maxTokens = int_of(o["maxTokens"], "maxTokens");
      g.sample.temperature = number_of(o["temperature"], "temperature");
      g.sample.topK = int_of(o["topK"], "topK");
      g.sample.topP = number_of(o["topP"], "topP");
      g.sample.seed = sampler_seed_of(o["seed"]);
      if (has(o, "stop")) {
        const std::string stop = string_of(o["stop"], "stop");
        g.stopId = m.token_of(stop);
        AP_REQUIRE(g.stopId >= 0, "stop: the token " + stop + " is not in the model's vocabulary");
      }
      g.useCache = bool_of(o["cache"], "cache");
      g.attention = bool_of(o["attention"], "attention");
      const lm::GenerateResult r = lm::generate(m, prompt, g);
      val out = val::object();
      out.set("promptIds", val::array(prompt));
      out.set("ids", val::array(r.ids));
      out.set("text", m.decode(r.ids));
      out.set("reason", r.reason);
      val steps = val::array();
      for (const lm::GenerateStep& s : r.steps) {
        val st = val::object();
        st.set("position", s.position);
        st.set("id", s.draw.id);
        if (!m.vocab().empty()) st.set("token", m.vocab()[static_cast<std::size_t>(s.draw.id)]);
        st.set("u", s.draw.u);
        st.set("greedy", s.draw.greedy);
        st.set("kept", s.draw.kept);
        st.set("before", candidates_to_js(s.draw.before, m));
        st.set("after", candidates_to_js(s.draw.after, m));
        if (g.attention)
          st.set("attention",
                 tensor_to_js(s.attention.data(), {c.layers, c.heads, static_cast<int>(s.attention.cols())}));
        steps.call<void>("push", st);
      }
      out.set("steps", steps);
      return out;
    });
  }

  // poems: (string | ids)[]
  val headScores(val poems) {
    return guarded([&] {
      const lm::Model& m = model();
      if (!poems.isArray()) ap::fail("poems: expected an array of poems (strings or arrays of ids)");
      const int n = poems["length"].as<int>();
      AP_REQUIRE(n >= 1 && n <= 4096, "poems: give 1 to 4096 poems, got " + std::to_string(n));
      std::vector<std::vector<int>> ps;
      for (int i = 0; i < n; ++i) {
        const std::string name = "poems[" + std::to_string(i) + "]";
        const val p = poems[i];
        ps.push_back(type_of(p) == "string" ? m.encode(string_of(p, name), name) : ints_from_js(p, name));
      }
      return head_scores_to_js(lm::head_scores(m, ps), m.config().layers, m.config().heads);
    });
  }

  // Every tensor by its nanoGPT name (copies; biases and LayerNorm weights 1-D).
  val parameters() {
    return guarded([&] { return lm_parameters_to_js(model()); });
  }

 private:
  std::unique_ptr<lm::Model> m_;

  const lm::Model& model() const {
    if (!m_) ap::fail("model: not loaded (or disposed)");
    return *m_;
  }

  static val trace_to_js(const lm::Model& m, const lm::Acts& a, const val& opts) {
    const int lens = has(opts, "lens") ? int_of(opts["lens"], "lens") : 0;
    AP_REQUIRE(lens >= 0 && lens <= 50,
               "lens: the logit lens's top count must be from 0 to 50, got " + std::to_string(lens));
    val blocks = val::array();
    for (const lm::BlockActs& b : a.blocks) {
      val o = val::object();
      o.set("input", tensor_to_js(b.input));
      o.set("attention", tensor_to_js(b.attnOut));
      o.set("afterAttention", tensor_to_js(b.afterAttn));
      o.set("mlp", tensor_to_js(b.mlpOut));
      o.set("output", tensor_to_js(b.output));
      o.set("weights", heads_to_js(b.weights, 0, m.config().heads));
      o.set("mlpPreactivations", tensor_to_js(b.preact));
      o.set("mlpActivations", tensor_to_js(b.act));
      if (lens) o.set("lens", top_to_js(lm::lens_logits(m, b.output), lens));
      blocks.call<void>("push", o);
    }
    val t = val::object();
    t.set("ids", val::array(a.ids));
    if (!m.vocab().empty()) {
      val tokens = val::array();
      for (int id : a.ids) tokens.call<void>("push", m.vocab()[static_cast<std::size_t>(id)]);
      t.set("tokens", tokens);
    }
    t.set("blocks", blocks);
    t.set("final", tensor_to_js(a.lnf.out));
    return t;
  }
};

}  // namespace

EMSCRIPTEN_BINDINGS(language_model) {
  emscripten::class_<LanguageModelHandle>("LanguageModelHandle")
      .constructor<>()
      .function("load", &LanguageModelHandle::load)
      .function("forward", &LanguageModelHandle::forward)
      .function("encode", &LanguageModelHandle::encode)
      .function("decode", &LanguageModelHandle::decode)
      .function("generate", &LanguageModelHandle::generate)
      .function("headScores", &LanguageModelHandle::headScores)
      .function("parameters", &LanguageModelHandle::parameters);
}
