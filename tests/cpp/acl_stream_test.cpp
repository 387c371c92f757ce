// Tests of the acl runtime's streams: order, failure reporting, destruction, handles, and tasks
// run inline on the calling thread (InlinePolicy::kIfIdle). The concurrency tests are meant to
// run under ThreadSanitizer too: shared state is atomic or ordered by the stream itself.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "acl/runtime_internal.hpp"
#include "aclnn/aclnn_base.h"
#include "cpp/acl_test_util.hpp"

namespace {

using upsample::acl::InlinePolicy;
using upsample::acl::testing::StreamTest;
using upsample::acl::testing::take_error_text;

void wait_for(const std::atomic<bool>& flag) {
  while (!flag.load()) std::this_thread::yield();
}

TEST(AclStream, CreateRejectsNullOutput) {
  take_error_text();
  EXPECT_EQ(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("aclrtCreateStream"), std::string::npos);
}

TEST_F(StreamTest, TasksRunInOrder) {
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

TEST_F(StreamTest, TasksRunOffTheCallingThread) {
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

TEST_F(StreamTest, SynchronizeReportsFirstFailureThenClears) {
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
  const std::string message = take_error_text();
  EXPECT_NE(message.find("aclrtSynchronizeStream"), std::string::npos) << message;
  EXPECT_NE(message.find("161002"), std::string::npos) << message;
  EXPECT_NE(message.find("bad shape"), std::string::npos) << message;

  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);  // reported once, then cleared
  EXPECT_EQ(take_error_text(), "");
}

TEST_F(StreamTest, ThrowingTaskIsReportedNotFatal) {
  ASSERT_EQ(upsample::acl::enqueue(stream_,
                                   []() -> int32_t { throw std::runtime_error("kernel blew up"); }),
            ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACLNN_ERR_INNER);
  EXPECT_NE(take_error_text().find("kernel blew up"), std::string::npos);
}

TEST_F(StreamTest, AsyncMemcpyAndMemsetRunInOrder) {
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
  EXPECT_NE(take_error_text().find("aclrtMemcpyAsync"), std::string::npos);
  EXPECT_EQ(aclrtMemsetAsync(destination.data(), 4, 0, 5, stream_), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
}

TEST_F(StreamTest, SynchronizeFromOwnTaskIsRefused) {
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
  take_error_text();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);

  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_PARAM);
  const std::string message = take_error_text();
  EXPECT_NE(message.find("aclrtSynchronizeStream"), std::string::npos) << message;
  EXPECT_NE(message.find("not a live stream"), std::string::npos) << message;
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("aclrtDestroyStream"), std::string::npos);
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
  take_error_text();

  // Handles are never reused: a new stream does not revive the old handle.
  aclrtStream next = nullptr;
  ASSERT_EQ(aclrtCreateStream(&next), ACL_SUCCESS);
  EXPECT_NE(next, stream);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyStream(next), ACL_SUCCESS);

  int not_a_stream = 0;
  EXPECT_EQ(aclrtSynchronizeStream(&not_a_stream), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyStream(nullptr), ACL_ERROR_INVALID_PARAM);
  take_error_text();
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
  take_error_text();
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
  take_error_text();
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
// Inline tasks.

TEST_F(StreamTest, InlineTaskOnAnIdleStreamRunsOnTheCallerBeforeEnqueueReturns) {
  std::thread::id task_thread;
  bool ran = false;  // plain: the task runs on this thread
  ASSERT_EQ(upsample::acl::enqueue(
                stream_,
                [&] {
                  task_thread = std::this_thread::get_id();
                  ran = true;
                  return int32_t{ACLNN_SUCCESS};
                },
                InlinePolicy::kIfIdle),
            ACL_SUCCESS);
  EXPECT_TRUE(ran);
  EXPECT_EQ(task_thread, std::this_thread::get_id());
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(take_error_text(), "");
}

TEST_F(StreamTest, InlineRequestOnABusyStreamIsQueuedBehindItsTasks) {
  std::atomic<bool> release{false};
  std::vector<int> order;  // touched by tasks only, which the stream runs one at a time
  std::thread::id later_thread;
  ASSERT_EQ(upsample::acl::enqueue(stream_,
                                   [&] {
                                     wait_for(release);
                                     order.push_back(1);
                                     return int32_t{ACLNN_SUCCESS};
                                   }),
            ACL_SUCCESS);
  for (int i = 2; i <= 3; ++i) {
    // Returns while the first task is blocked: queued, not run here and not waited for.
    ASSERT_EQ(upsample::acl::enqueue(
                  stream_,
                  [&, i] {
                    later_thread = std::this_thread::get_id();
                    order.push_back(i);
                    return int32_t{ACLNN_SUCCESS};
                  },
                  InlinePolicy::kIfIdle),
              ACL_SUCCESS);
  }
  release = true;
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_NE(later_thread, std::this_thread::get_id());
}

TEST_F(StreamTest, TasksQueuedByOtherThreadsWhileAnInlineTaskRunsWaitForIt) {
  std::mutex log_mutex;
  std::vector<int> log;
  auto append = [&](int value) {
    std::lock_guard<std::mutex> lock(log_mutex);
    log.push_back(value);
  };
  std::atomic<bool> queued{false};
  std::thread other;
  aclError other_status[2] = {-1, -1};
  ASSERT_EQ(upsample::acl::enqueue(
                stream_,
                [&] {
                  other = std::thread([&] {
                    other_status[0] = upsample::acl::enqueue(stream_, [&] {
                      append(2);
                      return int32_t{ACLNN_SUCCESS};
                    });
                    other_status[1] = upsample::acl::enqueue(
                        stream_,
                        [&] {
                          append(3);
                          return int32_t{ACLNN_SUCCESS};
                        },
                        InlinePolicy::kIfIdle);
                    queued = true;
                  });
                  wait_for(queued);
                  // Time for a worker that ignored the running inline task to run the others.
                  std::this_thread::sleep_for(std::chrono::milliseconds(20));
                  append(1);
                  return int32_t{ACLNN_SUCCESS};
                },
                InlinePolicy::kIfIdle),
            ACL_SUCCESS);
  other.join();
  EXPECT_EQ(other_status[0], ACL_SUCCESS);
  EXPECT_EQ(other_status[1], ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(log, (std::vector<int>{1, 2, 3}));
}

TEST_F(StreamTest, TaskQueuedFromAnInlineTaskRunsAfterItOnTheWorker) {
  std::atomic<bool> nested_ran{false};
  bool nested_ran_before_outer_returned = true;
  std::thread::id nested_thread;
  ASSERT_EQ(upsample::acl::enqueue(
                stream_,
                [&] {
                  const aclError queued = upsample::acl::enqueue(
                      stream_,
                      [&] {
                        nested_thread = std::this_thread::get_id();
                        nested_ran = true;
                        return int32_t{ACLNN_SUCCESS};
                      },
                      InlinePolicy::kIfIdle);
                  nested_ran_before_outer_returned = nested_ran.load();
                  return queued;
                },
                InlinePolicy::kIfIdle),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_FALSE(nested_ran_before_outer_returned);
  EXPECT_TRUE(nested_ran.load());
  EXPECT_NE(nested_thread, std::this_thread::get_id());
}

TEST_F(StreamTest, FailingInlineTaskIsReportedBySynchronizeNotByEnqueue) {
  upsample::acl::set_last_error("the caller's own earlier message");
  ASSERT_EQ(upsample::acl::enqueue(
                stream_,
                [] {
                  upsample::acl::set_last_error("inline failure text");
                  return int32_t{ACLNN_ERR_PARAM_INVALID};
                },
                InlinePolicy::kIfIdle),
            ACL_SUCCESS);
  // The launch neither reports the failure nor disturbs the caller's error text.
  EXPECT_EQ(take_error_text(), "the caller's own earlier message");
  bool later_ran = false;
  ASSERT_EQ(upsample::acl::enqueue(
                stream_,
                [&] {
                  later_ran = true;
                  return int32_t{ACLNN_ERR_INNER};  // a later failure does not replace the first
                },
                InlinePolicy::kIfIdle),
            ACL_SUCCESS);
  EXPECT_TRUE(later_ran);  // a failure does not stop the tasks behind it

  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACLNN_ERR_PARAM_INVALID);
  const std::string message = take_error_text();
  EXPECT_NE(message.find("aclrtSynchronizeStream"), std::string::npos) << message;
  EXPECT_NE(message.find("161002"), std::string::npos) << message;
  EXPECT_NE(message.find("inline failure text"), std::string::npos) << message;
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);  // reported once, then cleared
  EXPECT_EQ(take_error_text(), "");
}

TEST_F(StreamTest, ThrowingInlineTaskIsReportedBySynchronize) {
  ASSERT_EQ(upsample::acl::enqueue(
                stream_, []() -> int32_t { throw std::runtime_error("inline kernel blew up"); },
                InlinePolicy::kIfIdle),
            ACL_SUCCESS);
  EXPECT_EQ(take_error_text(), "");
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACLNN_ERR_INNER);
  EXPECT_NE(take_error_text().find("inline kernel blew up"), std::string::npos);
}

TEST_F(StreamTest, SynchronizeDeviceReportsAnInlineFailure) {
  ASSERT_EQ(upsample::acl::enqueue(
                stream_, [] { return int32_t{ACLNN_ERR_PARAM_NULLPTR}; }, InlinePolicy::kIfIdle),
            ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeDevice(), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(take_error_text().find("aclrtSynchronizeDevice"), std::string::npos);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
}

TEST_F(StreamTest, WaitingForTheStreamFromItsInlineTaskIsRefused) {
  aclError statuses[4] = {};
  aclrtStream self = stream_;
  ASSERT_EQ(upsample::acl::enqueue(
                stream_,
                [&] {
                  statuses[0] = aclrtSynchronizeStream(self);
                  statuses[1] = aclrtDestroyStream(self);
                  statuses[2] = aclrtSynchronizeDevice();
                  statuses[3] = aclFinalize();
                  return int32_t{ACLNN_SUCCESS};
                },
                InlinePolicy::kIfIdle),
            ACL_SUCCESS);
  for (aclError status : statuses) EXPECT_EQ(status, ACL_ERROR_INVALID_PARAM);
  // The refusals' messages belonged to a task that succeeded; they do not reach the caller.
  EXPECT_EQ(take_error_text(), "");
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);  // the stream is still alive
}

TEST(AclStream, DestroyWaitsForARunningInlineTask) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  std::atomic<bool> started{false}, finished{false};
  aclError launch_status = -1;
  std::thread launcher([&] {
    launch_status = upsample::acl::enqueue(
        stream,
        [&] {
          started = true;
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
          finished = true;
          return int32_t{ACLNN_SUCCESS};
        },
        InlinePolicy::kIfIdle);
  });
  wait_for(started);
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_TRUE(finished.load());
  launcher.join();
  EXPECT_EQ(launch_status, ACL_SUCCESS);
  EXPECT_EQ(upsample::acl::enqueue(
                stream, [] { return int32_t{ACLNN_SUCCESS}; }, InlinePolicy::kIfIdle),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("not a live stream"), std::string::npos);
}

TEST(AclStream, ConcurrentInlineAndQueuedTasksRunOneAtATimeInEachThreadsOrder) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  constexpr int kThreads = 4;
  constexpr int kTasksPerThread = 300;
  std::atomic<bool> running{false};
  std::atomic<int> overlaps{0};
  std::vector<std::pair<int, int>> log;  // touched by tasks only, which never overlap
  std::atomic<int> refused{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kTasksPerThread; ++i) {
        const InlinePolicy policy = (i + t) % 3 == 0 ? InlinePolicy::kNever : InlinePolicy::kIfIdle;
        const aclError status = upsample::acl::enqueue(
            stream,
            [&, t, i] {
              if (running.exchange(true)) ++overlaps;
              log.emplace_back(t, i);
              running = false;
              return int32_t{ACLNN_SUCCESS};
            },
            policy);
        if (status != ACL_SUCCESS) ++refused;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(refused.load(), 0);
  EXPECT_EQ(overlaps.load(), 0);
  ASSERT_EQ(log.size(), static_cast<size_t>(kThreads * kTasksPerThread));
  std::vector<int> next(kThreads, 0);
  for (const auto& [thread, sequence] : log) {
    EXPECT_EQ(sequence, next[static_cast<size_t>(thread)]) << "thread " << thread;
    next[static_cast<size_t>(thread)] = sequence + 1;
  }
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST(AclStream, NullStreamRunsInlineRequestsAsAlways) {
  take_error_text();
  EXPECT_EQ(upsample::acl::enqueue(
                nullptr,
                [] {
                  upsample::acl::set_last_error("null stream failure");
                  return int32_t{ACLNN_ERR_PARAM_INVALID};
                },
                InlinePolicy::kIfIdle),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(take_error_text(), "null stream failure");  // reported by the call itself
}

TEST(AclStream, EmptyTaskIsRefused) {
  take_error_text();
  EXPECT_EQ(upsample::acl::enqueue(nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("the task is empty"), std::string::npos);
}

}  // namespace
