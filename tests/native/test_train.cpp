// Backprop of the trainable attention model checked against central finite differences, for every
// parameter of every scoring rule, with and without the causal mask, one and several heads; plus the
// optimizers, determinism, the tasks' data and learning itself.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "core/attention.h"
#include "core/rng.h"
#include "core/train.h"
#include "grad_check.h"

using ap::Mat;
using namespace ap::train;

namespace {

ModelConfig small_config(ap::ScoreRule rule, int heads, bool causal) {
  ModelConfig c;
  c.vocab = 7;
  c.classes = 5;
  c.maxLen = 6;
  c.dModel = 8;
  c.dq = 8;
  // dot-style rules need dq = dk; the others get different sizes so a transposed shape cannot hide
  c.dk = (rule == ap::ScoreRule::Dot || rule == ap::ScoreRule::ScaledDot) ? 8 : 6;
  c.dv = 4;
  c.heads = heads;
  c.layers = 2;
  c.score = rule;
  c.temperature = 0.7f;
  c.causal = causal;
  return c;
}

using ap::train::testing::small_batch;

// Scale the random init down so softmax and tanh work in their curved region, not saturated.
void shrink(Model& m) {
  for (Param& p : m.params()) p.value *= 0.6f;
}

using Case = std::tuple<ap::ScoreRule, int, bool>;

class GradCheck : public ::testing::TestWithParam<Case> {};

TEST_P(GradCheck, EveryParameterMatchesFiniteDifferences) {
  const auto [rule, heads, causal] = GetParam();
  ap::Generator g(7);
  Model m(small_config(rule, heads, causal), g);
  shrink(m);
  ap::train::testing::expect_matches_finite_differences(m, small_batch());
}

// Every rule, one and two heads, with and without the causal mask.
auto every_case() {
  return ::testing::Combine(::testing::Values(ap::ScoreRule::Dot, ap::ScoreRule::ScaledDot, ap::ScoreRule::General,
                                              ap::ScoreRule::Additive, ap::ScoreRule::Concat),
                            ::testing::Values(1, 2), ::testing::Bool());
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = ap::score_name(std::get<0>(info.param));
  for (char& c : name)
    if (c == '-') c = '_';
  return name + "_h" + std::to_string(std::get<1>(info.param)) + (std::get<2>(info.param) ? "_causal" : "_open");
}

INSTANTIATE_TEST_SUITE_P(AllRules, GradCheck, every_case(), case_name);

TEST(Train, GradientsAreNonTrivial) {
  // A grad check passes vacuously if every gradient is zero; make sure the parameters the batch
  // reaches do get gradient, and the concat rows past the longest sequence get none.
  ap::Generator g(3);
  Model m(small_config(ap::ScoreRule::Concat, 2, false), g);
  std::vector<Mat> grads;
  m.loss(small_batch(), &grads);
  for (size_t k = 0; k < grads.size(); ++k) {
    if (m.params()[k].name == "embedding" || m.params()[k].name == "position") continue;
    EXPECT_GT(grads[k].norm(), 1e-6f) << m.params()[k].name;
  }
  const int W = m.param_index("layers.0.heads.0.W");
  ASSERT_GE(W, 0);
  EXPECT_EQ(grads[W].row(5).norm(), 0.0f);  // position 5 never exists in a length-5 sequence
  EXPECT_GT(grads[W].row(4).norm(), 0.0f);
}

TEST(Train, TemperatureAndScaleChangeWeightsAsDefined) {
  // weights = softmax(scale · scores / T): doubling T equals halving the scale.
  ap::Generator g1(11), g2(11);
  ModelConfig a = small_config(ap::ScoreRule::General, 1, false);
  a.temperature = 2.0f;
  a.scale = 1.0f;
  ModelConfig b = a;
  b.temperature = 1.0f;
  b.scale = 0.5f;
  Model ma(a, g1), mb(b, g2);
  const auto ta = ma.trace({1, 2, 3, 4});
  const auto tb = mb.trace({1, 2, 3, 4});
  EXPECT_LT((ta[0].weights[0] - tb[0].weights[0]).cwiseAbs().maxCoeff(), 1e-6f);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(ta[0].weights[0].row(i).sum(), 1.0f, 1e-5f);
}

TEST(Train, CausalWeightsAboveDiagonalAreZero) {
  ap::Generator g(5);
  Model m(small_config(ap::ScoreRule::Additive, 2, true), g);
  const auto t = m.trace({1, 2, 3, 4, 5});
  for (const auto& w : t[1].weights)
    for (int i = 0; i < 5; ++i)
      for (int j = i + 1; j < 5; ++j) EXPECT_EQ(w(i, j), 0.0f);
  EXPECT_TRUE(std::isinf(t[1].maskedScores[0](0, 4)));
}

TEST(Train, SgdStepIsMinusLrTimesGradient) {
  ap::Generator g(1);
  Model m(small_config(ap::ScoreRule::Dot, 1, false), g);
  const Mat before = m.params()[0].value;
  std::vector<Mat> grads;
  m.loss(small_batch(), &grads);
  auto opt = Optimizer::make("sgd", 0.5f);
  opt->update(m.params(), grads);
  EXPECT_LT((m.params()[0].value - (before - 0.5f * grads[0])).cwiseAbs().maxCoeff(), 1e-7f);
}

TEST(Train, AdamFirstStepMovesEachWeightByLr) {
  // With bias correction, Adam's first step is lr · g / (|g| + eps): every weight with a gradient
  // moves by lr against its sign — the textbook property of torch.optim.Adam.
  ap::Generator g(1);
  Model m(small_config(ap::ScoreRule::Dot, 1, false), g);
  const int k = m.param_index("head.W");
  const Mat before = m.params()[k].value;
  std::vector<Mat> grads;
  m.loss(small_batch(), &grads);
  auto opt = Optimizer::make("adam", 0.01f);
  opt->update(m.params(), grads);
  const Mat delta = m.params()[k].value - before;
  for (int i = 0; i < delta.size(); ++i) {
    const float gi = grads[k].data()[i];
    if (std::abs(gi) < 1e-5f) continue;
    EXPECT_NEAR(delta.data()[i], gi > 0 ? -0.01f : 0.01f, 1e-4f);
  }
}

TEST(Train, SameSeedSameRunOtherSeedOtherRun) {
  TrainerOptions o;
  o.task = "reverse";
  o.dModel = 16;
  Trainer a(o), b(o);
  o.seed = 1;
  Trainer c(o);
  for (int i = 0; i < 5; ++i) {
    const double la = a.step(3).loss, lb = b.step(3).loss, lc = c.step(3).loss;
    EXPECT_EQ(la, lb);
    EXPECT_NE(la, lc);
  }
  EXPECT_EQ(a.model().params()[0].value, b.model().params()[0].value);
}

TEST(Train, CoreferenceDataIsHeldOutByCombination) {
  const TaskData t = make_coreference();
  EXPECT_GE(t.vocab.size(), 40u);
  auto key = [&](const Example& e) {
    // the nouns (where the pointer can go) and the adjective (last token) identify the combination
    std::multiset<int> k;
    const int it = e.pointerFrom;
    for (size_t i = 0; i < e.ids.size(); ++i)
      if (static_cast<int>(i) != it && t.vocab[e.ids[i]] != "the") k.insert(e.ids[i]);
    return std::make_tuple(e.ids[e.pointerTo], e.ids.back(), k);
  };
  std::set<std::tuple<int, int, std::multiset<int>>> train;
  for (const Example& e : t.train) train.insert(key(e));
  ASSERT_FALSE(t.test.empty());
  for (const Example& e : t.test) EXPECT_EQ(train.count(key(e)), 0u);
  for (const auto* set : {&t.train, &t.test})
    for (const Example& e : *set) {
      ASSERT_EQ(t.vocab[e.ids[e.pointerFrom]], "it");
      const std::string adj = t.vocab[e.ids.back()], ref = t.vocab[e.ids[e.pointerTo]];
      if (adj == "tired") {
        EXPECT_TRUE(ref != "street" && ref != "road") << ref;
      }
      if (adj == "wide") {
        EXPECT_TRUE(ref != "animal" && ref != "dog") << ref;
      }
    }
  const auto ids = encode_text(t, "The animal didn't cross the street because it was too tired.", nullptr);
  EXPECT_EQ(ids.size(), 11u);
}

TEST(Train, EvaluateLimitTakesAPrefixOfTheHeldOutSet) {
  TrainerOptions o;
  Trainer tr(o);
  EXPECT_EQ(tr.evaluate().terms, static_cast<int>(tr.task().test.size()));
  EXPECT_EQ(tr.evaluate(100).terms, 100);
  EXPECT_THROW(tr.evaluate(-1), ap::Error);
  // the fixed shuffle mixes the combinations into any prefix (unshuffled, the first 100 share one animal)
  std::set<std::string> adjs;
  for (int i = 0; i < 100; ++i) adjs.insert(tr.task().vocab[tr.task().test[i].ids.back()]);
  EXPECT_GE(adjs.size(), 10u);
}

// Every task (with its default positions) and the reverse task with every position encoding, through a few steps,
// an evaluation and a trace: the loops that the learning tests (…Learns…, ReverseNeedsPositions) run for hundreds of
// steps to check what they learn. The sanitizer run (scripts/test-sanitizers.sh) runs this one in their place: the
// same code under ASan + UBSan in a few seconds, instead of ~50 test-seconds of the same steps again.
TEST(Train, EveryTaskAndPositionStepsEvaluatesAndTraces) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"coreference", ""},       {"next-char", ""},   {"induction", ""},   {"reverse", "learned"},
      {"reverse", "sinusoidal"}, {"reverse", "rope"}, {"reverse", "none"},
  };
  for (const auto& [task, positions] : cases) {
    SCOPED_TRACE(task + ", positions " + (positions.empty() ? "(default)" : positions));
    TrainerOptions o;
    o.task = task;
    if (!positions.empty()) o.positions = positions;
    if (task == "next-char") {
      o.text = "abcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabc";
      o.context = 8;
    }
    Trainer tr(o);
    const Score s = tr.step(3);
    EXPECT_TRUE(std::isfinite(s.loss));
    const Score e = tr.evaluate(20);
    EXPECT_TRUE(std::isfinite(e.loss));
    EXPECT_GT(e.terms, 0);
    const auto t = tr.model().trace(tr.task().test.at(0).ids);
    ASSERT_EQ(static_cast<int>(t.size()), tr.model().config().layers);
    EXPECT_TRUE(t.back().weights.at(0).allFinite());
  }
}

TEST(Train, ReverseLearns) {
  TrainerOptions o;
  o.task = "reverse";
  o.dModel = 32;
  o.seed = 4;
  Trainer tr(o);
  const Score before = tr.evaluate();
  Score after;
  for (int i = 0; i < 6; ++i) after = tr.step(50);
  const Score held = tr.evaluate();
  EXPECT_LT(held.loss, before.loss * 0.5);
  EXPECT_GT(held.accuracy, 0.5);  // chance is 0.1
  (void)after;
}

TEST(Train, CoreferenceLearnsToPointAtTheReferent) {
  TrainerOptions o;
  o.task = "coreference";
  o.seed = 2;
  Trainer tr(o);
  const Score before = tr.evaluate();
  for (int i = 0; i < 8; ++i) tr.step(50);
  const Score held = tr.evaluate();
  EXPECT_LT(held.loss, before.loss);
  EXPECT_GT(held.accuracy, 0.8);  // chance between the two nouns is 0.5, over all 11 tokens less
  for (const char* adj : {"tired", "wide"}) {
    const auto t = tr.trace(std::string("the animal didn't cross the street because it was too ") + adj);
    const Mat& w = t.layers.back().weights[0];
    const int it = 7, animal = 1, street = 5;
    if (std::string(adj) == "tired")
      EXPECT_GT(w(it, animal), w(it, street));
    else
      EXPECT_GT(w(it, street), w(it, animal));
  }
}

TEST(Train, NextCharLearnsWithCausalMask) {
  TrainerOptions o;
  o.task = "next-char";
  o.text = "abcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabc";
  o.context = 8;
  Trainer tr(o);
  EXPECT_TRUE(tr.model().config().causal);
  for (int i = 0; i < 4; ++i) tr.step(50);
  EXPECT_GT(tr.evaluate().accuracy, 0.9);  // a period-3 text is fully predictable
}

// The message a Trainer with these options throws, or "no error".
std::string trainer_error(const TrainerOptions& o) {
  try {
    Trainer t(o);
  } catch (const ap::Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Train, BadOptionsNameTheArgument) {
  TrainerOptions o;
  o.task = "translate";
  EXPECT_NE(trainer_error(o).find("task"), std::string::npos);
  o = TrainerOptions();
  o.score = "cosine";
  EXPECT_NE(trainer_error(o).find("score"), std::string::npos);
  o = TrainerOptions();
  o.heads = 3;  // 32 % 3 != 0
  EXPECT_NE(trainer_error(o).find("heads"), std::string::npos);
  o = TrainerOptions();
  o.optimizer = "rmsprop";
  EXPECT_NE(trainer_error(o).find("optimizer"), std::string::npos);
  o = TrainerOptions();
  o.lr = -1;
  EXPECT_NE(trainer_error(o).find("lr"), std::string::npos);
  o = TrainerOptions();
  o.dModel = 0;
  EXPECT_NE(trainer_error(o).find("dModel"), std::string::npos);
  o = TrainerOptions();
  o.task = "next-char";
  o.text = "too short";
  EXPECT_NE(trainer_error(o).find("text"), std::string::npos);
  o.mask = "none";
  o.text = std::string(200, 'a');
  EXPECT_NE(trainer_error(o).find("mask"), std::string::npos);
  Trainer ok{TrainerOptions()};
  EXPECT_THROW(ok.trace("the unicorn didn't cross"), ap::Error);
}

TEST(Train, MessagesAgreeWithTheirChecksAndPrintNumbersAsWritten) {
  TrainerOptions o;
  o.layers = 0;  // given as 0: not the task's default
  EXPECT_EQ(trainer_error(o), "layers: expected an integer in [1, 4], got 0");
  o.layers = 5;
  EXPECT_EQ(trainer_error(o), "layers: expected an integer in [1, 4], got 5");
  o = TrainerOptions();
  o.dq = 0;
  EXPECT_EQ(trainer_error(o), "dq: expected an integer in [1, 256], got 0");
  o = TrainerOptions();
  o.lr = 0.f;
  EXPECT_EQ(trainer_error(o), "lr: expected a finite number in (0, 10], got 0");
  o.lr = 12.5f;
  EXPECT_EQ(trainer_error(o), "lr: expected a finite number in (0, 10], got 12.5");
  o = TrainerOptions();
  o.temperature = -0.1f;
  EXPECT_EQ(trainer_error(o), "temperature: expected a finite number > 0, got -0.1");
  Trainer ok{TrainerOptions()};
  try {
    ok.set_lr(-1e-7f);
    FAIL();
  } catch (const ap::Error& e) {
    EXPECT_STREQ(e.what(), "lr: expected a finite number in (0, 10], got -1e-07");
  }
}

// Training's forward pass is ap's attention step: per head, the scores, scaled and masked scores and
// weights of a trace equal ap::attention's on the same Q, K, V and rule parameters, bit for bit.
class TrainForward : public ::testing::TestWithParam<Case> {};

TEST_P(TrainForward, EqualsApAttentionPerHead) {
  const auto [rule, heads, causal] = GetParam();
  ap::Generator g(21);
  const ModelConfig cfg = small_config(rule, heads, causal);
  Model m(cfg, g);
  const std::vector<int> ids = {1, 4, 2, 6, 0};
  const int n = static_cast<int>(ids.size());
  const auto trace = m.trace(ids);
  const int dqh = cfg.dq / heads, dkh = cfg.dk / heads, dvh = cfg.dv / heads;
  for (size_t l = 0; l < trace.size(); ++l) {
    const LayerTrace& t = trace[l];
    for (int h = 0; h < heads; ++h) {
      const std::string pre = "layers." + std::to_string(l) + ".heads." + std::to_string(h) + ".";
      auto param = [&](const char* k) { return m.params()[m.param_index(pre + k)].value; };
      ap::AttentionOptions o;
      o.score = rule;
      o.hasScale = true;
      o.scale = cfg.head_scale();
      o.temperature = cfg.temperature;
      o.mask.kind = causal ? ap::Mask::Kind::Causal : ap::Mask::Kind::None;
      if (rule == ap::ScoreRule::General) o.params.W = param("W");
      if (rule == ap::ScoreRule::Additive) {
        o.params.Wq = param("Wq");
        o.params.Wk = param("Wk");
        o.params.v = param("v").row(0).transpose();
      }
      if (rule == ap::ScoreRule::Concat) {
        o.params.concatW = param("W").topRows(n);
        o.params.concatB = param("b").row(0).leftCols(n).transpose();
      }
      const Mat Qh = t.Q.middleCols(h * dqh, dqh), Kh = t.K.middleCols(h * dkh, dkh), Vh = t.V.middleCols(h * dvh, dvh);
      ap::validate_attention(Qh, Kh, Vh, o);
      const ap::AttentionResult r = ap::attention(Qh, Kh, Vh, o);
      EXPECT_EQ(t.scores[h], r.scores) << pre;
      EXPECT_EQ(t.scaledScores[h], r.scaledScores) << pre;
      EXPECT_EQ(t.maskedScores[h], r.maskedScores) << pre;
      EXPECT_EQ(t.weights[h], r.weights) << pre;
      // weights · V: training's own product, the same sums in another order.
      EXPECT_LT((t.output.middleCols(h * dvh, dvh) - r.output).cwiseAbs().maxCoeff(), 1e-5f) << pre;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryRule, TrainForward, every_case(), case_name);

}  // namespace

TEST(Train, DefaultScheduleWarmsUpDecaysAndAnExplicitLrStaysConstant) {
  using ap::train::lr_multiplier;
  EXPECT_DOUBLE_EQ(lr_multiplier("warmup-cosine", 0), 1.0 / ap::train::kWarmupSteps);
  EXPECT_DOUBLE_EQ(lr_multiplier("warmup-cosine", ap::train::kWarmupSteps - 1), 1.0);
  EXPECT_DOUBLE_EQ(lr_multiplier("warmup-cosine", ap::train::kWarmupSteps), 1.0);
  // one step before the end of the cosine: 0.95·(1 - cos(π/350))/2 ≈ 1.9e-5 above the floor
  EXPECT_NEAR(lr_multiplier("warmup-cosine", ap::train::kScheduleSteps - 1), ap::train::kLrFloor, 3e-5);
  EXPECT_DOUBLE_EQ(lr_multiplier("warmup-cosine", 100000), ap::train::kLrFloor);
  EXPECT_DOUBLE_EQ(lr_multiplier("constant", 7), 1.0);
  TrainerOptions o;
  o.batchSize = 1;
  Trainer d(o);
  EXPECT_EQ(d.schedule(), "warmup-cosine");
  EXPECT_FLOAT_EQ(d.lr(), 0.01f / ap::train::kWarmupSteps);
  d.step(ap::train::kWarmupSteps);
  EXPECT_FLOAT_EQ(d.lr(), 0.01f);
  o.lr = 0.01f;
  Trainer c(o);
  EXPECT_EQ(c.schedule(), "constant");
  c.step(3);
  EXPECT_EQ(c.lr(), 0.01f);
  o.schedule = "cyclic";
  EXPECT_THROW(Trainer t(o), ap::Error);
}
