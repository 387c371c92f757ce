// Internal view of the acl runtime objects, shared by the runtime (src/acl) and the aclnn
// entry points (src/aclnn). Nothing here is exported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
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

// Makes `message` the calling thread's error text (aclGetRecentErrMsg returns and clears it).
// Never throws: without memory for the text, aclGetRecentErrMsg reports that a message was lost.
void set_last_error(std::string_view message) noexcept;

// Where a task queued on a stream may run.
enum class InlinePolicy {
  // Always on the stream's worker thread.
  kNever,
  // On the calling thread, before enqueue returns, when the stream is idle (no task queued and
  // none running); otherwise on the worker, as kNever. For small tasks whose caller
  // synchronizes next, this saves the worker's wake-up. Stream order and error reporting are
  // those of kNever: tasks queued meanwhile by other threads wait for the inline task, and its
  // failure is reported by the next aclrtSynchronizeStream, not by enqueue.
  kIfIdle,
};

// Runs `task` on `stream`: in order with the stream's other tasks, on the stream's worker thread
// or, as `policy` allows, on the calling thread. A null stream runs the task now, on the
// calling thread, and returns its status (its message stays on the calling thread). Otherwise
// returns ACL_SUCCESS once the task is queued or has run inline; the first failing status of a
// stream's tasks is reported (and cleared) by aclrtSynchronizeStream or aclrtSynchronizeDevice.
// An empty task, an unknown stream handle or a stream being destroyed gives
// ACL_ERROR_INVALID_PARAM; no memory to queue the task gives ACL_ERROR_BAD_ALLOC (the task does
// not run). Never throws.
aclError enqueue(aclrtStream stream, std::function<int32_t()> task,
                 InlinePolicy policy = InlinePolicy::kNever) noexcept;

// True if `ptr` was returned by aclrtMalloc and not yet freed; `*bytes` receives the size that
// was asked for.
bool find_allocation(const void* ptr, size_t* bytes);

}  // namespace upsample::acl
