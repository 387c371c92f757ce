// The storage-type codec of core/dtype.hpp: the scalar float16 / bfloat16 conversions, and the
// runtime-dtype load / store that `upsample check`, `upsample resize` and the benchmarks read and
// write tensors with (round to nearest even once at the store, float16 subnormals kept, integer
// stores saturated with NaN -> 0). The conversions of the SIMD kernels are checked against these
// on every target in kernel_targets_test.cpp.
#include "core/dtype.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace upsample {
namespace {

constexpr DType kAllDTypes[] = {DType::kFloat32, DType::kFloat16, DType::kBFloat16,
                                DType::kFloat64, DType::kUInt8,   DType::kUInt16};

// `value` stored as one element of `dtype` and loaded back.
double round_trip(DType dtype, double value) {
  unsigned char bytes[sizeof(double)];
  store_element(dtype, bytes, value);
  return load_element(dtype, bytes);
}

uint16_t stored_bits16(DType dtype, double value) {
  uint16_t bits = 0;
  store_element(dtype, &bits, value);
  return bits;
}

TEST(Dtype, SpotValues) {
  EXPECT_EQ(half_to_float(0x3c00), 1.0f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(half_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(bf16_to_float(0x3f80), 1.0f);
}

TEST(Dtype, VisitGivesTheStorageTypeOfEveryDtype) {
  for (DType dtype : kAllDTypes) {
    EXPECT_EQ(visit_dtype(dtype, [](auto tag) { return sizeof(tag); }), dtype_size(dtype))
        << dtype_name(dtype);
  }
}

TEST(Dtype, RepresentableValuesRoundTripInEveryDtype) {
  const std::vector<double> common = {0.0, 1.0, 2.0, 3.0, 100.0, 255.0};
  for (DType dtype : kAllDTypes) {
    for (double v : common) EXPECT_EQ(round_trip(dtype, v), v) << dtype_name(dtype) << " " << v;
  }
  EXPECT_EQ(round_trip(DType::kFloat64, 0.1), 0.1);  // no detour through float32
  EXPECT_EQ(round_trip(DType::kFloat32, -2.5), -2.5);
  EXPECT_EQ(round_trip(DType::kFloat16, 65504.0), 65504.0);
  EXPECT_EQ(round_trip(DType::kBFloat16, -0.0078125), -0.0078125);
  EXPECT_EQ(round_trip(DType::kUInt16, 65535.0), 65535.0);
}

TEST(Dtype, StoresRoundToNearestEven) {
  // float16 around 1 (ulp 2^-10): halfway cases go to the even neighbour.
  EXPECT_EQ(round_trip(DType::kFloat16, 1.0 + std::ldexp(1.0, -11)), 1.0);
  EXPECT_EQ(round_trip(DType::kFloat16, 1.0 + 3 * std::ldexp(1.0, -11)), 1.0 + std::ldexp(1.0, -9));
  // bfloat16 around 1 (ulp 2^-7).
  EXPECT_EQ(round_trip(DType::kBFloat16, 1.0 + std::ldexp(1.0, -8)), 1.0);
  EXPECT_EQ(round_trip(DType::kBFloat16, 1.0 + 3 * std::ldexp(1.0, -8)), 1.0 + std::ldexp(1.0, -6));
  // Integers.
  EXPECT_EQ(round_trip(DType::kUInt8, 2.5), 2.0);
  EXPECT_EQ(round_trip(DType::kUInt8, 3.5), 4.0);
  EXPECT_EQ(round_trip(DType::kUInt16, 0.5), 0.0);
  EXPECT_EQ(round_trip(DType::kUInt16, 1.5), 2.0);
}

TEST(Dtype, Float16SubnormalsAreKept) {
  const double tiny = std::ldexp(1.0, -24);  // the smallest float16 subnormal
  EXPECT_EQ(stored_bits16(DType::kFloat16, tiny), 0x0001);
  EXPECT_EQ(round_trip(DType::kFloat16, tiny), tiny);
  EXPECT_EQ(stored_bits16(DType::kFloat16, 1.5 * tiny), 0x0002);  // tie: to even
  EXPECT_EQ(stored_bits16(DType::kFloat16, 0.5 * tiny), 0x0000);  // tie: to even (zero)
  EXPECT_EQ(stored_bits16(DType::kFloat16, -3 * tiny), 0x8003);
  EXPECT_EQ(round_trip(DType::kFloat16, 1023 * tiny), 1023 * tiny);  // the largest subnormal
}

TEST(Dtype, IntegerStoresSaturateAndStoreNanAsZero) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(round_trip(DType::kUInt8, -1.0), 0.0);
  EXPECT_EQ(round_trip(DType::kUInt8, 300.0), 255.0);
  EXPECT_EQ(round_trip(DType::kUInt8, nan), 0.0);
  EXPECT_EQ(round_trip(DType::kUInt16, -7.0), 0.0);
  EXPECT_EQ(round_trip(DType::kUInt16, 70000.0), 65535.0);
  EXPECT_EQ(round_trip(DType::kUInt16, nan), 0.0);
}

TEST(Dtype, FloatStoresKeepNanAndOverflowToInfinity) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kFloat64}) {
    EXPECT_TRUE(std::isnan(round_trip(dtype, nan))) << dtype_name(dtype);
    EXPECT_EQ(round_trip(dtype, -inf), -inf) << dtype_name(dtype);
  }
  EXPECT_EQ(round_trip(DType::kFloat16, 65520.0), inf);  // rounds past the largest float16
  EXPECT_EQ(round_trip(DType::kFloat16, 65519.0), 65504.0);
  EXPECT_EQ(stored_bits16(DType::kBFloat16, nan) & 0x0040, 0x0040);  // quiet
}

}  // namespace
}  // namespace upsample
