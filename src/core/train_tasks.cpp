// Training tasks with their data generated in code (nothing is downloaded).
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "core/rng.h"
#include "core/train.h"

namespace ap {
namespace train {

namespace {

// UTF-8 code points of s; throws naming `text` at the first invalid byte.
std::vector<std::string> utf8_chars(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(s[i + k]) >> 6) == 0x2;
    AP_REQUIRE(ok, "text: invalid UTF-8 at byte " + std::to_string(i));
    out.push_back(s.substr(i, len));
    i += len;
  }
  return out;
}

// Lower-cased words with surrounding punctuation dropped ("Tired." -> "tired"); "didn't" stays whole.
std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    size_t a = 0, b = cur.size();
    while (a < b && std::ispunct(static_cast<unsigned char>(cur[a]))) ++a;
    while (b > a && std::ispunct(static_cast<unsigned char>(cur[b - 1]))) --b;
    if (b > a) out.push_back(cur.substr(a, b - a));
    cur.clear();
  };
  for (char ch : s) {
    if (std::isspace(static_cast<unsigned char>(ch)))
      flush();
    else
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  flush();
  return out;
}

std::vector<std::string> split_spaces(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find(' ', i);
    if (j == std::string::npos) j = s.size();
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

int index_of(const std::vector<std::string>& v, const std::string& s) {
  auto it = std::find(v.begin(), v.end(), s);
  return it == v.end() ? -1 : static_cast<int>(it - v.begin());
}

}  // namespace

std::vector<int> encode_text(const TaskData& task, const std::string& text, std::vector<std::string>* tokens) {
  AP_REQUIRE(text.size() <= kMaxTextBytes,
             "text: at most " + std::to_string(kMaxTextBytes) + " bytes, got " + std::to_string(text.size()));
  std::vector<std::string> toks;
  if (task.tokenizer == "word") {
    toks = words(text);
  } else {
    for (std::string& c : utf8_chars(text)) {
      // reverse reads digits; spaces between them are only for the reader
      if (task.tokenizer == "digits" && c.size() == 1 && std::isspace(static_cast<unsigned char>(c[0]))) continue;
      toks.push_back(std::move(c));
    }
  }
  AP_REQUIRE(!toks.empty(), "text: empty after tokenization");
  std::vector<int> ids;
  for (const std::string& t : toks) {
    const int id = index_of(task.vocab, t);
    if (id < 0) {
      std::string known;
      for (size_t k = 0; k < task.vocab.size() && k < 12; ++k) known += (k ? ", " : "") + task.vocab[k];
      if (task.vocab.size() > 12) known += ", …";
      throw Error("text: '" + t + "' is not in the vocabulary of task '" + task.name + "' (" + known + ")");
    }
    ids.push_back(id);
  }
  if (tokens) *tokens = std::move(toks);
  return ids;
}

// Winograd-style pairs: the pronoun's referent is decided by the adjective at the end, which "it" can
// only see through attention; nouns swap places across templates so position alone cannot answer.
TaskData make_coreference() {
  const std::vector<std::string> animals = {"animal", "dog",  "cat",  "horse", "cow",   "sheep", "fox",     "rabbit",
                                            "deer",   "goat", "duck", "bear",  "mouse", "pig",   "chicken", "wolf"};
  const std::vector<std::string> places = {"street", "road",   "river",  "bridge", "field",  "lake",   "highway",
                                           "path",   "canyon", "stream", "track",  "square", "valley", "railway"};
  const std::vector<std::string> animAdj = {"tired", "hungry",  "scared",    "sleepy",     "weak",
                                            "lazy",  "nervous", "exhausted", "frightened", "sick"};
  const std::vector<std::string> placeAdj = {"wide",  "long", "busy",    "crowded",  "icy",
                                             "muddy", "deep", "flooded", "slippery", "steep"};
  // {A} = the animal, {P} = the place, {J} = the adjective
  const std::vector<std::string> templates = {
      "the {A} didn't cross the {P} because it was too {J}",
      "the {P} was not crossed by the {A} because it was too {J}",
      "the {A} could not get over the {P} since it was too {J}",
      "the {P} could not be crossed by the {A} because it was so {J}",
  };
  TaskData t;
  t.name = "coreference";
  t.tokenizer = "word";
  t.defaultLayers = 2;  // layer 1 brings the adjective to "it", layer 2 points "it" at the noun
  t.sample = "the animal didn't cross the street because it was too tired";
  std::set<std::string> vocab;
  for (const auto* list : {&animals, &places, &animAdj, &placeAdj})
    for (const auto& w : *list) vocab.insert(w);
  for (const auto& tpl : templates)
    for (const auto& w : split_spaces(tpl))
      if (w[0] != '{') vocab.insert(w);
  t.vocab.assign(vocab.begin(), vocab.end());
  auto id = [&](const std::string& w) { return index_of(t.vocab, w); };

  std::vector<std::string> adjs = animAdj;
  adjs.insert(adjs.end(), placeAdj.begin(), placeAdj.end());
  // Each template as token ids once, with -1/-2/-3 where the animal/place/adjective go.
  std::vector<std::vector<int>> tpls;
  for (const auto& tpl : templates) {
    std::vector<int> ids;
    for (const std::string& w : split_spaces(tpl))
      ids.push_back(w == "{A}" ? -1 : w == "{P}" ? -2 : w == "{J}" ? -3 : id(w));
    tpls.push_back(std::move(ids));
  }
  const int itId = id("it");
  for (size_t a = 0; a < animals.size(); ++a)
    for (size_t p = 0; p < places.size(); ++p)
      for (size_t j = 0; j < adjs.size(); ++j) {
        // A fixed fifth of the (animal, place, adjective) triples is held out in every template, so the
        // held-out sentences are combinations never seen in training. The two lesson sentences are
        // always held out.
        const uint32_t h = static_cast<uint32_t>(a * 2654435761u) ^ static_cast<uint32_t>(p * 40503u) ^
                           static_cast<uint32_t>(j * 69069u + 12345u);
        const bool lesson =
            animals[a] == "animal" && places[p] == "street" && (adjs[j] == "tired" || adjs[j] == "wide");
        const bool heldOut = lesson || ((h * 2246822519u) >> 28) % 5 == 0;
        const bool aboutAnimal = j < animAdj.size();
        const int ida = id(animals[a]), idp = id(places[p]), idj = id(adjs[j]);
        for (const auto& tpl : tpls) {
          Example ex;
          ex.ids = tpl;
          int posA = -1, posP = -1;
          for (size_t i = 0; i < tpl.size(); ++i) {
            if (tpl[i] == -1)
              posA = static_cast<int>(i), ex.ids[i] = ida;
            else if (tpl[i] == -2)
              posP = static_cast<int>(i), ex.ids[i] = idp;
            else if (tpl[i] == -3)
              ex.ids[i] = idj;
            else if (tpl[i] == itId)
              ex.pointerFrom = static_cast<int>(i);
          }
          ex.pointerTo = aboutAnimal ? posA : posP;
          t.maxLen = std::max(t.maxLen, static_cast<int>(ex.ids.size()));
          (heldOut ? t.test : t.train).push_back(std::move(ex));
        }
      }
  // A fixed shuffle (the data set does not depend on the trainer's seed), so that any prefix of the
  // held-out set is a fair sample for evaluate(limit).
  Generator g(5);
  for (auto* set : {&t.train, &t.test})
    for (size_t i = set->size(); i > 1; --i) std::swap((*set)[i - 1], (*set)[g.random() % i]);
  return t;
}

// Reverse a sequence of 6 digits: output position i must copy input position 5 - i, which one
// attention layer can do by matching positions.
TaskData make_reverse() {
  TaskData t;
  t.name = "reverse";
  t.tokenizer = "digits";
  t.defaultLayers = 1;
  const int L = 6;
  t.maxLen = L;
  for (int d = 0; d < 10; ++d) t.vocab.push_back(std::to_string(d));
  t.classes = t.vocab;
  t.sample = "3 1 4 1 5 9";
  Generator g(20240501);  // the data set is fixed; the trainer's seed only drives init and batches
  std::set<std::vector<int>> seen;
  auto make = [&](std::vector<Example>& into, int count) {
    while (static_cast<int>(into.size()) < count) {
      Example ex;
      for (int i = 0; i < L; ++i) ex.ids.push_back(static_cast<int>(g.random() % 10));
      if (!seen.insert(ex.ids).second) continue;  // held-out sequences never appear in training
      for (int i = 0; i < L; ++i) ex.targets.push_back(ex.ids[L - 1 - i]);
      into.push_back(std::move(ex));
    }
  };
  make(t.train, 5000);
  make(t.test, 500);
  return t;
}

// Induction: random tokens holding a segment that appears twice, the second copy right after the first,
// after a prefix of random length. The offset between the copies varies with the segment's length and
// the segment's place with the prefix, so the second copy can only be continued by finding the earlier
// occurrence of the current token and reading the token after it (an induction head) — no fixed offset
// or position answers it. The segment's tokens are distinct and the prefix avoids them, so each copyable
// token has exactly one earlier occurrence; the rest of the sequence is uniform.
// The model starts with small token vectors (0.1 of nn.Embedding's scale) and full-size positions (1):
// then layer 1 learns the textbook previous-token head (attention from i to i − 1, a pattern of positions)
// and layer 2 the induction head reading it. With the reverse (tokens 1, positions 0.1, the other tasks'
// choice) or both at 1, layer 1 becomes a duplicate-token head instead (bench/induction_torch.py).
TaskData make_induction() {
  TaskData t;
  t.name = "induction";
  t.tokenizer = "word";
  t.defaultLayers = 2;
  t.defaultHeads = 2;
  t.causal = true;
  t.constantLr = true;
  t.embeddingInit = 0.1f;
  t.positionInit = 1.0f;
  t.maxLen = kInductionSeq;
  t.vocab = {"apple", "bell", "bird", "box",  "cat",  "door", "egg",  "fish", "game", "hat",   "ice",
             "jam",   "kite", "lamp", "leaf", "milk", "moon", "nest", "owl",  "pen",  "queen", "rain",
             "rock",  "ship", "star", "sun",  "tree", "urn",  "van",  "wolf", "yak",  "zoo"};
  t.classes = t.vocab;
  t.sample = "rain bird moon kite lamp sun owl tree kite lamp sun owl tree queen jam";
  const int V = static_cast<int>(t.vocab.size()), n = kInductionSeq;
  Generator g(20261201);  // the data set is fixed; the trainer's seed drives init and batches
  auto below = [&](int k) { return static_cast<int>(g.random() % static_cast<uint32_t>(k)); };
  std::set<std::vector<int>> seen;
  auto make = [&](std::vector<Example>& into, int count) {
    while (static_cast<int>(into.size()) < count) {
      Example ex;
      const int L = kInductionMinSegment + below(kInductionMaxSegment - kInductionMinSegment + 1);
      const int p = 1 + below(n - 2 * L);  // prefix length in [1, n - 2L]
      std::vector<int> pool(V);
      for (int k = 0; k < V; ++k) pool[k] = k;
      for (int k = 0; k < L; ++k) std::swap(pool[k], pool[k + below(V - k)]);  // the segment: L distinct tokens
      for (int i = 0; i < p; ++i) ex.ids.push_back(pool[L + below(V - L)]);
      for (int c = 0; c < 2; ++c) ex.ids.insert(ex.ids.end(), pool.begin(), pool.begin() + L);
      while (static_cast<int>(ex.ids.size()) < n) ex.ids.push_back(below(V));
      if (!seen.insert(ex.ids).second) continue;  // held-out sequences never appear in training
      ex.targets.assign(ex.ids.begin() + 1, ex.ids.end());
      ex.targets.push_back(-1);  // the last token has no next one
      ex.segStart = p;
      ex.segLen = L;
      into.push_back(std::move(ex));
    }
  };
  make(t.test, kInductionTest);
  make(t.train, kInductionTrain);
  return t;
}

bool copyable(const Example& ex, int i) {
  // position i predicts token i + 1: copyable from the second copy's first token to its second-last
  return ex.segLen > 0 && i >= ex.segStart + ex.segLen && i <= ex.segStart + 2 * ex.segLen - 2;
}

const char* const kDefaultNextCharText =
    "Attention lets every word look at every other word and decide how much each one matters. "
    "The query asks, the keys answer, and the values carry what is passed on. "
    "After training, the word it looks at the animal when the animal was tired, "
    "and at the street when the street was wide. "
    "Attention lets every word look at every other word and decide how much each one matters.";

// Predict each next character of a short text with causal attention over a window.
TaskData make_next_char(const std::string& textIn, int context) {
  const std::string text = textIn.empty() ? std::string(kDefaultNextCharText) : textIn;
  AP_REQUIRE(
      context >= 2 && context <= kMaxTrainSeq,
      "context: expected an integer in [2, " + std::to_string(kMaxTrainSeq) + "], got " + std::to_string(context));
  AP_REQUIRE(text.size() <= 1 << 16, "text: at most 65536 bytes for next-char, got " + std::to_string(text.size()));
  const std::vector<std::string> chars = utf8_chars(text);
  const int n = static_cast<int>(chars.size());
  const int testLen = std::max(context + 1, n / 10);
  AP_REQUIRE(n >= context + 1 + testLen, "text: next-char with context " + std::to_string(context) +
                                             " needs at least " + std::to_string(2 * (context + 1)) +
                                             " characters, got " + std::to_string(n));
  TaskData t;
  t.name = "next-char";
  t.tokenizer = "char";
  t.defaultLayers = 1;
  t.causal = true;
  t.maxLen = context;
  std::set<std::string> vocab(chars.begin(), chars.end());
  t.vocab.assign(vocab.begin(), vocab.end());
  t.classes = t.vocab;
  std::map<std::string, int> id;
  for (size_t i = 0; i < t.vocab.size(); ++i) id[t.vocab[i]] = static_cast<int>(i);
  // The last tenth of the text is held out: training windows end before it starts.
  const int cut = n - testLen;
  auto window = [&](int s) {
    Example ex;
    for (int i = 0; i < context; ++i) {
      ex.ids.push_back(id[chars[s + i]]);
      ex.targets.push_back(id[chars[s + i + 1]]);
    }
    return ex;
  };
  for (int s = 0; s + context + 1 <= cut; ++s) t.train.push_back(window(s));
  for (int s = cut; s + context + 1 <= n; ++s) t.test.push_back(window(s));
  for (int i = 0; i < context; ++i) t.sample += chars[i];
  return t;
}

}  // namespace train
}  // namespace ap
