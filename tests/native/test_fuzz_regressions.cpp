// Replays every committed fuzzing input — tests/fuzz/regressions/<target>/* (inputs that once crashed
// or broke an invariant) and the seed corpora tests/fuzz/corpus/<target>/* — through the very decoding
// and invariant checks the libFuzzer targets use (tests/fuzz/fuzz_common.h). One test per file, so a
// failure names the input; it also runs under ASan/UBSan in scripts/test-sanitizers.sh.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#define APFUZZ_THROW_ON_FAIL 1
#include "../fuzz/fuzz_common.h"
#include "source_dir.h"

namespace {

namespace fs = std::filesystem;

struct Input {
  std::string target;  // fuzz_tokenize, fuzz_attention, fuzz_multihead, fuzz_run
  std::string kind;    // regressions | corpus
  fs::path path;
};

std::vector<Input> all_inputs() {
  std::vector<Input> out;
  const fs::path root = fs::path(ap::testing::source_path("tests/fuzz"));
  for (const char* kind : {"regressions", "corpus"}) {
    const fs::path dir = root / kind;
    if (!fs::is_directory(dir)) continue;
    for (const auto& t : fs::directory_iterator(dir)) {
      if (!t.is_directory()) continue;
      for (const auto& f : fs::directory_iterator(t.path()))
        if (f.is_regular_file() && f.path().filename().string()[0] != '.')
          out.push_back({t.path().filename().string(), kind, f.path()});
    }
  }
  std::sort(out.begin(), out.end(), [](const Input& a, const Input& b) { return a.path < b.path; });
  return out;
}

std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

class FuzzInput : public ::testing::TestWithParam<Input> {};

TEST_P(FuzzInput, KeepsTheEngineContract) {
  const Input& in = GetParam();
  const std::vector<uint8_t> bytes = read_bytes(in.path);
  const uint8_t* d = bytes.data();
  const std::size_t n = bytes.size();
  try {
    if (in.target == "fuzz_tokenize") {
      apfuzz::run_tokenize(apfuzz::decode_tokenize(d, n));
    } else if (in.target == "fuzz_attention") {
      apfuzz::run_attention(apfuzz::decode_attention(d, n));
    } else if (in.target == "fuzz_multihead") {
      apfuzz::run_multihead(apfuzz::decode_multihead(d, n));
    } else if (in.target == "fuzz_run") {
      apfuzz::run_run(apfuzz::decode_run(d, n));
    } else {
      FAIL() << "no decoder for target directory '" << in.target << "' (" << in.path << ")";
    }
  } catch (const apfuzz::InvariantBroken& e) {
    FAIL() << in.path.string() << ": " << e.what();
  }
}

// Every target has seeds, so a renamed target cannot silently stop being replayed.
TEST(FuzzInputs, EveryTargetHasCommittedSeeds) {
  std::vector<std::string> seen;
  for (const Input& in : all_inputs())
    if (in.kind == "corpus") seen.push_back(in.target);
  for (const char* t : {"fuzz_tokenize", "fuzz_attention", "fuzz_multihead", "fuzz_run"})
    EXPECT_NE(std::find(seen.begin(), seen.end(), t), seen.end()) << "no seeds in tests/fuzz/corpus/" << t;
}

std::string test_name(const ::testing::TestParamInfo<Input>& info) {
  std::string s = info.param.kind + "_" + info.param.target + "_" + info.param.path.filename().string();
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(Committed, FuzzInput, ::testing::ValuesIn(all_inputs()), test_name);

}  // namespace
