#include "core/lm_train.h"

#include <algorithm>
#include <cmath>

#include "core/lm_products.h"

namespace ap::lm {

namespace {

In in(const Mat& m) { return {m.data(), static_cast<int>(m.rows()), static_cast<int>(m.cols()), m.cols()}; }
Out out(Mat& m) { return {m.data(), static_cast<int>(m.rows()), static_cast<int>(m.cols()), m.cols()}; }

// A Linear Y = X·Wᵀ + b, backward: dW += dYᵀ·X, db += Σ_rows dY (when the layer has a bias); returns dX = dY·W.
Mat linear_backward(const Mat& X, const Mat& W, const Mat& dY, Mat& dW, Mat* db) {
  mm_tn(out(dW), in(dY), in(X), true);
  if (db && db->size()) *db += dY.colwise().sum();
  Mat dX(dY.rows(), W.cols());
  mm_nn(out(dX), in(dY), in(W), false);
  return dX;
}

// LayerNorm backward from its input X, statistics and weight w: dw += Σ dY·x̂, db += Σ dY; returns dX.
Mat layer_norm_backward(const Mat& X, const Norm& n, const Mat& w, const Mat& dY, Mat& dw, Mat* db) {
  const int rows = static_cast<int>(X.rows()), C = static_cast<int>(X.cols());
  Mat dX(rows, C);
  std::vector<float> xh(static_cast<std::size_t>(C)), g(static_cast<std::size_t>(C));
  for (int r = 0; r < rows; ++r) {
    const float mean = n.mean[static_cast<std::size_t>(r)], rstd = n.rstd[static_cast<std::size_t>(r)];
    double s1 = 0, s2 = 0;
    for (int c = 0; c < C; ++c) {
      const auto k = static_cast<std::size_t>(c);
      xh[k] = (X(r, c) - mean) * rstd;
      g[k] = dY(r, c) * w(0, c);
      dw(0, c) += dY(r, c) * xh[k];
      s1 += g[k];
      s2 += static_cast<double>(g[k]) * xh[k];
    }
    const auto m1 = static_cast<float>(s1 / C), m2 = static_cast<float>(s2 / C);
    for (int c = 0; c < C; ++c) {
      const auto k = static_cast<std::size_t>(c);
      dX(r, c) = rstd * (g[k] - m1 - xh[k] * m2);
    }
  }
  if (db && db->size()) *db += dY.colwise().sum();
  return dX;
}

// d GELU(x)/dx = Φ(x) + x·φ(x)
Mat gelu_backward(const Mat& X, const Mat& dY) {
  Mat dX(X.rows(), X.cols());
  for (Eigen::Index i = 0; i < X.size(); ++i) {
    const float x = X.data()[i];
    const float cdf = 0.5f * (1.f + std::erf(x * 0.70710678118654752f));
    const float pdf = 0.39894228040143268f * std::exp(-0.5f * x * x);
    dX.data()[i] = dY.data()[i] * (cdf + x * pdf);
  }
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
      // dS = A ⊙ (dA − rowsum(dA ⊙ A)), times the scale of the scores
      for (int i = 0; i < n; ++i) {
        double dot = 0;
        for (int j = 0; j <= i; ++j) dot += static_cast<double>(dA(i, j)) * A(i, j);
        for (int j = 0; j < n; ++j) dA(i, j) = j <= i ? scale * A(i, j) * (dA(i, j) - static_cast<float>(dot)) : 0.f;
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
  if (dLogits) dLogits->setZero(rows, V);
  double loss = 0;
  for (int r = 0; r < rows; ++r) {
    const int t = targets[static_cast<std::size_t>(r)];
    if (t < 0) continue;
    const float* z = logits.data() + static_cast<long>(r) * V;
    const float zmax = *std::max_element(z, z + V);
    double s = 0;
    for (int j = 0; j < V; ++j) s += std::exp(static_cast<double>(z[j]) - zmax);
    loss += std::log(s) + zmax - z[t];
    if (dLogits) {
      float* d = dLogits->data() + static_cast<long>(r) * V;
      for (int j = 0; j < V; ++j) d[j] = static_cast<float>(std::exp(static_cast<double>(z[j]) - zmax) / s / count);
      d[t] -= 1.f / static_cast<float>(count);
    }
  }
  return loss / count;
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
