// Tests of the acl runtime's objects: aclTensor and the value arrays (creation, getters,
// destruction), including sizes whose byte counts overflow.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "acl/runtime_internal.hpp"
#include "aclnn/acl_meta.h"
#include "aclnn/aclnn_base.h"
#include "cpp/acl_c_callers.h"
#include "cpp/acl_test_util.hpp"

namespace {

using upsample::acl::testing::take_error_text;

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
  take_error_text();
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
  take_error_text();
  const int64_t dims[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  const int64_t strides[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  float data[1] = {};
  EXPECT_EQ(aclCreateTensor(dims, 9, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 9, data), nullptr);
  EXPECT_NE(take_error_text().find("viewDimsNum 9"), std::string::npos);
  aclTensor* rank_eight =
      aclCreateTensor(dims, 8, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 8, data);
  EXPECT_NE(rank_eight, nullptr);  // the maximum rank itself is fine
  EXPECT_EQ(aclDestroyTensor(rank_eight), ACLNN_SUCCESS);

  EXPECT_EQ(aclCreateTensor(nullptr, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, data),
            nullptr);
  EXPECT_NE(take_error_text().find("viewDims is null"), std::string::npos);
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, nullptr, 2, data),
            nullptr);
  EXPECT_NE(take_error_text().find("storageDims is null"), std::string::npos);

  const int64_t negative[2] = {3, -2};
  EXPECT_EQ(aclCreateTensor(negative, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 1, data),
            nullptr);
  const std::string message = take_error_text();
  EXPECT_NE(message.find("viewDims[1] is negative (-2)"), std::string::npos) << message;
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, negative, 2, data),
            nullptr);
  EXPECT_NE(take_error_text().find("storageDims[1]"), std::string::npos);
}

TEST(AclTensor, CreateRejectsValuesThatAreNoDataTypeOrFormat) {
  take_error_text();
  const int64_t dims[2] = {2, 3};
  float data[6] = {};
  for (int data_type : {5, 14, -2, 44, 1000}) {
    EXPECT_EQ(c_call_create_tensor(dims, 2, data_type, ACL_FORMAT_ND, data), nullptr);
    EXPECT_NE(take_error_text().find("dataType " + std::to_string(data_type) +
                                     " is not an aclDataType value"),
              std::string::npos);
  }
  for (int format : {5, 28, -2, 55, 1 << 20}) {
    EXPECT_EQ(c_call_create_tensor(dims, 2, ACL_FLOAT, format, data), nullptr);
    EXPECT_NE(
        take_error_text().find("format " + std::to_string(format) + " is not an aclFormat value"),
        std::string::npos);
  }
  // Every enumerator is accepted, the undefined ones included (entry points reject those).
  for (int data_type : {ACL_DT_UNDEFINED, ACL_STRING, ACL_HIFLOAT4_SCALE}) {
    aclTensor* tensor = c_call_create_tensor(dims, 2, data_type, ACL_FORMAT_UNDEFINED, data);
    ASSERT_NE(tensor, nullptr) << data_type;
    EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
  }
  aclTensor* tensor = c_call_create_tensor(dims, 2, ACL_FLOAT, ACL_FORMAT_FRACTAL_NZ_C0_8, data);
  ASSERT_NE(tensor, nullptr);
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
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
  take_error_text();
  EXPECT_EQ(aclDestroyIntArray(array), ACLNN_SUCCESS);

  aclIntArray* empty = aclCreateIntArray(nullptr, 0);
  ASSERT_NE(empty, nullptr);
  EXPECT_EQ(aclGetIntArraySize(empty, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(aclDestroyIntArray(empty), ACLNN_SUCCESS);

  EXPECT_EQ(aclCreateIntArray(nullptr, 2), nullptr);
  EXPECT_NE(take_error_text().find("aclCreateIntArray: value is null but size is 2"),
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
  EXPECT_NE(take_error_text().find("aclCreateFloatArray"), std::string::npos);
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

TEST(AclArrays, SizesWhoseByteCountOverflowsAreRefused) {
  take_error_text();
  const int64_t ints[1] = {1};
  EXPECT_EQ(aclCreateIntArray(ints, SIZE_MAX / 2), nullptr);
  std::string message = take_error_text();
  EXPECT_NE(message.find("aclCreateIntArray: size 9223372036854775807 is too large"),
            std::string::npos)
      << message;
  const float floats[1] = {1.0f};
  EXPECT_EQ(aclCreateFloatArray(floats, UINT64_MAX / 4 + 1), nullptr);
  EXPECT_NE(take_error_text().find("aclCreateFloatArray: size"), std::string::npos);
  EXPECT_EQ(aclCreateIntArray(ints, UINT64_MAX), nullptr);
  EXPECT_NE(take_error_text().find("too large"), std::string::npos);
}

TEST(AclArrays, SizesBeyondThePhysicalMemoryAreRefusedBeforeAllocating) {
  take_error_text();
  const bool values[1] = {true};
  EXPECT_EQ(aclCreateBoolArray(values, uint64_t{1} << 62), nullptr);
  std::string message = take_error_text();
  EXPECT_NE(message.find("aclCreateBoolArray: size 4611686018427387904 is too large"),
            std::string::npos)
      << message;
  const int64_t ints[1] = {1};
  EXPECT_EQ(aclCreateIntArray(ints, uint64_t{1} << 50), nullptr);
  EXPECT_NE(take_error_text().find("aclCreateIntArray: size 1125899906842624 is too large"),
            std::string::npos);
  const int64_t dims[1] = {1};
  EXPECT_EQ(aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, uint64_t{1} << 60,
                            nullptr),
            nullptr);
  EXPECT_NE(take_error_text().find("storageDimsNum 1152921504606846976 is too large"),
            std::string::npos);
}

TEST(AclTensor, ContiguousStridesThatOverflowAreRefused) {
  take_error_text();
  const int64_t dims[3] = {int64_t{1} << 32, int64_t{1} << 32, 2};
  EXPECT_EQ(aclCreateTensor(dims, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 3, nullptr),
            nullptr);
  EXPECT_NE(take_error_text().find("contiguous strides of the view overflow int64"),
            std::string::npos);
}

}  // namespace
