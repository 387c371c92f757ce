// Device and host memory of the acl runtime, as seen by its other parts (the memory API itself
// is the C API in acl_rt.h and find_allocation() in runtime_internal.hpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "acl/acl.h"
#include "acl/heap.hpp"

namespace upsample::acl {

// The environment variable that sets the aclrtMalloc cache limit, in bytes (0 disables it).
inline constexpr const char* kCacheBytesVariable = "UPSAMPLE_ALLOC_CACHE_BYTES";

// The machine's physical memory in bytes (SIZE_MAX when unknown). No single allocation of the
// runtime may exceed it: such a request is refused before the allocator is asked, as a device
// refuses more than its memory (and as AddressSanitizer's allocator would otherwise abort).
size_t physical_memory_bytes();

// The cache limit without the variable: min(1 GiB, 1/8 of the physical memory).
size_t default_cache_limit();

// The byte count `text` holds (decimal digits only), or nothing.
std::optional<size_t> parse_byte_count(std::string_view text);

// Sets the aclrtMalloc cache limit from UPSAMPLE_ALLOC_CACHE_BYTES (the default without it).
// An unreadable value keeps the default and gives ACL_ERROR_INVALID_PARAM with a message
// naming `api`, the variable and the value.
aclError configure_device_cache(const char* api);

// Returns the blocks cached by aclrtMalloc to the system (aclrtResetDevice, aclFinalize), and
// runs the release hooks.
void release_device_cache();

// Adds a function release_device_cache() runs after releasing the blocks: the aclnn layer's plan
// cache (aclnn/executor.cpp) is emptied with the device's memory. False when it cannot be kept.
bool add_release_hook(void (*hook)());

// The state of the aclrtMalloc heap.
HeapStats device_heap_stats();

}  // namespace upsample::acl
