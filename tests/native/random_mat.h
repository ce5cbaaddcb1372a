// A matrix of normal draws N(0, scale²) from a seeded std::mt19937, for the native tests' inputs.
#pragma once

#include <random>

#include "core/common.h"

namespace ap::testing {

inline Mat random_mat(int r, int c, unsigned seed, float scale = 1.f) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d(0.f, scale);
  Mat m(r, c);
  for (int i = 0; i < m.size(); ++i) m.data()[i] = d(g);
  return m;
}

}  // namespace ap::testing
