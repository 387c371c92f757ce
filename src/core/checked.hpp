// Overflow-checked integer arithmetic for sizes, offsets, strides and byte counts.
//
// Each helper stores the exact result in `*out` and returns true, or returns false when the
// exact result does not fit the type (then `*out` holds the wrapped value and must not be used).
// They are thin wrappers over the compiler's __builtin_*_overflow, so they cost a flag test.
// Both operands and the result have one type: mixing signed and unsigned operands does not
// compile silently into a wrapped conversion.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace upsample {

[[nodiscard]] inline bool checked_add(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}
[[nodiscard]] inline bool checked_mul(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}

[[nodiscard]] inline bool checked_add(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}
[[nodiscard]] inline bool checked_mul(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}

// size_t is uint64_t on the LP64 Linux targets; where it is a distinct type, it gets its own.
template <typename Size>
requires(std::is_same_v<Size, size_t> && !std::is_same_v<size_t, uint64_t>)
    [[nodiscard]] inline bool checked_add(Size a, Size b, Size* out) {
  return !__builtin_add_overflow(a, b, out);
}
template <typename Size>
requires(std::is_same_v<Size, size_t> && !std::is_same_v<size_t, uint64_t>)
    [[nodiscard]] inline bool checked_mul(Size a, Size b, Size* out) {
  return !__builtin_mul_overflow(a, b, out);
}

// `value` rounded up to a multiple of `multiple` (> 0).
[[nodiscard]] inline bool checked_round_up(size_t value, size_t multiple, size_t* out) {
  const size_t remainder = value % multiple;
  if (remainder == 0) {
    *out = value;
    return true;
  }
  return !__builtin_add_overflow(value, multiple - remainder, out);
}

}  // namespace upsample
