// Reading a nanoGPT state dict (docs/lm-spec.md "Safetensors layout"): names to a Config and Params, every check
// with the tensor's name and the expected and found shapes. The file format itself (safetensors) is read by
// the package's checked reader (src/js/safetensors.ts); this gets its tensors as float32.
#include <algorithm>
#include <map>
#include <set>

#include "core/lm.h"

namespace ap::lm {

namespace {

constexpr const char* kCompilePrefix = "_orig_mod.";

bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }
bool ends_with(const std::string& s, const std::string& p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

// transformer.h.<N>.<rest>: N, or -1 for another name (or a malformed N).
int block_index(const std::string& name, std::string* rest) {
  const std::string p = "transformer.h.";
  if (!starts_with(name, p)) return -1;
  std::size_t i = p.size(), j = i;
  while (j < name.size() && name[j] >= '0' && name[j] <= '9') ++j;
  if (j == i || j - i > 4 || j >= name.size() || name[j] != '.' || (name[i] == '0' && j - i > 1)) return -1;
  if (rest) *rest = name.substr(j + 1);
  int n = 0;  // at most 4 digits (checked above)
  for (std::size_t k = i; k < j; ++k) n = 10 * n + (name[k] - '0');
  return n;
}

// The torch < 2 causal-mask buffer: [1, 1, T, T] of 1 on and below the diagonal, 0 above. Returns T.
int check_mask_buffer(const NamedTensor& t) {
  const auto& s = t.shape;
  AP_REQUIRE(s.size() == 4 && s[0] == 1 && s[1] == 1 && s[2] == s[3] && s[2] >= 1,
             t.name + ": the causal-mask buffer of checkpoints saved with torch < 2 must be [1, 1, T, T], got " +
                 shape_str(s));
  AP_REQUIRE(s[2] <= kMaxContext, t.name + ": a mask of context " + std::to_string(s[2]) +
                                      " is more than the limit of " + std::to_string(kMaxContext));
  const long long T = s[2];
  for (long long i = 0; i < T; ++i)
    for (long long j = 0; j < T; ++j) {
      const float v = t.data[static_cast<std::size_t>(i * T + j)];
      const float want = j <= i ? 1.f : 0.f;
      AP_REQUIRE(v == want, t.name + ": not a causal mask (expected 1 on and below the diagonal and 0 above), found " +
                                fmt(v) + " at [0, 0, " + std::to_string(i) + ", " + std::to_string(j) + "]");
    }
  return static_cast<int>(T);
}

// The tensors by name once the prefix is stripped and the mask buffers are set aside (and checked).
struct Reader {
  std::vector<NamedTensor> kept;
  std::map<std::string, NamedTensor*> byName;
  int maskContext = 0;
  std::string maskName;

  void collect(std::vector<NamedTensor>& tensors, std::vector<std::string>* notes);
  Config shapes(const FileMeta& meta) const;
  void positions(const FileMeta& meta, Config& c) const;
  Params params(const Config& c) const;
  bool has(const std::string& n) const { return byName.count(n) > 0; }
};

void Reader::collect(std::vector<NamedTensor>& tensors, std::vector<std::string>* notes) {
  bool stripped = false;
  int masks = 0;
  for (NamedTensor& t : tensors) {
    if (starts_with(t.name, kCompilePrefix)) {
      t.name = t.name.substr(std::string(kCompilePrefix).size());
      stripped = true;
    }
    std::string rest;
    if (block_index(t.name, &rest) >= 0 && rest == "attn.bias") {
      const int T = check_mask_buffer(t);
      AP_REQUIRE(maskContext == 0 || T == maskContext, t.name + ": a mask of context " + std::to_string(T) + ", but " +
                                                           maskName + " has " + std::to_string(maskContext));
      maskContext = T;
      maskName = t.name;
      ++masks;
      continue;
    }
    kept.push_back(std::move(t));
  }
  for (NamedTensor& t : kept) {
    AP_REQUIRE(byName.emplace(t.name, &t).second,
               t.name + ": appears twice (once with the torch.compile prefix _orig_mod. and once without)");
  }
  if (notes) {
    if (stripped) notes->push_back("the torch.compile prefix _orig_mod. was removed from the names");
    if (masks)
      notes->push_back(std::to_string(masks) +
                       " causal-mask buffers attn.bias (torch < 2) were checked and not used: "
                       "the engine applies the causal mask itself");
  }
}

// vocab and dModel from wte, heads from the metadata, the blocks from the names.
Config Reader::shapes(const FileMeta& meta) const {
  const auto wteIt = byName.find("transformer.wte.weight");
  AP_REQUIRE(wteIt != byName.end(), "transformer.wte.weight: missing (the token embedding [vocab, dModel])");
  const auto& ws = wteIt->second->shape;
  AP_REQUIRE(ws.size() == 2 && ws[0] >= 1 && ws[1] >= 1,
             "transformer.wte.weight: expected [vocab, dModel], got " + shape_str(ws));
  AP_REQUIRE(ws[0] <= kMaxVocab, "transformer.wte.weight: a vocabulary of " + std::to_string(ws[0]) +
                                     " is more than the limit of " + std::to_string(kMaxVocab));
  AP_REQUIRE(ws[1] <= kMaxDModel, "transformer.wte.weight: dModel " + std::to_string(ws[1]) +
                                      " is more than the limit of " + std::to_string(kMaxDModel));
  Config c;
  c.vocab = static_cast<int>(ws[0]);
  c.dModel = static_cast<int>(ws[1]);
  c.heads = meta.heads;
  AP_REQUIRE(c.heads >= 1 && c.heads <= kMaxHeads, "__metadata__.n_head: must be an integer from 1 to " +
                                                       std::to_string(kMaxHeads) + ", got " + std::to_string(c.heads));
  AP_REQUIRE(c.dModel % c.heads == 0, "__metadata__.n_head: " + std::to_string(c.heads) +
                                          " heads do not divide dModel " + std::to_string(c.dModel) +
                                          " (transformer.wte.weight " + shape_str(ws) + ")");

  // Blocks 0 … L-1, each with its tensors.
  std::set<int> blocks;
  for (auto& [name, t] : byName) {
    const int b = block_index(name, nullptr);
    if (b >= 0) blocks.insert(b);
  }
  AP_REQUIRE(!blocks.empty(), "transformer.h.0: no blocks (expected transformer.h.0.ln_1.weight and the rest)");
  c.layers = static_cast<int>(blocks.size());
  AP_REQUIRE(*blocks.rbegin() == c.layers - 1, "transformer.h." + std::to_string(*blocks.rbegin()) +
                                                   ": blocks must be numbered 0 to " + std::to_string(c.layers - 1) +
                                                   " without gaps, but " + std::to_string(c.layers) +
                                                   " blocks go up to " + std::to_string(*blocks.rbegin()));
  AP_REQUIRE(c.layers <= kMaxLayers, "transformer.h: " + std::to_string(c.layers) +
                                         " blocks is more than the limit of " + std::to_string(kMaxLayers));

  return c;
}

void Reader::positions(const FileMeta& meta, Config& c) const {
  const bool hasWpe = has("transformer.wpe.weight");
  std::string positions = meta.positions.empty() ? (hasWpe ? "learned" : "") : meta.positions;
  AP_REQUIRE(!positions.empty(), "transformer.wpe.weight: missing (expected [context, " + std::to_string(c.dModel) +
                                     "]); a model without it says __metadata__.positions = \"rope\"");
  AP_REQUIRE(positions == "learned" || positions == "rope",
             "__metadata__.positions: \"learned\" or \"rope\", got \"" + positions + "\"");
  c.positions = positions == "rope" ? Positions::Rope : Positions::Learned;
  c.ropeBase = meta.ropeBase;
  if (c.positions == Positions::Learned) {
    AP_REQUIRE(hasWpe, "transformer.wpe.weight: missing (expected [context, " + std::to_string(c.dModel) +
                           "] with __metadata__.positions \"learned\")");
    const auto& ps = byName.at("transformer.wpe.weight")->shape;
    AP_REQUIRE(ps.size() == 2 && ps[1] == c.dModel && ps[0] >= 1,
               "transformer.wpe.weight: expected [context, " + std::to_string(c.dModel) + "], got " + shape_str(ps));
    AP_REQUIRE(ps[0] <= kMaxContext, "transformer.wpe.weight: a context of " + std::to_string(ps[0]) +
                                         " is more than the limit of " + std::to_string(kMaxContext));
    c.context = static_cast<int>(ps[0]);
    AP_REQUIRE(maskContext == 0 || maskContext == c.context,
               maskName + ": a mask of context " + std::to_string(maskContext) + " but transformer.wpe.weight has " +
                   std::to_string(c.context) + " positions");
    AP_REQUIRE(meta.context == 0 || meta.context == c.context, "__metadata__.context: " + std::to_string(meta.context) +
                                                                   ", but transformer.wpe.weight has " +
                                                                   std::to_string(c.context) + " positions");
  } else {
    AP_REQUIRE(!hasWpe,
               "transformer.wpe.weight: a rope model has no position table (__metadata__.positions is "
               "\"rope\")");
    c.context = meta.context ? meta.context : maskContext;
    AP_REQUIRE(c.context >= 1,
               "__metadata__.context: a rope model needs its context (the longest sequence) in "
               "__metadata__.context or in the attn.bias buffers");
    AP_REQUIRE(maskContext == 0 || maskContext == c.context,
               maskName + ": a mask of context " + std::to_string(maskContext) + " but __metadata__.context is " +
                   std::to_string(c.context));
  }
}

Params Reader::params(const Config& c) const {
  Params p;
  p.blocks.resize(static_cast<std::size_t>(c.layers));
  std::set<std::string> used;
  for_each_tensor(c, p, [&](const std::string& name, Mat& m, int rows, int cols) {
    // biases and LayerNorm weights are 1-D in the state dict
    const bool vector = ends_with(name, ".bias") || ends_with(name, "ln_1.weight") || ends_with(name, "ln_2.weight") ||
                        ends_with(name, "ln_f.weight");
    const std::vector<long long> want = vector ? std::vector<long long>{cols} : std::vector<long long>{rows, cols};
    const auto it = byName.find(name);
    AP_REQUIRE(it != byName.end(), name + ": missing (expected " + shape_str(want) + ")");
    AP_REQUIRE(it->second->shape == want,
               name + ": expected " + shape_str(want) + ", got " + shape_str(it->second->shape));
    m = Eigen::Map<const Mat>(it->second->data.data(), rows, cols);
    used.insert(name);
  });
  if (c.tied) used.insert("lm_head.weight");
  for (auto& [name, t] : byName)
    AP_REQUIRE(used.count(name), name + ": not a tensor of nanoGPT's layout (" + shape_str(t->shape) +
                                     "; expected transformer.wte.weight, transformer.h.N.attn.c_attn.weight, …)");
  return p;
}

}  // namespace

Model load_state_dict(std::vector<NamedTensor> tensors, const FileMeta& meta, std::vector<std::string>* notes) {
  Reader r;
  r.collect(tensors, notes);
  Config c = r.shapes(meta);
  r.positions(meta, c);
  // Optional biases: a kind is present when block 0 (or ln_f) has it; then every block must.
  c.bias.ln1 = r.has("transformer.h.0.ln_1.bias");
  c.bias.attn = r.has("transformer.h.0.attn.c_attn.bias");
  c.bias.attnProj = r.has("transformer.h.0.attn.c_proj.bias");
  c.bias.ln2 = r.has("transformer.h.0.ln_2.bias");
  c.bias.fc = r.has("transformer.h.0.mlp.c_fc.bias");
  c.bias.mlpProj = r.has("transformer.h.0.mlp.c_proj.bias");
  c.bias.lnf = r.has("transformer.ln_f.bias");

  // Tied when lm_head.weight is absent or holds the same numbers as wte.
  const NamedTensor& wte = *r.byName.at("transformer.wte.weight");
  const auto headIt = r.byName.find("lm_head.weight");
  c.tied = headIt == r.byName.end() || (headIt->second->shape == wte.shape && headIt->second->data == wte.data);
  if (notes && headIt != r.byName.end() && c.tied)
    notes->push_back("lm_head.weight equals transformer.wte.weight: read as tied");
  c.validate();

  Params p = r.params(c);
  std::vector<std::string> vocab = meta.vocab;
  AP_REQUIRE(vocab.empty() || static_cast<int>(vocab.size()) == c.vocab,
             "__metadata__.vocab: expected " + std::to_string(c.vocab) +
                 " strings (one per row of transformer.wte.weight " + shape_str(wte.shape) + "), got " +
                 std::to_string(vocab.size()));
  return Model(c, std::move(p), std::move(vocab));
}

}  // namespace ap::lm
