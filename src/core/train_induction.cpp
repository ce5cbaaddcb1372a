// The induction task's measures: accuracy split into copyable and other tokens, and each head's
// previous-token and induction scores.
#include <algorithm>

#include "core/train.h"

namespace ap {
namespace train {

namespace {

int argmax(const Mat& z, int row) {
  int best = 0;
  for (int j = 1; j < z.cols(); ++j)
    if (z(row, j) > z(row, best)) best = j;
  return best;
}

}  // namespace

Score copy_score(const Model& model, const std::vector<Example>& examples) {
  Score s = model.loss(examples, nullptr);
  long copyRight = 0, copyTerms = 0, restRight = 0, restTerms = 0;
  for (const Example& ex : examples) {
    const Mat z = model.logits(ex.ids);
    for (int i = 0; i < static_cast<int>(ex.targets.size()) && i < z.rows(); ++i) {
      if (ex.targets[i] < 0) continue;
      const bool right = argmax(z, i) == ex.targets[i];
      if (copyable(ex, i)) {
        copyRight += right;
        ++copyTerms;
      } else {
        restRight += right;
        ++restTerms;
      }
    }
  }
  s.accuracy = copyTerms ? static_cast<double>(copyRight) / static_cast<double>(copyTerms) : 0.0;
  s.restAccuracy = restTerms ? static_cast<double>(restRight) / static_cast<double>(restTerms) : 0.0;
  return s;
}

HeadScores head_scores(const Model& model, const std::vector<Example>& examples) {
  const ModelConfig& c = model.config();
  HeadScores r;
  r.previousToken.assign(c.layers, std::vector<double>(c.heads, 0.0));
  r.induction.assign(c.layers, std::vector<double>(c.heads, 0.0));
  r.duplicateToken.assign(c.layers, std::vector<double>(c.heads, 0.0));
  long prevTerms = 0, indTerms = 0;
  for (const Example& ex : examples) {
    if (ex.segLen <= 0) continue;
    const std::vector<LayerTrace> t = model.trace(ex.ids);
    const int n = static_cast<int>(ex.ids.size());
    const int second = ex.segStart + ex.segLen;
    for (int l = 0; l < c.layers; ++l)
      for (int h = 0; h < c.heads; ++h) {
        const Mat& w = t[l].weights[h];
        for (int i = 1; i < n; ++i) r.previousToken[l][h] += w(i, i - 1);
        // token i of the second copy occurred at i − segLen; the token after that is at i − segLen + 1
        for (int i = second; i < second + ex.segLen && i < n; ++i) {
          r.induction[l][h] += w(i, i - ex.segLen + 1);
          r.duplicateToken[l][h] += w(i, i - ex.segLen);
        }
      }
    prevTerms += n - 1;
    indTerms += std::min(ex.segLen, n - second);
  }
  for (int l = 0; l < c.layers; ++l)
    for (int h = 0; h < c.heads; ++h) {
      if (prevTerms) r.previousToken[l][h] /= static_cast<double>(prevTerms);
      if (indTerms) r.induction[l][h] /= static_cast<double>(indTerms);
      if (indTerms) r.duplicateToken[l][h] /= static_cast<double>(indTerms);
    }
  return r;
}

}  // namespace train
}  // namespace ap
