// The 28 CANN entry points: each GetWorkspaceSize forwards its arguments, with its row of the
// entry table (entry_table.hpp), to the generic entry of entry.cpp; each phase two runs its
// executor. Nothing else happens here.
#include "aclnn/entry.hpp"
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

using upsample::aclnn::entry;

extern "C" {

ACLNN_API aclnnStatus aclnnUpsampleLinear1dGetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, const bool alignCorners,
    const double scales, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return upsample::aclnn::forward_entry(entry("aclnnUpsampleLinear1d"), self, outputSize,
                                        alignCorners, {scales}, out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleLinear1d)

ACLNN_API aclnnStatus aclnnUpsampleLinear1dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scales, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  return upsample::aclnn::backward_entry(entry("aclnnUpsampleLinear1dBackward"), gradOut,
                                         outputSize, inputSize, alignCorners, {scales}, out,
                                         workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleLinear1dBackward)

ACLNN_API aclnnStatus aclnnUpsampleBilinear2dGetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, const bool alignCorners,
    const double scalesH, const double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  return upsample::aclnn::forward_entry(entry("aclnnUpsampleBilinear2d"), self, outputSize,
                                        alignCorners, {scalesH, scalesW}, out, workspaceSize,
                                        executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleBilinear2d)

ACLNN_API aclnnStatus aclnnUpsampleBilinear2dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  return upsample::aclnn::backward_entry(entry("aclnnUpsampleBilinear2dBackward"), gradOut,
                                         outputSize, inputSize, alignCorners, {scalesH, scalesW},
                                         out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleBilinear2dBackward)

ACLNN_API aclnnStatus aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  return upsample::aclnn::backward_entry(entry("aclnnUpsampleBilinear2dBackwardV2"), gradOut,
                                         outputSize, inputSize, alignCorners, {scalesH, scalesW},
                                         out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleBilinear2dBackwardV2)

ACLNN_API aclnnStatus aclnnUpsampleTrilinear3dGetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, bool alignCorners, double scalesD,
    double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  return upsample::aclnn::forward_entry(entry("aclnnUpsampleTrilinear3d"), self, outputSize,
                                        alignCorners, {scalesD, scalesH, scalesW}, out,
                                        workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleTrilinear3d)

ACLNN_API aclnnStatus aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scalesD, double scalesH, double scalesW, aclTensor* gradInput,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  return upsample::aclnn::backward_entry(
      entry("aclnnUpsampleTrilinear3dBackward"), gradOut, outputSize, inputSize, alignCorners,
      {scalesD, scalesH, scalesW}, gradInput, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleTrilinear3dBackward)

ACLNN_API aclnnStatus aclnnUpsampleNearest1dGetWorkspaceSize(const aclTensor* self,
                                                             const aclIntArray* outputSize,
                                                             aclTensor* out,
                                                             uint64_t* workspaceSize,
                                                             aclOpExecutor** executor) {
  return upsample::aclnn::forward_entry(entry("aclnnUpsampleNearest1d"), self, outputSize, false,
                                        {}, out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearest1d)

ACLNN_API aclnnStatus aclnnUpsampleNearest2dGetWorkspaceSize(const aclTensor* self,
                                                             const aclIntArray* outputSize,
                                                             aclTensor* out,
                                                             uint64_t* workspaceSize,
                                                             aclOpExecutor** executor) {
  return upsample::aclnn::forward_entry(entry("aclnnUpsampleNearest2d"), self, outputSize, false,
                                        {}, out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearest2d)

ACLNN_API aclnnStatus aclnnUpsampleNearest1dV2GetWorkspaceSize(const aclTensor* self,
                                                               const aclIntArray* outputSize,
                                                               float scaleL, aclTensor* out,
                                                               uint64_t* workspaceSize,
                                                               aclOpExecutor** executor) {
  return upsample::aclnn::forward_entry(entry("aclnnUpsampleNearest1dV2"), self, outputSize, false,
                                        {scaleL}, out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearest1dV2)

ACLNN_API aclnnStatus aclnnUpsampleNearest2dV2GetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, float scalesH, float scalesW,
    aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return upsample::aclnn::forward_entry(entry("aclnnUpsampleNearest2dV2"), self, outputSize, false,
                                        {scalesH, scalesW}, out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearest2dV2)

ACLNN_API aclnnStatus aclnnUpsampleNearest3dGetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, double scalesD, double scalesH,
    double scalesW, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return upsample::aclnn::forward_entry(entry("aclnnUpsampleNearest3d"), self, outputSize, false,
                                        {scalesD, scalesH, scalesW}, out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearest3d)

ACLNN_API aclnnStatus aclnnUpsampleNearest1dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    double scales, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return upsample::aclnn::backward_entry(entry("aclnnUpsampleNearest1dBackward"), gradOut,
                                         outputSize, inputSize, false, {scales}, out, workspaceSize,
                                         executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearest1dBackward)

ACLNN_API aclnnStatus aclnnUpsampleNearest2dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    double scalesH, double scalesW, aclTensor* gradInput, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  return upsample::aclnn::backward_entry(entry("aclnnUpsampleNearest2dBackward"), gradOut,
                                         outputSize, inputSize, false, {scalesH, scalesW},
                                         gradInput, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearest2dBackward)

ACLNN_API aclnnStatus aclnnUpsampleNearest3dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    double scalesD, double scalesH, double scalesW, aclTensor* gradInput, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  return upsample::aclnn::backward_entry(entry("aclnnUpsampleNearest3dBackward"), gradOut,
                                         outputSize, inputSize, false, {scalesD, scalesH, scalesW},
                                         gradInput, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearest3dBackward)

ACLNN_API aclnnStatus aclnnUpsampleNearestExact1dGetWorkspaceSize(const aclTensor* self,
                                                                  const aclIntArray* outputSize,
                                                                  double scales, aclTensor* out,
                                                                  uint64_t* workspaceSize,
                                                                  aclOpExecutor** executor) {
  return upsample::aclnn::forward_entry(entry("aclnnUpsampleNearestExact1d"), self, outputSize,
                                        false, {scales}, out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearestExact1d)

ACLNN_API aclnnStatus aclnnUpsampleNearestExact2dGetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, double scalesH, double scalesW,
    aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return upsample::aclnn::forward_entry(entry("aclnnUpsampleNearestExact2d"), self, outputSize,
                                        false, {scalesH, scalesW}, out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearestExact2d)

ACLNN_API aclnnStatus aclnnUpsampleNearestExact3dGetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, double scalesD, double scalesH,
    double scalesW, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return upsample::aclnn::forward_entry(entry("aclnnUpsampleNearestExact3d"), self, outputSize,
                                        false, {scalesD, scalesH, scalesW}, out, workspaceSize,
                                        executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearestExact3d)

ACLNN_API aclnnStatus aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclIntArray* outputSize, const aclIntArray* inputSize,
    double scales, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return upsample::aclnn::backward_entry(entry("aclnnUpsampleNearestExact1dBackward"), gradOutput,
                                         outputSize, inputSize, false, {scales}, out, workspaceSize,
                                         executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearestExact1dBackward)

ACLNN_API aclnnStatus aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclIntArray* outputSize, const aclIntArray* inputSize,
    double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  return upsample::aclnn::backward_entry(entry("aclnnUpsampleNearestExact2dBackward"), gradOutput,
                                         outputSize, inputSize, false, {scalesH, scalesW}, out,
                                         workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearestExact2dBackward)

ACLNN_API aclnnStatus aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    double scalesD, double scalesH, double scalesW, aclTensor* gradInput, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  return upsample::aclnn::backward_entry(entry("aclnnUpsampleNearestExact3dBackward"), gradOut,
                                         outputSize, inputSize, false, {scalesD, scalesH, scalesW},
                                         gradInput, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleNearestExact3dBackward)

ACLNN_API aclnnStatus aclnnUpsampleBicubic2dGetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, const bool alignCorners,
    const double scalesH, const double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  return upsample::aclnn::forward_entry(entry("aclnnUpsampleBicubic2d"), self, outputSize,
                                        alignCorners, {scalesH, scalesW}, out, workspaceSize,
                                        executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleBicubic2d)

ACLNN_API aclnnStatus aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    const bool alignCorners, double scalesH, double scalesW, aclTensor* gradInput,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  return upsample::aclnn::backward_entry(entry("aclnnUpsampleBicubic2dBackward"), gradOut,
                                         outputSize, inputSize, alignCorners, {scalesH, scalesW},
                                         gradInput, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleBicubic2dBackward)

ACLNN_API aclnnStatus aclnnUpsampleBilinear2dAAGetWorkspaceSize(
    const aclTensor* input, const aclIntArray* outputSize, bool alignCorners, double scalesH,
    double scalesW, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return upsample::aclnn::forward_entry(entry("aclnnUpsampleBilinear2dAA"), input, outputSize,
                                        alignCorners, {scalesH, scalesW}, out, workspaceSize,
                                        executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleBilinear2dAA)

ACLNN_API aclnnStatus aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  return upsample::aclnn::backward_entry(entry("aclnnUpsampleBilinear2dAABackward"), gradOutput,
                                         outputSize, inputSize, alignCorners, {scalesH, scalesW},
                                         out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleBilinear2dAABackward)

ACLNN_API aclnnStatus aclnnUpsampleBicubic2dAAGetWorkspaceSize(
    const aclTensor* x, const aclIntArray* outputSize, const bool alignCorners,
    const double scalesH, const double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  return upsample::aclnn::forward_entry(entry("aclnnUpsampleBicubic2dAA"), x, outputSize,
                                        alignCorners, {scalesH, scalesW}, out, workspaceSize,
                                        executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleBicubic2dAA)

ACLNN_API aclnnStatus aclnnUpsampleBicubic2dAAGradGetWorkspaceSize(
    const aclTensor* gradOutput, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  return upsample::aclnn::backward_entry(entry("aclnnUpsampleBicubic2dAAGrad"), gradOutput,
                                         outputSize, inputSize, alignCorners, {scalesH, scalesW},
                                         out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnUpsampleBicubic2dAAGrad)

ACLNN_API aclnnStatus aclnnResizeGetWorkspaceSize(const aclTensor* self,
                                                  const aclFloatArray* scales, const char* mode,
                                                  aclTensor* out, uint64_t* workspaceSize,
                                                  aclOpExecutor** executor) {
  return upsample::aclnn::resize_entry(self, scales, mode, out, workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnResize)

}  // extern "C"
