#include "core/lm_train.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/lm_products.h"
#include "kernels/kernels.h"

namespace ap::lm {

namespace {

// db += Σ_rows dY (when the layer has a bias): a plain loop (this file is built at -Os, where Eigen's colwise().sum()
// made a call per element).
void add_column_sums(const Mat& dY, Mat* db) {
  if (!db || !db->size()) return;
  const Eigen::Index n = dY.cols();
  float* d = db->data();
  for (Eigen::Index r = 0; r < dY.rows(); ++r) {
    const float* y = dY.data() + r * n;
    for (Eigen::Index c = 0; c < n; ++c) d[c] += y[c];
  }
}

// A Linear Y = X·Wᵀ + b, backward: dW += dYᵀ·X, db += Σ_rows dY (when the layer has a bias); returns dX = dY·W.
Mat linear_backward(const Mat& X, const Mat& W, const Mat& dY, Mat& dW, Mat* db) {
  mm_tn(out(dW), in(dY), in(X), true);
  add_column_sums(dY, db);
  Mat dX(dY.rows(), W.cols());
  mm_nn(out(dX), in(dY), in(W), false);
  return dX;
}

// LayerNorm backward from its input X, statistics and weight w: dw += Σ dY·x̂, db += Σ dY; returns dX.
Mat layer_norm_backward(const Mat& X, const Norm& n, const Mat& w, const Mat& dY, Mat& dw, Mat* db) {
  Mat dX(X.rows(), X.cols());
  kernels::layer_norm_backward(X.data(), dY.data(), static_cast<int>(X.rows()), static_cast<int>(X.cols()), w.data(),
                               n.mean.data(), n.rstd.data(), dX.data(), dw.data(),
                               db && db->size() ? db->data() : nullptr);
  return dX;
}

// d GELU(x)/dx = Φ(x) + x·φ(x)
Mat gelu_backward(const Mat& X, const Mat& dY) {
  Mat dX(X.rows(), X.cols());
  kernels::gelu_backward(X.data(), dY.data(), dX.data(), static_cast<long>(X.size()));
  return dX;
}

// One block's attention, backward from dy (the heads' outputs side by side) to dqkv [rows, 3C].
Mat attention_backward(const Config& c, const BlockActs& b, int batch, int n, const Mat& dy) {
  const Eigen::Index C = c.dModel, H = c.heads, hs = c.head_size();
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(hs)));
  Mat dqkv(batch * n, 3 * C);
  Mat dO, Vh, Qh, Kh, dA(n, n), dV(n, hs), dQ(n, hs), dK(n, hs);
  for (Eigen::Index s = 0; s < batch; ++s)
    for (Eigen::Index h = 0; h < H; ++h) {
      const Mat& A = b.weights[static_cast<std::size_t>(s * H + h)];
      dO = dy.block(s * n, h * hs, n, hs);
      Vh = b.v.block(s * n, h * hs, n, hs);
      Qh = b.q.block(s * n, h * hs, n, hs);
      Kh = b.k.block(s * n, h * hs, n, hs);
      mm_nt(out(dA), in(dO), in(Vh), false);  // dA = dO·Vᵀ
      mm_tn(out(dV), in(A), in(dO), false);   // dV = Aᵀ·dO
      // dS = A ⊙ (dA − rowsum(dA ⊙ A)), times the scale of the scores (raw rows: Eigen's accessors are calls at -Os)
      for (int i = 0; i < n; ++i) {
        float* da = dA.data() + static_cast<Eigen::Index>(i) * n;
        const float* a = A.data() + static_cast<Eigen::Index>(i) * n;
        double dot = 0;
        for (int j = 0; j <= i; ++j) dot += static_cast<double>(da[j]) * a[j];
        for (int j = 0; j < n; ++j) da[j] = j <= i ? scale * a[j] * (da[j] - static_cast<float>(dot)) : 0.f;
      }
      mm_nn(out(dQ), in(dA), in(Kh), false);  // dQ = c·dS·K
      mm_tn(out(dK), in(dA), in(Qh), false);  // dK = c·dSᵀ·Q
      if (c.positions == Positions::Rope) {
        dQ = rope_rotate(dQ, {}, c.ropeBase, true);
        dK = rope_rotate(dK, {}, c.ropeBase, true);
      }
      dqkv.block(s * n, h * hs, n, hs) = dQ;
      dqkv.block(s * n, C + h * hs, n, hs) = dK;
      dqkv.block(s * n, 2 * C + h * hs, n, hs) = dV;
    }
  return dqkv;
}

}  // namespace

double cross_entropy(const Mat& logits, const std::vector<int>& targets, Mat* dLogits) {
  const int rows = static_cast<int>(logits.rows()), V = static_cast<int>(logits.cols());
  AP_REQUIRE(
      static_cast<int>(targets.size()) == rows,
      "targets: expected " + std::to_string(rows) + " (one per position), got " + std::to_string(targets.size()));
  int count = 0;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    AP_REQUIRE(targets[i] >= -1 && targets[i] < V, "targets[" + std::to_string(i) + "]: must be an id from 0 to " +
                                                       std::to_string(V - 1) + " (or -1: no term), got " +
                                                       std::to_string(targets[i]));
    count += targets[i] >= 0;
  }
  AP_REQUIRE(count > 0, "targets: every target is -1, so there is no loss to take");
  Mat scratch;
  if (dLogits)
    dLogits->resize(rows, V);
  else
    scratch.resize(1, V);
  const double sum = kernels::cross_entropy(logits.data(), targets.data(), rows, V, 1.f / static_cast<float>(count),
                                            dLogits ? dLogits->data() : scratch.data(), dLogits != nullptr);
  return sum / count;
}

void backward(const Model& m, const Acts& a, const Mat& dLogits, Params& g) {
  const Config& c = m.config();
  const Params& P = m.params();
  const int n = a.n, rows = a.batch * a.n;
  // logits = lnf·Uᵀ
  Mat& dU = c.tied ? g.wte : g.lmHead;
  mm_tn(out(dU), in(dLogits), in(a.lnf.out), true);
  Mat dlnf(rows, c.dModel);
  mm_nn(out(dlnf), in(dLogits), in(m.unembedding()), false);
  const Mat& last = a.blocks.back().output;
  Mat dx = layer_norm_backward(last, a.lnf, P.lnfW, dlnf, g.lnfW, &g.lnfB);
  for (int l = c.layers - 1; l >= 0; --l) {
    const Block& p = P.blocks[static_cast<std::size_t>(l)];
    Block& gb = g.blocks[static_cast<std::size_t>(l)];
    const BlockActs& b = a.blocks[static_cast<std::size_t>(l)];
    // x_out = afterAttn + c_proj(GELU(c_fc(ln_2(afterAttn))))
    Mat dact = linear_backward(b.act, p.mlpProjW, dx, gb.mlpProjW, &gb.mlpProjB);
    Mat dpre = gelu_backward(b.preact, dact);
    Mat dln2 = linear_backward(b.ln2.out, p.fcW, dpre, gb.fcW, &gb.fcB);
    dx += layer_norm_backward(b.afterAttn, b.ln2, p.ln2W, dln2, gb.ln2W, &gb.ln2B);
    // afterAttn = input + c_proj(attention(c_attn(ln_1(input))))
    Mat dy = linear_backward(b.y, p.attnProjW, dx, gb.attnProjW, &gb.attnProjB);
    Mat dqkv = attention_backward(c, b, a.batch, n, dy);
    Mat dln1 = linear_backward(b.ln1.out, p.attnW, dqkv, gb.attnW, &gb.attnB);
    dx += layer_norm_backward(b.input, b.ln1, p.ln1W, dln1, gb.ln1W, &gb.ln1B);
  }
  for (int r = 0; r < rows; ++r) {
    g.wte.row(a.ids[static_cast<std::size_t>(r)]) += dx.row(r);
    if (c.positions == Positions::Learned) g.wpe.row(r % n) += dx.row(r);
  }
}

double loss_and_gradients(const Model& m, const std::vector<int>& ids, const std::vector<int>& targets, int batch,
                          int n, Params& grads, Acts* acts) {
  Acts local;
  Acts& a = acts ? *acts : local;
  m.forward(ids, batch, n, a);
  Mat dLogits;
  const double loss = cross_entropy(a.logits, targets, &dLogits);
  backward(m, a, dLogits, grads);
  return loss;
}

double clip_grad_norm(const Config& c, Params& g, double maxNorm) {
  double ss = 0;
  for (Mat* t : tensor_list(c, g)) {
    // torch: the norm of the per-tensor norms
    double s = 0;
    for (Eigen::Index i = 0; i < t->size(); ++i) s += static_cast<double>(t->data()[i]) * t->data()[i];
    const double nt = static_cast<float>(std::sqrt(s));
    ss += nt * nt;
  }
  const double norm = std::sqrt(ss);
  if (maxNorm > 0) {
    const auto coef = static_cast<float>(std::min(1.0, maxNorm / (norm + 1e-6)));
    if (coef < 1.f)
      for (Mat* t : tensor_list(c, g)) *t *= coef;
  }
  return norm;
}

double lr_at(int it, double lr, int warmup, int decaySteps, double minLr) {
  if (it < warmup) return lr * (it + 1) / (warmup + 1);
  if (it > decaySteps) return minLr;
  const double ratio = static_cast<double>(it - warmup) / std::max(1, decaySteps - warmup);
  const double coeff = 0.5 * (1.0 + std::cos(3.14159265358979323846 * ratio));
  return minLr + coeff * (lr - minLr);
}

void AdamWOptions::validate() const {
  AP_REQUIRE(std::isfinite(beta1) && beta1 >= 0 && beta1 < 1, "beta1: must be in [0, 1), got " + fmt(beta1));
  AP_REQUIRE(std::isfinite(beta2) && beta2 >= 0 && beta2 < 1, "beta2: must be in [0, 1), got " + fmt(beta2));
  AP_REQUIRE(std::isfinite(eps) && eps > 0 && eps <= 1, "eps: must be in (0, 1], got " + fmt(eps));
  AP_REQUIRE(std::isfinite(weightDecay) && weightDecay >= 0 && weightDecay <= 10,
             "weightDecay: must be a number from 0 to 10, got " + fmt(weightDecay));
}

AdamW::AdamW(const Config& c, AdamWOptions o) : c_(c), o_(o), m_(zeros_like(c)), v_(zeros_like(c)) { o_.validate(); }

void AdamW::step(Model& model, const Params& grads, double lr) {
  ++t_;
  const double bc1 = 1.0 - std::pow(o_.beta1, t_), bc2 = std::sqrt(1.0 - std::pow(o_.beta2, t_));
  const auto stepSize = static_cast<float>(lr / bc1);
  const auto b1 = static_cast<float>(o_.beta1), b2 = static_cast<float>(o_.beta2);
  const auto a1 = static_cast<float>(1.0 - o_.beta1), a2 = static_cast<float>(1.0 - o_.beta2);
  const auto eps = static_cast<float>(o_.eps), bc2f = static_cast<float>(bc2);
  std::vector<Mat*> P = tensor_list(c_, model.params_mut()), M = tensor_list(c_, m_), V = tensor_list(c_, v_);
  std::vector<Mat*> G = tensor_list(c_, const_cast<Params&>(grads));
  const std::vector<std::string> names = tensor_names(c_);
  for (std::size_t k = 0; k < P.size(); ++k) {
    // nanoGPT's groups: 2-D tensors decay; biases and LayerNorm weights (1-D in torch) do not
    const std::string& nm = names[k];
    const bool vector =
        nm.size() >= 5 && (nm.compare(nm.size() - 5, 5, ".bias") == 0 || nm.find("ln_") != std::string::npos);
    const auto decay = static_cast<float>(1.0 - lr * (vector ? 0.0 : o_.weightDecay));
    float* p = P[k]->data();
    float* m = M[k]->data();
    float* v = V[k]->data();
    const float* g = G[k]->data();
    for (Eigen::Index i = 0; i < P[k]->size(); ++i) {
      p[i] *= decay;
      m[i] = m[i] * b1 + a1 * g[i];
      v[i] = v[i] * b2 + a2 * g[i] * g[i];
      const float denom = std::sqrt(v[i]) / bc2f + eps;
      p[i] -= stepSize * (m[i] / denom);
    }
  }
}

}  // namespace ap::lm

// ---- the poems task --------------------------------------------------------------------------------------------

namespace ap::lm {

namespace {

bool ends_with(const std::string& s, const char* tail) {
  const std::string t(tail);
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

// nanoGPT's _init_weights and its scaled residual projections, drawn in state-dict order.
Params init_params(const Config& c, uint64_t seed) {
  Params p = zeros_like(c);
  Generator g(seed);
  const float proj = static_cast<float>(0.02 / std::sqrt(2.0 * c.layers));
  for_each_tensor(c, p, [&](const std::string& name, Mat& t, int, int) {
    if (ends_with(name, ".bias")) return;  // zeros
    if (name.find("ln_") != std::string::npos) {
      t.setOnes();
      return;
    }
    g.normal_(t.data(), static_cast<std::size_t>(t.size()), 0.f, ends_with(name, "c_proj.weight") ? proj : 0.02f);
  });
  return p;
}

void check_stream(const std::vector<int>& ids, int vocab, const char* name) {
  for (std::size_t i = 0; i < ids.size(); ++i)
    AP_REQUIRE(ids[i] >= 0 && ids[i] < vocab, std::string(name) + "[" + std::to_string(i) +
                                                  "]: must be an id from 0 to " + std::to_string(vocab - 1) + ", got " +
                                                  std::to_string(ids[i]));
  AP_REQUIRE(ids.empty() || ids.back() == 0, std::string(name) +
                                                 ": must end with id 0 (each poem is followed by the id 0 of \"\\n\"),"
                                                 " got " +
                                                 std::to_string(ids.back()) + " last");
}

}  // namespace

void TrainOptions::validate() const {
  model.validate();
  AP_REQUIRE(batch >= 1 && static_cast<long long>(batch) * model.context <= kMaxBatchRows,
             "batch: must be an integer from 1 to " + std::to_string(kMaxBatchRows / model.context) +
                 " (batch · context at most " + std::to_string(kMaxBatchRows) + "), got " + std::to_string(batch));
  AP_REQUIRE(std::isfinite(lr) && lr > 0 && lr <= 1, "lr: must be a number in (0, 1], got " + fmt(lr));
  AP_REQUIRE(warmup >= 0 && warmup <= 1000000,
             "warmup: must be an integer from 0 to 1000000, got " + std::to_string(warmup));
  AP_REQUIRE(decaySteps > warmup && decaySteps <= 1000000, "decaySteps: must be an integer above warmup (" +
                                                               std::to_string(warmup) + ") and at most 1000000, got " +
                                                               std::to_string(decaySteps));
  AP_REQUIRE(minLr < 0 || (std::isfinite(minLr) && minLr <= lr),
             "minLr: must be a number from 0 to lr (" + fmt(lr) + "), got " + fmt(minLr));
  AP_REQUIRE(std::isfinite(gradClip) && gradClip >= 0,
             "gradClip: must be a number ≥ 0 (0: no clipping), got " + fmt(gradClip));
  adamw.validate();
}

Trainer::Trainer(const TrainOptions& o, std::vector<int> train, std::vector<int> validation,
                 std::vector<std::string> vocab)
    : o_((o.validate(), o)),
      model_(o.model, init_params(o.model, o.seed), std::move(vocab)),
      opt_(o.model, o.adamw),
      grads_(zeros_like(o.model)),
      train_(std::move(train)),
      windowsRng_(o.seed + 1) {
  if (o_.minLr < 0) o_.minLr = o_.lr / 10;
  const int V = o_.model.vocab, T = o_.model.context;
  check_stream(train_, V, "train");
  check_stream(validation, V, "validation");
  for (std::size_t i = 0; i < train_.size();) {
    if (i + static_cast<std::size_t>(T) + 1 <= train_.size()) starts_.push_back(static_cast<int>(i));
    while (i < train_.size() && train_[i] != 0) ++i;
    ++i;  // past the id 0
  }
  for (std::size_t i = 0; i < validation.size();) {
    std::size_t j = i;
    while (validation[j] != 0) ++j;  // the stream ends with 0
    val_.emplace_back(validation.begin() + static_cast<long>(i), validation.begin() + static_cast<long>(j) + 1);
    i = j + 1;
  }
}

double Trainer::lr_now() const { return lr_at(steps(), o_.lr, o_.warmup, o_.decaySteps, o_.minLr); }

double Trainer::update(const std::vector<int>& ids, const std::vector<int>& targets, int batch, int n) {
  for (Mat* t : tensor_list(o_.model, grads_)) t->setZero();
  const double lr = lr_now();
  const double loss = loss_and_gradients(model_, ids, targets, batch, n, grads_);
  if (o_.gradClip > 0) clip_grad_norm(o_.model, grads_, o_.gradClip);
  opt_.step(model_, grads_, lr);
  return loss;
}

double Trainer::step(int n) {
  AP_REQUIRE(n >= 1, "n: must be at least 1, got " + std::to_string(n));
  AP_REQUIRE(!starts_.empty(), "train: no window of context + 1 = " + std::to_string(o_.model.context + 1) +
                                   " ids starts at a poem in the training ids (give createTrainer's `train`)");
  const int B = o_.batch, T = o_.model.context;
  std::vector<int> ids(static_cast<std::size_t>(B) * T), targets(ids.size());
  double sum = 0;
  for (int s = 0; s < n; ++s) {
    for (int b = 0; b < B; ++b) {
      const auto k = static_cast<std::size_t>(windowsRng_.random64() % starts_.size());
      const int* w = train_.data() + starts_[k];
      std::copy(w, w + T, ids.begin() + static_cast<long>(b) * T);
      std::copy(w + 1, w + T + 1, targets.begin() + static_cast<long>(b) * T);
    }
    sum += update(ids, targets, B, T);
  }
  return sum / n;
}

double Trainer::train_on(const std::vector<int>& windows, int batch) {
  AP_REQUIRE(batch >= 1 && !windows.empty() && windows.size() % static_cast<std::size_t>(batch) == 0,
             "windows: expected " + std::to_string(batch) + " windows of the same length");
  const int len = static_cast<int>(windows.size() / static_cast<std::size_t>(batch)), n = len - 1;
  AP_REQUIRE(len >= 2 && n <= o_.model.context,
             "windows: each window must have 2 to context + 1 = " + std::to_string(o_.model.context + 1) +
                 " ids, got " + std::to_string(len));
  AP_REQUIRE(static_cast<long long>(batch) * n <= kMaxBatchRows,
             "windows: " + std::to_string(batch) + " windows of " + std::to_string(n) +
                 " positions is more than the limit of " + std::to_string(kMaxBatchRows) + " rows");
  model_.check_ids(windows, "windows");
  std::vector<int> ids, targets;
  ids.reserve(static_cast<std::size_t>(batch) * n);
  targets.reserve(ids.capacity());
  for (int b = 0; b < batch; ++b) {
    const int* w = windows.data() + static_cast<long>(b) * len;
    ids.insert(ids.end(), w, w + n);
    targets.insert(targets.end(), w + 1, w + len);
  }
  return update(ids, targets, batch, n);
}

double Trainer::evaluate(int limit) const {
  AP_REQUIRE(limit >= 0, "limit: must be ≥ 0 (0: every validation poem), got " + std::to_string(limit));
  AP_REQUIRE(!val_.empty(), "validation: no validation ids were given (createTrainer's `validation`)");
  const std::size_t count = limit == 0 ? val_.size() : std::min(val_.size(), static_cast<std::size_t>(limit));
  const int T = o_.model.context;
  // Poems of the same length go through one forward pass, a few at a time.
  std::vector<std::vector<std::size_t>> byLength(static_cast<std::size_t>(T) + 1);
  for (std::size_t i = 0; i < count; ++i) {
    const int n = std::min(static_cast<int>(val_[i].size()) - 1, T);
    if (n >= 1) byLength[static_cast<std::size_t>(n)].push_back(i);
  }
  double total = 0;
  long long terms = 0;
  for (int n = 1; n <= T; ++n) {
    const auto& group = byLength[static_cast<std::size_t>(n)];
    const std::size_t chunk = std::max<std::size_t>(1, 2048 / static_cast<std::size_t>(n));
    for (std::size_t c = 0; c < group.size(); c += chunk) {
      const int B = static_cast<int>(std::min(chunk, group.size() - c));
      std::vector<int> ids, targets;
      for (int b = 0; b < B; ++b) {
        const auto& p = val_[group[c + static_cast<std::size_t>(b)]];
        ids.insert(ids.end(), p.begin(), p.begin() + n);
        targets.insert(targets.end(), p.begin() + 1, p.begin() + n + 1);
      }
      Acts a;
      model_.forward(ids, B, n, a);
      total += cross_entropy(a.logits, targets, nullptr) * static_cast<double>(B) * n;
      terms += static_cast<long long>(B) * n;
    }
  }
  AP_REQUIRE(terms > 0, "validation: no poem has two ids or more");
  return total / static_cast<double>(terms);
}

HeadScores Trainer::head_scores(int limit) const {
  AP_REQUIRE(limit >= 0, "limit: must be ≥ 0 (0: every validation poem), got " + std::to_string(limit));
  AP_REQUIRE(!val_.empty(), "validation: no validation ids were given (createTrainer's `validation`)");
  const std::size_t count = limit == 0 ? val_.size() : std::min(val_.size(), static_cast<std::size_t>(limit));
  return lm::head_scores(model_, std::vector<std::vector<int>>(val_.begin(), val_.begin() + static_cast<long>(count)));
}

}  // namespace ap::lm
