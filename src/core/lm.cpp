#include "core/lm.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>
#include <utility>

#include "core/lm_products.h"
#include "kernels/kernels.h"

namespace ap::lm {

namespace {

// Y = X·Wᵀ (+ b): every Linear of the model and the unembedding.
void linear(const Mat& X, const Mat& W, const Mat& b, Mat& Y) {
  Y.resize(X.rows(), W.rows());
  mm_nt(out(Y), in(X), in(W), false);
  if (!b.size()) return;
  const Eigen::Index n = Y.cols();
  for (Eigen::Index r = 0; r < Y.rows(); ++r) {
    float* y = Y.data() + r * n;
    for (Eigen::Index c = 0; c < n; ++c) y[c] += b.data()[c];
  }
}

// torch's LayerNorm over the last dimension: biased variance, eps 1e-5; the statistics summed in double.
void layer_norm(const Mat& X, const Mat& w, const Mat& b, Norm& n) {
  const int rows = static_cast<int>(X.rows()), C = static_cast<int>(X.cols());
  n.out.resize(rows, C);
  n.mean.resize(static_cast<std::size_t>(rows));
  n.rstd.resize(static_cast<std::size_t>(rows));
  kernels::layer_norm(X.data(), rows, C, w.data(), b.size() ? b.data() : nullptr, n.out.data(), n.mean.data(),
                      n.rstd.data());
}

// torch.nn.GELU(): x·Φ(x), Φ through erf.
void gelu(const Mat& X, Mat& Y) {
  Y.resize(X.rows(), X.cols());
  kernels::gelu(X.data(), Y.data(), static_cast<long>(X.size()));
}

// Columns [c0, c0 + w) of rows [r0, r0 + n) as a contiguous matrix.
Mat block_of(const Mat& M, Eigen::Index r0, Eigen::Index n, Eigen::Index c0, Eigen::Index w) {
  return M.block(r0, c0, n, w);
}

void check_tensor_finite(const std::string& name, const Mat& m) { check_finite(name, m); }

}  // namespace

// ---- config -------------------------------------------------------------------------------------------------------

void Config::validate() const {
  auto range = [](const char* name, int v, int lo, int hi) {
    AP_REQUIRE(v >= lo && v <= hi, std::string(name) + ": must be an integer from " + std::to_string(lo) + " to " +
                                       std::to_string(hi) + ", got " + std::to_string(v));
  };
  range("vocabSize", vocab, 1, kMaxVocab);
  range("context", context, 1, kMaxContext);
  range("layers", layers, 1, kMaxLayers);
  range("dModel", dModel, 1, kMaxDModel);
  range("heads", heads, 1, kMaxHeads);
  AP_REQUIRE(dModel % heads == 0, "heads: must divide dModel (each head takes dModel / heads columns), got dModel = " +
                                      std::to_string(dModel) + " and heads = " + std::to_string(heads));
  AP_REQUIRE(positions == Positions::Learned || positions == Positions::Rope,
             std::string("positions: 'learned' or 'rope', got '") + positions_name(positions) + "'");
  if (positions == Positions::Rope) {
    AP_REQUIRE(head_size() % 2 == 0,
               "positions: rope pairs dimension i with i + hs/2, so it needs an even head size "
               "dModel / heads, got " +
                   std::to_string(head_size()));
    AP_REQUIRE(std::isfinite(ropeBase) && ropeBase >= 1.f && ropeBase <= 1e9f,
               "ropeBase: must be a number from 1 to 1e9, got " + fmt(ropeBase));
  }
  const long long n = parameter_count();
  AP_REQUIRE(n <= kMaxParams, "model: " + std::to_string(n) + " parameters is more than the limit of " +
                                  std::to_string(kMaxParams) + " (vocabSize " + std::to_string(vocab) + ", context " +
                                  std::to_string(context) + ", layers " + std::to_string(layers) + ", dModel " +
                                  std::to_string(dModel) + ")");
}

long long Config::parameter_count() const {
  const long long C = dModel, V = vocab;
  long long n = V * C + (positions == Positions::Learned ? static_cast<long long>(context) * C : 0) + 2 * C;
  n += static_cast<long long>(layers) * (12 * C * C + 13 * C);
  if (!tied) n += V * C;
  return n;
}

void for_each_tensor(const Config& c, Params& p, const TensorVisitor& f) {
  const int C = c.dModel, V = c.vocab;
  f("transformer.wte.weight", p.wte, V, C);
  if (c.positions == Positions::Learned) f("transformer.wpe.weight", p.wpe, c.context, C);
  for (int l = 0; l < c.layers; ++l) {
    Block& b = p.blocks[static_cast<std::size_t>(l)];
    const std::string h = "transformer.h." + std::to_string(l) + ".";
    const struct {
      const char* name;
      Mat* m;
      int rows, cols;
      bool on;
    } ts[] = {{"ln_1.weight", &b.ln1W, 1, C, true},
              {"ln_1.bias", &b.ln1B, 1, C, c.bias.ln1},
              {"attn.c_attn.weight", &b.attnW, 3 * C, C, true},
              {"attn.c_attn.bias", &b.attnB, 1, 3 * C, c.bias.attn},
              {"attn.c_proj.weight", &b.attnProjW, C, C, true},
              {"attn.c_proj.bias", &b.attnProjB, 1, C, c.bias.attnProj},
              {"ln_2.weight", &b.ln2W, 1, C, true},
              {"ln_2.bias", &b.ln2B, 1, C, c.bias.ln2},
              {"mlp.c_fc.weight", &b.fcW, 4 * C, C, true},
              {"mlp.c_fc.bias", &b.fcB, 1, 4 * C, c.bias.fc},
              {"mlp.c_proj.weight", &b.mlpProjW, C, 4 * C, true},
              {"mlp.c_proj.bias", &b.mlpProjB, 1, C, c.bias.mlpProj}};
    for (const auto& t : ts)
      if (t.on) f(h + t.name, *t.m, t.rows, t.cols);
  }
  f("transformer.ln_f.weight", p.lnfW, 1, C);
  if (c.bias.lnf) f("transformer.ln_f.bias", p.lnfB, 1, C);
  if (!c.tied) f("lm_head.weight", p.lmHead, V, C);
}

void for_each_tensor(const Config& c, const Params& p, const ConstTensorVisitor& f) {
  // the same walk; the visitor only reads
  for_each_tensor(c, const_cast<Params&>(p), [&](const std::string& n, Mat& m, int r, int k) { f(n, m, r, k); });
}

std::vector<Mat*> tensor_list(const Config& c, Params& p) {
  std::vector<Mat*> v;
  for_each_tensor(c, p, [&](const std::string&, Mat& m, int, int) { v.push_back(&m); });
  return v;
}

std::vector<std::string> tensor_names(const Config& c) {
  Params p;
  p.blocks.resize(static_cast<std::size_t>(c.layers));
  std::vector<std::string> v;
  for_each_tensor(c, p, [&](const std::string& name, Mat&, int, int) { v.push_back(name); });
  return v;
}

Params zeros_like(const Config& c) {
  Params p;
  p.blocks.resize(static_cast<std::size_t>(c.layers));
  for_each_tensor(c, p, [](const std::string&, Mat& m, int rows, int cols) { m = Mat::Zero(rows, cols); });
  return p;
}

// ---- the model ----------------------------------------------------------------------------------------------------

Model::Model(const Config& config, Params params, std::vector<std::string> vocab)
    : cfg_(config), p_(std::move(params)), vocab_(std::move(vocab)) {
  cfg_.validate();
  AP_REQUIRE(static_cast<int>(p_.blocks.size()) == cfg_.layers,
             "model: expected " + std::to_string(cfg_.layers) + " blocks, got " + std::to_string(p_.blocks.size()));
  for_each_tensor(cfg_, p_, [](const std::string& name, const Mat& m, int rows, int cols) {
    AP_REQUIRE(m.rows() == rows && m.cols() == cols,
               name + ": expected " + shape_str({rows, cols}) + ", got " + shape_str(m));
    check_tensor_finite(name, m);
  });
  AP_REQUIRE(vocab_.empty() || static_cast<int>(vocab_.size()) == cfg_.vocab,
             "vocab: expected " + std::to_string(cfg_.vocab) +
                 " strings (one per row of transformer.wte.weight), got " + std::to_string(vocab_.size()));
}

void Model::check_ids(const std::vector<int>& ids, const std::string& name) const {
  for (std::size_t i = 0; i < ids.size(); ++i)
    AP_REQUIRE(ids[i] >= 0 && ids[i] < cfg_.vocab, name + "[" + std::to_string(i) + "]: must be an id from 0 to " +
                                                       std::to_string(cfg_.vocab - 1) + ", got " +
                                                       std::to_string(ids[i]));
}

void Model::forward(const std::vector<int>& ids, int batch, int n, Acts& a) const {
  const Eigen::Index C = cfg_.dModel, H = cfg_.heads, hs = cfg_.head_size();
  AP_REQUIRE(n >= 1 && n <= cfg_.context, "ids: a sequence of 1 to " + std::to_string(cfg_.context) +
                                              " tokens (the model's context), got " + std::to_string(n));
  AP_REQUIRE(batch >= 1 && static_cast<long long>(batch) * n <= kMaxBatchRows,
             "batch: must be from 1 to " + std::to_string(kMaxBatchRows / n) + " sequences of " + std::to_string(n) +
                 ", got " + std::to_string(batch));
  AP_REQUIRE(
      static_cast<long long>(ids.size()) == static_cast<long long>(batch) * n,
      "ids: expected " + std::to_string(batch) + " × " + std::to_string(n) + " ids, got " + std::to_string(ids.size()));
  check_ids(ids, "ids");
  const int rows = batch * n;
  a.batch = batch;
  a.n = n;
  a.ids = ids;
  a.blocks.resize(static_cast<std::size_t>(cfg_.layers));
  Mat x(rows, C);
  for (int r = 0; r < rows; ++r) {
    x.row(r) = p_.wte.row(ids[static_cast<std::size_t>(r)]);
    if (cfg_.positions == Positions::Learned) x.row(r) += p_.wpe.row(r % n);
  }
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(hs)));
  const int hsi = cfg_.head_size();
  std::vector<float> ws(static_cast<std::size_t>(kernels::flash_workspace_floats(n, n, hsi, hsi)));
  Mat qkv, Qh, Kh, Vh, Oh(n, hs);
  for (int l = 0; l < cfg_.layers; ++l) {
    const Block& p = p_.blocks[static_cast<std::size_t>(l)];
    BlockActs& b = a.blocks[static_cast<std::size_t>(l)];
    b.input = x;
    layer_norm(x, p.ln1W, p.ln1B, b.ln1);
    linear(b.ln1.out, p.attnW, p.attnB, qkv);
    b.q = qkv.leftCols(C);
    b.k = qkv.middleCols(C, C);
    b.v = qkv.rightCols(C);
    b.y.resize(rows, C);
    b.weights.resize(static_cast<std::size_t>(batch * H));
    for (Eigen::Index s = 0; s < batch; ++s)
      for (Eigen::Index h = 0; h < H; ++h) {
        Qh = block_of(b.q, s * n, n, h * hs, hs);
        Kh = block_of(b.k, s * n, n, h * hs, hs);
        Vh = block_of(b.v, s * n, n, h * hs, hs);
        if (cfg_.positions == Positions::Rope) {
          Qh = rope_rotate(Qh, {}, cfg_.ropeBase);
          Kh = rope_rotate(Kh, {}, cfg_.ropeBase);
          b.q.block(s * n, h * hs, n, hs) = Qh;
          b.k.block(s * n, h * hs, n, hs) = Kh;
        }
        Mat& W = b.weights[static_cast<std::size_t>(s * H + h)];
        W.resize(n, n);
        kernels::attention_weights(Qh.data(), Kh.data(), Vh.data(), W.data(), Oh.data(), n, n, hsi, hsi, scale, 1.f,
                                   true, ws.data());
        b.y.block(s * n, h * hs, n, hs) = Oh;
      }
    linear(b.y, p.attnProjW, p.attnProjB, b.attnOut);
    b.afterAttn = b.input + b.attnOut;
    layer_norm(b.afterAttn, p.ln2W, p.ln2B, b.ln2);
    linear(b.ln2.out, p.fcW, p.fcB, b.preact);
    gelu(b.preact, b.act);
    linear(b.act, p.mlpProjW, p.mlpProjB, b.mlpOut);
    b.output = b.afterAttn + b.mlpOut;
    x = b.output;
  }
  layer_norm(x, p_.lnfW, p_.lnfB, a.lnf);
  linear(a.lnf.out, unembedding(), Mat(), a.logits);
  if (!all_finite(a.logits)) throw overflow_error("ids: the logits overflow");
}

Mat Model::logits(const std::vector<int>& ids) const {
  Acts a;
  forward(ids, 1, static_cast<int>(ids.size()), a);
  return std::move(a.logits);
}

Mat lens_logits(const Model& m, const Mat& x) {
  Norm n;
  layer_norm(x, m.params().lnfW, m.params().lnfB, n);
  Mat y;
  linear(n.out, m.unembedding(), Mat(), y);
  return y;
}

// ---- text ---------------------------------------------------------------------------------------------------------

namespace {

// The next code point of UTF-8 text at byte i (advanced), or -1 for an invalid sequence.
long next_code_point(const std::string& s, std::size_t& i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  int len = b0 < 0x80 ? 1 : (b0 >> 5) == 6 ? 2 : (b0 >> 4) == 14 ? 3 : (b0 >> 3) == 30 ? 4 : 0;
  if (len == 0 || i + static_cast<std::size_t>(len) > s.size()) return -1;
  long cp = len == 1 ? b0 : b0 & (0x7f >> len);
  for (int k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
    if ((b >> 6) != 2) return -1;
    cp = (cp << 6) | (b & 0x3f);
  }
  i += static_cast<std::size_t>(len);
  return cp;
}

// "U+0041": at least four upper-case hex digits (printf's "U+%04lX", without printf).
std::string code_point_label(long cp, const std::string& ch) {
  std::string u;
  for (int shift = 28; shift >= 0; shift -= 4) {
    const long digit = (cp >> shift) & 0xf;
    if (digit || !u.empty() || shift < 16) u += "0123456789ABCDEF"[digit];
  }
  u = "U+" + u;
  return cp < 0x20 || cp == 0x7f ? u : "\"" + ch + "\" (" + u + ")";
}

}  // namespace

int Model::token_of(const std::string& s) const {
  const auto it = std::find(vocab_.begin(), vocab_.end(), s);
  return it == vocab_.end() ? -1 : static_cast<int>(it - vocab_.begin());
}

std::vector<int> Model::encode(const std::string& text, const std::string& name) const {
  AP_REQUIRE(!vocab_.empty(), name + ": this model has no vocabulary (__metadata__.vocab), so give ids, not text");
  std::unordered_map<std::string, int> index;
  for (std::size_t i = 0; i < vocab_.size(); ++i) index.emplace(vocab_[i], static_cast<int>(i));
  std::vector<int> ids;
  std::size_t i = 0;
  int k = 0;
  while (i < text.size()) {
    const std::size_t start = i;
    const long cp = next_code_point(text, i);
    AP_REQUIRE(cp >= 0, name + ": invalid UTF-8 at byte " + std::to_string(start));
    const std::string ch = text.substr(start, i - start);
    const auto it = index.find(ch);
    AP_REQUIRE(it != index.end(), name + ": the character " + code_point_label(cp, ch) + " at index " +
                                      std::to_string(k) + " is not in the model's vocabulary (" +
                                      std::to_string(vocab_.size()) + " entries)");
    ids.push_back(it->second);
    ++k;
  }
  return ids;
}

std::string Model::decode(const std::vector<int>& ids) const {
  std::string s;
  if (vocab_.empty()) return s;
  for (int id : ids) s += vocab_[static_cast<std::size_t>(id)];
  return s;
}

// ---- KV cache -----------------------------------------------------------------------------------------------------

KvCache::KvCache(const Model& m) : m_(m) {
  const Config& c = m.config();
  k_.assign(static_cast<std::size_t>(c.layers) * static_cast<std::size_t>(c.heads), Mat(c.context, c.head_size()));
  v_ = k_;
}

Mat KvCache::step(int id, Mat* weights) {
  const Config& c = m_.config();
  const Params& P = m_.params();
  const Eigen::Index C = c.dModel, H = c.heads, hs = c.head_size();
  const int pos = len_, hsi = c.head_size();
  AP_REQUIRE(pos < c.context, "KV cache: full at the model's context of " + std::to_string(c.context) + " tokens");
  AP_REQUIRE(id >= 0 && id < c.vocab,
             "id: must be from 0 to " + std::to_string(c.vocab - 1) + ", got " + std::to_string(id));
  Mat x = P.wte.row(id);
  if (c.positions == Positions::Learned) x += P.wpe.row(pos);
  if (weights) weights->resize(c.layers * H, pos + 1);
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(hs)));
  std::vector<float> ws(static_cast<std::size_t>(kernels::flash_workspace_floats(1, pos + 1, hsi, hsi)));
  Norm n1, n2;
  Mat qkv, q, y(1, C), o(1, hs), w(1, pos + 1), t1, t2, t3;
  for (Eigen::Index l = 0; l < c.layers; ++l) {
    const Block& p = P.blocks[static_cast<std::size_t>(l)];
    layer_norm(x, p.ln1W, p.ln1B, n1);
    linear(n1.out, p.attnW, p.attnB, qkv);
    for (Eigen::Index h = 0; h < H; ++h) {
      Mat& K = k_[static_cast<std::size_t>(l * H + h)];
      Mat& V = v_[static_cast<std::size_t>(l * H + h)];
      q = qkv.middleCols(h * hs, hs);
      Mat k = qkv.middleCols(C + h * hs, hs);
      if (c.positions == Positions::Rope) {
        q = rope_rotate(q, {pos}, c.ropeBase);
        k = rope_rotate(k, {pos}, c.ropeBase);
      }
      K.row(pos) = k;
      V.row(pos) = qkv.middleCols(2 * C + h * hs, hs);
      kernels::attention_weights(q.data(), K.data(), V.data(), w.data(), o.data(), 1, pos + 1, hsi, hsi, scale, 1.f,
                                 false, ws.data());
      y.middleCols(h * hs, hs) = o;
      if (weights) weights->row(l * H + h) = w;
    }
    linear(y, p.attnProjW, p.attnProjB, t1);
    x += t1;
    layer_norm(x, p.ln2W, p.ln2B, n2);
    linear(n2.out, p.fcW, p.fcB, t2);
    gelu(t2, t3);
    linear(t3, p.mlpProjW, p.mlpProjB, t1);
    x += t1;
  }
  layer_norm(x, P.lnfW, P.lnfB, n1);
  Mat logits;
  linear(n1.out, m_.unembedding(), Mat(), logits);
  if (!all_finite(logits)) throw overflow_error("prompt: the logits overflow");
  ++len_;
  return logits;
}

// ---- sampling -----------------------------------------------------------------------------------------------------

double Mulberry32::next() {
  s_ += 0x6d2b79f5u;
  uint32_t t = s_;
  t = (t ^ (t >> 15)) * (t | 1u);
  t ^= t + (t ^ (t >> 7)) * (t | 61u);
  return static_cast<double>(t ^ (t >> 14)) / 4294967296.0;
}

void SampleOptions::validate(int vocab) const {
  AP_REQUIRE(std::isfinite(temperature) && temperature >= 0 && temperature <= 100,
             "temperature: must be a number from 0 (greedy) to 100, got " + fmt(temperature));
  AP_REQUIRE(topK >= 0 && topK <= vocab, "topK: must be an integer from 0 (all) to the vocabulary size " +
                                             std::to_string(vocab) + ", got " + std::to_string(topK));
  AP_REQUIRE(std::isfinite(topP) && topP > 0 && topP <= 1, "topP: must be a number in (0, 1], got " + fmt(topP));
}

Draw sample(const float* logits, int vocab, const SampleOptions& o, double u, int top) {
  Draw d;
  d.u = u;
  const auto V = static_cast<std::size_t>(vocab);
  const float zmax = *std::max_element(logits, logits + vocab);
  // softmax(logits / t) in double, its ids sorted by probability (ties: the lower id first)
  auto distribution = [&](double t, std::vector<double>& p, std::vector<int>& order) {
    p.resize(V);
    double s = 0;
    for (std::size_t i = 0; i < V; ++i) s += (p[i] = std::exp((static_cast<double>(logits[i]) - zmax) / t));
    for (double& x : p) x /= s;
    order.resize(V);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) {
      const double pa = p[static_cast<std::size_t>(a)], pb = p[static_cast<std::size_t>(b)];
      return pa > pb || (pa == pb && a < b);
    });
  };
  std::vector<double> p;
  std::vector<int> order;
  distribution(1.0, p, order);
  for (int j = 0; j < std::min(top, vocab); ++j)
    d.before.push_back(
        {order[static_cast<std::size_t>(j)], p[static_cast<std::size_t>(order[static_cast<std::size_t>(j)])]});
  d.greedy = o.temperature == 0 || o.topK == 1;
  if (d.greedy) {
    d.id = static_cast<int>(std::max_element(logits, logits + vocab) - logits);  // the first maximum: lowest id
    d.kept = 1;
    d.after.push_back({d.id, 1.0});
    return d;
  }
  if (o.temperature != 1.0) distribution(o.temperature, p, order);
  std::size_t keep = V;
  if (o.topK > 0) keep = std::min(keep, static_cast<std::size_t>(o.topK));
  if (o.topP < 1) {
    double c = 0;
    for (std::size_t j = 0; j < keep; ++j) {
      c += p[static_cast<std::size_t>(order[j])];
      if (c >= o.topP) {
        keep = j + 1;
        break;
      }
    }
  }
  double z = 0;
  for (std::size_t j = 0; j < keep; ++j) z += p[static_cast<std::size_t>(order[j])];
  d.kept = static_cast<int>(keep);
  d.id = order[keep - 1];
  double c = 0;
  for (std::size_t j = 0; j < keep; ++j) {
    c += p[static_cast<std::size_t>(order[j])] / z;
    if (c > u) {
      d.id = order[j];
      break;
    }
  }
  for (std::size_t j = 0; j < std::min(keep, static_cast<std::size_t>(top)); ++j)
    d.after.push_back({order[j], p[static_cast<std::size_t>(order[j])] / z});
  return d;
}

GenerateResult generate(const Model& m, const std::vector<int>& prompt, const GenerateOptions& o) {
  const Config& c = m.config();
  o.sample.validate(c.vocab);
  AP_REQUIRE(!prompt.empty(), "prompt: give at least one character (or id) to start from");
  AP_REQUIRE(static_cast<int>(prompt.size()) <= c.context, "prompt: " + std::to_string(prompt.size()) +
                                                               " tokens is longer than the model's context of " +
                                                               std::to_string(c.context));
  AP_REQUIRE(o.maxTokens >= 0 && o.maxTokens <= c.context, "maxTokens: must be an integer from 0 to the context " +
                                                               std::to_string(c.context) + ", got " +
                                                               std::to_string(o.maxTokens));
  m.check_ids(prompt, "prompt");
  GenerateResult r;
  r.reason = "maxTokens";
  Mulberry32 rng(o.sample.seed);
  std::vector<int> seq = prompt;
  KvCache cache(m);
  Mat logits, weights;
  if (o.useCache)
    for (std::size_t i = 0; i < prompt.size(); ++i) logits = cache.step(prompt[i], o.attention ? &weights : nullptr);
  while (static_cast<int>(r.ids.size()) < o.maxTokens) {
    if (static_cast<int>(seq.size()) >= c.context) {
      r.reason = "context";
      break;
    }
    GenerateStep st;
    st.position = static_cast<int>(seq.size());
    if (!o.useCache) {
      Acts a;
      m.forward(seq, 1, st.position, a);
      logits = a.logits.bottomRows(1);
      if (o.attention) {
        weights.resize(static_cast<Eigen::Index>(c.layers) * c.heads, st.position);
        for (Eigen::Index l = 0; l < c.layers; ++l)
          for (Eigen::Index h = 0; h < c.heads; ++h)
            weights.row(l * c.heads + h) =
                a.blocks[static_cast<std::size_t>(l)].weights[static_cast<std::size_t>(h)].bottomRows(1);
      }
    }
    const double u = rng.next();
    st.draw = sample(logits.data(), c.vocab, o.sample, u);
    if (o.attention) st.attention = weights;
    r.ids.push_back(st.draw.id);
    seq.push_back(st.draw.id);
    r.steps.push_back(std::move(st));
    if (r.ids.back() == o.stopId) {
      r.reason = "stop";
      break;
    }
    if (o.useCache && static_cast<int>(seq.size()) < c.context && static_cast<int>(r.ids.size()) < o.maxTokens)
      logits = cache.step(r.ids.back(), o.attention ? &weights : nullptr);
  }
  return r;
}

// ---- head scores --------------------------------------------------------------------------------------------------

HeadScores head_scores(const Model& m, const std::vector<std::vector<int>>& poems, int L) {
  const Config& c = m.config();
  const auto nh = static_cast<std::size_t>(c.layers) * static_cast<std::size_t>(c.heads);
  std::vector<double> sums[3];
  for (auto& s : sums) s.assign(nh, 0.0);
  long long counts[3] = {0, 0, 0};
  for (std::size_t k = 0; k < poems.size(); ++k) {
    std::vector<int> ids = poems[k];
    AP_REQUIRE(!ids.empty(), "poems[" + std::to_string(k) + "]: is empty");
    if (static_cast<int>(ids.size()) > c.context) ids.resize(static_cast<std::size_t>(c.context));
    m.check_ids(ids, "poems[" + std::to_string(k) + "]");
    Acts a;
    const int n = static_cast<int>(ids.size());
    m.forward(ids, 1, n, a);
    for (int l = 0; l < c.layers; ++l)
      for (int h = 0; h < c.heads; ++h) {
        const Mat& A = a.blocks[static_cast<std::size_t>(l)].weights[static_cast<std::size_t>(h)];
        const auto j = static_cast<std::size_t>(l) * static_cast<std::size_t>(c.heads) + static_cast<std::size_t>(h);
        for (int i = 1; i < n; ++i) sums[1][j] += A(i, i - 1);
        for (int i = L; i < n; ++i) {
          sums[0][j] += A(i, i - L);
          sums[2][j] += A(i, L * (i / L) - 1);
        }
      }
    counts[1] += std::max(0, n - 1);
    counts[0] += std::max(0, n - L);
  }
  counts[2] = counts[0];
  HeadScores s;
  std::vector<double>* dst[3] = {&s.previousLine, &s.previousChar, &s.lineEnd};
  for (int r = 0; r < 3; ++r) {
    dst[r]->assign(nh, 0.0);
    if (counts[r])
      for (std::size_t j = 0; j < nh; ++j) (*dst[r])[j] = sums[r][j] / static_cast<double>(counts[r]);
  }
  const char* roles[3] = {"previousLine", "previousChar", "lineEnd"};
  for (std::size_t j = 0; j < nh; ++j) {
    int best = 0;
    for (int r = 1; r < 3; ++r)
      if ((*dst[r])[j] > (*dst[best])[j]) best = r;
    s.labels.emplace_back((*dst[best])[j] >= kHeadLabelThreshold ? roles[best] : "");
  }
  return s;
}

}  // namespace ap::lm
