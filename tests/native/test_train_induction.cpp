// The induction task: its data (a segment repeated right after itself at a varying place, nothing else
// to copy), its split accuracy and the heads' scores, checked against values computed here from the data.
#include <gtest/gtest.h>

#include <set>

#include "core/rng.h"
#include "core/train.h"

using ap::Mat;
using namespace ap::train;

namespace {

const TaskData& task() {
  static const TaskData t = make_induction();
  return t;
}

TEST(Induction, EverySequenceHoldsOneSegmentTwiceAfterAPrefixThatAvoidsIt) {
  const TaskData& t = task();
  ASSERT_EQ(t.vocab.size(), 32u);
  ASSERT_EQ(t.train.size(), static_cast<size_t>(kInductionTrain));
  ASSERT_EQ(t.test.size(), static_cast<size_t>(kInductionTest));
  std::set<int> lengths, starts, offsets;
  for (const auto* set : {&t.train, &t.test})
    for (const Example& ex : *set) {
      ASSERT_EQ(ex.ids.size(), static_cast<size_t>(kInductionSeq));
      const int p = ex.segStart, L = ex.segLen;
      ASSERT_GE(L, kInductionMinSegment);
      ASSERT_LE(L, kInductionMaxSegment);
      ASSERT_GE(p, 1);
      ASSERT_LE(p + 2 * L, kInductionSeq);
      std::set<int> seg;
      for (int k = 0; k < L; ++k) {
        seg.insert(ex.ids[p + k]);
        ASSERT_EQ(ex.ids[p + k], ex.ids[p + L + k]);
      }
      ASSERT_EQ(seg.size(), static_cast<size_t>(L));  // distinct
      for (int i = 0; i < p; ++i) ASSERT_EQ(seg.count(ex.ids[i]), 0u);
      for (int i = 0; i + 1 < kInductionSeq; ++i) ASSERT_EQ(ex.targets[i], ex.ids[i + 1]);
      ASSERT_EQ(ex.targets.back(), -1);
      int copy = 0;
      for (int i = 0; i < kInductionSeq; ++i) copy += copyable(ex, i);
      ASSERT_EQ(copy, L - 1);
      ASSERT_TRUE(copyable(ex, p + L));
      ASSERT_FALSE(copyable(ex, p + L - 1));
      ASSERT_FALSE(copyable(ex, p + 2 * L - 1));
      lengths.insert(L);
      starts.insert(p + L);
    }
  EXPECT_EQ(lengths.size(), 5u);  // 4..8
  EXPECT_GE(starts.size(), 15u);  // the second copy starts anywhere from 5 to 20
  const std::set<std::vector<int>> train = [&] {
    std::set<std::vector<int>> s;
    for (const Example& ex : t.train) s.insert(ex.ids);
    return s;
  }();
  for (const Example& ex : t.test) EXPECT_EQ(train.count(ex.ids), 0u);
}

// A 2-layer model whose projections are zero attends uniformly over the causal prefix (row i: 1/(i+1))
// and predicts the class of head.b's largest entry everywhere.
Model uniform_model(int heads, int favourite) {
  ModelConfig c;
  c.vocab = 32;
  c.classes = 32;
  c.maxLen = kInductionSeq;
  c.heads = heads;
  c.layers = 2;
  c.causal = true;
  ap::Generator g(1);
  Model m(c, g);
  for (Param& p : m.params())
    if (p.name.find("Wq") != std::string::npos || p.name.find("Wk") != std::string::npos || p.name == "head.W")
      p.value.setZero();
  m.params()[m.param_index("head.b")].value.setZero();
  m.params()[m.param_index("head.b")].value(0, favourite) = 1.0f;
  return m;
}

TEST(Induction, HeadScoresOfUniformAttentionAreTheMeanOfOneOverRowLength) {
  std::vector<Example> some(task().test.begin(), task().test.begin() + 40);
  const HeadScores s = head_scores(uniform_model(2, 0), some);
  double prev = 0, ind = 0;
  long np = 0, ni = 0;
  for (const Example& ex : some) {
    for (int i = 1; i < kInductionSeq; ++i, ++np) prev += 1.0 / (i + 1);
    for (int i = ex.segStart + ex.segLen; i < ex.segStart + 2 * ex.segLen; ++i, ++ni) ind += 1.0 / (i + 1);
  }
  ASSERT_EQ(s.previousToken.size(), 2u);
  for (int l = 0; l < 2; ++l) {
    ASSERT_EQ(s.previousToken[l].size(), 2u);
    for (int h = 0; h < 2; ++h) {
      EXPECT_NEAR(s.previousToken[l][h], prev / np, 1e-6);
      EXPECT_NEAR(s.induction[l][h], ind / ni, 1e-6);
      EXPECT_NEAR(s.duplicateToken[l][h], ind / ni, 1e-6);  // the same rows, each one column earlier
    }
  }
}

TEST(Induction, CopyScoreSplitsCopyableFromOtherTokens) {
  const int fav = 7;
  std::vector<Example> some(task().test.begin(), task().test.begin() + 60);
  const Score s = copy_score(uniform_model(1, fav), some);
  long copyHit = 0, copyAll = 0, restHit = 0, restAll = 0;
  for (const Example& ex : some)
    for (int i = 0; i + 1 < kInductionSeq; ++i) {
      const bool c = i >= ex.segStart + ex.segLen && i <= ex.segStart + 2 * ex.segLen - 2;
      (c ? copyAll : restAll)++;
      (c ? copyHit : restHit) += ex.ids[i + 1] == fav;
    }
  EXPECT_DOUBLE_EQ(s.accuracy, static_cast<double>(copyHit) / copyAll);
  EXPECT_DOUBLE_EQ(s.restAccuracy, static_cast<double>(restHit) / restAll);
  EXPECT_EQ(s.terms, copyAll + restAll);
}

TEST(Induction, TrainerDefaultsAndErrors) {
  TrainerOptions o;
  o.task = "induction";
  Trainer t(o);
  EXPECT_EQ(t.model().config().layers, 2);
  EXPECT_EQ(t.model().config().heads, 2);
  EXPECT_TRUE(t.model().config().causal);
  EXPECT_EQ(t.schedule(), "constant");
  EXPECT_FLOAT_EQ(t.lr(), 0.01f);
  EXPECT_EQ(t.head_scores(8).induction.size(), 2u);
  TrainerOptions c;
  Trainer coref(c);
  try {
    coref.head_scores();
    FAIL() << "no error";
  } catch (const ap::Error& e) {
    EXPECT_NE(std::string(e.what()).find("headScores"), std::string::npos);
  }
}

}  // namespace
