#include "numeric.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "core/dtype.hpp"

namespace upsample::cli {

const std::vector<DTypeInfo>& all_dtypes() {
  static const std::vector<DTypeInfo> kDTypes = {
      {"float32", ACL_FLOAT, 4, 23, -126},
      {"float16", ACL_FLOAT16, 2, 10, -14},
      {"bfloat16", ACL_BF16, 2, 7, -126},
      {"float64", ACL_DOUBLE, 8, 52, -1022},
      {"uint8", ACL_UINT8, 1, 0, 0, /*integer=*/true},
  };
  return kDTypes;
}

const DTypeInfo* find_dtype(std::string_view name) {
  for (const DTypeInfo& d : all_dtypes()) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

void store(const DTypeInfo& dtype, double value, void* dst) {
  switch (dtype.acl) {
    case ACL_FLOAT: {
      const float f = static_cast<float>(value);
      std::memcpy(dst, &f, sizeof f);
      return;
    }
    case ACL_FLOAT16: {
      const uint16_t h = float_to_half(static_cast<float>(value));
      std::memcpy(dst, &h, sizeof h);
      return;
    }
    case ACL_BF16: {
      const uint16_t b = float_to_bf16(static_cast<float>(value));
      std::memcpy(dst, &b, sizeof b);
      return;
    }
    case ACL_DOUBLE:
      std::memcpy(dst, &value, sizeof value);
      return;
    case ACL_UINT8: {
      const uint8_t u = float_to_u8(static_cast<float>(value));
      std::memcpy(dst, &u, sizeof u);
      return;
    }
    default:
      std::abort();  // all_dtypes() lists only the cases above
  }
}

double load(const DTypeInfo& dtype, const void* src) {
  switch (dtype.acl) {
    case ACL_FLOAT: {
      float f;
      std::memcpy(&f, src, sizeof f);
      return f;
    }
    case ACL_FLOAT16: {
      uint16_t h;
      std::memcpy(&h, src, sizeof h);
      return half_to_float(h);
    }
    case ACL_BF16: {
      uint16_t b;
      std::memcpy(&b, src, sizeof b);
      return bf16_to_float(b);
    }
    case ACL_DOUBLE: {
      double d;
      std::memcpy(&d, src, sizeof d);
      return d;
    }
    case ACL_UINT8: {
      uint8_t u;
      std::memcpy(&u, src, sizeof u);
      return u;
    }
    default:
      std::abort();
  }
}

double round_to(const DTypeInfo& dtype, double value) {
  unsigned char bytes[sizeof(double)];
  store(dtype, value, bytes);
  return load(dtype, bytes);
}

bool same_bits(const DTypeInfo& dtype, double a, double b) {
  unsigned char bytes_a[sizeof(double)], bytes_b[sizeof(double)];
  store(dtype, a, bytes_a);
  store(dtype, b, bytes_b);
  return std::memcmp(bytes_a, bytes_b, dtype.bytes) == 0;
}

double ulp_at(const DTypeInfo& dtype, double value) {
  if (dtype.integer) return 1.0;
  int exponent = 0;
  // frexp: |value| = m * 2^exponent with m in [0.5, 1), so the binade is 2^(exponent - 1).
  const bool normal_range = value != 0.0 && std::isfinite(value);
  if (normal_range) std::frexp(std::fabs(value), &exponent);
  const int binade = normal_range ? std::max(exponent - 1, dtype.min_exponent) : dtype.min_exponent;
  return std::ldexp(1.0, binade - dtype.fraction_bits);
}

double error_ratio(const DTypeInfo& dtype, Direction direction, bool exact, double ours,
                   double ref) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (exact || dtype.integer) return same_bits(dtype, ours, round_to(dtype, ref)) ? 0.0 : kInf;
  if (std::isnan(ours) || std::isnan(ref)) {
    return std::isnan(ours) && std::isnan(ref) ? 0.0 : kInf;
  }
  if (ours == ref) return 0.0;  // also equal infinities, whose difference is NaN
  const double err = std::fabs(ours - ref);
  const double magnitude = std::max(1.0, std::fabs(ref));
  const double f32_tol = (direction == Direction::kForward ? 1e-5 : 1e-4) * magnitude;
  switch (dtype.acl) {
    case ACL_DOUBLE:
      return err / (1e-12 * magnitude);
    case ACL_FLOAT:
      return err / f32_tol;
    default: {
      const double ulp = ulp_at(dtype, ref);
      return std::min(err / ulp, err / (f32_tol + 0.5 * ulp));
    }
  }
}

}  // namespace upsample::cli
