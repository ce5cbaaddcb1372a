// The training half of the language model (lm.h): cross-entropy, the backward pass of every parameter,
// gradient clipping, AdamW and nanoGPT's learning-rate schedule. Kept apart from the inference half so that a
// build for the page can leave it out (issue 38: the trainers live in a module only the training worker loads).
//
// AdamW is torch.optim.AdamW (1.13, single-tensor path) in float32: p ← p·(1 − lr·wd); m ← β1·m + (1 − β1)·g;
// v ← β2·v + (1 − β2)·g²; p ← p − (lr / (1 − β1ᵗ))·m / (√v / √(1 − β2ᵗ) + ε). nanoGPT's groups: weight decay on
// the 2-D tensors (every Linear weight, wte, wpe, lm_head), none on biases and LayerNorm weights.
#pragma once

#include <vector>

#include "core/lm.h"

namespace ap::lm {

// Mean cross-entropy of logits [rows, vocab] against targets (one per row; -1 = no term, as nanoGPT's
// ignore_index). dLogits (optional): dLoss/dlogits. Throws naming `targets` for a bad id or no term at all.
double cross_entropy(const Mat& logits, const std::vector<int>& targets, Mat* dLogits);

// Adds dLoss/dθ for every parameter to grads (zeros_like(config) or a running sum), from forward's acts and
// dLoss/dlogits. Tied: the unembedding's gradient joins wte's.
void backward(const Model& m, const Acts& acts, const Mat& dLogits, Params& grads);

// forward + cross_entropy + backward over a batch of `batch` rows of n ids and their targets. Returns the loss.
double loss_and_gradients(const Model& m, const std::vector<int>& ids, const std::vector<int>& targets, int batch,
                          int n, Params& grads, Acts* acts = nullptr);

// torch.nn.utils.clip_grad_norm_: the total 2-norm of every gradient; when above maxNorm every gradient is scaled
// by maxNorm / (norm + 1e-6). maxNorm <= 0: no clipping. Returns the norm before clipping.
double clip_grad_norm(const Config& c, Params& grads, double maxNorm);

// nanoGPT's get_lr: linear warm-up to lr over `warmup` steps ((it + 1) / (warmup + 1)), cosine decay to minLr
// at decaySteps, minLr after.
double lr_at(int it, double lr, int warmup, int decaySteps, double minLr);

struct AdamWOptions {
  double beta1 = 0.9, beta2 = 0.95, eps = 1e-8, weightDecay = 0.1;
  void validate() const;  // ap::Error naming beta1 / beta2 / eps / weightDecay
};

class AdamW {
 public:
  AdamW(const Config& c, AdamWOptions o);
  void step(Model& m, const Params& grads, double lr);  // one update of every parameter
  int steps() const { return t_; }

 private:
  Config c_;
  AdamWOptions o_;
  Params m_, v_;
  int t_ = 0;
};

}  // namespace ap::lm
