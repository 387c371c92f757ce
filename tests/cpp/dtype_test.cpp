// Conversions between float32 and float16 / bfloat16: the vectorised run_convert must agree bit for
// bit with the scalar conversions (round to nearest even, NaN kept quiet), which must agree with
// exact arithmetic.
#include "core/dtype.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace upsample {
namespace {

// Spot values of the scalar conversions (every pattern is checked through the kernels of every
// SIMD target in kernel_targets_test.cpp).
TEST(Dtype, SpotValues) {
  EXPECT_EQ(half_to_float(0x3c00), 1.0f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(half_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(bf16_to_float(0x3f80), 1.0f);
}

}  // namespace
}  // namespace upsample
