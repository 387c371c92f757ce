// What the float64 reference (src/reference) says a case of `upsample check` must give.
#pragma once

#include <array>
#include <vector>

#include "check/cases.hpp"
#include "check/entry_points.hpp"

namespace upsample::cli {

// The result of `e` called with `call_scales` on case `g` with input `src` (logical order), as
// the reference computes it from the scales the entry point resamples with. Where PyTorch's
// (and so the reference's) backward is not the transpose of its forward -- nearest with a
// scale and out == in or 2 * in, bicubic with no size change -- a backward entry point is held
// to the transpose of the reference forward, which the library's backward always is.
std::vector<double> reference_result(const EntryPoint& e, const Geometry& g, bool align_corners,
                                     const std::array<double, 3>& call_scales,
                                     const std::vector<double>& src);

}  // namespace upsample::cli
