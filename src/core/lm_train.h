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
#include "core/rng.h"

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

// ---- the poems task (issue 37 item 6): training from scratch on a token stream ------------------------------------

namespace ap::lm {

struct TrainOptions {
  Config model;  // vocab, context, layers, heads, dModel, positions (tied, every bias: nanoGPT's defaults)
  int batch = 32;
  double lr = 3e-3;      // the peak of nanoGPT's schedule (lr_at)
  int warmup = 100;      // linear warm-up steps
  int decaySteps = 500;  // cosine decay to minLr at this step, minLr after
  double minLr = -1;     // < 0: lr / 10
  double gradClip = 0;   // clip_grad_norm's maxNorm; 0 = none (scripts/poems_torch.py's recipe)
  AdamWOptions adamw;
  uint64_t seed = 0;      // the weights (ap::Generator(seed)) and the windows (ap::Generator(seed + 1))
  void validate() const;  // ap::Error naming batch / lr / warmup / decaySteps / minLr / gradClip and the model's
};

// The same model as scripts/poems_torch.py trains: nanoGPT's init (normal 0.02, residual projections
// 0.02/√(2·layers), LayerNorm 1, biases 0; drawn with ap::Generator, not torch's order of draws), windows of
// context + 1 ids of the train stream starting at a poem's first character (position 0 or after an id 0),
// drawn uniformly over the poems with a seeded generator; AdamW with lr_at's schedule.
class Trainer {
 public:
  // train / validation: token streams, each poem followed by id 0 (either may be empty: step() then needs train,
  // evaluate() and head_scores() need validation). Throws naming train / validation for a bad id.
  Trainer(const TrainOptions& o, std::vector<int> train, std::vector<int> validation,
          std::vector<std::string> vocab = {});

  const TrainOptions& options() const { return o_; }
  const Model& model() const { return model_; }
  Model& model_mut() { return model_; }
  int steps() const { return opt_.steps(); }
  double lr_now() const;  // the learning rate of the next step
  int windows() const { return static_cast<int>(starts_.size()); }
  int validation_poems() const { return static_cast<int>(val_.size()); }

  // n optimizer steps on drawn windows; the mean training loss over them.
  double step(int n);
  // One optimizer step on the given windows (batch rows of m + 1 ids, 2 <= m + 1 <= context + 1, row-major):
  // inputs the first m ids, targets the next m. Returns the loss before the update.
  double train_on(const std::vector<int>& windows, int batch);
  // The validation loss: the mean cross-entropy of every id after the first of the first `limit` validation
  // poems (0 = all), each read alone from position 0 (cut to context + 1 ids), the closing id 0 included.
  double evaluate(int limit) const;
  // lm::head_scores over the first `limit` validation poems (0 = all).
  HeadScores head_scores(int limit) const;
  const std::vector<std::vector<int>>& validation() const { return val_; }

 private:
  double update(const std::vector<int>& ids, const std::vector<int>& targets, int batch, int n);

  TrainOptions o_;
  Model model_;
  AdamW opt_;
  Params grads_;
  std::vector<int> train_;
  std::vector<int> starts_;
  std::vector<std::vector<int>> val_;
  Generator windowsRng_;
};

}  // namespace ap::lm
