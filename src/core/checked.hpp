// Checked integer arithmetic and range-safe float -> integer conversion: every size, offset,
// stride, byte count, table size and workspace size in the library is formed with these, so an
// absurd descriptor is reported instead of wrapping around (signed overflow is undefined
// behaviour) and a huge or NaN coordinate never reaches an undefined float -> int conversion.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace upsample {

// *out = a + b / a * b; false (and *out unspecified) when the exact result does not fit in T.
template <typename T>
[[nodiscard]] constexpr bool checked_add(T a, T b, T* out) {
  static_assert(std::is_integral_v<T>);
  return !__builtin_add_overflow(a, b, out);
}

template <typename T>
[[nodiscard]] constexpr bool checked_mul(T a, T b, T* out) {
  static_assert(std::is_integral_v<T>);
  return !__builtin_mul_overflow(a, b, out);
}

// a + b / a * b, saturated at the int64 range (for work estimates and byte counts that are
// compared with a limit: a saturated figure is above every limit).
[[nodiscard]] constexpr int64_t saturating_add(int64_t a, int64_t b) {
  int64_t out;
  if (checked_add(a, b, &out)) return out;
  return a < 0 ? INT64_MIN : INT64_MAX;  // an overflowing sum has operands of one sign
}

[[nodiscard]] constexpr int64_t saturating_mul(int64_t a, int64_t b) {
  int64_t out;
  if (checked_mul(a, b, &out)) return out;
  return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
}

// `value` rounded up to a multiple of `multiple` (> 0).
[[nodiscard]] inline bool checked_round_up(size_t value, size_t multiple, size_t* out) {
  const size_t remainder = value % multiple;
  if (remainder == 0) {
    *out = value;
    return true;
  }
  return checked_add(value, multiple - remainder, out);
}

// Accumulating forms for products and sums of several terms: the first failure sticks.
//   CheckedInt64 n = 1;  for (...) n *= size;  if (!n.ok()) ...
class CheckedInt64 {
 public:
  constexpr CheckedInt64(int64_t v = 0) : value_(v) {}  // NOLINT: implicit on purpose
  bool ok() const { return ok_; }
  int64_t value() const { return value_; }
  CheckedInt64& operator+=(CheckedInt64 b) {
    ok_ = ok_ && b.ok_ && checked_add(value_, b.value_, &value_);
    return *this;
  }
  CheckedInt64& operator*=(CheckedInt64 b) {
    ok_ = ok_ && b.ok_ && checked_mul(value_, b.value_, &value_);
    return *this;
  }
  friend CheckedInt64 operator+(CheckedInt64 a, CheckedInt64 b) { return a += b; }
  friend CheckedInt64 operator*(CheckedInt64 a, CheckedInt64 b) { return a *= b; }

 private:
  int64_t value_;
  bool ok_ = true;
};

// Truncation toward zero (as static_cast) of a value that may be huge, infinite or NaN: values
// beyond +-2^62 saturate there, NaN gives 0. The callers clamp the result into an axis, so
// saturation at 2^62 (far beyond any axis length) gives the same index as exact arithmetic.
inline int64_t saturating_trunc(double v) {
  constexpr double kLimit = 4611686018427387904.0;  // 2^62
  if (!(v == v)) return 0;
  if (v >= kLimit) return static_cast<int64_t>(kLimit);
  if (v <= -kLimit) return -static_cast<int64_t>(kLimit);
  return static_cast<int64_t>(v);
}

// floor() then saturating_trunc().
inline int64_t saturating_floor(double v) { return saturating_trunc(std::floor(v)); }

}  // namespace upsample
