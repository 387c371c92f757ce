// The result rows of `upsample check`: one per (entry point, dtype, layout) compared with the
// reference, one per (forward, backward, layout) adjoint pair.
#pragma once

#include <cstdint>
#include <string>

#include "check/compare.hpp"
#include "check/entry_points.hpp"

namespace upsample::cli {

// What every row records: the cases it ran and, when it fails, why (the worst element, the
// call that failed, or the residual beyond the threshold).
struct RowOutcome {
  int64_t cases = 0;
  std::string failure;
  bool passed() const { return failure.empty(); }
};

struct CheckRow : RowOutcome {
  const EntryPoint* entry = nullptr;
  const DTypeInfo* dtype = nullptr;
  const Layout* layout = nullptr;
  double max_abs = 0.0;
  double max_ulp = 0.0;
  double max_rel = 0.0;
  bool exact = false;        // compared bit for bit (see bit_exact)
  double worst_ratio = 0.0;  // max of error / tolerance; > 1 fails
};

// The adjoint identity <A x, y> = <x, A^T y> of a forward entry point A and its backward A^T,
// both run through the library in float64.
struct AdjointRow : RowOutcome {
  const EntryPoint* forward = nullptr;
  const EntryPoint* backward = nullptr;
  const Layout* layout = nullptr;
  double max_residual = 0.0;
};

// The largest relative residual |<A x, y> - <x, A^T y>| / |<A x, y>| that passes.
inline constexpr double kAdjointThreshold = 1e-10;

}  // namespace upsample::cli
