// PyTorch's CPU random generator, reproduced bit for bit so that a seed gives the learner the very
// numbers the course's PyTorch program prints.
//
// Reference: PyTorch 1.13 (CPUGeneratorImpl, MT19937RNGEngine.h, TransformationHelper.h,
// DistributionsHelper.h, native/cpu/DistributionKernels.cpp, native/cpu/avx_mathfun.h), as run
// on an x86-64 machine with AVX2 — the common case, and the one our fixtures come from.
//
// What makes it bit-exact (each checked against real torch in tests/fixtures/gen_rng.py):
// - mt19937 seeded with the low 32 bits of the 64-bit seed (torch keeps the full seed for
//   initial_seed() but the engine only uses the low word).
// - float uniform: low 24 bits of one 32-bit draw times 2^-24, then x * (to - from) + from in float
//   as ONE fused multiply-add: torch's AVX2 kernels are compiled by GCC with -mfma, which contracts
//   a multiply feeding an add (the log/sincos polynomials below too). Unfused, ~3% of uniform_ and
//   normal_ values came out one ulp off.
// - double uniform (scalar normal path): random64() = (first draw << 32) | second draw, low 53 bits.
// - normal_ on n >= 16 floats: fill all n with uniforms, Box–Muller over blocks of 16 (pairs j, j+8,
//   u1 = 1 - data[j]) using the Cephes-style vector log/sincos of avx_mathfun.h (not libm: libm's
//   last bit differs), final n1 * std + mean as a fused multiply-add; when n % 16 != 0 the LAST 16
//   are overwritten with fresh uniforms and transformed again.
// - normal_ on n < 16: per element a double Box–Muller pair from two random64 uniforms; the second
//   value of a pair is cached in the generator and used by the next scalar normal draw, across
//   calls, until manual_seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>

#include "core/common.h"

namespace ap {

class Generator {
 public:
  static constexpr uint64_t kDefaultSeed = 67280421310721ULL;  // torch's default_rng_seed_val

  explicit Generator(uint64_t seed = kDefaultSeed);
  void manual_seed(uint64_t seed);
  uint64_t initial_seed() const { return seed_; }

  uint32_t random();    // next 32 bits of mt19937
  uint64_t random64();  // two draws, first one high

  void rand(float* out, std::size_t n);                                        // torch.rand
  void uniform_(float* out, std::size_t n, float from, float to);              // Tensor.uniform_
  void normal_(float* out, std::size_t n, float mean = 0.f, float std = 1.f);  // torch.randn / normal_
  double rand_double();  // one element of torch.rand(..., dtype=float64)

  Mat rand(int rows, int cols);
  Mat randn(int rows, int cols);
  Mat embedding(int num, int dim);               // nn.Embedding(num, dim).weight
  void linear(int out, int in, Mat& W, Vec* b);  // nn.Linear(in, out): W [out, in], then bias if b

 private:
  float uniform_float(float from, float to);
  double normal_double(double mean, double std);  // the scalar path, with torch's pair cache

  std::mt19937 engine_;
  uint64_t seed_ = kDefaultSeed;
  bool has_next_double_normal_ = false;
  double next_double_normal_ = 0.0;
};

}  // namespace ap
