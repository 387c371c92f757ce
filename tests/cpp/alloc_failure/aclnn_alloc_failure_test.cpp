// The aclnn entry points and the engine under injected allocation failures (injection.hpp):
// phase one and phase two of forward, backward and Resize entry points, failing at every
// allocation they make in turn, must return an error status with a message naming the entry
// point (never throw across the C ABI) and keep nothing; the native make_plan reports the
// failure as a Status.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "acl/acl.h"
#include "acl/memory.hpp"
#include "acl/runtime_internal.hpp"
#include "aclnnop/aclnn_resize.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa_grad.h"
#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "cpp/alloc_failure/injection.hpp"
#include "upsample/resample.hpp"

namespace {

using upsample::testing_alloc::drive_through_each_allocation;
using upsample::testing_alloc::g_live_allocations;

std::string take_error_text() {
  const char* text = aclGetRecentErrMsg();
  return text == nullptr ? std::string() : std::string(text);
}

int64_t settled() {
  upsample::acl::release_device_cache();
  take_error_text();
  return g_live_allocations.load();
}

// Out of memory is reported as an internal error (561000, or 561103 when the guard caught the
// exception), with the entry point named (or the fixed "message lost" text).
void expect_out_of_memory(aclnnStatus status, const char* api) {
  EXPECT_TRUE(status == ACLNN_ERR_INNER || status == ACLNN_ERR_INNER_NULLPTR) << status;
  const std::string text = take_error_text();
  EXPECT_TRUE(text.find(api) != std::string::npos ||
              text.find("could not be stored") != std::string::npos)
      << text;
}

struct Tensors {
  std::vector<float> src = std::vector<float>(2 * 3 * 8 * 8, 1.0f);
  std::vector<float> dst = std::vector<float>(2 * 3 * 16 * 12, 0.0f);
  aclTensor* self = nullptr;
  aclTensor* out = nullptr;
  aclIntArray* output_size = nullptr;
  aclIntArray* input_size = nullptr;
  aclFloatArray* scales = nullptr;
  Tensors() {
    const int64_t in_dims[4] = {2, 3, 8, 8}, out_dims[4] = {2, 3, 16, 12};
    const int64_t out_size[2] = {16, 12};
    const float resize_scales[4] = {1.0f, 1.0f, 2.0f, 1.5f};
    self =
        aclCreateTensor(in_dims, 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCHW, in_dims, 4, src.data());
    out = aclCreateTensor(out_dims, 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCHW, out_dims, 4,
                          dst.data());
    output_size = aclCreateIntArray(out_size, 2);
    input_size = aclCreateIntArray(in_dims, 4);
    scales = aclCreateFloatArray(resize_scales, 4);
  }
  ~Tensors() {
    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyIntArray(output_size);
    aclDestroyIntArray(input_size);
    aclDestroyFloatArray(scales);
  }
};

class AclnnAllocFailure : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    // Warm the library's long-lived state (SIMD target choice, executor registry, the buffer that
    // holds the error text aclGetRecentErrMsg returns).
    upsample::acl::set_last_error(std::string(300, 'x'));
    take_error_text();
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    ASSERT_EQ(aclnnUpsampleBilinear2dGetWorkspaceSize(t_.self, t_.output_size, false, 0, 0, t_.out,
                                                      &ws, &ex),
              ACLNN_SUCCESS);
    workspace_.resize(ws);
    ASSERT_EQ(aclnnUpsampleBilinear2d(workspace_.data(), ws, ex, nullptr), ACLNN_SUCCESS);
  }
  Tensors t_;
  std::vector<unsigned char> workspace_;
};

TEST_P(AclnnAllocFailure, PhaseOneReportsOutOfMemoryAndKeepsNothing) {
  struct Entry {
    const char* api;
    aclnnStatus (*call)(Tensors&, uint64_t*, aclOpExecutor**);
  };
  const Entry entries[] = {
      {"aclnnUpsampleBilinear2d",
       [](Tensors& t, uint64_t* ws, aclOpExecutor** ex) {
         return aclnnUpsampleBilinear2dGetWorkspaceSize(t.self, t.output_size, false, 0, 0, t.out,
                                                        ws, ex);
       }},
      {"aclnnUpsampleBicubic2dAAGrad",
       [](Tensors& t, uint64_t* ws, aclOpExecutor** ex) {
         // gradOutput is `out` (16x12), the grad of the input `self` (8x8).
         return aclnnUpsampleBicubic2dAAGradGetWorkspaceSize(t.out, t.output_size, t.input_size,
                                                             false, 0, 0, t.self, ws, ex);
       }},
      {"aclnnResize",
       [](Tensors& t, uint64_t* ws, aclOpExecutor** ex) {
         return aclnnResizeGetWorkspaceSize(t.self, t.scales, "bilinear", t.out, ws, ex);
       }},
  };
  for (const Entry& e : entries) {
    const int64_t points = drive_through_each_allocation(
        e.api, GetParam(),
        [&] {
          uint64_t ws = 0;
          aclOpExecutor* ex = nullptr;
          const aclnnStatus st = e.call(t_, &ws, &ex);
          return std::make_pair(st, ex);
        },
        [&](std::pair<aclnnStatus, aclOpExecutor*> result, bool injected) {
          if (result.first != ACLNN_SUCCESS) {
            EXPECT_TRUE(injected) << e.api;
            expect_out_of_memory(result.first, e.api);
            return;
          }
          EXPECT_EQ(aclDestroyAclOpExecutor(result.second), ACLNN_SUCCESS);
        },
        &settled);
    EXPECT_GE(points, 3) << e.api;  // the executor, its plan and its tables at least
  }
}

TEST_P(AclnnAllocFailure, PhaseTwoReportsOutOfMemoryAndKeepsTheExecutor) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(aclnnUpsampleBilinear2dGetWorkspaceSize(t_.self, t_.output_size, false, 0, 0, t_.out,
                                                    &ws, &ex),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), ACLNN_SUCCESS);
  drive_through_each_allocation(
      "aclnnUpsampleBilinear2d launch", GetParam(),
      [&] { return aclnnUpsampleBilinear2d(workspace_.data(), ws, ex, stream); },
      [&](aclnnStatus st, bool injected) {
        if (st != ACLNN_SUCCESS) {
          EXPECT_TRUE(injected);
          expect_out_of_memory(st, "aclnnUpsampleBilinear2d");
        }
        EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
      },
      &settled);
  // The executor survived every failed launch.
  EXPECT_EQ(aclnnUpsampleBilinear2d(workspace_.data(), ws, ex, stream), ACLNN_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_P(AclnnAllocFailure, MakePlanReportsOutOfMemory) {
  upsample::OpDesc op;
  op.mode = upsample::Mode::kCubic;
  op.antialias = true;
  const auto src = upsample::TensorDesc::contiguous(upsample::DType::kFloat32, {1, 3, 64, 48});
  const auto dst = upsample::TensorDesc::channels_last(upsample::DType::kFloat32, {1, 3, 9, 20});
  drive_through_each_allocation(
      "make_plan", GetParam(),
      [&] {
        upsample::Plan plan;
        const upsample::Status st = upsample::make_plan(op, src, dst, &plan);
        // (the code and facts only: the result outlives the count of kept allocations)
        return std::make_tuple(st.code, plan.valid(), st.message.find("out of memory") == 0);
      },
      [&](std::tuple<upsample::StatusCode, bool, bool> result, bool injected) {
        const auto [code, valid, says_out_of_memory] = result;
        if (code == upsample::StatusCode::kOk) {
          EXPECT_TRUE(valid);
          return;
        }
        EXPECT_TRUE(injected);
        EXPECT_EQ(code, upsample::StatusCode::kInternal);
        EXPECT_TRUE(says_out_of_memory);
        EXPECT_FALSE(valid);
      },
      &settled);
}

INSTANTIATE_TEST_SUITE_P(OneOrAllLaterAllocationsFail, AclnnAllocFailure, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("FromNthOn") : std::string("NthOnly");
                         });

}  // namespace
