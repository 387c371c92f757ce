// CANN entry points of the linear family: linear1d, bilinear2d, trilinear3d, forward and
// backward. Each states its rules (spec/aclnn-api.md section 2.2, with the deliberate
// deviations of docs/compat.md) and calls the generic entry of entry.cpp.
#include "aclnn/entry.hpp"
#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"
#include "aclnnop/aclnn_upsample_linear_1d.h"
#include "aclnnop/aclnn_upsample_linear_1d_backward.h"
#include "aclnnop/aclnn_upsample_trilinear_3d.h"
#include "aclnnop/aclnn_upsample_trilinear_3d_backward.h"

using upsample::DType;
using upsample::Mode;
using upsample::aclnn::EntryRules;

namespace {

const std::vector<DType> kFloatTypes = {DType::kFloat32, DType::kFloat16, DType::kBFloat16,
                                        DType::kFloat64};

EntryRules linear1d_rules() {
  EntryRules r;
  r.mode = Mode::kLinear;
  r.spatial_rank = 1;
  r.dtypes = kFloatTypes;  // format not checked (CANN): dims read as N, C, L
  return r;
}

EntryRules bilinear2d_rules() {
  EntryRules r;
  r.mode = Mode::kLinear;
  r.spatial_rank = 2;
  r.dtypes = kFloatTypes;
  r.formats = {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC};
  return r;
}

EntryRules trilinear3d_rules() {
  EntryRules r;
  r.mode = Mode::kLinear;
  r.spatial_rank = 3;
  r.dtypes = kFloatTypes;
  r.formats = {ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC};
  r.scales_all_or_none = true;  // CANN: the scales are used only if all three are > 0
  return r;
}

}  // namespace

extern "C" {

ACLNN_API aclnnStatus aclnnUpsampleLinear1dGetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, const bool alignCorners,
    const double scales, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return upsample::aclnn::forward_entry("aclnnUpsampleLinear1d", linear1d_rules(), self, outputSize,
                                        alignCorners, {scales}, out, workspaceSize, executor);
}

UPS_ACLNN_PHASE2(aclnnUpsampleLinear1d)

ACLNN_API aclnnStatus aclnnUpsampleLinear1dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scales, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  EntryRules rules = linear1d_rules();
  rules.in_name = "gradOut";
  return upsample::aclnn::backward_entry("aclnnUpsampleLinear1dBackward", rules, gradOut,
                                         outputSize, inputSize, alignCorners, {scales}, out,
                                         workspaceSize, executor);
}

UPS_ACLNN_PHASE2(aclnnUpsampleLinear1dBackward)

ACLNN_API aclnnStatus aclnnUpsampleBilinear2dGetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, const bool alignCorners,
    const double scalesH, const double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  EntryRules rules = bilinear2d_rules();
  rules.formats_equal = true;
  rules.reject_negative_scales = true;
  return upsample::aclnn::forward_entry("aclnnUpsampleBilinear2d", rules, self, outputSize,
                                        alignCorners, {scalesH, scalesW}, out, workspaceSize,
                                        executor);
}

UPS_ACLNN_PHASE2(aclnnUpsampleBilinear2d)

ACLNN_API aclnnStatus aclnnUpsampleBilinear2dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  EntryRules rules = bilinear2d_rules();
  rules.in_name = "gradOut";
  rules.ignore_scales = true;  // CANN's V1 takes the ratio from the sizes
  rules.input_size_order = EntryRules::InputSizeOrder::kByOutFormat;
  return upsample::aclnn::backward_entry("aclnnUpsampleBilinear2dBackward", rules, gradOut,
                                         outputSize, inputSize, alignCorners, {scalesH, scalesW},
                                         out, workspaceSize, executor);
}

UPS_ACLNN_PHASE2(aclnnUpsampleBilinear2dBackward)

ACLNN_API aclnnStatus aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  EntryRules rules = bilinear2d_rules();
  rules.in_name = "gradOut";
  rules.input_size_order = EntryRules::InputSizeOrder::kByGradFormat;
  return upsample::aclnn::backward_entry("aclnnUpsampleBilinear2dBackwardV2", rules, gradOut,
                                         outputSize, inputSize, alignCorners, {scalesH, scalesW},
                                         out, workspaceSize, executor);
}

UPS_ACLNN_PHASE2(aclnnUpsampleBilinear2dBackwardV2)

ACLNN_API aclnnStatus aclnnUpsampleTrilinear3dGetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, bool alignCorners, double scalesD,
    double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  return upsample::aclnn::forward_entry("aclnnUpsampleTrilinear3d", trilinear3d_rules(), self,
                                        outputSize, alignCorners, {scalesD, scalesH, scalesW}, out,
                                        workspaceSize, executor);
}

UPS_ACLNN_PHASE2(aclnnUpsampleTrilinear3d)

ACLNN_API aclnnStatus aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scalesD, double scalesH, double scalesW, aclTensor* gradInput,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  // CANN reads inputSize as N, C, D, H, W whatever the formats.
  EntryRules rules = trilinear3d_rules();
  rules.in_name = "gradOut";
  rules.out_name = "gradInput";
  return upsample::aclnn::backward_entry(
      "aclnnUpsampleTrilinear3dBackward", rules, gradOut, outputSize, inputSize, alignCorners,
      {scalesD, scalesH, scalesW}, gradInput, workspaceSize, executor);
}

UPS_ACLNN_PHASE2(aclnnUpsampleTrilinear3dBackward)

}  // extern "C"
