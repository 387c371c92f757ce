// CANN-compatible declaration of aclnnUpsampleNearestExact3dBackward (signature as in hicann/ops-cv).
#ifndef OP_API_INC_ACLNN_UPSAMPLE_NEAREST_EXACT3D_BACKWARD_H_
#define OP_API_INC_ACLNN_UPSAMPLE_NEAREST_EXACT3D_BACKWARD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize, double scalesD, double scalesH, double scalesW, aclTensor* gradInput,
    uint64_t* workspaceSize, aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnUpsampleNearestExact3dBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_ACLNN_UPSAMPLE_NEAREST_EXACT3D_BACKWARD_H_
