// The generic phase-one entry points. Every CANN GetWorkspaceSize function is a one-line call of
// one of these with its row of the entry table (entry_table.hpp); each runs under a guard that
// turns any exception into a status, so nothing crosses the C ABI.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "aclnn/entry_table.hpp"
#include "aclnn/executor.hpp"
#include "aclnn/tensors.hpp"

namespace upsample::aclnn {

// self -> out, output spatial size from outputSize.
aclnnStatus forward_entry(const EntryRow& row, const aclTensor* self,
                          const aclIntArray* output_size, bool align_corners,
                          std::initializer_list<double> scales, const aclTensor* out,
                          uint64_t* workspace_size, aclOpExecutor** executor);

// gradOut [N, C, outputSize...] -> gradInput shaped like inputSize.
aclnnStatus backward_entry(const EntryRow& row, const aclTensor* grad_out,
                           const aclIntArray* output_size, const aclIntArray* input_size,
                           bool align_corners, std::initializer_list<double> scales,
                           const aclTensor* grad_in, uint64_t* workspace_size,
                           aclOpExecutor** executor);

// aclnnResize: the mode string picks the row; the scales (one per dim, in the tensors' dim
// order) must give the output shape.
aclnnStatus resize_entry(const aclTensor* self, const aclFloatArray* scales, const char* mode,
                         const aclTensor* out, uint64_t* workspace_size, aclOpExecutor** executor);

}  // namespace upsample::aclnn

// Phase two of an entry point: every one just runs its executor.
#define UPS_ACLNN_PHASE2(api)                                                                 \
  ACLNN_API aclnnStatus api(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, \
                            aclrtStream stream) {                                             \
    return ::upsample::aclnn::run_executor(#api, workspace, workspaceSize, executor, stream); \
  }
