#include "aclnn/executor.hpp"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "acl/errors.hpp"
#include "acl/memory.hpp"
#include "core/layout.hpp"
#include "core/validate.hpp"
#include "upsample/plan_cache.hpp"

namespace upsample::aclnn {
namespace {

struct Executor {
  Plan plan;
  const void* src = nullptr;
  void* dst = nullptr;
  std::atomic<bool> repeatable{false};
  // Small problems run on the launching thread when the stream is idle: no worker wake-up.
  bool small = false;
  std::string api;
};

// Executor handles are opaque ids that are never reused, so a consumed, destroyed or made-up
// handle is always recognised as such: it is never dereferenced.
class ExecutorRegistry {
 public:
  static ExecutorRegistry& get() {
    static ExecutorRegistry* const registry = new ExecutorRegistry;  // outlives static exits
    return *registry;
  }
  aclOpExecutor* add(std::shared_ptr<Executor> e) {
    std::lock_guard<std::mutex> lock(mutex_);
    next_id_ += 16;
    executors_.emplace(next_id_, std::move(e));
    return reinterpret_cast<aclOpExecutor*>(next_id_);
  }
  std::shared_ptr<Executor> find(const aclOpExecutor* handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = executors_.find(reinterpret_cast<uintptr_t>(handle));
    return it == executors_.end() ? nullptr : it->second;
  }
  // Removes and returns the executor unless it is repeatable (then it stays registered).
  std::shared_ptr<Executor> take_for_run(const aclOpExecutor* handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = executors_.find(reinterpret_cast<uintptr_t>(handle));
    if (it == executors_.end()) return nullptr;
    std::shared_ptr<Executor> e = it->second;
    if (!e->repeatable.load()) executors_.erase(it);
    return e;
  }
  // Puts back an executor whose launch failed before its task was queued.
  void restore(const aclOpExecutor* handle, std::shared_ptr<Executor> e) {
    std::lock_guard<std::mutex> lock(mutex_);
    executors_.emplace(reinterpret_cast<uintptr_t>(handle), std::move(e));
  }
  bool remove(const aclOpExecutor* handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    return executors_.erase(reinterpret_cast<uintptr_t>(handle)) > 0;
  }

 private:
  std::mutex mutex_;
  uintptr_t next_id_ = 0x5ca1e000;
  std::unordered_map<uintptr_t, std::shared_ptr<Executor>> executors_;
};

aclnnStatus status_to_aclnn(const Status& st) {
  switch (st.code) {
    case StatusCode::kOk:
      return ACLNN_SUCCESS;
    case StatusCode::kNullPointer:
      return ACLNN_ERR_PARAM_NULLPTR;
    case StatusCode::kInvalidArgument:
      return ACLNN_ERR_PARAM_INVALID;
    case StatusCode::kInternal:
      return ACLNN_ERR_INNER;
  }
  return ACLNN_ERR_INNER;
}

constexpr int64_t kInlineElements = int64_t{1} << 17;

// GetWorkspaceSize plans through one process-wide cache: a CANN application calls both phases
// for every launch, mostly with the descriptors of an earlier call, and planning is the larger
// part of a call's fixed cost (docs/performance.md, "Plans cached for GetWorkspaceSize").
// UPSAMPLE_PLAN_CACHE=N (decimal digits) keeps at most N plans, 0 none; unset or anything else,
// the default. Read once, at the first GetWorkspaceSize.
PlanCache& plan_cache() {
  static PlanCache* const cache = [] {
    size_t capacity = PlanCache::kDefaultCapacity;
    if (const char* env = std::getenv("UPSAMPLE_PLAN_CACHE")) {
      if (const std::optional<size_t> n = acl::parse_byte_count(env)) capacity = *n;
    }
    return new PlanCache(capacity);  // used until the process exits
  }();
  // Emptied with the device's memory (aclrtResetDevice, aclFinalize); if the hook cannot be
  // kept, the cache stays bounded all the same.
  static const bool released_with_device = acl::add_release_hook([] { plan_cache().clear(); });
  (void)released_with_device;
  return *cache;
}

}  // namespace

aclnnStatus make_executor(const char* api, const OpDesc& op, const LogicalTensor& src,
                          const LogicalTensor& dst, uint64_t* workspace_size,
                          aclOpExecutor** executor) {
  auto e = std::make_shared<Executor>();
  e->api = api;
  // Descriptors first, then aliasing, then the plan: an overlapping call is refused before any
  // table is built.
  if (Status st = core::validate(op, src.desc, dst.desc); !st.ok()) {
    return fail(api, status_to_aclnn(st), st.message);
  }
  bool undecided = false;
  if (core::views_overlap({&src.desc, reinterpret_cast<uintptr_t>(src.data)},
                          {&dst.desc, reinterpret_cast<uintptr_t>(dst.data)}, &undecided)) {
    std::ostringstream why;
    why << "the output view " << dst.desc.to_string() << " overlaps the memory the input view "
        << src.desc.to_string() << " reads"
        << (undecided ? " (the views interleave too finely to rule an overlap out)" : "");
    return fail(api, ACLNN_ERR_PARAM_INVALID, why.str());
  }
  if (Status st = plan_cache().get(op, src.desc, dst.desc, &e->plan); !st.ok()) {
    return fail(api, status_to_aclnn(st), st.message);
  }
  e->src = src.data;
  e->dst = dst.data;
  e->small = src.desc.numel() + dst.desc.numel() <= kInlineElements;
  *workspace_size = e->plan.workspace_bytes();
  *executor = ExecutorRegistry::get().add(std::move(e));
  return ACLNN_SUCCESS;
}

aclnnStatus run_executor(const char* api, void* workspace, uint64_t workspace_size,
                         aclOpExecutor* executor, aclrtStream stream) {
  return acl::guard_c_api(api, acl::kAclnnFailure, [&]() -> aclnnStatus {
    if (executor == nullptr) return fail(api, ACLNN_ERR_PARAM_NULLPTR, "executor is null");
    std::shared_ptr<Executor> e = ExecutorRegistry::get().find(executor);
    if (e == nullptr) {
      return fail(api, ACLNN_ERR_PARAM_INVALID,
                  "executor " + acl::pointer_text(executor) +
                      " is unknown: it was already run (executors are single-use unless "
                      "aclSetAclOpExecutorRepeatable was called), destroyed, or never created");
    }
    const uint64_t needed = e->plan.workspace_bytes();
    if (needed > 0 && (workspace == nullptr || workspace_size < needed)) {
      std::ostringstream why;
      why << "workspace too small: the executor needs " << needed << " bytes, got "
          << (workspace == nullptr ? std::string("a null workspace")
                                   : std::to_string(workspace_size) + " bytes");
      return fail(api, ACLNN_ERR_PARAM_INVALID, why.str());
    }
    e = ExecutorRegistry::get().take_for_run(executor);
    if (e == nullptr) {  // consumed by another thread in between
      return fail(api, ACLNN_ERR_PARAM_INVALID,
                  "executor " + acl::pointer_text(executor) + " was consumed concurrently");
    }
    auto task = [e, workspace, workspace_size]() -> int32_t {
      const Status st = execute(e->plan, e->src, e->dst, workspace, workspace_size);
      if (!st.ok()) acl::set_last_error(e->api + ": " + st.message);
      return status_to_aclnn(st);
    };
    const bool small = e->small;
    const aclError queued =
        acl::enqueue(stream, task, small ? acl::InlinePolicy::kIfIdle : acl::InlinePolicy::kNever);
    if (stream == nullptr) return queued;  // ran here: its status and message are the call's
    if (queued != ACL_SUCCESS) {
      if (!e->repeatable.load()) ExecutorRegistry::get().restore(executor, std::move(e));
      if (queued == ACL_ERROR_BAD_ALLOC) {
        return fail(api, ACLNN_ERR_INNER, "out of host memory queueing the launch");
      }
      return fail(api, ACLNN_ERR_RUNTIME_ERROR,
                  "stream " + acl::pointer_text(stream) +
                      " is not a live stream (not created, or destroyed); the executor is kept");
    }
    return ACLNN_SUCCESS;
  });
}

}  // namespace upsample::aclnn

extern "C" {

ACLNN_API aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor) {
  constexpr const char* kApi = "aclSetAclOpExecutorRepeatable";
  return upsample::acl::guard_c_api(kApi, upsample::acl::kAclnnFailure, [&]() -> aclnnStatus {
    if (executor == nullptr) {
      return upsample::aclnn::fail(kApi, ACLNN_ERR_INNER_NULLPTR, "executor is null");
    }
    auto e = upsample::aclnn::ExecutorRegistry::get().find(executor);
    if (e == nullptr) {
      return upsample::aclnn::fail(kApi, ACLNN_ERR_PARAM_INVALID,
                                   "executor " + upsample::acl::pointer_text(executor) +
                                       " is unknown (already run, destroyed or never created)");
    }
    e->repeatable.store(true);
    return ACLNN_SUCCESS;
  });
}

ACLNN_API aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
  constexpr const char* kApi = "aclDestroyAclOpExecutor";
  return upsample::acl::guard_c_api(kApi, upsample::acl::kAclnnFailure, [&]() -> aclnnStatus {
    if (executor == nullptr) {
      return upsample::aclnn::fail(kApi, ACLNN_ERR_PARAM_NULLPTR, "executor is null");
    }
    if (!upsample::aclnn::ExecutorRegistry::get().remove(executor)) {
      return upsample::aclnn::fail(kApi, ACLNN_ERR_PARAM_INVALID,
                                   "executor " + upsample::acl::pointer_text(executor) +
                                       " is unknown (already run, destroyed or never created)");
    }
    return ACLNN_SUCCESS;
  });
}

}  // extern "C"
