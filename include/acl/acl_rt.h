// acl_rt.h: the acl runtime functions (device, stream, memory, context options, error text)
// as CANN declares them, implemented on the CPU: device 0 is the host, "device" memory is
// host memory, and each stream is an in-order task queue served by its own worker thread.
// Compiles as C99 and as C++.
#ifndef UPSAMPLE_INCLUDE_ACL_ACL_RT_H_
#define UPSAMPLE_INCLUDE_ACL_ACL_RT_H_

#include <stddef.h>
#include <stdint.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

// Initialises the runtime. `configPath` may be NULL or "" (defaults); otherwise it must name a
// readable file. Its contents are not interpreted (CANN reads dump/profiling options there).
// Repeated calls succeed.
ACL_FUNC_VISIBILITY aclError aclInit(const char* configPath);
// Drains and destroys every stream still alive. Allocations stay valid.
ACL_FUNC_VISIBILITY aclError aclFinalize(void);

// Only device 0 (the CPU) exists.
ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t* deviceId);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t* count);
// Waits for every stream to drain; returns the first task failure of any stream (and clears
// the failures it reports, like aclrtSynchronizeStream does).
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void);

ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream* stream);
// Runs the stream's remaining tasks, then releases it. The handle is never reused, so a later
// use of it is reported as an error.
ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream);
// Waits until the stream's queue is empty. Returns the status of the first task that failed
// since the previous synchronisation (an aclnnStatus value, e.g. 161002), then forgets it.
// A NULL stream is the synchronous default stream: nothing to wait for.
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream);

// Returns 64-byte aligned host memory. `policy` is validated but otherwise ignored.
ACL_FUNC_VISIBILITY aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy);
// Only pointers returned by aclrtMalloc and not yet freed are accepted.
ACL_FUNC_VISIBILITY aclError aclrtFree(void* devPtr);
ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void** hostPtr, size_t size);
ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void* hostPtr);

// Copies `count` bytes; fails when count > destMax. Overlapping ranges are handled.
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                                         aclrtMemcpyKind kind);
// Sets `count` bytes to (unsigned char)value; fails when count > maxCount.
ACL_FUNC_VISIBILITY aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value,
                                         size_t count);
// As above, but validated now and performed in order on `stream`.
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src,
                                              size_t count, aclrtMemcpyKind kind,
                                              aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value,
                                              size_t count, aclrtStream stream);

// Context options. Unset options read as 0.
ACL_FUNC_VISIBILITY aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t* value);
ACL_FUNC_VISIBILITY aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value);

// Returns the calling thread's most recent error text and clears it; NULL when there is none.
// The text stays valid until the next call of this function on the same thread.
ACL_FUNC_VISIBILITY const char* aclGetRecentErrMsg(void);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // UPSAMPLE_INCLUDE_ACL_ACL_RT_H_
