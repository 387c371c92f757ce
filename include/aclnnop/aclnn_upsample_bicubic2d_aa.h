// CANN-compatible declaration of aclnnUpsampleBicubic2dAA (signature as in hicann/ops-cv).
#ifndef OP_API_INC_ACLNN_UPSAMPLE_BICUBIC2D_AA_H_
#define OP_API_INC_ACLNN_UPSAMPLE_BICUBIC2D_AA_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleBicubic2dAAGetWorkspaceSize(const aclTensor* x, const aclIntArray* outputSize, const bool alignCorners, const double scalesH, const double scalesW, aclTensor* out,
    uint64_t* workspaceSize, aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnUpsampleBicubic2dAA(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_ACLNN_UPSAMPLE_BICUBIC2D_AA_H_
