#include "check/acl_runner.hpp"

#include <cstring>
#include <numeric>
#include <utility>

#include "core/dtype.hpp"

namespace upsample::cli {
namespace {

struct DeviceFree {
  void operator()(void* p) const { aclrtFree(p); }
};
struct TensorDestroy {
  void operator()(aclTensor* t) const { aclDestroyTensor(t); }
};
struct IntArrayDestroy {
  void operator()(aclIntArray* a) const { aclDestroyIntArray(a); }
};
struct FloatArrayDestroy {
  void operator()(aclFloatArray* a) const { aclDestroyFloatArray(a); }
};
struct ExecutorDestroy {
  void operator()(aclOpExecutor* e) const { aclDestroyAclOpExecutor(e); }
};
using DevicePtr = std::unique_ptr<void, DeviceFree>;
using TensorPtr = std::unique_ptr<aclTensor, TensorDestroy>;
using IntArrayPtr = std::unique_ptr<aclIntArray, IntArrayDestroy>;
using FloatArrayPtr = std::unique_ptr<aclFloatArray, FloatArrayDestroy>;
using ExecutorPtr = std::unique_ptr<aclOpExecutor, ExecutorDestroy>;

// Describes a failed acl / aclnn call in *error; true when `status` is a failure.
bool failed(int status, const std::string& what, std::string* error) {
  if (status == ACL_SUCCESS) return false;
  const char* message = aclGetRecentErrMsg();
  *error = what + " returned " + std::to_string(status);
  if (message != nullptr && *message != '\0') *error += ": " + std::string(message);
  return true;
}

bool null_result(const void* p, const std::string& what, std::string* error) {
  if (p != nullptr) return false;
  const char* message = aclGetRecentErrMsg();
  *error = what + " returned null";
  if (message != nullptr && *message != '\0') *error += ": " + std::string(message);
  return true;
}

// Row-major strides of `dims`.
std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * dims[d];
  return strides;
}

// Storage offset (in elements) of every logical position, in logical row-major order.
std::vector<int64_t> storage_offsets(const std::vector<int64_t>& logical, const Layout& layout) {
  const size_t rank = logical.size();
  const std::vector<int64_t> format_strides = contiguous_strides(in_format_order(logical, layout));
  // Stride of each logical dim: channels-last storage holds C last and the spatial dims one
  // place earlier than in logical order.
  std::vector<int64_t> strides = format_strides;
  if (layout.channels_last) {
    strides[1] = format_strides[rank - 1];
    for (size_t d = 2; d < rank; ++d) strides[d] = format_strides[d - 1];
  }
  std::vector<int64_t> offsets(static_cast<size_t>(numel(logical)));
  std::vector<int64_t> index(rank, 0);
  for (int64_t& offset : offsets) {
    offset = std::inner_product(index.begin(), index.end(), strides.begin(), int64_t{0});
    for (size_t d = rank; d-- > 0;) {  // odometer step in logical order
      if (++index[d] < logical[d]) break;
      index[d] = 0;
    }
  }
  return offsets;
}

bool allocate(size_t bytes, const char* what, DevicePtr* out, std::string* error) {
  void* p = nullptr;
  if (failed(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST),
             std::string("aclrtMalloc(") + what + ")", error)) {
    return false;
  }
  out->reset(p);
  return true;
}

// A contiguous tensor over `data` with dims in the layout's order, as the CANN examples build.
TensorPtr make_tensor(const std::vector<int64_t>& logical, const Layout& layout,
                      const DTypeInfo& dtype, void* data) {
  const std::vector<int64_t> dims = in_format_order(logical, layout);
  const std::vector<int64_t> strides = contiguous_strides(dims);
  return TensorPtr(aclCreateTensor(dims.data(), dims.size(), dtype.acl, strides.data(), 0,
                                   layout.format, dims.data(), dims.size(), data));
}

}  // namespace

int64_t numel(const std::vector<int64_t>& shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
}

std::unique_ptr<AclSession> AclSession::open(std::string* error) {
  std::unique_ptr<AclSession> session(new AclSession());
  if (failed(aclInit(nullptr), "aclInit", error)) return nullptr;
  session->initialized_ = true;
  if (failed(aclrtSetDevice(0), "aclrtSetDevice(0)", error)) return nullptr;
  session->device_set_ = true;
  if (failed(aclrtCreateStream(&session->stream_), "aclrtCreateStream", error)) return nullptr;
  return session;
}

AclSession::~AclSession() {
  if (stream_ != nullptr) aclrtDestroyStream(stream_);
  if (device_set_) aclrtResetDevice(0);
  if (initialized_) aclFinalize();
}

std::vector<int64_t> in_format_order(const std::vector<int64_t>& logical, const Layout& layout) {
  if (!layout.channels_last) return logical;
  std::vector<int64_t> dims = {logical[0]};
  dims.insert(dims.end(), logical.begin() + 2, logical.end());
  dims.push_back(logical[1]);
  return dims;
}

namespace {

// The device buffers of a call: the input uploaded, the output filled with all-ones bytes (a NaN
// in every floating dtype).
bool upload(const Call& call, const std::vector<double>& src, DevicePtr* src_dev,
            DevicePtr* dst_dev, std::string* error) {
  const DTypeInfo& dtype = *call.dtype;
  const size_t element_bytes = dtype_size(dtype.dtype);
  const std::vector<int64_t> src_offsets = storage_offsets(call.src_shape, *call.layout);
  std::vector<unsigned char> host(src_offsets.size() * element_bytes);
  for (size_t i = 0; i < src_offsets.size(); ++i) {
    store_element(dtype.dtype, host.data() + src_offsets[i] * element_bytes, src[i]);
  }
  const size_t dst_bytes = static_cast<size_t>(numel(call.dst_shape)) * element_bytes;
  if (!allocate(host.size(), "input", src_dev, error) ||
      !allocate(dst_bytes, "output", dst_dev, error)) {
    return false;
  }
  return !failed(aclrtMemcpy(src_dev->get(), host.size(), host.data(), host.size(),
                             ACL_MEMCPY_HOST_TO_DEVICE),
                 "aclrtMemcpy(host to device)", error) &&
         !failed(aclrtMemset(dst_dev->get(), dst_bytes, 0xff, dst_bytes), "aclrtMemset", error);
}

// The acl objects a call passes.
struct CallObjects {
  TensorPtr src, dst;
  IntArrayPtr output_size, input_size;
  FloatArrayPtr dim_scales;
};

bool make_objects(const Call& call, void* src_dev, void* dst_dev, CallObjects* o,
                  std::string* error) {
  o->src = make_tensor(call.src_shape, *call.layout, *call.dtype, src_dev);
  o->dst = make_tensor(call.dst_shape, *call.layout, *call.dtype, dst_dev);
  o->output_size.reset(aclCreateIntArray(call.output_size.data(), call.output_size.size()));
  if (!call.input_size.empty()) {
    o->input_size.reset(aclCreateIntArray(call.input_size.data(), call.input_size.size()));
    if (null_result(o->input_size.get(), "aclCreateIntArray(inputSize)", error)) return false;
  }
  // dst / src per dim in the tensors' dim order, rounded to float: what aclnnResize's `scales`
  // holds (the only entry point that reads it).
  const std::vector<int64_t> src_dims = in_format_order(call.src_shape, *call.layout);
  const std::vector<int64_t> dst_dims = in_format_order(call.dst_shape, *call.layout);
  std::vector<float> dim_scale_values(src_dims.size());
  for (size_t d = 0; d < src_dims.size(); ++d) {
    dim_scale_values[d] =
        static_cast<float>(static_cast<double>(dst_dims[d]) / static_cast<double>(src_dims[d]));
  }
  o->dim_scales.reset(aclCreateFloatArray(dim_scale_values.data(), dim_scale_values.size()));
  return !null_result(o->dim_scales.get(), "aclCreateFloatArray(scales)", error) &&
         !null_result(o->src.get(), "aclCreateTensor(input)", error) &&
         !null_result(o->dst.get(), "aclCreateTensor(output)", error) &&
         !null_result(o->output_size.get(), "aclCreateIntArray(outputSize)", error);
}

// GetWorkspaceSize, the workspace (kept in *workspace), the launch and the synchronisation.
bool launch(const AclSession& session, const Call& call, const CallObjects& o, DevicePtr* workspace,
            std::string* error) {
  const EntryPoint& entry = *call.entry;
  CallArgs args;
  args.src = o.src.get();
  args.dst = o.dst.get();
  args.output_size = o.output_size.get();
  args.input_size = o.input_size.get();
  args.align_corners = call.align_corners;
  args.scales = call.scales;
  args.dim_scales = o.dim_scales.get();
  args.mode = entry.row->variant;
  uint64_t workspace_size = 0;
  aclOpExecutor* raw_executor = nullptr;
  if (failed(entry.get_workspace_size(args, &workspace_size, &raw_executor),
             std::string(entry.name()) + "GetWorkspaceSize", error)) {
    return false;
  }
  // Owned until the launch, which consumes it.
  ExecutorPtr executor(raw_executor);
  if (workspace_size > 0 && !allocate(workspace_size, "workspace", workspace, error)) {
    return false;
  }
  return !failed(
             entry.launch(workspace->get(), workspace_size, executor.release(), session.stream()),
             entry.name(), error) &&
         !failed(aclrtSynchronizeStream(session.stream()), "aclrtSynchronizeStream", error);
}

// The output read back, in logical order.
bool download(const Call& call, const DevicePtr& dst_dev, std::vector<double>* dst,
              std::string* error) {
  const DType dtype = call.dtype->dtype;
  const size_t element_bytes = dtype_size(dtype);
  const std::vector<int64_t> dst_offsets = storage_offsets(call.dst_shape, *call.layout);
  const size_t dst_bytes = dst_offsets.size() * element_bytes;
  std::vector<unsigned char> result(dst_bytes);
  if (failed(aclrtMemcpy(result.data(), dst_bytes, dst_dev.get(), dst_bytes,
                         ACL_MEMCPY_DEVICE_TO_HOST),
             "aclrtMemcpy(device to host)", error)) {
    return false;
  }
  dst->resize(dst_offsets.size());
  for (size_t i = 0; i < dst_offsets.size(); ++i) {
    (*dst)[i] = load_element(dtype, result.data() + dst_offsets[i] * element_bytes);
  }
  return true;
}

}  // namespace

bool run_call(const AclSession& session, const Call& call, const std::vector<double>& src,
              std::vector<double>* dst, std::string* error) {
  DevicePtr src_dev, dst_dev, workspace;
  if (!upload(call, src, &src_dev, &dst_dev, error)) return false;
  CallObjects objects;  // destroyed before the buffers they view
  return make_objects(call, src_dev.get(), dst_dev.get(), &objects, error) &&
         launch(session, call, objects, &workspace, error) && download(call, dst_dev, dst, error);
}

}  // namespace upsample::cli
