// Internal view of the acl runtime objects, shared by the runtime (src/acl) and the aclnn
// entry points (src/aclnn). Nothing here is exported.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

// The opaque handle types of acl_meta.h are defined here.
struct aclTensor {
  std::vector<int64_t> view_dims;
  std::vector<int64_t> strides;  // in elements
  int64_t offset = 0;            // in elements, from `data`
  aclDataType dtype = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_UNDEFINED;
  std::vector<int64_t> storage_dims;
  void* data = nullptr;
};

struct aclIntArray {
  std::vector<int64_t> values;
};

struct aclFloatArray {
  std::vector<float> values;
};

struct aclBoolArray {
  std::vector<bool> values;
};

namespace upsample::acl {

// The calling thread's last error text (aclGetRecentErrMsg returns and clears it).
void set_last_error(const std::string& message);

// Runs `task` on `stream`: in order with the stream's other tasks, on the stream's worker
// thread. A null stream runs the task now, on the calling thread, and returns its status.
// Otherwise returns ACL_SUCCESS once queued; the first failing status of a stream's tasks is
// reported (and cleared) by aclrtSynchronizeStream. An unknown stream handle gives
// ACL_ERROR_INVALID_PARAM.
aclError enqueue(aclrtStream stream, std::function<int32_t()> task);

// True if `ptr` was returned by aclrtMalloc and not yet freed; `*bytes` receives its size.
bool find_allocation(const void* ptr, size_t* bytes);

}  // namespace upsample::acl
