// ap::Generator against draws made by real PyTorch 1.13 (tests/fixtures/gen_rng.py writes
// tests/fixtures/rng/cases.txt; the format is described there).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/rng.h"
#include "source_dir.h"

namespace {

struct Op {
  std::string line;  // the op line as written, for messages
  std::string kind;
  std::vector<double> args;
  std::vector<double> expected;
};

struct Case {
  std::string name;
  uint64_t seed = 0;
  std::vector<Op> ops;
};

std::size_t expected_count(const Op& op) {
  if (op.kind == "embedding") return static_cast<std::size_t>(op.args[0] * op.args[1]);
  if (op.kind == "linear")
    return static_cast<std::size_t>(op.args[0] * op.args[1] + (op.args[2] != 0 ? op.args[0] : 0));
  return static_cast<std::size_t>(op.args[0]);
}

std::vector<Case> load_cases() {
  const std::string path = ap::testing::source_path("tests/fixtures/rng/cases.txt");
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path << " (run /usr/bin/python3 tests/fixtures/gen_rng.py)";
  std::vector<Case> cases;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string word;
    ls >> word;
    if (word == "case") {
      Case c;
      ls >> c.name >> c.seed;
      cases.push_back(c);
      continue;
    }
    if (cases.empty()) {
      ADD_FAILURE() << "op before any case: " << line;
      break;
    }
    Op op;
    op.line = line;
    op.kind = word;
    double a;
    while (ls >> a) op.args.push_back(a);
    const std::size_t n = expected_count(op);
    for (std::size_t i = 0; i < n && std::getline(in, line); ++i)
      op.expected.push_back(std::strtod(line.c_str(), nullptr));
    EXPECT_EQ(op.expected.size(), n) << "truncated fixture at " << op.line;
    cases.back().ops.push_back(op);
  }
  return cases;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = load_cases();
  return all;
}

// Runs one op on g, returning what our generator produced (as double for one comparison path).
std::vector<double> run_op(ap::Generator& g, const Op& op) {
  const std::size_t n = static_cast<std::size_t>(op.args.empty() ? 0 : op.args[0]);
  std::vector<float> f;
  if (op.kind == "rand") {
    f.resize(n);
    g.rand(f.data(), n);
  } else if (op.kind == "randn") {
    f.resize(n);
    g.normal_(f.data(), n);
  } else if (op.kind == "normal") {
    f.resize(n);
    g.normal_(f.data(), n, static_cast<float>(op.args[1]), static_cast<float>(op.args[2]));
  } else if (op.kind == "uniform") {
    f.resize(n);
    g.uniform_(f.data(), n, static_cast<float>(op.args[1]), static_cast<float>(op.args[2]));
  } else if (op.kind == "rand64") {
    std::vector<double> d(n);
    for (auto& v : d) v = g.rand_double();
    return d;
  } else if (op.kind == "embedding") {
    ap::Mat E = g.embedding(static_cast<int>(op.args[0]), static_cast<int>(op.args[1]));
    f.assign(E.data(), E.data() + E.size());
  } else if (op.kind == "linear") {
    ap::Mat W;
    ap::Vec b;
    const bool bias = op.args[2] != 0;
    g.linear(static_cast<int>(op.args[0]), static_cast<int>(op.args[1]), W, bias ? &b : nullptr);
    EXPECT_EQ(W.rows(), static_cast<int>(op.args[0]));
    EXPECT_EQ(W.cols(), static_cast<int>(op.args[1]));
    f.assign(W.data(), W.data() + W.size());
    if (bias) f.insert(f.end(), b.data(), b.data() + b.size());
  } else {
    ADD_FAILURE() << "unknown op " << op.line;
  }
  return std::vector<double>(f.begin(), f.end());
}

// Every op of every case, bit for bit: the fixture's %.9g text round-trips float32 exactly, so
// a parsed float equal to ours means the same bits PyTorch produced.
TEST(Rng, MatchesPyTorchBitForBit) {
  ASSERT_FALSE(cases().empty());
  std::size_t values = 0, mismatches = 0;
  double worst = 0.0;
  for (const Case& c : cases()) {
    ap::Generator g(c.seed);
    for (const Op& op : c.ops) {
      const std::vector<double> got = run_op(g, op);
      ASSERT_EQ(got.size(), op.expected.size()) << c.name << ": " << op.line;
      for (std::size_t i = 0; i < got.size(); ++i) {
        const double want = op.kind == "rand64" ? op.expected[i] : static_cast<float>(op.expected[i]);
        ++values;
        if (got[i] != want) {
          ++mismatches;
          worst = std::max(worst, std::fabs(got[i] - want));
          if (mismatches <= (std::getenv("AP_RNG_VERBOSE") ? 100000u : 10u)) {
            ADD_FAILURE() << c.name << ": " << op.line << " [" << i << "] got " << got[i] << " want " << want;
          }
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0u) << "of " << values << " values; worst abs diff " << worst;
  EXPECT_GT(values, 20000u);
}

TEST(Rng, CourseProgramTo1e6) {
  // The seed lesson: manual_seed(123), Embedding(4, 16), then W_q, W_k, W_v = torch.rand(16, 24/24/28).
  const Case* course = nullptr;
  for (const Case& c : cases())
    if (c.name == "course") course = &c;
  ASSERT_NE(course, nullptr);
  ASSERT_EQ(course->ops.size(), 4u);
  ap::Generator g(123);
  const ap::Mat E = g.embedding(4, 16);
  const ap::Mat Wq = g.rand(16, 24), Wk = g.rand(16, 24), Wv = g.rand(16, 28);
  const ap::Mat* mats[] = {&E, &Wq, &Wk, &Wv};
  for (int k = 0; k < 4; ++k) {
    ASSERT_EQ(static_cast<std::size_t>(mats[k]->size()), course->ops[k].expected.size());
    for (Eigen::Index i = 0; i < mats[k]->size(); ++i) {
      EXPECT_NEAR(mats[k]->data()[i], course->ops[k].expected[i], 1e-6) << "matrix " << k << " index " << i;
    }
  }
}

TEST(Rng, Mt19937MatchesTheStandardReference) {
  // C++11 [rand.predef]: the 10000th output of a default-constructed mt19937 (seed 5489) is 4123659995.
  ap::Generator g(5489);
  uint32_t v = 0;
  for (int i = 0; i < 10000; ++i) v = g.random();
  EXPECT_EQ(v, 4123659995u);
}

TEST(Rng, SeedUsesOnlyTheLow32Bits) {
  ap::Generator a(5), b((uint64_t{1} << 32) + 5), c(6);
  EXPECT_EQ(a.random(), b.random());
  EXPECT_NE(a.random(), c.random());
  EXPECT_EQ(b.initial_seed(), (uint64_t{1} << 32) + 5);
}

TEST(Rng, Random64IsFirstDrawHigh) {
  ap::Generator a(77), b(77);
  const uint64_t hi = a.random(), lo = a.random();
  EXPECT_EQ(b.random64(), (hi << 32) | lo);
}

TEST(Rng, ManualSeedRestartsTheSequenceAndDropsTheNormalCache) {
  ap::Generator g(9);
  float first[3], again[3];
  g.normal_(first, 3);  // leaves one cached value
  g.manual_seed(9);
  g.normal_(again, 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(first[i], again[i]);
}

TEST(Rng, DefaultSeedIsTorchs) {
  ap::Generator a, b(67280421310721ULL);
  EXPECT_EQ(a.initial_seed(), 67280421310721ULL);
  EXPECT_EQ(a.random(), b.random());
}

TEST(Rng, BadArgumentsThrowNamingThem) {
  ap::Generator g;
  float buf[4];
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const ap::Error& e) {
      return std::string(e.what());
    }
    return std::string("no throw");
  };
  EXPECT_NE(message([&] { g.uniform_(buf, 4, 1.f, 0.f); }).find("uniform_: expected finite from <= to"),
            std::string::npos);
  EXPECT_NE(message([&] { g.uniform_(buf, 4, 0.f, INFINITY); }).find("to = inf"), std::string::npos);
  EXPECT_NE(message([&] { g.normal_(buf, 4, 0.f, -1.f); }).find("std = -1"), std::string::npos);
  EXPECT_NE(message([&] { g.normal_(buf, 4, NAN, 1.f); }).find("normal_:"), std::string::npos);
  EXPECT_NE(message([&] { g.rand(-1, 3); }).find("rand: sizes must be >= 0, got [-1, 3]"), std::string::npos);
  EXPECT_NE(message([&] { g.randn(1 << 14, 1 << 14); }).find("randn: [16384, 16384] has 268435456 elements"),
            std::string::npos);
  EXPECT_NE(message([&] {
              g.embedding(0, 16);
            }).find("embedding: num_embeddings and embedding_dim must be >= 1, got [0, 16]"),
            std::string::npos);
  ap::Mat W;
  EXPECT_NE(message([&] {
              g.linear(4, 0, W, nullptr);
            }).find("linear: in_features and out_features must be >= 1, got [out, in] = [4, 0]"),
            std::string::npos);
}

}  // namespace
