// example_common.h: the helper code shared by the example programs in this folder.
//
// Every example follows the CANN aclnn two-phase pattern:
//   aclInit -> aclrtSetDevice -> aclrtCreateStream -> device copies + aclCreateTensor /
//   aclCreateIntArray -> aclnnXxxGetWorkspaceSize -> workspace -> aclnnXxx ->
//   aclrtSynchronizeStream -> copy the result back and print it -> teardown.
//
// example::Session owns everything the program creates through it (tensors, int and float arrays,
// device buffers, the workspace, the stream and the device/runtime initialisation) and releases
// it in the order CANN prescribes: tensors and arrays, device memory, workspace, stream,
// aclrtResetDevice, aclFinalize. Close() does that explicitly at the end of a successful run and
// reports the first teardown failure; the destructor does it on every early (error) return.
//
// A failing call prints "<api> failed. ERROR: <code>" plus aclGetRecentErrMsg() (when there is
// one) and the program returns that code.
#ifndef UPSAMPLE_EXAMPLES_EXAMPLE_COMMON_H_
#define UPSAMPLE_EXAMPLES_EXAMPLE_COMMON_H_

#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

namespace example {

// Prints the failure line (and the runtime's error text, if any) and returns `code`.
inline int Fail(const char* api, int code) {
  std::printf("%s failed. ERROR: %d\n", api, code);
  const char* msg = aclGetRecentErrMsg();
  if (msg != nullptr && msg[0] != '\0') {
    std::printf("%s\n", msg);
  }
  return code;
}

// Returns from the calling function with the status of `expr` when it is not ACL_SUCCESS.
#define EXAMPLE_CHECK(expr, api)                    \
  do {                                              \
    const int exampleRet_ = static_cast<int>(expr); \
    if (exampleRet_ != ACL_SUCCESS) {               \
      return ::example::Fail(api, exampleRet_);     \
    }                                               \
  } while (0)

// Propagates a non-zero status from a Session helper (which has already printed it).
#define EXAMPLE_RETURN_IF_ERROR(expr) \
  do {                                \
    const int exampleRet_ = (expr);   \
    if (exampleRet_ != ACL_SUCCESS) { \
      return exampleRet_;             \
    }                                 \
  } while (0)

inline int64_t ShapeSize(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    n *= d;
  }
  return n;
}

class Session {
 public:
  Session() = default;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() { (void)Close(); }

  // aclInit, aclrtSetDevice, aclrtCreateStream.
  int Init(int32_t deviceId = 0) {
    EXAMPLE_CHECK(aclInit(nullptr), "aclInit");
    initialised_ = true;
    EXAMPLE_CHECK(aclrtSetDevice(deviceId), "aclrtSetDevice");
    deviceId_ = deviceId;
    deviceSet_ = true;
    EXAMPLE_CHECK(aclrtCreateStream(&stream_), "aclrtCreateStream");
    return ACL_SUCCESS;
  }

  aclrtStream Stream() const { return stream_; }

  // Copies `host` to a new device buffer and describes it as a contiguous float32 tensor.
  int CreateTensor(const std::vector<float>& host, const std::vector<int64_t>& shape,
                   aclFormat format, aclTensor** tensor) {
    return CreateDeviceTensor(host.data(), sizeof(float), ACL_FLOAT, shape, format, tensor);
  }

  // The same for a uint8 tensor (PrintResult prints its elements with %u).
  int CreateTensorU8(const std::vector<uint8_t>& host, const std::vector<int64_t>& shape,
                     aclFormat format, aclTensor** tensor) {
    return CreateDeviceTensor(host.data(), sizeof(uint8_t), ACL_UINT8, shape, format, tensor);
  }

  // A float32 tensor zeroed on the device with aclrtMemset: no host copy, for huge tensors.
  int CreateDeviceZeros(const std::vector<int64_t>& shape, aclFormat format, aclTensor** tensor) {
    return CreateDeviceTensor(nullptr, sizeof(float), ACL_FLOAT, shape, format, tensor);
  }

  // A tensor of `shape` filled with zeros (used for outputs).
  int CreateZeros(const std::vector<int64_t>& shape, aclFormat format, aclTensor** tensor) {
    return CreateTensor(std::vector<float>(static_cast<size_t>(ShapeSize(shape)), 0.0f), shape,
                        format, tensor);
  }

  int CreateIntArray(const std::vector<int64_t>& values, aclIntArray** array) {
    *array = aclCreateIntArray(values.data(), values.size());
    if (*array == nullptr) {
      return Fail("aclCreateIntArray", ACL_ERROR_INTERNAL_ERROR);
    }
    arrays_.push_back(*array);
    return ACL_SUCCESS;
  }

  int CreateFloatArray(const std::vector<float>& values, aclFloatArray** array) {
    *array = aclCreateFloatArray(values.data(), values.size());
    if (*array == nullptr) {
      return Fail("aclCreateFloatArray", ACL_ERROR_INTERNAL_ERROR);
    }
    floatArrays_.push_back(*array);
    return ACL_SUCCESS;
  }

  // Allocates the workspace the operator asked for (nothing when the size is 0).
  int AllocWorkspace(uint64_t size, void** workspace) {
    *workspace = nullptr;
    if (size > 0) {
      EXAMPLE_CHECK(aclrtMalloc(&workspace_, size, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
      *workspace = workspace_;
    }
    return ACL_SUCCESS;
  }

  // Copies a tensor created by this session back to the host and prints every element
  // (`result[<i>] is: <%f>`; uint8 tensors: `<%u>`).
  int PrintResult(const aclTensor* tensor) {
    for (const TensorRecord& t : tensors_) {
      if (t.tensor != tensor) {
        continue;
      }
      if (t.dtype == ACL_UINT8) {
        return PrintElements<uint8_t>(t, [](long i, uint8_t v) {
          std::printf("result[%ld] is: %u\n", i, static_cast<unsigned>(v));
        });
      }
      return PrintElements<float>(t, [](long i, float v) {
        std::printf("result[%ld] is: %f\n", i, static_cast<double>(v));
      });
    }
    return Fail("PrintResult (unknown tensor)", ACL_ERROR_INTERNAL_ERROR);
  }

  // Releases everything in CANN's order; returns the first failure (already printed). Idempotent.
  int Close() {
    int first = ACL_SUCCESS;
    auto note = [&first](const char* api, int ret) {
      if (ret != ACL_SUCCESS && first == ACL_SUCCESS) {
        first = Fail(api, ret);
      }
    };
    for (const TensorRecord& t : tensors_) {
      note("aclDestroyTensor", aclDestroyTensor(t.tensor));
    }
    tensors_.clear();
    for (const aclIntArray* a : arrays_) {
      note("aclDestroyIntArray", aclDestroyIntArray(a));
    }
    arrays_.clear();
    for (const aclFloatArray* a : floatArrays_) {
      note("aclDestroyFloatArray", aclDestroyFloatArray(a));
    }
    floatArrays_.clear();
    for (void* p : buffers_) {
      note("aclrtFree", aclrtFree(p));
    }
    buffers_.clear();
    if (workspace_ != nullptr) {
      note("aclrtFree", aclrtFree(workspace_));
      workspace_ = nullptr;
    }
    if (stream_ != nullptr) {
      note("aclrtDestroyStream", aclrtDestroyStream(stream_));
      stream_ = nullptr;
    }
    if (deviceSet_) {
      note("aclrtResetDevice", aclrtResetDevice(deviceId_));
      deviceSet_ = false;
    }
    if (initialised_) {
      note("aclFinalize", aclFinalize());
      initialised_ = false;
    }
    return first;
  }

 private:
  struct TensorRecord {
    const aclTensor* tensor;
    void* device;
    int64_t numel;
    aclDataType dtype;
  };

  // Allocates prod(shape) elements of `elemSize` bytes, fills them from `host` (or with zero
  // bytes through aclrtMemset when `host` is null) and describes them as a contiguous tensor.
  int CreateDeviceTensor(const void* host, size_t elemSize, aclDataType dtype,
                         const std::vector<int64_t>& shape, aclFormat format, aclTensor** tensor) {
    const size_t bytes = static_cast<size_t>(ShapeSize(shape)) * elemSize;
    void* device = nullptr;
    EXAMPLE_CHECK(aclrtMalloc(&device, bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    buffers_.push_back(device);
    if (host != nullptr) {
      EXAMPLE_CHECK(aclrtMemcpy(device, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE),
                    "aclrtMemcpy");
    } else {
      EXAMPLE_CHECK(aclrtMemset(device, bytes, 0, bytes), "aclrtMemset");
    }

    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) {
      strides[i] = shape[i + 1] * strides[i + 1];
    }
    *tensor = aclCreateTensor(shape.data(), shape.size(), dtype, strides.data(), 0, format,
                              shape.data(), shape.size(), device);
    if (*tensor == nullptr) {
      return Fail("aclCreateTensor", ACL_ERROR_INTERNAL_ERROR);
    }
    tensors_.push_back({*tensor, device, ShapeSize(shape), dtype});
    return ACL_SUCCESS;
  }

  template <typename T, typename PrintFn>
  int PrintElements(const TensorRecord& t, PrintFn print) {
    std::vector<T> host(static_cast<size_t>(t.numel), T{});
    const size_t bytes = host.size() * sizeof(T);
    EXAMPLE_CHECK(aclrtMemcpy(host.data(), bytes, t.device, bytes, ACL_MEMCPY_DEVICE_TO_HOST),
                  "aclrtMemcpy");
    for (int64_t i = 0; i < t.numel; ++i) {
      print(static_cast<long>(i), host[static_cast<size_t>(i)]);
    }
    return ACL_SUCCESS;
  }

  bool initialised_ = false;
  bool deviceSet_ = false;
  int32_t deviceId_ = 0;
  aclrtStream stream_ = nullptr;
  std::vector<TensorRecord> tensors_;
  std::vector<const aclIntArray*> arrays_;
  std::vector<const aclFloatArray*> floatArrays_;
  std::vector<void*> buffers_;
  void* workspace_ = nullptr;
};

}  // namespace example

#endif  // UPSAMPLE_EXAMPLES_EXAMPLE_COMMON_H_
