// Streams: an in-order task queue with its own worker thread per stream, the registry of live
// streams, enqueue(), and the stream functions of the C API.
//
// Work queued on a stream really runs asynchronously, as it does on an NPU, so callers that
// forget aclrtSynchronizeStream see the same kind of bugs they would see there. A task queued
// with InlinePolicy::kIfIdle on an idle stream runs on the calling thread instead, with the
// stream marked busy meanwhile, so ordering and failure reporting are the worker's. Stream
// handles are never-reused ids rather than pointers, so a destroyed or invented handle is always
// detected.
#include "acl/streams.hpp"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "acl/errors.hpp"
#include "acl/runtime_internal.hpp"
#include "aclnn/aclnn_base.h"

namespace upsample::acl {
namespace {

using Task = std::function<int32_t()>;

struct TaskFailure {
  int32_t status = ACL_SUCCESS;
  ErrorText message;
};

// Runs a task on the calling thread as a stream task: an escaping exception becomes a failure
// status with text, a message left by earlier work on this thread is neither blamed on the task
// nor lost, and the task's own message goes into the result instead of staying on the thread.
TaskFailure run_task(const Task& task) noexcept {
  ErrorText callers_error = take_last_error();
  TaskFailure outcome;
  try {
    outcome.status = task();
  } catch (const std::bad_alloc&) {
    record_api_error("stream task", "out of host memory");
    outcome.status = ACLNN_ERR_INNER;
  } catch (const std::exception& error) {
    record_api_error("stream task", "threw an exception: ", error.what());
    outcome.status = ACLNN_ERR_INNER;
  } catch (...) {
    record_api_error("stream task", "threw an unknown exception");
    outcome.status = ACLNN_ERR_INNER;
  }
  ErrorText tasks_error = take_last_error();
  if (outcome.status != ACL_SUCCESS) outcome.message = std::move(tasks_error);
  restore_last_error(std::move(callers_error));
  return outcome;
}

// The null stream: runs the task here and now and returns its status; a failing task's message
// stays on the calling thread.
int32_t run_task_synchronously(const Task& task) {
  TaskFailure outcome = run_task(task);
  if (outcome.status != ACL_SUCCESS) restore_last_error(std::move(outcome.message));
  return outcome.status;
}

class Stream {
 public:
  Stream() : worker_([this] { serve_tasks(); }) { worker_id_ = worker_.get_id(); }
  ~Stream() { shutdown(); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // Queues `task` behind the stream's earlier tasks, or, under InlinePolicy::kIfIdle with
  // nothing queued or running, runs it here and now. False once the stream is shutting down.
  // Throws std::bad_alloc when the queue cannot grow (the task is then not queued).
  bool submit(Task task, InlinePolicy policy) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (stopping_) return false;
    if (policy == InlinePolicy::kIfIdle && pending_.empty() && !running_task_) {
      running_task_ = true;  // the worker and other submitters now see a busy stream
      inline_thread_ = std::this_thread::get_id();
      lock.unlock();
      TaskFailure outcome = run_task(task);
      task = nullptr;  // release the task's captures before reporting it done
      lock.lock();
      inline_thread_ = std::thread::id();
      complete_task(std::move(outcome));
      // Tasks queued meanwhile (or a shutdown) are the worker's to handle now.
      const bool wake_worker = stopping_ || !pending_.empty();
      lock.unlock();
      if (wake_worker) work_ready_.notify_one();
      return true;
    }
    pending_.push_back(std::move(task));
    lock.unlock();
    work_ready_.notify_one();
    return true;
  }

  // Blocks until every queued task has run; returns (and forgets) the first failure since the
  // previous call.
  TaskFailure wait_until_drained() {
    std::unique_lock<std::mutex> lock(mutex_);
    drained_.wait(lock, [this] { return pending_.empty() && !running_task_; });
    return std::exchange(first_failure_, TaskFailure{});
  }

  // Runs the remaining tasks (and waits for an inline one), then stops the worker. Safe to call
  // more than once (from one thread at a time: the registry hands a stream's destruction to
  // exactly one caller).
  void shutdown() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    work_ready_.notify_one();
    if (worker_.joinable()) worker_.join();
  }

  // True on the worker thread and on a thread running one of the stream's tasks inline: waiting
  // for the stream from there would never return.
  bool runs_tasks_on_this_thread() {
    const std::thread::id self = std::this_thread::get_id();
    if (self == worker_id_) return true;
    std::lock_guard<std::mutex> lock(mutex_);
    return self == inline_thread_;
  }

 private:
  void serve_tasks() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      work_ready_.wait(lock, [this] { return !running_task_ && (stopping_ || !pending_.empty()); });
      if (pending_.empty()) return;  // stopping, and nothing left to run
      Task task = std::move(pending_.front());
      pending_.pop_front();
      running_task_ = true;
      lock.unlock();
      TaskFailure outcome = run_task(task);
      task = nullptr;  // release the task's captures before reporting it done
      lock.lock();
      complete_task(std::move(outcome));
    }
  }

  // Called with `mutex_` held when the running task (worker or inline) has finished.
  void complete_task(TaskFailure outcome) {
    running_task_ = false;
    if (outcome.status != ACL_SUCCESS && first_failure_.status == ACL_SUCCESS) {
      first_failure_ = std::move(outcome);
    }
    if (pending_.empty()) drained_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable drained_;
  std::deque<Task> pending_;
  bool running_task_ = false;  // a task runs, on the worker or inline
  bool stopping_ = false;
  TaskFailure first_failure_;
  std::thread::id inline_thread_;  // the thread running an inline task, if one runs
  std::thread::id worker_id_;
  std::thread worker_;  // last: it starts serving as soon as it is constructed
};

// Streams are shared_ptrs so that a thread that looked a stream up (to queue a task) keeps it
// alive while another thread destroys it; the destroyer still drains and joins before
// returning, and the late submit is refused.
struct StreamRegistry {
  std::mutex mutex;
  std::unordered_map<uintptr_t, std::shared_ptr<Stream>> streams;
  uintptr_t next_id = 1;
};

// Never destroyed: streams a program forgets to destroy must not be joined during static
// destruction, when the objects their tasks use may already be gone.
StreamRegistry& registry() {
  static StreamRegistry* const streams = new StreamRegistry;
  return *streams;
}

std::shared_ptr<Stream> find_stream(aclrtStream handle) {
  StreamRegistry& streams = registry();
  std::lock_guard<std::mutex> lock(streams.mutex);
  auto found = streams.streams.find(reinterpret_cast<uintptr_t>(handle));
  return found == streams.streams.end() ? nullptr : found->second;
}

aclError fail_unknown_stream(const char* api, aclrtStream handle) {
  return fail(ACL_ERROR_INVALID_PARAM, api, ": stream ", pointer_text(handle),
              " is not a live stream (not created by aclrtCreateStream, or already destroyed)");
}

// Reports a drained stream's failure on the calling thread.
aclError report_failure(const char* api, aclrtStream handle, const TaskFailure& failure) {
  if (failure.status == ACL_SUCCESS) return ACL_SUCCESS;
  const std::string& text = failure.message.lost
                                ? std::string("(its message was lost: out of host memory)")
                                : failure.message.text;
  return fail(failure.status, api, ": a task on stream ", pointer_text(handle),
              " failed with status ", failure.status, text.empty() ? "" : ": ", text);
}

// Refuses (with ACL_ERROR_INVALID_PARAM) a call that would wait for one of `streams` from a
// thread that runs that stream's tasks.
template <typename Streams>
aclError check_not_inside_a_task(const char* api, const Streams& streams) {
  for (const auto& [id, stream] : streams) {
    if (stream->runs_tasks_on_this_thread()) {
      return fail(ACL_ERROR_INVALID_PARAM, api, ": called from a task of stream ",
                  pointer_text(reinterpret_cast<void*>(id)), ", which would wait for itself");
    }
  }
  return ACL_SUCCESS;
}

aclError create_stream(aclrtStream* stream) {
  if (stream == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: stream is null");
  std::shared_ptr<Stream> created;
  try {
    created = std::make_shared<Stream>();
  } catch (const std::system_error& error) {
    return fail(ACL_ERROR_RT_FAILURE,
                "aclrtCreateStream: cannot start a worker thread: ", error.what());
  }
  StreamRegistry& streams = registry();
  std::lock_guard<std::mutex> lock(streams.mutex);
  const uintptr_t id = streams.next_id;
  streams.streams.emplace(id, std::move(created));  // on std::bad_alloc, `created` is joined
  ++streams.next_id;
  *stream = reinterpret_cast<aclrtStream>(id);
  return ACL_SUCCESS;
}

aclError destroy_stream(aclrtStream stream) {
  constexpr const char* kApi = "aclrtDestroyStream";
  if (stream == nullptr) return fail(ACL_ERROR_INVALID_PARAM, kApi, ": stream is null");
  std::shared_ptr<Stream> doomed = find_stream(stream);
  if (doomed == nullptr) return fail_unknown_stream(kApi, stream);
  if (doomed->runs_tasks_on_this_thread()) {
    return fail(ACL_ERROR_INVALID_PARAM, kApi, ": stream ", pointer_text(stream),
                " cannot be destroyed from one of its own tasks");
  }
  {
    StreamRegistry& streams = registry();
    std::lock_guard<std::mutex> lock(streams.mutex);
    // Another thread may have destroyed it since the lookup; only one caller wins.
    if (streams.streams.erase(reinterpret_cast<uintptr_t>(stream)) == 0) {
      return fail_unknown_stream(kApi, stream);
    }
  }
  doomed->shutdown();
  return ACL_SUCCESS;
}

aclError synchronize_stream(aclrtStream stream) {
  constexpr const char* kApi = "aclrtSynchronizeStream";
  if (stream == nullptr) return ACL_SUCCESS;  // the default stream runs tasks synchronously
  std::shared_ptr<Stream> target = find_stream(stream);
  if (target == nullptr) return fail_unknown_stream(kApi, stream);
  if (target->runs_tasks_on_this_thread()) {
    return fail(ACL_ERROR_INVALID_PARAM, kApi, ": stream ", pointer_text(stream),
                " cannot be synchronized from one of its own tasks");
  }
  return report_failure(kApi, stream, target->wait_until_drained());
}

aclError synchronize_device() {
  constexpr const char* kApi = "aclrtSynchronizeDevice";
  std::vector<std::pair<uintptr_t, std::shared_ptr<Stream>>> snapshot;
  {
    StreamRegistry& streams = registry();
    std::lock_guard<std::mutex> lock(streams.mutex);
    snapshot.assign(streams.streams.begin(), streams.streams.end());
  }
  if (aclError refused = check_not_inside_a_task(kApi, snapshot); refused != ACL_SUCCESS) {
    return refused;
  }
  aclError first_status = ACL_SUCCESS;
  for (const auto& [id, stream] : snapshot) {
    const TaskFailure failure = stream->wait_until_drained();
    if (failure.status != ACL_SUCCESS && first_status == ACL_SUCCESS) {
      first_status = report_failure(kApi, reinterpret_cast<aclrtStream>(id), failure);
    }
  }
  return first_status;
}

}  // namespace

aclError enqueue_for(const char* api, aclrtStream handle, std::function<int32_t()> task,
                     InlinePolicy policy) {
  if (!task) return fail(ACL_ERROR_INVALID_PARAM, api, ": the task is empty");
  if (handle == nullptr) return run_task_synchronously(task);
  std::shared_ptr<Stream> stream = find_stream(handle);
  if (stream == nullptr) return fail_unknown_stream(api, handle);
  if (!stream->submit(std::move(task), policy)) {
    return fail(ACL_ERROR_INVALID_PARAM, api, ": stream ", pointer_text(handle),
                " is being destroyed");
  }
  return ACL_SUCCESS;
}

aclError enqueue(aclrtStream stream, std::function<int32_t()> task, InlinePolicy policy) noexcept {
  return guard_c_api("enqueue", kAclFailure,
                     [&] { return enqueue_for("enqueue", stream, std::move(task), policy); });
}

aclError destroy_all_streams(const char* api) {
  std::unordered_map<uintptr_t, std::shared_ptr<Stream>> leftovers;
  {
    StreamRegistry& streams = registry();
    std::lock_guard<std::mutex> lock(streams.mutex);
    if (aclError refused = check_not_inside_a_task(api, streams.streams); refused != ACL_SUCCESS) {
      return refused;
    }
    leftovers.swap(streams.streams);
  }
  for (auto& [id, stream] : leftovers) stream->shutdown();
  return ACL_SUCCESS;
}

}  // namespace upsample::acl

// ---------------------------------------------------------------------------------------------
// The C API. Visibility comes from the declarations' ACL_FUNC_VISIBILITY.

using upsample::acl::guard_c_api;
using upsample::acl::kAclFailure;

extern "C" {

aclError aclrtCreateStream(aclrtStream* stream) {
  return guard_c_api("aclrtCreateStream", kAclFailure,
                     [&] { return upsample::acl::create_stream(stream); });
}

aclError aclrtDestroyStream(aclrtStream stream) {
  return guard_c_api("aclrtDestroyStream", kAclFailure,
                     [&] { return upsample::acl::destroy_stream(stream); });
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  return guard_c_api("aclrtSynchronizeStream", kAclFailure,
                     [&] { return upsample::acl::synchronize_stream(stream); });
}

aclError aclrtSynchronizeDevice(void) {
  return guard_c_api("aclrtSynchronizeDevice", kAclFailure,
                     [] { return upsample::acl::synchronize_device(); });
}

}  // extern "C"
