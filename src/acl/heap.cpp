// The allocator behind aclrtMalloc and aclrtMallocHost (see heap.hpp).
#include "acl/heap.hpp"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>

#include "core/checked.hpp"

// Under AddressSanitizer a cached block is poisoned, so a use after aclrtFree is still reported
// although the memory stays allocated; the bytes of a block beyond the size asked for are
// poisoned too.
#if defined(__SANITIZE_ADDRESS__)
#define UPSAMPLE_ACL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UPSAMPLE_ACL_ASAN 1
#endif
#endif
#if defined(UPSAMPLE_ACL_ASAN)
#include <sanitizer/asan_interface.h>
#endif

namespace upsample::acl {
namespace {

void poison(const void* memory, size_t bytes) {
#if defined(UPSAMPLE_ACL_ASAN)
  ASAN_POISON_MEMORY_REGION(memory, bytes);
#else
  (void)memory;
  (void)bytes;
#endif
}

void unpoison(const void* memory, size_t bytes) {
#if defined(UPSAMPLE_ACL_ASAN)
  ASAN_UNPOISON_MEMORY_REGION(memory, bytes);
#else
  (void)memory;
  (void)bytes;
#endif
}

// Makes the first `bytes` of a block usable and the rest of it unusable (under ASan).
void hand_out(void* block, size_t bytes, size_t block_bytes) {
  unpoison(block, bytes);
  poison(static_cast<char*>(block) + bytes, block_bytes - bytes);
}

void* allocate_from_system(size_t block_bytes) {
  return ::operator new (block_bytes, std::align_val_t{kBlockAlignment}, std::nothrow);
}

void release_to_system(void* block, size_t block_bytes) {
  unpoison(block, block_bytes);
  ::operator delete (block, std::align_val_t{kBlockAlignment});
}

}  // namespace

bool size_class(size_t bytes, int* index, size_t* block_bytes) {
  constexpr size_t kSmallest = 4 * kBlockAlignment;  // 256: the 64-byte classes end here
  if (bytes <= kSmallest) {
    const size_t block = bytes <= kBlockAlignment
                             ? kBlockAlignment
                             : (bytes + kBlockAlignment - 1) / kBlockAlignment * kBlockAlignment;
    *index = static_cast<int>(block / kBlockAlignment) - 1;
    *block_bytes = block;
    return true;
  }
  // 2^e < bytes <= 2^(e+1), e >= 8; the classes of this octave are 5, 6, 7, 8 times 2^(e-2).
  const int e = std::bit_width(bytes - 1) - 1;
  const size_t step = size_t{1} << (e - 2);
  size_t block = 0;
  if (!checked_round_up(bytes, step, &block)) return false;
  *index = 4 + (e - 8) * 4 + static_cast<int>(block / step) - 5;
  *block_bytes = block;
  return true;
}

size_t size_class_bytes(int index) {
  if (index < 4) return static_cast<size_t>(index + 1) * kBlockAlignment;
  const int e = 8 + (index - 4) / 4;
  const size_t multiple = static_cast<size_t>(5 + (index - 4) % 4);
  return multiple << (e - 2);
}

Heap::Heap(size_t cache_limit_bytes) : cache_limit_bytes_(cache_limit_bytes) {}

Heap::~Heap() { release_cache(); }

void* Heap::take_cached(int size_class, size_t block_bytes) {
  std::vector<void*>& free_blocks = cached_[static_cast<size_t>(size_class)];
  if (free_blocks.empty()) return nullptr;
  void* block = free_blocks.back();
  free_blocks.pop_back();
  cached_bytes_ -= block_bytes;
  --cached_blocks_;
  return block;
}

void* Heap::allocate(size_t bytes) {
  LiveBlock live{bytes, 0, -1};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    int index = -1;
    size_t block_bytes = 0;
    if (size_class(bytes, &index, &block_bytes) && block_bytes <= cache_limit_bytes_) {
      live.block_bytes = block_bytes;
      live.size_class = index;
      if (void* block = take_cached(index, block_bytes)) {
        try {
          live_.emplace(block, live);
        } catch (...) {
          // pop_back kept the vector's capacity, so this push cannot allocate.
          cached_[static_cast<size_t>(index)].push_back(block);
          cached_bytes_ += block_bytes;
          ++cached_blocks_;
          throw;
        }
        hand_out(block, bytes, block_bytes);
        return block;
      }
    }
  }
  // Not cacheable, or no cached block of its class: ask the system (outside the lock).
  if (live.size_class < 0 && !checked_round_up(bytes, kBlockAlignment, &live.block_bytes)) {
    return nullptr;
  }
  void* block = allocate_from_system(live.block_bytes);
  if (block == nullptr) {
    release_cache();  // the cached blocks of other classes may be what the system lacks
    block = allocate_from_system(live.block_bytes);
    if (block == nullptr) return nullptr;
  }
  try {
    std::lock_guard<std::mutex> lock(mutex_);
    live_.emplace(block, live);
  } catch (...) {
    release_to_system(block, live.block_bytes);
    throw;
  }
  hand_out(block, bytes, live.block_bytes);
  return block;
}

bool Heap::release(void* pointer) {
  LiveBlock live{};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = live_.find(pointer);
    if (found == live_.end()) return false;
    live = found->second;
    live_.erase(found);
    size_t cached_total = 0;
    if (live.size_class >= 0 && checked_add(cached_bytes_, live.block_bytes, &cached_total) &&
        cached_total <= cache_limit_bytes_) {
      try {
        cached_[static_cast<size_t>(live.size_class)].push_back(pointer);
        cached_bytes_ = cached_total;
        ++cached_blocks_;
        poison(pointer, live.block_bytes);
        return true;
      } catch (const std::bad_alloc&) {
        // No room to remember it: the block goes back to the system below.
      }
    }
  }
  release_to_system(pointer, live.block_bytes);
  return true;
}

bool Heap::find(const void* pointer, size_t* bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = live_.find(pointer);
  if (found == live_.end()) return false;
  if (bytes != nullptr) *bytes = found->second.bytes;
  return true;
}

void Heap::set_cache_limit(size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  cache_limit_bytes_ = bytes;
  if (cached_bytes_ > cache_limit_bytes_) release_cache_locked();
}

void Heap::release_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  release_cache_locked();
}

void Heap::release_cache_locked() {
  for (int index = 0; index < kSizeClassCount; ++index) {
    std::vector<void*>& free_blocks = cached_[static_cast<size_t>(index)];
    if (free_blocks.empty()) continue;
    const size_t block_bytes = size_class_bytes(index);
    for (void* block : free_blocks) release_to_system(block, block_bytes);
    free_blocks.clear();
  }
  cached_bytes_ = 0;
  cached_blocks_ = 0;
}

HeapStats Heap::stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  return HeapStats{cache_limit_bytes_, cached_bytes_, cached_blocks_, live_.size()};
}

}  // namespace upsample::acl
