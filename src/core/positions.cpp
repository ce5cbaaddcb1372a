#include "core/positions.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>

#include "core/enum_names.h"

namespace ap {

Positions parse_positions(const std::string& name) {
  static constexpr std::array kEncodings{Positions::None, Positions::Sinusoidal, Positions::Learned, Positions::Rope,
                                         Positions::Alibi};
  return parse_enum_name(name, kEncodings, positions_name, "positions", "encoding");
}

const char* positions_name(Positions p) {
  switch (p) {
    case Positions::None: return "none";
    case Positions::Sinusoidal: return "sinusoidal";
    case Positions::Learned: return "learned";
    case Positions::Rope: return "rope";
    case Positions::Alibi: return "alibi";
  }
  return "?";
}

Mat sinusoidal_table(int n, int d) {
  Mat P(n, d);
  for (int pos = 0; pos < n; ++pos)
    for (int c = 0; c < d; ++c) {
      const int i2 = c - c % 2;  // 2i
      const double angle = pos / std::pow(10000.0, static_cast<double>(i2) / d);
      P(pos, c) = static_cast<float>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  return P;
}

std::vector<float> rope_inv_freq(int d, float base) {
  std::vector<float> inv(static_cast<std::size_t>(d / 2));
  for (int i = 0; i < d / 2; ++i) {
    const float e = static_cast<float>(2 * i) / static_cast<float>(d);
    inv[static_cast<std::size_t>(i)] = 1.f / std::pow(base, e);
  }
  return inv;
}

Mat rope_rotate(const Mat& X, const std::vector<int>& positions, float base, bool inverse) {
  const int n = static_cast<int>(X.rows()), d = static_cast<int>(X.cols()), half = d / 2;
  const std::vector<float> inv = rope_inv_freq(d, base);
  Mat R(n, d);
  for (int r = 0; r < n; ++r) {
    const float m = static_cast<float>(positions.empty() ? r : positions[static_cast<std::size_t>(r)]);
    for (int i = 0; i < half; ++i) {
      const float angle = m * inv[static_cast<std::size_t>(i)];
      const float c = std::cos(angle), s = inverse ? -std::sin(angle) : std::sin(angle);
      const float a = X(r, i), b = X(r, i + half);
      // q·cos + rotate_half(q)·sin, rotate_half(q) = cat(-q2, q1)
      R(r, i) = a * c - b * s;
      R(r, i + half) = b * c + a * s;
    }
  }
  return R;
}

namespace {

void check_positions(const std::string& name, const std::vector<int>& p, long long n) {
  if (p.empty()) return;
  AP_REQUIRE(static_cast<long long>(p.size()) == n,
             name + ": expected " + std::to_string(n) + " positions (one per row), got " + std::to_string(p.size()));
  for (std::size_t i = 0; i < p.size(); ++i)
    AP_REQUIRE(p[i] >= 0 && p[i] <= kMaxPosition, name + "[" + std::to_string(i) + "]: must be an integer from 0 to " +
                                                      std::to_string(kMaxPosition) + ", got " + std::to_string(p[i]));
}

}  // namespace

void validate_rope(const RopeOptions& rope, long long nq, long long dq, long long nk, long long dk) {
  if (!rope.enabled) return;
  AP_REQUIRE(std::isfinite(rope.base) && rope.base >= 1.f && rope.base <= 1e9f,
             "rope.base: must be a number from 1 to 1e9, got " + fmt(rope.base));
  AP_REQUIRE(dq == dk, "rope: rotates query and key alike, so it needs dq = dk, got query [" + std::to_string(nq) +
                           ", " + std::to_string(dq) + "] and key [" + std::to_string(nk) + ", " + std::to_string(dk) +
                           "]");
  AP_REQUIRE(dq % 2 == 0, "rope: pairs dimension i with i + d/2, so it needs an even d, got d = " + std::to_string(dq));
  check_positions("rope.queryPositions", rope.queryPositions, nq);
  check_positions("rope.keyPositions", rope.keyPositions, nk);
}

std::vector<float> alibi_slopes(int heads) {
  int closest = 1;
  while (closest * 2 <= heads) closest *= 2;
  // As BLOOM: a float32 base 2^(-8 / closest) raised to 1..closest; then every other power of 2^(-8 / (2·closest)).
  const float base = static_cast<float>(std::pow(2.0, -8.0 / closest));
  std::vector<float> s;
  for (int k = 1; k <= closest; ++k) s.push_back(std::pow(base, static_cast<float>(k)));
  const float extra = static_cast<float>(std::pow(2.0, -8.0 / (2 * closest)));
  const int remaining = std::min(closest, heads - closest);
  for (int k = 0; k < remaining; ++k) s.push_back(std::pow(extra, static_cast<float>(2 * k + 1)));
  return s;
}

Mat alibi_bias(int nq, int nk, float slope) {
  Mat B(nq, nk);
  for (int i = 0; i < nq; ++i)
    for (int j = 0; j < nk; ++j) B(i, j) = -slope * static_cast<float>(std::abs(i - j));
  return B;
}

}  // namespace ap
