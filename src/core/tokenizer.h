// The four tokenizers of the playground: text -> tokens, ids and the vocabulary the ids index
// (the vocabulary's size is the embedding table's row count, so it drives the random draws).
//
// Shared rules
// - Input must be valid UTF-8 (strict RFC 3629: no overlongs, surrogates or code points past
//   U+10FFFF), at most kMaxTextBytes bytes, not empty or whitespace-only, and give at most
//   kMaxTokens tokens. Otherwise ap::Error, e.g. "text: invalid UTF-8 at byte 3".
// - "Whitespace" is exactly what Python's str.split() splits on (ASCII \t\n\v\f\r, U+001C..U+001F,
//   space, U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000), so the
//   course's `sentence.split()` and ours agree on every input, Chinese spaces included.
// - No case folding and no Unicode normalisation: "The" and "the" are two words, as in the course.
//
// Kinds
// - word-sorted: the course's program: remove ASCII commas, split on whitespace, vocabulary =
//   sorted unique words (byte order = code point order = Python's sorted() on str). Unlike the
//   course's dict comprehension, a repeated word gets the same id and ids have no gaps.
// - word: same split (commas kept), vocabulary in order of first appearance.
// - char: one token per code point, whitespace dropped; vocabulary in order of first appearance.
// - bpe: byte-pair encoding over characters, not bytes, so every token is displayable text
//   (a Chinese character is never split into meaningless bytes).
//   * Words are whitespace-separated; the first character of each word carries the marker U+2581
//     "▁" (SentencePiece style), e.g. "my cat" -> "▁m" "y" "▁c" "a" "t" before merging. Merges never
//     cross words, and the marker shows where words start in the displayed tokens.
//   * Training (on opts.bpeCorpus, or builtin_bpe_corpus() when it is empty): count adjacent
//     symbol pairs over all words weighted by frequency; merge the most frequent pair; ties go to
//     the smallest (left, right) in byte order; stop after opts.bpeMerges merges or when no pair
//     occurs at least twice.
//   * Encoding: each word's symbols get the merges applied in learned order, each merge
//     left to right over the word.
//   * vocab = base symbols (every marked or unmarked character seen in the corpus or the text(s)),
//     sorted by byte order, then each distinct merge result in merge order. Everything the
//     tokenization of any text made of those characters can produce, and nothing more.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/common.h"

namespace ap {

constexpr int kMaxBpeMerges = 1024;
// Training cost grows with corpus size times merges: 64 KiB x 1024 merges trains in ~0.2 s natively
// (measured), 1 MiB would take ~20 s, so a custom corpus is capped well below kMaxTextBytes.
constexpr std::size_t kMaxBpeCorpusBytes = std::size_t{64} * 1024;
// Symbol visits while learning merges (about a second in wasm); past it, an Error naming bpeCorpus.
constexpr long long kMaxBpeWork = 1LL << 20;

struct TokenizerOptions {
  std::string bpeCorpus;  // empty = builtin_bpe_corpus()
  int bpeMerges = 64;     // 0..kMaxBpeMerges
};

struct Tokenized {
  std::vector<std::string> tokens;  // as displayed
  std::vector<int> ids;             // index into vocab
  std::vector<std::string> vocab;
  std::vector<std::pair<std::string, std::string>> merges;  // bpe only, in learned order
};

// kind: word-sorted | word | char | bpe
Tokenized tokenize(const std::string& text, const std::string& kind, const TokenizerOptions& opts = {});

// One vocabulary over several texts (cross attention: source then target); result i holds text i's
// tokens and ids; every result carries the shared vocab (and merges). argNames names each text in
// error messages (e.g. {"source", "target"}); default "texts[i]" (or "text" for a single text).
std::vector<Tokenized> tokenize_joint(const std::vector<std::string>& texts, const std::string& kind,
                                      const TokenizerOptions& opts = {}, const std::vector<std::string>& argNames = {});

// Strict UTF-8 check; on failure *bad_offset is the byte offset where the bad sequence starts.
bool is_valid_utf8(const std::string& s, std::size_t* bad_offset = nullptr);

// The built-in English + Chinese BPE training text (course sentences included).
const std::string& builtin_bpe_corpus();

// The kinds, for messages and UIs: {"word-sorted", "word", "char", "bpe"}.
const std::vector<std::string>& tokenizer_kinds();

}  // namespace ap
