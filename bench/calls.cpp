// The call-cost workloads (CallKind::kCannCall, kPhase2): bilinear2d forward through the aclnn
// C API, the way a CANN application calls it.
//
// Set up once per workload: aclInit, aclrtSetDevice(0), aclrtCreateStream; the input and output
// in aclrtMalloc'd memory (the input filled with fill_random through aclrtMemcpy), their
// aclTensors (NCHW, contiguous) and the outputSize aclIntArray. Then one timed call is:
//   kCannCall: aclnnUpsampleBilinear2dGetWorkspaceSize, aclrtMalloc of the workspace (when it is
//              not empty), aclnnUpsampleBilinear2d on the stream, aclrtSynchronizeStream,
//              aclrtFree;
//   kPhase2:   aclnnUpsampleBilinear2d + aclrtSynchronizeStream, with an executor made once and
//              marked repeatable (aclSetAclOpExecutorRepeatable) and a workspace allocated once.
// The aclnn layer runs with UPSAMPLE_NUM_THREADS threads; it is set to the workload's thread
// count while the workload exists.
#include <cstdlib>
#include <optional>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "subject.hpp"

namespace upsample::bench {
namespace {

// Sets UPSAMPLE_NUM_THREADS for the object's lifetime, then restores the previous value.
class ThreadsEnv {
 public:
  explicit ThreadsEnv(int threads) {
    if (const char* old = std::getenv(kName)) old_ = old;
    setenv(kName, std::to_string(threads).c_str(), 1);
  }
  ~ThreadsEnv() {
    if (old_) {
      setenv(kName, old_->c_str(), 1);
    } else {
      unsetenv(kName);
    }
  }
  ThreadsEnv(const ThreadsEnv&) = delete;
  ThreadsEnv& operator=(const ThreadsEnv&) = delete;

 private:
  static constexpr const char* kName = "UPSAMPLE_NUM_THREADS";
  std::optional<std::string> old_;
};

class AclSubject final : public Subject {
 public:
  AclSubject(CallKind kind, int threads) : env_(threads), kind_(kind) {}
  ~AclSubject() override;
  AclSubject(const AclSubject&) = delete;
  AclSubject& operator=(const AclSubject&) = delete;

  bool set_up(const Workload& w, std::string* error);
  bool call(std::string* error) override;

 private:
  // True when `status` is success; otherwise sets *error to the API, the status and the
  // runtime's error text.
  static bool check(int status, const char* api, std::string* error);

  ThreadsEnv env_;  // first member: outlives the teardown in the destructor
  CallKind kind_;
  bool align_corners_ = false;
  bool device_set_ = false;
  aclrtStream stream_ = nullptr;
  aclTensor* self_ = nullptr;
  aclTensor* out_ = nullptr;
  aclIntArray* output_size_ = nullptr;
  aclOpExecutor* executor_ = nullptr;  // kPhase2
  void* workspace_ = nullptr;          // kPhase2
  uint64_t workspace_size_ = 0;        // kPhase2
};

bool AclSubject::check(int status, const char* api, std::string* error) {
  if (status == ACL_SUCCESS) return true;
  *error = std::string(api) + " failed with status " + std::to_string(status);
  if (const char* msg = aclGetRecentErrMsg(); msg != nullptr && msg[0] != '\0') {
    *error += ": ";
    *error += msg;
  }
  return false;
}

bool AclSubject::set_up(const Workload& w, std::string* error) {
  if (w.mode != Mode::kLinear || w.dir != Direction::kForward || w.antialias || w.in.size() != 4 ||
      w.dtype != DType::kFloat32 || w.channels_last) {
    *error = "workload " + w.name + ": aclnn calls are timed for bilinear2d fwd float32 NCHW only";
    return false;
  }
  Plan plan;  // the same operator through the native API, for describe()
  OpDesc op;
  op.align_corners = w.align_corners;
  const Status planned =
      make_plan(op, TensorDesc::contiguous(w.dtype, {w.in[0], w.in[1], w.in[2], w.in[3]}),
                TensorDesc::contiguous(w.dtype, {w.out[0], w.out[1], w.out[2], w.out[3]}), &plan);
  if (!planned.ok()) {
    *error = "make_plan: " + planned.message;
    return false;
  }
  describe = plan.describe();
  align_corners_ = w.align_corners;
  src_bytes = static_cast<size_t>(numel(w.in)) * sizeof(float);
  dst_bytes = static_cast<size_t>(numel(w.out)) * sizeof(float);
  if (!check(aclInit(nullptr), "aclInit", error) ||
      !check(aclrtSetDevice(0), "aclrtSetDevice", error)) {
    return false;
  }
  device_set_ = true;
  if (!check(aclrtCreateStream(&stream_), "aclrtCreateStream", error) ||
      !check(aclrtMalloc(&src, src_bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc", error) ||
      !check(aclrtMalloc(&dst, dst_bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc", error)) {
    return false;
  }
  std::vector<float> host(static_cast<size_t>(numel(w.in)));
  fill_random(host.data(), numel(w.in), w.dtype, 12345u);
  if (!check(aclrtMemcpy(src, src_bytes, host.data(), src_bytes, ACL_MEMCPY_HOST_TO_DEVICE),
             "aclrtMemcpy", error) ||
      !check(aclrtMemset(dst, dst_bytes, 0, dst_bytes), "aclrtMemset", error)) {
    return false;
  }
  auto make_tensor = [](const std::vector<int64_t>& dims, void* data) {
    const std::vector<int64_t> strides{dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1};
    return aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_NCHW,
                           dims.data(), dims.size(), data);
  };
  self_ = make_tensor(w.in, src);
  out_ = make_tensor(w.out, dst);
  const int64_t size_hw[2] = {w.out[2], w.out[3]};
  output_size_ = aclCreateIntArray(size_hw, 2);
  if (self_ == nullptr || out_ == nullptr || output_size_ == nullptr) {
    return check(ACLNN_ERR_PARAM_INVALID, "aclCreateTensor / aclCreateIntArray", error);
  }
  if (kind_ != CallKind::kPhase2) return true;
  return check(aclnnUpsampleBilinear2dGetWorkspaceSize(self_, output_size_, align_corners_, 0.0,
                                                       0.0, out_, &workspace_size_, &executor_),
               "aclnnUpsampleBilinear2dGetWorkspaceSize", error) &&
         check(aclSetAclOpExecutorRepeatable(executor_), "aclSetAclOpExecutorRepeatable", error) &&
         (workspace_size_ == 0 ||
          check(aclrtMalloc(&workspace_, workspace_size_, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc",
                error));
}

bool AclSubject::call(std::string* error) {
  if (kind_ == CallKind::kPhase2) {
    return check(aclnnUpsampleBilinear2d(workspace_, workspace_size_, executor_, stream_),
                 "aclnnUpsampleBilinear2d", error) &&
           check(aclrtSynchronizeStream(stream_), "aclrtSynchronizeStream", error);
  }
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  if (!check(aclnnUpsampleBilinear2dGetWorkspaceSize(self_, output_size_, align_corners_, 0.0, 0.0,
                                                     out_, &size, &executor),
             "aclnnUpsampleBilinear2dGetWorkspaceSize", error)) {
    return false;
  }
  void* workspace = nullptr;
  if (size > 0 &&
      !check(aclrtMalloc(&workspace, size, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc", error)) {
    aclDestroyAclOpExecutor(executor);
    return false;
  }
  const bool ok = check(aclnnUpsampleBilinear2d(workspace, size, executor, stream_),
                        "aclnnUpsampleBilinear2d", error) &&
                  check(aclrtSynchronizeStream(stream_), "aclrtSynchronizeStream", error);
  const bool freed = workspace == nullptr || check(aclrtFree(workspace), "aclrtFree", error);
  return ok && freed;
}

AclSubject::~AclSubject() {
  if (stream_ != nullptr) aclrtSynchronizeStream(stream_);
  if (executor_ != nullptr) aclDestroyAclOpExecutor(executor_);
  aclDestroyTensor(self_);
  aclDestroyTensor(out_);
  aclDestroyIntArray(output_size_);
  if (workspace_ != nullptr) aclrtFree(workspace_);
  if (src != nullptr) aclrtFree(src);
  if (dst != nullptr) aclrtFree(dst);
  if (stream_ != nullptr) aclrtDestroyStream(stream_);
  if (device_set_) aclrtResetDevice(0);
  aclFinalize();
  aclGetRecentErrMsg();  // teardown leaves no error text behind for a later workload
}

}  // namespace

std::unique_ptr<Subject> make_acl_subject(const Workload& w, int threads, std::string* error) {
  auto s = std::make_unique<AclSubject>(w.call, threads);
  if (!s->set_up(w, error)) return nullptr;
  return s;
}

}  // namespace upsample::bench
