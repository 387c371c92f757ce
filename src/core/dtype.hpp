// Storage types and their conversions to and from the compute types.
//
// float16 and bfloat16 are stored as raw 16-bit patterns. Every conversion to a narrower type
// rounds to nearest, ties to even, once, at the store (NaN stays NaN, overflow goes to inf);
// uint8 / uint16 stores round to nearest even and saturate to [0, 255] / [0, 65535] (NaN stores
// 0).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "upsample/tensor_desc.hpp"

namespace upsample {

struct Half {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

inline float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
inline uint32_t float_to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) {  // inf, or NaN made quiet as x86's vcvtph2ps does
    return bits_to_float(sign | 0x7f800000u | (mantissa ? 0x400000u : 0u) | (mantissa << 13));
  }
  if (exponent != 0) return bits_to_float(sign | ((exponent + 112) << 23) | (mantissa << 13));
  if (mantissa == 0) return bits_to_float(sign);
  // Subnormal half: value = mantissa * 2^-24, exact in float.
  const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-08f;
  return sign ? -magnitude : magnitude;
}

inline uint16_t float_to_half(float f) {
  const uint32_t u = float_to_bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) {  // NaN: quiet, payload truncated, as x86's vcvtps2ph does
    return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
  }
  if (abs == 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u);
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65520
  if (abs < 0x38800000u) {
    // Result is subnormal (or zero) in half: round abs / 2^-24 to an integer, ties to even.
    // Adding 0.5f (2^-1) with the right exponent alignment does it in one float addition.
    const float scaled = bits_to_float(abs) + 0.5f;  // 0.5 = 2^-24 * 2^23: aligns the ulp
    return static_cast<uint16_t>(sign | (float_to_bits(scaled) - 0x3f000000u));
  }
  // Normal: re-bias the exponent and round the 13 dropped mantissa bits to nearest even.
  const uint32_t rebased = abs - 0x38000000u;  // exponent bias 127 -> 15
  const uint32_t rounded = rebased + 0xfffu + ((rebased >> 13) & 1u);
  return static_cast<uint16_t>(sign | (rounded >> 13));
}

inline float bf16_to_float(uint16_t b) { return bits_to_float(static_cast<uint32_t>(b) << 16); }

inline uint16_t float_to_bf16(float f) {
  const uint32_t u = float_to_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // NaN
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

inline uint8_t float_to_u8(float f) {
  if (!(f > 0.0f)) return 0;  // also NaN
  if (f >= 255.0f) return 255;
  return static_cast<uint8_t>(std::nearbyint(f));  // default rounding mode: ties to even
}

inline uint16_t float_to_u16(float f) {
  if (!(f > 0.0f)) return 0;  // also NaN
  if (f >= 65535.0f) return 65535;
  return static_cast<uint16_t>(std::nearbyint(f));
}

// Compute (accumulation) type of a storage type: double for double, float otherwise.
template <typename T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename Acc, typename T>
inline Acc load_as(const T* p) {
  if constexpr (std::is_same_v<T, Half>)
    return static_cast<Acc>(half_to_float(p->bits));
  else if constexpr (std::is_same_v<T, BFloat16>)
    return static_cast<Acc>(bf16_to_float(p->bits));
  else
    return static_cast<Acc>(*p);
}

template <typename T, typename Acc>
inline void store_from(T* p, Acc v) {
  if constexpr (std::is_same_v<T, Half>)
    p->bits = float_to_half(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, BFloat16>)
    p->bits = float_to_bf16(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, uint8_t>)
    *p = float_to_u8(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, uint16_t>)
    *p = float_to_u16(static_cast<float>(v));
  else
    *p = static_cast<T>(v);
}

// Calls f(T{}) with the storage type T of `dtype` (float, Half, BFloat16, double, uint8_t,
// uint16_t): the one place a runtime dtype becomes a compile-time type.
template <typename F>
decltype(auto) visit_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kFloat16:
      return f(Half{});
    case DType::kBFloat16:
      return f(BFloat16{});
    case DType::kFloat64:
      return f(double{});
    case DType::kUInt8:
      return f(uint8_t{});
    case DType::kUInt16:
      return f(uint16_t{});
    case DType::kFloat32:
      break;
  }
  return f(float{});
}

// One element of a runtime dtype, as a double (exact for every storage type).
inline double load_element(DType dtype, const void* p) {
  return visit_dtype(dtype, [p](auto tag) {
    using T = decltype(tag);
    T v;
    std::memcpy(&v, p, sizeof v);
    return load_as<double>(&v);
  });
}

// Stores `value` as one element of a runtime dtype, rounded as the kernels' stores round (through
// float32 for the 16-bit and integer types).
inline void store_element(DType dtype, void* p, double value) {
  visit_dtype(dtype, [p, value](auto tag) {
    using T = decltype(tag);
    T v;
    if constexpr (std::is_same_v<T, double>) {
      v = value;
    } else {
      store_from(&v, static_cast<float>(value));
    }
    std::memcpy(p, &v, sizeof v);
  });
}

}  // namespace upsample
