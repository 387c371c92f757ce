#include "entry_points.hpp"

#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"
#include "aclnnop/aclnn_upsample_linear_1d.h"
#include "aclnnop/aclnn_upsample_linear_1d_backward.h"
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
  static const std::vector<EntryPoint> kEntryPoints = {
      {
          .name = "aclnnUpsampleLinear1d",
          .spatial_rank = 1,
          .layouts = {ACL_FORMAT_NCL},
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleLinear1dGetWorkspaceSize(a.src, a.output_size, a.align_corners,
                                                             a.scales[0], a.dst, ws, ex);
              },
          .launch = aclnnUpsampleLinear1d,
      },
      {
          .name = "aclnnUpsampleLinear1dBackward",
          .direction = Direction::kBackward,
          .spatial_rank = 1,
          .layouts = {ACL_FORMAT_NCL},
          .adjoint_of = "aclnnUpsampleLinear1d",
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
          .layouts = {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC},
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleBilinear2dGetWorkspaceSize(
                    a.src, a.output_size, a.align_corners, a.scales[0], a.scales[1], a.dst, ws, ex);
              },
          .launch = aclnnUpsampleBilinear2d,
      },
      {
          .name = "aclnnUpsampleBilinear2dBackward",
          .direction = Direction::kBackward,
          .spatial_rank = 2,
          .layouts = {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC},
          .scale_rule = ScaleRule::kIgnored,
          .input_size_in_format_order = true,
          .adjoint_of = "aclnnUpsampleBilinear2d",
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
          .direction = Direction::kBackward,
          .spatial_rank = 2,
          .layouts = {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC},
          .input_size_in_format_order = true,
          .adjoint_of = "aclnnUpsampleBilinear2d",
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
          .layouts = {ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC},
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
          .direction = Direction::kBackward,
          .spatial_rank = 3,
          .layouts = {ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC},
          .scale_rule = ScaleRule::kAllOrNone,
          .adjoint_of = "aclnnUpsampleTrilinear3d",
          .get_workspace_size =
              [](const CallArgs& a, uint64_t* ws, aclOpExecutor** ex) {
                return aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(
                    a.src, a.output_size, a.input_size, a.align_corners, a.scales[0], a.scales[1],
                    a.scales[2], a.dst, ws, ex);
              },
          .launch = aclnnUpsampleTrilinear3dBackward,
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
