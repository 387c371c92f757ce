// The aclnn entry points `upsample check` exercises: the library's own table of entry points
// (src/aclnn/entry_table.hpp) says what each one computes and which dtypes, formats and scales
// it takes; this file adds what the check needs on top of a row (the layouts it runs, the
// forward entry points a backward one is the transpose of) and, per CANN signature, the adapter
// that places the harness's arguments into the entry point's own parameter list.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "aclnn/acl_meta.h"
#include "aclnn/entry_table.hpp"
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

// The arguments of one call, already acl objects. Each adapter passes the ones its entry point
// takes; `scales` holds the spatial axes in D, H, W order (first spatial_rank used).
struct CallArgs {
  const aclTensor* src = nullptr;  // self (forward) or gradOut (backward)
  aclTensor* dst = nullptr;        // out (forward) or gradInput / out (backward)
  const aclIntArray* output_size = nullptr;
  const aclIntArray* input_size = nullptr;  // backward only
  bool align_corners = false;
  std::array<double, 3> scales{0.0, 0.0, 0.0};
  // dst / src size of every dim, in the tensors' dim order (aclnnResize's `scales`).
  const aclFloatArray* dim_scales = nullptr;
  const char* mode = nullptr;  // aclnnResize's mode string (the row's variant)
};

using GetWorkspaceSizeFn = aclnnStatus (*)(const CallArgs& args, uint64_t* workspace_size,
                                           aclOpExecutor** executor);
using LaunchFn = aclnnStatus (*)(void* workspace, uint64_t workspace_size, aclOpExecutor* executor,
                                 aclrtStream stream);

// One row of the entry table as the check runs it.
struct EntryPoint {
  const aclnn::EntryRow* row = nullptr;
  // The row's formats that have a layout of the row's rank (ND, read as the rank's channels-
  // first format, is not run separately), or every layout of the rank when the row accepts any
  // format; in the row's order.
  std::vector<const Layout*> layouts;
  // Backward only: the forward entry points whose transpose this is (same mode, antialias and
  // rank; aclnnResize's variants are forward-only and excluded), which the adjoint check pairs
  // with this one.
  std::vector<const EntryPoint*> adjoint_of;
  GetWorkspaceSizeFn get_workspace_size = nullptr;
  LaunchFn launch = nullptr;

  const char* name() const { return row->name; }
  bool forward() const { return row->direction == Direction::kForward; }
  int spatial_rank() const { return row->spatial_rank; }
  bool takes(DType dtype) const { return (row->dtypes & aclnn::dtype_bit(dtype)) != 0; }
  bool runs(const Layout& layout) const;
};

// One EntryPoint per row of aclnn::kEntryRows, in the table's order.
const std::vector<EntryPoint>& all_entry_points();
// "name" or "name(variant)".
std::string display_name(const EntryPoint& entry);
// Nearest and nearest-exact forward (aclnnResize's "nearest" included) copy elements: their
// results must equal the reference's bit for bit in every dtype.
bool bit_exact(const EntryPoint& entry);

// The scales a case passes to the entry point: `given`, rounded to float where the entry point's
// scale parameters are float.
std::array<double, 3> passed_scales(const EntryPoint& entry, const std::array<double, 3>& given);

}  // namespace upsample::cli
