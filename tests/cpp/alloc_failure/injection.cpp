// The replaced global operator new / delete of the allocation-failure executables: they count
// live allocations and their bytes and, when armed on the calling thread, fail its nth allocation
// (or every allocation from the nth on).
#include "cpp/alloc_failure/injection.hpp"

#include <malloc.h>
#include <stdlib.h>

#include <cstddef>
#include <cstdlib>
#include <new>

namespace upsample::testing_alloc {

std::atomic<int64_t> g_live_allocations{0};
std::atomic<int64_t> g_live_bytes{0};
std::atomic<int64_t> g_peak_bytes{0};
// The calling thread's allocations left before the injected failure; negative: none armed.
thread_local int64_t t_allocations_before_failure = -1;
thread_local bool t_keep_failing = false;
thread_local int64_t t_injected_failures = 0;

namespace {

bool inject_failure() noexcept {
  if (t_allocations_before_failure < 0) return false;
  if (t_allocations_before_failure > 0) {
    --t_allocations_before_failure;
    return false;
  }
  if (!t_keep_failing) t_allocations_before_failure = -1;
  ++t_injected_failures;
  return true;
}

void* allocate(size_t bytes, size_t alignment) noexcept {
  if (inject_failure()) return nullptr;
  if (bytes == 0) bytes = 1;
  void* memory = nullptr;
  if (alignment <= alignof(std::max_align_t)) {
    memory = std::malloc(bytes);
  } else if (posix_memalign(&memory, alignment, bytes) != 0) {
    memory = nullptr;
  }
  if (memory != nullptr) {
    g_live_allocations.fetch_add(1, std::memory_order_relaxed);
    const int64_t live = g_live_bytes.fetch_add(static_cast<int64_t>(malloc_usable_size(memory))) +
                         static_cast<int64_t>(malloc_usable_size(memory));
    int64_t peak = g_peak_bytes.load();
    while (live > peak && !g_peak_bytes.compare_exchange_weak(peak, live)) {
    }
  }
  return memory;
}

void* allocate_or_throw(size_t bytes, size_t alignment) {
  void* memory = allocate(bytes, alignment);
  if (memory == nullptr) throw std::bad_alloc();
  return memory;
}

void deallocate(void* memory) noexcept {
  if (memory == nullptr) return;
  g_live_allocations.fetch_sub(1, std::memory_order_relaxed);
  g_live_bytes.fetch_sub(static_cast<int64_t>(malloc_usable_size(memory)));
  std::free(memory);
}

}  // namespace
}  // namespace upsample::testing_alloc

using upsample::testing_alloc::allocate;
using upsample::testing_alloc::allocate_or_throw;
using upsample::testing_alloc::deallocate;

void* operator new(size_t bytes) { return allocate_or_throw(bytes, 0); }
void* operator new[](size_t bytes) { return allocate_or_throw(bytes, 0); }
void* operator new(size_t bytes, std::align_val_t alignment) {
  return allocate_or_throw(bytes, static_cast<size_t>(alignment));
}
void* operator new[](size_t bytes, std::align_val_t alignment) {
  return allocate_or_throw(bytes, static_cast<size_t>(alignment));
}
void* operator new(size_t bytes, const std::nothrow_t&) noexcept { return allocate(bytes, 0); }
void* operator new[](size_t bytes, const std::nothrow_t&) noexcept { return allocate(bytes, 0); }
void* operator new(size_t bytes, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return allocate(bytes, static_cast<size_t>(alignment));
}
void* operator new[](size_t bytes, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return allocate(bytes, static_cast<size_t>(alignment));
}
void operator delete(void* memory) noexcept { deallocate(memory); }
void operator delete[](void* memory) noexcept { deallocate(memory); }
void operator delete(void* memory, size_t) noexcept { deallocate(memory); }
void operator delete[](void* memory, size_t) noexcept { deallocate(memory); }
void operator delete(void* memory, std::align_val_t) noexcept { deallocate(memory); }
void operator delete[](void* memory, std::align_val_t) noexcept { deallocate(memory); }
void operator delete(void* memory, size_t, std::align_val_t) noexcept { deallocate(memory); }
void operator delete[](void* memory, size_t, std::align_val_t) noexcept { deallocate(memory); }
void operator delete(void* memory, const std::nothrow_t&) noexcept { deallocate(memory); }
void operator delete[](void* memory, const std::nothrow_t&) noexcept { deallocate(memory); }
void operator delete(void* memory, std::align_val_t, const std::nothrow_t&) noexcept {
  deallocate(memory);
}
void operator delete[](void* memory, std::align_val_t, const std::nothrow_t&) noexcept {
  deallocate(memory);
}
