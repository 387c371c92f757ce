// repro_timeout_bicubic_grad (resize_bicubic_v2_grad): a regression repro for CANN's kernel
// watchdog timeout when H > INT32_MAX. aclnnUpsampleBicubic2dBackward with gradOut
// [1,1,2147483649,1] float32 (8 GiB, zeroed on the device with aclrtMemset, no host copy),
// outputSize {2147483649,1}, inputSize {1,1,2,1}, alignCorners false, scales 0 -> gradInput
// [1,1,2,1] (NCHW). Prints `[repro] ...` progress lines, the workspace size, the
// aclrtSynchronizeStream status and the elapsed seconds, then the result. Expected: 0, 0.
// Needs about 8 GiB of memory and takes a while: it is not part of the default test run.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "aclnnop/aclnn_upsample_bicubic_2d_backward.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const int64_t bigH = 2147483649LL;  // INT32_MAX + 2
  const std::vector<int64_t> gradOutShape = {1, 1, bigH, 1};
  const std::vector<int64_t> gradInShape = {1, 1, 2, 1};
  const std::vector<int64_t> outputSizeData = {bigH, 1};
  const std::vector<int64_t> inputSizeData = {1, 1, 2, 1};
  const bool alignCorners = false;
  const double scalesH = 0.0;
  const double scalesW = 0.0;

  aclTensor* gradOut = nullptr;
  aclTensor* gradIn = nullptr;
  aclIntArray* outputSize = nullptr;
  aclIntArray* inputSize = nullptr;
  std::printf("[repro] allocating and zeroing gradOut [1,1,%ld,1] float32 (%ld bytes)\n",
              static_cast<long>(bigH), static_cast<long>(bigH * 4));
  std::fflush(stdout);
  EXAMPLE_RETURN_IF_ERROR(session.CreateDeviceZeros(gradOutShape, ACL_FORMAT_NCHW, &gradOut));
  EXAMPLE_RETURN_IF_ERROR(session.CreateZeros(gradInShape, ACL_FORMAT_NCHW, &gradIn));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(outputSizeData, &outputSize));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(inputSizeData, &inputSize));

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  std::printf("[repro] calling GetWorkspaceSize...\n");
  std::fflush(stdout);
  EXAMPLE_CHECK(aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(gradOut, outputSize, inputSize,
                                                               alignCorners, scalesH, scalesW,
                                                               gradIn, &workspaceSize, &executor),
                "aclnnUpsampleBicubic2dBackwardGetWorkspaceSize");
  std::printf("[repro] workspaceSize=%lu\n", static_cast<unsigned long>(workspaceSize));
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));

  std::printf("[repro] launching kernel...\n");
  std::fflush(stdout);
  const auto t0 = std::chrono::steady_clock::now();
  EXAMPLE_CHECK(
      aclnnUpsampleBicubic2dBackward(workspace, workspaceSize, executor, session.Stream()),
      "aclnnUpsampleBicubic2dBackward");
  std::printf("[repro] synchronizing stream...\n");
  std::fflush(stdout);
  const aclError syncRet = aclrtSynchronizeStream(session.Stream());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[repro] sync returned ret=%d after %.3f s\n", syncRet, seconds);
  std::fflush(stdout);
  EXAMPLE_CHECK(syncRet, "aclrtSynchronizeStream");
  std::printf("[repro] completed without timeout.\n");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(gradIn));
  return session.Close();
}
