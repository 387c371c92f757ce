// The allocator behind aclrtMalloc and aclrtMallocHost: 64-byte aligned host memory, every
// live block recorded (so a bad free is reported instead of corrupting the heap), and an
// optional bounded cache of freed blocks in size classes (so a program that allocates and frees
// the same workspace on every call gets warm memory back instead of fresh pages). docs/design.md
// ("The acl runtime") describes the policy.
#pragma once

#include <array>
#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace upsample::acl {

inline constexpr size_t kBlockAlignment = 64;

// Size classes: 64, 128, 192, 256 bytes, then four classes per power of two (for
// 2^e < bytes <= 2^(e+1): 5, 6, 7, 8 times 2^(e-2)), so a block is at most 25% larger than
// asked (and at most 63 bytes for requests up to 256). The last class of the top octave, 2^64,
// does not fit size_t.
inline constexpr int kSizeClassCount = 4 + 4 * (64 - 8) - 1;

// The size class of a request of `bytes` (> 0): its index and block size. False when the block
// size would not fit size_t.
bool size_class(size_t bytes, int* index, size_t* block_bytes);

// The block size of size class `index` (0 <= index < kSizeClassCount).
size_t size_class_bytes(int index);

struct HeapStats {
  size_t cache_limit_bytes = 0;
  size_t cached_bytes = 0;  // block bytes held in the cache
  size_t cached_blocks = 0;
  size_t live_blocks = 0;
};

class Heap {
 public:
  // `cache_limit_bytes`: the most block bytes the cache holds; 0 disables it.
  explicit Heap(size_t cache_limit_bytes);
  ~Heap();
  Heap(const Heap&) = delete;
  Heap& operator=(const Heap&) = delete;

  // A live, 64-byte aligned block with at least `bytes` (> 0) usable bytes, or nullptr when
  // the memory cannot be had (the cache is released and the system asked again first). Throws
  // std::bad_alloc when the block cannot be recorded; the block is then not kept.
  void* allocate(size_t bytes);

  // Ends a live block: into the cache when its size class fits in what the cache may still
  // hold, else back to the system. False (and nothing happens) when `pointer` is not live.
  bool release(void* pointer);

  // True if `pointer` is the start of a live block; `*bytes` receives the size asked for.
  bool find(const void* pointer, size_t* bytes);

  // Sets the cache limit; cached blocks beyond it go back to the system.
  void set_cache_limit(size_t bytes);

  // Returns every cached block to the system. Live blocks stay valid.
  void release_cache();

  HeapStats stats();

 private:
  struct LiveBlock {
    size_t bytes;        // asked for
    size_t block_bytes;  // allocated
    int size_class;      // -1: not cacheable
  };

  void* take_cached(int size_class, size_t block_bytes);
  void release_cache_locked();

  std::mutex mutex_;
  std::unordered_map<const void*, LiveBlock> live_;
  std::array<std::vector<void*>, kSizeClassCount> cached_;  // free blocks per size class
  size_t cache_limit_bytes_;
  size_t cached_bytes_ = 0;
  size_t cached_blocks_ = 0;
};

}  // namespace upsample::acl
