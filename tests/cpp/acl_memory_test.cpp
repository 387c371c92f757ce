// Tests of the acl runtime's memory functions: aclrtMalloc / aclrtFree with their block cache,
// aclrtMallocHost / aclrtFreeHost, and the copies and fills.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "acl/heap.hpp"
#include "acl/memory.hpp"
#include "acl/runtime_internal.hpp"
#include "cpp/acl_c_callers.h"
#include "cpp/acl_test_util.hpp"

namespace {

using upsample::acl::testing::take_error_text;

TEST(AclMemory, MallocIsAlignedAndTracked) {
  for (size_t size :
       {size_t{1}, size_t{3}, size_t{63}, size_t{64}, size_t{65}, size_t{4096}, size_t{1} << 20}) {
    void* memory = nullptr;
    ASSERT_EQ(aclrtMalloc(&memory, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << size;
    ASSERT_NE(memory, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(memory) % 64, 0u) << size;
    size_t tracked = 0;
    EXPECT_TRUE(upsample::acl::find_allocation(memory, &tracked));
    EXPECT_EQ(tracked, size);
    std::memset(memory, 0xAB, size);  // the whole requested size is usable
    EXPECT_EQ(aclrtFree(memory), ACL_SUCCESS);
    EXPECT_FALSE(upsample::acl::find_allocation(memory, &tracked));
  }
}

TEST(AclMemory, MallocAcceptsPolicyFlags) {
  void* memory = nullptr;
  const auto policy =
      static_cast<aclrtMemMallocPolicy>(ACL_MEM_MALLOC_NORMAL_ONLY | ACL_MEM_TYPE_HIGH_BAND_WIDTH);
  ASSERT_EQ(aclrtMalloc(&memory, 128, policy), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(memory), ACL_SUCCESS);
  for (int policy : {8, -1, 0x7fffffff, ACL_MEM_TYPE_HIGH_BAND_WIDTH | 9}) {
    EXPECT_EQ(c_call_malloc(&memory, 128, policy), ACL_ERROR_INVALID_PARAM) << policy;
    EXPECT_NE(take_error_text().find("policy " + std::to_string(policy) + " is not"),
              std::string::npos);
  }
}

TEST(AclMemory, MallocRejectsBadArguments) {
  take_error_text();
  void* memory = nullptr;
  EXPECT_EQ(aclrtMalloc(&memory, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("size is 0"), std::string::npos);
  EXPECT_EQ(aclrtMalloc(nullptr, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("devPtr is null"), std::string::npos);
  EXPECT_EQ(aclrtMalloc(&memory, SIZE_MAX, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_BAD_ALLOC);
  EXPECT_NE(take_error_text().find("aclrtMalloc"), std::string::npos);
  EXPECT_EQ(memory, nullptr);
}

TEST(AclMemory, FreeOfUnknownPointerIsAnErrorWithText) {
  take_error_text();
  int not_allocated = 0;
  EXPECT_EQ(aclrtFree(&not_allocated), ACL_ERROR_INVALID_PARAM);
  const char* text = aclGetRecentErrMsg();
  ASSERT_NE(text, nullptr);
  const std::string message = text;
  EXPECT_NE(message.find("aclrtFree"), std::string::npos) << message;
  EXPECT_NE(message.find("devPtr"), std::string::npos) << message;
  char address[32];
  std::snprintf(address, sizeof(address), "%p", static_cast<void*>(&not_allocated));
  EXPECT_NE(message.find(address), std::string::npos) << message;
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);  // reading cleared it

  EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("null"), std::string::npos);
}

TEST(AclMemory, DoubleFreeIsAnError) {
  take_error_text();
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(memory), ACL_SUCCESS);
  EXPECT_EQ(take_error_text(), "");
  EXPECT_EQ(aclrtFree(memory), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("already freed"), std::string::npos);
}

TEST(AclMemory, HostAndDeviceAllocationsAreNotInterchangeable) {
  take_error_text();
  void* host = nullptr;
  ASSERT_EQ(aclrtMallocHost(&host, 100), ACL_SUCCESS);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(host) % 64, 0u);
  EXPECT_FALSE(upsample::acl::find_allocation(host, nullptr));
  EXPECT_EQ(aclrtFree(host), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("aclrtMallocHost"), std::string::npos);
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(host), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("aclrtFreeHost"), std::string::npos);
}

TEST(AclMemory, ConcurrentMallocFreeIsSafe) {
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&failures] {
      for (int i = 0; i < 500; ++i) {
        void* memory = nullptr;
        if (aclrtMalloc(&memory, 32 + i, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) ++failures;
        if (!upsample::acl::find_allocation(memory, nullptr)) ++failures;
        if (aclrtFree(memory) != ACL_SUCCESS) ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(AclMemory, MemcpyHonoursDestMax) {
  take_error_text();
  std::vector<uint8_t> source(64), destination(64, 0);
  for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<uint8_t>(i);

  EXPECT_EQ(aclrtMemcpy(destination.data(), 32, source.data(), 33, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  const std::string message = take_error_text();
  EXPECT_NE(message.find("count 33 exceeds destMax 32"), std::string::npos) << message;
  EXPECT_EQ(destination[0], 0);  // nothing was copied

  EXPECT_EQ(aclrtMemcpy(destination.data(), 64, source.data(), 32, ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_SUCCESS);
  EXPECT_EQ(std::memcmp(destination.data(), source.data(), 32), 0);
  EXPECT_EQ(destination[32], 0);
}

TEST(AclMemory, MemcpyRejectsNullPointersAndBadKinds) {
  take_error_text();
  uint8_t buffer[8] = {};
  EXPECT_EQ(aclrtMemcpy(nullptr, 8, buffer, 8, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("dst is null"), std::string::npos);
  EXPECT_EQ(aclrtMemcpy(buffer, 8, nullptr, 8, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("src is null"), std::string::npos);
  EXPECT_EQ(aclrtMemcpy(nullptr, 0, nullptr, 0, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(c_call_memcpy(buffer, 8, buffer, 8, 8), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("kind 8"), std::string::npos);
  EXPECT_EQ(c_call_memcpy(buffer, 8, buffer, 8, -1), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("kind -1 is not"), std::string::npos);
  EXPECT_EQ(c_call_memcpy_async(buffer, 8, buffer, 8, 1000, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("aclrtMemcpyAsync: kind 1000 is not"), std::string::npos);
}

TEST(AclMemory, MemcpyHandlesOverlap) {
  uint8_t bytes[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  ASSERT_EQ(aclrtMemcpy(bytes + 1, 7, bytes, 6, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
  const uint8_t expected[8] = {0, 0, 1, 2, 3, 4, 5, 7};
  EXPECT_EQ(std::memcmp(bytes, expected, 8), 0);
}

TEST(AclMemory, MemsetHonoursMaxCount) {
  take_error_text();
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  auto* bytes = static_cast<uint8_t*>(memory);
  std::memset(bytes, 0, 16);
  EXPECT_EQ(aclrtMemset(memory, 8, 0x7F, 9), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("count 9 exceeds maxCount 8"), std::string::npos);
  EXPECT_EQ(bytes[0], 0);
  EXPECT_EQ(aclrtMemset(memory, 16, 0x17F, 8), ACL_SUCCESS);  // only the low byte is used
  for (int i = 0; i < 8; ++i) EXPECT_EQ(bytes[i], 0x7F) << i;
  for (int i = 8; i < 16; ++i) EXPECT_EQ(bytes[i], 0) << i;
  EXPECT_EQ(aclrtMemset(nullptr, 8, 0, 8), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFree(memory), ACL_SUCCESS);
}
TEST(AclMemory, CopiesAndFillsStayInsideTheBlockTheyStartAt) {
  take_error_text();
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  std::vector<uint8_t> host(64, 1);
  EXPECT_EQ(aclrtMemcpy(memory, 64, host.data(), 32, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  std::string message = take_error_text();
  EXPECT_NE(message.find("count 32 exceeds the 16 bytes allocated at dst"), std::string::npos)
      << message;
  EXPECT_EQ(aclrtMemcpy(host.data(), 64, memory, 17, ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_ERROR_INVALID_PARAM);
  message = take_error_text();
  EXPECT_NE(message.find("allocated at src"), std::string::npos) << message;
  EXPECT_EQ(aclrtMemset(memory, 64, 0, 17), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("allocated at devPtr"), std::string::npos);
  EXPECT_EQ(host[0], 1);  // nothing was copied

  EXPECT_EQ(aclrtMemcpy(memory, 16, host.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemset(memory, 16, 0, 16), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(memory), ACL_SUCCESS);

  void* host_block = nullptr;
  ASSERT_EQ(aclrtMallocHost(&host_block, 8), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemset(host_block, 64, 0, 9), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("the 8 bytes allocated"), std::string::npos);
  EXPECT_EQ(aclrtFreeHost(host_block), ACL_SUCCESS);
}

TEST(AclMemory, RangesThatWrapAroundTheAddressSpaceAreRefused) {
  take_error_text();
  auto* near_end = reinterpret_cast<void*>(UINTPTR_MAX - 7);
  uint8_t buffer[16] = {};
  EXPECT_EQ(aclrtMemcpy(near_end, SIZE_MAX, buffer, 16, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  const std::string message = take_error_text();
  EXPECT_NE(message.find("wraps around the address space"), std::string::npos) << message;
  EXPECT_EQ(aclrtMemcpy(buffer, 16, near_end, 16, ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemset(near_end, SIZE_MAX, 0, 9), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("devPtr"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// The block cache behind aclrtMalloc.

TEST(AclSizeClass, BlocksAreAlignedAndAtMostAQuarterLargerThanAsked) {
  int previous_index = -1;
  size_t previous_block = 0;
  std::vector<size_t> sizes;
  for (size_t bytes = 1; bytes <= 5000; ++bytes) sizes.push_back(bytes);
  for (size_t power = 13; power < 64; ++power) {
    const size_t base = size_t{1} << power;
    for (size_t delta : {size_t{0}, size_t{1}, base / 8, base / 4, base / 4 + 1, base / 2 + 7}) {
      if (base + delta > base) sizes.push_back(base + delta);
    }
    sizes.push_back(base - 1);
  }
  std::sort(sizes.begin(), sizes.end());
  for (size_t bytes : sizes) {
    int index = -1;
    size_t block = 0;
    ASSERT_TRUE(upsample::acl::size_class(bytes, &index, &block)) << bytes;
    EXPECT_GE(block, bytes);
    EXPECT_EQ(block % upsample::acl::kBlockAlignment, 0u) << bytes;
    if (bytes > 256) {
      EXPECT_LE(block - bytes, bytes / 4) << bytes;
    } else {
      EXPECT_LT(block - bytes, 64u) << bytes;
    }
    ASSERT_GE(index, 0);
    ASSERT_LT(index, upsample::acl::kSizeClassCount);
    EXPECT_EQ(upsample::acl::size_class_bytes(index), block) << bytes;
    // Classes grow with the request: one index per block size.
    EXPECT_GE(index, previous_index) << bytes;
    EXPECT_EQ(index == previous_index, block == previous_block) << bytes;
    previous_index = index;
    previous_block = block;
  }
  int index = -1;
  size_t block = 0;
  EXPECT_FALSE(upsample::acl::size_class(SIZE_MAX, &index, &block));
  EXPECT_FALSE(upsample::acl::size_class((size_t{7} << 61) + 1, &index, &block));
  EXPECT_TRUE(upsample::acl::size_class(size_t{7} << 61, &index, &block));
  EXPECT_EQ(index, upsample::acl::kSizeClassCount - 1);
}

TEST(AclHeap, AFreedBlockIsReusedForARequestOfItsClass) {
  upsample::acl::Heap heap(1 << 20);
  void* first = heap.allocate(5000);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0u);
  std::memset(first, 0x5A, 5000);
  ASSERT_TRUE(heap.release(first));
  upsample::acl::HeapStats stats = heap.stats();
  EXPECT_EQ(stats.cached_blocks, 1u);
  EXPECT_EQ(stats.cached_bytes, 5120u);  // 5000 is in the class of 5 x 1024
  EXPECT_EQ(stats.live_blocks, 0u);
  EXPECT_FALSE(heap.find(first, nullptr));  // a cached block is not live
  EXPECT_FALSE(heap.release(first));        // so freeing it again is refused

  void* second = heap.allocate(4200);  // same class
  EXPECT_EQ(second, first);
  size_t bytes = 0;
  EXPECT_TRUE(heap.find(second, &bytes));
  EXPECT_EQ(bytes, 4200u);
  EXPECT_EQ(heap.stats().cached_blocks, 0u);
  void* other_class = heap.allocate(6000);
  EXPECT_NE(other_class, first);
  ASSERT_TRUE(heap.release(second));
  ASSERT_TRUE(heap.release(other_class));
  EXPECT_EQ(heap.stats().cached_blocks, 2u);
  heap.release_cache();
  stats = heap.stats();
  EXPECT_EQ(stats.cached_blocks, 0u);
  EXPECT_EQ(stats.cached_bytes, 0u);
}

TEST(AclHeap, CacheNeverHoldsMoreThanItsLimit) {
  upsample::acl::Heap heap(1000);
  void* blocks[3] = {heap.allocate(512), heap.allocate(512), heap.allocate(2000)};
  for (void* block : blocks) ASSERT_NE(block, nullptr);
  for (void* block : blocks) ASSERT_TRUE(heap.release(block));
  // 512 + 512 > 1000 and 2000 > 1000: only the first freed block is kept.
  upsample::acl::HeapStats stats = heap.stats();
  EXPECT_EQ(stats.cached_blocks, 1u);
  EXPECT_EQ(stats.cached_bytes, 512u);
  EXPECT_EQ(stats.cache_limit_bytes, 1000u);

  heap.set_cache_limit(256);  // lowering the limit gives back what no longer fits
  EXPECT_EQ(heap.stats().cached_bytes, 0u);
  heap.set_cache_limit(0);  // 0 disables the cache
  void* block = heap.allocate(64);
  ASSERT_TRUE(heap.release(block));
  EXPECT_EQ(heap.stats().cached_blocks, 0u);
}

TEST(AclHeap, RequestsTooLargeForAnyBlockGiveNull) {
  upsample::acl::Heap heap(1 << 20);
  EXPECT_EQ(heap.allocate(SIZE_MAX), nullptr);
  EXPECT_EQ(heap.allocate(SIZE_MAX - 62), nullptr);  // rounding up to 64 overflows
  EXPECT_EQ(heap.stats().live_blocks, 0u);
}

TEST(AclMallocCache, FreeThenMallocOfTheSameSizeReusesTheBlock) {
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  if (upsample::acl::device_heap_stats().cache_limit_bytes < (size_t{16} << 20)) {
    GTEST_SKIP() << "the cache limit is below 16 MiB here (" << upsample::acl::kCacheBytesVariable
                 << " or a small machine)";
  }
  constexpr size_t kBytes = size_t{16} << 20;
  void* first = nullptr;
  ASSERT_EQ(aclrtMalloc(&first, kBytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtFree(first), ACL_SUCCESS);
  EXPECT_FALSE(upsample::acl::find_allocation(first, nullptr));
  EXPECT_EQ(upsample::acl::device_heap_stats().cached_bytes, kBytes);
  // A cached block is not live: freeing it again is still an error.
  take_error_text();
  EXPECT_EQ(aclrtFree(first), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("already freed"), std::string::npos);

  void* second = nullptr;
  ASSERT_EQ(aclrtMalloc(&second, kBytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(second, first);
  size_t tracked = 0;
  EXPECT_TRUE(upsample::acl::find_allocation(second, &tracked));
  EXPECT_EQ(tracked, kBytes);
  EXPECT_EQ(upsample::acl::device_heap_stats().cached_bytes, 0u);
  ASSERT_EQ(aclrtFree(second), ACL_SUCCESS);
}

TEST(AclMallocCache, ResetDeviceAndFinalizeReleaseTheCache) {
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  void* kept = nullptr;
  ASSERT_EQ(aclrtMalloc(&kept, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtFree(memory), ACL_SUCCESS);
  if (upsample::acl::device_heap_stats().cache_limit_bytes >= 4096) {
    EXPECT_GT(upsample::acl::device_heap_stats().cached_bytes, 0u);
  }
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(upsample::acl::device_heap_stats().cached_bytes, 0u);
  EXPECT_TRUE(upsample::acl::find_allocation(kept, nullptr));  // live blocks stay valid
  std::memset(kept, 1, 100);

  ASSERT_EQ(aclrtMalloc(&memory, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtFree(memory), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(upsample::acl::device_heap_stats().cached_bytes, 0u);
  EXPECT_EQ(aclrtFree(kept), ACL_SUCCESS);
}

// Sets UPSAMPLE_ALLOC_CACHE_BYTES for one test and restores the previous state after it.
class CacheVariableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* value = std::getenv(upsample::acl::kCacheBytesVariable);
    had_value_ = value != nullptr;
    if (had_value_) old_value_ = value;
  }
  void TearDown() override {
    if (had_value_) {
      setenv(upsample::acl::kCacheBytesVariable, old_value_.c_str(), 1);
    } else {
      unsetenv(upsample::acl::kCacheBytesVariable);
    }
    take_error_text();
    aclInit(nullptr);
    take_error_text();
  }
  bool had_value_ = false;
  std::string old_value_;
};

TEST_F(CacheVariableTest, AclInitReadsTheLimitFromTheEnvironment) {
  ASSERT_EQ(setenv(upsample::acl::kCacheBytesVariable, "123456", 1), 0);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(upsample::acl::device_heap_stats().cache_limit_bytes, 123456u);

  ASSERT_EQ(setenv(upsample::acl::kCacheBytesVariable, "0", 1), 0);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(upsample::acl::device_heap_stats().cache_limit_bytes, 0u);
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 1000, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtFree(memory), ACL_SUCCESS);
  EXPECT_EQ(upsample::acl::device_heap_stats().cached_blocks, 0u);  // disabled

  ASSERT_EQ(unsetenv(upsample::acl::kCacheBytesVariable), 0);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  const size_t default_limit = upsample::acl::default_cache_limit();
  EXPECT_EQ(upsample::acl::device_heap_stats().cache_limit_bytes, default_limit);
  EXPECT_GT(default_limit, 0u);
  EXPECT_LE(default_limit, size_t{1} << 30);
}

TEST_F(CacheVariableTest, AnUnreadableLimitIsReportedAndTheDefaultKept) {
  take_error_text();
  for (const char* bad : {"", "12abc", "-5", "1e9", " 7", "99999999999999999999999"}) {
    ASSERT_EQ(setenv(upsample::acl::kCacheBytesVariable, bad, 1), 0);
    EXPECT_EQ(aclInit(nullptr), ACL_ERROR_INVALID_PARAM) << bad;
    const std::string message = take_error_text();
    EXPECT_NE(message.find(std::string("UPSAMPLE_ALLOC_CACHE_BYTES=\"") + bad + "\""),
              std::string::npos)
        << message;
    EXPECT_EQ(upsample::acl::device_heap_stats().cache_limit_bytes,
              upsample::acl::default_cache_limit());
  }
  EXPECT_EQ(upsample::acl::parse_byte_count("18446744073709551615"), SIZE_MAX);
  EXPECT_EQ(upsample::acl::parse_byte_count("007"), 7u);
}

TEST(AclMallocCache, ConcurrentThreadsNeverShareABlock) {
  // Each thread fills its blocks with its own byte and checks it before freeing: a block handed
  // out twice (or a cached block given while still live) would show another thread's byte.
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &failures] {
      const auto mark = static_cast<uint8_t>(t + 1);
      for (int i = 0; i < 300; ++i) {
        const size_t bytes = size_t{64} << (i % 8);  // a few classes, reused constantly
        void* memory = nullptr;
        if (aclrtMalloc(&memory, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
          ++failures;
          continue;
        }
        std::memset(memory, mark, bytes);
        std::this_thread::yield();
        const auto* data = static_cast<const uint8_t*>(memory);
        for (size_t b = 0; b < bytes; ++b) {
          if (data[b] != mark) {
            ++failures;
            break;
          }
        }
        if (aclrtFree(memory) != ACL_SUCCESS) ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(upsample::acl::device_heap_stats().live_blocks, 0u);
}

#if defined(__SANITIZE_ADDRESS__)
#define UPSAMPLE_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UPSAMPLE_TEST_ASAN 1
#endif
#endif

#if defined(UPSAMPLE_TEST_ASAN)
TEST(AclMallocCacheDeathTest, UseOfACachedBlockIsReportedUnderAddressSanitizer) {
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtFree(memory), ACL_SUCCESS);
  ASSERT_GT(upsample::acl::device_heap_stats().cached_blocks, 0u);
  EXPECT_DEATH(static_cast<volatile uint8_t*>(memory)[10] = 1, "use-after-poison");
}

TEST(AclMallocCacheDeathTest, BytesPastTheSizeAskedForAreReportedUnderAddressSanitizer) {
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 200, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  static_cast<volatile uint8_t*>(memory)[199] = 1;
  EXPECT_DEATH(static_cast<volatile uint8_t*>(memory)[200] = 1, "use-after-poison");
  ASSERT_EQ(aclrtFree(memory), ACL_SUCCESS);
}
#endif

}  // namespace
