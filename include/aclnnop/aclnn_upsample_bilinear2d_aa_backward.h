// CANN-compatible declaration of aclnnUpsampleBilinear2dAABackward (signature as in hicann/ops-cv).
#ifndef OP_API_INC_ACLNN_UPSAMPLE_BILINEAR2D_AA_BACKWARD_H_
#define OP_API_INC_ACLNN_UPSAMPLE_BILINEAR2D_AA_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclIntArray* outputSize, const aclIntArray* inputSize, bool alignCorners, double scalesH, double scalesW, aclTensor* out,
    uint64_t* workspaceSize, aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnUpsampleBilinear2dAABackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_ACLNN_UPSAMPLE_BILINEAR2D_AA_BACKWARD_H_
