// Objects: aclTensor, aclIntArray, aclFloatArray and aclBoolArray (creation, destruction,
// getters). The structures are defined in runtime_internal.hpp for the aclnn layer.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "acl/enum_value.hpp"
#include "acl/errors.hpp"
#include "acl/memory.hpp"
#include "acl/runtime_internal.hpp"
#include "aclnn/acl_meta.h"
#include "aclnn/aclnn_base.h"
#include "core/checked.hpp"

namespace upsample::acl {
namespace {

constexpr uint64_t kMaxTensorRank = 8;

// The enumerators of aclDataType and aclFormat (acl_base.h).
constexpr int kDataTypes[] = {
    ACL_DT_UNDEFINED, ACL_FLOAT,       ACL_FLOAT16,       ACL_INT8,        ACL_INT32,
    ACL_UINT8,        ACL_INT16,       ACL_UINT16,        ACL_UINT32,      ACL_INT64,
    ACL_UINT64,       ACL_DOUBLE,      ACL_BOOL,          ACL_STRING,      ACL_COMPLEX64,
    ACL_COMPLEX128,   ACL_BF16,        ACL_INT4,          ACL_UINT1,       ACL_COMPLEX32,
    ACL_HIFLOAT8,     ACL_FLOAT8_E5M2, ACL_FLOAT8_E4M3FN, ACL_FLOAT8_E8M0, ACL_FLOAT6_E3M2,
    ACL_FLOAT6_E2M3,  ACL_FLOAT4_E2M1, ACL_FLOAT4_E1M2,   ACL_HIFLOAT4,    ACL_HIFLOAT4_SCALE};
constexpr int kFormats[] = {ACL_FORMAT_UNDEFINED,
                            ACL_FORMAT_NCHW,
                            ACL_FORMAT_NHWC,
                            ACL_FORMAT_ND,
                            ACL_FORMAT_NC1HWC0,
                            ACL_FORMAT_FRACTAL_Z,
                            ACL_FORMAT_NC1HWC0_C04,
                            ACL_FORMAT_HWCN,
                            ACL_FORMAT_NDHWC,
                            ACL_FORMAT_FRACTAL_NZ,
                            ACL_FORMAT_NCDHW,
                            ACL_FORMAT_NDC1HWC0,
                            ACL_FRACTAL_Z_3D,
                            ACL_FORMAT_NC,
                            ACL_FORMAT_NCL,
                            ACL_FORMAT_FRACTAL_NZ_C0_16,
                            ACL_FORMAT_FRACTAL_NZ_C0_32,
                            ACL_FORMAT_FRACTAL_NZ_C0_2,
                            ACL_FORMAT_FRACTAL_NZ_C0_4,
                            ACL_FORMAT_FRACTAL_NZ_C0_8};

template <size_t kCount>
bool is_one_of(int value, const int (&values)[kCount]) {
  return std::find(values, values + kCount, value) != values + kCount;
}

// Row-major strides; a 0 extent counts as 1 (as in PyTorch) so the strides stay meaningful.
bool contiguous_strides(const std::vector<int64_t>& dims, std::vector<int64_t>* strides) {
  strides->assign(dims.size(), 1);
  int64_t stride = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    (*strides)[i] = stride;
    if (!checked_mul(stride, dims[i] > 0 ? dims[i] : int64_t{1}, &stride)) return false;
  }
  return true;
}

// `data_type`, `format`: the raw values of the enum arguments (enum_value.hpp).
aclTensor* create_tensor(const int64_t* view_dims, uint64_t view_dims_num, int data_type,
                         const int64_t* stride, int64_t offset, int format,
                         const int64_t* storage_dims, uint64_t storage_dims_num,
                         void* tensor_data) {
  constexpr const char* kApi = "aclCreateTensor";
  if (view_dims_num > kMaxTensorRank) {
    return fail_null<aclTensor>(kApi, ": viewDimsNum ", view_dims_num, " exceeds the maximum rank ",
                                kMaxTensorRank);
  }
  if (view_dims_num > 0 && view_dims == nullptr) {
    return fail_null<aclTensor>(kApi, ": viewDims is null but viewDimsNum is ", view_dims_num);
  }
  if (storage_dims_num > 0 && storage_dims == nullptr) {
    return fail_null<aclTensor>(kApi, ": storageDims is null but storageDimsNum is ",
                                storage_dims_num);
  }
  if (!is_one_of(data_type, kDataTypes)) {
    return fail_null<aclTensor>(kApi, ": dataType ", data_type, " is not an aclDataType value");
  }
  if (!is_one_of(format, kFormats)) {
    return fail_null<aclTensor>(kApi, ": format ", format, " is not an aclFormat value");
  }
  uint64_t storage_bytes = 0;
  if (!checked_mul(storage_dims_num, uint64_t{sizeof(int64_t)}, &storage_bytes) ||
      storage_bytes > physical_memory_bytes()) {
    return fail_null<aclTensor>(kApi, ": storageDimsNum ", storage_dims_num, " is too large");
  }
  for (uint64_t i = 0; i < view_dims_num; ++i) {
    if (view_dims[i] < 0) {
      return fail_null<aclTensor>(kApi, ": viewDims[", i, "] is negative (", view_dims[i], ")");
    }
  }
  for (uint64_t i = 0; i < storage_dims_num; ++i) {
    if (storage_dims[i] < 0) {
      return fail_null<aclTensor>(kApi, ": storageDims[", i, "] is negative (", storage_dims[i],
                                  ")");
    }
  }
  auto tensor = std::make_unique<aclTensor>();
  tensor->view_dims.assign(view_dims, view_dims + view_dims_num);
  // CANN requires strides; a null `stride` is accepted here as "contiguous", which is what
  // every caller that omits it means.
  if (stride != nullptr) {
    tensor->strides.assign(stride, stride + view_dims_num);
  } else if (!contiguous_strides(tensor->view_dims, &tensor->strides)) {
    return fail_null<aclTensor>(kApi, ": the contiguous strides of the view overflow int64");
  }
  tensor->offset = offset;
  tensor->dtype = static_cast<aclDataType>(data_type);
  tensor->format = static_cast<aclFormat>(format);
  tensor->storage_dims.assign(storage_dims, storage_dims + storage_dims_num);
  tensor->data = tensor_data;
  return tensor.release();
}

template <typename Array, typename Value>
Array* create_array(const char* api, const Value* value, uint64_t size) {
  if (value == nullptr && size > 0) {
    return fail_null<Array>(api, ": value is null but size is ", size);
  }
  uint64_t bytes = 0;
  if (!checked_mul(size, uint64_t{sizeof(Value)}, &bytes) || bytes > physical_memory_bytes()) {
    return fail_null<Array>(api, ": size ", size, " is too large (", size, " elements of ",
                            sizeof(Value), " bytes exceed the physical memory)");
  }
  auto array = std::make_unique<Array>();
  array->values.assign(value, value + size);
  return array.release();
}

// CANN hands dimension arrays out as `new int64_t[]` that the caller deletes.
aclnnStatus copy_dims_out(const char* api, const char* array_name, const char* count_name,
                          const aclTensor* tensor, std::vector<int64_t> aclTensor::*dims,
                          int64_t** out, uint64_t* out_count) {
  if (tensor == nullptr) return fail(ACLNN_ERR_PARAM_NULLPTR, api, ": tensor is null");
  if (out == nullptr) return fail(ACLNN_ERR_PARAM_NULLPTR, api, ": ", array_name, " is null");
  if (out_count == nullptr) {
    return fail(ACLNN_ERR_PARAM_NULLPTR, api, ": ", count_name, " is null");
  }
  const std::vector<int64_t>& values = tensor->*dims;
  auto copy = std::make_unique<int64_t[]>(values.size());
  std::copy(values.begin(), values.end(), copy.get());
  *out = copy.release();
  *out_count = values.size();
  return ACLNN_SUCCESS;
}

template <typename Array>
aclnnStatus get_array_size(const char* api, const Array* array, uint64_t* size) {
  if (array == nullptr) return fail(ACLNN_ERR_PARAM_NULLPTR, api, ": array is null");
  if (size == nullptr) return fail(ACLNN_ERR_PARAM_NULLPTR, api, ": size is null");
  *size = array->values.size();
  return ACLNN_SUCCESS;
}

template <typename Object>
aclnnStatus destroy(const Object* object) {
  delete object;
  return ACLNN_SUCCESS;
}

}  // namespace
}  // namespace upsample::acl

// ---------------------------------------------------------------------------------------------
// The C API. Visibility comes from the declarations' ACL_FUNC_VISIBILITY.

using upsample::acl::fail;
using upsample::acl::guard_c_api;
using upsample::acl::kAclnnFailure;
using upsample::acl::kNullOnFailure;

extern "C" {

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t* stride, int64_t offset, aclFormat format,
                           const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData) {
  return guard_c_api("aclCreateTensor", kNullOnFailure<aclTensor>, [&] {
    return upsample::acl::create_tensor(viewDims, viewDimsNum, upsample::acl::enum_value(dataType),
                                        stride, offset, upsample::acl::enum_value(format),
                                        storageDims, storageDimsNum, tensorData);
  });
}

aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
  return guard_c_api("aclCreateIntArray", kNullOnFailure<aclIntArray>, [&] {
    return upsample::acl::create_array<aclIntArray>("aclCreateIntArray", value, size);
  });
}

aclFloatArray* aclCreateFloatArray(const float* value, uint64_t size) {
  return guard_c_api("aclCreateFloatArray", kNullOnFailure<aclFloatArray>, [&] {
    return upsample::acl::create_array<aclFloatArray>("aclCreateFloatArray", value, size);
  });
}

aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) {
  return guard_c_api("aclCreateBoolArray", kNullOnFailure<aclBoolArray>, [&] {
    return upsample::acl::create_array<aclBoolArray>("aclCreateBoolArray", value, size);
  });
}

aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
  return guard_c_api("aclDestroyTensor", kAclnnFailure,
                     [&] { return upsample::acl::destroy(tensor); });
}

aclnnStatus aclDestroyIntArray(const aclIntArray* array) {
  return guard_c_api("aclDestroyIntArray", kAclnnFailure,
                     [&] { return upsample::acl::destroy(array); });
}

aclnnStatus aclDestroyFloatArray(const aclFloatArray* array) {
  return guard_c_api("aclDestroyFloatArray", kAclnnFailure,
                     [&] { return upsample::acl::destroy(array); });
}

aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) {
  return guard_c_api("aclDestroyBoolArray", kAclnnFailure,
                     [&] { return upsample::acl::destroy(array); });
}

aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum) {
  return guard_c_api("aclGetViewShape", kAclnnFailure, [&] {
    return upsample::acl::copy_dims_out("aclGetViewShape", "viewDims", "viewDimsNum", tensor,
                                        &aclTensor::view_dims, viewDims, viewDimsNum);
  });
}

aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims,
                               uint64_t* storageDimsNum) {
  return guard_c_api("aclGetStorageShape", kAclnnFailure, [&] {
    return upsample::acl::copy_dims_out("aclGetStorageShape", "storageDims", "storageDimsNum",
                                        tensor, &aclTensor::storage_dims, storageDims,
                                        storageDimsNum);
  });
}

aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue,
                              uint64_t* stridesNum) {
  return guard_c_api("aclGetViewStrides", kAclnnFailure, [&] {
    return upsample::acl::copy_dims_out("aclGetViewStrides", "stridesValue", "stridesNum", tensor,
                                        &aclTensor::strides, stridesValue, stridesNum);
  });
}

aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset) {
  return guard_c_api("aclGetViewOffset", kAclnnFailure, [&]() -> aclnnStatus {
    if (tensor == nullptr) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetViewOffset: tensor is null");
    if (offset == nullptr) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetViewOffset: offset is null");
    *offset = tensor->offset;
    return ACLNN_SUCCESS;
  });
}

aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format) {
  return guard_c_api("aclGetFormat", kAclnnFailure, [&]() -> aclnnStatus {
    if (tensor == nullptr) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetFormat: tensor is null");
    if (format == nullptr) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetFormat: format is null");
    *format = tensor->format;
    return ACLNN_SUCCESS;
  });
}

aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType) {
  return guard_c_api("aclGetDataType", kAclnnFailure, [&]() -> aclnnStatus {
    if (tensor == nullptr) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetDataType: tensor is null");
    if (dataType == nullptr) {
      return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetDataType: dataType is null");
    }
    *dataType = tensor->dtype;
    return ACLNN_SUCCESS;
  });
}

aclnnStatus aclGetIntArraySize(const aclIntArray* array, uint64_t* size) {
  return guard_c_api("aclGetIntArraySize", kAclnnFailure, [&] {
    return upsample::acl::get_array_size("aclGetIntArraySize", array, size);
  });
}

aclnnStatus aclGetFloatArraySize(const aclFloatArray* array, uint64_t* size) {
  return guard_c_api("aclGetFloatArraySize", kAclnnFailure, [&] {
    return upsample::acl::get_array_size("aclGetFloatArraySize", array, size);
  });
}

aclnnStatus aclGetBoolArraySize(const aclBoolArray* array, uint64_t* size) {
  return guard_c_api("aclGetBoolArraySize", kAclnnFailure, [&] {
    return upsample::acl::get_array_size("aclGetBoolArraySize", array, size);
  });
}

}  // extern "C"
