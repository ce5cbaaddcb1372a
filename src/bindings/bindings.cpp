// embind only: decode the JS options, call the core, encode the result (copies). Documented in src/js/index.ts.
#include <emscripten/bind.h>

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
  if (m.isString()) {
    const std::string s = m.as<std::string>();
    if (s == "none") return mask;
    if (s == "causal") {
      mask.kind = ap::Mask::Kind::Causal;
      return mask;
    }
    ap::fail(name + ": unknown mask '" + s + "'; expected 'none', 'causal', { keyPadding } or { matrix }");
  }
  // (Also { window, sinks? }: the messages above are the table's K3, kept as they were.)
  if (type_of(m) != "object") ap::fail(name + ": expected 'none', 'causal', { keyPadding } or { matrix }");
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
    ap::fail(name +
             ": an object mask needs keyPadding (one boolean per key), matrix (nq·nk, 1 = masked) or window "
             "(keys per row of a causal sliding window)");
  }
  return mask;
}

// The rule's parameters (attention's `params`): the ones of its rule only.
ap::ScoreParams decode_params(Options p, ap::ScoreRule rule) {
  ap::ScoreParams out;
  auto need = [&](const char* key, auto& dst) {
    if (!p.read(key, dst)) p.missing(key, p.name(key) + ": score '" + ap::score_name(rule) + "' needs " + p.name(key));
  };
  switch (rule) {
    case ap::ScoreRule::General: need("W", out.W); break;
    case ap::ScoreRule::Additive:
      need("Wq", out.Wq);
      need("Wk", out.Wk);
      need("v", out.v);
      break;
    case ap::ScoreRule::Concat:
      need("W", out.concatW);
      need("b", out.concatB);
      if (p.has("combineW") || p.has("combineB")) {
        need("combineW", out.combineW);
        need("combineB", out.combineB);
      }
      break;
    case ap::ScoreRule::Dot:
    case ap::ScoreRule::ScaledDot: break;  // no parameters
  }
  p.done();
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
void decode_scale(Options& o, bool* hasScale, float* scale) {
  if (!o.has("scale")) return;
  const val s = o.get("scale");
  if (s.isTrue()) return;  // true = the default
  if (s.isFalse()) {
    *hasScale = true;
    *scale = 1.f;
    return;
  }
  *hasScale = true;
  *scale = static_cast<float>(number_of(s, "scale"));
}

ap::ScoreRule decode_score(Options& o, ap::ScoreRule fallback) {
  std::string name;
  return o.read("score", name) ? ap::parse_score(name) : fallback;
}

// Query, key and value: each [n, d] (`batched` false), or each [n, d] or each [batch, n, d] with one batch size;
// `expected` says what in messages. Keeps each Tensor's shape for the messages of the calls.
struct Qkv {
  std::vector<ap::Mat> Q, K, V;
  std::vector<long long> shapes[3];
  int rank() const { return static_cast<int>(shapes[0].size()); }
};

Qkv decode_qkv(Options& o, const std::string& expected, bool batched) {
  const char* names[] = {"query", "key", "value"};
  const bool given[] = {o.has(names[0]), o.has(names[1]), o.has(names[2])};
  for (int i = 0; i < 3; ++i)
    if (!given[i]) o.missing(names[i], std::string(names[i]) + ": missing (" + expected + ")");
  Qkv x;
  std::vector<ap::Mat>* items[] = {&x.Q, &x.K, &x.V};
  for (int i = 0; i < 3; ++i) {
    if (batched) {
      *items[i] = batch_from_js(o.get(names[i]), names[i], &x.shapes[i]);
    } else {
      items[i]->push_back(matrix_from_js(o.get(names[i]), names[i]));
      x.shapes[i] = {(*items[i])[0].rows(), (*items[i])[0].cols()};
    }
  }
  const auto& s = x.shapes;
  if (s[0].size() != s[1].size() || s[1].size() != s[2].size() || x.Q.size() != x.K.size() ||
      x.K.size() != x.V.size()) {
    ap::fail("query/key/value: need the same rank and batch size, got query " + ap::shape_str(s[0]) + ", key " +
             ap::shape_str(s[1]) + ", value " + ap::shape_str(s[2]));
  }
  return x;
}

// rope: true or { base?, queryPositions?, keyPositions? } (an absent or false rope leaves it off); the positions
// are integers, one per row (the core checks their range and count). multiHeadAttention's rope has no positions.
ap::RopeOptions decode_rope(Options& o, bool positionsAllowed) {
  ap::RopeOptions r;
  if (!o.has("rope")) return r;
  const val v = o.get("rope");
  if (v.isTrue() || v.isFalse()) {
    r.enabled = v.isTrue();
    return r;
  }
  if (type_of(v) != "object") ap::fail("rope: expected true or an object { base? }, got a " + type_of(v));
  r.enabled = true;
  Options rope = o.child("rope");
  rope.read("base", r.base);
  if (positionsAllowed) {
    rope.read("queryPositions", r.queryPositions);
    rope.read("keyPositions", r.keyPositions);
  }
  rope.done();
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

ap::TokenizerOptions decode_tokenizer_options(Options& o) {
  ap::TokenizerOptions t;
  o.read("bpeCorpus", t.bpeCorpus);
  o.read("bpeMerges", t.bpeMerges);  // range checked by the tokenizer
  return t;
}

// Which call reads run()'s options: projections() stops before attention (no mask, temperature), runBackward()
// differentiates the course's program (no sink logit).
enum class RunCall { Run, Projections, Backward };

// run()'s options from JS (each read checked and named); the engine checks their ranges.
ap::RunOptions decode_run_options(Options& o, RunCall call) {
  ap::RunOptions r;
  o.has("text");  // asked first: the first of the known options in messages
  const bool source = o.read("source", r.source), target = o.read("target", r.target);
  if (source || target) {
    if (!source || !target)
      ap::fail("source/target: cross attention needs both source (keys, values) and target (queries)");
    r.cross = true;
  } else {
    o.read("text", r.text);
  }
  o.read("tokenizer", r.tokenizer);
  r.tokenizerOptions = decode_tokenizer_options(o);
  const std::pair<const char*, int*> sizes[] = {{"dModel", &r.dModel}, {"dq", &r.dq}, {"dk", &r.dk}, {"dv", &r.dv}};
  for (const auto& [key, dst] : sizes) o.read(key, *dst);
  o.read("seed", r.seed);
  r.score = decode_score(o, r.score);
  decode_scale(o, &r.hasScale, &r.scale);
  if (call != RunCall::Projections) {
    r.mask = decode_mask(o.get("mask"), "mask");
    o.read("temperature", r.temperature);
  }
  if (call == RunCall::Run) r.hasSinkLogit = o.read("sinkLogit", r.sinkLogit);
  o.read("heads", r.heads);
  std::string positions;
  if (o.read("positions", positions)) r.positions = ap::parse_positions(positions);
  o.read("ropeBase", r.ropeBase);
  // Edited cells: absent means "draw it from the seed".
  const std::pair<const char*, std::optional<ap::Mat>*> edits[] = {{"embeddings", &r.embeddings},
                                                                   {"sourceEmbeddings", &r.sourceEmbeddings},
                                                                   {"Wq", &r.Wq},
                                                                   {"Wk", &r.Wk},
                                                                   {"Wv", &r.Wv}};
  for (const auto& [key, dst] : edits) o.read(key, *dst);
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
    Options opts(o, "run");
    const ap::RunOptions r = decode_run_options(opts, RunCall::Run);
    opts.done();
    return encode_trace(ap::run(r), r, o);
  });
}

val projections(val o) {
  return guarded([&] {
    Options opts(o, "projections");
    const ap::RunOptions r = decode_run_options(opts, RunCall::Projections);
    opts.done();
    return encode_projections(ap::projections(r), r, o);
  });
}

ap::PipelineLoss decode_loss(Options l) {
  ap::PipelineLoss loss;
  std::string kind;
  if (!l.read("kind", kind))
    l.missing("kind", "loss: expected { kind: 'attend', query, key } or { kind: 'output', query, target }");
  if (kind == "attend") {
    loss.kind = ap::PipelineLoss::Kind::Attend;
    if (!l.read("key", loss.key)) l.missing("key", "loss.key: missing (the key column j of −log weights[i, j])");
    l.read("head", loss.head);
  } else if (kind == "output") {
    loss.kind = ap::PipelineLoss::Kind::Output;
    if (!l.read("target", loss.target))
      l.missing("target", "loss.target: missing (a Tensor [dv], the wanted output row)");
  } else {
    ap::fail("loss.kind: unknown loss '" + kind + "'; expected 'attend' or 'output'");
  }
  if (!l.read("query", loss.query)) l.missing("query", "loss.query: missing (the query row i)");
  l.done();
  return loss;
}

val runBackward(val o) {
  return guarded([&] {
    Options opts(o, "runBackward");
    // The rule first: the other rules' parameters are not options here.
    const ap::ScoreRule score = decode_score(opts, ap::ScoreRule::ScaledDot);
    ap::require_backward_rule(score, "runBackward");
    const ap::RunOptions r = decode_run_options(opts, RunCall::Backward);
    if (!opts.has("loss")) opts.missing("loss", "loss: missing (e.g. { kind: 'attend', query: 0, key: 1 })");
    const ap::PipelineLoss loss = decode_loss(opts.child("loss"));
    opts.done();
    const ap::PipelineGrads g = ap::run_backward(r, loss);
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

// attention()'s and attentionBackward()'s options but query, key, value (and gradOutput); `forward` reads those
// only attention() has: params, needWeights, needScores, sinkLogit, rope, alibiSlope.
ap::AttentionOptions decode_attention_options(Options& o, bool forward) {
  ap::AttentionOptions a;
  a.score = decode_score(o, a.score);
  decode_scale(o, &a.hasScale, &a.scale);
  a.mask = decode_mask(o.get("mask"), "mask");
  o.read("temperature", a.temperature);
  if (!forward) return a;
  a.params = decode_params(o.child("params"), a.score);
  o.read("needWeights", a.needWeights);
  // Scores (raw and masked) only on request: at n = 2048 each is 16 MB more to compute and copy.
  a.needScores = false;
  o.read("needScores", a.needScores);
  if (a.needScores && !a.needWeights)
    ap::fail("needScores: true needs needWeights: true (the fused kernel keeps no scores)");
  a.keepSteps = a.needScores;
  a.hasSinkLogit = o.read("sinkLogit", a.sinkLogit);
  a.rope = decode_rope(o, true);
  a.hasAlibi = o.read("alibiSlope", a.alibiSlope);
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
    Options opts(o, "attentionBackward");
    const Qkv x = decode_qkv(opts, "a Tensor [n, d] or [batch, n, d]", true);
    if (!opts.has("gradOutput"))
      opts.missing("gradOutput", "gradOutput: missing (dL/d(output), a Tensor of the output's shape)");
    std::vector<long long> dOshape;
    const auto dO = batch_from_js(opts.get("gradOutput"), "gradOutput", &dOshape);
    if (dOshape.size() != x.shapes[0].size() || dO.size() != x.Q.size()) {
      ap::fail("gradOutput: expected the output's shape (query " + ap::shape_str(x.shapes[0]) + ", value " +
               ap::shape_str(x.shapes[2]) + "), got " + ap::shape_str(dOshape));
    }
    // The rule first: the other rules' parameters are not options here.
    ap::require_backward_rule(decode_score(opts, ap::ScoreRule::ScaledDot), "attentionBackward");
    const ap::AttentionOptions a = decode_attention_options(opts, false);
    opts.done();
    const int batch = static_cast<int>(x.Q.size());
    for (int b = 0; b < batch; ++b) ap::validate_attention_backward(x.Q[b], x.K[b], x.V[b], dO[b], a, batch);
    std::vector<ap::AttentionGrads> gs;
    for (int b = 0; b < batch; ++b) gs.push_back(ap::attention_backward(x.Q[b], x.K[b], x.V[b], dO[b], a, b));
    val out = val::object();
    out.set("gradQuery", pick_field(gs, x.rank(), &ap::AttentionGrads::dQuery));
    out.set("gradKey", pick_field(gs, x.rank(), &ap::AttentionGrads::dKey));
    out.set("gradValue", pick_field(gs, x.rank(), &ap::AttentionGrads::dValue));
    out.set("gradWeights", pick_field(gs, x.rank(), &ap::AttentionGrads::dWeights));
    out.set("gradScores", pick_field(gs, x.rank(), &ap::AttentionGrads::dScores));
    return out;
  });
}

val attention(val o) {
  return guarded([&] {
    Options opts(o, "attention");
    const Qkv x = decode_qkv(opts, "a Tensor [n, d] or [batch, n, d]", true);
    const auto& Q = x.Q;
    const auto& K = x.K;
    const auto& V = x.V;
    const int rq = x.rank();
    const ap::AttentionOptions a = decode_attention_options(opts, true);
    opts.done();
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
ap::MultiHeadParams decode_multihead_params(Options& o, bool batched) {
  ap::MultiHeadParams p;
  if (!o.read("numHeads", p.numHeads)) o.missing("numHeads", "numHeads: missing");
  o.read("numKVHeads", p.numKVHeads);  // the core checks 0 too
  const std::pair<const char*, ap::Mat*> weights[] = {{"inProjWeight", &p.inProjWeight},
                                                      {"qProjWeight", &p.qProjWeight},
                                                      {"kProjWeight", &p.kProjWeight},
                                                      {"vProjWeight", &p.vProjWeight}};
  for (const auto& [key, dst] : weights) o.read(key, *dst);
  o.read("inProjBias", p.inProjBias);
  if (!o.read("outProjWeight", p.outProjWeight)) o.missing("outProjWeight", "outProjWeight: missing (a Tensor [E, E])");
  o.read("outProjBias", p.outProjBias);
  o.read("causal", p.causal);
  if (o.has("keyPaddingMask")) {
    const val m = o.get("keyPaddingMask");
    const bool nested = batched && m.isArray() && m["0"].isArray();
    p.keyPaddingMask = bytes_from_js(nested ? m.call<val>("flat") : m, "keyPaddingMask");
  }
  if (o.has("attnMask")) {
    // A Float32Array is PyTorch's float attn_mask (added to the scores); any other array is boolean.
    const val m = o.get("attnMask");
    if (m.instanceof (val::global("Float32Array"))) {
      const long long n = static_cast<long long>(m["length"].as<double>());
      if (n > (1LL << 28)) ap::fail("attnMask: too long");
      p.attnMaskAdditive.resize(static_cast<std::size_t>(n));
      copy_in(m, p.attnMaskAdditive.data(), 0, n);
    } else {
      p.attnMask = bytes_from_js(m, "attnMask");
    }
  }
  p.hasWindow = o.read("window", p.window);
  const bool sinks = o.read("sinks", p.sinks);
  if (sinks && !p.hasWindow) ap::fail("sinks: needs a window (the first keys kept besides a sliding window)");
  ap::Vec sinkLogits;
  if (o.read("sinkLogits", sinkLogits)) p.sinkLogits.assign(sinkLogits.data(), sinkLogits.data() + sinkLogits.size());
  const ap::RopeOptions rope = decode_rope(o, false);
  p.rope = rope.enabled;
  p.ropeBase = rope.base;
  o.read("alibi", p.alibi);
  return p;
}

val multiHeadAttention(val o) {
  return guarded([&] {
    Options opts(o, "multiHeadAttention");
    const Qkv x = decode_qkv(opts, "a Tensor [n, E] or [batch, n, E]", true);
    const bool batched = x.rank() == 3;
    const std::size_t B = x.Q.size(), nk = static_cast<std::size_t>(x.K[0].rows());
    ap::MultiHeadParams p = decode_multihead_params(opts, batched);
    opts.done();
    const std::vector<uint8_t> padding = std::move(p.keyPaddingMask);
    if (batched && opts.has("keyPaddingMask") && padding.size() != B * nk)
      ap::fail("keyPaddingMask: expected [" + std::to_string(B) + ", " + std::to_string(nk) +
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
          ap::validate_multihead(x.Q[b], x.K[b], x.V[b], p);
          continue;
        }
        ap::MultiHeadResult r = ap::multi_head_attention(x.Q[b], x.K[b], x.V[b], p);
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
      const int nq = static_cast<int>(x.Q[0].rows());
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
    Options opts(o, "flashTrace");
    const Qkv x = decode_qkv(opts, "a Tensor [n, d]", false);
    int br = 0, bc = 0;
    if (!opts.read("blockRows", br)) opts.missing("blockRows", "blockRows: missing (an integer, e.g. 2)");
    if (!opts.read("blockCols", bc)) opts.missing("blockCols", "blockCols: missing (an integer, e.g. 2)");
    bool causal = false, hasScale = false;
    opts.read("causal", causal);
    float scale = 1.f;
    decode_scale(opts, &hasScale, &scale);
    opts.done();
    const ap::FlashTraceResult t = ap::flash_trace(x.Q[0], x.K[0], x.V[0], br, bc, causal, hasScale, scale);
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
    Options o(opts, "tokenize");
    const ap::TokenizerOptions t = decode_tokenizer_options(o);
    o.done();
    return tokenized_to_js(ap::tokenize(string_of(text, "text"), k, t));
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
