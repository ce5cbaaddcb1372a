// fmt(float) / fmt(double): the text of every number in an error message, without the C library's printf and
// strtod (issue 38 item 4: they were 12 KB of the page's gzipped engine, for error messages only). The result is
// the one `snprintf("%.*g", p)` gives for the smallest p whose text `strtod` reads back as the same value (for a
// float: strtod, then the cast to float), byte for byte; tests/native/test_fmt.cpp compares the two on millions
// of values. Exact arithmetic on small big integers: cold code, only ever run to build a message.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/common.h"

namespace ap {
namespace {

// A non-negative integer in base 2^32, least significant limb first, no leading zero limbs.
struct Big {
  std::vector<std::uint32_t> limb;

  explicit Big(std::uint64_t v = 0) {
    for (; v; v >>= 32) limb.push_back(static_cast<std::uint32_t>(v));
  }
  void mul_add(std::uint32_t m, std::uint32_t add = 0) {
    std::uint64_t carry = add;
    for (auto& l : limb) {
      carry += static_cast<std::uint64_t>(l) * m;
      l = static_cast<std::uint32_t>(carry);
      carry >>= 32;
    }
    if (carry) limb.push_back(static_cast<std::uint32_t>(carry));
  }
  // this = this · 5^n
  void mul_pow5(int n) {
    for (; n >= 13; n -= 13) mul_add(1220703125u);  // 5^13
    std::uint32_t m = 1;
    while (n-- > 0) m *= 5;
    mul_add(m);
  }
  // this = this · 10^n
  void mul_pow10(int n) {
    for (; n >= 9; n -= 9) mul_add(1000000000u);
    std::uint32_t m = 1;
    while (n-- > 0) m *= 10;
    mul_add(m);
  }
  // this = this / m, returning the remainder
  std::uint32_t div_small(std::uint32_t m) {
    std::uint64_t rem = 0;
    for (std::size_t i = limb.size(); i-- > 0;) {
      const std::uint64_t cur = (rem << 32) | limb[i];
      limb[i] = static_cast<std::uint32_t>(cur / m);
      rem = cur % m;
    }
    while (!limb.empty() && limb.back() == 0) limb.pop_back();
    return static_cast<std::uint32_t>(rem);
  }
  void shl(int bits) {
    if (limb.empty() || bits <= 0) return;
    const int words = bits / 32, b = bits % 32;
    if (b) {
      std::uint32_t carry = 0;
      for (auto& l : limb) {
        const std::uint32_t next = l >> (32 - b);
        l = (l << b) | carry;
        carry = next;
      }
      if (carry) limb.push_back(carry);
    }
    limb.insert(limb.begin(), static_cast<std::size_t>(words), 0u);
  }
  int bits() const {
    if (limb.empty()) return 0;
    int b = 32 * static_cast<int>(limb.size() - 1);
    for (std::uint32_t top = limb.back(); top; top >>= 1) ++b;
    return b;
  }
  bool bit(int i) const {
    const auto w = static_cast<std::size_t>(i / 32);
    return w < limb.size() && ((limb[w] >> (i % 32)) & 1u);
  }
  // bits [from, from + 64) as an integer
  std::uint64_t bits_from(int from) const {
    std::uint64_t v = 0;
    for (int i = 63; i >= 0; --i) v = (v << 1) | (bit(from + i) ? 1u : 0u);
    return v;
  }
  // any bit below `below` set?
  bool any_below(int below) const {
    for (int i = 0; i < below; ++i)
      if (bit(i)) return true;
    return false;
  }
  int cmp(const Big& o) const {
    if (limb.size() != o.limb.size()) return limb.size() < o.limb.size() ? -1 : 1;
    for (std::size_t i = limb.size(); i-- > 0;)
      if (limb[i] != o.limb[i]) return limb[i] < o.limb[i] ? -1 : 1;
    return 0;
  }
  // this -= o (this >= o)
  void sub(const Big& o) {
    std::int64_t borrow = 0;
    for (std::size_t i = 0; i < limb.size(); ++i) {
      std::int64_t cur = static_cast<std::int64_t>(limb[i]) - borrow - (i < o.limb.size() ? o.limb[i] : 0);
      borrow = cur < 0;
      if (cur < 0) cur += std::int64_t{1} << 32;
      limb[i] = static_cast<std::uint32_t>(cur);
    }
    while (!limb.empty() && limb.back() == 0) limb.pop_back();
  }
  std::string decimal() const {
    Big t = *this;
    std::string s;
    while (!t.limb.empty()) {
      std::uint32_t chunk = t.div_small(1000000000u);
      for (int k = 0; k < 9; ++k, chunk /= 10) s.insert(s.begin(), static_cast<char>('0' + chunk % 10));
    }
    const auto first = s.find_first_not_of('0');
    return first == std::string::npos ? "0" : s.substr(first);
  }
};

// A finite x > 0 exactly as decimal digits: x = 0.<digits> · 10^point, no trailing zeros.
struct Decimal {
  std::string digits;
  int point = 0;
};

Decimal exact_decimal(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  const int biased = static_cast<int>((b >> 52) & 0x7ff);
  std::uint64_t m = b & ((std::uint64_t{1} << 52) - 1);
  int e = -1074;
  if (biased) {
    m |= std::uint64_t{1} << 52;
    e = biased - 1075;
  }
  Big n(m);
  Decimal d;
  if (e >= 0) {
    n.shl(e);
    d.digits = n.decimal();
    d.point = static_cast<int>(d.digits.size());
  } else {  // m / 2^-e = m · 5^-e / 10^-e
    n.mul_pow5(-e);
    d.digits = n.decimal();
    d.point = static_cast<int>(d.digits.size()) + e;
  }
  d.digits.erase(d.digits.find_last_not_of('0') + 1);
  return d;
}

// x rounded to p significant digits, ties to even (what printf does with the exact value).
Decimal round_to(const Decimal& x, int p) {
  if (static_cast<int>(x.digits.size()) <= p) return x;
  Decimal r{x.digits.substr(0, static_cast<std::size_t>(p)), x.point};
  const char next = x.digits[static_cast<std::size_t>(p)];
  const bool rest = x.digits.size() > static_cast<std::size_t>(p) + 1;  // no trailing zeros: a nonzero follows
  const bool up = next > '5' || (next == '5' && (rest || (r.digits.back() - '0') % 2 == 1));
  if (up) {
    int i = p - 1;
    for (; i >= 0 && r.digits[static_cast<std::size_t>(i)] == '9'; --i) r.digits[static_cast<std::size_t>(i)] = '0';
    if (i < 0) {
      r.digits.insert(r.digits.begin(), '1');
      r.digits.pop_back();
      ++r.point;
    } else {
      ++r.digits[static_cast<std::size_t>(i)];
    }
  }
  r.digits.erase(r.digits.find_last_not_of('0') + 1);
  return r;
}

// The double nearest to 0.<digits> · 10^point (ties to even; past the largest double: infinity), as strtod reads it.
double nearest_double(const Decimal& x) {
  Big n(0);
  for (const char c : x.digits) n.mul_add(10, static_cast<std::uint32_t>(c - '0'));
  const int k = x.point - static_cast<int>(x.digits.size());  // x = n · 10^k
  std::uint64_t q;                                            // x ≈ q · 2^e2, q < 2^53, rounded
  int e2;
  bool half, above;  // what was dropped: exactly half a unit of q, or more
  if (k >= 0) {
    n.mul_pow10(k);
    const int shift = n.bits() > 53 ? n.bits() - 53 : 0;
    q = shift ? n.bits_from(shift) : n.bits_from(0);
    e2 = shift;
    half = shift && n.bit(shift - 1) && !n.any_below(shift - 1);
    above = shift && n.bit(shift - 1) && n.any_below(shift - 1);
  } else {  // n / 5^-k · 2^k: q = n · 2^s / 5^-k with 2^52 <= q < 2^53 (fewer bits for subnormals)
    Big den(1);
    den.mul_pow5(-k);
    int s = 53 + den.bits() - n.bits();
    if (k - s < -1074) s = k + 1074;  // subnormal: the exponent is fixed, q gets fewer bits
    Big num = n;
    if (s > 0) num.shl(s);
    if (s < 0) den.shl(-s);
    q = 0;
    for (int i = 63; i >= 0; --i) {  // long division, one bit of q at a time (q < 2^54)
      Big t = den;
      t.shl(i);
      if (t.cmp(num) <= 0) {
        num.sub(t);
        q |= std::uint64_t{1} << i;
      }
    }
    e2 = k - s;
    if (q >= (std::uint64_t{1} << 53)) {  // one bit too many: drop it into the remainder test
      const bool low = q & 1u;
      q >>= 1;
      ++e2;
      half = low && num.limb.empty();
      above = low && !num.limb.empty();
    } else {
      Big twice = num;
      twice.shl(1);
      const int c = twice.cmp(den);
      half = c == 0;
      above = c > 0;
    }
  }
  if (above || (half && (q & 1u))) ++q;
  if (q == (std::uint64_t{1} << 53)) {
    q >>= 1;
    ++e2;
  }
  return std::ldexp(static_cast<double>(q), e2);  // exact: q fits a double's mantissa; overflow gives inf
}

// "%.<p>g" of the rounded value r (p significant digits requested).
std::string g_format(const Decimal& r, int p, bool negative) {
  std::string s = negative ? "-" : "";
  const int x = r.point - 1;  // the exponent in d.ddd form
  const std::string& d = r.digits;
  const int nd = static_cast<int>(d.size());
  if (x >= -4 && x < p) {
    if (x >= 0) {
      const int whole = x + 1;  // digits before the point
      s += d.substr(0, static_cast<std::size_t>(std::min(nd, whole)));
      s.append(static_cast<std::size_t>(std::max(0, whole - nd)), '0');
      if (nd > whole) s += "." + d.substr(static_cast<std::size_t>(whole));
    } else {
      s += "0." + std::string(static_cast<std::size_t>(-x - 1), '0') + d;
    }
    return s;
  }
  s += d[0];
  if (nd > 1) s += "." + d.substr(1);
  s += x < 0 ? "e-" : "e+";
  const int ax = x < 0 ? -x : x;
  if (ax < 10) s += '0';
  return s + std::to_string(ax);
}

template <class T>
std::string shortest(T v, int maxDigits) {
  const double x = static_cast<double>(v);
  const bool negative = std::signbit(x);
  if (std::isnan(x)) return negative ? "-nan" : "nan";
  if (std::isinf(x)) return negative ? "-inf" : "inf";
  if (x == 0) return negative ? "-0" : "0";
  const Decimal exact = exact_decimal(std::fabs(x));
  for (int p = 1;; ++p) {
    const Decimal r = round_to(exact, p);
    if (p == maxDigits || static_cast<T>(nearest_double(r)) == static_cast<T>(std::fabs(x)))
      return g_format(r, p, negative);
  }
}

}  // namespace

std::string fmt(float v) { return shortest(v, 9); }
std::string fmt(double v) { return shortest(v, 17); }

}  // namespace ap
