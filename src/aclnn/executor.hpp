// aclOpExecutor: a Plan plus the bound addresses, behind an opaque, never-reused handle.
#pragma once

#include <cstdint>

#include "aclnn/tensors.hpp"
#include "upsample/resample.hpp"

namespace upsample::aclnn {

// Phase one: builds the plan (refusing an output that overlaps the input), registers the
// executor and writes the workspace size. `src`/`dst` are the operator's input and output
// (backward: grad of the output, grad of the input).
aclnnStatus make_executor(const char* api, const OpDesc& op, const LogicalTensor& src,
                          const LogicalTensor& dst, uint64_t* workspace_size,
                          aclOpExecutor** executor);

// Phase two: checks the executor and workspace, then runs it on `stream`. A launch that fails
// before the task is queued (a destroyed stream) does not consume the executor.
aclnnStatus run_executor(const char* api, void* workspace, uint64_t workspace_size,
                         aclOpExecutor* executor, aclrtStream stream);

}  // namespace upsample::aclnn
