// The aclnn entry points `upsample check` exercises, one data row each: what the entry point
// computes (for the float64 reference), which dtypes and layouts it takes, how it reads its
// scales and inputSize, and an adapter that places the harness's arguments into its own
// parameter list. Checking a new entry point means adding a row in entry_points.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "aclnn/acl_meta.h"
#include "reference/reference.hpp"
#include "upsample/resample.hpp"

namespace upsample::cli {

struct Layout {
  const char* name;  // as accepted by --layout and printed
  aclFormat format;
  int spatial_rank;
  bool channels_last;  // dims in format order are N, spatial..., C
};

const std::vector<Layout>& all_layouts();
const Layout* find_layout(aclFormat format, int spatial_rank);

// The arguments of one call, already acl objects. Each row's adapter passes the ones its entry
// point takes; `scales` holds the spatial axes in D, H, W order (first spatial_rank used).
struct CallArgs {
  const aclTensor* src = nullptr;  // self (forward) or gradOut (backward)
  aclTensor* dst = nullptr;        // out (forward) or gradInput / out (backward)
  const aclIntArray* output_size = nullptr;
  const aclIntArray* input_size = nullptr;  // backward only
  bool align_corners = false;
  std::array<double, 3> scales{0.0, 0.0, 0.0};
  // dst / src size of every dim, in the tensors' dim order (aclnnResize's `scales`).
  const aclFloatArray* dim_scales = nullptr;
};

using GetWorkspaceSizeFn = aclnnStatus (*)(const CallArgs& args, uint64_t* workspace_size,
                                           aclOpExecutor** executor);
using LaunchFn = aclnnStatus (*)(void* workspace, uint64_t workspace_size, aclOpExecutor* executor,
                                 aclrtStream stream);

// How an entry point turns its scale arguments into the scales it resamples with.
enum class ScaleRule {
  kPerAxis,    // each scale > 0 is used, a scale <= 0 means "not given" for its axis
  kAllOrNone,  // the scales are used only if every one is > 0 (CANN's trilinear)
  kIgnored,    // the ratio comes from the sizes (Bilinear2dBackward V1, Nearest1d/2d, Resize)
};

struct EntryPoint {
  const char* name;
  // Rows of one entry point that differ in an argument the harness does not vary otherwise
  // (aclnnResize's mode string) carry it here; printed as "name(variant)". nullptr: none.
  const char* variant = nullptr;
  Direction direction = Direction::kForward;
  reference::Mode mode = reference::Mode::kLinear;
  bool antialias = false;
  int spatial_rank = 2;
  std::vector<aclFormat> layouts;
  std::vector<aclDataType> dtypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
  bool has_align_corners = true;
  ScaleRule scale_rule = ScaleRule::kPerAxis;
  // The scale parameters are float (Nearest1dV2 / Nearest2dV2): the harness rounds the scales
  // of a case to float before passing them, and gives the reference the rounded values.
  bool float_scales = false;
  // Backward only: inputSize lists a channels-last gradInput's dims in format order
  // (N, spatial..., C) instead of N, C, spatial.... (Bilinear2dBackward V1 and
  // Bicubic2dBackward read the order from the out / gradInput format, Bilinear2dBackwardV2 and
  // Nearest2dBackward from gradOut's; the check gives both tensors one layout, so the two rules
  // coincide here.)
  bool input_size_in_format_order = false;
  // Backward only: the forward entry points whose transpose this is (the adjoint check pairs
  // each of them with this one).
  std::vector<const char*> adjoint_of = {};
  GetWorkspaceSizeFn get_workspace_size = nullptr;
  LaunchFn launch = nullptr;
};

const std::vector<EntryPoint>& all_entry_points();
// The first row named `name` (an entry point with variants has one row per variant).
const EntryPoint* find_entry_point(std::string_view name);
// "name" or "name(variant)".
std::string display_name(const EntryPoint& entry);
// Nearest and nearest-exact forward (aclnnResize's "nearest" included) copy elements: their
// results must equal the reference's bit for bit in every dtype.
bool bit_exact(const EntryPoint& entry);

// The scales a case passes to the entry point: `given`, rounded to float for float_scales.
std::array<double, 3> passed_scales(const EntryPoint& entry, const std::array<double, 3>& given);

// The scales the entry point resamples with, given the ones it was called with (<= 0 entries
// mean "not given", as in reference::Problem::scales).
std::array<double, 3> effective_scales(const EntryPoint& entry, const std::array<double, 3>& given);

}  // namespace upsample::cli
