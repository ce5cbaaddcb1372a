// ap::fmt (src/core/fmt.cpp, exact arithmetic without printf or strtod) against its definition written with the
// C library: snprintf("%.*g", p) at the smallest p whose text strtod reads back as the value (float: strtod, then
// the cast). glibc's printf and strtod are exact (round half to even on the exact binary value), as musl's are in
// the wasm engines. Special values, boundaries, every power of two, numbers people type, and random bit patterns.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "core/common.h"

namespace {

template <class T>
std::string reference(T v, int maxDigits) {
  char buf[64];
  for (int digits = 1; digits <= maxDigits; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(v));
    if (!std::isfinite(v) || static_cast<T>(std::strtod(buf, nullptr)) == v) break;
  }
  return buf;
}

float float_of(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
double double_of(std::uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// How many of the sampled values to check: `fallback`, or the environment's `name` (AP_FMT_TYPED, AP_FMT_RANDOM).
// The run under the sanitizers (scripts/test-sanitizers.sh) checks a tenth of these samples: the plain run has checked
// each one's text already, and what ASan and UBSan add (a bad access, an overflow) depends on the path through fmt.
// Every exponent and its neighbours still go through fmt there in full (the power tests above and below).
long count(const char* name, long fallback) {
  const char* env = std::getenv(name);
  return env ? std::atol(env) : fallback;
}

#define EXPECT_FLOAT_TEXT(v) EXPECT_EQ(ap::fmt(static_cast<float>(v)), reference(static_cast<float>(v), 9)) << (v)
#define EXPECT_DOUBLE_TEXT(v) EXPECT_EQ(ap::fmt(static_cast<double>(v)), reference(static_cast<double>(v), 17)) << (v)

TEST(Fmt, SpecialValuesAndWhatMessagesShow) {
  EXPECT_EQ(ap::fmt(0.1f), "0.1");
  EXPECT_EQ(ap::fmt(1e-7f), "1e-07");
  EXPECT_EQ(ap::fmt(1e-30), "1e-30");
  EXPECT_EQ(ap::fmt(100000.0f), "1e+05");
  EXPECT_EQ(ap::fmt(123456.0f), "123456");
  EXPECT_EQ(ap::fmt(1e9), "1e+09");
  EXPECT_EQ(ap::fmt(-2.5f), "-2.5");
  EXPECT_EQ(ap::fmt(0.0f), "0");
  EXPECT_EQ(ap::fmt(-0.0), "-0");
  EXPECT_EQ(ap::fmt(std::numeric_limits<float>::quiet_NaN()), "nan");
  EXPECT_EQ(ap::fmt(-std::numeric_limits<double>::quiet_NaN()), "-nan");
  EXPECT_EQ(ap::fmt(std::numeric_limits<float>::infinity()), "inf");
  EXPECT_EQ(ap::fmt(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(ap::fmt(4294967296.0), "4294967296");
  EXPECT_EQ(ap::fmt(9007199254740993.0), "9007199254740992");
  for (const float v : {0.0f,
                        -0.0f,
                        1.0f,
                        0.5f,
                        0.25f,
                        1.5f,
                        2.5f,
                        9.5f,
                        95.0f,
                        0.3f,
                        1.0f / 3,
                        2.0f / 3,
                        1e6f,
                        1e7f,
                        123456789.0f,
                        16777216.0f,
                        16777217.0f,
                        3.4028235e38f,
                        FLT_MIN,
                        FLT_TRUE_MIN,
                        FLT_EPSILON,
                        std::nextafter(FLT_MIN, 0.0f),
                        std::nextafter(1.0f, 2.0f),
                        std::nextafter(1.0f, 0.0f)}) {
    EXPECT_FLOAT_TEXT(v);
    EXPECT_FLOAT_TEXT(-v);
  }
  for (const double v : {1.0,
                         0.1,
                         0.2,
                         0.3,
                         1.0 / 3,
                         2.0 / 3,
                         1e15,
                         1e16,
                         1e17,
                         1e21,
                         1e22,
                         1e23,
                         5e-324,
                         2.2250738585072014e-308,
                         2.225073858507201e-308,
                         1.7976931348623157e308,
                         DBL_EPSILON,
                         0.1 + 0.2,
                         std::nextafter(1.0, 2.0),
                         std::nextafter(1.0, 0.0),
                         9007199254740993.0,
                         123456789012345678.0}) {
    EXPECT_DOUBLE_TEXT(v);
    EXPECT_DOUBLE_TEXT(-v);
  }
}

TEST(Fmt, EveryPowerOfTwoAndItsNeighbours) {
  for (int e = -149; e <= 127; ++e) {
    const float p = std::ldexp(1.0f, e);
    EXPECT_FLOAT_TEXT(p);
    EXPECT_FLOAT_TEXT(std::nextafter(p, 0.0f));
    EXPECT_FLOAT_TEXT(std::nextafter(p, std::numeric_limits<float>::infinity()));
  }
  for (int e = -1074; e <= 1023; ++e) {
    const double p = std::ldexp(1.0, e);
    EXPECT_DOUBLE_TEXT(p);
    EXPECT_DOUBLE_TEXT(std::nextafter(p, 0.0));
    EXPECT_DOUBLE_TEXT(std::nextafter(p, std::numeric_limits<double>::infinity()));
  }
}

TEST(Fmt, PowersOfTenAndNumbersPeopleType) {
  for (int e = -45; e <= 38; ++e) {
    const float p = std::strtof(("1e" + std::to_string(e)).c_str(), nullptr);
    EXPECT_FLOAT_TEXT(p);
    EXPECT_FLOAT_TEXT(std::nextafter(p, 0.0f));
    EXPECT_FLOAT_TEXT(std::nextafter(p, std::numeric_limits<float>::infinity()));
  }
  for (int e = -324; e <= 308; ++e) {
    const double p = std::strtod(("1e" + std::to_string(e)).c_str(), nullptr);
    EXPECT_DOUBLE_TEXT(p);
    EXPECT_DOUBLE_TEXT(std::nextafter(p, 0.0));
    EXPECT_DOUBLE_TEXT(std::nextafter(p, std::numeric_limits<double>::infinity()));
  }
  // short decimals with an exponent: what a learner types into a number box, read as float and double
  const long typed = count("AP_FMT_TYPED", 20000);
  std::mt19937_64 g(7);
  for (long i = 0; i < typed; ++i) {
    const std::string text = std::to_string(g() % 100000) + "e" + std::to_string(static_cast<int>(g() % 80) - 45);
    EXPECT_FLOAT_TEXT(std::strtof(text.c_str(), nullptr));
    EXPECT_DOUBLE_TEXT(std::strtod(text.c_str(), nullptr));
  }
}

TEST(Fmt, RandomBitPatterns) {
  const long n = count("AP_FMT_RANDOM", 50000);
  std::mt19937_64 g(38);
  long mismatches = 0;
  for (long i = 0; i < n; ++i) {
    const auto bits = static_cast<std::uint32_t>(g());
    const float f = float_of(bits);
    const double d = double_of(g());
    if (ap::fmt(f) != reference(f, 9) && ++mismatches <= 10) ADD_FAILURE() << "float bits 0x" << std::hex << bits;
    if (ap::fmt(d) != reference(d, 17) && ++mismatches <= 10) ADD_FAILURE() << "double " << reference(d, 17);
  }
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
