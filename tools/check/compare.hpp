// How `upsample check` compares a result with the float64 reference: the dtypes it knows, units
// in the last place, and the pass/fail tolerances. Values go to and from a dtype's bytes through
// the library's codec (src/core/dtype.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "aclnn/acl_meta.h"
#include "upsample/resample.hpp"

namespace upsample::cli {

struct CheckRow;

struct DTypeInfo {
  const char* name;  // as accepted by --dtype and printed
  DType dtype;
  aclDataType acl;
  int fraction_bits;     // explicit mantissa bits (floating dtypes)
  int min_exponent;      // exponent of the smallest normal binade (floating dtypes)
  bool integer = false;  // uint8: values are integers, one unit apart
};

// Every dtype the check knows, in the order rows are printed.
const std::vector<DTypeInfo>& all_dtypes();
const DTypeInfo* find_dtype(std::string_view name);

// The dtype value nearest to `value` (ties to even; uint8 saturates to [0, 255]), as a double.
double round_to(const DTypeInfo& dtype, double value);
// Whether `a` and `b` (values representable in the dtype) have the same bytes in the dtype:
// unlike ==, +0 and -0 differ, and two NaNs with the same payload are equal.
bool same_bits(const DTypeInfo& dtype, double a, double b);

// Spacing of the dtype's values in the binade of |value| (subnormal spacing near zero); 1 for
// integer dtypes.
double ulp_at(const DTypeInfo& dtype, double value);

// How far `ours` is from the float64 reference `ref`, in units of what the dtype may miss by:
// a value <= 1 passes. float32: 1e-5 * max(1, |ref|) forward, 1e-4 * max(1, |ref|) backward
// (the backward sums more terms); float64: 1e-12 * max(1, |ref|); float16 / bfloat16: one ulp
// of the dtype at ref, or the float32 tolerance plus half an ulp -- the second form covers
// near-zero results of cancellation, where the float32 computation error before the final
// rounding exceeds the dtype's tiny ulp there. A NaN on one side only never passes.
// `exact` (nearest forward, and every uint8 result): the reference rounded to the dtype must
// have the same bits as ours; 0 when it does, infinity when it does not.
double error_ratio(const DTypeInfo& dtype, Direction direction, bool exact, double ours,
                   double ref);

// Compares one case's result (`ours`, logical order, of logical `shape`) with the reference
// element by element: updates the row's largest errors, and makes the worst element beyond the
// tolerance so far its failure text (prefixed with `case_label`).
void compare(const std::vector<double>& ours, const std::vector<double>& ref,
             const std::vector<int64_t>& shape, const std::string& case_label, CheckRow* row);

}  // namespace upsample::cli
