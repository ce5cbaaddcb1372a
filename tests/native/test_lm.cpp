// The language model (src/core/lm*.{h,cpp}) against torch: tests/fixtures/lm/lm-*.json from
// tests/fixtures/gen_lm_fixtures.py (gpt_torch.py in float64). Forward ≤ 1e-5, gradients ≤ 1e-4 relative to the
// tensor's largest value, the KV cache's greedy continuation equal to torch's recomputed one, AdamW's steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <string>

#include "core/lm.h"
#include "core/lm_train.h"
#include "core/rng.h"
#include "json_lite.h"
#include "source_dir.h"

using ap::Mat;
using ap::testing::Json;
namespace lm = ap::lm;

namespace {

const char* kCases[] = {"learned-tied-bias", "learned-untied-nobias", "rope-tied-nobias", "rope-untied-bias"};

Json load_case(const std::string& name) {
  return Json::load(ap::testing::source_path("tests/fixtures/lm/lm-" + name + ".json"));
}

Mat mat_of(const Json& t, int rows, int cols) {
  const std::vector<double> d = t["data"].numbers();
  EXPECT_EQ(static_cast<long>(d.size()), static_cast<long>(rows) * cols);
  Mat m(rows, cols);
  for (int i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(d[static_cast<std::size_t>(i)]);
  return m;
}

lm::Config config_of(const Json& j) {
  const Json& c = j["config"];
  lm::Config cfg;
  cfg.vocab = static_cast<int>(c["vocabSize"].number);
  cfg.context = static_cast<int>(c["context"].number);
  cfg.layers = static_cast<int>(c["layers"].number);
  cfg.heads = static_cast<int>(c["heads"].number);
  cfg.dModel = static_cast<int>(c["dModel"].number);
  cfg.positions = c["positions"].string == "rope" ? ap::Positions::Rope : ap::Positions::Learned;
  cfg.ropeBase = static_cast<float>(c["ropeBase"].number);
  cfg.tied = c["tied"].boolean;
  const bool b = c["bias"].boolean;
  cfg.bias = {b, b, b, b, b, b, b};
  return cfg;
}

// Parameters by nanoGPT name from a fixture's "params" (or "grads", "after") object.
lm::Params params_of(const lm::Config& cfg, const Json& ps) {
  lm::Params p;
  p.blocks.resize(static_cast<std::size_t>(cfg.layers));
  lm::for_each_tensor(cfg, p,
                      [&](const std::string& name, Mat& m, int rows, int cols) { m = mat_of(ps[name], rows, cols); });
  return p;
}

lm::Model model_of(const Json& j) {
  const lm::Config cfg = config_of(j);
  return lm::Model(cfg, params_of(cfg, j["params"]));
}

float max_abs_diff(const Mat& a, const Mat& b) { return (a - b).cwiseAbs().maxCoeff(); }
float rel_diff(const Mat& a, const Mat& ref) {
  return max_abs_diff(a, ref) / std::max(ref.cwiseAbs().maxCoeff(), 1e-30f);
}

}  // namespace

TEST(LmFixtures, ForwardLogitsAndTraceEqualTorch) {
  float worst = 0;
  for (const char* name : kCases) {
    const Json j = load_case(name);
    const lm::Model m = model_of(j);
    const int B = static_cast<int>(j["batch"].number), n = static_cast<int>(j["n"].number);
    lm::Acts a;
    m.forward(j["ids"].ints(), B, n, a);
    const Mat ref = mat_of(j["logits"], B * n, m.config().vocab);
    const float d = max_abs_diff(a.logits, ref);
    EXPECT_LE(d, 1e-5f) << name;
    worst = std::max(worst, d);
    const int C = m.config().dModel, H = m.config().heads;
    for (int l = 0; l < m.config().layers; ++l) {
      const Json& t = j["trace"][static_cast<std::size_t>(l)];
      const lm::BlockActs& b = a.blocks[static_cast<std::size_t>(l)];
      const std::pair<const char*, const Mat*> rows[] = {
          {"input", &b.input},   {"attnOut", &b.attnOut}, {"afterAttn", &b.afterAttn},
          {"mlpOut", &b.mlpOut}, {"output", &b.output},   {"preact", &b.preact},
          {"act", &b.act}};
      for (const auto& [key, mat] : rows) {
        const Mat got = mat->topRows(n);  // batch item 0
        const float dd = max_abs_diff(got, mat_of(t[key], n, static_cast<int>(got.cols())));
        EXPECT_LE(dd, 1e-5f) << name << " block " << l << " " << key;
        worst = std::max(worst, dd);
      }
      const Mat W = mat_of(t["weights"], H * n, n);
      for (int h = 0; h < H; ++h) {
        const float dd = max_abs_diff(b.weights[static_cast<std::size_t>(h)], W.middleRows(h * n, n));
        EXPECT_LE(dd, 1e-6f) << name << " block " << l << " head " << h;
      }
      EXPECT_EQ(b.input.cols(), C);
    }
  }
  std::cout << "[lm] forward: largest |engine - torch| over logits and trace " << worst << "\n";
}

TEST(LmFixtures, GradientsOfEveryParameterEqualTorch) {
  float worst = 0;
  for (const char* name : kCases) {
    const Json j = load_case(name);
    const lm::Model m = model_of(j);
    const int B = static_cast<int>(j["batch"].number), n = static_cast<int>(j["n"].number);
    lm::Params g = lm::zeros_like(m.config());
    const double loss = lm::loss_and_gradients(m, j["ids"].ints(), j["targets"].ints(), B, n, g);
    EXPECT_NEAR(loss, j["loss"].number, 1e-5) << name;
    const lm::Params ref = params_of(m.config(), j["grads"]);
    const std::vector<std::string> names = lm::tensor_names(m.config());
    std::vector<Mat*> got = lm::tensor_list(m.config(), g);
    std::vector<Mat*> want = lm::tensor_list(m.config(), const_cast<lm::Params&>(ref));
    ASSERT_EQ(got.size(), j["grads"].size()) << name;
    for (std::size_t k = 0; k < got.size(); ++k) {
      const float r = rel_diff(*got[k], *want[k]);
      EXPECT_LE(r, 1e-4f) << name << " " << names[k];
      EXPECT_GT(want[k]->cwiseAbs().maxCoeff(), 0.f) << name << " " << names[k] << ": a gradient the test sees";
      worst = std::max(worst, r);
    }
  }
  std::cout << "[lm] gradients: largest |engine - torch| / max |torch| per tensor " << worst << "\n";
}

TEST(LmFixtures, KvCacheGreedyContinuationEqualsTorchRecomputed) {
  for (const char* name : kCases) {
    const Json j = load_case(name);
    const lm::Model m = model_of(j);
    const Json& gr = j["greedy"];
    for (bool cache : {true, false}) {
      lm::GenerateOptions o;
      o.sample.temperature = 0;
      o.maxTokens = m.config().context;
      o.useCache = cache;
      const lm::GenerateResult r = lm::generate(m, gr["prompt"].ints(), o);
      EXPECT_EQ(r.ids, gr["ids"].ints()) << name << " cache " << cache;
      EXPECT_EQ(r.reason, "context");
    }
    // the cache's logits, step by step, against torch's whole-prefix recompute
    lm::KvCache kv(m);
    std::vector<int> seq = gr["prompt"].ints();
    Mat logits;
    for (int id : seq) logits = kv.step(id);
    const std::vector<int> ids = gr["ids"].ints();
    for (std::size_t s = 0; s < ids.size(); ++s) {
      const Mat ref = mat_of(gr["logits"][s], 1, m.config().vocab);
      EXPECT_LE(max_abs_diff(logits, ref), 1e-5f) << name << " step " << s;
      if (s + 1 < ids.size()) logits = kv.step(ids[s]);
    }
  }
}

TEST(LmFixtures, AdamWStepsEqualTorch) {
  float worst = 0;
  int steps = 0;
  for (const char* name : kCases) {
    const Json j = load_case(name);
    if (!j.has("adamw")) continue;  // written for the cases with biases
    lm::Model m = model_of(j);
    const Json& a = j["adamw"];
    const int B = static_cast<int>(j["batch"].number), n = static_cast<int>(j["n"].number);
    lm::AdamWOptions o;
    o.beta1 = a["betas"][0].number;
    o.beta2 = a["betas"][1].number;
    o.eps = a["eps"].number;
    o.weightDecay = a["weightDecay"].number;
    lm::AdamW opt(m.config(), o);
    for (std::size_t it = 0; it < a["batches"].size(); ++it) {
      const double lr = lm::lr_at(static_cast<int>(it), a["lr"].number, static_cast<int>(a["warmup"].number),
                                  static_cast<int>(a["decaySteps"].number), a["minLr"].number);
      EXPECT_NEAR(lr, a["lrs"][it].number, 1e-12);
      // the loss of this step's batch on the engine's parameters so far (equal to torch's while the updates are)
      lm::Params g = lm::zeros_like(m.config());
      const double loss =
          lm::loss_and_gradients(m, a["batches"][it]["ids"].ints(), a["batches"][it]["targets"].ints(), B, n, g);
      EXPECT_NEAR(loss, a["losses"][it].number, 1e-5) << name << " step " << it;
      // the update itself from torch's gradients (see gen_lm_fixtures.py: why not the engine's own)
      g = params_of(m.config(), a["grads"][it]);
      const double norm = lm::clip_grad_norm(m.config(), g, a["gradClip"].number);
      EXPECT_NEAR(norm, a["gradNorms"][it].number, 1e-6 * a["gradNorms"][it].number) << name;
      opt.step(m, g, lr);
      ++steps;
    }
    const lm::Params ref = params_of(m.config(), a["after"]);
    std::vector<Mat*> got = lm::tensor_list(m.config(), m.params_mut());
    std::vector<Mat*> want = lm::tensor_list(m.config(), const_cast<lm::Params&>(ref));
    const std::vector<std::string> names = lm::tensor_names(m.config());
    for (std::size_t k = 0; k < got.size(); ++k) {
      const float d = max_abs_diff(*got[k], *want[k]);
      EXPECT_LE(d, 1e-6f) << name << " " << names[k];
      worst = std::max(worst, d);
    }
  }
  EXPECT_EQ(steps, 6);
  std::cout << "[lm] AdamW: largest |engine - torch| of a parameter after 3 steps " << worst << "\n";
}

// ---- finite differences, KV cache on random models ---------------------------------------------------------------

namespace {

lm::Model random_model(ap::Positions pos, bool tied, bool bias, unsigned seed, int V = 7, int T = 8) {
  lm::Config c;
  c.vocab = V;
  c.context = T;
  c.layers = 2;
  c.heads = 2;
  c.dModel = 8;
  c.positions = pos;
  c.tied = tied;
  c.bias = {bias, bias, bias, bias, bias, bias, bias};
  lm::Params p = lm::zeros_like(c);
  ap::Generator g(seed);
  lm::for_each_tensor(c, p, [&](const std::string& name, Mat& m, int rows, int cols) {
    m = g.randn(rows, cols);
    const bool ln = name.find("ln_") != std::string::npos && name.find("weight") != std::string::npos;
    if (ln)
      m = (m * 0.2f).array() + 1.f;
    else if (name.find("bias") != std::string::npos)
      m *= 0.1f;
    else if (name.find("wte") == std::string::npos && name.find("wpe") == std::string::npos)
      m *= 1.f / std::sqrt(static_cast<float>(cols));
  });
  return lm::Model(c, std::move(p));
}

}  // namespace

TEST(LmBackward, MatchesFiniteDifferences) {
  for (int variant = 0; variant < 2; ++variant) {
    lm::Model m =
        random_model(variant ? ap::Positions::Rope : ap::Positions::Learned, variant == 0, variant == 0, 3 + variant);
    const std::vector<int> ids = {1, 4, 2, 6, 0, 3, 5, 5, 2, 1};
    const std::vector<int> targets = {4, 2, -1, 0, 3, 5, 5, 2, 1, 6};
    lm::Params g = lm::zeros_like(m.config());
    lm::loss_and_gradients(m, ids, targets, 2, 5, g);
    std::vector<Mat*> P = lm::tensor_list(m.config(), m.params_mut());
    std::vector<Mat*> G = lm::tensor_list(m.config(), g);
    const std::vector<std::string> names = lm::tensor_names(m.config());
    auto loss = [&] {
      lm::Acts a;
      m.forward(ids, 2, 5, a);
      return lm::cross_entropy(a.logits, targets, nullptr);
    };
    // Float32 losses (~2) carry ~1e-6 of rounding, so differences over 2·eps have a noise floor of ~1e-4 at
    // eps 1e-2; each element gets that floor plus 2 % of its size (the torch fixtures check to 1e-4 relative).
    const float eps = 1e-2f;
    for (std::size_t k = 0; k < P.size(); ++k) {
      int bad = 0;
      Mat fdm(P[k]->rows(), P[k]->cols());
      for (int i = 0; i < P[k]->size(); ++i) {
        float& x = P[k]->data()[i];
        const float x0 = x;
        x = x0 + eps;
        const double up = loss();
        x = x0 - eps;
        const double down = loss();
        x = x0;
        const auto fd = static_cast<float>((up - down) / (2 * eps));
        const float an = G[k]->data()[i];
        fdm.data()[i] = fd;
        if (std::abs(an - fd) > 1e-4f + 2e-2f * std::abs(fd)) {
          ++bad;
          std::cout << names[k] << "[" << i << "] analytic " << an << " numeric " << fd << "\n";
        }
      }
      EXPECT_EQ(bad, 0) << "variant " << variant << " " << names[k];
      EXPECT_LT((fdm - *G[k]).norm(), 2e-2f * fdm.norm() + 1e-4f * std::sqrt(static_cast<float>(fdm.size())))
          << names[k];
      EXPECT_GT(G[k]->cwiseAbs().maxCoeff(), 1e-3f) << names[k];
    }
  }
}

TEST(LmKvCache, EqualsFullRecomputeAtEveryLength) {
  for (auto pos : {ap::Positions::Learned, ap::Positions::Rope}) {
    const lm::Model m = random_model(pos, false, true, 11, 9, 16);
    const std::vector<int> ids = {3, 1, 4, 1, 5, 0, 2, 6, 5, 3, 5, 8, 7, 0, 2, 8};
    const Mat full = m.logits(ids);
    lm::KvCache kv(m);
    for (std::size_t t = 0; t < ids.size(); ++t) {
      Mat w;
      const Mat row = kv.step(ids[t], &w);
      EXPECT_LE(max_abs_diff(row, full.row(static_cast<long>(t))), 2e-5f * std::max(1.f, full.cwiseAbs().maxCoeff()))
          << ap::positions_name(pos) << " t " << t;
      // the attention rows the cache used are the full pass's rows at t
      lm::Acts a;
      const std::vector<int> prefix(ids.begin(), ids.begin() + static_cast<long>(t) + 1);
      m.forward(prefix, 1, static_cast<int>(t) + 1, a);
      for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 2; ++h)
          EXPECT_LE(max_abs_diff(w.row(l * 2 + h),
                                 a.blocks[static_cast<std::size_t>(l)].weights[static_cast<std::size_t>(h)].row(
                                     static_cast<long>(t))),
                    1e-6f);
    }
    EXPECT_THROW(kv.step(0), ap::Error);  // full
  }
}

// ---- the sampler -------------------------------------------------------------------------------------------------

TEST(LmSampler, Mulberry32EqualsThePageGenerator) {
  // web/compute/random.ts's mulberry32(42), first three draws (node)
  lm::Mulberry32 r(42);
  EXPECT_DOUBLE_EQ(r.next(), 0.6011037519201636);
  EXPECT_DOUBLE_EQ(r.next(), 0.44829055899754167);
  EXPECT_DOUBLE_EQ(r.next(), 0.8524657934904099);
}

TEST(LmSampler, GreedyTopKTopPAndTheDraw) {
  // logits log([0.1, 0.4, 0.2, 0.3, 0.0 + tiny]) -> p = [0.1, 0.4, 0.2, 0.3]
  const float z[] = {std::log(0.1f), std::log(0.4f), std::log(0.2f), std::log(0.3f)};
  lm::SampleOptions o;
  lm::Draw d = lm::sample(z, 4, o, 0.45);  // sorted 1 (0.4), 3 (0.3), 2 (0.2), 0 (0.1): cum 0.4, 0.7 > 0.45
  EXPECT_EQ(d.id, 3);
  EXPECT_EQ(d.kept, 4);
  ASSERT_EQ(d.before.size(), 4u);
  EXPECT_EQ(d.before[0].id, 1);
  EXPECT_NEAR(d.before[0].p, 0.4, 1e-6);
  o.topK = 2;  // {1, 3} renormalised 4/7, 3/7: u 0.5 -> 3, u 0.5 - ... 0.55 -> 1? 4/7 = 0.571 > 0.55
  EXPECT_EQ(lm::sample(z, 4, o, 0.55).id, 1);
  EXPECT_EQ(lm::sample(z, 4, o, 0.6).id, 3);
  EXPECT_NEAR(lm::sample(z, 4, o, 0.6).after[1].p, 3.0 / 7, 1e-6);
  o.topK = 0;
  o.topP = 0.65;  // 0.4 < 0.65, 0.7 >= 0.65: keeps 2
  EXPECT_EQ(lm::sample(z, 4, o, 0.99).kept, 2);
  o.topP = 1;
  o.temperature = 0;
  EXPECT_EQ(lm::sample(z, 4, o, 0.99).id, 1);
  const float tie[] = {0.5f, 2.f, 2.f, 1.f};
  EXPECT_EQ(lm::sample(tie, 4, o, 0.9).id, 1);  // ties to the lowest id
  o.temperature = 1;
  o.topK = 1;
  EXPECT_EQ(lm::sample(tie, 4, o, 0.9).id, 1);
  o.topK = 0;
  const lm::Draw t = lm::sample(tie, 4, o, 0.0);
  EXPECT_EQ(t.before[0].id, 1);  // equal probabilities: lower id first
  EXPECT_EQ(t.before[1].id, 2);
  // temperature 2: p ∝ sqrt of the temperature-1 probabilities
  o.temperature = 2;
  const lm::Draw h = lm::sample(z, 4, o, 0.0);
  const double s = std::sqrt(0.1) + std::sqrt(0.4) + std::sqrt(0.2) + std::sqrt(0.3);
  EXPECT_NEAR(h.after[0].p, std::sqrt(0.4) / s, 1e-6);
}

TEST(LmSampler, OptionsAreChecked) {
  lm::SampleOptions o;
  o.temperature = -1;
  EXPECT_THROW(o.validate(10), ap::Error);
  o.temperature = 1;
  o.topK = 11;
  try {
    o.validate(10);
    FAIL();
  } catch (const ap::Error& e) {
    EXPECT_NE(std::string(e.what()).find("topK"), std::string::npos) << e.what();
  }
  o.topK = 0;
  o.topP = 0;
  EXPECT_THROW(o.validate(10), ap::Error);
}

TEST(LmGenerate, StopsAfterTheStopIdAndDrawsOncePerToken) {
  const lm::Model m = random_model(ap::Positions::Learned, true, true, 5, 7, 16);
  lm::GenerateOptions o;
  o.maxTokens = 12;
  o.sample.seed = 9;
  o.sample.temperature = 1.5;
  const lm::GenerateResult r = lm::generate(m, {1, 2}, o);
  ASSERT_EQ(r.ids.size(), 12u);
  lm::Mulberry32 rng(9);
  std::vector<int> seq = {1, 2};
  for (std::size_t s = 0; s < r.ids.size(); ++s) {
    const Mat lg = m.logits(seq);
    const double u = rng.next();
    EXPECT_DOUBLE_EQ(r.steps[s].draw.u, u);
    EXPECT_EQ(lm::sample(lg.data() + (lg.rows() - 1) * lg.cols(), 7, o.sample, u).id, r.ids[s]) << s;
    seq.push_back(r.ids[s]);
  }
  o.stopId = r.ids[3];
  const lm::GenerateResult st = lm::generate(m, {1, 2}, o);
  EXPECT_EQ(st.reason, "stop");
  EXPECT_EQ(st.ids.back(), r.ids[3]);
  EXPECT_LE(st.ids.size(), 4u);
  EXPECT_THROW(lm::generate(m, {}, o), ap::Error);
  EXPECT_THROW(lm::generate(m, {1, 7}, o), ap::Error);
}

// ---- text, head scores, caps ------------------------------------------------------------------------------------

TEST(LmText, EncodeNamesACharacterOutsideTheVocabulary) {
  lm::Model r = random_model(ap::Positions::Learned, true, true, 2, 4, 8);
  const lm::Model m(r.config(), r.params(), {"\n", "床", "前", "，"});
  EXPECT_EQ(m.encode("床前，"), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(m.decode({1, 3, 0}), "床，\n");
  try {
    m.encode("床前月");
    FAIL();
  } catch (const ap::Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "prompt: the character \"月\" (U+6708) at index 2 is not in the model's vocabulary (4 entries)");
  }
}

TEST(LmHeadScores, AreTheMeansOfTheSpecCells) {
  const lm::Model m = random_model(ap::Positions::Learned, true, true, 8, 7, 16);
  const std::vector<std::vector<int>> poems = {{1, 2, 3, 4, 5, 0, 2, 3, 4, 1, 6, 0, 3}, {4, 4, 1}};
  const lm::HeadScores s = lm::head_scores(m, poems);
  // computed here from the forward weights, cell by cell
  double pl = 0, pc = 0, le = 0;
  int npl = 0, npc = 0;
  for (const auto& p : poems) {
    lm::Acts a;
    m.forward(p, 1, static_cast<int>(p.size()), a);
    const Mat& A = a.blocks[1].weights[1];  // layer 1, head 1
    for (int i = 0; i < static_cast<int>(p.size()); ++i) {
      if (i >= 1) pc += A(i, i - 1), ++npc;
      if (i >= 6) pl += A(i, i - 6), le += A(i, (i / 6) * 6 - 1), ++npl;
    }
  }
  EXPECT_NEAR(s.previousLine[3], pl / npl, 1e-9);
  EXPECT_NEAR(s.previousChar[3], pc / npc, 1e-9);
  EXPECT_NEAR(s.lineEnd[3], le / npl, 1e-9);
}

TEST(LmConfig, CapsNameTheArgument) {
  auto msg = [](lm::Config c) {
    try {
      c.validate();
    } catch (const ap::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  lm::Config c;
  c.vocab = 10;
  c.context = 8;
  c.layers = 1;
  c.heads = 2;
  c.dModel = 8;
  EXPECT_EQ(msg(c), "");
  auto with = [&](auto f) {
    lm::Config d = c;
    f(d);
    return msg(d);
  };
  EXPECT_EQ(with([](lm::Config& d) { d.vocab = lm::kMaxVocab + 1; }).rfind("vocabSize:", 0), 0u);
  EXPECT_EQ(with([](lm::Config& d) { d.context = 0; }).rfind("context:", 0), 0u);
  EXPECT_EQ(with([](lm::Config& d) { d.layers = lm::kMaxLayers + 1; }).rfind("layers:", 0), 0u);
  EXPECT_EQ(with([](lm::Config& d) { d.dModel = lm::kMaxDModel + 1; }).rfind("dModel:", 0), 0u);
  EXPECT_EQ(with([](lm::Config& d) { d.heads = 3; }).rfind("heads:", 0), 0u);
  EXPECT_EQ(with([](lm::Config& d) { d.heads = lm::kMaxHeads + 1; }).rfind("heads:", 0), 0u);
  EXPECT_EQ(with([](lm::Config& d) {
              d.vocab = 60000;
              d.dModel = 2048;
            }).rfind("model:", 0),
            0u);
}

// ---- reading a state dict -----------------------------------------------------------------------------------------

namespace {

std::vector<lm::NamedTensor> named_of(const lm::Model& m, const std::string& prefix) {
  std::vector<lm::NamedTensor> v;
  lm::for_each_tensor(m.config(), m.params(), [&](const std::string& name, const Mat& t, int rows, int cols) {
    const bool vec = rows == 1 && (name.find("bias") != std::string::npos || name.find("ln_") != std::string::npos);
    v.push_back({prefix + name, vec ? std::vector<long long>{cols} : std::vector<long long>{rows, cols},
                 std::vector<float>(t.data(), t.data() + t.size())});
  });
  return v;
}

std::string load_error(std::vector<lm::NamedTensor> t, const lm::FileMeta& meta) {
  try {
    lm::load_state_dict(std::move(t), meta, nullptr);
  } catch (const ap::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(LmLoad, ReadsNanoGptNamesWithPrefixAndMaskBuffers) {
  const Json j = load_case("learned-tied-bias");
  const lm::Model m = model_of(j);
  std::vector<lm::NamedTensor> t = named_of(m, "_orig_mod.");
  const int T = m.config().context;
  for (int l = 0; l < 2; ++l) {
    lm::NamedTensor mask{"_orig_mod.transformer.h." + std::to_string(l) + ".attn.bias", {1, 1, T, T}, {}};
    for (int i = 0; i < T; ++i)
      for (int k = 0; k < T; ++k) mask.data.push_back(k <= i ? 1.f : 0.f);
    t.push_back(mask);
  }
  t.push_back({"_orig_mod.lm_head.weight",
               {m.config().vocab, m.config().dModel},
               std::vector<float>(m.params().wte.data(), m.params().wte.data() + m.params().wte.size())});
  lm::FileMeta meta;
  meta.heads = 2;
  std::vector<std::string> notes;
  const lm::Model r = lm::load_state_dict(t, meta, &notes);
  EXPECT_TRUE(r.config().tied);
  EXPECT_EQ(r.config().context, T);
  EXPECT_EQ(notes.size(), 3u);
  const std::vector<int> ids = j["ids"].ints();
  const std::vector<int> first(ids.begin(), ids.begin() + 10);
  EXPECT_EQ(max_abs_diff(r.logits(first), m.logits(first)), 0.f);

  // the errors, each naming the tensor
  auto without = [&](const std::string& name) {
    std::vector<lm::NamedTensor> u;
    for (const auto& x : t)
      if (x.name != name) u.push_back(x);
    return u;
  };
  EXPECT_EQ(load_error(without("_orig_mod.transformer.h.1.mlp.c_fc.weight"), meta),
            "transformer.h.1.mlp.c_fc.weight: missing (expected [64, 16])");
  EXPECT_EQ(load_error(without("_orig_mod.transformer.h.1.ln_2.bias"), meta).find("transformer.h.1.ln_2.bias: missing"),
            0u);
  std::vector<lm::NamedTensor> bad = t;
  for (auto& x : bad)
    if (x.name == "_orig_mod.transformer.h.0.attn.c_proj.weight") x.shape = {8, 32};
  EXPECT_EQ(load_error(bad, meta), "transformer.h.0.attn.c_proj.weight: expected [16, 16], got [8, 32]");
  bad = t;
  for (auto& x : bad)
    if (x.name == "_orig_mod.transformer.h.1.attn.bias") x.data[1] = 1.f;
  EXPECT_EQ(load_error(bad, meta).find("transformer.h.1.attn.bias: not a causal mask"), 0u) << load_error(bad, meta);
  bad = t;
  bad.push_back({"transformer.h.0.attn.extra", {2}, {1.f, 2.f}});
  EXPECT_EQ(load_error(bad, meta).find("transformer.h.0.attn.extra: not a tensor of nanoGPT's layout"), 0u);
  bad = t;
  bad.push_back({"transformer.ln_f.weight", {16}, std::vector<float>(16, 1.f)});
  EXPECT_EQ(load_error(bad, meta).find("transformer.ln_f.weight: appears twice"), 0u);
  lm::FileMeta m3 = meta;
  m3.heads = 3;
  EXPECT_EQ(load_error(t, m3).find("__metadata__.n_head: 3 heads do not divide dModel 16"), 0u);
  m3 = meta;
  m3.vocab = {"a", "b"};
  EXPECT_EQ(load_error(t, m3).find("__metadata__.vocab: expected 13 strings"), 0u);
  EXPECT_EQ(load_error(without("_orig_mod.transformer.wpe.weight"), meta).find("transformer.wpe.weight: missing"), 0u);
}

TEST(LmLoad, RopeAndUntiedWithoutBiases) {
  const Json j = load_case("rope-untied-bias");
  const lm::Model m = model_of(j);
  lm::FileMeta meta;
  meta.heads = 2;
  meta.positions = "rope";
  meta.ropeBase = 500.f;
  EXPECT_EQ(load_error(named_of(m, ""), meta).find("__metadata__.context"), 0u);
  meta.context = m.config().context;
  const lm::Model r = lm::load_state_dict(named_of(m, ""), meta, nullptr);
  EXPECT_FALSE(r.config().tied);
  const Json k = load_case("learned-untied-nobias");
  const lm::Model n = model_of(k);
  lm::FileMeta mk;
  mk.heads = 2;
  const lm::Model rn = lm::load_state_dict(named_of(n, ""), mk, nullptr);
  EXPECT_FALSE(rn.config().bias.attn);
  EXPECT_FALSE(rn.config().bias.lnf);
  const std::vector<int> ids = {1, 2, 3};
  EXPECT_EQ(max_abs_diff(rn.logits(ids), n.logits(ids)), 0.f);
}
