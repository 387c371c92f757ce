// CANN-compatible declaration of aclnnUpsampleBicubic2d (signature as in hicann/ops-cv).
#ifndef OP_API_INC_ACLNN_UPSAMPLE_BICUBIC_2D_H_
#define OP_API_INC_ACLNN_UPSAMPLE_BICUBIC_2D_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleBicubic2dGetWorkspaceSize(const aclTensor* self, const aclIntArray* outputSize, const bool alignCorners, const double scalesH, const double scalesW, aclTensor* out,
    uint64_t* workspaceSize, aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnUpsampleBicubic2d(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_ACLNN_UPSAMPLE_BICUBIC_2D_H_
