#include "core/pipeline.h"

#include <algorithm>
#include <cmath>

#include "core/positions.h"
#include "core/rng.h"

namespace ap {
namespace {

void check_dim(const char* name, int v) {
  AP_REQUIRE(v >= 1 && v <= kMaxDim, std::string(name) + ": must be an integer from 1 to " + std::to_string(kMaxDim) +
                                         ", got " + std::to_string(v));
}

void apply_override(const char* name, const std::optional<Mat>& given, Mat& target) {
  if (!given) return;
  AP_REQUIRE(given->rows() == target.rows() && given->cols() == target.cols(),
             std::string(name) + ": expected " + shape_str(target) + ", got " + shape_str(*given));
  check_finite(name, *given);
  target = *given;
}

Mat gather_rows(const Mat& table, const std::vector<int>& ids) {
  Mat out(static_cast<Eigen::Index>(ids.size()), table.cols());
  for (std::size_t i = 0; i < ids.size(); ++i) out.row(static_cast<Eigen::Index>(i)) = table.row(ids[i]);
  return out;
}

// Rule parameters for one head, drawn as nn.Linear would draw them (docs/design.md, "Random draws of run").
ScoreParams draw_params(Generator& g, ScoreRule rule, int dqh, int dkh, int nk) {
  ScoreParams p;
  switch (rule) {
    case ScoreRule::General: g.linear(dqh, dkh, p.W, nullptr); break;
    case ScoreRule::Additive: {
      g.linear(dkh, dqh, p.Wq, nullptr);
      g.linear(dkh, dkh, p.Wk, nullptr);
      Mat v;
      g.linear(1, dkh, v, nullptr);
      p.v = v.row(0).transpose();
      break;
    }
    case ScoreRule::Concat: g.linear(nk, dqh + dkh, p.concatW, &p.concatB); break;
    case ScoreRule::Dot:
    case ScoreRule::ScaledDot: break;  // no parameters
  }
  return p;
}

void check_positions_options(const RunOptions& o) {
  if (o.positions == Positions::Rope) {
    AP_REQUIRE(o.dq == o.dk, "positions: 'rope' rotates Q and K alike, so it needs dq = dk, got dq = " +
                                 std::to_string(o.dq) + ", dk = " + std::to_string(o.dk));
    AP_REQUIRE((o.dq / o.heads) % 2 == 0,
               "positions: 'rope' pairs dimension i with i + d/2 in each head, so it needs an even dq / heads, got " +
                   std::to_string(o.dq) + " / " + std::to_string(o.heads) + " = " + std::to_string(o.dq / o.heads));
    AP_REQUIRE(std::isfinite(o.ropeBase) && o.ropeBase >= 1.f && o.ropeBase <= 1e9f,
               "ropeBase: must be a number from 1 to 1e9, got " + fmt(o.ropeBase));
  }
  AP_REQUIRE(o.positions != Positions::Alibi || o.score != ScoreRule::Concat,
             "positions: 'alibi' biases the score of query i for key j by their distance, but score 'concat' has no "
             "query-key scores (one per value row); use another score or positions");
}

// The position table (sinusoidal, or learned: nn.Embedding(n, dModel) drawn right after the token embeddings)
// for n = max(nq, nk) positions; empty for the other encodings.
Mat position_table(Generator& g, Positions p, int n, int dModel) {
  AP_REQUIRE(p != Positions::Learned || static_cast<long long>(n) * dModel <= kMaxMatrix,
             "positions: the learned table [" + std::to_string(n) + ", " + std::to_string(dModel) + "] is too large");
  if (p == Positions::Sinusoidal) return sinusoidal_table(n, dModel);
  if (p == Positions::Learned) return g.embedding(n, dModel);
  return Mat();
}

Mat with_positions(const Mat& embeddings, const Mat& table) {
  if (table.size() == 0) return embeddings;
  return embeddings + table.topRows(embeddings.rows());
}

}  // namespace

bool is_self_attention(const Mat& Q, const Mat& K, const Mat& V) {
  // std::equal rather than Eigen's ==: this file is built at -Os, where Eigen's comparison calls a function per
  // element (~5 % of attention() at n = 512, which asks this on every call). The same float == per element.
  const auto same = [](const Mat& a, const Mat& b) { return std::equal(a.data(), a.data() + a.size(), b.data()); };
  return Q.rows() == K.rows() && Q.cols() == K.cols() && K.rows() == V.rows() && K.cols() == V.cols() && same(Q, K) &&
         same(K, V);
}

namespace {

// The sizes and the heads, checked before anything is tokenized or drawn.
void check_run_options(const RunOptions& o) {
  check_dim("dModel", o.dModel);
  check_dim("dq", o.dq);
  check_dim("dk", o.dk);
  check_dim("dv", o.dv);
  AP_REQUIRE(o.heads >= 1 && o.heads <= 64, "heads: must be an integer from 1 to 64, got " + std::to_string(o.heads));
  AP_REQUIRE(o.dq % o.heads == 0 && o.dk % o.heads == 0 && o.dv % o.heads == 0,
             "heads: must divide dq, dk and dv, got heads = " + std::to_string(o.heads) + " with dq = " +
                 std::to_string(o.dq) + ", dk = " + std::to_string(o.dk) + ", dv = " + std::to_string(o.dv));
  if (o.score == ScoreRule::Dot || o.score == ScoreRule::ScaledDot) {
    AP_REQUIRE(o.dq == o.dk, std::string("dq/dk: score '") + score_name(o.score) + "' needs dq = dk, got dq = " +
                                 std::to_string(o.dq) + ", dk = " + std::to_string(o.dk));
  }
  check_positions_options(o);
}

// Q, K, V from the embeddings (sinusoidal / learned: plus the table, added before the projections; step
// embeddings stays the tokens' own). kvInput: the source's embeddings in cross attention.
void project_qkv(Trace& t, const Mat& kvInput, bool cross) {
  const Mat x = with_positions(t.embeddings, t.positions);
  const Mat xkv = cross ? with_positions(kvInput, t.positions) : Mat();
  t.Q = x * t.Wq;
  t.K = (cross ? xkv : x) * t.Wk;
  t.V = (cross ? xkv : x) * t.Wv;
  check_no_overflow("Wq: Q = embeddings · Wq overflows", t.Q);
  check_no_overflow("Wk: K = embeddings · Wk overflows", t.K);
  check_no_overflow("Wv: V = embeddings · Wv overflows", t.V);
}

// One head's attention options (rope and alibi from `positions`; the slope is set per head).
AttentionOptions head_options(const RunOptions& o) {
  AttentionOptions a;
  a.score = o.score;
  a.hasScale = o.hasScale;
  a.scale = o.scale;
  a.mask = o.mask;
  a.temperature = o.temperature;
  a.rope.enabled = o.positions == Positions::Rope;
  a.rope.base = o.ropeBase;
  a.hasAlibi = o.positions == Positions::Alibi;
  a.hasSinkLogit = o.hasSinkLogit;
  a.sinkLogit = o.sinkLogit;
  return a;
}

// Tokens, the seed's draws (positions and the rule's parameters too) and Q, K, V: everything run() computes
// before attention (projections() is this alone).
Trace project(const RunOptions& o) {
  check_run_options(o);
  Trace t;
  t.heads = o.heads;
  t.selfAttention = !o.cross;
  if (o.cross) {
    auto both = tokenize_joint({o.source, o.target}, o.tokenizer, o.tokenizerOptions, {"source", "target"});
    t.sourceTokens = std::move(both[0]);
    t.tokens = std::move(both[1]);
  } else {
    t.tokens = tokenize(o.text, o.tokenizer, o.tokenizerOptions);
  }
  const std::vector<std::string>& vocab = t.tokens.vocab;
  const int nq = static_cast<int>(t.tokens.ids.size());
  const int nk = o.cross ? static_cast<int>(t.sourceTokens.ids.size()) : nq;
  AP_REQUIRE(static_cast<long long>(vocab.size()) * o.dModel <= kMaxMatrix,
             "dModel: the embedding table [" + std::to_string(vocab.size()) + ", " + std::to_string(o.dModel) +
                 "] is too large");

  Generator g(o.seed);
  const Mat table = g.embedding(static_cast<int>(vocab.size()), o.dModel);
  t.positions = position_table(g, o.positions, std::max(nq, nk), o.dModel);
  t.Wq = g.rand(o.dModel, o.dq);
  t.Wk = g.rand(o.dModel, o.dk);
  t.Wv = g.rand(o.dModel, o.dv);
  const int dqh = o.dq / o.heads, dkh = o.dk / o.heads;
  for (int h = 0; h < o.heads; ++h) t.params.push_back(draw_params(g, o.score, dqh, dkh, nk));

  t.embeddings = gather_rows(table, t.tokens.ids);
  apply_override("embeddings", o.embeddings, t.embeddings);
  apply_override("Wq", o.Wq, t.Wq);
  apply_override("Wk", o.Wk, t.Wk);
  apply_override("Wv", o.Wv, t.Wv);
  const Mat* kvInput = &t.embeddings;
  if (o.cross) {
    t.sourceEmbeddings = gather_rows(table, t.sourceTokens.ids);
    apply_override("sourceEmbeddings", o.sourceEmbeddings, t.sourceEmbeddings);
    kvInput = &t.sourceEmbeddings;
  }

  project_qkv(t, *kvInput, o.cross);
  t.scale = o.hasScale ? o.scale : default_scale(o.score, dkh);
  return t;
}

}  // namespace

Trace projections(const RunOptions& o) {
  Trace t = project(o);
  AP_REQUIRE(std::isfinite(t.scale), "scale: must be finite, got " + fmt(t.scale));
  return t;
}

Trace run(const RunOptions& o) {
  Trace t = project(o);
  const int nq = static_cast<int>(t.tokens.ids.size());
  const int nk = o.cross ? static_cast<int>(t.sourceTokens.ids.size()) : nq;
  const int dqh = o.dq / o.heads, dkh = o.dk / o.heads, dvh = o.dv / o.heads;
  AttentionOptions a = head_options(o);
  const std::vector<float> slopes = a.hasAlibi ? alibi_slopes(o.heads) : std::vector<float>();
  if (a.rope.enabled) {
    t.rotatedQ.resize(nq, o.dq);
    t.rotatedK.resize(nk, o.dk);
  }
  t.output.resize(nq, o.dv);
  for (Eigen::Index h = 0; h < o.heads; ++h) {
    a.params = t.params[static_cast<std::size_t>(h)];
    if (a.hasAlibi) a.alibiSlope = slopes[static_cast<std::size_t>(h)];
    const Mat Qh = t.Q.middleCols(h * dqh, dqh);
    const Mat Kh = t.K.middleCols(h * dkh, dkh);
    const Mat Vh = t.V.middleCols(h * dvh, dvh);
    validate_attention(Qh, Kh, Vh, a);
    AttentionResult r = attention(Qh, Kh, Vh, a);
    t.scale = r.scale;
    t.output.middleCols(h * dvh, dvh) = r.output;
    if (a.rope.enabled) {
      t.rotatedQ.middleCols(h * dqh, dqh) = r.rotatedQ;
      t.rotatedK.middleCols(h * dkh, dkh) = r.rotatedK;
    }
    if (a.hasAlibi) t.positionBias.push_back(std::move(r.positionBias));
    t.scores.push_back(std::move(r.scores));
    t.scaledScores.push_back(std::move(r.scaledScores));
    t.maskedScores.push_back(std::move(r.maskedScores));
    t.weights.push_back(std::move(r.weights));
    t.maskedRows = std::move(r.maskedRows);
  }
  return t;
}

}  // namespace ap
