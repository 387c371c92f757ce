// CANN entry points of the nearest and nearest-exact families, forward and backward. Each states
// its rules (spec/aclnn-api.md section 2.2, with the deviations of docs/compat.md) and calls the
// generic entry of entry.cpp.
#include "aclnn/entry.hpp"
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

using upsample::DType;
using upsample::Mode;
using upsample::aclnn::backward_entry;
using upsample::aclnn::EntryRules;
using upsample::aclnn::forward_entry;
using Order = EntryRules::InputSizeOrder;

namespace {

// Nearest forward moves elements, so uint8 is exact; backward sums, so it is float only.
const std::vector<DType> kForwardTypes = {DType::kFloat32, DType::kFloat16, DType::kBFloat16,
                                          DType::kFloat64, DType::kUInt8};
const std::vector<DType> kBackwardTypes = {DType::kFloat32, DType::kFloat16, DType::kBFloat16,
                                           DType::kFloat64};
const std::vector<aclFormat> kFormats1d = {ACL_FORMAT_NCL, ACL_FORMAT_ND};
const std::vector<aclFormat> kFormats2d = {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC};
const std::vector<aclFormat> kFormats3d = {ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC, ACL_FORMAT_ND};

EntryRules rules(Mode mode, int spatial_rank, bool forward, std::vector<aclFormat> formats) {
  EntryRules r;
  r.mode = mode;
  r.spatial_rank = spatial_rank;
  r.dtypes = forward ? kForwardTypes : kBackwardTypes;
  r.formats = std::move(formats);
  if (!forward) r.in_name = "gradOut";
  return r;
}

}  // namespace

extern "C" {

// ---- nearest, forward -------------------------------------------------------------------------

ACLNN_API aclnnStatus aclnnUpsampleNearest1dGetWorkspaceSize(const aclTensor* self,
                                                             const aclIntArray* outputSize,
                                                             aclTensor* out,
                                                             uint64_t* workspaceSize,
                                                             aclOpExecutor** executor) {
  EntryRules r = rules(Mode::kNearest, 1, true, {ACL_FORMAT_NCL});
  r.formats_equal = true;
  return forward_entry("aclnnUpsampleNearest1d", r, self, outputSize, false, {0.0}, out,
                       workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearest1d)

ACLNN_API aclnnStatus aclnnUpsampleNearest2dGetWorkspaceSize(const aclTensor* self,
                                                             const aclIntArray* outputSize,
                                                             aclTensor* out,
                                                             uint64_t* workspaceSize,
                                                             aclOpExecutor** executor) {
  EntryRules r = rules(Mode::kNearest, 2, true, kFormats2d);
  r.formats_equal = true;
  return forward_entry("aclnnUpsampleNearest2d", r, self, outputSize, false, {0.0, 0.0}, out,
                       workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearest2d)

ACLNN_API aclnnStatus aclnnUpsampleNearest1dV2GetWorkspaceSize(const aclTensor* self,
                                                               const aclIntArray* outputSize,
                                                               float scaleL, aclTensor* out,
                                                               uint64_t* workspaceSize,
                                                               aclOpExecutor** executor) {
  EntryRules r = rules(Mode::kNearest, 1, true, {ACL_FORMAT_NCL});
  r.formats_equal = true;
  return forward_entry("aclnnUpsampleNearest1dV2", r, self, outputSize, false, {scaleL}, out,
                       workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearest1dV2)

ACLNN_API aclnnStatus aclnnUpsampleNearest2dV2GetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, float scalesH, float scalesW,
    aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  EntryRules r = rules(Mode::kNearest, 2, true, kFormats2d);
  r.formats_equal = true;
  return forward_entry("aclnnUpsampleNearest2dV2", r, self, outputSize, false, {scalesH, scalesW},
                       out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearest2dV2)

ACLNN_API aclnnStatus aclnnUpsampleNearest3dGetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, double scalesD, double scalesH,
    double scalesW, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  EntryRules r = rules(Mode::kNearest, 3, true, kFormats3d);
  r.scales_all_or_none = true;  // CANN: one scale <= 0 disables all three
  return forward_entry("aclnnUpsampleNearest3d", r, self, outputSize, false,
                       {scalesD, scalesH, scalesW}, out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearest3d)

// ---- nearest-exact, forward -------------------------------------------------------------------

ACLNN_API aclnnStatus aclnnUpsampleNearestExact1dGetWorkspaceSize(const aclTensor* self,
                                                                  const aclIntArray* outputSize,
                                                                  double scales, aclTensor* out,
                                                                  uint64_t* workspaceSize,
                                                                  aclOpExecutor** executor) {
  EntryRules r = rules(Mode::kNearestExact, 1, true, kFormats1d);
  r.batch_may_be_empty = false;  // CANN: N, C, L, outL > 0
  return forward_entry("aclnnUpsampleNearestExact1d", r, self, outputSize, false, {scales}, out,
                       workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearestExact1d)

ACLNN_API aclnnStatus aclnnUpsampleNearestExact2dGetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, double scalesH, double scalesW,
    aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  EntryRules r =
      rules(Mode::kNearestExact, 2, true, {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_ND});
  r.formats_equal = true;
  return forward_entry("aclnnUpsampleNearestExact2d", r, self, outputSize, false,
                       {scalesH, scalesW}, out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearestExact2d)

ACLNN_API aclnnStatus aclnnUpsampleNearestExact3dGetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, double scalesD, double scalesH,
    double scalesW, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  EntryRules r = rules(Mode::kNearestExact, 3, true, kFormats3d);
  return forward_entry("aclnnUpsampleNearestExact3d", r, self, outputSize, false,
                       {scalesD, scalesH, scalesW}, out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearestExact3d)

// ---- nearest, backward ------------------------------------------------------------------------

ACLNN_API aclnnStatus aclnnUpsampleNearest1dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    double scales, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  const EntryRules r = rules(Mode::kNearest, 1, false, kFormats1d);
  return backward_entry("aclnnUpsampleNearest1dBackward", r, gradOut, outputSize, inputSize, false,
                        {scales}, out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearest1dBackward)

ACLNN_API aclnnStatus aclnnUpsampleNearest2dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    double scalesH, double scalesW, aclTensor* gradInput, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  EntryRules r = rules(Mode::kNearest, 2, false, kFormats2d);
  r.out_name = "gradInput";
  r.input_size_order = Order::kByGradFormat;
  return backward_entry("aclnnUpsampleNearest2dBackward", r, gradOut, outputSize, inputSize, false,
                        {scalesH, scalesW}, gradInput, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearest2dBackward)

ACLNN_API aclnnStatus aclnnUpsampleNearest3dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    double scalesD, double scalesH, double scalesW, aclTensor* gradInput, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  EntryRules r = rules(Mode::kNearest, 3, false, {});  // CANN: other formats read as NCDHW
  r.out_name = "gradInput";
  r.scales_all_or_none = true;
  return backward_entry("aclnnUpsampleNearest3dBackward", r, gradOut, outputSize, inputSize, false,
                        {scalesD, scalesH, scalesW}, gradInput, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearest3dBackward)

// ---- nearest-exact, backward ------------------------------------------------------------------

ACLNN_API aclnnStatus aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclIntArray* outputSize, const aclIntArray* inputSize,
    double scales, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  EntryRules r = rules(Mode::kNearestExact, 1, false, kFormats1d);
  r.in_name = "gradOutput";
  r.formats_equal = true;
  r.reject_negative_scales = true;
  r.batch_may_be_empty = false;
  return backward_entry("aclnnUpsampleNearestExact1dBackward", r, gradOutput, outputSize, inputSize,
                        false, {scales}, out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearestExact1dBackward)

ACLNN_API aclnnStatus aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclIntArray* outputSize, const aclIntArray* inputSize,
    double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  EntryRules r = rules(Mode::kNearestExact, 2, false, {ACL_FORMAT_NCHW, ACL_FORMAT_ND});
  r.in_name = "gradOutput";
  r.formats_equal = true;
  r.reject_negative_scales = true;
  return backward_entry("aclnnUpsampleNearestExact2dBackward", r, gradOutput, outputSize, inputSize,
                        false, {scalesH, scalesW}, out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearestExact2dBackward)

ACLNN_API aclnnStatus aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    double scalesD, double scalesH, double scalesW, aclTensor* gradInput, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  EntryRules r = rules(Mode::kNearestExact, 3, false, {ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC});
  r.out_name = "gradInput";
  return backward_entry("aclnnUpsampleNearestExact3dBackward", r, gradOut, outputSize, inputSize,
                        false, {scalesD, scalesH, scalesW}, gradInput, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearestExact3dBackward)

}  // extern "C"
