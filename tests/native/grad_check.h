// Central finite differences of a trainable model's loss against its backward pass, parameter by parameter
// (test_train.cpp, test_train_positions.cpp).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/train.h"

namespace ap::train::testing {

inline std::vector<Example> small_batch() {
  // Lengths 5 and 4 (< maxLen 6) exercise the concat rule's unused rows; head targets on some
  // positions, a pointer on the first example.
  Example a;
  a.ids = {1, 4, 2, 6, 0};
  a.targets = {3, -1, 0, 4, 1};
  a.pointerFrom = 3;
  a.pointerTo = 1;
  Example b;
  b.ids = {5, 5, 3, 2};
  b.targets = {-1, 2, -1, 0};
  return {a, b};
}

inline void expect_matches_finite_differences(Model& m, const std::vector<Example>& batch) {
  std::vector<Mat> grads;
  m.loss(batch, &grads);
  ASSERT_EQ(grads.size(), m.params().size());
  const float eps = 2e-3f;
  for (size_t k = 0; k < m.params().size(); ++k) {
    Param& p = m.params()[k];
    Mat fd(p.value.rows(), p.value.cols());
    for (int i = 0; i < p.value.size(); ++i) {
      float& x = p.value.data()[i];
      const float x0 = x;
      x = x0 + eps;
      const double up = m.loss(batch, nullptr).loss;
      x = x0 - eps;
      const double down = m.loss(batch, nullptr).loss;
      x = x0;
      fd.data()[i] = static_cast<float>((up - down) / (2 * eps));
    }
    // Float central differences carry ~1e-5 of rounding noise (loss ~2, eps 2e-3), so each element
    // gets that floor plus 1 % of its size; a missing or wrong backward term is far larger.
    int bad = 0;
    for (int i = 0; i < fd.size(); ++i) {
      const float a = grads[k].data()[i], n = fd.data()[i];
      if (std::abs(a - n) > 3e-5f + 1e-2f * std::abs(n)) ++bad;
    }
    EXPECT_EQ(bad, 0) << p.name << "\nanalytic\n" << grads[k] << "\nnumeric\n" << fd;
    // and the tensor as a whole: the gradient's direction and size
    EXPECT_LT((fd - grads[k]).norm(), 2e-2f * fd.norm() + 3e-5f * std::sqrt(static_cast<float>(fd.size()))) << p.name;
  }
}

}  // namespace ap::train::testing
