#include "check/entry_points.hpp"

#include <algorithm>
#include <iterator>
#include <tuple>

#include "aclnnop/aclnn_resize.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa_grad.h"
#include "aclnnop/aclnn_upsample_bicubic_2d.h"
#include "aclnnop/aclnn_upsample_bicubic_2d_backward.h"
#include "aclnnop/aclnn_upsample_bilinear2d_aa.h"
#include "aclnnop/aclnn_upsample_bilinear2d_aa_backward.h"
#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"
#include "aclnnop/aclnn_upsample_linear_1d.h"
#include "aclnnop/aclnn_upsample_linear_1d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_1d.h"
#include "aclnnop/aclnn_upsample_nearest_1d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_1d_v2.h"
#include "aclnnop/aclnn_upsample_nearest_2d.h"
#include "aclnnop/aclnn_upsample_nearest_2d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_2d_v2.h"
#include "aclnnop/aclnn_upsample_nearest_3d.h"
#include "aclnnop/aclnn_upsample_nearest_3d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact1d.h"
#include "aclnnop/aclnn_upsample_nearest_exact1d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact2d.h"
#include "aclnnop/aclnn_upsample_nearest_exact2d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"
#include "aclnnop/aclnn_upsample_trilinear_3d.h"
#include "aclnnop/aclnn_upsample_trilinear_3d_backward.h"

namespace upsample::cli {
namespace {

// The harness's arguments in the order of one GetWorkspaceSize function's parameter list, chosen
// by parameter type: the input tensor then the output tensor, outputSize then inputSize,
// alignCorners, the double or float scales in D, H, W order, aclnnResize's float array and
// mode string, and the two outputs. A parameter of another type does not compile.
class ArgumentSource {
 public:
  ArgumentSource(const CallArgs& args, uint64_t* workspace_size, aclOpExecutor** executor)
      : args_(args), workspace_size_(workspace_size), executor_(executor) {}

  template <typename T>
  T next();

 private:
  const CallArgs& args_;
  uint64_t* workspace_size_;
  aclOpExecutor** executor_;
  int int_arrays_ = 0;
  int scales_ = 0;
};

template <>
const aclTensor* ArgumentSource::next() {
  return args_.src;
}
template <>
aclTensor* ArgumentSource::next() {
  return args_.dst;
}
template <>
const aclIntArray* ArgumentSource::next() {
  return int_arrays_++ == 0 ? args_.output_size : args_.input_size;
}
template <>
bool ArgumentSource::next() {
  return args_.align_corners;
}
template <>
double ArgumentSource::next() {
  return args_.scales[scales_++];
}
template <>
float ArgumentSource::next() {
  return static_cast<float>(args_.scales[scales_++]);
}
template <>
const aclFloatArray* ArgumentSource::next() {
  return args_.dim_scales;
}
template <>
const char* ArgumentSource::next() {
  return args_.mode;
}
template <>
uint64_t* ArgumentSource::next() {
  return workspace_size_;
}
template <>
aclOpExecutor** ArgumentSource::next() {
  return executor_;
}

template <typename... Params>
aclnnStatus call_with(aclnnStatus (*function)(Params...), ArgumentSource source) {
  // A braced list evaluates its elements in order, so the sources are taken left to right.
  return std::apply(function, std::tuple<Params...>{source.next<Params>()...});
}

// The adapter of a GetWorkspaceSize function.
template <auto kGetWorkspaceSize>
aclnnStatus adapt(const CallArgs& args, uint64_t* workspace_size, aclOpExecutor** executor) {
  return call_with(kGetWorkspaceSize, ArgumentSource(args, workspace_size, executor));
}

// The call adapter of every entry point, keyed by name: its GetWorkspaceSize function through
// `adapt`, and its phase-two function. (aclnnResize's two rows share one adapter; the mode
// string comes from the row's variant.)
struct CallAdapter {
  const char* name;
  GetWorkspaceSizeFn get_workspace_size;
  LaunchFn launch;
};

constexpr CallAdapter kCallAdapters[] = {
    {"aclnnUpsampleLinear1d", adapt<aclnnUpsampleLinear1dGetWorkspaceSize>, aclnnUpsampleLinear1d},
    {"aclnnUpsampleLinear1dBackward", adapt<aclnnUpsampleLinear1dBackwardGetWorkspaceSize>,
     aclnnUpsampleLinear1dBackward},
    {"aclnnUpsampleBilinear2d", adapt<aclnnUpsampleBilinear2dGetWorkspaceSize>,
     aclnnUpsampleBilinear2d},
    {"aclnnUpsampleBilinear2dBackward", adapt<aclnnUpsampleBilinear2dBackwardGetWorkspaceSize>,
     aclnnUpsampleBilinear2dBackward},
    {"aclnnUpsampleBilinear2dBackwardV2", adapt<aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize>,
     aclnnUpsampleBilinear2dBackwardV2},
    {"aclnnUpsampleTrilinear3d", adapt<aclnnUpsampleTrilinear3dGetWorkspaceSize>,
     aclnnUpsampleTrilinear3d},
    {"aclnnUpsampleTrilinear3dBackward", adapt<aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize>,
     aclnnUpsampleTrilinear3dBackward},
    {"aclnnUpsampleNearest1d", adapt<aclnnUpsampleNearest1dGetWorkspaceSize>,
     aclnnUpsampleNearest1d},
    {"aclnnUpsampleNearest2d", adapt<aclnnUpsampleNearest2dGetWorkspaceSize>,
     aclnnUpsampleNearest2d},
    {"aclnnUpsampleNearest1dV2", adapt<aclnnUpsampleNearest1dV2GetWorkspaceSize>,
     aclnnUpsampleNearest1dV2},
    {"aclnnUpsampleNearest2dV2", adapt<aclnnUpsampleNearest2dV2GetWorkspaceSize>,
     aclnnUpsampleNearest2dV2},
    {"aclnnUpsampleNearest3d", adapt<aclnnUpsampleNearest3dGetWorkspaceSize>,
     aclnnUpsampleNearest3d},
    {"aclnnUpsampleNearest1dBackward", adapt<aclnnUpsampleNearest1dBackwardGetWorkspaceSize>,
     aclnnUpsampleNearest1dBackward},
    {"aclnnUpsampleNearest2dBackward", adapt<aclnnUpsampleNearest2dBackwardGetWorkspaceSize>,
     aclnnUpsampleNearest2dBackward},
    {"aclnnUpsampleNearest3dBackward", adapt<aclnnUpsampleNearest3dBackwardGetWorkspaceSize>,
     aclnnUpsampleNearest3dBackward},
    {"aclnnUpsampleNearestExact1d", adapt<aclnnUpsampleNearestExact1dGetWorkspaceSize>,
     aclnnUpsampleNearestExact1d},
    {"aclnnUpsampleNearestExact2d", adapt<aclnnUpsampleNearestExact2dGetWorkspaceSize>,
     aclnnUpsampleNearestExact2d},
    {"aclnnUpsampleNearestExact3d", adapt<aclnnUpsampleNearestExact3dGetWorkspaceSize>,
     aclnnUpsampleNearestExact3d},
    {"aclnnUpsampleNearestExact1dBackward",
     adapt<aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize>,
     aclnnUpsampleNearestExact1dBackward},
    {"aclnnUpsampleNearestExact2dBackward",
     adapt<aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize>,
     aclnnUpsampleNearestExact2dBackward},
    {"aclnnUpsampleNearestExact3dBackward",
     adapt<aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize>,
     aclnnUpsampleNearestExact3dBackward},
    {"aclnnUpsampleBicubic2d", adapt<aclnnUpsampleBicubic2dGetWorkspaceSize>,
     aclnnUpsampleBicubic2d},
    {"aclnnUpsampleBicubic2dBackward", adapt<aclnnUpsampleBicubic2dBackwardGetWorkspaceSize>,
     aclnnUpsampleBicubic2dBackward},
    {"aclnnUpsampleBilinear2dAA", adapt<aclnnUpsampleBilinear2dAAGetWorkspaceSize>,
     aclnnUpsampleBilinear2dAA},
    {"aclnnUpsampleBilinear2dAABackward", adapt<aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize>,
     aclnnUpsampleBilinear2dAABackward},
    {"aclnnUpsampleBicubic2dAA", adapt<aclnnUpsampleBicubic2dAAGetWorkspaceSize>,
     aclnnUpsampleBicubic2dAA},
    {"aclnnUpsampleBicubic2dAAGrad", adapt<aclnnUpsampleBicubic2dAAGradGetWorkspaceSize>,
     aclnnUpsampleBicubic2dAAGrad},
    {"aclnnResize", adapt<aclnnResizeGetWorkspaceSize>, aclnnResize},
};

constexpr const CallAdapter* find_adapter(std::string_view name) {
  for (const CallAdapter& a : kCallAdapters) {
    if (name == a.name) return &a;
  }
  return nullptr;
}

// Every row of the table has an adapter, and every adapter a row.
static_assert(std::ranges::all_of(aclnn::kEntryRows, [](const aclnn::EntryRow& r) {
  return find_adapter(r.name) != nullptr;
}));
static_assert(std::ranges::all_of(kCallAdapters, [](const CallAdapter& a) {
  return std::ranges::any_of(aclnn::kEntryRows, [&](const aclnn::EntryRow& r) {
    return std::string_view(a.name) == r.name;
  });
}));

// The layouts a row is run in (see EntryPoint::layouts).
std::vector<const Layout*> layouts_of(const aclnn::EntryRow& row) {
  std::vector<const Layout*> layouts;
  if (row.format_count == 0) {
    for (const Layout& l : all_layouts()) {
      if (l.spatial_rank == row.spatial_rank) layouts.push_back(&l);
    }
    return layouts;
  }
  for (int i = 0; i < row.format_count; ++i) {
    const Layout* l = find_layout(row.formats[i], row.spatial_rank);
    if (l != nullptr) layouts.push_back(l);  // ND has no layout of its own
  }
  return layouts;
}

// Whether `forward` is a forward entry point whose transpose `backward` computes.
bool is_adjoint_pair(const aclnn::EntryRow& forward, const aclnn::EntryRow& backward) {
  return forward.direction == Direction::kForward && backward.direction == Direction::kBackward &&
         forward.variant == nullptr && forward.mode == backward.mode &&
         forward.antialias == backward.antialias && forward.spatial_rank == backward.spatial_rank;
}

std::vector<EntryPoint> make_entry_points() {
  std::vector<EntryPoint> entries;
  entries.reserve(std::size(aclnn::kEntryRows));  // adjoint_of points into it: no reallocation
  for (const aclnn::EntryRow& row : aclnn::kEntryRows) {
    const CallAdapter* adapter = find_adapter(row.name);
    entries.push_back({&row, layouts_of(row), {}, adapter->get_workspace_size, adapter->launch});
  }
  for (EntryPoint& backward : entries) {
    for (const EntryPoint& forward : entries) {
      if (is_adjoint_pair(*forward.row, *backward.row)) backward.adjoint_of.push_back(&forward);
    }
  }
  return entries;
}

}  // namespace

const std::vector<Layout>& all_layouts() {
  static const std::vector<Layout> kLayouts = {
      {"NCL", ACL_FORMAT_NCL, 1, false},    {"NCHW", ACL_FORMAT_NCHW, 2, false},
      {"NHWC", ACL_FORMAT_NHWC, 2, true},   {"NCDHW", ACL_FORMAT_NCDHW, 3, false},
      {"NDHWC", ACL_FORMAT_NDHWC, 3, true},
  };
  return kLayouts;
}

const Layout* find_layout(aclFormat format, int spatial_rank) {
  for (const Layout& l : all_layouts()) {
    if (l.format == format && l.spatial_rank == spatial_rank) return &l;
  }
  return nullptr;
}

bool EntryPoint::runs(const Layout& layout) const {
  return std::find(layouts.begin(), layouts.end(), &layout) != layouts.end();
}

const std::vector<EntryPoint>& all_entry_points() {
  static const std::vector<EntryPoint> kEntryPoints = make_entry_points();
  return kEntryPoints;
}

std::string display_name(const EntryPoint& entry) {
  const char* variant = entry.row->variant;
  return variant == nullptr ? std::string(entry.name())
                            : std::string(entry.name()) + "(" + variant + ")";
}

bool bit_exact(const EntryPoint& entry) {
  const aclnn::EntryRow& row = *entry.row;
  return entry.forward() && !row.antialias &&
         (row.mode == Mode::kNearest || row.mode == Mode::kNearestExact);
}

std::array<double, 3> passed_scales(const EntryPoint& entry, const std::array<double, 3>& given) {
  if (!entry.row->float_scales) return given;
  std::array<double, 3> rounded{};
  for (size_t a = 0; a < rounded.size(); ++a) rounded[a] = static_cast<float>(given[a]);
  return rounded;
}

}  // namespace upsample::cli
