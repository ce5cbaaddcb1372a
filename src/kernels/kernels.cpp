// Placeholder scalar kernels; the SIMD128 versions replace these (issue 6).
#include "kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ap::kernels {

void qkt(const float* Q, const float* K, float* S, int nq, int nk, int d, float alpha) noexcept {
  for (int i = 0; i < nq; ++i)
    for (int j = 0; j < nk; ++j) {
      float acc = 0.f;
      for (int t = 0; t < d; ++t) acc += Q[i * d + t] * K[j * d + t];
      S[i * nk + j] = alpha * acc;
    }
}

void softmax_rows(float* S, int nq, int nk, float invTemp) noexcept {
  for (int i = 0; i < nq; ++i) {
    float* r = S + static_cast<long long>(i) * nk;
    float m = -std::numeric_limits<float>::infinity();
    for (int j = 0; j < nk; ++j) m = std::max(m, r[j]);
    if (m == -std::numeric_limits<float>::infinity()) {
      std::fill(r, r + nk, 0.f);
      continue;
    }
    float sum = 0.f;
    for (int j = 0; j < nk; ++j) {
      r[j] = std::exp((r[j] - m) * invTemp);
      sum += r[j];
    }
    for (int j = 0; j < nk; ++j) r[j] /= sum;
  }
}

void weights_v(const float* W, const float* V, float* O, int nq, int nk, int dv) noexcept {
  for (int i = 0; i < nq; ++i) {
    float* o = O + static_cast<long long>(i) * dv;
    std::fill(o, o + dv, 0.f);
    for (int j = 0; j < nk; ++j) {
      const float w = W[static_cast<long long>(i) * nk + j];
      if (w == 0.f) continue;
      for (int t = 0; t < dv; ++t) o[t] += w * V[static_cast<long long>(j) * dv + t];
    }
  }
}

long long flash_workspace_floats(int, int nk, int, int) noexcept { return nk; }

void flash_attention(const float* Q, const float* K, const float* V, float* O, int nq, int nk, int d,
                     int dv, float alpha, float invTemp, bool causal, float* workspace) noexcept {
  for (int i = 0; i < nq; ++i) {
    const int kEnd = causal ? std::min(nk, i + 1) : nk;
    qkt(Q + static_cast<long long>(i) * d, K, workspace, 1, kEnd, d, alpha);
    for (int j = kEnd; j < nk; ++j) workspace[j] = -std::numeric_limits<float>::infinity();
    softmax_rows(workspace, 1, nk, invTemp);
    weights_v(workspace, V, O + static_cast<long long>(i) * dv, 1, nk, dv);
  }
}

const char* backend() noexcept { return "scalar"; }

}  // namespace ap::kernels
