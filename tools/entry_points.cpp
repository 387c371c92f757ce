#include "entry_points.hpp"

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

const std::vector<EntryPoint>& all_entry_points() {
  using reference::Mode;
  constexpr Direction kBackward = Direction::kBackward;
  static const std::vector<aclFormat> k1d = {ACL_FORMAT_NCL};
  static const std::vector<aclFormat> k2d = {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC};
  static const std::vector<aclFormat> kNchw = {ACL_FORMAT_NCHW};
  static const std::vector<aclFormat> k3d = {ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC};
  static const std::vector<aclDataType> kWithU8 = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16,
                                                   ACL_DOUBLE, ACL_UINT8};
  // Rows in the order of docs/ops.md's families: linear, nearest, nearest-exact, cubic and
  // antialias, resize. Each adapter passes CallArgs to its entry point's own parameter list.
  static const std::vector<EntryPoint> kEntryPoints = {
      // ---- linear, bilinear, trilinear ----------------------------------------------------
      {
          .name = "aclnnUpsampleLinear1d",
          .spatial_rank = 1,
          .layouts = k1d,
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleLinear1dGetWorkspaceSize(a.src, a.output_size, a.align_corners,
                                                             a.scales[0], a.dst, ws, ex);
              },
          .launch = aclnnUpsampleLinear1d,
      },
      {
          .name = "aclnnUpsampleLinear1dBackward",
          .direction = kBackward,
          .spatial_rank = 1,
          .layouts = k1d,
          .adjoint_of = {"aclnnUpsampleLinear1d"},
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleLinear1dBackwardGetWorkspaceSize(a.src, a.output_size,
                                                                     a.input_size, a.align_corners,
                                                                     a.scales[0], a.dst, ws, ex);
              },
          .launch = aclnnUpsampleLinear1dBackward,
      },
      {
          .name = "aclnnUpsampleBilinear2d",
          .spatial_rank = 2,
          .layouts = k2d,
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleBilinear2dGetWorkspaceSize(
                    a.src, a.output_size, a.align_corners, a.scales[0], a.scales[1], a.dst, ws, ex);
              },
          .launch = aclnnUpsampleBilinear2d,
      },
      {
          .name = "aclnnUpsampleBilinear2dBackward",
          .direction = kBackward,
          .spatial_rank = 2,
          .layouts = k2d,
          .scale_rule = ScaleRule::kIgnored,
          .input_size_in_format_order = true,
          .adjoint_of = {"aclnnUpsampleBilinear2d"},
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleBilinear2dBackwardGetWorkspaceSize(
                    a.src, a.output_size, a.input_size, a.align_corners, a.scales[0], a.scales[1],
                    a.dst, ws, ex);
              },
          .launch = aclnnUpsampleBilinear2dBackward,
      },
      {
          .name = "aclnnUpsampleBilinear2dBackwardV2",
          .direction = kBackward,
          .spatial_rank = 2,
          .layouts = k2d,
          .input_size_in_format_order = true,
          .adjoint_of = {"aclnnUpsampleBilinear2d"},
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(
                    a.src, a.output_size, a.input_size, a.align_corners, a.scales[0], a.scales[1],
                    a.dst, ws, ex);
              },
          .launch = aclnnUpsampleBilinear2dBackwardV2,
      },
      {
          .name = "aclnnUpsampleTrilinear3d",
          .spatial_rank = 3,
          .layouts = k3d,
          .scale_rule = ScaleRule::kAllOrNone,
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleTrilinear3dGetWorkspaceSize(
                    a.src, a.output_size, a.align_corners, a.scales[0], a.scales[1], a.scales[2],
                    a.dst, ws, ex);
              },
          .launch = aclnnUpsampleTrilinear3d,
      },
      {
          .name = "aclnnUpsampleTrilinear3dBackward",
          .direction = kBackward,
          .spatial_rank = 3,
          .layouts = k3d,
          .scale_rule = ScaleRule::kAllOrNone,
          .adjoint_of = {"aclnnUpsampleTrilinear3d"},
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(
                    a.src, a.output_size, a.input_size, a.align_corners, a.scales[0], a.scales[1],
                    a.scales[2], a.dst, ws, ex);
              },
          .launch = aclnnUpsampleTrilinear3dBackward,
      },
      // ---- nearest ------------------------------------------------------------------------
      {
          .name = "aclnnUpsampleNearest1d",
          .mode = Mode::kNearest,
          .spatial_rank = 1,
          .layouts = k1d,
          .dtypes = kWithU8,
          .has_align_corners = false,
          .scale_rule = ScaleRule::kIgnored,  // takes no scales
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleNearest1dGetWorkspaceSize(a.src, a.output_size, a.dst, ws, ex);
              },
          .launch = aclnnUpsampleNearest1d,
      },
      {
          .name = "aclnnUpsampleNearest2d",
          .mode = Mode::kNearest,
          .spatial_rank = 2,
          .layouts = k2d,
          .dtypes = kWithU8,
          .has_align_corners = false,
          .scale_rule = ScaleRule::kIgnored,  // takes no scales
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleNearest2dGetWorkspaceSize(a.src, a.output_size, a.dst, ws, ex);
              },
          .launch = aclnnUpsampleNearest2d,
      },
      {
          .name = "aclnnUpsampleNearest1dV2",
          .mode = Mode::kNearest,
          .spatial_rank = 1,
          .layouts = k1d,
          .dtypes = kWithU8,
          .has_align_corners = false,
          .float_scales = true,
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleNearest1dV2GetWorkspaceSize(
                    a.src, a.output_size, static_cast<float>(a.scales[0]), a.dst, ws, ex);
              },
          .launch = aclnnUpsampleNearest1dV2,
      },
      {
          .name = "aclnnUpsampleNearest2dV2",
          .mode = Mode::kNearest,
          .spatial_rank = 2,
          .layouts = k2d,
          .dtypes = kWithU8,
          .has_align_corners = false,
          .float_scales = true,
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleNearest2dV2GetWorkspaceSize(
                    a.src, a.output_size, static_cast<float>(a.scales[0]),
                    static_cast<float>(a.scales[1]), a.dst, ws, ex);
              },
          .launch = aclnnUpsampleNearest2dV2,
      },
      {
          .name = "aclnnUpsampleNearest3d",
          .mode = Mode::kNearest,
          .spatial_rank = 3,
          .layouts = k3d,
          .dtypes = kWithU8,
          .has_align_corners = false,
          .scale_rule = ScaleRule::kAllOrNone,
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleNearest3dGetWorkspaceSize(a.src, a.output_size, a.scales[0],
                                                              a.scales[1], a.scales[2], a.dst, ws,
                                                              ex);
              },
          .launch = aclnnUpsampleNearest3d,
      },
      {
          .name = "aclnnUpsampleNearest1dBackward",
          .direction = kBackward,
          .mode = Mode::kNearest,
          .spatial_rank = 1,
          .layouts = k1d,
          .has_align_corners = false,
          .adjoint_of = {"aclnnUpsampleNearest1d", "aclnnUpsampleNearest1dV2"},
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleNearest1dBackwardGetWorkspaceSize(
                    a.src, a.output_size, a.input_size, a.scales[0], a.dst, ws, ex);
              },
          .launch = aclnnUpsampleNearest1dBackward,
      },
      {
          .name = "aclnnUpsampleNearest2dBackward",
          .direction = kBackward,
          .mode = Mode::kNearest,
          .spatial_rank = 2,
          .layouts = k2d,
          .has_align_corners = false,
          .input_size_in_format_order = true,  // in gradOut's format order
          .adjoint_of = {"aclnnUpsampleNearest2d", "aclnnUpsampleNearest2dV2"},
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleNearest2dBackwardGetWorkspaceSize(
                    a.src, a.output_size, a.input_size, a.scales[0], a.scales[1], a.dst, ws, ex);
              },
          .launch = aclnnUpsampleNearest2dBackward,
      },
      {
          .name = "aclnnUpsampleNearest3dBackward",
          .direction = kBackward,
          .mode = Mode::kNearest,
          .spatial_rank = 3,
          .layouts = k3d,
          .has_align_corners = false,
          .scale_rule = ScaleRule::kAllOrNone,
          .adjoint_of = {"aclnnUpsampleNearest3d"},
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleNearest3dBackwardGetWorkspaceSize(
                    a.src, a.output_size, a.input_size, a.scales[0], a.scales[1], a.scales[2],
                    a.dst, ws, ex);
              },
          .launch = aclnnUpsampleNearest3dBackward,
      },
      // ---- nearest-exact ------------------------------------------------------------------
      {
          .name = "aclnnUpsampleNearestExact1d",
          .mode = Mode::kNearestExact,
          .spatial_rank = 1,
          .layouts = k1d,
          .dtypes = kWithU8,
          .has_align_corners = false,
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleNearestExact1dGetWorkspaceSize(a.src, a.output_size,
                                                                   a.scales[0], a.dst, ws, ex);
              },
          .launch = aclnnUpsampleNearestExact1d,
      },
      {
          .name = "aclnnUpsampleNearestExact2d",
          .mode = Mode::kNearestExact,
          .spatial_rank = 2,
          .layouts = k2d,
          .dtypes = kWithU8,
          .has_align_corners = false,
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleNearestExact2dGetWorkspaceSize(
                    a.src, a.output_size, a.scales[0], a.scales[1], a.dst, ws, ex);
              },
          .launch = aclnnUpsampleNearestExact2d,
      },
      {
          .name = "aclnnUpsampleNearestExact3d",
          .mode = Mode::kNearestExact,
          .spatial_rank = 3,
          .layouts = k3d,
          .dtypes = kWithU8,
          .has_align_corners = false,
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleNearestExact3dGetWorkspaceSize(
                    a.src, a.output_size, a.scales[0], a.scales[1], a.scales[2], a.dst, ws, ex);
              },
          .launch = aclnnUpsampleNearestExact3d,
      },
      {
          .name = "aclnnUpsampleNearestExact1dBackward",
          .direction = kBackward,
          .mode = Mode::kNearestExact,
          .spatial_rank = 1,
          .layouts = k1d,
          .has_align_corners = false,
          .adjoint_of = {"aclnnUpsampleNearestExact1d"},
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(
                    a.src, a.output_size, a.input_size, a.scales[0], a.dst, ws, ex);
              },
          .launch = aclnnUpsampleNearestExact1dBackward,
      },
      {
          .name = "aclnnUpsampleNearestExact2dBackward",
          .direction = kBackward,
          .mode = Mode::kNearestExact,
          .spatial_rank = 2,
          .layouts = kNchw,
          .has_align_corners = false,
          .adjoint_of = {"aclnnUpsampleNearestExact2d"},
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(
                    a.src, a.output_size, a.input_size, a.scales[0], a.scales[1], a.dst, ws, ex);
              },
          .launch = aclnnUpsampleNearestExact2dBackward,
      },
      {
          .name = "aclnnUpsampleNearestExact3dBackward",
          .direction = kBackward,
          .mode = Mode::kNearestExact,
          .spatial_rank = 3,
          .layouts = k3d,
          .has_align_corners = false,
          .adjoint_of = {"aclnnUpsampleNearestExact3d"},
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
                    a.src, a.output_size, a.input_size, a.scales[0], a.scales[1], a.scales[2],
                    a.dst, ws, ex);
              },
          .launch = aclnnUpsampleNearestExact3dBackward,
      },
      // ---- bicubic and antialias ----------------------------------------------------------
      {
          .name = "aclnnUpsampleBicubic2d",
          .mode = Mode::kCubic,
          .spatial_rank = 2,
          .layouts = k2d,
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleBicubic2dGetWorkspaceSize(
                    a.src, a.output_size, a.align_corners, a.scales[0], a.scales[1], a.dst, ws, ex);
              },
          .launch = aclnnUpsampleBicubic2d,
      },
      {
          .name = "aclnnUpsampleBicubic2dBackward",
          .direction = kBackward,
          .mode = Mode::kCubic,
          .spatial_rank = 2,
          .layouts = k2d,
          .input_size_in_format_order = true,  // in gradInput's format order
          .adjoint_of = {"aclnnUpsampleBicubic2d"},
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(
                    a.src, a.output_size, a.input_size, a.align_corners, a.scales[0], a.scales[1],
                    a.dst, ws, ex);
              },
          .launch = aclnnUpsampleBicubic2dBackward,
      },
      {
          .name = "aclnnUpsampleBilinear2dAA",
          .mode = Mode::kLinear,
          .antialias = true,
          .spatial_rank = 2,
          .layouts = kNchw,
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleBilinear2dAAGetWorkspaceSize(
                    a.src, a.output_size, a.align_corners, a.scales[0], a.scales[1], a.dst, ws, ex);
              },
          .launch = aclnnUpsampleBilinear2dAA,
      },
      {
          .name = "aclnnUpsampleBilinear2dAABackward",
          .direction = kBackward,
          .mode = Mode::kLinear,
          .antialias = true,
          .spatial_rank = 2,
          .layouts = kNchw,
          .adjoint_of = {"aclnnUpsampleBilinear2dAA"},
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize(
                    a.src, a.output_size, a.input_size, a.align_corners, a.scales[0], a.scales[1],
                    a.dst, ws, ex);
              },
          .launch = aclnnUpsampleBilinear2dAABackward,
      },
      {
          .name = "aclnnUpsampleBicubic2dAA",
          .mode = Mode::kCubic,
          .antialias = true,
          .spatial_rank = 2,
          .layouts = kNchw,
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleBicubic2dAAGetWorkspaceSize(
                    a.src, a.output_size, a.align_corners, a.scales[0], a.scales[1], a.dst, ws, ex);
              },
          .launch = aclnnUpsampleBicubic2dAA,
      },
      {
          .name = "aclnnUpsampleBicubic2dAAGrad",
          .direction = kBackward,
          .mode = Mode::kCubic,
          .antialias = true,
          .spatial_rank = 2,
          .layouts = kNchw,
          .adjoint_of = {"aclnnUpsampleBicubic2dAA"},
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleBicubic2dAAGradGetWorkspaceSize(
                    a.src, a.output_size, a.input_size, a.align_corners, a.scales[0], a.scales[1],
                    a.dst, ws, ex);
              },
          .launch = aclnnUpsampleBicubic2dAAGrad,
      },
      // ---- resize: per-dim float scales in the tensor's dim order, the ratio from the sizes --
      {
          .name = "aclnnResize",
          .variant = "nearest",
          .mode = Mode::kNearest,
          .spatial_rank = 2,
          .layouts = k2d,
          .has_align_corners = false,
          .scale_rule = ScaleRule::kIgnored,
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnResizeGetWorkspaceSize(a.src, a.dim_scales, "nearest", a.dst, ws, ex);
              },
          .launch = aclnnResize,
      },
      {
          .name = "aclnnResize",
          .variant = "bilinear",
          .mode = Mode::kLinear,  // half-pixel centres, align_corners false
          .spatial_rank = 2,
          .layouts = k2d,
          .has_align_corners = false,
          .scale_rule = ScaleRule::kIgnored,
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnResizeGetWorkspaceSize(a.src, a.dim_scales, "bilinear", a.dst, ws, ex);
              },
          .launch = aclnnResize,
      },
  };
  return kEntryPoints;
}

const EntryPoint* find_entry_point(std::string_view name) {
  for (const EntryPoint& e : all_entry_points()) {
    if (name == e.name) return &e;
  }
  return nullptr;
}

std::string display_name(const EntryPoint& entry) {
  return entry.variant == nullptr ? std::string(entry.name)
                                  : std::string(entry.name) + "(" + entry.variant + ")";
}

bool bit_exact(const EntryPoint& entry) {
  return entry.direction == Direction::kForward && !entry.antialias &&
         (entry.mode == reference::Mode::kNearest || entry.mode == reference::Mode::kNearestExact);
}

std::array<double, 3> passed_scales(const EntryPoint& entry, const std::array<double, 3>& given) {
  if (!entry.float_scales) return given;
  std::array<double, 3> rounded{};
  for (size_t a = 0; a < rounded.size(); ++a) rounded[a] = static_cast<float>(given[a]);
  return rounded;
}

std::array<double, 3> effective_scales(const EntryPoint& entry,
                                       const std::array<double, 3>& given) {
  constexpr std::array<double, 3> kNone{0.0, 0.0, 0.0};
  switch (entry.scale_rule) {
    case ScaleRule::kPerAxis:
      return given;
    case ScaleRule::kAllOrNone:
      for (int a = 0; a < entry.spatial_rank; ++a) {
        if (!(given[a] > 0.0)) return kNone;
      }
      return given;
    case ScaleRule::kIgnored:
      return kNone;
  }
  return kNone;
}

}  // namespace upsample::cli
