// CANN-compatible declaration of aclnnUpsampleNearestExact2d (signature as in hicann/ops-cv).
#ifndef OP_API_INC_ACLNN_UPSAMPLE_NEAREST_EXACT2D_H_
#define OP_API_INC_ACLNN_UPSAMPLE_NEAREST_EXACT2D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleNearestExact2dGetWorkspaceSize(const aclTensor* self, const aclIntArray* outputSize, double scalesH, double scalesW, aclTensor* out,
    uint64_t* workspaceSize, aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnUpsampleNearestExact2d(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_ACLNN_UPSAMPLE_NEAREST_EXACT2D_H_
