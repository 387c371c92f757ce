// The aclnn entry points and the engine under injected allocation failures (injection.hpp):
// phase one of every entry point and phase two, failing at every allocation they make in turn, must
// return an error status with a message naming the entry point (never throw across the C ABI) and
// keep nothing; the native make_plan reports the failure as a Status.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "acl/acl.h"
#include "acl/memory.hpp"
#include "acl/runtime_internal.hpp"
#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "check/entry_points.hpp"
#include "cpp/alloc_failure/injection.hpp"
#include "cpp/nchw_call.hpp"
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

// The Bilinear2d call of the phase-two tests: 2x3x8x8 -> 2x3x16x12.
struct Tensors : upsample::testing::NchwCall {
  Tensors() : NchwCall({2, 3, 8, 8}, {2, 3, 16, 12}) {}
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

// Valid arguments of one entry point (one row of the entry table): N = 1, C = 2, every spatial
// axis 4 -> 6 (a forward entry point reads 4s and writes 6s, a backward one reads a gradient of
// 6s and writes one of 4s), in the channels-first format of its rank.
class EntryArguments {
 public:
  explicit EntryArguments(const upsample::cli::EntryPoint& entry) {
    const int spatial = entry.spatial_rank();
    std::vector<int64_t> small = {1, 2}, large = {1, 2}, out_size;
    std::vector<float> dim_scales = {1.0f, 1.0f};
    for (int a = 0; a < spatial; ++a) {
      small.push_back(4);
      large.push_back(6);
      out_size.push_back(6);
      dim_scales.push_back(1.5f);
    }
    const aclFormat format = spatial == 1   ? ACL_FORMAT_NCL
                             : spatial == 2 ? ACL_FORMAT_NCHW
                                            : ACL_FORMAT_NCDHW;
    const std::vector<int64_t>& src_dims = entry.forward() ? small : large;
    const std::vector<int64_t>& dst_dims = entry.forward() ? large : small;
    src_.assign(static_cast<size_t>(count(src_dims)), 1.0f);
    dst_.assign(static_cast<size_t>(count(dst_dims)), 0.0f);
    const int64_t src_storage = count(src_dims), dst_storage = count(dst_dims);
    args_.src = aclCreateTensor(src_dims.data(), src_dims.size(), ACL_FLOAT, nullptr, 0, format,
                                &src_storage, 1, src_.data());
    args_.dst = aclCreateTensor(dst_dims.data(), dst_dims.size(), ACL_FLOAT, nullptr, 0, format,
                                &dst_storage, 1, dst_.data());
    args_.output_size = aclCreateIntArray(out_size.data(), out_size.size());
    args_.input_size = aclCreateIntArray(small.data(), small.size());
    args_.dim_scales = aclCreateFloatArray(dim_scales.data(), dim_scales.size());
    args_.mode = entry.row->variant;
  }
  ~EntryArguments() {
    aclDestroyTensor(args_.src);
    aclDestroyTensor(args_.dst);
    aclDestroyIntArray(args_.output_size);
    aclDestroyIntArray(args_.input_size);
    aclDestroyFloatArray(args_.dim_scales);
  }
  const upsample::cli::CallArgs& args() const { return args_; }

 private:
  static int64_t count(const std::vector<int64_t>& dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
  std::vector<float> src_, dst_;
  upsample::cli::CallArgs args_;
};

// Every entry point of the table (tools/check/entry_points.hpp adapts the arguments to each
// signature), failing at each allocation its phase one makes.
TEST_P(AclnnAllocFailure, PhaseOneReportsOutOfMemoryAndKeepsNothing) {
  for (const upsample::cli::EntryPoint& entry : upsample::cli::all_entry_points()) {
    const std::string name = upsample::cli::display_name(entry);
    const EntryArguments arguments(entry);
    const int64_t points = drive_through_each_allocation(
        name.c_str(), GetParam(),
        [&] {
          uint64_t ws = 0;
          aclOpExecutor* ex = nullptr;
          const aclnnStatus st = entry.get_workspace_size(arguments.args(), &ws, &ex);
          return std::make_pair(st, ex);
        },
        [&](std::pair<aclnnStatus, aclOpExecutor*> result, bool injected) {
          if (result.first != ACLNN_SUCCESS) {
            EXPECT_TRUE(injected) << name << ": " << take_error_text();
            expect_out_of_memory(result.first, entry.name());
            return;
          }
          EXPECT_EQ(aclDestroyAclOpExecutor(result.second), ACLNN_SUCCESS);
        },
        &settled);
    EXPECT_GE(points, 3) << name;  // the executor, its plan and its tables at least
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

// GetWorkspaceSize keeps its plan in the aclnn layer's plan cache (docs/design.md, "aclnn
// layer"): a second call with the same descriptors keeps nothing more, and releasing the
// device's memory (what aclrtResetDevice and aclFinalize do) empties it. With
// UPSAMPLE_PLAN_CACHE=0 (ctest runs this test a second time so) nothing is kept.
TEST(AclnnPlanCacheMemory, KeptUntilTheDeviceIsReleasedAndNotAtAllWhenOff) {
  const char* env = std::getenv("UPSAMPLE_PLAN_CACHE");
  const bool off = env != nullptr && std::string(env) == "0";
  // GetWorkspaceSize and the executor's destruction, for the call's tensors.
  auto plan_once = [](const upsample::testing::NchwCall& t) {
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    ASSERT_EQ(aclnnUpsampleBilinear2dGetWorkspaceSize(t.self, t.output_size, false, 0, 0, t.out,
                                                      &ws, &ex),
              ACLNN_SUCCESS);
    ASSERT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_SUCCESS);
  };
  // Warms the library's long-lived state (registries, SIMD target, error text) on other
  // descriptors.
  plan_once(upsample::testing::NchwCall({1, 2, 5, 5}, {1, 2, 7, 3}));
  const Tensors t;
  const int64_t before = settled();
  plan_once(t);
  const int64_t kept = g_live_allocations.load() - before;
  if (off) {
    EXPECT_EQ(kept, 0) << "UPSAMPLE_PLAN_CACHE=0 keeps nothing";
  } else {
    EXPECT_GT(kept, 0) << "the plan is kept";
  }
  plan_once(t);
  EXPECT_EQ(g_live_allocations.load() - before, kept) << "the same descriptors: nothing more";
  EXPECT_EQ(settled(), before) << "released with the device's memory";
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
