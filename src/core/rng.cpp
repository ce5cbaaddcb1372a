// See rng.h for which PyTorch code paths this mirrors and why each detail matters.
#include "core/rng.h"

#include <cmath>
#include <cstring>
#include <string>

// The Box–Muller block must round exactly where PyTorch's AVX2 code rounds (fused where GCC fused
// it, see madd); our compiler must not fuse anything else on its own.
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

namespace ap {
namespace {

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// The constants are float arrays initialised from double literals in PyTorch: convert the same way
// (decimal -> double -> float) instead of writing float literals, which could round differently.
constexpr float c(double v) { return static_cast<float>(v); }

// torch's AVX2 kernels are built by GCC with -mfma and its default -ffp-contract=fast, so every
// multiply whose only use is an add became one fused multiply-add. Found by comparing against
// real torch: with separate roundings ~3% of normal_/uniform_ values were off by one ulp.
inline float madd(float a, float b, float acc) { return std::fma(a, b, acc); }

// A scalar transcription of avx_mathfun.h's log256_ps (Cephes logf): one lane, same operation order.
float cephes_log(float x) {
  if (!(x > 0.f)) return std::nanf("");
  x = std::fmax(x, float_of(0x00800000u));  // no denormals, as the vector code
  uint32_t xb = bits_of(x);
  int32_t exponent = static_cast<int32_t>(xb >> 23);
  x = float_of((xb & ~0x7f800000u) | bits_of(0.5f));
  exponent -= 0x7f;
  float e = static_cast<float>(exponent);
  e = e + 1.0f;
  const bool small = x < c(0.707106781186547524);
  const float tmp0 = small ? x : 0.0f;
  x = x - 1.0f;
  e = e - (small ? 1.0f : 0.0f);
  x = x + tmp0;

  const float z = x * x;
  float y = c(7.0376836292E-2);
  y = madd(y, x, c(-1.1514610310E-1));
  y = madd(y, x, c(1.1676998740E-1));
  y = madd(y, x, c(-1.2420140846E-1));
  y = madd(y, x, c(+1.4249322787E-1));
  y = madd(y, x, c(-1.6668057665E-1));
  y = madd(y, x, c(+2.0000714765E-1));
  y = madd(y, x, c(-2.4999993993E-1));
  y = madd(y, x, c(+3.3333331174E-1));
  y = y * x;
  y = madd(y, z, e * c(-2.12194440e-4));
  y = madd(-z, 0.5f, y);
  x = x + y;
  x = madd(e, c(0.693359375), x);
  return x;
}

// A scalar transcription of avx_mathfun.h's sincos256_ps (Cephes sinf/cosf with 3-part reduction).
void cephes_sincos(float x, float* s, float* co) {
  uint32_t sign_sin = bits_of(x) & 0x80000000u;
  x = std::fabs(x);
  float y = x * c(1.27323954473516);
  int32_t j = static_cast<int32_t>(y);  // truncation, as cvttps
  j = (j + 1) & ~1;
  y = static_cast<float>(j);
  const uint32_t swap_sin = static_cast<uint32_t>(j & 4) << 29;
  const bool poly_cos = (j & 2) == 0;  // the first polynomial gives cos on this octant pair

  x = madd(y, c(-0.78515625), x);
  x = madd(y, c(-2.4187564849853515625e-4), x);
  x = madd(y, c(-3.77489497744594108e-8), x);

  const uint32_t sign_cos = (static_cast<uint32_t>(~(j - 2)) & 4u) << 29;
  sign_sin ^= swap_sin;

  const float z = x * x;
  float yc = c(2.443315711809948E-005);
  yc = madd(yc, z, c(-1.388731625493765E-003));
  yc = madd(yc, z, c(4.166664568298827E-002));
  yc = yc * z;
  yc = madd(yc, z, -(z * 0.5f));
  yc = yc + 1.0f;

  float ys = c(-1.9515295891E-4);
  ys = madd(ys, z, c(8.3321608736E-3));
  ys = madd(ys, z, c(-1.6666654611E-1));
  ys = ys * z;
  ys = madd(ys, x, x);

  // The vector code blends with masks and adds zeros; +0 additions keep the values as they are.
  const float sin_part = poly_cos ? ys : yc;
  const float cos_part = poly_cos ? yc : ys;
  *s = float_of(bits_of(0.0f + sin_part) ^ sign_sin);
  *co = float_of(bits_of(cos_part + 0.0f) ^ sign_cos);
}

// normal_fill_16_AVX2: 8 Box–Muller pairs (j, j + 8) over 16 uniforms in place.
void normal_fill_16(float* data, float mean, float std) {
  const float two_pi = static_cast<float>(2.0f * 3.14159265358979323846);
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - data[j];  // [0, 1) -> (0, 1] so the log is finite
    const float u2 = data[j + 8];
    const float radius = std::sqrt(-2.0f * cephes_log(u1));
    const float theta = two_pi * u2;
    float s, co;
    cephes_sincos(theta, &s, &co);
    const float n1 = radius * co;
    const float n2 = radius * s;
    data[j] = std::fma(n1, std, mean);  // _mm256_fmadd_ps
    data[j + 8] = std::fma(n2, std, mean);
  }
}

void check_count(const char* name, long long rows, long long cols) {
  AP_REQUIRE(rows >= 0 && cols >= 0, std::string(name) + ": sizes must be >= 0, got " + shape_str({rows, cols}));
  AP_REQUIRE(rows * cols <= kMaxMatrix, std::string(name) + ": " + shape_str({rows, cols}) + " has " +
                                            std::to_string(rows * cols) + " elements, the limit is " +
                                            std::to_string(kMaxMatrix));
}

}  // namespace

Generator::Generator(uint64_t seed) { manual_seed(seed); }

void Generator::manual_seed(uint64_t seed) {
  seed_ = seed;
  // at::mt19937 keeps only the low 32 bits as its state seed; its recurrence is std::mt19937's.
  engine_.seed(static_cast<std::mt19937::result_type>(seed & 0xffffffffULL));
  has_next_double_normal_ = false;
}

uint32_t Generator::random() { return static_cast<uint32_t>(engine_()); }

uint64_t Generator::random64() {
  const uint64_t hi = random();
  const uint64_t lo = random();
  return (hi << 32) | lo;
}

float Generator::uniform_float(float from, float to) {
  const float x = static_cast<float>(random() & ((1u << 24) - 1)) * (1.0f / (1u << 24));
  // x * (to - from) + from: GCC contracts it to one fused multiply-add in torch's AVX2 build.
  return madd(x, to - from, from);
}

double Generator::rand_double() {
  const uint64_t mask = (uint64_t{1} << 53) - 1;
  return static_cast<double>(random64() & mask) * (1.0 / static_cast<double>(uint64_t{1} << 53));
}

double Generator::normal_double(double mean, double std) {
  if (has_next_double_normal_) {
    has_next_double_normal_ = false;
    return std::fma(next_double_normal_, std, mean);  // fused as in torch's build, see madd
  }
  const double u1 = rand_double();
  const double u2 = rand_double();
  const double r = std::sqrt(-2.0 * std::log(1.0 - u2));
  const double theta = 2.0 * 3.14159265358979323846 * u1;
  next_double_normal_ = r * std::sin(theta);
  has_next_double_normal_ = true;
  return std::fma(r * std::cos(theta), std, mean);
}

void Generator::rand(float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = uniform_float(0.0f, 1.0f);
}

void Generator::uniform_(float* out, std::size_t n, float from, float to) {
  AP_REQUIRE(std::isfinite(from) && std::isfinite(to) && from <= to,
             "uniform_: expected finite from <= to, got from = " + fmt(from) + ", to = " + fmt(to));
  for (std::size_t i = 0; i < n; ++i) out[i] = uniform_float(from, to);
}

void Generator::normal_(float* out, std::size_t n, float mean, float std) {
  AP_REQUIRE(std::isfinite(mean) && std::isfinite(std) && std >= 0.0f,
             "normal_: expected finite mean and std >= 0, got mean = " + fmt(mean) + ", std = " + fmt(std));
  if (n >= 16) {
    rand(out, n);
    for (std::size_t i = 0; i + 16 <= n; i += 16) normal_fill_16(out + i, mean, std);
    if (n % 16 != 0) {
      float* tail = out + n - 16;
      rand(tail, 16);
      normal_fill_16(tail, mean, std);
    }
    return;
  }
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = static_cast<float>(normal_double(mean, std));
  }
}

Mat Generator::rand(int rows, int cols) {
  check_count("rand", rows, cols);
  Mat m(rows, cols);
  rand(m.data(), static_cast<std::size_t>(m.size()));
  return m;
}

Mat Generator::randn(int rows, int cols) {
  check_count("randn", rows, cols);
  Mat m(rows, cols);
  normal_(m.data(), static_cast<std::size_t>(m.size()));
  return m;
}

Mat Generator::embedding(int num, int dim) {
  AP_REQUIRE(num >= 1 && dim >= 1,
             "embedding: num_embeddings and embedding_dim must be >= 1, got " + shape_str({num, dim}));
  check_count("embedding", num, dim);
  return randn(num, dim);
}

void Generator::linear(int out, int in, Mat& W, Vec* b) {
  AP_REQUIRE(out >= 1 && in >= 1,
             "linear: in_features and out_features must be >= 1, got [out, in] = " + shape_str({out, in}));
  check_count("linear", out, in);
  // kaiming_uniform_(a = sqrt(5)) computed as torch.nn.init does, in double, step by step.
  const double a = std::sqrt(5.0);
  const double gain = std::sqrt(2.0 / (1.0 + std::pow(a, 2.0)));
  const double wstd = gain / std::sqrt(static_cast<double>(in));
  const double wbound = std::sqrt(3.0) * wstd;
  W.resize(out, in);
  uniform_(W.data(), static_cast<std::size_t>(W.size()), static_cast<float>(-wbound), static_cast<float>(wbound));
  if (b != nullptr) {
    const double bbound = 1.0 / std::sqrt(static_cast<double>(in));
    b->resize(out);
    uniform_(b->data(), static_cast<std::size_t>(out), static_cast<float>(-bbound), static_cast<float>(bbound));
  }
}

}  // namespace ap
