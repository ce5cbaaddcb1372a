// Positions (core/positions.h) against PyTorch: tests/fixtures/gen_positions.py writes
// tests/fixtures/positions/native.txt (BLOOM's ALiBi slopes, the sinusoidal table, transformers' RoPE,
// run() outputs); then the properties the page teaches and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/attention.h"
#include "core/multihead.h"
#include "core/pipeline.h"
#include "core/positions.h"
#include "random_mat.h"
#include "source_dir.h"

using ap::Mat;
using ap::testing::random_mat;

namespace {

struct Fixture {
  std::map<int, std::vector<float>> slopes;
  std::vector<std::vector<std::string>> records;  // the other records, as words
};

const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture out;
    const std::string path = ap::testing::source_path("tests/fixtures/positions/native.txt");
    std::ifstream in(path);
    EXPECT_TRUE(in.good()) << "cannot open " << path << " (run /usr/bin/python3 tests/fixtures/gen_positions.py)";
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream words(line);
      std::vector<std::string> w;
      for (std::string x; words >> x;) w.push_back(x);
      if (w.empty()) continue;
      if (w[0] == "slopes") {
        for (std::size_t i = 2; i < w.size(); ++i) out.slopes[std::stoi(w[1])].push_back(std::stof(w[i]));
      } else {
        out.records.push_back(w);
      }
    }
    return out;
  }();
  return f;
}

std::vector<std::vector<std::string>> records(const std::string& kind) {
  std::vector<std::vector<std::string>> out;
  for (const auto& r : fixture().records)
    if (r[0] == kind) out.push_back(r);
  return out;
}

Mat read_mat(const std::vector<std::string>& w, std::size_t& at, int rows, int cols) {
  Mat m(rows, cols);
  for (int i = 0; i < m.size(); ++i) m.data()[i] = std::stof(w.at(at++));
  return m;
}

// |a - b| / max(1, |b|) over all cells.
double max_rel(const Mat& a, const Mat& b) {
  EXPECT_EQ(a.rows(), b.rows());
  EXPECT_EQ(a.cols(), b.cols());
  double m = 0;
  for (int i = 0; i < std::min(a.size(), b.size()); ++i)
    m = std::max(m, std::fabs(double(a.data()[i]) - b.data()[i]) / std::max(1.0, std::fabs(double(b.data()[i]))));
  return m;
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ap::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(Positions, AlibiSlopesAreBloomsForOneToSixteenHeads) {
  ASSERT_EQ(fixture().slopes.size(), 16u);
  for (const auto& [h, want] : fixture().slopes) {
    const std::vector<float> got = ap::alibi_slopes(h);
    ASSERT_EQ(got.size(), want.size()) << h << " heads";
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-7 * want[i]) << h << " heads, " << i;
  }
}

TEST(Positions, SinusoidalTableEqualsTheFormula) {
  const auto rs = records("sinusoidal");
  ASSERT_EQ(rs.size(), 2u);
  for (const auto& w : rs) {
    const int n = std::stoi(w[1]), d = std::stoi(w[2]);
    std::size_t at = 3;
    EXPECT_LT(max_rel(ap::sinusoidal_table(n, d), read_mat(w, at, n, d)), 1e-6) << n << "x" << d;
  }
}

TEST(Positions, RopeEqualsTransformersApplyRotaryPosEmb) {
  const auto rs = records("rope");
  ASSERT_EQ(rs.size(), 2u);
  for (const auto& w : rs) {
    const int n = std::stoi(w[1]), d = std::stoi(w[2]);
    const float base = std::stof(w[3]);
    std::vector<int> pos;
    std::size_t at = 4;
    for (int i = 0; i < n; ++i) pos.push_back(std::stoi(w[at++]));
    const Mat X = read_mat(w, at, n, d);
    const Mat want = read_mat(w, at, n, d);
    EXPECT_LT(max_rel(ap::rope_rotate(X, pos, base), want), 1e-5) << n << "x" << d;
  }
}

TEST(Positions, RunEqualsPyTorchForEachEncoding) {
  const auto rs = records("run");
  ASSERT_EQ(rs.size(), 4u);
  for (const auto& w : rs) {
    ap::RunOptions o;
    o.positions = ap::parse_positions(w[1]);
    o.heads = std::stoi(w[2]);
    if (w[3] == "causal") o.mask.kind = ap::Mask::Kind::Causal;
    std::size_t at = 6;
    const Mat want = read_mat(w, at, std::stoi(w[4]), std::stoi(w[5]));
    const ap::Trace t = ap::run(o);
    EXPECT_LT(max_rel(t.output, want), 1e-5) << w[1];
    EXPECT_EQ(t.positions.size() > 0,
              o.positions == ap::Positions::Sinusoidal || o.positions == ap::Positions::Learned);
    EXPECT_EQ(t.rotatedQ.size() > 0, o.positions == ap::Positions::Rope);
    EXPECT_EQ(t.positionBias.size(), o.positions == ap::Positions::Alibi ? std::size_t(o.heads) : 0u);
  }
}

// RoPE's point: q·k depends on the offset only. The same two rows at (i, j) and (i + s, j + s) score alike.
TEST(Positions, RopeScoresDependOnTheOffsetOnly) {
  const Mat q = random_mat(1, 16, 1), k = random_mat(1, 16, 2), v = random_mat(1, 3, 3);
  ap::AttentionOptions a;
  a.score = ap::ScoreRule::Dot;
  a.rope.enabled = true;
  a.rope.queryPositions = {5};
  a.rope.keyPositions = {2};
  const float base = ap::attention(q, k, v, a).scores(0, 0);
  for (int s : {1, 7, 100, 2000}) {
    a.rope.queryPositions = {5 + s};
    a.rope.keyPositions = {2 + s};
    EXPECT_NEAR(ap::attention(q, k, v, a).scores(0, 0), base, 2e-4 * std::max(1.f, std::fabs(base))) << "s = " << s;
  }
  a.rope.queryPositions = {6};  // another offset: another score
  EXPECT_GT(std::fabs(ap::attention(q, k, v, a).scores(0, 0) - base), 1e-3);
}

// Without positions, shuffling the words shuffles the output rows and nothing else; with each encoding it does not.
TEST(Positions, WithoutPositionsAttentionIsBlindToOrder) {
  ap::RunOptions o;
  o.tokenizer = "word";
  o.text = "this is my cat";
  ap::RunOptions shuffled = o;
  shuffled.text = "cat my this is";  // row r of shuffled is row perm[r] of the original
  const int perm[] = {3, 2, 0, 1};
  for (auto p : {ap::Positions::None, ap::Positions::Sinusoidal, ap::Positions::Rope, ap::Positions::Alibi}) {
    o.positions = shuffled.positions = p;
    // one vocabulary for both: the word tokenizer numbers words by first appearance, so give the same table
    const ap::Trace a = ap::run(o);
    shuffled.embeddings = Mat(4, 16);
    for (int r = 0; r < 4; ++r) shuffled.embeddings->row(r) = a.embeddings.row(perm[r]);
    const ap::Trace b = ap::run(shuffled);
    double diff = 0;
    for (int r = 0; r < 4; ++r)
      diff = std::max(diff, double((b.output.row(r) - a.output.row(perm[r])).cwiseAbs().maxCoeff()));
    if (p == ap::Positions::None) {
      EXPECT_LT(diff, 1e-4) << "no positions: the same vectors, permuted";
    } else {
      EXPECT_GT(diff, 1e-3) << ap::positions_name(p);
    }
  }
}

TEST(Positions, ErrorsNameTheOption) {
  ap::RunOptions o;
  o.positions = ap::Positions::Rope;
  o.dq = o.dk = 6;
  o.heads = 2;
  EXPECT_NE(error_of([&] { ap::run(o); }).find("positions: 'rope'"), std::string::npos);
  EXPECT_NE(error_of([&] { ap::run(o); }).find("even dq / heads, got 6 / 2 = 3"), std::string::npos);
  o.heads = 1;
  o.ropeBase = 0.5f;
  EXPECT_NE(error_of([&] { ap::run(o); }).find("ropeBase: must be a number from 1 to 1e9, got 0.5"), std::string::npos);
  o = ap::RunOptions();
  o.positions = ap::Positions::Alibi;
  o.score = ap::ScoreRule::Concat;
  EXPECT_NE(error_of([&] { ap::run(o); }).find("positions: 'alibi'"), std::string::npos);
  EXPECT_NE(error_of([] { ap::parse_positions("abs"); }).find("positions: unknown encoding 'abs'"), std::string::npos);

  const Mat q = random_mat(3, 5, 1), k = random_mat(3, 5, 2), v = random_mat(3, 2, 3);
  ap::AttentionOptions a;
  a.rope.enabled = true;
  EXPECT_NE(error_of([&] { ap::validate_attention(q, k, v, a); }).find("rope: pairs dimension i with i + d/2"),
            std::string::npos);
  const Mat q4 = random_mat(3, 4, 1), k4 = random_mat(3, 4, 2);
  a.rope.queryPositions = {0, 1, 65536};
  EXPECT_NE(error_of([&] {
              ap::validate_attention(q4, k4, v, a);
            }).find("rope.queryPositions[2]: must be an integer from 0 to 65535, got 65536"),
            std::string::npos);
  a.rope.queryPositions = {0, 1};
  EXPECT_NE(error_of([&] {
              ap::validate_attention(q4, k4, v, a);
            }).find("rope.queryPositions: expected 3 positions (one per row), got 2"),
            std::string::npos);
  a.rope = ap::RopeOptions();
  a.hasAlibi = true;
  a.alibiSlope = -1.f;
  EXPECT_NE(error_of([&] { ap::validate_attention(q4, k4, v, a); }).find("alibiSlope: must be a number from 0 to 1000"),
            std::string::npos);

  ap::MultiHeadParams p;
  p.numHeads = 2;
  p.inProjWeight = random_mat(18, 6, 4);
  p.outProjWeight = random_mat(6, 6, 5);
  p.rope = true;
  const Mat x = random_mat(3, 6, 6);
  EXPECT_NE(
      error_of([&] { ap::multi_head_attention(x, x, x, p); }).find("rope: pairs dimension i with i + d/2 in each"),
      std::string::npos);
}
