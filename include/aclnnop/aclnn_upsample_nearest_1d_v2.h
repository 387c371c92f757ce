// CANN-compatible declaration of aclnnUpsampleNearest1dV2 (signature as in hicann/ops-cv).
#ifndef OP_API_INC_ACLNN_UPSAMPLE_NEAREST_1D_V2_H_
#define OP_API_INC_ACLNN_UPSAMPLE_NEAREST_1D_V2_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleNearest1dV2GetWorkspaceSize(const aclTensor* self, const aclIntArray* outputSize, float scaleL, aclTensor* out,
    uint64_t* workspaceSize, aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnUpsampleNearest1dV2(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_ACLNN_UPSAMPLE_NEAREST_1D_V2_H_
