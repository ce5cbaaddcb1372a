// Tokenizers against tests/fixtures/rng/tokenizers.txt, written by the independent Python
// implementation in tests/fixtures/gen_tokenizers.py (strings stored as UTF-8 hex).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/tokenizer.h"
#include "source_dir.h"

namespace {

std::string unhex(const std::string& h) {
  if (h == "-") return "";
  std::string out;
  for (std::size_t i = 0; i + 1 < h.size(); i += 2) out += static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16));
  return out;
}

std::vector<std::string> rest_words(std::istringstream& ls) {
  std::vector<std::string> v;
  std::string w;
  while (ls >> w) v.push_back(w);
  return v;
}

struct Case {
  std::string name, kind;
  ap::TokenizerOptions opts;
  std::vector<std::string> texts;
  std::vector<std::vector<std::string>> tokens;
  std::vector<std::vector<int>> ids;
  std::vector<std::string> vocab;
  std::vector<std::pair<std::string, std::string>> merges;
};

struct Fixture {
  std::vector<Case> cases;
  std::vector<std::pair<std::string, std::size_t>> invalid;
};

Fixture load() {
  Fixture f;
  const std::string path = ap::testing::source_path("tests/fixtures/rng/tokenizers.txt");
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path << " (run python3 tests/fixtures/gen_tokenizers.py)";
  std::string line;
  Case c;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string key;
    ls >> key;
    if (key == "case") {
      c = Case();
      ls >> c.name;
    } else if (key == "kind") {
      ls >> c.kind;
    } else if (key == "merges_n") {
      ls >> c.opts.bpeMerges;
    } else if (key == "corpus") {
      std::string h;
      ls >> h;
      c.opts.bpeCorpus = unhex(h);
    } else if (key == "text") {
      std::string h;
      ls >> h;
      c.texts.push_back(unhex(h));
    } else if (key == "tokens") {
      std::vector<std::string> toks;
      for (const std::string& h : rest_words(ls)) toks.push_back(unhex(h));
      c.tokens.push_back(toks);
    } else if (key == "ids") {
      std::vector<int> ids;
      for (const std::string& w : rest_words(ls)) ids.push_back(std::stoi(w));
      c.ids.push_back(ids);
    } else if (key == "vocab") {
      for (const std::string& h : rest_words(ls)) c.vocab.push_back(unhex(h));
    } else if (key == "merge") {
      std::string a, b;
      ls >> a >> b;
      c.merges.emplace_back(unhex(a), unhex(b));
    } else if (key == "end") {
      f.cases.push_back(c);
    } else if (key == "invalid") {
      std::string h;
      std::size_t off;
      ls >> h >> off;
      f.invalid.emplace_back(unhex(h), off);
    }
  }
  return f;
}

const Fixture& fixture() {
  static const Fixture f = load();
  return f;
}

std::string error_of(const std::string& text, const std::string& kind, const ap::TokenizerOptions& o = {}) {
  try {
    ap::tokenize(text, kind, o);
  } catch (const ap::Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Tokenizer, MatchesThePythonReference) {
  ASSERT_GT(fixture().cases.size(), 60u);
  for (const Case& c : fixture().cases) {
    SCOPED_TRACE(c.name);
    const auto got = ap::tokenize_joint(c.texts, c.kind, c.opts);
    ASSERT_EQ(got.size(), c.texts.size());
    for (std::size_t t = 0; t < got.size(); ++t) {
      EXPECT_EQ(got[t].tokens, c.tokens[t]);
      EXPECT_EQ(got[t].ids, c.ids[t]);
      EXPECT_EQ(got[t].vocab, c.vocab);
      EXPECT_EQ(got[t].merges, c.merges);
    }
    if (c.texts.size() == 1) {
      const ap::Tokenized single = ap::tokenize(c.texts[0], c.kind, c.opts);
      EXPECT_EQ(single.tokens, got[0].tokens);
      EXPECT_EQ(single.ids, got[0].ids);
    }
  }
}

TEST(Tokenizer, CourseSentenceAndRepeatedWords) {
  const ap::Tokenized t = ap::tokenize("this is my cat", "word-sorted");
  EXPECT_EQ(t.vocab, (std::vector<std::string>{"cat", "is", "my", "this"}));
  EXPECT_EQ(t.ids, (std::vector<int>{3, 1, 2, 0}));
  // The course's {w: i for i, w in enumerate(sorted(tokens))} gives "the" id 2 of a 2-word vocab here.
  const ap::Tokenized r = ap::tokenize("the cat the", "word-sorted");
  EXPECT_EQ(r.vocab, (std::vector<std::string>{"cat", "the"}));
  EXPECT_EQ(r.ids, (std::vector<int>{1, 0, 1}));
  const ap::Tokenized w = ap::tokenize("the cat the", "word");
  EXPECT_EQ(w.vocab, (std::vector<std::string>{"the", "cat"}));
  EXPECT_EQ(w.ids, (std::vector<int>{0, 1, 0}));
}

TEST(Tokenizer, CharIsCodePointsNotBytes) {
  const ap::Tokenized t = ap::tokenize("我爱中国", "char");
  EXPECT_EQ(t.tokens, (std::vector<std::string>{"我", "爱", "中", "国"}));
  EXPECT_EQ(t.ids, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(ap::tokenize("a 🐱 a", "char").tokens, (std::vector<std::string>{"a", "🐱", "a"}));
}

TEST(Tokenizer, BpeMergesAreInOrderAndReproduceTheText) {
  const ap::Tokenized t = ap::tokenize("The animal didn't cross the street because it was too tired", "bpe");
  EXPECT_EQ(t.merges.size(), 64u);
  std::string joined;
  for (const std::string& tok : t.tokens) joined += tok;
  EXPECT_EQ(joined, "▁The▁animal▁didn't▁cross▁the▁street▁because▁it▁was▁too▁tired");
  for (std::size_t i = 0; i < t.tokens.size(); ++i) EXPECT_EQ(t.vocab.at(t.ids[i]), t.tokens[i]);
  ap::TokenizerOptions none;
  none.bpeMerges = 0;
  EXPECT_EQ(ap::tokenize("我爱", "bpe", none).tokens, (std::vector<std::string>{"▁我", "爱"}));
}

TEST(Tokenizer, ErrorsNameTheArgument) {
  EXPECT_NE(error_of("", "word").find("text: is empty"), std::string::npos);
  EXPECT_NE(error_of(" \t\xE3\x80\x80\n", "char").find("text: is empty"), std::string::npos);
  EXPECT_EQ(error_of("this is my cat", "foo"),
            "tokenizer: unknown 'foo'; expected one of word-sorted, word, char, bpe");
  EXPECT_EQ(error_of(", ,", "word-sorted"), "text: has no words once commas are removed");
  EXPECT_EQ(error_of("abc\xff", "word"), "text: invalid UTF-8 at byte 3");
  std::string many;
  for (int i = 0; i < 5000; ++i) many += "a ";
  for (const std::string& kind : ap::tokenizer_kinds())
    EXPECT_NE(error_of(many, kind).find("text: "), std::string::npos) << kind;
  EXPECT_EQ(error_of(many, "word"), "text: 5000 tokens, the limit is 4096");
  std::string limit;
  for (int i = 0; i < ap::kMaxTokens; ++i) limit += "x ";
  EXPECT_EQ(ap::tokenize(limit, "word").tokens.size(), static_cast<std::size_t>(ap::kMaxTokens));
  EXPECT_EQ(error_of(limit + "y", "word"), "text: 4097 tokens, the limit is 4096");
  EXPECT_EQ(error_of(std::string(ap::kMaxTextBytes + 1, 'a'), "char"), "text: 1048577 bytes, the limit is 1048576");
  ap::TokenizerOptions o;
  o.bpeMerges = ap::kMaxBpeMerges + 1;
  EXPECT_EQ(error_of("cat", "bpe", o), "bpeMerges: expected 0..1024, got 1025");
  o.bpeMerges = 4;
  o.bpeCorpus = std::string(ap::kMaxBpeCorpusBytes + 1, 'a');
  EXPECT_EQ(error_of("cat", "bpe", o), "bpeCorpus: 65537 bytes, the limit is 65536");
  o.bpeCorpus = "ok \xC0\xAF";
  EXPECT_EQ(error_of("cat", "bpe", o), "bpeCorpus: invalid UTF-8 at byte 3");
  try {
    ap::tokenize_joint({"fine", " "}, "word", {}, {"source", "target"});
    ADD_FAILURE() << "no error";
  } catch (const ap::Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("target: is empty", 0), 0u) << e.what();
  }
}

TEST(Tokenizer, InvalidUtf8OffsetsMatchPython) {
  ASSERT_GE(fixture().invalid.size(), 10u);
  for (const auto& [bytes, offset] : fixture().invalid) {
    std::size_t got = 12345;
    EXPECT_FALSE(ap::is_valid_utf8(bytes, &got));
    EXPECT_EQ(got, offset);
    for (const std::string& kind : ap::tokenizer_kinds())
      EXPECT_EQ(error_of(bytes, kind), "text: invalid UTF-8 at byte " + std::to_string(offset));
  }
}

// Every scalar value encodes to valid UTF-8 and every surrogate does not (encoder written here).
TEST(Tokenizer, Utf8ValidatorAcceptsExactlyTheScalarValues) {
  auto encode = [](uint32_t cp) {
    std::string s;
    if (cp < 0x80) {
      s += static_cast<char>(cp);
    } else if (cp < 0x800) {
      s += static_cast<char>(0xC0 | (cp >> 6));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      s += static_cast<char>(0xE0 | (cp >> 12));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      s += static_cast<char>(0xF0 | (cp >> 18));
      s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return s;
  };
  for (uint32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    const bool surrogate = cp >= 0xD800 && cp <= 0xDFFF;
    ASSERT_EQ(ap::is_valid_utf8("a" + encode(cp)), !surrogate) << std::hex << cp;
  }
  EXPECT_FALSE(ap::is_valid_utf8("\xF4\x90\x80\x80"));  // U+110000
  EXPECT_TRUE(ap::is_valid_utf8(std::string("a\0b", 3)));
}

}  // namespace
