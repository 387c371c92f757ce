// CANN-compatible declaration of aclnnUpsampleBicubic2dAAGrad (signature as in hicann/ops-cv).
#ifndef OP_API_INC_ACLNN_UPSAMPLE_BICUBIC2D_AA_GRAD_H_
#define OP_API_INC_ACLNN_UPSAMPLE_BICUBIC2D_AA_GRAD_H_

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleBicubic2dAAGradGetWorkspaceSize(const aclTensor* gradOutput, const aclIntArray* outputSize, const aclIntArray* inputSize, bool alignCorners, double scalesH, double scalesW, aclTensor* out,
    uint64_t* workspaceSize, aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnUpsampleBicubic2dAAGrad(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_INC_ACLNN_UPSAMPLE_BICUBIC2D_AA_GRAD_H_
