// Helpers shared by the tests of the acl runtime (tests/cpp/acl_*_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "acl/acl.h"

namespace upsample::acl::testing {

// Returns (and so clears) the calling thread's error text; "" when there is none.
inline std::string take_error_text() {
  const char* text = aclGetRecentErrMsg();
  return text == nullptr ? std::string() : std::string(text);
}

// Creates a stream for one test and destroys it at the end of the test.
class StreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    take_error_text();
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
    ASSERT_NE(stream_, nullptr);
  }
  void TearDown() override {
    if (stream_ != nullptr) {
      EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
    }
  }
  aclrtStream stream_ = nullptr;
};

}  // namespace upsample::acl::testing
