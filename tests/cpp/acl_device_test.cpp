// Tests of the acl runtime's device and context functions: the constants callers hard-code,
// aclInit / aclFinalize, the one device and the context options.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn/aclnn_base.h"
#include "cpp/acl_c_callers.h"
#include "cpp/acl_test_util.hpp"

namespace {

using upsample::acl::testing::take_error_text;

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
  take_error_text();
  EXPECT_EQ(aclInit("/nonexistent/acl.json"), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("/nonexistent/acl.json"), std::string::npos);
  EXPECT_EQ(aclInit("/tmp"), ACL_ERROR_INVALID_PARAM);  // a directory is not a config file
  EXPECT_NE(take_error_text().find("aclInit"), std::string::npos);
}

TEST(AclDevice, OnlyDeviceZeroExists) {
  take_error_text();
  EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  int32_t device = -1;
  EXPECT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
  EXPECT_EQ(device, 0);
  uint32_t count = 0;
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(take_error_text(), "");

  EXPECT_EQ(aclrtSetDevice(1), ACL_ERROR_INVALID_PARAM);
  const std::string message = take_error_text();
  EXPECT_NE(message.find("aclrtSetDevice"), std::string::npos) << message;
  EXPECT_NE(message.find("deviceId 1"), std::string::npos) << message;
  EXPECT_EQ(aclrtSetDevice(-1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtResetDevice(1), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("aclrtResetDevice"), std::string::npos);
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

  take_error_text();
  EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 4), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(take_error_text().find("value 4"), std::string::npos);
  for (int opt : {4, 9, -1, 1 << 30}) {
    EXPECT_EQ(c_call_set_sys_param_opt(opt, 0), ACL_ERROR_INVALID_PARAM) << opt;
    EXPECT_NE(take_error_text().find("opt " + std::to_string(opt) + " is not an aclSysParamOpt"),
              std::string::npos);
    EXPECT_EQ(c_call_get_sys_param_opt(opt, &value), ACL_ERROR_INVALID_PARAM) << opt;
    take_error_text();
  }
  EXPECT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, nullptr), ACL_ERROR_INVALID_PARAM);
  // A rejected value leaves the stored one alone.
  ASSERT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 3);

  EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0), ACL_SUCCESS);
  EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 0), ACL_SUCCESS);
}

}  // namespace
