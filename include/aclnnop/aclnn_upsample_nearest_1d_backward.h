// CANN-compatible declaration of aclnnUpsampleNearest1dBackward (signature as in hicann/ops-cv).
#ifndef OP_API_INC_ACLNN_UPSAMPLE_NEAREST_1D_BACKWARD_H_
#define OP_API_INC_ACLNN_UPSAMPLE_NEAREST_1D_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleNearest1dBackwardGetWorkspaceSize(const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize, double scales, aclTensor* out,
    uint64_t* workspaceSize, aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnUpsampleNearest1dBackward(void* workspace, uint64_t workspace_size, aclOpExecutor* executor,
    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_ACLNN_UPSAMPLE_NEAREST_1D_BACKWARD_H_
