// Streams of the acl runtime, as seen by its other parts (the stream API itself is the C API
// in acl_rt.h and enqueue() in runtime_internal.hpp).
#pragma once

#include <cstdint>
#include <functional>

#include "acl/acl.h"
#include "acl/runtime_internal.hpp"

namespace upsample::acl {

// enqueue() with `api` naming the caller in messages; throws std::bad_alloc when the task
// cannot be queued (callers run inside guard_c_api).
aclError enqueue_for(const char* api, aclrtStream stream, std::function<int32_t()> task,
                     InlinePolicy policy);

// Destroys every live stream, each after its queued tasks have run (aclFinalize). Refused, with
// ACL_ERROR_INVALID_PARAM and a message naming `api`, when called from a task of one of them.
aclError destroy_all_streams(const char* api);

}  // namespace upsample::acl
