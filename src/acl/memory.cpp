// Memory: aclrtMalloc / aclrtFree (device memory, with a bounded cache of freed blocks),
// aclrtMallocHost / aclrtFreeHost, and the synchronous and stream-ordered copies and fills.
//
// Device 0 is the host, so "device" memory is 64-byte aligned host memory from a Heap
// (heap.hpp) that records every live block: a bad aclrtFree is reported instead of corrupting
// the heap, and a copy or fill that starts at a block and runs past its end is refused.
#include "acl/memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "acl/acl.h"
#include "acl/enum_value.hpp"
#include "acl/errors.hpp"
#include "acl/heap.hpp"
#include "acl/runtime_internal.hpp"
#include "acl/streams.hpp"
#include "core/checked.hpp"

namespace upsample::acl {
namespace {

// The cache limit UPSAMPLE_ALLOC_CACHE_BYTES asks for: the default when it is unset, its value
// when it is a byte count. Otherwise the default, with the unreadable text in `*unreadable`.
size_t cache_limit_from_environment(std::optional<std::string>* unreadable) {
  const char* value = std::getenv(kCacheBytesVariable);
  if (value == nullptr) return default_cache_limit();
  const std::optional<size_t> bytes = parse_byte_count(value);
  if (!bytes) {
    if (unreadable != nullptr) *unreadable = value;
    return default_cache_limit();
  }
  return *bytes;
}

// Both heaps are never destroyed: blocks a program forgets to free stay valid until it exits.
Heap& device_heap() {
  static Heap* const heap = new Heap(cache_limit_from_environment(nullptr));
  return *heap;
}

// aclrtMallocHost buffers are not cached: programs allocate them once.
Heap& host_heap() {
  static Heap* const heap = new Heap(0);
  return *heap;
}

aclError allocate(Heap& heap, const char* api, const char* pointer_name, void** out, size_t size) {
  if (out == nullptr) return fail(ACL_ERROR_INVALID_PARAM, api, ": ", pointer_name, " is null");
  if (size == 0) return fail(ACL_ERROR_INVALID_PARAM, api, ": size is 0");
  if (size > physical_memory_bytes()) {
    return fail(ACL_ERROR_BAD_ALLOC, api, ": size ", size, " exceeds the ", physical_memory_bytes(),
                " bytes of physical memory");
  }
  void* memory = heap.allocate(size);
  if (memory == nullptr) {
    return fail(ACL_ERROR_BAD_ALLOC, api, ": cannot allocate ", size, " bytes (out of memory)");
  }
  *out = memory;
  return ACL_SUCCESS;
}

aclError release(Heap& heap, Heap& other_heap, const char* api, const char* pointer_name,
                 const char* allocator, const char* other_allocator, void* pointer) {
  if (pointer == nullptr) {
    return fail(ACL_ERROR_INVALID_PARAM, api, ": ", pointer_name, " is null");
  }
  if (heap.release(pointer)) return ACL_SUCCESS;
  const bool from_other = other_heap.find(pointer, nullptr);
  return fail(ACL_ERROR_INVALID_PARAM, api, ": ", pointer_name, " ", pointer_text(pointer),
              " was not returned by ", allocator, " or was already freed",
              from_other ? " (it was returned by " : "", from_other ? other_allocator : "",
              from_other ? ")" : "");
}

// Refuses a range [pointer, pointer + count) that wraps around the address space, or that
// starts at a live block of either heap and runs past its end.
aclError check_range(const char* api, const char* name, const void* pointer, size_t count) {
  uintptr_t end = 0;
  if (!checked_add(reinterpret_cast<uintptr_t>(pointer), uintptr_t{count}, &end)) {
    return fail(ACL_ERROR_INVALID_PARAM, api, ": ", name, " ", pointer_text(pointer), " + count ",
                count, " wraps around the address space");
  }
  size_t block_bytes = 0;
  if (device_heap().find(pointer, &block_bytes) || host_heap().find(pointer, &block_bytes)) {
    if (count > block_bytes) {
      return fail(ACL_ERROR_INVALID_PARAM, api, ": count ", count, " exceeds the ", block_bytes,
                  " bytes allocated at ", name, " ", pointer_text(pointer));
    }
  }
  return ACL_SUCCESS;
}

// `kind`: the raw value of an aclrtMemcpyKind argument (enum_value.hpp).
aclError check_memcpy(const char* api, const void* dst, size_t dest_max, const void* src,
                      size_t count, int64_t kind) {
  if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_INTER_DEVICE_TO_DEVICE) {
    return fail(ACL_ERROR_INVALID_PARAM, api, ": kind ", kind,
                " is not an aclrtMemcpyKind value (0..7)");
  }
  if (count > dest_max) {
    return fail(ACL_ERROR_INVALID_PARAM, api, ": count ", count, " exceeds destMax ", dest_max);
  }
  if (count == 0) return ACL_SUCCESS;
  if (dst == nullptr) {
    return fail(ACL_ERROR_INVALID_PARAM, api, ": dst is null but count is ", count);
  }
  if (src == nullptr) {
    return fail(ACL_ERROR_INVALID_PARAM, api, ": src is null but count is ", count);
  }
  if (aclError status = check_range(api, "dst", dst, count); status != ACL_SUCCESS) return status;
  return check_range(api, "src", src, count);
}

aclError check_memset(const char* api, const void* dev_ptr, size_t max_count, size_t count) {
  if (count > max_count) {
    return fail(ACL_ERROR_INVALID_PARAM, api, ": count ", count, " exceeds maxCount ", max_count);
  }
  if (count == 0) return ACL_SUCCESS;
  if (dev_ptr == nullptr) {
    return fail(ACL_ERROR_INVALID_PARAM, api, ": devPtr is null but count is ", count);
  }
  return check_range(api, "devPtr", dev_ptr, count);
}

// memmove: callers may pass overlapping ranges, which memcpy would silently corrupt.
void copy_bytes(void* dst, const void* src, size_t count) {
  if (count > 0) std::memmove(dst, src, count);
}

void set_bytes(void* dev_ptr, int32_t value, size_t count) {
  if (count > 0) std::memset(dev_ptr, static_cast<unsigned char>(value), count);
}

// `policy`: the raw value of an aclrtMemMallocPolicy argument (enum_value.hpp).
aclError malloc_device(void** dev_ptr, size_t size, int64_t policy) {
  // One page policy (0..7), optionally OR-ed with the bandwidth / access flags.
  constexpr int64_t kPolicyFlags = ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH |
                                   ACL_MEM_ACCESS_USER_SPACE_READONLY;
  if (policy < 0 || (policy & ~kPolicyFlags) > ACL_MEM_MALLOC_HUGE1G_ONLY_P2P) {
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: policy ", policy,
                " is not an aclrtMemMallocPolicy value");
  }
  return allocate(device_heap(), "aclrtMalloc", "devPtr", dev_ptr, size);
}

aclError memcpy_sync(void* dst, size_t dest_max, const void* src, size_t count, int64_t kind) {
  const aclError status = check_memcpy("aclrtMemcpy", dst, dest_max, src, count, kind);
  if (status != ACL_SUCCESS) return status;
  copy_bytes(dst, src, count);
  return ACL_SUCCESS;
}

aclError memset_sync(void* dev_ptr, size_t max_count, int32_t value, size_t count) {
  const aclError status = check_memset("aclrtMemset", dev_ptr, max_count, count);
  if (status != ACL_SUCCESS) return status;
  set_bytes(dev_ptr, value, count);
  return ACL_SUCCESS;
}

aclError memcpy_async(void* dst, size_t dest_max, const void* src, size_t count, int64_t kind,
                      aclrtStream stream) {
  constexpr const char* kApi = "aclrtMemcpyAsync";
  const aclError status = check_memcpy(kApi, dst, dest_max, src, count, kind);
  if (status != ACL_SUCCESS) return status;
  return enqueue_for(
      kApi, stream,
      [dst, src, count]() -> int32_t {
        copy_bytes(dst, src, count);
        return ACL_SUCCESS;
      },
      InlinePolicy::kNever);
}

aclError memset_async(void* dev_ptr, size_t max_count, int32_t value, size_t count,
                      aclrtStream stream) {
  constexpr const char* kApi = "aclrtMemsetAsync";
  const aclError status = check_memset(kApi, dev_ptr, max_count, count);
  if (status != ACL_SUCCESS) return status;
  return enqueue_for(
      kApi, stream,
      [dev_ptr, value, count]() -> int32_t {
        set_bytes(dev_ptr, value, count);
        return ACL_SUCCESS;
      },
      InlinePolicy::kNever);
}

}  // namespace

size_t physical_memory_bytes() {
  static const size_t bytes = [] {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_bytes = sysconf(_SC_PAGESIZE);
    size_t physical = 0;
    if (pages <= 0 || page_bytes <= 0 ||
        !checked_mul(static_cast<size_t>(pages), static_cast<size_t>(page_bytes), &physical)) {
      return SIZE_MAX;
    }
    return physical;
  }();
  return bytes;
}

size_t default_cache_limit() {
  constexpr size_t kMaxDefault = size_t{1} << 30;
  return std::min(kMaxDefault, physical_memory_bytes() / 8);
}

std::optional<size_t> parse_byte_count(std::string_view text) {
  size_t value = 0;
  const char* end = text.data() + text.size();
  if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || stop != end) return std::nullopt;
  return value;
}

aclError configure_device_cache(const char* api) {
  std::optional<std::string> unreadable;
  const size_t limit = cache_limit_from_environment(&unreadable);
  device_heap().set_cache_limit(limit);
  if (unreadable) {
    return fail(ACL_ERROR_INVALID_PARAM, api, ": ", kCacheBytesVariable, "=\"", *unreadable,
                "\" is not a byte count (decimal digits; 0 disables the cache); using ", limit);
  }
  return ACL_SUCCESS;
}

namespace {

struct ReleaseHooks {
  std::mutex mutex;
  std::vector<void (*)()> hooks;
};

ReleaseHooks& release_hooks() {
  static ReleaseHooks* const hooks = new ReleaseHooks;  // used until the process exits
  return *hooks;
}

}  // namespace

void release_device_cache() {
  device_heap().release_cache();
  std::lock_guard<std::mutex> lock(release_hooks().mutex);
  for (void (*hook)() : release_hooks().hooks) hook();
}

bool add_release_hook(void (*hook)()) {
  std::lock_guard<std::mutex> lock(release_hooks().mutex);
  try {
    release_hooks().hooks.push_back(hook);
  } catch (const std::bad_alloc&) {
    return false;
  }
  return true;
}

HeapStats device_heap_stats() { return device_heap().stats(); }

bool find_allocation(const void* ptr, size_t* bytes) { return device_heap().find(ptr, bytes); }

}  // namespace upsample::acl

// ---------------------------------------------------------------------------------------------
// The C API. Visibility comes from the declarations' ACL_FUNC_VISIBILITY.

using upsample::acl::guard_c_api;
using upsample::acl::kAclFailure;

extern "C" {

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  return guard_c_api("aclrtMalloc", kAclFailure, [&] {
    return upsample::acl::malloc_device(devPtr, size, upsample::acl::enum_value(policy));
  });
}

aclError aclrtFree(void* devPtr) {
  return guard_c_api("aclrtFree", kAclFailure, [&] {
    return upsample::acl::release(upsample::acl::device_heap(), upsample::acl::host_heap(),
                                  "aclrtFree", "devPtr", "aclrtMalloc", "aclrtMallocHost", devPtr);
  });
}

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  return guard_c_api("aclrtMallocHost", kAclFailure, [&] {
    return upsample::acl::allocate(upsample::acl::host_heap(), "aclrtMallocHost", "hostPtr",
                                   hostPtr, size);
  });
}

aclError aclrtFreeHost(void* hostPtr) {
  return guard_c_api("aclrtFreeHost", kAclFailure, [&] {
    return upsample::acl::release(upsample::acl::host_heap(), upsample::acl::device_heap(),
                                  "aclrtFreeHost", "hostPtr", "aclrtMallocHost", "aclrtMalloc",
                                  hostPtr);
  });
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                     aclrtMemcpyKind kind) {
  return guard_c_api("aclrtMemcpy", kAclFailure, [&] {
    return upsample::acl::memcpy_sync(dst, destMax, src, count, upsample::acl::enum_value(kind));
  });
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  return guard_c_api("aclrtMemset", kAclFailure,
                     [&] { return upsample::acl::memset_sync(devPtr, maxCount, value, count); });
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream) {
  return guard_c_api("aclrtMemcpyAsync", kAclFailure, [&] {
    return upsample::acl::memcpy_async(dst, destMax, src, count, upsample::acl::enum_value(kind),
                                       stream);
  });
}

aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count,
                          aclrtStream stream) {
  return guard_c_api("aclrtMemsetAsync", kAclFailure, [&] {
    return upsample::acl::memset_async(devPtr, maxCount, value, count, stream);
  });
}

}  // extern "C"
