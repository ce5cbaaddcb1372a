// The language model of issues 37/38: a decoder-only transformer in nanoGPT's layout, exactly (docs/lm-spec.md;
// the torch reference is tests/fixtures/gpt_torch.py). This is the inference half — the model, its forward
// pass with a trace, the KV-cache step, generate and its sampler, the head scores, the checkpoint reader —
// used by the package, the page and the trainer. The training half (backward, loss, AdamW, the poems task)
// is lm_train.h; it depends on this file, never the reverse.
//
//   x = wte[ids] + wpe[0..n-1]         (rope: no wpe; each head's q and k turned by position, rope_rotate)
//   per block: a = ln_1(x); qkv = a·c_attnᵀ (+b); per head softmax(q·kᵀ/√hs, causal)·v -> y (heads side by side)
//              x += y·c_projᵀ (+b)                          "what attention adds"
//              x += c_proj(GELU(c_fc(ln_2(x))))              "what the MLP adds" (GELU exact, erf)
//   logits = ln_f(x)·lm_headᵀ          (tied: lm_head is wte)
// Every matrix product goes through lm_products.h; attention through kernels::attention_weights.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/common.h"
#include "core/positions.h"

namespace ap::lm {

// Caps (ap::Error naming the argument past them): a page must not be asked for gigabytes.
constexpr int kMaxVocab = 65536;
constexpr int kMaxContext = 2048;
constexpr int kMaxLayers = 24;
constexpr int kMaxDModel = 2048;
constexpr int kMaxHeads = 64;
constexpr long long kMaxParams = 1LL << 26;  // 64 M floats (256 MiB)
constexpr int kMaxBatchRows = 1 << 16;       // batch · context of one forward pass

struct Config {
  int vocab = 0, context = 0, layers = 0, heads = 0, dModel = 0;
  Positions positions = Positions::Learned;  // Learned or Rope
  float ropeBase = static_cast<float>(kDefaultRopeBase);
  bool tied = true;  // lm_head is wte
  // Which optional biases the model has (nanoGPT's bias=False drops all; a file may carry any of them).
  struct Biases {
    bool ln1 = true, attn = true, attnProj = true, ln2 = true, fc = true, mlpProj = true, lnf = true;
  } bias;

  int head_size() const { return dModel / heads; }
  void validate() const;  // throws ap::Error naming vocabSize / context / layers / dModel / heads / positions
  long long parameter_count() const;
};

// A bias or LayerNorm vector is a [1, n] matrix; an absent bias is empty.
struct Block {
  Mat ln1W, ln1B, attnW, attnB, attnProjW, attnProjB, ln2W, ln2B, fcW, fcB, mlpProjW, mlpProjB;
};
struct Params {
  Mat wte, wpe, lnfW, lnfB, lmHead;  // wpe empty with rope; lmHead empty when tied
  std::vector<Block> blocks;
};

// Every tensor the config has, with its nanoGPT name and shape, in state-dict order (tied: no lm_head.weight).
// f(name, tensor, rows, cols). One body for every caller (the reader, gradients, AdamW, the bindings).
using TensorVisitor = std::function<void(const std::string& name, Mat& tensor, int rows, int cols)>;
using ConstTensorVisitor = std::function<void(const std::string& name, const Mat& tensor, int rows, int cols)>;
void for_each_tensor(const Config& c, Params& p, const TensorVisitor& f);
void for_each_tensor(const Config& c, const Params& p, const ConstTensorVisitor& f);

// The tensors of for_each_tensor as a list (to walk several Params side by side: gradients, moments).
std::vector<Mat*> tensor_list(const Config& c, Params& p);
std::vector<std::string> tensor_names(const Config& c);

// Params of the config's shapes, all zero (the shape of gradients and of AdamW's moments).
Params zeros_like(const Config& c);

// Per-row LayerNorm statistics kept for the backward pass and the trace.
struct Norm {
  Mat out;                        // [rows, C]
  std::vector<float> mean, rstd;  // per row
};

// What one block computed, for every row of the batch (rows = batch · n).
struct BlockActs {
  Mat input;  // the residual stream entering the block
  Norm ln1;
  Mat q, k, v;               // [rows, C]: q and k as the scores saw them (rotated with rope)
  std::vector<Mat> weights;  // batch · heads of [n, n] (item b, head h at b·heads + h), causal, rows sum to 1
  Mat y;                     // the heads' outputs side by side [rows, C]
  Mat attnOut;               // what attention adds: y·c_projᵀ (+b)
  Mat afterAttn;             // input + attnOut
  Norm ln2;
  Mat preact, act;  // the MLP's c_fc output and its GELU [rows, 4C]
  Mat mlpOut;       // what the MLP adds
  Mat output;       // afterAttn + mlpOut
};

struct Acts {
  int batch = 0, n = 0;
  std::vector<int> ids;  // batch · n
  std::vector<BlockActs> blocks;
  Norm lnf;
  Mat logits;  // [rows, vocab]
};

class Model {
 public:
  // Checks every tensor's shape and finiteness (ap::Error naming the tensor with the expected and found shapes)
  // and the vocabulary (one string per id; may be empty: text then cannot be read or written).
  Model(const Config& config, Params params, std::vector<std::string> vocab = {});

  const Config& config() const { return cfg_; }
  const Params& params() const { return p_; }
  Params& params_mut() { return p_; }  // the trainer's optimizer writes here
  const Mat& unembedding() const { return cfg_.tied ? p_.wte : p_.lmHead; }
  const std::vector<std::string>& vocab() const { return vocab_; }

  // ids: batch rows of n tokens (row-major), every id in [0, vocab), 1 <= n <= context. Fills acts.
  void forward(const std::vector<int>& ids, int batch, int n, Acts& acts) const;
  Mat logits(const std::vector<int>& ids) const;  // one sequence: [n, vocab]

  // The token ids of a text read one code point at a time through the vocabulary (each id's string must be one
  // code point to be read); throws naming `name` with the character, its code point and its index.
  std::vector<int> encode(const std::string& text, const std::string& name = "prompt") const;
  std::string decode(const std::vector<int>& ids) const;
  int token_of(const std::string& s) const;  // -1 when the vocabulary has no such string

  void check_ids(const std::vector<int>& ids, const std::string& name) const;

 private:
  Config cfg_;
  Params p_;
  std::vector<std::string> vocab_;
};

// The logits of ln_f(x)·unembeddingᵀ for residual rows x [rows, C] (the logit lens of a trace).
Mat lens_logits(const Model& m, const Mat& x);

// The KV cache: per layer and head the keys (rotated with rope) and values of the positions so far.
class KvCache {
 public:
  explicit KvCache(const Model& m);
  int length() const { return len_; }
  // The next token at position length(): returns its logits [1, vocab] and appends its keys and values. With
  // weights, the attention row of the new token [layers · heads, length()+1] (its weights over every key so far).
  Mat step(int id, Mat* weights = nullptr);

 private:
  const Model& m_;
  int len_ = 0;
  std::vector<Mat> k_, v_;  // layer · heads + h: [context, hs]
};

// ---- sampling (docs/lm-spec.md) -------------------------------------------------------------------------------------

struct SampleOptions {
  double temperature = 1.0;  // 0 = greedy
  int topK = 0;              // 0 = all; 1 = greedy
  double topP = 1.0;         // (0, 1]
  uint32_t seed = 0;
  void validate(int vocab) const;  // ap::Error naming temperature / topK / topP
};

// mulberry32, as web/compute/random.ts.
class Mulberry32 {
 public:
  explicit Mulberry32(uint32_t seed) : s_(seed) {}
  double next();

 private:
  uint32_t s_;
};

struct Candidate {
  int id;
  double p;
};
struct Draw {
  int id = 0;
  double u = 0;  // the uniform drawn (0 and unused when greedy)
  bool greedy = false;
  int kept = 0;                   // ids left after top-k and top-p
  std::vector<Candidate> before;  // the ten most probable at temperature 1: softmax(logits)
  std::vector<Candidate> after;   // the ten most probable of the distribution drawn from (renormalised)
};

// One draw from a row of logits with uniform u (greedy ignores u): the docs/lm-spec.md sampler. top: how many
// candidates before/after keep (10).
Draw sample(const float* logits, int vocab, const SampleOptions& o, double u, int top = 10);

struct GenerateOptions {
  SampleOptions sample;
  int maxTokens = 0;
  int stopId = -1;         // generation ends after writing this id (-1: never)
  bool useCache = true;    // false: recompute the whole prefix at every step (the reference; benchmarks)
  bool attention = false;  // keep each step's attention rows
};
struct GenerateStep {
  Draw draw;
  int position = 0;  // where the drawn token goes
  Mat attention;     // with options.attention: [layers · heads, position] the weights of the token that was read
};
struct GenerateResult {
  std::vector<int> ids;  // the written ids (the prompt not included)
  std::vector<GenerateStep> steps;
  std::string reason;  // "stop" | "maxTokens" | "context"
};
GenerateResult generate(const Model& m, const std::vector<int>& prompt, const GenerateOptions& o);

// ---- head scores (docs/lm-spec.md) ----------------------------------------------------------------------------------

struct HeadScores {
  // [layers · heads]
  std::vector<double> previousLine, previousChar, lineEnd;
  // The role whose score is largest when that score is >= kHeadLabelThreshold ("previousLine", "previousChar",
  // "lineEnd"), else "" (the head does not specialise).
  std::vector<std::string> labels;
};
constexpr double kHeadLabelThreshold = 0.4;
// Each poem's ids from position 0 (cut to the context); means over queries and poems. lineLength = 6 (five
// characters and their punctuation).
HeadScores head_scores(const Model& m, const std::vector<std::vector<int>>& poems, int lineLength = 6);

// ---- reading a checkpoint (nanoGPT's state dict) ---------------------------------------------------------------

struct NamedTensor {
  std::string name;
  std::vector<long long> shape;
  std::vector<float> data;
};
struct FileMeta {
  int heads = 0;          // __metadata__.n_head
  std::string positions;  // "" = not given: learned when the file has wpe
  float ropeBase = static_cast<float>(kDefaultRopeBase);
  int context = 0;  // rope without an attn.bias buffer: __metadata__.context; 0 = not given
  std::vector<std::string> vocab;
};
// Strips `_orig_mod.`, recognises (and checks) the torch < 2 `attn.bias` mask buffers, infers layers, dModel,
// vocab, context and the biases from the names and shapes, checks every tensor (a missing or unexpected one, a
// wrong shape: named with the expected and found shapes) and returns the model. `notes` gets what was ignored.
Model load_state_dict(std::vector<NamedTensor> tensors, const FileMeta& meta, std::vector<std::string>* notes);

}  // namespace ap::lm
