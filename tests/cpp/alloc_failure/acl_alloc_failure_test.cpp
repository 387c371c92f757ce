// The acl runtime under injected allocation failures (injection.hpp).
//
// Each runtime function that allocates is driven through every one of its allocation
// points in turn; at each it must return its documented failure (or succeed all the same),
// keep no allocation it made, and leave the runtime working. The runtime's device blocks come
// from the aligned operator new too, so aclrtMalloc is covered as well.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "acl/memory.hpp"
#include "acl/runtime_internal.hpp"
#include "aclnn/acl_meta.h"
#include "aclnn/aclnn_base.h"
#include "cpp/acl_test_util.hpp"
#include "cpp/alloc_failure/injection.hpp"

namespace {

using upsample::acl::testing::take_error_text;
using upsample::testing_alloc::g_live_allocations;
using upsample::testing_alloc::InjectedFailure;

constexpr const char* kLostText =
    "an error occurred, but its message could not be stored (out of host memory)";

// Live allocations once the memory the runtime legitimately keeps between calls is settled:
// the aclrtMalloc cache is emptied and the thread's error text read (which leaves exactly one
// message buffer held for aclGetRecentErrMsg's result).
int64_t settled_live_allocations() {
  upsample::acl::release_device_cache();
  take_error_text();
  return g_live_allocations.load();
}

// Brings the runtime's long-lived containers (the live-block maps, the free list of each size
// class the tests use, the stream registry, the error text buffer) to a size that the tests'
// calls do not grow, so that the live-allocation count only moves with what a call keeps.
void warm_up() {
  upsample::acl::set_last_error("a message long enough to live on the heap, not inline");
  take_error_text();
  std::vector<void*> blocks(64);
  for (size_t bytes : {size_t{100}, size_t{256}, size_t{5000}, size_t{3} << 20}) {
    for (void*& block : blocks) {
      ASSERT_EQ(aclrtMalloc(&block, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    }
    for (void* block : blocks) ASSERT_EQ(aclrtFree(block), ACL_SUCCESS);
    for (void*& block : blocks) ASSERT_EQ(aclrtMallocHost(&block, bytes), ACL_SUCCESS);
    for (void* block : blocks) ASSERT_EQ(aclrtFreeHost(block), ACL_SUCCESS);
  }
  std::vector<aclrtStream> streams(16);
  for (aclrtStream& stream : streams) ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  for (aclrtStream stream : streams) ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  upsample::acl::release_device_cache();
}

// The message of a call that failed: names `api`, or says that the message was lost.
void expect_message_names(const char* api, const std::string& message) {
  if (message == kLostText) return;
  EXPECT_NE(message.find(api), std::string::npos) << message;
}

template <typename Call, typename Check>
int64_t drive_through_each_allocation(const char* what, bool keep_failing, Call call, Check check) {
  return upsample::testing_alloc::drive_through_each_allocation(what, keep_failing, call, check,
                                                                &settled_live_allocations);
}

class AllocFailureTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { warm_up(); }
  bool keep_failing() const { return GetParam(); }
};

TEST_P(AllocFailureTest, TensorCreationReturnsNullAndKeepsNothing) {
  const int64_t dims[4] = {2, 3, 4, 5};
  const int64_t strides[4] = {60, 20, 5, 1};
  float data[120] = {};
  const int64_t points = drive_through_each_allocation(
      "aclCreateTensor", keep_failing(),
      [&] {
        return aclCreateTensor(dims, 4, ACL_FLOAT, strides, 0, ACL_FORMAT_NCHW, dims, 4, data);
      },
      [&](aclTensor* tensor, bool injected) {
        if (tensor == nullptr) {
          EXPECT_TRUE(injected);
          expect_message_names("aclCreateTensor", take_error_text());
          return;
        }
        EXPECT_EQ(tensor->view_dims, std::vector<int64_t>(dims, dims + 4));
        EXPECT_EQ(tensor->strides, std::vector<int64_t>(strides, strides + 4));
        EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
      });
  EXPECT_GE(points, 3);  // the object and its three vectors at least
}

TEST_P(AllocFailureTest, ArrayCreationReturnsNullAndKeepsNothing) {
  const int64_t ints[5] = {1, 2, 3, 4, 5};
  const float floats[3] = {0.5f, 1.5f, 2.5f};
  const bool bools[2] = {true, false};
  auto check_null_or = [](const char* api, auto* array, bool injected, auto expected,
                          auto destroy) {
    if (array == nullptr) {
      EXPECT_TRUE(injected);
      expect_message_names(api, take_error_text());
      return;
    }
    EXPECT_EQ(array->values, expected);
    EXPECT_EQ(destroy(array), ACLNN_SUCCESS);
  };
  EXPECT_GE(drive_through_each_allocation(
                "aclCreateIntArray", keep_failing(), [&] { return aclCreateIntArray(ints, 5); },
                [&](aclIntArray* array, bool injected) {
                  check_null_or("aclCreateIntArray", array, injected,
                                std::vector<int64_t>(ints, ints + 5), aclDestroyIntArray);
                }),
            2);
  EXPECT_GE(
      drive_through_each_allocation(
          "aclCreateFloatArray", keep_failing(), [&] { return aclCreateFloatArray(floats, 3); },
          [&](aclFloatArray* array, bool injected) {
            check_null_or("aclCreateFloatArray", array, injected,
                          std::vector<float>(floats, floats + 3), aclDestroyFloatArray);
          }),
      2);
  EXPECT_GE(drive_through_each_allocation(
                "aclCreateBoolArray", keep_failing(), [&] { return aclCreateBoolArray(bools, 2); },
                [&](aclBoolArray* array, bool injected) {
                  check_null_or("aclCreateBoolArray", array, injected,
                                std::vector<bool>(bools, bools + 2), aclDestroyBoolArray);
                }),
            2);
}

TEST_P(AllocFailureTest, ShapeGettersReportOutOfMemory) {
  const int64_t dims[3] = {4, 5, 6};
  aclTensor* tensor =
      aclCreateTensor(dims, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 3, nullptr);
  ASSERT_NE(tensor, nullptr);
  struct Result {
    aclnnStatus status;
    int64_t* values;
    uint64_t count;
  };
  drive_through_each_allocation(
      "aclGetViewShape", keep_failing(),
      [&] {
        Result result{-1, nullptr, 0};
        result.status = aclGetViewShape(tensor, &result.values, &result.count);
        return result;
      },
      [&](Result result, bool injected) {
        if (result.status != ACLNN_SUCCESS) {
          EXPECT_TRUE(injected);
          EXPECT_EQ(result.status, ACLNN_ERR_INNER_NULLPTR);
          EXPECT_EQ(result.values, nullptr);
          expect_message_names("aclGetViewShape", take_error_text());
          return;
        }
        ASSERT_EQ(result.count, 3u);
        EXPECT_EQ(std::vector<int64_t>(result.values, result.values + 3),
                  std::vector<int64_t>(dims, dims + 3));
        delete[] result.values;
      });
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
}

TEST_P(AllocFailureTest, MallocAndMallocHostReportBadAllocAndKeepNothing) {
  for (size_t bytes : {size_t{100}, size_t{3} << 20}) {
    for (bool host : {false, true}) {
      const char* api = host ? "aclrtMallocHost" : "aclrtMalloc";
      void* const kUntouched = reinterpret_cast<void*>(uintptr_t{0x1234});
      struct Result {
        aclError status;
        void* memory;
      };
      drive_through_each_allocation(
          api, keep_failing(),
          [&] {
            Result result{-1, kUntouched};
            result.status = host ? aclrtMallocHost(&result.memory, bytes)
                                 : aclrtMalloc(&result.memory, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
            return result;
          },
          [&](Result result, bool injected) {
            if (result.status != ACL_SUCCESS) {
              EXPECT_TRUE(injected);
              EXPECT_EQ(result.status, ACL_ERROR_BAD_ALLOC);
              EXPECT_EQ(result.memory, kUntouched);
              expect_message_names(api, take_error_text());
              return;
            }
            std::memset(result.memory, 0x3C, bytes);
            EXPECT_EQ(host ? aclrtFreeHost(result.memory) : aclrtFree(result.memory), ACL_SUCCESS);
          });
    }
  }
}

TEST_P(AllocFailureTest, MallocFromTheCacheKeepsTheBlockCachedOnFailure) {
  const upsample::acl::HeapStats before = upsample::acl::device_heap_stats();
  if (before.cache_limit_bytes < 8192) GTEST_SKIP() << "the aclrtMalloc cache is disabled here";
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 5000, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtFree(memory), ACL_SUCCESS);
  ASSERT_EQ(upsample::acl::device_heap_stats().cached_blocks, before.cached_blocks + 1);
  // Recording the block as live is the one allocation left when it comes from the cache.
  aclError status = ACL_SUCCESS;
  void* reused = nullptr;
  {
    InjectedFailure failure(0, keep_failing());
    status = aclrtMalloc(&reused, 5000, ACL_MEM_MALLOC_HUGE_FIRST);
    EXPECT_TRUE(failure.disarm());
  }
  EXPECT_EQ(status, ACL_ERROR_BAD_ALLOC);
  expect_message_names("aclrtMalloc", take_error_text());
  EXPECT_EQ(upsample::acl::device_heap_stats().cached_blocks, before.cached_blocks + 1);
  ASSERT_EQ(aclrtMalloc(&reused, 5000, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(reused, memory);
  EXPECT_EQ(aclrtFree(reused), ACL_SUCCESS);
}

TEST_P(AllocFailureTest, FreeSucceedsWithoutMemory) {
  // 3 MiB + 1 byte is a size class no other test uses, so caching the block would need memory
  // for the class's (empty) free list, which then fails: the block goes back to the system.
  for (size_t bytes : {(size_t{3} << 20) + 1, size_t{256}}) {
    void* memory = nullptr;
    ASSERT_EQ(aclrtMalloc(&memory, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    aclError status = -1;
    {
      InjectedFailure failure(0, keep_failing());
      status = aclrtFree(memory);
    }
    EXPECT_EQ(status, ACL_SUCCESS) << bytes;
    EXPECT_FALSE(upsample::acl::find_allocation(memory, nullptr));
    EXPECT_EQ(aclrtFree(memory), ACL_ERROR_INVALID_PARAM);  // freed exactly once
    take_error_text();
  }
}

TEST_P(AllocFailureTest, StreamCreationReportsBadAllocAndLeavesNoStream) {
  drive_through_each_allocation(
      "aclrtCreateStream", keep_failing(),
      [&] {
        aclrtStream stream = nullptr;
        const aclError status = aclrtCreateStream(&stream);
        return std::make_pair(status, stream);
      },
      [&](std::pair<aclError, aclrtStream> result, bool injected) {
        if (result.first != ACL_SUCCESS) {
          EXPECT_TRUE(injected);
          EXPECT_EQ(result.first, ACL_ERROR_BAD_ALLOC);
          EXPECT_EQ(result.second, nullptr);
          expect_message_names("aclrtCreateStream", take_error_text());
          return;
        }
        std::atomic<bool> ran{false};
        EXPECT_EQ(upsample::acl::enqueue(result.second,
                                         [&ran] {
                                           ran = true;
                                           return int32_t{ACL_SUCCESS};
                                         }),
                  ACL_SUCCESS);
        EXPECT_EQ(aclrtDestroyStream(result.second), ACL_SUCCESS);
        EXPECT_TRUE(ran.load());
      });
  EXPECT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
}

TEST_P(AllocFailureTest, EnqueueReportsBadAllocAndTheTaskDoesNotRun) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  std::atomic<bool> release{false};
  // The worker holds this task while the queue behind it grows.
  ASSERT_EQ(upsample::acl::enqueue(stream,
                                   [&release] {
                                     while (!release.load()) std::this_thread::yield();
                                     return int32_t{ACL_SUCCESS};
                                   }),
            ACL_SUCCESS);
  constexpr int kTasks = 200;
  std::vector<aclError> statuses(kTasks, -1);
  std::atomic<int> ran{0};
  bool injected = false;
  for (int64_t nth = 0; nth < 3 && !injected; ++nth) {
    InjectedFailure failure(nth, keep_failing());
    for (int i = 0; i < kTasks; ++i) {
      statuses[static_cast<size_t>(i)] = upsample::acl::enqueue(
          stream,
          [&ran] {
            ++ran;
            return int32_t{ACL_SUCCESS};
          },
          i % 2 == 0 ? upsample::acl::InlinePolicy::kIfIdle : upsample::acl::InlinePolicy::kNever);
    }
    injected = failure.disarm();
  }
  release = true;
  EXPECT_TRUE(injected);  // 200 queued tasks need more than the queue's first block
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  int accepted = 0;
  for (aclError status : statuses) {
    if (status == ACL_SUCCESS) {
      ++accepted;
    } else {
      EXPECT_EQ(status, ACL_ERROR_BAD_ALLOC);
    }
  }
  EXPECT_LT(accepted, kTasks);
  EXPECT_GE(ran.load(), accepted);  // earlier rounds' accepted tasks ran too
  take_error_text();
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_P(AllocFailureTest, SynchronizeStillReportsAFailedTask) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  drive_through_each_allocation(
      "aclrtSynchronizeStream", keep_failing(),
      [&] {
        // The task fails on the worker (not armed); synchronize must format its report.
        const aclError queued = upsample::acl::enqueue(stream, [] {
          upsample::acl::set_last_error("the task's own failure text");
          return int32_t{ACLNN_ERR_PARAM_INVALID};
        });
        return std::make_pair(queued, aclrtSynchronizeStream(stream));
      },
      [&](std::pair<aclError, aclError> result, bool injected) {
        if (result.first != ACL_SUCCESS) {  // the task could not be queued
          EXPECT_TRUE(injected);
          EXPECT_EQ(result.first, ACL_ERROR_BAD_ALLOC);
          EXPECT_EQ(result.second, ACL_SUCCESS);
          take_error_text();
          return;
        }
        // Either the task's status with its text, or the report itself ran out of memory.
        if (result.second == ACLNN_ERR_PARAM_INVALID) {
          const std::string message = take_error_text();
          if (message != kLostText) {
            EXPECT_NE(message.find("the task's own failure text"), std::string::npos) << message;
          }
        } else {
          EXPECT_TRUE(injected);
          EXPECT_EQ(result.second, ACL_ERROR_BAD_ALLOC);
          expect_message_names("aclrtSynchronizeStream", take_error_text());
        }
      });
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);  // each failure was reported once
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_P(AllocFailureTest, InitReportsBadAlloc) {
  char path[] = "/tmp/acl_alloc_failure_test_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  drive_through_each_allocation(
      "aclInit", keep_failing(), [&] { return aclInit(path); },
      [&](aclError status, bool injected) {
        if (status != ACL_SUCCESS) {
          EXPECT_TRUE(injected);
          EXPECT_EQ(status, ACL_ERROR_BAD_ALLOC);
          expect_message_names("aclInit", take_error_text());
        }
      });
  std::remove(path);
}

INSTANTIATE_TEST_SUITE_P(OneOrAllLaterAllocationsFail, AllocFailureTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("FromNthOn") : std::string("NthOnly");
                         });

TEST(AllocFailure, AnErrorWhoseTextCannotBeStoredIsStillReported) {
  warm_up();
  aclError status = ACL_SUCCESS;
  {
    // A fresh thread-local buffer is needed for the text: take the held one away first.
    take_error_text();
    InjectedFailure failure(0, /*keep_failing=*/true);
    status = aclrtSetDevice(7);
  }
  // Building the message failed, so the call reports the lack of memory instead.
  EXPECT_EQ(status, ACL_ERROR_BAD_ALLOC);
  const char* text = aclGetRecentErrMsg();
  ASSERT_NE(text, nullptr);
  EXPECT_STREQ(text, kLostText);
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);
  // With memory back, errors carry their text again.
  EXPECT_EQ(aclrtSetDevice(7), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("deviceId 7"), std::string::npos);
}

TEST(AllocFailure, ReadingTheErrorTextNeedsNoMemory) {
  upsample::acl::set_last_error("a message recorded before memory ran out");
  const char* text = nullptr;
  bool injected = false;
  {
    InjectedFailure failure(0, /*keep_failing=*/true);
    text = aclGetRecentErrMsg();
    injected = failure.disarm();
  }
  EXPECT_FALSE(injected);
  ASSERT_NE(text, nullptr);
  EXPECT_STREQ(text, "a message recorded before memory ran out");
}

}  // namespace
