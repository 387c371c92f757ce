// Tests of the acl runtime's error reporting: the per-thread error text of aclGetRecentErrMsg
// and the guard that turns exceptions into statuses at the C ABI.
#include <gtest/gtest.h>

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

#include "acl/acl.h"
#include "acl/errors.hpp"
#include "acl/runtime_internal.hpp"
#include "aclnn/aclnn_base.h"
#include "cpp/acl_test_util.hpp"

namespace {

using upsample::acl::testing::take_error_text;

TEST(AclErrorText, IsReturnedOnceThenCleared) {
  take_error_text();
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);
  upsample::acl::set_last_error("first");
  upsample::acl::set_last_error("second");  // the latest message wins
  const char* text = aclGetRecentErrMsg();
  ASSERT_NE(text, nullptr);
  EXPECT_STREQ(text, "second");
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);
}

TEST(AclErrorText, IsPerThread) {
  take_error_text();
  std::string seen_by_other_thread = "unset";
  std::thread other([&] {
    EXPECT_EQ(aclrtSetDevice(5), ACL_ERROR_INVALID_PARAM);
    seen_by_other_thread = take_error_text();
  });
  other.join();
  EXPECT_NE(seen_by_other_thread.find("deviceId 5"), std::string::npos);
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);
}

TEST(AclErrorText, AMessageOfAnEarlierCallIsReplacedNotAppended) {
  take_error_text();
  EXPECT_EQ(aclrtSetDevice(3), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSetDevice(4), ACL_ERROR_INVALID_PARAM);
  const std::string message = take_error_text();
  EXPECT_NE(message.find("deviceId 4"), std::string::npos) << message;
  EXPECT_EQ(message.find("deviceId 3"), std::string::npos) << message;
}

TEST(AclErrorText, ReturnedTextStaysValidUntilTheNextCall) {
  take_error_text();
  upsample::acl::set_last_error("kept until the next aclGetRecentErrMsg");
  const char* text = aclGetRecentErrMsg();
  ASSERT_NE(text, nullptr);
  upsample::acl::set_last_error("a later error that has not been read yet");
  EXPECT_STREQ(text, "kept until the next aclGetRecentErrMsg");
  EXPECT_EQ(take_error_text(), "a later error that has not been read yet");
}

// ---------------------------------------------------------------------------------------------
// The C ABI guard.

TEST(AclGuard, PassesTheResultThrough) {
  take_error_text();
  EXPECT_EQ(upsample::acl::guard_c_api("api", upsample::acl::kAclFailure, [] { return 7; }), 7);
  int object = 0;
  EXPECT_EQ(upsample::acl::guard_c_api("api", upsample::acl::kNullOnFailure<int>,
                                       [&] { return &object; }),
            &object);
  EXPECT_EQ(take_error_text(), "");
}

TEST(AclGuard, OutOfMemoryBecomesTheOutOfMemoryStatus) {
  take_error_text();
  const aclError status = upsample::acl::guard_c_api("aclrtSomething", upsample::acl::kAclFailure,
                                                     []() -> aclError { throw std::bad_alloc(); });
  EXPECT_EQ(status, ACL_ERROR_BAD_ALLOC);
  EXPECT_EQ(take_error_text(), "aclrtSomething: out of host memory");
  EXPECT_EQ(upsample::acl::guard_c_api("aclGetSomething", upsample::acl::kAclnnFailure,
                                       []() -> aclnnStatus { throw std::bad_alloc(); }),
            ACLNN_ERR_INNER_NULLPTR);
  EXPECT_EQ(take_error_text(), "aclGetSomething: out of host memory");
}

TEST(AclGuard, OtherExceptionsBecomeTheInternalStatusWithTheirText) {
  take_error_text();
  EXPECT_EQ(upsample::acl::guard_c_api(
                "aclrtSomething", upsample::acl::kAclFailure,
                []() -> aclError { throw std::length_error("vector::_M_range_insert"); }),
            ACL_ERROR_INTERNAL_ERROR);
  EXPECT_EQ(take_error_text(), "aclrtSomething: internal error: vector::_M_range_insert");
  EXPECT_EQ(upsample::acl::guard_c_api("aclDestroySomething", upsample::acl::kAclnnFailure,
                                       []() -> aclnnStatus { throw 42; }),
            ACLNN_ERR_INNER);
  EXPECT_EQ(take_error_text(), "aclDestroySomething: unknown exception");
  EXPECT_EQ(
      upsample::acl::guard_c_api("aclCreateSomething", upsample::acl::kNullOnFailure<aclTensor>,
                                 []() -> aclTensor* { throw std::runtime_error("broken"); }),
      nullptr);
  EXPECT_EQ(take_error_text(), "aclCreateSomething: internal error: broken");
}

TEST(AclGuard, LongExceptionTextIsCutNotOverflowed) {
  take_error_text();
  const std::string long_text(5000, 'x');
  EXPECT_EQ(upsample::acl::guard_c_api("api", upsample::acl::kAclFailure,
                                       [&]() -> aclError { throw std::runtime_error(long_text); }),
            ACL_ERROR_INTERNAL_ERROR);
  const std::string message = take_error_text();
  EXPECT_EQ(message.size(), 1023u);
  EXPECT_EQ(message.rfind("api: internal error: xxx", 0), 0u) << message.substr(0, 40);
}

}  // namespace
