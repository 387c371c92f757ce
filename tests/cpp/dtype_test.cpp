// Conversions between float32 and float16 / bfloat16: the vectorised run_convert must agree bit for
// bit with the scalar conversions (round to nearest even, NaN kept quiet), which must agree with
// exact arithmetic.
#include "core/dtype.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "cpu/kernels.hpp"

namespace upsample {
namespace {

// Every 16-bit pattern widens exactly, vectorised or not.
TEST(Dtype, EveryHalfAndBFloat16PatternWidensExactly) {
  std::vector<uint16_t> bits(65536 + 5);  // + a tail that is not a multiple of any vector
  for (size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<uint16_t>(i);
  std::vector<float> out(bits.size());
  for (DType type : {DType::kFloat16, DType::kBFloat16}) {
    cpu::run_convert(type, bits.data(), DType::kFloat32, out.data(), 0,
                     static_cast<int64_t>(bits.size()));
    for (size_t i = 0; i < bits.size(); ++i) {
      const float expected =
          type == DType::kFloat16 ? half_to_float(bits[i]) : bf16_to_float(bits[i]);
      ASSERT_EQ(float_to_bits(out[i]), float_to_bits(expected)) << dtype_name(type) << " " << i;
    }
  }
  // Spot values.
  EXPECT_EQ(half_to_float(0x3c00), 1.0f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(half_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(bf16_to_float(0x3f80), 1.0f);
}

std::vector<float> narrowing_cases() {
  std::vector<float> v;
  std::mt19937 rng(5);
  for (int i = 0; i < 200000; ++i) v.push_back(bits_to_float(static_cast<uint32_t>(rng())));
  for (uint32_t u = 0; u < 0x80000000u; u += 0x00004321u) {  // sweep every binade
    v.push_back(bits_to_float(u));
    v.push_back(bits_to_float(u | 0x80000000u));
  }
  for (float f : {0.0f, -0.0f, 65504.0f, 65519.99f, 65520.0f, 1e30f, INFINITY, -INFINITY, NAN,
                  std::ldexp(1.0f, -24), std::ldexp(1.0f, -25), std::ldexp(3.0f, -26),
                  1.0f + std::ldexp(1.0f, -11), 1.0f + std::ldexp(3.0f, -11),
                  1.0f + std::ldexp(1.0f, -8), 1.0f + std::ldexp(3.0f, -8)}) {
    v.push_back(f);
  }
  v.push_back(bits_to_float(0x7f800001u));  // signalling NaN
  v.push_back(bits_to_float(0xffc12345u));
  return v;
}

// Round to nearest even, checked against exact arithmetic in double.
double exact_round(double x, int mantissa_bits, int min_exponent) {
  int e;
  std::frexp(x, &e);
  const double ulp = std::ldexp(1.0, std::max(e - 1, min_exponent) - mantissa_bits);
  return std::nearbyint(x / ulp) * ulp;  // default rounding mode: ties to even
}

TEST(Dtype, NarrowingRoundsToNearestEvenAndVectorsMatchScalar) {
  const std::vector<float> values = narrowing_cases();
  std::vector<uint16_t> out(values.size());
  for (DType type : {DType::kFloat16, DType::kBFloat16}) {
    cpu::run_convert(DType::kFloat32, values.data(), type, out.data(), 0,
                     static_cast<int64_t>(values.size()));
    for (size_t i = 0; i < values.size(); ++i) {
      const float f = values[i];
      const uint16_t scalar = type == DType::kFloat16 ? float_to_half(f) : float_to_bf16(f);
      ASSERT_EQ(out[i], scalar) << dtype_name(type) << " value bits " << std::hex
                                << float_to_bits(f);
      const float back = type == DType::kFloat16 ? half_to_float(scalar) : bf16_to_float(scalar);
      if (std::isnan(f)) {
        ASSERT_TRUE(std::isnan(back));
        continue;
      }
      const double exact =
          type == DType::kFloat16 ? exact_round(f, 10, -14) : exact_round(f, 7, -126);
      const double limit = type == DType::kFloat16 ? 65504.0 : 3.3895313892515355e38;
      const double expected = std::fabs(exact) > limit ? std::copysign(INFINITY, f) : exact;
      ASSERT_EQ(static_cast<double>(back), expected)
          << dtype_name(type) << " value " << f << " bits " << std::hex << float_to_bits(f);
    }
  }
}

}  // namespace
}  // namespace upsample
