// Storage dtypes as `upsample check` sees them: encoding to and from the raw bytes an aclTensor
// holds, units in the last place, and the pass/fail tolerances.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "aclnn/acl_meta.h"
#include "upsample/resample.hpp"

namespace upsample::cli {

struct DTypeInfo {
  const char* name;  // as accepted by --dtype and printed
  aclDataType acl;
  size_t bytes;
  int fraction_bits;  // explicit mantissa bits
  int min_exponent;   // exponent of the smallest normal binade
};

// Every floating dtype the check knows, in the order rows are printed.
const std::vector<DTypeInfo>& all_dtypes();
const DTypeInfo* find_dtype(std::string_view name);

// `value` must be representable in the dtype (see round_to).
void store(const DTypeInfo& dtype, double value, void* dst);
double load(const DTypeInfo& dtype, const void* src);
// The dtype value nearest to `value` (ties to even), as a double.
double round_to(const DTypeInfo& dtype, double value);

// Spacing of the dtype's values in the binade of |value| (subnormal spacing near zero).
double ulp_at(const DTypeInfo& dtype, double value);

// How far `ours` is from the float64 reference `ref`, in units of what the dtype may miss by:
// a value <= 1 passes. float32: 1e-5 * max(1, |ref|) forward, 1e-4 * max(1, |ref|) backward
// (the backward sums more terms); float64: 1e-12 * max(1, |ref|); float16 / bfloat16: one ulp
// of the dtype at ref, or the float32 tolerance plus half an ulp -- the second form covers
// near-zero results of cancellation, where the float32 computation error before the final
// rounding exceeds the dtype's tiny ulp there. A NaN on one side only never passes.
double error_ratio(const DTypeInfo& dtype, Direction direction, double ours, double ref);

}  // namespace upsample::cli
