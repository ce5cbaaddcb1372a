// embind only: decode the JS options, call the core, encode the result (copies). Documented in src/js/index.ts.
#include <emscripten/bind.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

#include "bindings/convert.h"
#include "core/attention.h"
#include "core/backward.h"
#include "core/multihead.h"
#include "core/pipeline.h"
#include "core/positions.h"
#include "core/tokenizer.h"
#include "kernels/kernels.h"

using emscripten::val;
using namespace apb;

namespace {

ap::Mask decode_mask(const val& m, const std::string& name) {
  ap::Mask mask;
  if (m.isUndefined() || m.isNull()) return mask;
  if (type_of(m) == "string") {
    const std::string s = m.as<std::string>();
    if (s == "none") return mask;
    if (s == "causal") {
      mask.kind = ap::Mask::Kind::Causal;
      return mask;
    }
    throw ap::Error(name + ": unknown mask '" + s + "'; expected 'none', 'causal', { keyPadding } or { matrix }");
  }
  // (Also { window, sinks? }: the messages above are the table's K3, kept as they were.)
  if (type_of(m) != "object") throw ap::Error(name + ": expected 'none', 'causal', { keyPadding } or { matrix }");
  if (has(m, "window")) {
    mask.kind = ap::Mask::Kind::Window;
    mask.window = int_of(m["window"], name + ".window");  // the core checks the range
    if (has(m, "sinks")) mask.sinks = int_of(m["sinks"], name + ".sinks");
  } else if (has(m, "keyPadding")) {
    mask.kind = ap::Mask::Kind::KeyPadding;
    mask.keyPadding = bytes_from_js(m["keyPadding"], name + ".keyPadding");
  } else if (has(m, "matrix")) {
    mask.kind = ap::Mask::Kind::Matrix;
    mask.matrix = bytes_from_js(m["matrix"], name + ".matrix");
  } else {
    throw ap::Error(name +
                    ": an object mask needs keyPadding (one boolean per key), matrix (nq·nk, 1 = masked) or window "
                    "(keys per row of a causal sliding window)");
  }
  return mask;
}

ap::ScoreParams decode_params(const val& p, ap::ScoreRule rule) {
  ap::ScoreParams out;
  auto need = [&](const char* key) {
    if (!has(p, key))
      throw ap::Error(std::string("params.") + key + ": score '" + ap::score_name(rule) + "' needs params." + key);
    return p[key];
  };
  switch (rule) {
    case ap::ScoreRule::General: out.W = matrix_from_js(need("W"), "params.W"); break;
    case ap::ScoreRule::Additive:
      out.Wq = matrix_from_js(need("Wq"), "params.Wq");
      out.Wk = matrix_from_js(need("Wk"), "params.Wk");
      out.v = vector_from_js(need("v"), "params.v");
      break;
    case ap::ScoreRule::Concat:
      out.concatW = matrix_from_js(need("W"), "params.W");
      out.concatB = vector_from_js(need("b"), "params.b");
      if (has(p, "combineW") || has(p, "combineB")) {
        out.combineW = matrix_from_js(need("combineW"), "params.combineW");
        out.combineB = vector_from_js(need("combineB"), "params.combineB");
      }
      break;
    case ap::ScoreRule::Dot:
    case ap::ScoreRule::ScaledDot: break;  // no parameters
  }
  return out;
}

val encode_params(const ap::ScoreParams& p, ap::ScoreRule rule) {
  val o = val::object();
  switch (rule) {
    case ap::ScoreRule::General: o.set("W", tensor_to_js(p.W)); break;
    case ap::ScoreRule::Additive:
      o.set("Wq", tensor_to_js(p.Wq));
      o.set("Wk", tensor_to_js(p.Wk));
      o.set("v", tensor_to_js(p.v));
      break;
    case ap::ScoreRule::Concat:
      o.set("W", tensor_to_js(p.concatW));
      o.set("b", tensor_to_js(p.concatB));
      break;
    case ap::ScoreRule::Dot:
    case ap::ScoreRule::ScaledDot: break;  // no parameters
  }
  return o;
}

// scale: a number (multiplier), false (off = 1), or absent (the rule's default).
void decode_scale(const val& o, bool* hasScale, float* scale) {
  if (!has(o, "scale")) return;
  const val s = o["scale"];
  if (type_of(s) == "boolean") {
    if (s.as<bool>()) return;  // true = the default
    *hasScale = true;
    *scale = 1.f;
    return;
  }
  *hasScale = true;
  *scale = static_cast<float>(number_of(s, "scale"));
}

// Reads the matrices `o` holds, each into its field (a key `o` does not have leaves its field as it is).
// Field: ap::Mat, or std::optional<ap::Mat> where absent means "draw it from the seed".
template <class Field>
void read_matrices(const val& o, std::initializer_list<std::pair<const char*, Field*>> fields) {
  for (const auto& [key, m] : fields)
    if (has(o, key)) *m = matrix_from_js(o[key], key);
}

// Every attention call needs a query, a key and a value; `expected` says what each one is.
void require_qkv(const val& o, const std::string& expected) {
  for (const char* k : {"query", "key", "value"})
    if (!has(o, k)) throw ap::Error(std::string(k) + ": missing (" + expected + ")");
}

// query, key and value as one matrix each (the unbatched calls).
struct Qkv {
  ap::Mat q, k, v;
};
Qkv qkv_from_js(const val& o, const std::string& expected) {
  require_qkv(o, expected);
  return {matrix_from_js(o["query"], "query"), matrix_from_js(o["key"], "key"), matrix_from_js(o["value"], "value")};
}

std::vector<int> positions_from_js(const val& a, const std::string& name) {
  if (a["length"].isUndefined()) throw ap::Error(name + ": expected an array of integer positions");
  const long long n = static_cast<long long>(a["length"].as<double>());
  if (n > ap::kMaxSeq) throw ap::Error(name + ": too long (" + std::to_string(n) + " positions)");
  std::vector<int> out(static_cast<std::size_t>(n));
  for (long long i = 0; i < n; ++i)
    out[static_cast<std::size_t>(i)] = int_of(a[static_cast<int>(i)], name + "[" + std::to_string(i) + "]");
  return out;
}

// rope: true or { base?, queryPositions?, keyPositions? } (an absent or false rope leaves it off).
ap::RopeOptions decode_rope(const val& o, bool positionsAllowed) {
  ap::RopeOptions r;
  if (!has(o, "rope")) return r;
  const val v = o["rope"];
  if (type_of(v) == "boolean") {
    r.enabled = v.as<bool>();
    return r;
  }
  if (type_of(v) != "object") throw ap::Error("rope: expected true or an object { base? }, got a " + type_of(v));
  r.enabled = true;
  if (has(v, "base")) r.base = static_cast<float>(number_of(v["base"], "rope.base"));
  if (!positionsAllowed) return r;
  if (has(v, "queryPositions")) r.queryPositions = positions_from_js(v["queryPositions"], "rope.queryPositions");
  if (has(v, "keyPositions")) r.keyPositions = positions_from_js(v["keyPositions"], "rope.keyPositions");
  return r;
}

val tokenized_to_js(const ap::Tokenized& t) {
  val o = val::object();
  o.set("tokens", val::array(t.tokens));
  o.set("ids", val::array(t.ids));
  o.set("vocab", val::array(t.vocab));
  o.set("merges", merges_to_js(t.merges));
  return o;
}

ap::TokenizerOptions decode_tokenizer_options(const val& o) {
  ap::TokenizerOptions t;
  if (has(o, "bpeCorpus")) t.bpeCorpus = string_of(o["bpeCorpus"], "bpeCorpus");
  if (has(o, "bpeMerges")) t.bpeMerges = int_of(o["bpeMerges"], "bpeMerges");  // range checked by the tokenizer
  return t;
}

// run()'s options from JS (each read checked and named); the engine checks their ranges.
ap::RunOptions decode_run_options(const val& o) {
  ap::RunOptions r;
  if (has(o, "source") || has(o, "target")) {
    if (!has(o, "source") || !has(o, "target"))
      throw ap::Error("source/target: cross attention needs both source (keys, values) and target (queries)");
    r.cross = true;
    r.source = string_of(o["source"], "source");
    r.target = string_of(o["target"], "target");
  } else if (has(o, "text")) {
    r.text = string_of(o["text"], "text");
  }
  if (has(o, "tokenizer")) r.tokenizer = string_of(o["tokenizer"], "tokenizer");
  r.tokenizerOptions = decode_tokenizer_options(o);
  if (has(o, "dModel")) r.dModel = int_of(o["dModel"], "dModel");
  if (has(o, "dq")) r.dq = int_of(o["dq"], "dq");
  if (has(o, "dk")) r.dk = int_of(o["dk"], "dk");
  if (has(o, "dv")) r.dv = int_of(o["dv"], "dv");
  if (has(o, "heads")) r.heads = int_of(o["heads"], "heads");
  if (has(o, "seed")) {
    const double s = number_of(o["seed"], "seed");
    AP_REQUIRE(s >= 0 && s == std::floor(s) && s <= 9007199254740991.0,
               "seed: expected an integer from 0 to 2^53 - 1, got " + ap::fmt(s));
    r.seed = static_cast<uint64_t>(s);
  }
  if (has(o, "score")) r.score = ap::parse_score(string_of(o["score"], "score"));
  decode_scale(o, &r.hasScale, &r.scale);
  if (has(o, "temperature")) r.temperature = static_cast<float>(number_of(o["temperature"], "temperature"));
  r.mask = decode_mask(o["mask"], "mask");
  if (has(o, "positions")) r.positions = ap::parse_positions(string_of(o["positions"], "positions"));
  if (has(o, "ropeBase")) r.ropeBase = static_cast<float>(number_of(o["ropeBase"], "ropeBase"));
  read_matrices<std::optional<ap::Mat>>(o, {{"embeddings", &r.embeddings},
                                            {"sourceEmbeddings", &r.sourceEmbeddings},
                                            {"Wq", &r.Wq},
                                            {"Wk", &r.Wk},
                                            {"Wv", &r.Wv}});
  return r;
}

// The position steps a trace has (only those of its encoding): positions, rotatedQ, rotatedK, positionBias.
void set_position_steps(val& out, const ap::Trace& t) {
  if (t.positions.size() > 0) out.set("positions", tensor_to_js(t.positions));
  if (t.rotatedQ.size() > 0) {
    out.set("rotatedQ", tensor_to_js(t.rotatedQ));
    out.set("rotatedK", tensor_to_js(t.rotatedK));
  }
  if (!t.positionBias.empty())
    out.set("positionBias", t.positionBias.size() == 1 ? tensor_to_js(t.positionBias[0]) : stack_to_js(t.positionBias));
}

// The options as resolved (defaults filled in), so a trace says how to reproduce it.
val resolved_options(const ap::Trace& t, const ap::RunOptions& r, const val& o) {
  val resolved = val::object();
  if (r.cross) {
    resolved.set("source", val(r.source));
    resolved.set("target", val(r.target));
  } else {
    resolved.set("text", val(r.text));
  }
  resolved.set("tokenizer", val(r.tokenizer));
  resolved.set("dModel", r.dModel);
  resolved.set("dq", r.dq);
  resolved.set("dk", r.dk);
  resolved.set("dv", r.dv);
  resolved.set("seed", static_cast<double>(r.seed));
  resolved.set("score", val(std::string(ap::score_name(r.score))));
  resolved.set("scale", t.scale);
  resolved.set("mask", has(o, "mask") ? o["mask"] : val(std::string("none")));
  resolved.set("temperature", r.temperature);
  resolved.set("heads", r.heads);
  resolved.set("positions", val(std::string(ap::positions_name(r.positions))));
  resolved.set("ropeBase", r.ropeBase);
  if (r.tokenizer == "bpe") resolved.set("bpeMerges", r.tokenizerOptions.bpeMerges);
  return resolved;
}

// What run() and projections() both return first: the tokens (and the source's in cross mode).
val encode_tokens(const ap::Trace& t, const ap::RunOptions& r) {
  val out = val::object();
  out.set("tokens", val::array(t.tokens.tokens));
  out.set("tokenIds", val::array(t.tokens.ids));
  out.set("vocab", val::array(t.tokens.vocab));
  out.set("merges", merges_to_js(t.tokens.merges));
  out.set("selfAttention", t.selfAttention);
  if (r.cross) {
    out.set("sourceTokens", val::array(t.sourceTokens.tokens));
    out.set("sourceTokenIds", val::array(t.sourceTokens.ids));
    out.set("sourceEmbeddings", tensor_to_js(t.sourceEmbeddings));
  }
  return out;
}

// What run() and projections() both return last: the scale, the resolved options, the rule's parameters.
void set_scale_options_params(val& out, const ap::Trace& t, const ap::RunOptions& r, const val& o) {
  out.set("scale", t.scale);
  out.set("options", resolved_options(t, r, o));
  if (t.heads == 1) {
    out.set("params", encode_params(t.params[0], r.score));
  } else {
    val ps = val::array();
    for (const auto& p : t.params) ps.call<void>("push", encode_params(p, r.score));
    out.set("params", ps);
  }
}

val encode_trace(const ap::Trace& t, const ap::RunOptions& r, const val& o) {
  val out = encode_tokens(t, r);
  set_steps(out, {t.embeddings, t.Wq, t.Wk, t.Wv, t.Q, t.K, t.V, t.scores, t.scaledScores, t.maskedScores, t.weights,
                  t.output});
  set_position_steps(out, t);
  out.set("maskedRows", val::array(t.maskedRows));
  set_scale_options_params(out, t, r, o);
  return out;
}

// projections(): run()'s trace up to V (the same keys, in the same order; no attention steps).
val encode_projections(const ap::Trace& t, const ap::RunOptions& r, const val& o) {
  val out = encode_tokens(t, r);
  set_projections(out, t.embeddings, t.Wq, t.Wk, t.Wv, t.Q, t.K, t.V);
  out.set("heads", t.heads);
  set_position_steps(out, t);
  set_scale_options_params(out, t, r, o);
  return out;
}

val run(val o) {
  return guarded([&] {
    const ap::RunOptions r = decode_run_options(o);
    return encode_trace(ap::run(r), r, o);
  });
}

val projections(val o) {
  return guarded([&] {
    const ap::RunOptions r = decode_run_options(o);
    return encode_projections(ap::projections(r), r, o);
  });
}

ap::PipelineLoss decode_loss(const val& l) {
  if (!has(l, "kind"))
    throw ap::Error("loss: expected { kind: 'attend', query, key } or { kind: 'output', query, target }");
  ap::PipelineLoss loss;
  const std::string kind = string_of(l["kind"], "loss.kind");
  if (kind == "attend") {
    loss.kind = ap::PipelineLoss::Kind::Attend;
    if (!has(l, "key")) throw ap::Error("loss.key: missing (the key column j of −log weights[i, j])");
    loss.key = int_of(l["key"], "loss.key");
    if (has(l, "head")) loss.head = int_of(l["head"], "loss.head");
  } else if (kind == "output") {
    loss.kind = ap::PipelineLoss::Kind::Output;
    if (!has(l, "target")) throw ap::Error("loss.target: missing (a Tensor [dv], the wanted output row)");
    loss.target = vector_from_js(l["target"], "loss.target");
  } else {
    throw ap::Error("loss.kind: unknown loss '" + kind + "'; expected 'attend' or 'output'");
  }
  if (!has(l, "query")) throw ap::Error("loss.query: missing (the query row i)");
  loss.query = int_of(l["query"], "loss.query");
  return loss;
}

val runBackward(val o) {
  return guarded([&] {
    if (has(o, "score")) ap::require_backward_rule(ap::parse_score(string_of(o["score"], "score")), "runBackward");
    const ap::RunOptions r = decode_run_options(o);
    if (!has(o, "loss")) throw ap::Error("loss: missing (e.g. { kind: 'attend', query: 0, key: 1 })");
    const ap::PipelineGrads g = ap::run_backward(r, decode_loss(o["loss"]));
    val out = encode_trace(g.trace, r, o);
    out.set("loss", g.loss);
    const std::pair<const char*, const ap::Mat*> mats[] = {{"gradEmbeddings", &g.dEmbeddings},
                                                           {"gradWq", &g.dWq},
                                                           {"gradWk", &g.dWk},
                                                           {"gradWv", &g.dWv},
                                                           {"gradQuery", &g.dQ},
                                                           {"gradKey", &g.dK},
                                                           {"gradValue", &g.dV},
                                                           {"gradOutput", &g.dOutput}};
    for (const auto& [name, m] : mats) out.set(name, tensor_to_js(*m));
    if (r.cross) out.set("gradSourceEmbeddings", tensor_to_js(g.dSourceEmbeddings));
    out.set("gradWeights", per_head_to_js(g.dWeights));
    out.set("gradScores", per_head_to_js(g.dScores));
    return out;
  });
}

std::string batch_dims(const std::vector<ap::Mat>& b, int rank) {
  const std::string inner = ap::shape_str(b[0]);
  return rank == 2 ? inner : "[" + std::to_string(b.size()) + ", " + inner.substr(1);
}

// query, key and value of attention / attentionBackward: [n, d] each, or [batch, n, d] each.
struct BatchedQkv {
  std::vector<ap::Mat> Q, K, V;
  int rank = 2;
};

BatchedQkv decode_qkv(const val& o) {
  require_qkv(o, "a Tensor [n, d] or [batch, n, d]");
  BatchedQkv x;
  int rk = 0, rv = 0;
  x.Q = batch_from_js(o["query"], "query", &x.rank);
  x.K = batch_from_js(o["key"], "key", &rk);
  x.V = batch_from_js(o["value"], "value", &rv);
  if (x.rank != rk || rk != rv || x.Q.size() != x.K.size() || x.K.size() != x.V.size()) {
    throw ap::Error("query/key/value: need the same rank and batch size, got query " + batch_dims(x.Q, x.rank) +
                    ", key " + batch_dims(x.K, rk) + ", value " + batch_dims(x.V, rv));
  }
  return x;
}

ap::AttentionOptions decode_attention_options(const val& o) {
  ap::AttentionOptions a;
  if (has(o, "score")) a.score = ap::parse_score(string_of(o["score"], "score"));
  decode_scale(o, &a.hasScale, &a.scale);
  if (has(o, "temperature")) a.temperature = static_cast<float>(number_of(o["temperature"], "temperature"));
  a.mask = decode_mask(o["mask"], "mask");
  a.params = decode_params(has(o, "params") ? o["params"] : val::object(), a.score);
  return a;
}

// One field of each batch item's result: a [n, d] Tensor for 2-D input, [batch, n, d] for 3-D.
template <class R>
val pick_field(const std::vector<R>& rs, int rank, ap::Mat R::*member) {
  if (rank == 2) return tensor_to_js(rs[0].*member);
  std::vector<ap::Mat> ms;
  for (auto& r : rs) ms.push_back(r.*member);
  return stack_to_js(ms);
}

val attentionBackward(val o) {
  return guarded([&] {
    const BatchedQkv x = decode_qkv(o);
    if (!has(o, "gradOutput")) throw ap::Error("gradOutput: missing (dL/d(output), a Tensor of the output's shape)");
    int rg = 0;
    const auto dO = batch_from_js(o["gradOutput"], "gradOutput", &rg);
    if (rg != x.rank || dO.size() != x.Q.size()) {
      throw ap::Error("gradOutput: expected the output's shape (query " + batch_dims(x.Q, x.rank) + ", value " +
                      batch_dims(x.V, x.rank) + "), got " + batch_dims(dO, rg));
    }
    // The rule first: the other rules' parameters are not options here.
    if (has(o, "score"))
      ap::require_backward_rule(ap::parse_score(string_of(o["score"], "score")), "attentionBackward");
    const ap::AttentionOptions a = decode_attention_options(o);
    const int batch = static_cast<int>(x.Q.size());
    for (int b = 0; b < batch; ++b) ap::validate_attention_backward(x.Q[b], x.K[b], x.V[b], dO[b], a, batch);
    std::vector<ap::AttentionGrads> gs;
    for (int b = 0; b < batch; ++b) gs.push_back(ap::attention_backward(x.Q[b], x.K[b], x.V[b], dO[b], a, b));
    val out = val::object();
    out.set("gradQuery", pick_field(gs, x.rank, &ap::AttentionGrads::dQuery));
    out.set("gradKey", pick_field(gs, x.rank, &ap::AttentionGrads::dKey));
    out.set("gradValue", pick_field(gs, x.rank, &ap::AttentionGrads::dValue));
    out.set("gradWeights", pick_field(gs, x.rank, &ap::AttentionGrads::dWeights));
    out.set("gradScores", pick_field(gs, x.rank, &ap::AttentionGrads::dScores));
    return out;
  });
}

val attention(val o) {
  return guarded([&] {
    const BatchedQkv x = decode_qkv(o);
    const auto& Q = x.Q;
    const auto& K = x.K;
    const auto& V = x.V;
    const int rq = x.rank;
    ap::AttentionOptions a = decode_attention_options(o);
    if (has(o, "needWeights")) a.needWeights = bool_of(o["needWeights"], "needWeights");
    if (has(o, "sinkLogit")) {
      a.hasSinkLogit = true;
      a.sinkLogit = static_cast<float>(number_of(o["sinkLogit"], "sinkLogit"));
    }
    // Scores (raw and masked) only on request: at n = 2048 each is 16 MB more to compute and copy.
    a.needScores = has(o, "needScores") && bool_of(o["needScores"], "needScores");
    if (a.needScores && !a.needWeights)
      throw ap::Error("needScores: true needs needWeights: true (the fused kernel keeps no scores)");
    a.keepSteps = a.needScores;
    a.rope = decode_rope(o, true);
    if (has(o, "alibiSlope")) {
      a.hasAlibi = true;
      a.alibiSlope = static_cast<float>(number_of(o["alibiSlope"], "alibiSlope"));
    }
    const int batch = static_cast<int>(Q.size());
    for (int b = 0; b < batch; ++b) ap::validate_attention(Q[b], K[b], V[b], a, batch);

    std::vector<ap::AttentionResult> rs;
    for (int b = 0; b < batch; ++b) rs.push_back(ap::attention(Q[b], K[b], V[b], a, b));
    auto pick = [&](ap::Mat ap::AttentionResult::*member) { return pick_field(rs, rq, member); };
    val out = val::object();
    if (a.needScores) {
      out.set("scores", pick(&ap::AttentionResult::scores));
      out.set("maskedScores", pick(&ap::AttentionResult::maskedScores));
    }
    if (a.needWeights) out.set("weights", pick(&ap::AttentionResult::weights));
    out.set("output", pick(&ap::AttentionResult::output));
    if (a.score == ap::ScoreRule::Concat && a.params.hasCombine())
      out.set("context", pick(&ap::AttentionResult::context));
    if (a.rope.enabled) {
      out.set("rotatedQ", pick(&ap::AttentionResult::rotatedQ));
      out.set("rotatedK", pick(&ap::AttentionResult::rotatedK));
    }
    if (a.hasAlibi) out.set("positionBias", pick(&ap::AttentionResult::positionBias));
    if (rq == 2) {
      out.set("maskedRows", val::array(rs[0].maskedRows));
    } else {
      val rows = val::array();
      for (auto& r : rs) rows.call<void>("push", val::array(r.maskedRows));
      out.set("maskedRows", rows);
    }
    out.set("scale", rs[0].scale);
    if (a.hasSinkLogit) {
      if (rq == 2) {
        out.set("sinkShare", floats_to_js(rs[0].sinkShare));
      } else {
        val shares = val::array();
        for (auto& r : rs) shares.call<void>("push", floats_to_js(r.sinkShare));
        out.set("sinkShare", shares);
      }
    }
    bool self = true;
    for (int b = 0; b < batch && self; ++b) self = ap::is_self_attention(Q[b], K[b], V[b]);
    out.set("selfAttention", self);
    return out;
  });
}

// multiHeadAttention's weights and masks. A batch's keyPaddingMask is [B, nk], flat or nested.
ap::MultiHeadParams decode_multihead_params(const val& o, bool batched) {
  ap::MultiHeadParams p;
  if (!has(o, "numHeads")) throw ap::Error("numHeads: missing");
  p.numHeads = int_of(o["numHeads"], "numHeads");
  if (has(o, "numKVHeads")) p.numKVHeads = int_of(o["numKVHeads"], "numKVHeads");  // the core checks 0 too
  if (has(o, "window")) {
    p.hasWindow = true;
    p.window = int_of(o["window"], "window");
    if (has(o, "sinks")) p.sinks = int_of(o["sinks"], "sinks");
  } else if (has(o, "sinks")) {
    throw ap::Error("sinks: needs a window (the first keys kept besides a sliding window)");
  }
  if (has(o, "sinkLogits")) {
    const ap::Vec s = vector_from_js(o["sinkLogits"], "sinkLogits");
    p.sinkLogits.assign(s.data(), s.data() + s.size());
  }
  read_matrices<ap::Mat>(o, {{"inProjWeight", &p.inProjWeight},
                             {"qProjWeight", &p.qProjWeight},
                             {"kProjWeight", &p.kProjWeight},
                             {"vProjWeight", &p.vProjWeight}});
  if (has(o, "inProjBias")) p.inProjBias = vector_from_js(o["inProjBias"], "inProjBias");
  if (!has(o, "outProjWeight")) throw ap::Error("outProjWeight: missing (a Tensor [E, E])");
  p.outProjWeight = matrix_from_js(o["outProjWeight"], "outProjWeight");
  if (has(o, "outProjBias")) p.outProjBias = vector_from_js(o["outProjBias"], "outProjBias");
  if (has(o, "causal")) p.causal = bool_of(o["causal"], "causal");
  if (has(o, "keyPaddingMask")) {
    const val m = o["keyPaddingMask"];
    const val array = val::global("Array");
    const val first = m["0"];
    const bool nested = batched && array.call<bool>("isArray", m) && array.call<bool>("isArray", first);
    p.keyPaddingMask = bytes_from_js(nested ? m.call<val>("flat") : m, "keyPaddingMask");
  }
  if (has(o, "attnMask")) {
    // A Float32Array is PyTorch's float attn_mask (added to the scores); any other array is boolean.
    const val m = o["attnMask"];
    if (m.instanceof (val::global("Float32Array"))) {
      const long long n = static_cast<long long>(m["length"].as<double>());
      if (n > (1LL << 28)) throw ap::Error("attnMask: too long");
      p.attnMaskAdditive.resize(static_cast<std::size_t>(n));
      if (n > 0) copy_in(m, p.attnMaskAdditive.data(), 0, n);
    } else {
      p.attnMask = bytes_from_js(m, "attnMask");
    }
  }
  const ap::RopeOptions rope = decode_rope(o, false);
  p.rope = rope.enabled;
  p.ropeBase = rope.base;
  if (has(o, "alibi")) p.alibi = bool_of(o["alibi"], "alibi");
  return p;
}

// query, key and value of multiHeadAttention: each [n, ·], or each a batch (PyTorch's batch_first=True)
// [B, n, ·] with the query's rank and B. Fills the items of each; returns whether they are a batch.
bool read_qkv_items(const val& o, std::vector<ap::Mat> (&items)[3]) {
  const auto q = shape_of(o["query"], "query");
  const char* names[] = {"query", "key", "value"};
  for (int i = 0; i < 3; ++i) {
    const auto dims = i == 0 ? q : shape_of(o[names[i]], names[i]);
    if (q.size() == 3 && (dims.size() != 3 || dims[0] != q[0]))
      throw ap::Error(std::string(names[i]) + ": with a batched query " + ap::shape_str(q) + ", expected [" +
                      std::to_string(q[0]) + ", n, ·], got " + ap::shape_str(dims));
    if (q.size() != 3 && dims.size() != 2)
      throw ap::Error(std::string(names[i]) + ": expected a 2-D Tensor [rows, cols], got " + ap::shape_str(dims));
    int rank = 0;
    items[i] = batch_from_js(o[names[i]], names[i], &rank);
  }
  return q.size() == 3;
}

val multiHeadAttention(val o) {
  return guarded([&] {
    require_qkv(o, "a Tensor [n, E] or [batch, n, E]");
    std::vector<ap::Mat> qkv[3];
    const bool batched = read_qkv_items(o, qkv);
    const std::size_t B = qkv[0].size(), nk = static_cast<std::size_t>(qkv[1][0].rows());
    ap::MultiHeadParams p = decode_multihead_params(o, batched);
    const std::vector<uint8_t> padding = std::move(p.keyPaddingMask);
    if (batched && has(o, "keyPaddingMask") && padding.size() != B * nk)
      throw ap::Error("keyPaddingMask: expected [" + std::to_string(B) + ", " + std::to_string(nk) +
                      "] (one entry per key of each item), got " + std::to_string(padding.size()) + " entries");
    const std::size_t per = batched ? nk : padding.size();
    // Every item is checked (pass 0) before any is computed (pass 1).
    std::vector<ap::Mat> outputs, weights;
    std::vector<float> shares;  // with sinkLogits: [B,] numHeads × nq
    val rows = val::array();
    for (int pass = 0; pass < 2; ++pass) {
      for (std::size_t b = 0; b < B; ++b) {
        p.keyPaddingMask.assign(padding.begin() + b * per, padding.begin() + (b + 1) * per);
        if (pass == 0) {
          ap::validate_multihead(qkv[0][b], qkv[1][b], qkv[2][b], p);
          continue;
        }
        ap::MultiHeadResult r = ap::multi_head_attention(qkv[0][b], qkv[1][b], qkv[2][b], p);
        outputs.push_back(std::move(r.output));
        for (ap::Mat& w : r.weights) weights.push_back(std::move(w));
        for (auto& sh : r.sinkShare) shares.insert(shares.end(), sh.begin(), sh.end());
        rows.call<void>("push", val::array(r.maskedRows));
      }
    }
    val out = val::object();
    val w = stack_to_js(weights);
    if (batched) {
      w.set("shape", val::array(std::vector<int>{static_cast<int>(B), p.numHeads, static_cast<int>(weights[0].rows()),
                                                 static_cast<int>(weights[0].cols())}));
    }
    out.set("output", batched ? stack_to_js(outputs) : tensor_to_js(outputs[0]));
    out.set("weights", w);
    out.set("maskedRows", batched ? rows : rows[0]);
    if (!shares.empty()) {
      const int nq = static_cast<int>(qkv[0][0].rows());
      val t = val::object();
      t.set("data", floats_to_js(shares));
      t.set("shape", batched ? val::array(std::vector<int>{static_cast<int>(B), p.numHeads, nq})
                             : val::array(std::vector<int>{p.numHeads, nq}));
      out.set("sinkShare", t);
    }
    return out;
  });
}

val flashTrace(val o) {
  return guarded([&] {
    const auto [q, k, v] = qkv_from_js(o, "a Tensor [n, d]");
    for (const char* key : {"blockRows", "blockCols"})
      if (!has(o, key)) throw ap::Error(std::string(key) + ": missing (an integer, e.g. 2)");
    const int br = int_of(o["blockRows"], "blockRows");
    const int bc = int_of(o["blockCols"], "blockCols");
    const bool causal = has(o, "causal") && bool_of(o["causal"], "causal");
    bool hasScale = false;
    float scale = 1.f;
    decode_scale(o, &hasScale, &scale);
    const ap::FlashTraceResult t = ap::flash_trace(q, k, v, br, bc, causal, hasScale, scale);
    val steps = val::array();
    for (const auto& s : t.steps) {
      val step = val::object();
      step.set("rowBlock", s.rowBlock);
      step.set("colBlock", s.colBlock);
      step.set("m", floats_to_js(s.m));
      step.set("l", floats_to_js(s.l));
      step.set("O", tensor_to_js(s.O));
      steps.call<void>("push", step);
    }
    val out = val::object();
    out.set("steps", steps);
    out.set("output", tensor_to_js(t.output));
    out.set("scale", t.scale);
    out.set("kernelBlockRows", ap::kernels::flash_block_rows());
    out.set("kernelBlockCols", ap::kernels::flash_block_cols());
    return out;
  });
}

val tokenize(val text, val kind, val opts) {
  return guarded([&] {
    const std::string k = kind.isUndefined() || kind.isNull() ? "word-sorted" : string_of(kind, "tokenizer");
    return tokenized_to_js(ap::tokenize(string_of(text, "text"), k, decode_tokenizer_options(opts)));
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention_playground) {
  emscripten::function("run", &run);
  emscripten::function("projections", &projections);
  emscripten::function("attention", &attention);
  emscripten::function("attentionBackward", &attentionBackward);
  emscripten::function("runBackward", &runBackward);
  emscripten::function("multiHeadAttention", &multiHeadAttention);
  emscripten::function("flashTrace", &flashTrace);
  emscripten::function("tokenize", &tokenize);
}
