// Tokenizers; the rules (and why) are in tokenizer.h. tests/fixtures/gen_tokenizers.py is an
// independent Python implementation of the same rules that writes the expected results.
#include "core/tokenizer.h"

#include <algorithm>
#include <map>
#ifdef AP_THREADS
#include <mutex>
#endif
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ap {
namespace {

// gen_tokenizers.py reads the corpus from between the BEGIN/END lines, so both sides train on the
// same text; keep it a single raw string.
// BEGIN BUILTIN BPE CORPUS
const char* const kBuiltinCorpus = R"CORPUS(
this is my cat
this is my dog and that is your cat
The animal didn't cross the street because it was too tired
The animal didn't cross the street because it was too wide
the cat sat on the mat and the dog sat on the rug
the cat is on the mat because the mat is warm
attention lets every word look at every other word
the query asks a question and the keys answer it
the values carry the information that the weights mix together
each token is turned into a vector and the vectors are compared
the scores are scaled and the softmax turns them into weights
the weights of each row sum to one
a causal mask stops a word from looking at the words after it
the model learns which words matter for each other word
when the street was too wide the animal did not cross it
when the animal was too tired it did not cross the street
this is the house that the cat and the dog share
the students read the sentence and the teacher writes the words
the quick brown fox jumps over the lazy dog
transformers use attention in every layer
the encoder reads the source and the decoder writes the target
queries come from the decoder and keys and values come from the encoder
我爱中国
我爱北京 我爱中国 中国很大
我们学习注意力机制
注意力机制让每个词关注其他的词
查询 键 值 权重 输出
这是我的猫 那是你的狗
今天天气很好 我们去学习
我爱学习 我爱中国 我们爱中国
中国的首都是北京
模型学习每个词的向量
每个词都有自己的向量
)CORPUS";
// END BUILTIN BPE CORPUS

const std::string kMarker = "\xE2\x96\x81";  // U+2581, marks the first character of a word

// Decodes one code point at i of valid UTF-8 (checked before), advancing i.
uint32_t next_code_point(const std::string& s, std::size_t& i) {
  const unsigned char b0 = static_cast<unsigned char>(s[i]);
  int len = b0 < 0x80 ? 1 : b0 < 0xE0 ? 2 : b0 < 0xF0 ? 3 : 4;
  uint32_t cp = len == 1 ? b0 : len == 2 ? (b0 & 0x1F) : len == 3 ? (b0 & 0x0F) : (b0 & 0x07);
  for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  i += static_cast<std::size_t>(len);
  return cp;
}

bool is_space(uint32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

// The code points of s as separate strings, with a flag for whitespace.
struct Char {
  std::string text;
  bool space;
};

std::vector<Char> chars_of(const std::string& s) {
  std::vector<Char> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t start = i;
    const uint32_t cp = next_code_point(s, i);
    out.push_back({s.substr(start, i - start), is_space(cp)});
  }
  return out;
}

// Python's str.split() with no arguments.
std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> words;
  std::string cur;
  for (const Char& c : chars_of(s)) {
    if (c.space) {
      if (!cur.empty()) words.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c.text;
    }
  }
  if (!cur.empty()) words.push_back(std::move(cur));
  return words;
}

void check_text(const std::string& text, const std::string& name) {
  AP_REQUIRE(text.size() <= kMaxTextBytes,
             name + ": " + std::to_string(text.size()) + " bytes, the limit is " + std::to_string(kMaxTextBytes));
  std::size_t bad = 0;
  const bool valid = is_valid_utf8(text, &bad);  // before the message reads bad
  AP_REQUIRE(valid, name + ": invalid UTF-8 at byte " + std::to_string(bad));
  AP_REQUIRE(!split_words(text).empty(), name + ": is empty (or only whitespace); type at least one word");
}

void check_token_count(std::size_t n, const std::string& name) {
  AP_REQUIRE(n <= static_cast<std::size_t>(kMaxTokens),
             name + ": " + std::to_string(n) + " tokens, the limit is " + std::to_string(kMaxTokens));
}

// ---- BPE ----

using Symbols = std::vector<std::string>;
using Pair = std::pair<std::string, std::string>;

Symbols word_symbols(const std::string& word) {
  Symbols out;
  for (const Char& c : chars_of(word)) out.push_back(out.empty() ? kMarker + c.text : c.text);
  return out;
}

void apply_merge(Symbols& w, const Pair& m) {
  if (w.size() < 2) return;
  Symbols out;
  out.reserve(w.size());
  for (std::size_t i = 0; i < w.size();) {
    if (i + 1 < w.size() && w[i] == m.first && w[i + 1] == m.second) {
      out.push_back(w[i] + w[i + 1]);
      i += 2;
    } else {
      out.push_back(w[i]);
      ++i;
    }
  }
  w.swap(out);
}

struct PairHash {
  std::size_t operator()(const Pair& p) const {
    const std::hash<std::string> h;
    return h(p.first) * 1000003u ^ h(p.second);
  }
};

// Incremental training: pair counts are kept up to date and a merge only revisits the words that
// contain the merged pair, so a 1 MiB corpus with kMaxBpeMerges merges stays interactive.
std::vector<Pair> learn_merges(const std::string& corpus, int merges) {
  std::unordered_map<std::string, std::size_t> index;
  std::vector<Symbols> words;
  std::vector<long long> counts;
  for (const std::string& w : split_words(corpus)) {
    auto it = index.find(w);
    if (it == index.end()) {
      index.emplace(w, words.size());
      words.push_back(word_symbols(w));
      counts.push_back(1);
    } else {
      ++counts[it->second];
    }
  }
  std::unordered_map<Pair, long long, PairHash> pairCount;
  // (-count, pair): begin() is the most frequent pair, ties broken by the smallest pair.
  std::set<std::pair<long long, Pair>> ranked;
  std::unordered_map<Pair, std::vector<std::size_t>, PairHash> where;  // may hold stale entries
  // Merges stay inside words, so a text without spaces (Chinese) is one long word that every merge
  // recounts: bound the total work so no call runs for more than a second or two.
  long long work = 0;
  auto count_word = [&](std::size_t k, long long sign) {
    const Symbols& w = words[k];
    work += static_cast<long long>(w.size());
    for (std::size_t i = 0; i + 1 < w.size(); ++i) {
      Pair p{w[i], w[i + 1]};
      auto it = pairCount.find(p);
      if (it == pairCount.end()) it = pairCount.emplace(p, 0).first;
      if (it->second > 0) ranked.erase({-it->second, p});
      it->second += sign * counts[k];
      if (sign > 0) where[p].push_back(k);
      if (it->second > 0) {
        ranked.emplace(-it->second, std::move(p));
      } else {
        pairCount.erase(it);
      }
    }
  };
  for (std::size_t k = 0; k < words.size(); ++k) count_word(k, +1);

  std::vector<Pair> learned;
  std::vector<int> seenAt(words.size(), -1);
  for (int m = 0; m < merges; ++m) {
    // A pair seen only once teaches nothing about the language: stop there.
    if (ranked.empty() || -ranked.begin()->first < 2) break;
    const Pair chosen = ranked.begin()->second;
    learned.push_back(chosen);
    std::vector<std::size_t> affected;
    affected.swap(where[chosen]);
    for (std::size_t k : affected) {
      if (seenAt[k] == m) continue;  // listed once per occurrence
      seenAt[k] = m;
      count_word(k, -1);
      apply_merge(words[k], chosen);
      count_word(k, +1);
    }
    where.erase(chosen);
    AP_REQUIRE(work <= kMaxBpeWork, "bpeCorpus: learning " + std::to_string(merges) +
                                        " merges from this corpus is too much work (stopped at merge " +
                                        std::to_string(m + 1) +
                                        "; merges stay within words, so a long text without spaces is one long word); "
                                        "use fewer bpeMerges, or a corpus with spaces between words");
  }
  return learned;
}

// The page re-tokenizes on every edit; the built-in corpus never changes, so train it once per
// merge count. The lock only where threads exist (the native library, the threaded engine): in a
// single-thread engine std::mutex would link libc++'s system_error and with it printf (8 KB gzipped).
std::vector<Pair> builtin_merges(int merges) {
  static std::map<int, std::vector<Pair>> cache;
#ifdef AP_THREADS
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
#endif
  auto it = cache.find(merges);
  if (it == cache.end()) it = cache.emplace(merges, learn_merges(builtin_bpe_corpus(), merges)).first;
  return it->second;
}

std::vector<Tokenized> tokenize_bpe(const std::vector<std::string>& texts, const std::vector<std::string>& names,
                                    const TokenizerOptions& opts) {
  AP_REQUIRE(opts.bpeMerges >= 0 && opts.bpeMerges <= kMaxBpeMerges,
             "bpeMerges: expected 0.." + std::to_string(kMaxBpeMerges) + ", got " + std::to_string(opts.bpeMerges));
  const bool builtin = opts.bpeCorpus.empty();
  if (!builtin) {
    AP_REQUIRE(opts.bpeCorpus.size() <= kMaxBpeCorpusBytes, "bpeCorpus: " + std::to_string(opts.bpeCorpus.size()) +
                                                                " bytes, the limit is " +
                                                                std::to_string(kMaxBpeCorpusBytes));
    std::size_t bad = 0;
    const bool valid = is_valid_utf8(opts.bpeCorpus, &bad);
    AP_REQUIRE(valid, "bpeCorpus: invalid UTF-8 at byte " + std::to_string(bad));
    AP_REQUIRE(!split_words(opts.bpeCorpus).empty(),
               "bpeCorpus: is only whitespace; leave it empty for the built-in corpus");
  }
  const std::string& corpus = builtin ? builtin_bpe_corpus() : opts.bpeCorpus;
  const std::vector<Pair> merges = builtin ? builtin_merges(opts.bpeMerges) : learn_merges(corpus, opts.bpeMerges);

  std::vector<std::string> base;
  auto add_base = [&base](const std::string& s) {
    for (const std::string& w : split_words(s))
      for (std::string& sym : word_symbols(w)) base.push_back(std::move(sym));
  };
  add_base(corpus);
  for (const std::string& t : texts) add_base(t);
  std::sort(base.begin(), base.end());
  base.erase(std::unique(base.begin(), base.end()), base.end());

  std::vector<std::string> vocab = base;
  std::unordered_map<std::string, int> id;
  for (std::size_t i = 0; i < vocab.size(); ++i) id.emplace(vocab[i], static_cast<int>(i));
  for (const Pair& m : merges) {
    const std::string joined = m.first + m.second;
    if (id.emplace(joined, static_cast<int>(vocab.size())).second) vocab.push_back(joined);
  }

  std::vector<Tokenized> out(texts.size());
  std::unordered_map<std::string, Symbols> cache;  // a long text repeats its words
  for (std::size_t t = 0; t < texts.size(); ++t) {
    for (const std::string& w : split_words(texts[t])) {
      auto it = cache.find(w);
      if (it == cache.end()) {
        Symbols s = word_symbols(w);
        for (const Pair& m : merges) apply_merge(s, m);
        it = cache.emplace(w, std::move(s)).first;
      }
      for (const std::string& sym : it->second) {
        out[t].tokens.push_back(sym);
        out[t].ids.push_back(id.at(sym));
      }
      check_token_count(out[t].tokens.size(), names[t]);
    }
  }
  for (Tokenized& r : out) {
    r.vocab = vocab;
    r.merges = merges;
  }
  return out;
}

}  // namespace

const std::string& builtin_bpe_corpus() {
  static const std::string corpus(kBuiltinCorpus);
  return corpus;
}

const std::vector<std::string>& tokenizer_kinds() {
  static const std::vector<std::string> kinds = {"word-sorted", "word", "char", "bpe"};
  return kinds;
}

bool is_valid_utf8(const std::string& s, std::size_t* bad_offset) {
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char b0 = static_cast<unsigned char>(s[i]);
    std::size_t len;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (b0 < 0x80) {
      ++i;
      continue;
    } else if (b0 >= 0xC2 && b0 <= 0xDF) {
      len = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      len = 3;
      if (b0 == 0xE0) lo = 0xA0;  // overlong
      if (b0 == 0xED) hi = 0x9F;  // UTF-16 surrogates
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      len = 4;
      if (b0 == 0xF0) lo = 0x90;  // overlong
      if (b0 == 0xF4) hi = 0x8F;  // past U+10FFFF
    } else {
      if (bad_offset) *bad_offset = i;
      return false;
    }
    bool ok = i + len <= n;
    for (std::size_t k = 1; ok && k < len; ++k) {
      const unsigned char b = static_cast<unsigned char>(s[i + k]);
      ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
    }
    if (!ok) {
      if (bad_offset) *bad_offset = i;
      return false;
    }
    i += len;
  }
  return true;
}

std::vector<Tokenized> tokenize_joint(const std::vector<std::string>& texts, const std::string& kind,
                                      const TokenizerOptions& opts, const std::vector<std::string>& argNames) {
  const auto& kinds = tokenizer_kinds();
  if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
    throw Error("tokenizer: unknown '" + kind + "'; expected one of word-sorted, word, char, bpe");
  }
  AP_REQUIRE(!texts.empty(), "texts: expected at least one text, got none");
  AP_REQUIRE(argNames.empty() || argNames.size() == texts.size(),
             "argNames: expected " + std::to_string(texts.size()) + " names, got " + std::to_string(argNames.size()));
  std::vector<std::string> names(texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    names[i] = !argNames.empty() ? argNames[i] : texts.size() == 1 ? "text" : "texts[" + std::to_string(i) + "]";
    check_text(texts[i], names[i]);
  }
  if (kind == "bpe") return tokenize_bpe(texts, names, opts);

  std::vector<Tokenized> out(texts.size());
  for (std::size_t t = 0; t < texts.size(); ++t) {
    if (kind == "char") {
      for (Char& c : chars_of(texts[t])) {
        if (!c.space) out[t].tokens.push_back(std::move(c.text));
        check_token_count(out[t].tokens.size(), names[t]);
      }
    } else if (kind == "word") {
      out[t].tokens = split_words(texts[t]);
    } else {  // word-sorted
      std::string noCommas = texts[t];
      noCommas.erase(std::remove(noCommas.begin(), noCommas.end(), ','), noCommas.end());
      out[t].tokens = split_words(noCommas);
      AP_REQUIRE(!out[t].tokens.empty(), names[t] + ": has no words once commas are removed");
    }
    check_token_count(out[t].tokens.size(), names[t]);
  }

  std::vector<std::string> vocab;
  std::unordered_map<std::string, int> id;
  if (kind == "word-sorted") {
    for (const Tokenized& r : out) vocab.insert(vocab.end(), r.tokens.begin(), r.tokens.end());
    std::sort(vocab.begin(), vocab.end());  // std::string compares bytes as unsigned: code point order
    vocab.erase(std::unique(vocab.begin(), vocab.end()), vocab.end());
    for (std::size_t i = 0; i < vocab.size(); ++i) id.emplace(vocab[i], static_cast<int>(i));
  } else {
    for (const Tokenized& r : out)
      for (const std::string& tok : r.tokens)
        if (id.emplace(tok, static_cast<int>(vocab.size())).second) vocab.push_back(tok);
  }
  for (Tokenized& r : out) {
    r.ids.reserve(r.tokens.size());
    for (const std::string& tok : r.tokens) r.ids.push_back(id.at(tok));
    r.vocab = vocab;
  }
  return out;
}

Tokenized tokenize(const std::string& text, const std::string& kind, const TokenizerOptions& opts) {
  return tokenize_joint({text}, kind, opts).front();
}

}  // namespace ap
