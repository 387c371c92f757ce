// The acl runtime subset on the CPU.
//
// Device 0 is the host. "Device" memory is 64-byte aligned host memory, tracked so that a bad
// aclrtFree is reported instead of corrupting the heap. Each stream is an in-order task queue
// with its own worker thread, so work queued on a stream really runs asynchronously, as it does
// on an NPU, and callers that forget aclrtSynchronizeStream see the same kind of bugs they
// would see there. Stream handles are never-reused ids rather than pointers, so a destroyed or
// invented handle is always detected. Error text is kept per thread for aclGetRecentErrMsg.
#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "acl/runtime_internal.hpp"
#include "aclnn/acl_meta.h"

namespace {

// ---------------------------------------------------------------------------------------------
// Error text.

// The text aclGetRecentErrMsg will return next, and the text it returned last (which must stay
// valid until its next call on this thread).
thread_local std::string t_pending_error;
thread_local std::string t_returned_error;

template <typename... Parts>
std::string Concat(const Parts&... parts) {
  std::ostringstream text;
  (text << ... << parts);
  return text.str();
}

// Records the message on the calling thread and returns `status`, so that failure paths read
// `return Fail(ACL_ERROR_INVALID_PARAM, "api: ...");`.
template <typename... Parts>
int32_t Fail(int32_t status, const Parts&... parts) {
  upsample::acl::set_last_error(Concat(parts...));
  return status;
}

template <typename T, typename... Parts>
T* FailNull(const Parts&... parts) {
  upsample::acl::set_last_error(Concat(parts...));
  return nullptr;
}

std::string PointerText(const void* pointer) {
  if (pointer == nullptr) return "nullptr";
  char text[2 + 2 * sizeof(void*) + 1];
  std::snprintf(text, sizeof(text), "%p", pointer);
  return text;
}

// ---------------------------------------------------------------------------------------------
// Streams.

using Task = std::function<int32_t()>;

struct TaskFailure {
  int32_t status = ACL_SUCCESS;
  std::string message;
};

// Runs a task, turning an escaping exception into a failure status (with text) instead of
// terminating the process from a worker thread.
int32_t RunGuarded(const Task& task) {
  try {
    return task();
  } catch (const std::bad_alloc&) {
    return Fail(ACLNN_ERR_INNER, "stream task: out of host memory");
  } catch (const std::exception& error) {
    return Fail(ACLNN_ERR_INNER, "stream task threw an exception: ", error.what());
  } catch (...) {
    return Fail(ACLNN_ERR_INNER, "stream task threw an unknown exception");
  }
}

class Stream {
 public:
  Stream() : worker_([this] { ServeTasks(); }) { worker_id_ = worker_.get_id(); }
  ~Stream() { Shutdown(); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // Queues `task` behind the stream's earlier tasks. False once the stream is shutting down.
  bool Push(Task task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return false;
      pending_.push_back(std::move(task));
    }
    work_ready_.notify_one();
    return true;
  }

  // Blocks until every queued task has run; returns (and forgets) the first failure since the
  // previous call.
  TaskFailure WaitUntilDrained() {
    std::unique_lock<std::mutex> lock(mutex_);
    drained_.wait(lock, [this] { return pending_.empty() && !running_task_; });
    return std::exchange(first_failure_, TaskFailure{});
  }

  // Runs the remaining tasks, then stops the worker. Safe to call more than once (from one
  // thread at a time: the registry hands a stream's destruction to exactly one caller).
  void Shutdown() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    work_ready_.notify_one();
    if (worker_.joinable()) worker_.join();
  }

  // Waiting for a stream from one of its own tasks would never return.
  bool OnWorkerThread() const { return std::this_thread::get_id() == worker_id_; }

 private:
  void ServeTasks() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      work_ready_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
      if (pending_.empty()) return;  // stopping, and nothing left to run
      Task task = std::move(pending_.front());
      pending_.pop_front();
      running_task_ = true;
      lock.unlock();

      // A message left by an earlier task must not be blamed on this one.
      t_pending_error.clear();
      TaskFailure outcome;
      outcome.status = RunGuarded(task);
      if (outcome.status != ACL_SUCCESS) {
        outcome.message = std::exchange(t_pending_error, std::string());
      }
      task = nullptr;  // release the task's captures before reporting it done

      lock.lock();
      running_task_ = false;
      if (outcome.status != ACL_SUCCESS && first_failure_.status == ACL_SUCCESS) {
        first_failure_ = std::move(outcome);
      }
      if (pending_.empty()) drained_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable drained_;
  std::deque<Task> pending_;
  bool running_task_ = false;
  bool stopping_ = false;
  TaskFailure first_failure_;
  std::thread::id worker_id_;
  std::thread worker_;  // last: it starts serving as soon as it is constructed
};

// Streams are shared_ptrs so that a thread that looked a stream up (to queue a task) keeps it
// alive while another thread destroys it; the destroyer still drains and joins before
// returning, and the late Push is refused.
struct StreamRegistry {
  std::mutex mutex;
  std::unordered_map<uintptr_t, std::shared_ptr<Stream>> streams;
  uintptr_t next_id = 1;
};

// Never destroyed: streams a program forgets to destroy must not be joined during static
// destruction, when the objects their tasks use may already be gone.
StreamRegistry& Streams() {
  static StreamRegistry* const registry = new StreamRegistry;
  return *registry;
}

std::shared_ptr<Stream> FindStream(aclrtStream handle) {
  StreamRegistry& registry = Streams();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto found = registry.streams.find(reinterpret_cast<uintptr_t>(handle));
  return found == registry.streams.end() ? nullptr : found->second;
}

std::string UnknownStreamText(const char* api, aclrtStream handle) {
  return Concat(api, ": stream ", PointerText(handle),
                " is not a live stream (not created by aclrtCreateStream, or already destroyed)");
}

aclError EnqueueFor(const char* api, aclrtStream handle, Task task) {
  if (!task) return Fail(ACL_ERROR_INVALID_PARAM, api, ": the task is empty");
  if (handle == nullptr) return RunGuarded(task);
  std::shared_ptr<Stream> stream = FindStream(handle);
  if (stream == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, UnknownStreamText(api, handle));
  if (!stream->Push(std::move(task))) {
    return Fail(ACL_ERROR_INVALID_PARAM, api, ": stream ", PointerText(handle),
                " is being destroyed");
  }
  return ACL_SUCCESS;
}

// Reports a drained stream's failure on the calling thread.
aclError ReportFailure(const char* api, aclrtStream handle, const TaskFailure& failure) {
  if (failure.status == ACL_SUCCESS) return ACL_SUCCESS;
  return Fail(failure.status, api, ": a task on stream ", PointerText(handle),
              " failed with status ", failure.status, failure.message.empty() ? "" : ": ",
              failure.message);
}

// ---------------------------------------------------------------------------------------------
// Memory.

constexpr size_t kAllocationAlignment = 64;

// Live allocations (pointer -> requested bytes) of one allocator.
struct AllocationRegistry {
  std::mutex mutex;
  std::unordered_map<const void*, size_t> bytes_by_pointer;
};

AllocationRegistry& DeviceAllocations() {
  static AllocationRegistry* const registry = new AllocationRegistry;
  return *registry;
}

AllocationRegistry& HostAllocations() {
  static AllocationRegistry* const registry = new AllocationRegistry;
  return *registry;
}

bool IsLive(AllocationRegistry& registry, const void* pointer) {
  std::lock_guard<std::mutex> lock(registry.mutex);
  return registry.bytes_by_pointer.count(pointer) != 0;
}

aclError Allocate(AllocationRegistry& registry, const char* api, const char* pointer_name,
                  void** out, size_t size) {
  if (out == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, api, ": ", pointer_name, " is null");
  if (size == 0) return Fail(ACL_ERROR_INVALID_PARAM, api, ": size is 0");
  // std::aligned_alloc wants a multiple of the alignment.
  if (size > SIZE_MAX - (kAllocationAlignment - 1)) {
    return Fail(ACL_ERROR_BAD_ALLOC, api, ": size ", size, " is too large");
  }
  const size_t rounded =
      (size + kAllocationAlignment - 1) / kAllocationAlignment * kAllocationAlignment;
  void* memory = std::aligned_alloc(kAllocationAlignment, rounded);
  if (memory == nullptr) {
    return Fail(ACL_ERROR_BAD_ALLOC, api, ": cannot allocate ", size, " bytes");
  }
  try {
    std::lock_guard<std::mutex> lock(registry.mutex);
    registry.bytes_by_pointer.emplace(memory, size);
  } catch (const std::bad_alloc&) {
    std::free(memory);
    return Fail(ACL_ERROR_BAD_ALLOC, api, ": cannot record an allocation of ", size, " bytes");
  }
  *out = memory;
  return ACL_SUCCESS;
}

aclError Release(AllocationRegistry& registry, AllocationRegistry& other_registry, const char* api,
                 const char* pointer_name, const char* allocator, const char* other_allocator,
                 void* pointer) {
  if (pointer == nullptr) {
    return Fail(ACL_ERROR_INVALID_PARAM, api, ": ", pointer_name, " is null");
  }
  bool was_live = false;
  {
    std::lock_guard<std::mutex> lock(registry.mutex);
    was_live = registry.bytes_by_pointer.erase(pointer) != 0;
  }
  if (!was_live) {
    // Checked after releasing `registry.mutex`: holding both locks would invite a lock-order
    // deadlock between aclrtFree and aclrtFreeHost.
    const bool from_other = IsLive(other_registry, pointer);
    return Fail(ACL_ERROR_INVALID_PARAM, api, ": ", pointer_name, " ", PointerText(pointer),
                " was not returned by ", allocator, " or was already freed",
                from_other ? " (it was returned by " : "", from_other ? other_allocator : "",
                from_other ? ")" : "");
  }
  std::free(pointer);
  return ACL_SUCCESS;
}

aclError CheckMemcpy(const char* api, const void* dst, size_t dest_max, const void* src,
                     size_t count, aclrtMemcpyKind kind) {
  const int kind_value = static_cast<int>(kind);
  if (kind_value < ACL_MEMCPY_HOST_TO_HOST || kind_value > ACL_MEMCPY_INTER_DEVICE_TO_DEVICE) {
    return Fail(ACL_ERROR_INVALID_PARAM, api, ": kind ", kind_value,
                " is not an aclrtMemcpyKind value (0..7)");
  }
  if (count > dest_max) {
    return Fail(ACL_ERROR_INVALID_PARAM, api, ": count ", count, " exceeds destMax ", dest_max);
  }
  if (count > 0 && dst == nullptr) {
    return Fail(ACL_ERROR_INVALID_PARAM, api, ": dst is null but count is ", count);
  }
  if (count > 0 && src == nullptr) {
    return Fail(ACL_ERROR_INVALID_PARAM, api, ": src is null but count is ", count);
  }
  return ACL_SUCCESS;
}

aclError CheckMemset(const char* api, const void* dev_ptr, size_t max_count, size_t count) {
  if (count > max_count) {
    return Fail(ACL_ERROR_INVALID_PARAM, api, ": count ", count, " exceeds maxCount ", max_count);
  }
  if (count > 0 && dev_ptr == nullptr) {
    return Fail(ACL_ERROR_INVALID_PARAM, api, ": devPtr is null but count is ", count);
  }
  return ACL_SUCCESS;
}

// memmove: callers may pass overlapping ranges, which memcpy would silently corrupt.
void CopyBytes(void* dst, const void* src, size_t count) {
  if (count > 0) std::memmove(dst, src, count);
}

void SetBytes(void* dev_ptr, int32_t value, size_t count) {
  if (count > 0) std::memset(dev_ptr, static_cast<unsigned char>(value), count);
}

// ---------------------------------------------------------------------------------------------
// Device and context options.

constexpr int32_t kOnlyDevice = 0;

aclError CheckDevice(const char* api, int32_t device_id) {
  if (device_id != kOnlyDevice) {
    return Fail(ACL_ERROR_INVALID_PARAM, api, ": deviceId ", device_id,
                " does not exist (only device 0, the CPU, is available)");
  }
  return ACL_SUCCESS;
}

constexpr int kSysParamOptCount = ACL_OPT_ENABLE_KERNEL_EARLY_START + 1;

struct SysParamOpts {
  std::mutex mutex;
  std::array<int64_t, kSysParamOptCount> values{};  // unset options read as 0
};

SysParamOpts& ContextOptions() {
  static SysParamOpts* const options = new SysParamOpts;
  return *options;
}

aclError CheckSysParamOpt(const char* api, aclSysParamOpt opt) {
  const int opt_value = static_cast<int>(opt);
  if (opt_value < 0 || opt_value >= kSysParamOptCount) {
    return Fail(ACL_ERROR_INVALID_PARAM, api, ": opt ", opt_value,
                " is not an aclSysParamOpt value (0..", kSysParamOptCount - 1, ")");
  }
  return ACL_SUCCESS;
}

// ---------------------------------------------------------------------------------------------
// Tensors and arrays.

constexpr uint64_t kMaxTensorRank = 8;

// Row-major strides; a 0 extent counts as 1 (as in PyTorch) so the strides stay meaningful.
bool ContiguousStrides(const std::vector<int64_t>& dims, std::vector<int64_t>* strides) {
  strides->assign(dims.size(), 1);
  int64_t stride = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    (*strides)[i] = stride;
    if (__builtin_mul_overflow(stride, dims[i] > 0 ? dims[i] : 1, &stride)) return false;
  }
  return true;
}

// CANN hands dimension arrays out as `new int64_t[]` that the caller deletes.
aclnnStatus CopyDimsOut(const char* api, const char* array_name, const char* count_name,
                        const aclTensor* tensor, std::vector<int64_t> aclTensor::*dims,
                        int64_t** out, uint64_t* out_count) {
  if (tensor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, api, ": tensor is null");
  if (out == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, api, ": ", array_name, " is null");
  if (out_count == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, api, ": ", count_name, " is null");
  }
  const std::vector<int64_t>& values = tensor->*dims;
  int64_t* copy = new (std::nothrow) int64_t[values.size()];
  if (copy == nullptr) return Fail(ACLNN_ERR_INNER_NULLPTR, api, ": out of host memory");
  std::copy(values.begin(), values.end(), copy);
  *out = copy;
  *out_count = values.size();
  return ACLNN_SUCCESS;
}

template <typename Array>
aclnnStatus GetArraySize(const char* api, const Array* array, uint64_t* size) {
  if (array == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, api, ": array is null");
  if (size == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, api, ": size is null");
  *size = array->values.size();
  return ACLNN_SUCCESS;
}

template <typename Array, typename Value>
Array* CreateArray(const char* api, const Value* value, uint64_t size) {
  if (value == nullptr && size > 0) {
    return FailNull<Array>(api, ": value is null but size is ", size);
  }
  try {
    auto* array = new Array;
    array->values.assign(value, value + size);
    return array;
  } catch (const std::bad_alloc&) {
    return FailNull<Array>(api, ": cannot allocate ", size, " elements");
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Internal interface (runtime_internal.hpp).

namespace upsample::acl {

void set_last_error(const std::string& message) { t_pending_error = message; }

aclError enqueue(aclrtStream stream, std::function<int32_t()> task) {
  return EnqueueFor("aclnn launch", stream, std::move(task));
}

bool find_allocation(const void* ptr, size_t* bytes) {
  AllocationRegistry& registry = DeviceAllocations();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto found = registry.bytes_by_pointer.find(ptr);
  if (found == registry.bytes_by_pointer.end()) return false;
  if (bytes != nullptr) *bytes = found->second;
  return true;
}

}  // namespace upsample::acl

// ---------------------------------------------------------------------------------------------
// Exported C API. Visibility comes from the declarations' ACL_FUNC_VISIBILITY.

extern "C" {

aclError aclInit(const char* configPath) {
  // NULL and "" both mean "defaults"; CANN samples pass either.
  if (configPath == nullptr || configPath[0] == '\0') return ACL_SUCCESS;
  std::error_code error;
  const bool regular = std::filesystem::is_regular_file(configPath, error);
  std::ifstream config(configPath);
  if (!regular || !config.good()) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclInit: configPath \"", configPath,
                "\" is not a readable file");
  }
  return ACL_SUCCESS;
}

aclError aclFinalize(void) {
  std::unordered_map<uintptr_t, std::shared_ptr<Stream>> leftovers;
  {
    StreamRegistry& registry = Streams();
    std::lock_guard<std::mutex> lock(registry.mutex);
    for (const auto& [id, stream] : registry.streams) {
      if (stream->OnWorkerThread()) {
        return Fail(ACL_ERROR_INVALID_PARAM, "aclFinalize: called from a task of stream ",
                    PointerText(reinterpret_cast<void*>(id)), ", which would wait for itself");
      }
    }
    leftovers.swap(registry.streams);
  }
  for (auto& [id, stream] : leftovers) stream->Shutdown();
  return ACL_SUCCESS;
}

aclError aclrtSetDevice(int32_t deviceId) { return CheckDevice("aclrtSetDevice", deviceId); }

aclError aclrtResetDevice(int32_t deviceId) { return CheckDevice("aclrtResetDevice", deviceId); }

aclError aclrtGetDevice(int32_t* deviceId) {
  if (deviceId == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice: deviceId is null");
  *deviceId = kOnlyDevice;
  return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  if (count == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count is null");
  *count = 1;
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeDevice(void) {
  std::vector<std::pair<uintptr_t, std::shared_ptr<Stream>>> snapshot;
  {
    StreamRegistry& registry = Streams();
    std::lock_guard<std::mutex> lock(registry.mutex);
    snapshot.assign(registry.streams.begin(), registry.streams.end());
  }
  for (const auto& [id, stream] : snapshot) {
    if (stream->OnWorkerThread()) {
      return Fail(ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeDevice: called from a task of stream ",
                  PointerText(reinterpret_cast<void*>(id)), ", which would wait for itself");
    }
  }
  aclError first_status = ACL_SUCCESS;
  for (const auto& [id, stream] : snapshot) {
    const TaskFailure failure = stream->WaitUntilDrained();
    if (failure.status != ACL_SUCCESS && first_status == ACL_SUCCESS) {
      first_status =
          ReportFailure("aclrtSynchronizeDevice", reinterpret_cast<aclrtStream>(id), failure);
    }
  }
  return first_status;
}

aclError aclrtCreateStream(aclrtStream* stream) {
  if (stream == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: stream is null");
  std::shared_ptr<Stream> created;
  try {
    created = std::make_shared<Stream>();
  } catch (const std::system_error& error) {
    return Fail(ACL_ERROR_RT_FAILURE,
                "aclrtCreateStream: cannot start a worker thread: ", error.what());
  } catch (const std::bad_alloc&) {
    return Fail(ACL_ERROR_BAD_ALLOC, "aclrtCreateStream: out of host memory");
  }
  StreamRegistry& registry = Streams();
  try {
    std::lock_guard<std::mutex> lock(registry.mutex);
    const uintptr_t id = registry.next_id++;
    registry.streams.emplace(id, std::move(created));
    *stream = reinterpret_cast<aclrtStream>(id);
  } catch (const std::bad_alloc&) {
    return Fail(ACL_ERROR_BAD_ALLOC, "aclrtCreateStream: out of host memory");
  }
  return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  if (stream == nullptr) return Fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream: stream is null");
  std::shared_ptr<Stream> doomed = FindStream(stream);
  if (doomed == nullptr) {
    return Fail(ACL_ERROR_INVALID_PARAM, UnknownStreamText("aclrtDestroyStream", stream));
  }
  if (doomed->OnWorkerThread()) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream: stream ", PointerText(stream),
                " cannot be destroyed from one of its own tasks");
  }
  {
    StreamRegistry& registry = Streams();
    std::lock_guard<std::mutex> lock(registry.mutex);
    // Another thread may have destroyed it since the lookup; only one caller wins.
    if (registry.streams.erase(reinterpret_cast<uintptr_t>(stream)) == 0) {
      return Fail(ACL_ERROR_INVALID_PARAM, UnknownStreamText("aclrtDestroyStream", stream));
    }
  }
  doomed->Shutdown();
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  if (stream == nullptr) return ACL_SUCCESS;  // the default stream runs tasks synchronously
  std::shared_ptr<Stream> target = FindStream(stream);
  if (target == nullptr) {
    return Fail(ACL_ERROR_INVALID_PARAM, UnknownStreamText("aclrtSynchronizeStream", stream));
  }
  if (target->OnWorkerThread()) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeStream: stream ", PointerText(stream),
                " cannot be synchronized from one of its own tasks");
  }
  return ReportFailure("aclrtSynchronizeStream", stream, target->WaitUntilDrained());
}

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  // One page policy (0..7), optionally OR-ed with the bandwidth / access flags.
  constexpr uint32_t kPolicyFlags = ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH |
                                    ACL_MEM_ACCESS_USER_SPACE_READONLY;
  const uint32_t policy_bits = static_cast<uint32_t>(policy);
  const uint32_t page_policy = policy_bits & ~kPolicyFlags;
  if (page_policy > ACL_MEM_MALLOC_HUGE1G_ONLY_P2P) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: policy ", static_cast<int>(policy),
                " is not an aclrtMemMallocPolicy value");
  }
  return Allocate(DeviceAllocations(), "aclrtMalloc", "devPtr", devPtr, size);
}

aclError aclrtFree(void* devPtr) {
  return Release(DeviceAllocations(), HostAllocations(), "aclrtFree", "devPtr", "aclrtMalloc",
                 "aclrtMallocHost", devPtr);
}

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  return Allocate(HostAllocations(), "aclrtMallocHost", "hostPtr", hostPtr, size);
}

aclError aclrtFreeHost(void* hostPtr) {
  return Release(HostAllocations(), DeviceAllocations(), "aclrtFreeHost", "hostPtr",
                 "aclrtMallocHost", "aclrtMalloc", hostPtr);
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                     aclrtMemcpyKind kind) {
  const aclError status = CheckMemcpy("aclrtMemcpy", dst, destMax, src, count, kind);
  if (status != ACL_SUCCESS) return status;
  CopyBytes(dst, src, count);
  return ACL_SUCCESS;
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  const aclError status = CheckMemset("aclrtMemset", devPtr, maxCount, count);
  if (status != ACL_SUCCESS) return status;
  SetBytes(devPtr, value, count);
  return ACL_SUCCESS;
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream) {
  const aclError status = CheckMemcpy("aclrtMemcpyAsync", dst, destMax, src, count, kind);
  if (status != ACL_SUCCESS) return status;
  return EnqueueFor("aclrtMemcpyAsync", stream, [dst, src, count]() -> int32_t {
    CopyBytes(dst, src, count);
    return ACL_SUCCESS;
  });
}

aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count,
                          aclrtStream stream) {
  const aclError status = CheckMemset("aclrtMemsetAsync", devPtr, maxCount, count);
  if (status != ACL_SUCCESS) return status;
  return EnqueueFor("aclrtMemsetAsync", stream, [devPtr, value, count]() -> int32_t {
    SetBytes(devPtr, value, count);
    return ACL_SUCCESS;
  });
}

aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t* value) {
  const aclError status = CheckSysParamOpt("aclrtCtxGetSysParamOpt", opt);
  if (status != ACL_SUCCESS) return status;
  if (value == nullptr) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCtxGetSysParamOpt: value is null");
  }
  SysParamOpts& options = ContextOptions();
  std::lock_guard<std::mutex> lock(options.mutex);
  *value = options.values[static_cast<size_t>(opt)];
  return ACL_SUCCESS;
}

aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  const aclError status = CheckSysParamOpt("aclrtCtxSetSysParamOpt", opt);
  if (status != ACL_SUCCESS) return status;
  // ACL_OPT_DETERMINISTIC takes a level (0 off .. 3 batch consistency); the others are switches.
  const int64_t max_value = opt == ACL_OPT_DETERMINISTIC ? 3 : 1;
  if (value < 0 || value > max_value) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclrtCtxSetSysParamOpt: value ", value,
                " is out of range 0..", max_value, " for opt ", static_cast<int>(opt));
  }
  SysParamOpts& options = ContextOptions();
  std::lock_guard<std::mutex> lock(options.mutex);
  options.values[static_cast<size_t>(opt)] = value;
  return ACL_SUCCESS;
}

const char* aclGetRecentErrMsg(void) {
  if (t_pending_error.empty()) return nullptr;
  t_returned_error = std::exchange(t_pending_error, std::string());
  return t_returned_error.c_str();
}

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t* stride, int64_t offset, aclFormat format,
                           const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData) {
  constexpr const char* kApi = "aclCreateTensor";
  if (viewDimsNum > kMaxTensorRank) {
    return FailNull<aclTensor>(kApi, ": viewDimsNum ", viewDimsNum, " exceeds the maximum rank ",
                               kMaxTensorRank);
  }
  if (viewDimsNum > 0 && viewDims == nullptr) {
    return FailNull<aclTensor>(kApi, ": viewDims is null but viewDimsNum is ", viewDimsNum);
  }
  if (storageDimsNum > 0 && storageDims == nullptr) {
    return FailNull<aclTensor>(kApi, ": storageDims is null but storageDimsNum is ",
                               storageDimsNum);
  }
  for (uint64_t i = 0; i < viewDimsNum; ++i) {
    if (viewDims[i] < 0) {
      return FailNull<aclTensor>(kApi, ": viewDims[", i, "] is negative (", viewDims[i], ")");
    }
  }
  for (uint64_t i = 0; i < storageDimsNum; ++i) {
    if (storageDims[i] < 0) {
      return FailNull<aclTensor>(kApi, ": storageDims[", i, "] is negative (", storageDims[i], ")");
    }
  }
  try {
    auto tensor = std::make_unique<aclTensor>();
    tensor->view_dims.assign(viewDims, viewDims + viewDimsNum);
    // CANN requires strides; a null `stride` is accepted here as "contiguous", which is what
    // every caller that omits it means.
    if (stride != nullptr) {
      tensor->strides.assign(stride, stride + viewDimsNum);
    } else if (!ContiguousStrides(tensor->view_dims, &tensor->strides)) {
      return FailNull<aclTensor>(kApi, ": the contiguous strides of the view overflow int64");
    }
    tensor->offset = offset;
    tensor->dtype = dataType;
    tensor->format = format;
    tensor->storage_dims.assign(storageDims, storageDims + storageDimsNum);
    tensor->data = tensorData;
    return tensor.release();
  } catch (const std::bad_alloc&) {
    return FailNull<aclTensor>(kApi, ": out of host memory");
  }
}

aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
  return CreateArray<aclIntArray>("aclCreateIntArray", value, size);
}

aclFloatArray* aclCreateFloatArray(const float* value, uint64_t size) {
  return CreateArray<aclFloatArray>("aclCreateFloatArray", value, size);
}

aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) {
  return CreateArray<aclBoolArray>("aclCreateBoolArray", value, size);
}

aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
  delete tensor;
  return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyIntArray(const aclIntArray* array) {
  delete array;
  return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyFloatArray(const aclFloatArray* array) {
  delete array;
  return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) {
  delete array;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum) {
  return CopyDimsOut("aclGetViewShape", "viewDims", "viewDimsNum", tensor, &aclTensor::view_dims,
                     viewDims, viewDimsNum);
}

aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims,
                               uint64_t* storageDimsNum) {
  return CopyDimsOut("aclGetStorageShape", "storageDims", "storageDimsNum", tensor,
                     &aclTensor::storage_dims, storageDims, storageDimsNum);
}

aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue,
                              uint64_t* stridesNum) {
  return CopyDimsOut("aclGetViewStrides", "stridesValue", "stridesNum", tensor, &aclTensor::strides,
                     stridesValue, stridesNum);
}

aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset) {
  if (tensor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetViewOffset: tensor is null");
  if (offset == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetViewOffset: offset is null");
  *offset = tensor->offset;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format) {
  if (tensor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetFormat: tensor is null");
  if (format == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetFormat: format is null");
  *format = tensor->format;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType) {
  if (tensor == nullptr) return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetDataType: tensor is null");
  if (dataType == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetDataType: dataType is null");
  }
  *dataType = tensor->dtype;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetIntArraySize(const aclIntArray* array, uint64_t* size) {
  return GetArraySize("aclGetIntArraySize", array, size);
}

aclnnStatus aclGetFloatArraySize(const aclFloatArray* array, uint64_t* size) {
  return GetArraySize("aclGetFloatArraySize", array, size);
}

aclnnStatus aclGetBoolArraySize(const aclBoolArray* array, uint64_t* size) {
  return GetArraySize("aclGetBoolArraySize", array, size);
}

}  // extern "C"
