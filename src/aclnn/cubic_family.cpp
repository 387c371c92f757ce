// CANN entry points of bicubic and of the antialiased bilinear / bicubic operators, forward and
// backward. Each states its rules (spec/aclnn-api.md section 2.2, with the deviations of
// docs/compat.md) and calls the generic entry of entry.cpp.
#include "aclnn/entry.hpp"
#include "aclnnop/aclnn_upsample_bicubic2d_aa.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa_grad.h"
#include "aclnnop/aclnn_upsample_bicubic_2d.h"
#include "aclnnop/aclnn_upsample_bicubic_2d_backward.h"
#include "aclnnop/aclnn_upsample_bilinear2d_aa.h"
#include "aclnnop/aclnn_upsample_bilinear2d_aa_backward.h"

using upsample::DType;
using upsample::Mode;
using upsample::aclnn::backward_entry;
using upsample::aclnn::EntryRules;
using upsample::aclnn::forward_entry;

namespace {

EntryRules rules(Mode mode, bool antialias, bool forward, std::vector<aclFormat> formats) {
  EntryRules r;
  r.mode = mode;
  r.antialias = antialias;
  r.spatial_rank = 2;
  r.dtypes = {DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kFloat64};
  r.formats = std::move(formats);
  if (!forward) r.in_name = "gradOut";
  return r;
}

// The antialias entry points: formats NCHW or ND (equal), negative scales rejected, no empty
// batch (CANN requires N, C, H, W > 0).
EntryRules antialias_rules(Mode mode, bool forward) {
  EntryRules r = rules(mode, true, forward, {ACL_FORMAT_NCHW, ACL_FORMAT_ND});
  r.formats_equal = true;
  r.reject_negative_scales = true;
  r.batch_may_be_empty = false;
  return r;
}

}  // namespace

extern "C" {

ACLNN_API aclnnStatus aclnnUpsampleBicubic2dGetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, const bool alignCorners,
    const double scalesH, const double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  EntryRules r =
      rules(Mode::kCubic, false, true, {ACL_FORMAT_NCHW, ACL_FORMAT_ND, ACL_FORMAT_NHWC});
  r.formats_equal = true;
  return forward_entry("aclnnUpsampleBicubic2d", r, self, outputSize, alignCorners,
                       {scalesH, scalesW}, out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleBicubic2d)

ACLNN_API aclnnStatus aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    const bool alignCorners, double scalesH, double scalesW, aclTensor* gradInput,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  EntryRules r =
      rules(Mode::kCubic, false, false, {ACL_FORMAT_NCHW, ACL_FORMAT_ND, ACL_FORMAT_NHWC});
  r.out_name = "gradInput";
  r.input_size_order = EntryRules::InputSizeOrder::kByOutFormat;  // CANN: by gradInput's format
  return backward_entry("aclnnUpsampleBicubic2dBackward", r, gradOut, outputSize, inputSize,
                        alignCorners, {scalesH, scalesW}, gradInput, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleBicubic2dBackward)

ACLNN_API aclnnStatus aclnnUpsampleBilinear2dAAGetWorkspaceSize(
    const aclTensor* input, const aclIntArray* outputSize, bool alignCorners, double scalesH,
    double scalesW, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  EntryRules r = antialias_rules(Mode::kLinear, true);
  r.in_name = "input";
  return forward_entry("aclnnUpsampleBilinear2dAA", r, input, outputSize, alignCorners,
                       {scalesH, scalesW}, out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleBilinear2dAA)

ACLNN_API aclnnStatus aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  EntryRules r = antialias_rules(Mode::kLinear, false);
  r.in_name = "gradOutput";
  return backward_entry("aclnnUpsampleBilinear2dAABackward", r, gradOutput, outputSize, inputSize,
                        alignCorners, {scalesH, scalesW}, out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleBilinear2dAABackward)

ACLNN_API aclnnStatus aclnnUpsampleBicubic2dAAGetWorkspaceSize(
    const aclTensor* x, const aclIntArray* outputSize, const bool alignCorners,
    const double scalesH, const double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  // CANN checks each format against {ND, NCHW} without requiring them equal, does not reject
  // negative scales (they mean "not given") and accepts an empty batch.
  EntryRules r = rules(Mode::kCubic, true, true, {ACL_FORMAT_NCHW, ACL_FORMAT_ND});
  r.in_name = "x";
  return forward_entry("aclnnUpsampleBicubic2dAA", r, x, outputSize, alignCorners,
                       {scalesH, scalesW}, out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleBicubic2dAA)

ACLNN_API aclnnStatus aclnnUpsampleBicubic2dAAGradGetWorkspaceSize(
    const aclTensor* gradOutput, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  EntryRules r = antialias_rules(Mode::kCubic, false);
  r.in_name = "gradOutput";
  return backward_entry("aclnnUpsampleBicubic2dAAGrad", r, gradOutput, outputSize, inputSize,
                        alignCorners, {scalesH, scalesW}, out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleBicubic2dAAGrad)

}  // extern "C"
