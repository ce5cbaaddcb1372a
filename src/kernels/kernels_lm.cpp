// The language model's row-wise steps that have no SIMD twin: LayerNorm and its backward pass (scalar, the statistics
// summed in double, so every engine computes the same bits), plain loops over raw pointers (in src/core, through
// Eigen's element accessors at -Os, each access was a call, and a call through JS where it may throw). Built for size:
// O(rows·C) beside the products' O(rows·C²), and in the page's engine.
#include <cmath>

#include "kernels.h"
#include "kernels_driver.h"

namespace ap::kernels {

AP_COLD void layer_norm(const float* X, int rows, int C, const float* w, const float* b, float* Y, float* mean,
                        float* rstd) noexcept {
  for (int r = 0; r < rows; ++r) {
    const float* x = X + static_cast<long long>(r) * C;
    double s = 0;
    for (int c = 0; c < C; ++c) s += x[c];
    const double mu = s / C;
    double v = 0;
    for (int c = 0; c < C; ++c) v += (x[c] - mu) * (x[c] - mu);
    const double rs = 1.0 / std::sqrt(v / C + 1e-5);
    mean[r] = static_cast<float>(mu);
    rstd[r] = static_cast<float>(rs);
    float* y = Y + static_cast<long long>(r) * C;
    for (int c = 0; c < C; ++c) {
      const auto xh = static_cast<float>((x[c] - mu) * rs);
      y[c] = xh * w[c] + (b ? b[c] : 0.f);
    }
  }
}

AP_COLD void layer_norm_backward(const float* X, const float* dY, int rows, int C, const float* w, const float* mean,
                                 const float* rstd, float* dX, float* dw, float* db) noexcept {
  for (int r = 0; r < rows; ++r) {
    const float* x = X + static_cast<long long>(r) * C;
    const float* dy = dY + static_cast<long long>(r) * C;
    float* dx = dX + static_cast<long long>(r) * C;
    const float mu = mean[r], rs = rstd[r];
    double s1 = 0, s2 = 0;
    for (int c = 0; c < C; ++c) {
      const float xh = (x[c] - mu) * rs;
      const float g = dy[c] * w[c];
      dw[c] += dy[c] * xh;
      s1 += g;
      s2 += static_cast<double>(g) * xh;
    }
    const auto m1 = static_cast<float>(s1 / C), m2 = static_cast<float>(s2 / C);
    for (int c = 0; c < C; ++c) {
      const float xh = (x[c] - mu) * rs;
      dx[c] = rs * (dy[c] * w[c] - m1 - xh * m2);
    }
  }
  if (db)
    for (int r = 0; r < rows; ++r) {
      const float* dy = dY + static_cast<long long>(r) * C;
      for (int c = 0; c < C; ++c) db[c] += dy[c];
    }
}

}  // namespace ap::kernels
