// Tests of the CPU acl runtime: memory, streams, tensors and arrays, devices, context options
// and the per-thread error text.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "acl/runtime_internal.hpp"
#include "aclnn/acl_meta.h"
#include "aclnn/aclnn_base.h"

namespace {

// Returns (and so clears) the calling thread's error text; "" when there is none.
std::string TakeErrorText() {
  const char* text = aclGetRecentErrMsg();
  return text == nullptr ? std::string() : std::string(text);
}

// Creates a stream for one test and destroys it at the end of the test.
class StreamFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    TakeErrorText();
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
    ASSERT_NE(stream_, nullptr);
  }
  void TearDown() override {
    if (stream_ != nullptr) {
      EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
    }
  }
  aclrtStream stream_ = nullptr;
};

// ---------------------------------------------------------------------------------------------
// Enum values and status codes that callers hard-code.

TEST(AclConstants, MatchCann) {
  EXPECT_EQ(ACL_SUCCESS, 0);
  EXPECT_EQ(ACL_ERROR_NONE, 0);
  EXPECT_EQ(ACL_ERROR_INVALID_PARAM, 100000);
  EXPECT_EQ(ACL_ERROR_BAD_ALLOC, 200000);
  EXPECT_EQ(ACL_ERROR_INTERNAL_ERROR, 500000);
  EXPECT_EQ(ACL_ERROR_FAILURE, 500001);
  EXPECT_EQ(ACL_ERROR_RT_FAILURE, 500003);
  EXPECT_EQ(ACL_BF16, 27);
  EXPECT_EQ(ACL_DT_UNDEFINED, -1);
  EXPECT_EQ(ACL_HIFLOAT4_SCALE, 43);
  EXPECT_EQ(ACL_FORMAT_NCL, 47);
  EXPECT_EQ(ACL_FORMAT_NCDHW, 30);
  EXPECT_EQ(ACL_FORMAT_NDHWC, 27);
  EXPECT_EQ(ACL_FRACTAL_Z_3D, 33);
  EXPECT_EQ(ACL_FORMAT_FRACTAL_NZ_C0_8, 54);
  EXPECT_EQ(ACL_MEMCPY_DEVICE_TO_HOST, 2);
  EXPECT_EQ(ACL_MEMCPY_INTER_DEVICE_TO_DEVICE, 7);
  EXPECT_EQ(ACL_MEM_MALLOC_HUGE1G_ONLY_P2P, 7);
  EXPECT_EQ(ACL_MEM_ACCESS_USER_SPACE_READONLY, 0x100000);
  EXPECT_EQ(ACL_OPT_ENABLE_KERNEL_EARLY_START, 3);
  EXPECT_EQ(ACLNN_ERR_PARAM_NULLPTR, 161001);
  EXPECT_EQ(ACLNN_ERR_PARAM_INVALID, 161002);
  EXPECT_EQ(ACLNN_ERR_RUNTIME_ERROR, 361001);
  EXPECT_EQ(ACLNN_ERR_INNER, 561000);
  EXPECT_EQ(ACLNN_ERR_INNER_NULLPTR, 561103);
  EXPECT_EQ(ACLNN_ERR_INNER_KEY_CONFLICT, 561105);
  EXPECT_EQ(ACLNN_ERR_INNER_STATIC_BLOCK_DIM_INVALID, 561119);
}

// ---------------------------------------------------------------------------------------------
// Init, devices, context options.

TEST(AclInit, AcceptsNullEmptyOrReadableConfig) {
  EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclInit(""), ACL_SUCCESS);
  char path[] = "/tmp/acl_runtime_test_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  EXPECT_EQ(aclInit(path), ACL_SUCCESS);
  std::remove(path);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(AclInit, RejectsMissingConfig) {
  TakeErrorText();
  EXPECT_EQ(aclInit("/nonexistent/acl.json"), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(TakeErrorText().find("/nonexistent/acl.json"), std::string::npos);
  EXPECT_EQ(aclInit("/tmp"), ACL_ERROR_INVALID_PARAM);  // a directory is not a config file
  EXPECT_NE(TakeErrorText().find("aclInit"), std::string::npos);
}

TEST(AclDevice, OnlyDeviceZeroExists) {
  TakeErrorText();
  EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  int32_t device = -1;
  EXPECT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
  EXPECT_EQ(device, 0);
  uint32_t count = 0;
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(TakeErrorText(), "");

  EXPECT_EQ(aclrtSetDevice(1), ACL_ERROR_INVALID_PARAM);
  const std::string message = TakeErrorText();
  EXPECT_NE(message.find("aclrtSetDevice"), std::string::npos) << message;
  EXPECT_NE(message.find("deviceId 1"), std::string::npos) << message;
  EXPECT_EQ(aclrtSetDevice(-1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtResetDevice(1), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(TakeErrorText().find("aclrtResetDevice"), std::string::npos);
  EXPECT_EQ(aclrtGetDevice(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
}

TEST(AclSysParamOpt, RoundTripsValues) {
  int64_t value = -1;
  for (int64_t level = 0; level <= 3; ++level) {
    ASSERT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, level), ACL_SUCCESS);
    ASSERT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_SUCCESS);
    EXPECT_EQ(value, level);
  }
  ASSERT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 1), ACL_SUCCESS);
  ASSERT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 1);
  // Options are independent of each other.
  ASSERT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 3);

  TakeErrorText();
  EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 4), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(TakeErrorText().find("value 4"), std::string::npos);
  EXPECT_EQ(aclrtCtxSetSysParamOpt(static_cast<aclSysParamOpt>(9), 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, nullptr), ACL_ERROR_INVALID_PARAM);
  // A rejected value leaves the stored one alone.
  ASSERT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 3);

  EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0), ACL_SUCCESS);
  EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 0), ACL_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// Error text.

TEST(AclErrorText, IsReturnedOnceThenCleared) {
  TakeErrorText();
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);
  upsample::acl::set_last_error("first");
  upsample::acl::set_last_error("second");  // the latest message wins
  const char* text = aclGetRecentErrMsg();
  ASSERT_NE(text, nullptr);
  EXPECT_STREQ(text, "second");
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);
}

TEST(AclErrorText, IsPerThread) {
  TakeErrorText();
  std::string seen_by_other_thread = "unset";
  std::thread other([&] {
    EXPECT_EQ(aclrtSetDevice(5), ACL_ERROR_INVALID_PARAM);
    seen_by_other_thread = TakeErrorText();
  });
  other.join();
  EXPECT_NE(seen_by_other_thread.find("deviceId 5"), std::string::npos);
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);
}

// ---------------------------------------------------------------------------------------------
// Memory.

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
  EXPECT_EQ(aclrtMalloc(&memory, 128, static_cast<aclrtMemMallocPolicy>(8)),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(TakeErrorText().find("policy 8"), std::string::npos);
}

TEST(AclMemory, MallocRejectsBadArguments) {
  TakeErrorText();
  void* memory = nullptr;
  EXPECT_EQ(aclrtMalloc(&memory, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(TakeErrorText().find("size is 0"), std::string::npos);
  EXPECT_EQ(aclrtMalloc(nullptr, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(TakeErrorText().find("devPtr is null"), std::string::npos);
  EXPECT_EQ(aclrtMalloc(&memory, SIZE_MAX, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_BAD_ALLOC);
  EXPECT_NE(TakeErrorText().find("aclrtMalloc"), std::string::npos);
  EXPECT_EQ(memory, nullptr);
}

TEST(AclMemory, FreeOfUnknownPointerIsAnErrorWithText) {
  TakeErrorText();
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
  EXPECT_NE(TakeErrorText().find("null"), std::string::npos);
}

TEST(AclMemory, DoubleFreeIsAnError) {
  TakeErrorText();
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(memory), ACL_SUCCESS);
  EXPECT_EQ(TakeErrorText(), "");
  EXPECT_EQ(aclrtFree(memory), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(TakeErrorText().find("already freed"), std::string::npos);
}

TEST(AclMemory, HostAndDeviceAllocationsAreNotInterchangeable) {
  TakeErrorText();
  void* host = nullptr;
  ASSERT_EQ(aclrtMallocHost(&host, 100), ACL_SUCCESS);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(host) % 64, 0u);
  EXPECT_FALSE(upsample::acl::find_allocation(host, nullptr));
  EXPECT_EQ(aclrtFree(host), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(TakeErrorText().find("aclrtMallocHost"), std::string::npos);
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(host), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(TakeErrorText().find("aclrtFreeHost"), std::string::npos);
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
  TakeErrorText();
  std::vector<uint8_t> source(64), destination(64, 0);
  for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<uint8_t>(i);

  EXPECT_EQ(aclrtMemcpy(destination.data(), 32, source.data(), 33, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  const std::string message = TakeErrorText();
  EXPECT_NE(message.find("count 33 exceeds destMax 32"), std::string::npos) << message;
  EXPECT_EQ(destination[0], 0);  // nothing was copied

  EXPECT_EQ(aclrtMemcpy(destination.data(), 64, source.data(), 32, ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_SUCCESS);
  EXPECT_EQ(std::memcmp(destination.data(), source.data(), 32), 0);
  EXPECT_EQ(destination[32], 0);
}

TEST(AclMemory, MemcpyRejectsNullPointersAndBadKinds) {
  TakeErrorText();
  uint8_t buffer[8] = {};
  EXPECT_EQ(aclrtMemcpy(nullptr, 8, buffer, 8, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(TakeErrorText().find("dst is null"), std::string::npos);
  EXPECT_EQ(aclrtMemcpy(buffer, 8, nullptr, 8, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(TakeErrorText().find("src is null"), std::string::npos);
  EXPECT_EQ(aclrtMemcpy(nullptr, 0, nullptr, 0, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(buffer, 8, buffer, 8, static_cast<aclrtMemcpyKind>(8)),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(TakeErrorText().find("kind 8"), std::string::npos);
  EXPECT_EQ(aclrtMemcpy(buffer, 8, buffer, 8, static_cast<aclrtMemcpyKind>(-1)),
            ACL_ERROR_INVALID_PARAM);
}

TEST(AclMemory, MemcpyHandlesOverlap) {
  uint8_t bytes[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  ASSERT_EQ(aclrtMemcpy(bytes + 1, 7, bytes, 6, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
  const uint8_t expected[8] = {0, 0, 1, 2, 3, 4, 5, 7};
  EXPECT_EQ(std::memcmp(bytes, expected, 8), 0);
}

TEST(AclMemory, MemsetHonoursMaxCount) {
  TakeErrorText();
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  auto* bytes = static_cast<uint8_t*>(memory);
  std::memset(bytes, 0, 16);
  EXPECT_EQ(aclrtMemset(memory, 8, 0x7F, 9), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(TakeErrorText().find("count 9 exceeds maxCount 8"), std::string::npos);
  EXPECT_EQ(bytes[0], 0);
  EXPECT_EQ(aclrtMemset(memory, 16, 0x17F, 8), ACL_SUCCESS);  // only the low byte is used
  for (int i = 0; i < 8; ++i) EXPECT_EQ(bytes[i], 0x7F) << i;
  for (int i = 8; i < 16; ++i) EXPECT_EQ(bytes[i], 0) << i;
  EXPECT_EQ(aclrtMemset(nullptr, 8, 0, 8), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFree(memory), ACL_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// Streams.

TEST(AclStream, CreateRejectsNullOutput) {
  TakeErrorText();
  EXPECT_EQ(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(TakeErrorText().find("aclrtCreateStream"), std::string::npos);
}

TEST_F(StreamFixture, TasksRunInOrder) {
  std::vector<int> order;  // touched only by the worker until the synchronize
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(upsample::acl::enqueue(stream_,
                                     [&order, i] {
                                       order.push_back(i);
                                       return int32_t{ACLNN_SUCCESS};
                                     }),
              ACL_SUCCESS);
  }
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  ASSERT_EQ(order.size(), 1000u);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(order[i], i);
}

TEST_F(StreamFixture, TasksRunOffTheCallingThread) {
  std::thread::id task_thread;
  std::atomic<bool> release{false};
  std::atomic<bool> finished{false};
  ASSERT_EQ(upsample::acl::enqueue(stream_,
                                   [&] {
                                     task_thread = std::this_thread::get_id();
                                     while (!release.load()) std::this_thread::yield();
                                     finished = true;
                                     return int32_t{ACLNN_SUCCESS};
                                   }),
            ACL_SUCCESS);
  // enqueue returned while the task is still blocked, so it cannot have run inline.
  EXPECT_FALSE(finished.load());
  release = true;
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_TRUE(finished.load());
  EXPECT_NE(task_thread, std::this_thread::get_id());
}

TEST_F(StreamFixture, SynchronizeReportsFirstFailureThenClears) {
  std::atomic<int> ran{0};
  auto task_returning = [&ran](int32_t status, const char* message) {
    return [&ran, status, message] {
      ++ran;
      if (message != nullptr) upsample::acl::set_last_error(message);
      return status;
    };
  };
  ASSERT_EQ(upsample::acl::enqueue(stream_, task_returning(ACLNN_SUCCESS, nullptr)), ACL_SUCCESS);
  ASSERT_EQ(upsample::acl::enqueue(stream_, task_returning(ACLNN_ERR_PARAM_INVALID, "bad shape")),
            ACL_SUCCESS);
  ASSERT_EQ(upsample::acl::enqueue(stream_, task_returning(ACLNN_ERR_INNER, "later failure")),
            ACL_SUCCESS);
  ASSERT_EQ(upsample::acl::enqueue(stream_, task_returning(ACLNN_SUCCESS, nullptr)), ACL_SUCCESS);

  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(ran.load(), 4);  // a failure does not stop the tasks queued behind it
  const std::string message = TakeErrorText();
  EXPECT_NE(message.find("aclrtSynchronizeStream"), std::string::npos) << message;
  EXPECT_NE(message.find("161002"), std::string::npos) << message;
  EXPECT_NE(message.find("bad shape"), std::string::npos) << message;

  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);  // reported once, then cleared
  EXPECT_EQ(TakeErrorText(), "");
}

TEST_F(StreamFixture, ThrowingTaskIsReportedNotFatal) {
  ASSERT_EQ(upsample::acl::enqueue(stream_,
                                   []() -> int32_t { throw std::runtime_error("kernel blew up"); }),
            ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACLNN_ERR_INNER);
  EXPECT_NE(TakeErrorText().find("kernel blew up"), std::string::npos);
}

TEST_F(StreamFixture, AsyncMemcpyAndMemsetRunInOrder) {
  std::vector<uint8_t> source(1024, 3), middle(1024, 0), destination(1024, 0);
  ASSERT_EQ(aclrtMemsetAsync(source.data(), source.size(), 9, 512, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(middle.data(), middle.size(), source.data(), source.size(),
                             ACL_MEMCPY_HOST_TO_DEVICE, stream_),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(destination.data(), destination.size(), middle.data(), middle.size(),
                             ACL_MEMCPY_DEVICE_TO_HOST, stream_),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  for (size_t i = 0; i < destination.size(); ++i) {
    ASSERT_EQ(destination[i], i < 512 ? 9 : 3) << i;
  }
  // Argument errors are reported by the call itself, not at synchronize time.
  EXPECT_EQ(aclrtMemcpyAsync(destination.data(), 4, middle.data(), 5, ACL_MEMCPY_DEFAULT, stream_),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(TakeErrorText().find("aclrtMemcpyAsync"), std::string::npos);
  EXPECT_EQ(aclrtMemsetAsync(destination.data(), 4, 0, 5, stream_), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
}

TEST_F(StreamFixture, SynchronizeFromOwnTaskIsRefused) {
  aclError inner_status = ACL_SUCCESS;
  aclrtStream self = stream_;
  ASSERT_EQ(upsample::acl::enqueue(stream_,
                                   [&inner_status, self] {
                                     inner_status = aclrtSynchronizeStream(self);
                                     return int32_t{ACLNN_SUCCESS};
                                   }),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(inner_status, ACL_ERROR_INVALID_PARAM);
}

TEST(AclStream, NullStreamRunsSynchronouslyOnTheCaller) {
  std::thread::id task_thread;
  EXPECT_EQ(upsample::acl::enqueue(nullptr,
                                   [&task_thread] {
                                     task_thread = std::this_thread::get_id();
                                     return int32_t{ACLNN_ERR_PARAM_NULLPTR};
                                   }),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(task_thread, std::this_thread::get_id());
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);

  uint8_t bytes[4] = {};
  EXPECT_EQ(aclrtMemsetAsync(bytes, 4, 5, 4, nullptr), ACL_SUCCESS);
  EXPECT_EQ(bytes[3], 5);  // already done: the default stream is synchronous
}

TEST(AclStream, DestroyDrainsPendingTasks) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  std::atomic<int> ran{0};
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(upsample::acl::enqueue(stream,
                                     [&ran] {
                                       std::this_thread::sleep_for(std::chrono::milliseconds(1));
                                       ++ran;
                                       return int32_t{ACLNN_SUCCESS};
                                     }),
              ACL_SUCCESS);
  }
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(ran.load(), 20);
}

TEST(AclStream, DestroyedOrUnknownHandleIsAnError) {
  TakeErrorText();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);

  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_PARAM);
  const std::string message = TakeErrorText();
  EXPECT_NE(message.find("aclrtSynchronizeStream"), std::string::npos) << message;
  EXPECT_NE(message.find("not a live stream"), std::string::npos) << message;
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(TakeErrorText().find("aclrtDestroyStream"), std::string::npos);
  bool ran = false;
  EXPECT_EQ(upsample::acl::enqueue(stream,
                                   [&ran] {
                                     ran = true;
                                     return int32_t{ACLNN_SUCCESS};
                                   }),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_FALSE(ran);
  uint8_t bytes[4] = {};
  EXPECT_EQ(aclrtMemsetAsync(bytes, 4, 1, 4, stream), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(bytes[0], 0);
  TakeErrorText();

  // Handles are never reused: a new stream does not revive the old handle.
  aclrtStream next = nullptr;
  ASSERT_EQ(aclrtCreateStream(&next), ACL_SUCCESS);
  EXPECT_NE(next, stream);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyStream(next), ACL_SUCCESS);

  int not_a_stream = 0;
  EXPECT_EQ(aclrtSynchronizeStream(&not_a_stream), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyStream(nullptr), ACL_ERROR_INVALID_PARAM);
  TakeErrorText();
}

TEST(AclStream, FinalizeDestroysLeftoverStreams) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  std::atomic<bool> ran{false};
  ASSERT_EQ(upsample::acl::enqueue(stream,
                                   [&ran] {
                                     ran = true;
                                     return int32_t{ACLNN_SUCCESS};
                                   }),
            ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_TRUE(ran.load());
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_PARAM);
  TakeErrorText();
}

TEST(AclStream, SynchronizeDeviceWaitsForEveryStream) {
  aclrtStream first = nullptr, second = nullptr;
  ASSERT_EQ(aclrtCreateStream(&first), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&second), ACL_SUCCESS);
  std::atomic<int> ran{0};
  auto slow_task = [&ran] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ++ran;
    return int32_t{ACLNN_SUCCESS};
  };
  ASSERT_EQ(upsample::acl::enqueue(first, slow_task), ACL_SUCCESS);
  ASSERT_EQ(upsample::acl::enqueue(second, slow_task), ACL_SUCCESS);
  ASSERT_EQ(upsample::acl::enqueue(second, [] { return int32_t{ACLNN_ERR_PARAM_INVALID}; }),
            ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeDevice(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(ran.load(), 2);
  TakeErrorText();
  EXPECT_EQ(aclrtSynchronizeStream(second), ACL_SUCCESS);  // already reported
  EXPECT_EQ(aclrtDestroyStream(first), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(second), ACL_SUCCESS);
}

TEST(AclStream, ConcurrentEnqueueAndDestroyIsSafe) {
  // Producers race a destroyer: every enqueue either succeeds (and its task runs before the
  // destroy returns) or reports the stream as gone. Nothing crashes or is lost.
  for (int round = 0; round < 20; ++round) {
    aclrtStream stream = nullptr;
    ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
    std::atomic<int> accepted{0}, ran{0};
    std::vector<std::thread> producers;
    for (int p = 0; p < 4; ++p) {
      producers.emplace_back([&] {
        for (int i = 0; i < 200; ++i) {
          const aclError status = upsample::acl::enqueue(stream, [&ran] {
            ++ran;
            return int32_t{ACLNN_SUCCESS};
          });
          if (status == ACL_SUCCESS) ++accepted;
          aclGetRecentErrMsg();
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
    for (std::thread& producer : producers) producer.join();
    EXPECT_EQ(ran.load(), accepted.load()) << round;
  }
}

// ---------------------------------------------------------------------------------------------
// Tensors and arrays.

TEST(AclTensor, CreateStoresEveryField) {
  const int64_t view_dims[4] = {2, 3, 4, 5};
  const int64_t strides[4] = {60, 1, 15, 3};  // a channels-last style view
  const int64_t storage_dims[1] = {130};
  float storage[130] = {};
  aclTensor* tensor = aclCreateTensor(view_dims, 4, ACL_BF16, strides, 7, ACL_FORMAT_NHWC,
                                      storage_dims, 1, storage);
  ASSERT_NE(tensor, nullptr);
  EXPECT_EQ(tensor->view_dims, (std::vector<int64_t>{2, 3, 4, 5}));
  EXPECT_EQ(tensor->strides, (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_EQ(tensor->offset, 7);
  EXPECT_EQ(tensor->dtype, ACL_BF16);
  EXPECT_EQ(tensor->format, ACL_FORMAT_NHWC);
  EXPECT_EQ(tensor->storage_dims, (std::vector<int64_t>{130}));
  EXPECT_EQ(tensor->data, storage);

  int64_t* dims = nullptr;
  uint64_t dims_num = 0;
  ASSERT_EQ(aclGetViewShape(tensor, &dims, &dims_num), ACLNN_SUCCESS);
  ASSERT_EQ(dims_num, 4u);
  EXPECT_EQ(std::vector<int64_t>(dims, dims + dims_num), tensor->view_dims);
  delete[] dims;
  ASSERT_EQ(aclGetViewStrides(tensor, &dims, &dims_num), ACLNN_SUCCESS);
  EXPECT_EQ(std::vector<int64_t>(dims, dims + dims_num), tensor->strides);
  delete[] dims;
  ASSERT_EQ(aclGetStorageShape(tensor, &dims, &dims_num), ACLNN_SUCCESS);
  EXPECT_EQ(std::vector<int64_t>(dims, dims + dims_num), tensor->storage_dims);
  delete[] dims;
  int64_t offset = 0;
  ASSERT_EQ(aclGetViewOffset(tensor, &offset), ACLNN_SUCCESS);
  EXPECT_EQ(offset, 7);
  aclFormat format = ACL_FORMAT_UNDEFINED;
  ASSERT_EQ(aclGetFormat(tensor, &format), ACLNN_SUCCESS);
  EXPECT_EQ(format, ACL_FORMAT_NHWC);
  aclDataType dtype = ACL_DT_UNDEFINED;
  ASSERT_EQ(aclGetDataType(tensor, &dtype), ACLNN_SUCCESS);
  EXPECT_EQ(dtype, ACL_BF16);

  EXPECT_EQ(aclGetViewShape(nullptr, &dims, &dims_num), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetViewShape(tensor, nullptr, &dims_num), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetViewShape(tensor, &dims, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  TakeErrorText();
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
}

TEST(AclTensor, NullStridesMeanContiguous) {
  const int64_t view_dims[3] = {2, 0, 5};
  aclTensor* tensor =
      aclCreateTensor(view_dims, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, view_dims, 3, nullptr);
  ASSERT_NE(tensor, nullptr);
  EXPECT_EQ(tensor->strides, (std::vector<int64_t>{5, 5, 1}));
  EXPECT_EQ(tensor->data, nullptr);  // empty tensors need no storage
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
}

TEST(AclTensor, ScalarTensorHasNoDims) {
  float value = 1.5f;
  aclTensor* tensor =
      aclCreateTensor(nullptr, 0, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, &value);
  ASSERT_NE(tensor, nullptr);
  EXPECT_TRUE(tensor->view_dims.empty());
  EXPECT_TRUE(tensor->strides.empty());
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
}

TEST(AclTensor, CreateRejectsBadDescriptions) {
  TakeErrorText();
  const int64_t dims[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  const int64_t strides[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  float data[1] = {};
  EXPECT_EQ(aclCreateTensor(dims, 9, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 9, data), nullptr);
  EXPECT_NE(TakeErrorText().find("viewDimsNum 9"), std::string::npos);
  aclTensor* rank_eight =
      aclCreateTensor(dims, 8, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 8, data);
  EXPECT_NE(rank_eight, nullptr);  // the maximum rank itself is fine
  EXPECT_EQ(aclDestroyTensor(rank_eight), ACLNN_SUCCESS);

  EXPECT_EQ(aclCreateTensor(nullptr, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, data),
            nullptr);
  EXPECT_NE(TakeErrorText().find("viewDims is null"), std::string::npos);
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, nullptr, 2, data),
            nullptr);
  EXPECT_NE(TakeErrorText().find("storageDims is null"), std::string::npos);

  const int64_t negative[2] = {3, -2};
  EXPECT_EQ(aclCreateTensor(negative, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 1, data),
            nullptr);
  const std::string message = TakeErrorText();
  EXPECT_NE(message.find("viewDims[1] is negative (-2)"), std::string::npos) << message;
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, negative, 2, data),
            nullptr);
  EXPECT_NE(TakeErrorText().find("storageDims[1]"), std::string::npos);
}

TEST(AclTensor, DestroyNullSucceeds) {
  EXPECT_EQ(aclDestroyTensor(nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyIntArray(nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyFloatArray(nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyBoolArray(nullptr), ACLNN_SUCCESS);
}

TEST(AclArrays, IntArrayRoundTrip) {
  const int64_t values[3] = {4, -5, 6};
  aclIntArray* array = aclCreateIntArray(values, 3);
  ASSERT_NE(array, nullptr);
  EXPECT_EQ(array->values, (std::vector<int64_t>{4, -5, 6}));
  uint64_t size = 0;
  EXPECT_EQ(aclGetIntArraySize(array, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 3u);
  EXPECT_EQ(aclGetIntArraySize(array, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetIntArraySize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR);
  TakeErrorText();
  EXPECT_EQ(aclDestroyIntArray(array), ACLNN_SUCCESS);

  aclIntArray* empty = aclCreateIntArray(nullptr, 0);
  ASSERT_NE(empty, nullptr);
  EXPECT_EQ(aclGetIntArraySize(empty, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(aclDestroyIntArray(empty), ACLNN_SUCCESS);

  EXPECT_EQ(aclCreateIntArray(nullptr, 2), nullptr);
  EXPECT_NE(TakeErrorText().find("aclCreateIntArray: value is null but size is 2"),
            std::string::npos);
}

TEST(AclArrays, FloatArrayRoundTrip) {
  const float values[2] = {1.5f, 0.25f};
  aclFloatArray* array = aclCreateFloatArray(values, 2);
  ASSERT_NE(array, nullptr);
  EXPECT_EQ(array->values, (std::vector<float>{1.5f, 0.25f}));
  uint64_t size = 0;
  EXPECT_EQ(aclGetFloatArraySize(array, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 2u);
  EXPECT_EQ(aclDestroyFloatArray(array), ACLNN_SUCCESS);
  EXPECT_EQ(aclCreateFloatArray(nullptr, 1), nullptr);
  EXPECT_NE(TakeErrorText().find("aclCreateFloatArray"), std::string::npos);
}

TEST(AclArrays, BoolArrayRoundTrip) {
  const bool values[3] = {true, false, true};
  aclBoolArray* array = aclCreateBoolArray(values, 3);
  ASSERT_NE(array, nullptr);
  EXPECT_EQ(array->values, (std::vector<bool>{true, false, true}));
  uint64_t size = 0;
  EXPECT_EQ(aclGetBoolArraySize(array, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 3u);
  EXPECT_EQ(aclDestroyBoolArray(array), ACLNN_SUCCESS);
}

}  // namespace
