// Training a small attention model in the browser: the model, its backward pass, the
// optimizers and the tasks. Everything is deterministic for a given seed: parameters are drawn from
// ap::Generator (PyTorch's generator) and so are the minibatches.
//
// The model, for a sequence of token ids x_0..x_{n-1}:
//   H_0 = E[x] + P[0..n)                       token embedding + positions (ModelConfig::positions):
//          learned: P a parameter (the default); sinusoidal: the fixed table; rope and none: H_0 = E[x]
//          (rope turns each head's q and k by position, core/positions.h, before the scores)
//   for each layer l:  H_{l+1} = H_l + MHA_l(H_l)     (residual)
//     MHA: Q = H·Wq, K = H·Wk, V = H·Wv (course layout: W is [dModel, d]); split into heads by columns;
//          per head: ap::compute_scores, then ap::weights_from_scores (·scale, mask, softmax), ·V;
//          heads concatenated -> O [n, dv];  MHA = O·Wo + bo
//   task head (tasks with classes): logits_i = H_L[i]·Whead + bhead, cross-entropy on the targets
//   pointer loss (coreference): the last layer's attention row of the pronoun, averaged over heads, is
//          the model's answer: loss = -log(weight of the referent's position).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/attention.h"
#include "core/common.h"
#include "core/positions.h"

namespace ap {
class Generator;

namespace train {

// Largest sizes a trainer accepts (a browser tab must not be asked for gigabytes).
constexpr int kMaxTrainDim = 256;
constexpr int kMaxTrainLayers = 4;
constexpr int kMaxTrainHeads = 16;
constexpr int kMaxTrainSeq = 64;

struct ModelConfig {
  int vocab = 0;    // input tokens
  int classes = 0;  // outputs of the task head; 0 = no head (pointer tasks)
  int maxLen = 0;   // rows of the position embedding (and outputs of the concat rule)
  int dModel = 32, dq = 32, dk = 32, dv = 32;
  int heads = 1, layers = 1;
  ScoreRule score = ScoreRule::ScaledDot;
  float scale = std::numeric_limits<float>::quiet_NaN();  // NaN: ap::default_scale for dk per head
  float temperature = 1.0f;
  bool causal = false;
  Positions positions = Positions::Learned;  // learned, sinusoidal, rope or none (not alibi)
  float ropeBase = static_cast<float>(kDefaultRopeBase);
  // Initial scales: the token embedding and the learned positions are drawn like nn.Embedding (N(0, 1))
  // times these (the task's choice, TaskData::embeddingInit / positionInit).
  float embeddingInit = 1.0f, positionInit = 0.1f;

  float head_scale() const;  // the multiplier of step scaledScores: scale, or the default when NaN
  void validate() const;     // throws ap::Error naming the option
};

struct Param {
  std::string name;
  Mat value;            // vectors are stored as [1, n]
  bool vector = false;  // a bias or the additive rule's v: shown to JS as 1-D [n], as PyTorch has it
};

// One training example. targets[i] >= 0 puts a cross-entropy term on position i.
// pointerFrom/pointerTo >= 0 puts the pointer term on the last layer's attention row pointerFrom.
struct Example {
  std::vector<int> ids;
  std::vector<int> targets;
  int pointerFrom = -1;
  int pointerTo = -1;
  // induction: the first copy of the repeated segment starts at segStart and has segLen tokens; the
  // second copy follows it (segLen = 0: no segment)
  int segStart = -1;
  int segLen = 0;
};

struct Score {
  double loss = 0;      // mean over the terms of the batch
  double accuracy = 0;  // fraction of terms whose argmax is right (induction: of the copyable tokens)
  int terms = 0;
  double restAccuracy = std::numeric_limits<double>::quiet_NaN();  // induction: the other tokens'
};

// Every intermediate of one attention layer for one sequence, as the course names them.
struct LayerTrace {
  Mat input;                                                     // H_l [n, dModel]
  Mat Q, K, V;                                                   // [n, dq], [n, dk], [n, dv]
  std::vector<Mat> scores, scaledScores, maskedScores, weights;  // per head [n, n]
  Mat output;                                                    // concatenated heads, before Wo [n, dv]
  Mat result;                                                    // H_{l+1}
};

class Model {
 public:
  Model(const ModelConfig& cfg, Generator& gen);

  const ModelConfig& config() const { return cfg_; }
  std::vector<Param>& params() { return params_; }
  const std::vector<Param>& params() const { return params_; }
  int param_index(const std::string& name) const;  // -1 if absent

  // Loss and accuracy of a batch; when grads is given, it receives d(loss)/d(param) for each
  // parameter (same order and shapes as params()). Throws ap::Error on a bad example.
  Score loss(const std::vector<Example>& batch, std::vector<Mat>* grads) const;

  // Forward pass only, with every intermediate kept.
  std::vector<LayerTrace> trace(const std::vector<int>& ids) const;
  // Task-head logits of the last layer [n, classes] (empty without a head).
  Mat logits(const std::vector<int>& ids) const;

  // Where one layer's parameters are in params(): the projections, the output layer and, per head, the
  // rule's own parameters (general: W; additive: Wq, Wk, v; concat: W, b).
  struct LayerIdx {
    int Wq, Wk, Wv, Wo, bo;
    std::vector<std::vector<int>> rule;
  };

 private:
  ModelConfig cfg_;
  std::vector<Param> params_;
  int E_ = -1, P_ = -1, Wh_ = -1, bh_ = -1;  // P_: learned positions only
  Mat fixedPositions_;                       // sinusoidal: the table [maxLen, dModel]
  std::vector<LayerIdx> layers_;

  void check_ids(const std::vector<int>& ids) const;
  Mat input(const std::vector<int>& ids) const;  // H_0: the tokens' embeddings plus the positions, if added
  double example(const Example& ex, float norm, std::vector<Mat>* grads, int& correct, int& terms) const;
};

// SGD (plain) and Adam (PyTorch's update, bias-corrected).
class Optimizer {
 public:
  static std::unique_ptr<Optimizer> make(const std::string& name, float lr);  // throws naming `optimizer` / `lr`
  virtual ~Optimizer() = default;
  virtual void update(std::vector<Param>& params, const std::vector<Mat>& grads) = 0;
  float lr = 0.01f;
};

// A task: a vocabulary and data generated in code, held-out data disjoint from training.
struct TaskData {
  std::string name;
  std::string tokenizer;  // "word" (lower-cased, punctuation dropped) or "char"
  std::vector<std::string> vocab;
  std::vector<std::string> classes;  // names of the task head's outputs (empty: pointer task)
  int maxLen = 0;
  bool causal = false;
  int defaultLayers = 1;
  int defaultHeads = 1;
  bool constantLr = false;                          // the default lr is constant (no warm-up and decay)
  float embeddingInit = 1.0f, positionInit = 0.1f;  // ModelConfig's initial scales for this task
  std::vector<Example> train, test;
  std::string sample;  // a sentence to trace by default
};

TaskData make_coreference();
TaskData make_reverse();
TaskData make_next_char(const std::string& text, int context);

// The induction task's sizes: sequences of kInductionSeq tokens, a segment of kInductionMinSegment to
// kInductionMaxSegment tokens; kInductionTrain training and kInductionTest held-out sequences.
constexpr int kInductionSeq = 24;
constexpr int kInductionMinSegment = 4;
constexpr int kInductionMaxSegment = 8;
constexpr int kInductionTrain = 16384;
constexpr int kInductionTest = 512;
TaskData make_induction();
// Whether position i of an induction example predicts a copyable token (the second copy after its first).
bool copyable(const Example& ex, int i);

// Per layer and head: the previous-token score (mean attention from position i to i − 1, i ≥ 1) and the
// induction score (mean attention from each token of the second copy to the token just after its
// earlier occurrence), both in [0, 1], averaged over the examples that have a segment; and the
// duplicate-token score (mean attention from each token of the second copy to its earlier occurrence).
struct HeadScores {
  std::vector<std::vector<double>> previousToken, induction, duplicateToken;  // [layers][heads]
};
HeadScores head_scores(const Model& model, const std::vector<Example>& examples);
// Loss and accuracy split as the induction task reports them: accuracy on the copyable tokens,
// restAccuracy on the others.
Score copy_score(const Model& model, const std::vector<Example>& examples);

// Splits text as the task does and maps it to ids; throws naming `text` and the unknown token.
std::vector<int> encode_text(const TaskData& task, const std::string& text, std::vector<std::string>* tokens);

struct TrainerOptions {
  std::string task = "coreference";
  uint64_t seed = 0;
  std::optional<int> heads;  // none: the task's default
  int dModel = 32;
  std::optional<int> dq, dk, dv;  // none: dModel
  std::optional<int> layers;      // none: the task's default
  std::string score = "scaled-dot";
  std::string optimizer = "adam";
  float lr = std::numeric_limits<float>::quiet_NaN();  // NaN: adam 0.01·min(1, 32/dModel), sgd 0.1
  // "auto": warmup-cosine when lr is left to its default, constant when lr is given (then every
  // update is torch.optim's own); see lr_multiplier.
  std::string schedule = "auto";
  float temperature = 1.0f;
  float scale = std::numeric_limits<float>::quiet_NaN();
  int batchSize = 32;
  std::string mask = "auto";          // auto (the task's), none, causal
  std::string positions = "learned";  // learned, sinusoidal, rope or none
  float ropeBase = static_cast<float>(kDefaultRopeBase);
  std::string text;  // next-char: the text to learn
  int context = 16;  // next-char: window length
};

// The learning rate's factor before update `step` (0-based) under "warmup-cosine": linear warm-up over
// kWarmupSteps, cosine decay to kLrFloor over the next steps up to kScheduleSteps, then kLrFloor.
// In torch.optim.lr_scheduler terms, for steps < kScheduleSteps: SequentialLR of
// LinearLR(start_factor=1/W, total_iters=W-1) and CosineAnnealingLR(T_max=kScheduleSteps-W,
// eta_min=kLrFloor·lr), milestones [W].
constexpr int kWarmupSteps = 50;
constexpr int kScheduleSteps = 400;
constexpr float kLrFloor = 0.05f;
double lr_multiplier(const std::string& schedule, long long step);

class Trainer {
 public:
  explicit Trainer(const TrainerOptions& opts);
  ~Trainer();

  // n ≥ 1 optimizer steps; returns the mean over them. The package checks n as it reads it, before
  // entering wasm (src/js/trainer.ts), so the rule lives there alone.
  Score step(int n);
  Score train_on(const std::vector<Example>& batch);  // one optimizer step on the caller's batch
  Score evaluate(int limit = 0) const;                // on the held-out set, or its first `limit` examples
  Score evaluate_train() const;
  // induction: each head's scores on the held-out set, or its first `limit` sequences
  HeadScores head_scores(int limit = 0) const;
  const TaskData& task() const { return task_; }
  Model& model() { return *model_; }
  const Model& model() const { return *model_; }
  const TrainerOptions& options() const { return opts_; }
  long long steps_done() const { return steps_; }
  void set_lr(float lr);  // the base lr (the schedule's peak)
  float base_lr() const { return base_lr_; }
  float lr() const { return opt_->lr; }  // the lr of the next update, after the schedule
  const std::string& schedule() const { return schedule_; }

  // Trace of `text` through the trained model; layer = -1 for the last.
  struct TextTrace {
    std::vector<std::string> tokens;
    std::vector<int> ids;
    std::vector<LayerTrace> layers;
    Mat probs;  // [n, classes] softmax of the task head (empty without one)
  };
  TextTrace trace(const std::string& text) const;

 private:
  TrainerOptions opts_;
  TaskData task_;
  std::unique_ptr<Generator> gen_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<Optimizer> opt_;
  long long steps_ = 0;
  float base_lr_ = 0;
  std::string schedule_;
  void apply_schedule();
};

}  // namespace train
}  // namespace ap
