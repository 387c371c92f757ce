// Shared plumbing of the aclnn entry points: error reporting, acl handle -> TensorDesc, and the
// executor (an aclOpExecutor wraps a Plan plus the bound addresses).
// This is the only layer where acl types and CANN's public names appear.
#pragma once

#include <array>
#include <sstream>
#include <string>
#include <vector>

#include "acl/runtime_internal.hpp"
#include "aclnn/aclnn_base.h"
#include "upsample/resample.hpp"

namespace upsample::aclnn {

// Records "<api>: <message>" as the calling thread's last error and returns `code`.
aclnnStatus fail(const char* api, aclnnStatus code, const std::string& message);

// A tensor argument in logical order (N, C, spatial...) plus its first element's address.
struct LogicalTensor {
  TensorDesc desc;
  void* data = nullptr;  // address of the view's element 0 (data + offset)
  aclFormat format = ACL_FORMAT_UNDEFINED;
  std::vector<int64_t> dims;  // as given (format order)
};

// Converts and checks a tensor argument: supported dtype, rank, the view inside its storage,
// data present when not empty. NHWC / NDHWC tensors give their dims in format order (CANN's
// convention); they are permuted to logical order here.
aclnnStatus to_logical(const char* api, const char* name, const aclTensor* tensor,
                       int expected_rank, LogicalTensor* out);

bool is_channels_last(aclFormat format);
std::string format_name(aclFormat format);
std::string dims_string(const std::vector<int64_t>& dims);
std::string dims_string(const TensorDesc& desc);  // logical sizes

// Builds the plan and the executor; writes the workspace size. `src`/`dst` are the operator's
// input and output (backward: grad of the output, grad of the input).
aclnnStatus make_executor(const char* api, const OpDesc& op, const LogicalTensor& src,
                          const LogicalTensor& dst, uint64_t* workspace_size,
                          aclOpExecutor** executor);

// Phase two: checks the executor and workspace, then runs it on `stream`.
aclnnStatus run_executor(const char* api, void* workspace, uint64_t workspace_size,
                         aclOpExecutor* executor, aclrtStream stream);

}  // namespace upsample::aclnn

// Validation helpers used by every entry point; each returns from the calling function.
#define UPS_CHECK_NOT_NULL(api, ptr, name)                            \
  do {                                                                \
    if ((ptr) == nullptr) {                                           \
      return ::upsample::aclnn::fail(api, ACLNN_ERR_PARAM_NULLPTR,    \
                                     std::string(name) + " is null"); \
    }                                                                 \
  } while (0)

#define UPS_REQUIRE(api, cond, stream_expr)                                         \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::ostringstream ups_why_;                                                  \
      ups_why_ << stream_expr;                                                      \
      return ::upsample::aclnn::fail(api, ACLNN_ERR_PARAM_INVALID, ups_why_.str()); \
    }                                                                               \
  } while (0)

#define UPS_RETURN_IF_ERROR(expr)                         \
  do {                                                    \
    const aclnnStatus ups_status_ = (expr);               \
    if (ups_status_ != ACLNN_SUCCESS) return ups_status_; \
  } while (0)

// Phase two of an entry point: every one just runs its executor.
#define UPS_ACLNN_PHASE2(api)                                                                 \
  ACLNN_API aclnnStatus api(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, \
                            aclrtStream stream) {                                             \
    return ::upsample::aclnn::run_executor(#api, workspace, workspaceSize, executor, stream); \
  }
