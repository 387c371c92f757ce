#include "aclnn/common.hpp"

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace upsample::aclnn {
namespace {

struct Executor {
  Plan plan;
  const void* src = nullptr;
  void* dst = nullptr;
  bool repeatable = false;
  std::string api;
};

// Executor handles are opaque ids that are never reused, so a consumed, destroyed or made-up
// handle is always recognised as such: it is never dereferenced.
class ExecutorRegistry {
 public:
  static ExecutorRegistry& get() {
    static ExecutorRegistry registry;
    return registry;
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
    if (!e->repeatable) executors_.erase(it);
    return e;
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

bool dtype_from_acl(aclDataType t, DType* out) {
  switch (t) {
    case ACL_FLOAT:
      *out = DType::kFloat32;
      return true;
    case ACL_FLOAT16:
      *out = DType::kFloat16;
      return true;
    case ACL_BF16:
      *out = DType::kBFloat16;
      return true;
    case ACL_DOUBLE:
      *out = DType::kFloat64;
      return true;
    case ACL_UINT8:
      *out = DType::kUInt8;
      return true;
    default:
      return false;
  }
}

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

std::string pointer_string(const void* p) {
  std::ostringstream os;
  os << p;
  return os.str();
}

}  // namespace

aclnnStatus fail(const char* api, aclnnStatus code, const std::string& message) {
  acl::set_last_error(std::string(api) + ": " + message);
  return code;
}

bool is_channels_last(aclFormat format) {
  return format == ACL_FORMAT_NHWC || format == ACL_FORMAT_NDHWC;
}

std::string format_name(aclFormat format) {
  switch (format) {
    case ACL_FORMAT_NCHW:
      return "NCHW";
    case ACL_FORMAT_NHWC:
      return "NHWC";
    case ACL_FORMAT_ND:
      return "ND";
    case ACL_FORMAT_NCDHW:
      return "NCDHW";
    case ACL_FORMAT_NDHWC:
      return "NDHWC";
    case ACL_FORMAT_NCL:
      return "NCL";
    default:
      return "format(" + std::to_string(static_cast<int>(format)) + ")";
  }
}

std::string dims_string(const std::vector<int64_t>& dims) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < dims.size(); ++i) os << (i ? "," : "") << dims[i];
  os << "]";
  return os.str();
}

std::string dims_string(const TensorDesc& desc) {
  return dims_string(std::vector<int64_t>(desc.sizes.begin(), desc.sizes.begin() + desc.rank));
}

aclnnStatus to_logical(const char* api, const char* name, const aclTensor* tensor,
                       int expected_rank, LogicalTensor* out) {
  const aclTensor& t = *tensor;
  DType dtype;
  if (!dtype_from_acl(t.dtype, &dtype)) {
    return fail(
        api, ACLNN_ERR_PARAM_INVALID,
        std::string(name) + " has unsupported dtype " + std::to_string(static_cast<int>(t.dtype)));
  }
  const int rank = static_cast<int>(t.view_dims.size());
  if (rank != expected_rank) {
    return fail(api, ACLNN_ERR_PARAM_INVALID,
                std::string(name) + " must be " + std::to_string(expected_rank) + "-D, got shape " +
                    dims_string(t.view_dims));
  }
  if (t.strides.size() != t.view_dims.size()) {
    return fail(api, ACLNN_ERR_PARAM_INVALID,
                std::string(name) + " has " + std::to_string(t.strides.size()) + " strides for " +
                    std::to_string(rank) + " dims");
  }
  // Logical position of each format dim: NHWC / NDHWC carry C last.
  std::array<int, kMaxRank> to_logical_dim{0, 1, 2, 3, 4};
  // Only where the format names this rank (an "NHWC" 3-D tensor is read as N, C, L, as CANN's
  // format-agnostic 1-D entry points do).
  if ((t.format == ACL_FORMAT_NHWC && rank == 4) || (t.format == ACL_FORMAT_NDHWC && rank == 5)) {
    to_logical_dim[0] = 0;
    to_logical_dim[rank - 1] = 1;
    for (int d = 1; d < rank - 1; ++d) to_logical_dim[d] = d + 1;
  }
  out->desc = TensorDesc{};
  out->desc.dtype = dtype;
  out->desc.rank = rank;
  int64_t numel = 1;
  int64_t lowest = t.offset, highest = t.offset;
  for (int d = 0; d < rank; ++d) {
    const int64_t size = t.view_dims[d];
    if (size < 0) {
      return fail(api, ACLNN_ERR_PARAM_INVALID,
                  std::string(name) + " has a negative dim: " + dims_string(t.view_dims));
    }
    out->desc.sizes[to_logical_dim[d]] = size;
    out->desc.strides[to_logical_dim[d]] = t.strides[d];
    numel = size == 0 || numel == 0 ? 0 : numel * size;
    if (size > 0) {
      const int64_t span = (size - 1) * t.strides[d];
      (span < 0 ? lowest : highest) += span;
    }
  }
  out->format = t.format;
  out->dims = t.view_dims;
  out->data = nullptr;
  if (numel == 0) return ACLNN_SUCCESS;
  int64_t storage = 1;
  for (int64_t s : t.storage_dims) storage *= s;
  if (t.storage_dims.empty() || lowest < 0 || highest >= storage) {
    std::ostringstream why;
    why << name << " view (shape " << dims_string(t.view_dims) << ", strides "
        << dims_string(t.strides) << ", offset " << t.offset << ") reaches elements [" << lowest
        << ", " << highest << "] outside its storage " << dims_string(t.storage_dims) << " of "
        << storage << " elements";
    return fail(api, ACLNN_ERR_PARAM_INVALID, why.str());
  }
  if (t.data == nullptr) {
    return fail(api, ACLNN_ERR_PARAM_NULLPTR, std::string(name) + " has a null data address");
  }
  out->data =
      static_cast<unsigned char*>(t.data) + t.offset * static_cast<int64_t>(dtype_size(dtype));
  return ACLNN_SUCCESS;
}

aclnnStatus make_executor(const char* api, const OpDesc& op, const LogicalTensor& src,
                          const LogicalTensor& dst, uint64_t* workspace_size,
                          aclOpExecutor** executor) {
  try {
    auto e = std::make_shared<Executor>();
    e->api = api;
    if (Status st = make_plan(op, src.desc, dst.desc, &e->plan); !st.ok()) {
      return fail(api, status_to_aclnn(st), st.message);
    }
    e->src = src.data;
    e->dst = dst.data;
    *workspace_size = e->plan.workspace_bytes();
    *executor = ExecutorRegistry::get().add(std::move(e));
    return ACLNN_SUCCESS;
  } catch (const std::exception& ex) {  // nothing may cross the C boundary
    return fail(api, ACLNN_ERR_INNER, std::string("internal error: ") + ex.what());
  }
}

aclnnStatus run_executor(const char* api, void* workspace, uint64_t workspace_size,
                         aclOpExecutor* executor, aclrtStream stream) {
  if (executor == nullptr) return fail(api, ACLNN_ERR_PARAM_NULLPTR, "executor is null");
  std::shared_ptr<Executor> e = ExecutorRegistry::get().find(executor);
  if (e == nullptr) {
    return fail(api, ACLNN_ERR_PARAM_INVALID,
                "executor " + pointer_string(executor) +
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
                "executor " + pointer_string(executor) + " was consumed concurrently");
  }
  auto task = [e, workspace, workspace_size]() -> int32_t {
    Status st = execute(e->plan, e->src, e->dst, workspace, workspace_size);
    if (!st.ok()) acl::set_last_error(e->api + ": " + st.message);
    return status_to_aclnn(st);
  };
  const aclError queued = acl::enqueue(stream, std::move(task));
  if (queued != ACL_SUCCESS) {
    if (stream == nullptr) return queued;  // the task ran here and failed; message already set
    return fail(api, ACLNN_ERR_RUNTIME_ERROR,
                "stream " + pointer_string(stream) + " is not a live stream (error " +
                    std::to_string(queued) + ")");
  }
  return ACLNN_SUCCESS;
}

}  // namespace upsample::aclnn

extern "C" {

ACLNN_API aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor) {
  const char* api = "aclSetAclOpExecutorRepeatable";
  if (executor == nullptr) {
    return upsample::aclnn::fail(api, ACLNN_ERR_INNER_NULLPTR, "executor is null");
  }
  auto e = upsample::aclnn::ExecutorRegistry::get().find(executor);
  if (e == nullptr) {
    return upsample::aclnn::fail(api, ACLNN_ERR_PARAM_INVALID,
                                 "executor " + upsample::aclnn::pointer_string(executor) +
                                     " is unknown (already run, destroyed or never created)");
  }
  e->repeatable = true;
  return ACLNN_SUCCESS;
}

ACLNN_API aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
  const char* api = "aclDestroyAclOpExecutor";
  if (executor == nullptr) {
    return upsample::aclnn::fail(api, ACLNN_ERR_PARAM_NULLPTR, "executor is null");
  }
  if (!upsample::aclnn::ExecutorRegistry::get().remove(executor)) {
    return upsample::aclnn::fail(api, ACLNN_ERR_PARAM_INVALID,
                                 "executor " + upsample::aclnn::pointer_string(executor) +
                                     " is unknown (already run, destroyed or never created)");
  }
  return ACLNN_SUCCESS;
}

}  // extern "C"
