// Shared types, errors and limits of the attention engine.
#pragma once

// The wasm engines build the kernels at -O3 and everything else at -Os; Eigen must be instantiated at one
// level only, so no kernel source may include it (cmake/Toolchain.cmake).
#ifdef AP_KERNEL_SOURCE
#error "src/kernels must not include Eigen (via core/common.h): see cmake/Toolchain.cmake"
#endif
#include <Eigen/Core>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace ap {

using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vec = Eigen::VectorXf;

// Every bad input throws this; the message names the argument and the shapes or values.
struct Error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Documented limits (README "Limits"): past them a clear Error, never an out-of-memory abort.
constexpr int kMaxTokens = 4096;                       // tokens in one text for run()
constexpr int kMaxDim = 4096;                          // dModel, dq, dk, dv, hidden sizes
constexpr long long kMaxMatrix = 1LL << 26;            // elements of one materialized score matrix (256 MiB)
constexpr int kMaxSeq = 65536;                         // rows of Q/K/V for attention() without weights
constexpr std::size_t kMaxTextBytes = 1 << 20;         // 1 MiB of UTF-8
constexpr long long kMaxAdditiveWork = 1LL << 27;      // nq·nk·h tanh evaluations of one additive call (~1 s)
constexpr long long kMaxFlashTraceFloats = 1LL << 24;  // m, l and O recorded by one flash_trace (64 MiB)
constexpr long long kMaxInts = 1LL << 24;              // one array of integers from JS: ids, positions (64 MiB)

// The formatting helpers of every error message: numbers and shapes.

// A number as people write it, in the fewest digits that read back as the same value: 0.1f gives
// "0.1", 1e-30 "1e-30", NaN "nan" — not std::to_string's "0.000000" or float's "0.100000001". Exactly the
// text of snprintf("%.*g") at the smallest precision (up to 9 for a float, 17 for a double) that strtod reads
// back as v, computed without printf and strtod (src/core/fmt.cpp: they cost the wasm engines 12 KB gzipped).
std::string fmt(float v);
std::string fmt(double v);

// "[2, 3]"
inline std::string shape_str(const std::vector<long long>& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}
inline std::string shape_str(std::initializer_list<long long> dims) { return shape_str(std::vector<long long>(dims)); }

inline std::string shape_str(const Mat& m) { return shape_str({m.rows(), m.cols()}); }

// Throws Error(message). Out of line, so that each check costs a call rather than its own copy of the exception's
// allocation, construction and clean-up code: with Emscripten's JS exceptions that copy is large, and the page
// engine holds hundreds of checks.
[[noreturn]] __attribute__((noinline)) inline void fail(const std::string& message) { throw Error(message); }

// Throws ap::Error(message) when `ok` is false. A macro so that the message — often several string
// concatenations — is only built on failure: validation runs on every call and must cost nothing when
// the input is good.
#define AP_REQUIRE(ok, message)     \
  do {                              \
    if (!(ok)) ::ap::fail(message); \
  } while (false)

// Whether every value is finite: the exponent bits (all ones = inf or NaN) with an integer OR-reduction, which
// compilers vectorize even at -Os (Eigen's allFinite() there was ~20 % of a fused attention call at n = 512).
inline bool all_finite(const float* p, std::size_t n) {
  std::uint32_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, p + i, sizeof bits);
    bad |= static_cast<std::uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
  }
  return bad == 0;
}
inline bool all_finite(const Mat& m) { return all_finite(m.data(), static_cast<std::size_t>(m.size())); }

// Throws naming the argument and the first offending index and value; only a failing input pays for finding the
// index.
inline void check_finite(const std::string& name, const float* p, std::size_t n) {
  if (all_finite(p, n)) return;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(p[i])) {
      throw Error(name + ": every value must be finite, got " + fmt(p[i]) + " at index " + std::to_string(i));
    }
  }
}

inline void check_finite(const std::string& name, const Mat& m) {
  check_finite(name, m.data(), static_cast<std::size_t>(m.size()));
}

// For results computed from finite inputs: a non-finite value means float32 overflowed on the way.
// `what` names the argument and the quantity, e.g. "value: the output overflows".
inline Error overflow_error(const std::string& what) {
  return Error(what + " float32 (a value beyond ±3.4e38); scale the inputs down");
}

inline void check_no_overflow(const std::string& what, const Mat& m) {
  if (!m.allFinite()) throw overflow_error(what);
}

}  // namespace ap
