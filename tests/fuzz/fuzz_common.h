// Shared by the libFuzzer targets (tests/fuzz/fuzz_*.cpp) and by the regression replay
// (tests/native/test_fuzz_regressions.cpp): one decoding of raw bytes into engine inputs, and one set
// of invariants checked on every answer. A crash input saved by libFuzzer therefore means the same
// thing when the native suite replays it, long after the fuzzer that found it has stopped.
//
// What counts as a failure (the fuzzers abort on it, the replay test fails on it):
// - any exception other than ap::Error (std::out_of_range from .at(), bad_alloc at our tiny sizes, ...),
// - an ap::Error whose message is empty or does not start with an argument name ("name: ..."),
// - an answer that breaks the engine's contract: NaN or ±inf in weights or output, a weights row that
//   neither sums to 1 nor is all zero for a fully masked row, a masked cell that is not -inf, token ids
//   outside the vocabulary, tokens that are not valid UTF-8 or do not rebuild the text.
// Sanitizer reports (ASan / UBSan) are failures on their own.
//
// Sizes are kept small on purpose (dims ≤ 24, sequences ≤ 12, texts ≤ a few KiB): the fuzzers look
// for logic and memory errors in decoding and validation, not for how long a huge input takes.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/attention.h"
#include "core/common.h"
#include "core/multihead.h"
#include "core/pipeline.h"
#include "core/tokenizer.h"

namespace apfuzz {

// Reads the fuzzer's bytes front to back; past the end it goes on with a pseudo-random stream seeded
// by the input itself, so any prefix of an input still decodes (libFuzzer's mutations cut inputs
// anywhere) and a short input still gets varied matrices (zeros would make every row of Q, K, V the
// same, every softmax uniform, and the reference checks blind).
//
// The first byte sets how often value() returns a hostile number (NaN, ±inf, near FLT_MAX, raw bits):
// mode 0 never, 1 for 1 tag in 256, 2 for 1 in 32, 3 for 3 in 8. Without a clean mode nearly every
// matrix would hold one and be refused, and the answers' invariants would rarely be checked.
class Reader {
 public:
  Reader(const uint8_t* data, std::size_t size) : p_(data), n_(size) {
    for (std::size_t k = 0; k < size; ++k) state_ = (state_ ^ data[k]) * 0x100000001b3ULL;  // FNV-1a
    static const unsigned kOrdinaryBelow[4] = {256, 255, 248, 160};
    ordinaryBelow_ = kOrdinaryBelow[u8() & 3];
  }

  bool empty() const { return i_ >= n_; }
  std::size_t left() const { return i_ < n_ ? n_ - i_ : 0; }

  uint8_t u8() {
    if (i_ < n_) return p_[i_++];
    state_ ^= state_ << 13;  // xorshift64
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return static_cast<uint8_t>(state_ >> 56);
  }
  uint16_t u16() { return static_cast<uint16_t>(u8() | (u8() << 8)); }
  uint32_t u32() { return static_cast<uint32_t>(u16()) | (static_cast<uint32_t>(u16()) << 16); }
  bool flag() { return (u8() & 1) != 0; }

  // Did any value() so far return a finite number past 1e15? Products of such values overflow float32.
  bool sawHuge() const { return huge_; }

  // lo..hi inclusive.
  int range(int lo, int hi) { return lo + static_cast<int>(u8() % static_cast<unsigned>(hi - lo + 1)); }

  // Mostly ordinary values, sometimes the ones that break naive code: zeros, signed zero, huge
  // magnitudes near FLT_MAX, denormals, NaN and infinities, and raw bit patterns.
  float value() {
    const float f = value_();
    if (std::isfinite(f) && std::fabs(f) > 1e15f) huge_ = true;
    return f;
  }

  // The rest of the input as a string (the fuzzers put texts last so every byte value reaches them).
  std::string rest() {
    std::string s(reinterpret_cast<const char*>(p_ + std::min(i_, n_)), left());
    i_ = n_;
    return s;
  }

  std::string take(std::size_t k) {
    k = std::min(k, left());
    std::string s(reinterpret_cast<const char*>(p_ + i_), k);
    i_ += k;
    return s;
  }

 private:
  float value_() {
    const uint8_t tag = u8();
    if (tag < ordinaryBelow_) return (static_cast<int>(u8()) - 128) / 32.f;  // [-4, 4) in steps of 1/32
    switch (tag % 12) {
      case 0: return 0.f;
      case 1: return -0.f;
      case 2: return 1e30f;
      case 3: return -3.0e38f;
      case 4: return std::numeric_limits<float>::max();
      case 5: return std::numeric_limits<float>::denorm_min();
      case 6: return std::numeric_limits<float>::quiet_NaN();
      case 7: return std::numeric_limits<float>::infinity();
      case 8: return -std::numeric_limits<float>::infinity();
      case 9: return 1e18f * ((static_cast<int>(u8()) - 128) / 16.f);
      default: {
        const uint32_t bits = u32();
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return f;
      }
    }
  }

  const uint8_t* p_;
  std::size_t n_;
  std::size_t i_ = 0;
  bool huge_ = false;
  unsigned ordinaryBelow_ = 160;
  uint64_t state_ = 0xcbf29ce484222325ULL;
};

// Under libFuzzer a broken invariant must look like a crash (abort), so the input is saved. The
// GoogleTest replay defines APFUZZ_THROW_ON_FAIL to get a test failure with the message instead.
struct InvariantBroken : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void fail(const std::string& what) {
#ifdef APFUZZ_THROW_ON_FAIL
  throw InvariantBroken(what);
#else
  std::fprintf(stderr, "apfuzz invariant broken: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
#endif
}

inline void expect(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

// "name: message" — every ap::Error must name the argument it blames.
inline void check_error_message(const char* what) {
  const std::string m = what ? what : "";
  const std::size_t colon = m.find(": ");
  expect(!m.empty() && colon != std::string::npos && colon > 0 && colon < 64,
         "ap::Error message does not start with 'argument: ' — got '" + m + "'");
}

// Runs f, treating ap::Error as the normal answer to bad input and everything else as a bug.
// Returns true when f finished without throwing.
template <class F>
bool guarded(F&& f) {
  try {
    f();
    return true;
  } catch (const ap::Error& e) {
    check_error_message(e.what());
    return false;
  } catch (const std::bad_alloc&) {
    fail("std::bad_alloc at fuzzing sizes (an unchecked size reached an allocation)");
  } catch (const std::exception& e) {
    fail(std::string("exception other than ap::Error: ") + e.what());
  }
}

inline ap::Mat matrix(Reader& r, int rows, int cols) {
  ap::Mat m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = r.value();
  return m;
}

inline ap::Vec vector(Reader& r, int n) {
  ap::Vec v(n);
  for (Eigen::Index i = 0; i < v.size(); ++i) v[i] = r.value();
  return v;
}

// A size that is usually `want` (so shapes mostly agree and decoding gets deep), sometimes off by a
// little or zero (so every shape check gets exercised).
inline int size_near(Reader& r, int want) {
  const uint8_t t = r.u8();
  if (t < 200) return want;
  if (t < 220) return 0;
  if (t < 240) return want + 1;
  return std::max(0, want - 1 - (t & 3));
}

inline std::vector<uint8_t> bits(Reader& r, std::size_t n) {
  std::vector<uint8_t> out(n);
  for (std::size_t i = 0; i < n; i += 8) {
    const uint8_t b = r.u8();
    for (std::size_t k = 0; k < 8 && i + k < n; ++k) out[i + k] = (b >> k) & 1;
  }
  return out;
}

// ---------------------------------------------------------------- tokenizers

struct TokenizeInput {
  std::vector<std::string> texts;  // one text, or source + target (tokenize_joint, as cross attention does)
  std::string kind;
  ap::TokenizerOptions opts;
};

inline std::string kind_of(uint8_t b) {
  static const char* const kinds[] = {"word-sorted", "word", "char", "bpe", "bpe", "Word", "", "sentencepiece"};
  return kinds[b % 8];
}

// Layout (after the mode byte): [kind] [flags] [merges] [corpus length] [split] then the text bytes.
inline TokenizeInput decode_tokenize(const uint8_t* data, std::size_t size) {
  Reader r(data, size);
  TokenizeInput in;
  in.kind = kind_of(r.u8());
  const uint8_t flags = r.u8();
  const uint8_t merges = r.u8();
  in.opts.bpeMerges = (flags & 4) ? static_cast<int>(merges) * 5 - 40 : merges % 64;  // sometimes out of range
  const std::size_t corpusLen = (flags & 1) ? r.u8() * 4u : 0u;
  const uint8_t split = r.u8();
  in.opts.bpeCorpus = r.take(corpusLen);
  // Learning merges from the built-in corpus costs ~0.1 s per merge under ASan; few merges keep the
  // fuzzer fast there, while a corpus from the input (small) gets the full range.
  if (in.opts.bpeCorpus.empty() && !(flags & 4)) in.opts.bpeMerges %= 6;
  std::string text = r.rest();
  if (flags & 2) {
    const std::size_t at = text.empty() ? 0 : split % (text.size() + 1);
    in.texts = {text.substr(0, at), text.substr(at)};
  } else {
    in.texts = {text};
  }
  return in;
}

// An independent strict UTF-8 check (decode, then reject overlongs, surrogates and > U+10FFFF), to
// compare with ap::is_valid_utf8's table of allowed second bytes.
inline bool utf8_ok(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const unsigned char b = static_cast<unsigned char>(s[i]);
    int len;
    uint32_t cp;
    if (b < 0x80) {
      len = 1;
      cp = b;
    } else if ((b & 0xE0) == 0xC0) {
      len = 2;
      cp = b & 0x1F;
    } else if ((b & 0xF0) == 0xE0) {
      len = 3;
      cp = b & 0x0F;
    } else if ((b & 0xF8) == 0xF0) {
      len = 4;
      cp = b & 0x07;
    } else
      return false;
    if (i + static_cast<std::size_t>(len) > s.size()) return false;
    for (int k = 1; k < len; ++k) {
      const unsigned char c = static_cast<unsigned char>(s[i + k]);
      if ((c & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    static const uint32_t minFor[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < minFor[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += static_cast<std::size_t>(len);
  }
  return true;
}

inline bool py_space(uint32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

// The text's non-whitespace code points, concatenated (valid UTF-8 assumed).
inline std::string without_space(const std::string& s, bool dropCommas) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    const unsigned char b = static_cast<unsigned char>(s[i]);
    const int len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    uint32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
    for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    if (!py_space(cp) && !(dropCommas && cp == ',')) out.append(s, i, static_cast<std::size_t>(len));
    i += static_cast<std::size_t>(len);
  }
  return out;
}

inline std::string strip_markers(const std::string& s) {
  static const std::string marker = "\xE2\x96\x81";
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    if (s.compare(i, marker.size(), marker) == 0) {
      i += marker.size();
    } else {
      out += s[i++];
    }
  }
  return out;
}

inline void check_tokenized(const std::string& text, const std::string& kind, const ap::Tokenized& t) {
  expect(!t.tokens.empty(), kind + ": no tokens for an accepted text");
  expect(t.tokens.size() == t.ids.size(), kind + ": tokens and ids differ in length");
  expect(t.tokens.size() <= static_cast<std::size_t>(ap::kMaxTokens), kind + ": more tokens than kMaxTokens");
  std::vector<std::string> sorted = t.vocab;
  std::sort(sorted.begin(), sorted.end());
  expect(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), kind + ": vocabulary has duplicates");
  std::string joined;
  for (std::size_t i = 0; i < t.tokens.size(); ++i) {
    expect(t.ids[i] >= 0 && static_cast<std::size_t>(t.ids[i]) < t.vocab.size(), kind + ": id out of the vocabulary");
    expect(t.vocab[static_cast<std::size_t>(t.ids[i])] == t.tokens[i], kind + ": vocab[id] is not the token");
    expect(!t.tokens[i].empty() && utf8_ok(t.tokens[i]), kind + ": a token is empty or not valid UTF-8");
    joined += t.tokens[i];
  }
  if (kind == "word-sorted") {
    expect(std::is_sorted(t.vocab.begin(), t.vocab.end()), "word-sorted: vocabulary not sorted");
  }
  // Nothing is lost or invented: the tokens spell the text without its whitespace (and, for the
  // course's tokenizer, without commas; for bpe, once the word markers are taken out).
  const std::string expected = without_space(text, kind == "word-sorted");
  const std::string got = kind == "bpe" ? strip_markers(joined) : joined;
  if (kind != "bpe" || text.find("\xE2\x96\x81") == std::string::npos) {
    expect(got == expected, kind + ": the tokens do not spell the text");
  }
}

inline void run_tokenize(const TokenizeInput& in) {
  std::vector<ap::Tokenized> out;
  const bool ok = guarded([&] { out = ap::tokenize_joint(in.texts, in.kind, in.opts); });
  // Differential check of the UTF-8 validator: invalid text must never be accepted.
  bool allValid = true;
  for (const std::string& t : in.texts) {
    std::size_t bad = 0;
    const bool v = ap::is_valid_utf8(t, &bad);
    expect(v == utf8_ok(t), "is_valid_utf8 disagrees with the reference decoder");
    if (!v) expect(bad < t.size(), "is_valid_utf8: bad offset past the end");
    allValid = allValid && v;
  }
  if (!allValid) expect(!ok, "invalid UTF-8 was accepted");
  if (!ok) return;
  expect(out.size() == in.texts.size(), "tokenize_joint: one result per text");
  std::size_t total = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    check_tokenized(in.texts[i], in.kind, out[i]);
    expect(out[i].vocab == out[0].vocab, "tokenize_joint: texts do not share one vocabulary");
    total += out[i].tokens.size();
  }
  // Word vocabularies hold exactly the words seen (bpe's also holds the corpus's symbols).
  if (in.kind == "word" || in.kind == "word-sorted" || in.kind == "char")
    expect(out[0].vocab.size() <= total, in.kind + ": vocabulary larger than all the texts' tokens");
}

// ---------------------------------------------------------------- attention

// The softmax contract: each row sums to 1 or (fully masked) is exactly 0; masked cells are -inf in
// maskedScores and 0 in weights; nothing is NaN; output is finite.
inline void check_weights(const ap::Mat& W, const ap::Mat* masked, const std::vector<int>& maskedRows,
                          const std::string& where) {
  for (Eigen::Index i = 0; i < W.rows(); ++i) {
    const bool dead = std::find(maskedRows.begin(), maskedRows.end(), static_cast<int>(i)) != maskedRows.end();
    double sum = 0;
    for (Eigen::Index j = 0; j < W.cols(); ++j) {
      const float w = W(i, j);
      expect(std::isfinite(w) && w >= 0.f && w <= 1.f + 1e-6f,
             where + ": weight (" + std::to_string(i) + ", " + std::to_string(j) + ") = " + std::to_string(w));
      if (masked) {
        const float m = (*masked)(i, j);
        expect(!std::isnan(m) && m != std::numeric_limits<float>::infinity(), where + ": maskedScores has NaN or +inf");
        if (m == -std::numeric_limits<float>::infinity()) expect(w == 0.f, where + ": a masked cell has weight");
      }
      sum += w;
    }
    if (dead) {
      expect(sum == 0.0, where + ": fully masked row " + std::to_string(i) + " is not all zero");
    } else {
      expect(std::fabs(sum - 1.0) < 1e-3, where + ": row " + std::to_string(i) + " sums to " + std::to_string(sum));
    }
  }
}

// Finite inputs near FLT_MAX whose products overflow must give an ap::Error, never ±inf or NaN in a result
// (docs/bad-input.md, G2 and G4; fixed after fuzzing found it). APFUZZ_KNOWN_OVERFLOW=1 lets an exploratory
// run look past this check; the replay test and the CI job never set it.
inline bool skip_overflow(bool hugeInput) {
  static const bool skip = std::getenv("APFUZZ_KNOWN_OVERFLOW") != nullptr;
  return skip && hugeInput;
}

inline void check_finite_out(const ap::Mat& m, const std::string& where, bool hugeInput) {
  if (skip_overflow(hugeInput)) return;
  for (Eigen::Index i = 0; i < m.size(); ++i)
    expect(std::isfinite(m.data()[i]), where + ": non-finite value " + std::to_string(m.data()[i]) + " at " +
                                           std::to_string(i) + " for inputs the engine accepted");
}

struct AttentionInput {
  std::vector<ap::Mat> Q, K, V;  // one per batch item
  ap::AttentionOptions opts;
  bool huge = false;  // some value is finite but past 1e15
};

inline ap::Mask decode_mask(Reader& r, int batch, int nq, int nk) {
  ap::Mask m;
  switch (r.u8() % 6) {
    case 0:
    case 1: break;
    case 2: m.kind = ap::Mask::Kind::Causal; break;
    case 3:
      m.kind = ap::Mask::Kind::KeyPadding;
      m.keyPadding = bits(r, static_cast<std::size_t>(size_near(r, r.flag() ? batch * nk : nk)));
      break;
    default:
      m.kind = ap::Mask::Kind::Matrix;
      m.matrix = bits(r, static_cast<std::size_t>(size_near(r, (r.flag() ? batch : 1) * nq * nk)));
      break;
  }
  return m;
}

// Layout (after the mode byte): sizes, rule, scale, temperature, mask, rule parameters, then the values of Q, K, V.
inline AttentionInput decode_attention(const uint8_t* data, std::size_t size) {
  Reader r(data, size);
  AttentionInput in;
  const int batch = r.range(1, 3);
  const int nq = r.range(1, 12), nk = r.range(1, 12);
  const int dq = r.range(1, 24);
  const int dk = r.flag() ? dq : r.range(1, 24);
  const int dv = r.range(1, 24);
  const uint8_t rule = r.u8();
  in.opts.score = static_cast<ap::ScoreRule>(rule % 5);
  if (r.flag()) {
    in.opts.hasScale = true;
    in.opts.scale = r.value();
  }
  const uint8_t t = r.u8();
  in.opts.temperature = t < 128 ? 1.f : t < 200 ? 0.05f + (t - 128) / 16.f : r.value();
  in.opts.mask = decode_mask(r, batch, nq, nk);
  in.opts.needWeights = r.u8() >= 64;
  const int h = r.range(1, 8), out = r.range(1, 8);
  ap::ScoreParams& p = in.opts.params;
  switch (in.opts.score) {
    case ap::ScoreRule::General: p.W = matrix(r, size_near(r, dq), size_near(r, dk)); break;
    case ap::ScoreRule::Additive:
      p.Wq = matrix(r, size_near(r, h), size_near(r, dq));
      p.Wk = matrix(r, size_near(r, h), size_near(r, dk));
      p.v = vector(r, size_near(r, h));
      break;
    case ap::ScoreRule::Concat:
      p.concatW = matrix(r, size_near(r, nk), size_near(r, dq + dk));
      p.concatB = vector(r, size_near(r, nk));
      if (r.flag()) {
        p.combineW = matrix(r, size_near(r, out), size_near(r, dq + dv));
        p.combineB = vector(r, size_near(r, out));
      }
      break;
    case ap::ScoreRule::Dot:
    case ap::ScoreRule::ScaledDot: break;  // no parameters
  }
  const int nqUsed = in.opts.score == ap::ScoreRule::Concat && r.flag() ? nk : nq;
  for (int b = 0; b < batch; ++b) {
    in.Q.push_back(matrix(r, size_near(r, nqUsed), dq));
    in.K.push_back(matrix(r, nk, size_near(r, dk)));
    in.V.push_back(matrix(r, size_near(r, nk), dv));
  }
  in.huge = r.sawHuge();
  return in;
}

// An independent reference in double precision, straight from the formulas (docs/design.md), for
// the rules whose formula is a few lines: dot, scaled-dot and general. It checks the optimized paths
// (packed-K kernels, the fused online-softmax kernel when needWeights is false, masks, temperature) on
// every shape the fuzzer invents, not just the shapes the unit tests chose.
inline void check_against_reference(const ap::Mat& Q, const ap::Mat& K, const ap::Mat& V, const ap::AttentionOptions& o,
                                    int b, const ap::AttentionResult& res, const std::string& where) {
  if (o.score != ap::ScoreRule::Dot && o.score != ap::ScoreRule::ScaledDot && o.score != ap::ScoreRule::General) return;
  const auto moderate = [](const ap::Mat& m) { return m.size() == 0 || m.cwiseAbs().maxCoeff() <= 64.f; };
  if (!moderate(Q) || !moderate(K) || !moderate(V) || !moderate(o.params.W)) return;
  if (std::fabs(res.scale) > 64.f || o.temperature < 0.05f) return;  // keep the softmax well conditioned
  const long long nq = Q.rows(), nk = K.rows(), dv = V.cols();
  const double scale = res.scale, invT = 1.0 / static_cast<double>(o.temperature);
  for (long long i = 0; i < nq; ++i) {
    std::vector<double> s(static_cast<std::size_t>(nk));
    std::vector<bool> m(static_cast<std::size_t>(nk));
    double mx = -std::numeric_limits<double>::infinity();
    double bound = 0;  // Σ|terms| of the largest logit: float32's rounding error is ~2^-24 of it per term
    for (long long j = 0; j < nk; ++j) {
      double acc = 0, abs = 0;
      if (o.score == ap::ScoreRule::General) {
        for (long long a = 0; a < Q.cols(); ++a)
          for (long long c = 0; c < K.cols(); ++c) {
            const double t = double(Q(i, a)) * o.params.W(a, c) * K(j, c);
            acc += t;
            abs += std::fabs(t);
          }
      } else {
        for (long long a = 0; a < Q.cols(); ++a) {
          const double t = double(Q(i, a)) * K(j, a);
          acc += t;
          abs += std::fabs(t);
        }
      }
      s[j] = acc * scale * invT;
      bound = std::max(bound, abs * std::fabs(scale) * invT);
      m[j] = o.mask.masked(b, static_cast<int>(i), static_cast<int>(j), static_cast<int>(nq), static_cast<int>(nk));
      if (!m[j]) mx = std::max(mx, s[j]);
    }
    // float32 rounds each logit by up to ~(terms + 4)·2^-24 of the sum of its terms' magnitudes; the
    // softmax passes that on to the weights (relative), the weights to the output. Rows where that is
    // too coarse to say anything are skipped.
    const double terms = o.score == ap::ScoreRule::General ? double(Q.cols()) * K.cols() : double(Q.cols());
    const double eps = bound * (terms + 4.0) * std::ldexp(1.0, -24) * 2.0;
    if (eps > 0.05) continue;
    const double tol = 1e-4 + 4.0 * eps;
    double z = 0;
    for (long long j = 0; j < nk; ++j) z += m[j] ? 0.0 : std::exp(s[j] - mx);
    for (long long c = 0; c < dv; ++c) {
      double out = 0, mag = 0;
      for (long long j = 0; j < nk; ++j) {
        const double w = m[j] ? 0.0 : std::exp(s[j] - mx) / z;
        out += w * V(j, c);
        mag += std::fabs(w * V(j, c));
      }
      const double got = res.output(i, c);
      // Relative to the size of the sum's terms, not of the (possibly cancelling) result.
      expect(std::fabs(got - out) <= tol * (1.0 + mag),
             where + ": output(" + std::to_string(i) + ", " + std::to_string(c) + ") = " + std::to_string(got) +
                 ", the double-precision reference gives " + std::to_string(out));
    }
  }
}

// As the bindings do: validate every batch item first, then compute each.
inline void run_attention(const AttentionInput& in) {
  const int batch = static_cast<int>(in.Q.size());
  std::vector<ap::AttentionResult> rs;
  const bool ok = guarded([&] {
    for (int b = 0; b < batch; ++b) ap::validate_attention(in.Q[b], in.K[b], in.V[b], in.opts, batch);
    for (int b = 0; b < batch; ++b) rs.push_back(ap::attention(in.Q[b], in.K[b], in.V[b], in.opts, b));
  });
  if (!ok) return;
  for (int b = 0; b < batch; ++b) {
    const ap::AttentionResult& res = rs[static_cast<std::size_t>(b)];
    const std::string where = "attention(batch " + std::to_string(b) + ", " + ap::score_name(in.opts.score) + ")";
    expect(res.output.rows() == in.Q[b].rows(), where + ": output has the wrong number of rows");
    check_finite_out(res.output, where + " output", in.huge);
    check_against_reference(in.Q[b], in.K[b], in.V[b], in.opts, b, res, where);
    if (in.opts.needWeights) {
      expect(res.weights.rows() == in.Q[b].rows() && res.weights.cols() == in.V[b].rows(), where + ": weights shape");
      check_weights(res.weights, &res.maskedScores, res.maskedRows, where);
    }
    for (int i : res.maskedRows) {
      // A row with no key to look at gives a zero context row (never NaN).
      const ap::Mat& ctx = res.context.size() ? res.context : res.output;
      expect(ctx.row(i).cwiseAbs().maxCoeff() == 0.f, where + ": fully masked row has a non-zero context");
    }
  }
}

// ---------------------------------------------------------------- multi-head attention

struct MultiHeadInput {
  ap::Mat query, key, value;
  ap::MultiHeadParams p;
  bool huge = false;
};

inline MultiHeadInput decode_multihead(const uint8_t* data, std::size_t size) {
  Reader r(data, size);
  MultiHeadInput in;
  const int E = r.range(1, 16);
  const int heads = r.range(0, 9);
  const int nq = r.range(1, 8), nk = r.range(1, 8);
  const int kdim = r.flag() ? E : r.range(1, 16), vdim = r.flag() ? E : r.range(1, 16);
  in.p.numHeads = heads;
  const uint8_t how = r.u8();
  if (how % 3 != 0) {
    in.p.inProjWeight = matrix(r, size_near(r, 3 * E), size_near(r, E));
  }
  if (how % 3 != 1) {
    in.p.qProjWeight = matrix(r, size_near(r, E), size_near(r, E));
    in.p.kProjWeight = matrix(r, size_near(r, E), size_near(r, kdim));
    in.p.vProjWeight = matrix(r, size_near(r, E), size_near(r, vdim));
  }
  if (r.flag()) in.p.inProjBias = vector(r, size_near(r, 3 * E));
  in.p.outProjWeight = matrix(r, size_near(r, E), size_near(r, E));
  if (r.flag()) in.p.outProjBias = vector(r, size_near(r, E));
  in.p.causal = r.flag();
  if (r.flag()) in.p.keyPaddingMask = bits(r, static_cast<std::size_t>(size_near(r, nk)));
  if (r.flag()) in.p.attnMask = bits(r, static_cast<std::size_t>(size_near(r, nq * nk)));
  in.query = matrix(r, nq, size_near(r, E));
  in.key = matrix(r, size_near(r, nk), kdim);
  in.value = matrix(r, size_near(r, nk), vdim);
  in.huge = r.sawHuge();
  return in;
}

// torch.nn.MultiheadAttention's computation in double, from its definition: project (x Wᵀ + b), split
// the E columns into heads, softmax(q kᵀ / √(E/H)) with the masks, · v, concatenate, out-project.
inline void check_multihead_reference(const MultiHeadInput& in, const ap::MultiHeadResult& res) {
  const ap::MultiHeadParams& p = in.p;
  const long long E = in.query.cols(), nq = in.query.rows(), nk = in.key.rows(), H = p.numHeads, hd = E / H;
  const bool packed = p.inProjWeight.size() > 0;
  auto W = [&](int which, long long r, long long c) -> double {
    if (packed) return p.inProjWeight(which * E + r, c);
    return which == 0 ? p.qProjWeight(r, c) : which == 1 ? p.kProjWeight(r, c) : p.vProjWeight(r, c);
  };
  auto project = [&](const ap::Mat& x, int which) {
    std::vector<double> out(static_cast<std::size_t>(x.rows() * E));
    double mag = 0;
    for (long long i = 0; i < x.rows(); ++i)
      for (long long r = 0; r < E; ++r) {
        double acc = p.inProjBias.size() ? double(p.inProjBias[which * E + r]) : 0.0;
        for (long long c = 0; c < x.cols(); ++c) acc += W(which, r, c) * x(i, c);
        out[static_cast<std::size_t>(i * E + r)] = acc;
        mag = std::max(mag, std::fabs(acc));
      }
    return std::make_pair(out, mag);
  };
  const auto [q, qm] = project(in.query, 0);
  const auto [k, km] = project(in.key, 1);
  const auto [v, vm] = project(in.value, 2);
  // float32 rounding of a logit: its own hd products plus the projections' E products that made q and
  // k, each ~2^-24 of the magnitudes involved (see check_against_reference); skip what it blurs.
  const double logitMag = qm * km * static_cast<double>(hd) / std::sqrt(static_cast<double>(hd));
  const double eps = logitMag * static_cast<double>(hd + in.query.cols() + in.key.cols() + 8) * std::ldexp(1.0, -23);
  if (eps > 0.05 || vm > 1e4 || p.outProjWeight.cwiseAbs().maxCoeff() > 1e4) return;
  const double tol = 1e-4 + 4.0 * eps;
  std::vector<double> ctx(static_cast<std::size_t>(nq * E), 0.0);
  std::vector<double> ctxMag(static_cast<std::size_t>(nq * E), 0.0);
  const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
  for (long long h = 0; h < H; ++h)
    for (long long i = 0; i < nq; ++i) {
      std::vector<double> s(static_cast<std::size_t>(nk));
      std::vector<bool> m(static_cast<std::size_t>(nk));
      double mx = -std::numeric_limits<double>::infinity();
      for (long long j = 0; j < nk; ++j) {
        double acc = 0;
        for (long long t = 0; t < hd; ++t) acc += q[i * E + h * hd + t] * k[j * E + h * hd + t];
        s[j] = acc * scale;
        m[j] = (p.causal && j > i) || (!p.keyPaddingMask.empty() && p.keyPaddingMask[j]) ||
               (!p.attnMask.empty() && p.attnMask[static_cast<std::size_t>(i * nk + j)]);
        if (!m[j]) mx = std::max(mx, s[j]);
      }
      double z = 0;
      for (long long j = 0; j < nk; ++j) z += m[j] ? 0.0 : std::exp(s[j] - mx);
      for (long long j = 0; j < nk; ++j) {
        const double w = m[j] ? 0.0 : std::exp(s[j] - mx) / z;
        expect(std::fabs(res.weights[h](i, j) - w) <= tol,
               "multi_head_attention head " + std::to_string(h) + ": weight (" + std::to_string(i) + ", " +
                   std::to_string(j) + ") = " + std::to_string(res.weights[h](i, j)) + ", reference " +
                   std::to_string(w));
        for (long long t = 0; t < hd; ++t) {
          ctx[i * E + h * hd + t] += w * v[j * E + h * hd + t];
          ctxMag[i * E + h * hd + t] += std::fabs(w * v[j * E + h * hd + t]);
        }
      }
    }
  for (long long i = 0; i < nq; ++i)
    for (long long r = 0; r < E; ++r) {
      double out = p.outProjBias.size() ? double(p.outProjBias[r]) : 0.0, mag = std::fabs(out);
      for (long long c = 0; c < E; ++c) {
        out += double(p.outProjWeight(r, c)) * ctx[i * E + c];
        mag += std::fabs(double(p.outProjWeight(r, c))) * (ctxMag[i * E + c] + 1.0);
      }
      expect(std::fabs(res.output(i, r) - out) <= tol * (1.0 + mag),
             "multi_head_attention output(" + std::to_string(i) + ", " + std::to_string(r) +
                 ") = " + std::to_string(res.output(i, r)) + ", reference " + std::to_string(out));
    }
}

inline void run_multihead(const MultiHeadInput& in) {
  ap::MultiHeadResult res;
  const bool ok = guarded([&] { res = ap::multi_head_attention(in.query, in.key, in.value, in.p); });
  if (!ok) return;
  expect(static_cast<int>(res.weights.size()) == in.p.numHeads, "multi_head_attention: one weights matrix per head");
  for (std::size_t h = 0; h < res.weights.size(); ++h)
    check_weights(res.weights[h], nullptr, res.maskedRows, "multi_head_attention head " + std::to_string(h));
  check_finite_out(res.output, "multi_head_attention output", in.huge);
  if (!in.huge) check_multihead_reference(in, res);
}

// ---------------------------------------------------------------- run (the course pipeline)

// Layout (after the mode byte): dims, heads, rule, mask, scale, temperature, tokenizer, seed, overrides, then the text.
struct RunInput {
  ap::RunOptions o;
  bool huge = false;
};

inline RunInput decode_run(const uint8_t* data, std::size_t size) {
  Reader r(data, size);
  RunInput in;
  ap::RunOptions& o = in.o;
  auto dim = [&r] {
    const uint8_t b = r.u8();
    return b < 240 ? 1 + b % 24 : static_cast<int>(b) - 250;  // mostly 1..24, sometimes 0 or negative
  };
  o.dModel = dim();
  o.dq = dim();
  o.dk = r.flag() ? o.dq : dim();
  o.dv = dim();
  o.heads = r.range(0, 6);
  o.score = static_cast<ap::ScoreRule>(r.u8() % 5);
  const uint8_t m = r.u8();
  if (m % 4 == 1) o.mask.kind = ap::Mask::Kind::Causal;
  const bool maskFromBits = m % 4 >= 2;
  const uint8_t maskBits = r.u8();
  if (r.flag()) {
    o.hasScale = true;
    o.scale = r.value();
  }
  const uint8_t t = r.u8();
  o.temperature = t < 160 ? 1.f : 0.1f + (t - 160) / 8.f;
  o.tokenizer = kind_of(r.u8() & 3);
  o.tokenizerOptions.bpeMerges = r.range(0, 40);
  o.seed = r.u32();
  const uint8_t overrides = r.u8();
  const bool cross = r.u8() < 64;
  const uint8_t split = r.u8();
  // Overrides: values now, shapes checked against the tokenized text later (often wrong on purpose).
  const int rowsGuess = r.range(1, 6);
  if (overrides & 1) o.embeddings = matrix(r, rowsGuess, size_near(r, std::max(o.dModel, 1)));
  if (overrides & 2) o.Wq = matrix(r, size_near(r, std::max(o.dModel, 1)), std::max(o.dq, 1));
  if (overrides & 4) o.Wk = matrix(r, std::max(o.dModel, 1), size_near(r, std::max(o.dk, 1)));
  if (overrides & 8) o.Wv = matrix(r, std::max(o.dModel, 1), std::max(o.dv, 1));
  const std::string text = r.take(200);
  if (cross) {
    const std::size_t at = text.empty() ? 0 : split % (text.size() + 1);
    o.cross = true;
    o.source = text.substr(0, at);
    o.target = text.substr(at);
  } else {
    o.text = text;
  }
  if (maskFromBits) {
    // The mask's size depends on the token count, unknown until tokenized: take the bytes as a
    // repeating pattern of the size a text of `text`'s words would need, so it is sometimes right.
    const std::size_t words = std::max<std::size_t>(1, std::count(text.begin(), text.end(), ' ') + 1);
    if (m % 4 == 2) {
      o.mask.kind = ap::Mask::Kind::KeyPadding;
      o.mask.keyPadding.resize(words);
      for (std::size_t i = 0; i < words; ++i) o.mask.keyPadding[i] = (maskBits >> (i % 8)) & 1;
    } else {
      o.mask.kind = ap::Mask::Kind::Matrix;
      o.mask.matrix.resize(words * words);
      for (std::size_t i = 0; i < words * words; ++i) o.mask.matrix[i] = (maskBits >> (i % 8)) & 1;
    }
  }
  in.huge = r.sawHuge();
  return in;
}

inline void run_run(const RunInput& in) {
  const ap::RunOptions& o = in.o;
  ap::Trace t;
  const bool ok = guarded([&] { t = ap::run(o); });
  if (!ok) return;
  const std::size_t nq = t.tokens.ids.size();
  const std::size_t nk = o.cross ? t.sourceTokens.ids.size() : nq;
  expect(static_cast<int>(t.weights.size()) == o.heads, "run: one weights matrix per head");
  expect(t.output.rows() == static_cast<Eigen::Index>(nq) && t.output.cols() == o.dv, "run: output shape");
  expect(t.Q.rows() == static_cast<Eigen::Index>(nq) && t.K.rows() == static_cast<Eigen::Index>(nk), "run: Q/K rows");
  check_tokenized(o.cross ? o.target : o.text, o.tokenizer, t.tokens);
  for (std::size_t h = 0; h < t.weights.size(); ++h)
    check_weights(t.weights[h], &t.maskedScores[h], t.maskedRows, "run head " + std::to_string(h));
  check_finite_out(t.output, "run output", in.huge);
}

}  // namespace apfuzz
