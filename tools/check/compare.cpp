#include "check/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "check/cases.hpp"
#include "check/rows.hpp"
#include "core/dtype.hpp"

namespace upsample::cli {

const std::vector<DTypeInfo>& all_dtypes() {
  static const std::vector<DTypeInfo> kDTypes = {
      {"float32", DType::kFloat32, ACL_FLOAT, 23, -126},
      {"float16", DType::kFloat16, ACL_FLOAT16, 10, -14},
      {"bfloat16", DType::kBFloat16, ACL_BF16, 7, -126},
      {"float64", DType::kFloat64, ACL_DOUBLE, 52, -1022},
      {"uint8", DType::kUInt8, ACL_UINT8, 0, 0, /*integer=*/true},
  };
  return kDTypes;
}

const DTypeInfo* find_dtype(std::string_view name) {
  for (const DTypeInfo& d : all_dtypes()) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

double round_to(const DTypeInfo& dtype, double value) {
  unsigned char bytes[sizeof(double)];
  store_element(dtype.dtype, bytes, value);
  return load_element(dtype.dtype, bytes);
}

bool same_bits(const DTypeInfo& dtype, double a, double b) {
  unsigned char bytes_a[sizeof(double)], bytes_b[sizeof(double)];
  store_element(dtype.dtype, bytes_a, a);
  store_element(dtype.dtype, bytes_b, b);
  return std::memcmp(bytes_a, bytes_b, dtype_size(dtype.dtype)) == 0;
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
  switch (dtype.dtype) {
    case DType::kFloat64:
      return err / (1e-12 * magnitude);
    case DType::kFloat32:
      return err / f32_tol;
    default: {
      const double ulp = ulp_at(dtype, ref);
      return std::min(err / ulp, err / (f32_tol + 0.5 * ulp));
    }
  }
}

void compare(const std::vector<double>& ours, const std::vector<double>& ref,
             const std::vector<int64_t>& shape, const std::string& case_label, CheckRow* row) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const Direction direction = row->entry->row->direction;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double err = std::isnan(ours[i]) ? kInf : std::fabs(ours[i] - ref[i]);
    row->max_abs = std::max(row->max_abs, err);
    row->max_ulp =
        std::max(row->max_ulp, err / ulp_at(*row->dtype, std::max(1.0, std::fabs(ref[i]))));
    row->max_rel = std::max(row->max_rel, err / std::max(1.0, std::fabs(ref[i])));
    const double ratio = error_ratio(*row->dtype, direction, row->exact, ours[i], ref[i]);
    if (ratio > row->worst_ratio) {
      row->worst_ratio = ratio;
      if (ratio > 1.0) {
        char ours_text[40], ref_text[40];
        std::snprintf(ours_text, sizeof ours_text, "%.9g", ours[i]);
        std::snprintf(ref_text, sizeof ref_text, "%.9g", ref[i]);
        row->failure = case_label + ": " +
                       (direction == Direction::kForward ? "out" : "gradInput") +
                       position(shape, static_cast<int64_t>(i)) + " = " + ours_text +
                       ", reference " + ref_text +
                       (row->exact ? " (not bit-exact)"
                                   : " (error " + format_number(ratio) + "x the tolerance)");
      }
    }
  }
}

}  // namespace upsample::cli
