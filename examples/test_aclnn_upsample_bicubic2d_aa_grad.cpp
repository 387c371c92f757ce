// aclnnUpsampleBicubic2dAAGrad: gradOutput [1,1,4,2] = 0..7 (NCHW), outputSize {4,2},
// inputSize {1,1,8,4}, alignCorners true, scalesH = scalesW = 2 -> out [1,1,8,4] (NCHW).
// The forward was an anti-aliased 8x4 -> 4x2 downscale with r = 7/3 and 3 (align corners; the
// scales are not used), AA cubic a = -0.5 with support 2r.
// Expected values: PyTorch's _upsample_bicubic2d_aa_backward.
#include <cstdint>
#include <numeric>
#include <vector>

#include "aclnnop/aclnn_upsample_bicubic2d_aa_grad.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const std::vector<int64_t> gradOutputShape = {1, 1, 4, 2};
  const std::vector<int64_t> outShape = {1, 1, 8, 4};
  std::vector<float> gradOutputHost(8);
  std::iota(gradOutputHost.begin(), gradOutputHost.end(), 0.0f);
  const std::vector<int64_t> outputSizeData = {4, 2};
  const std::vector<int64_t> inputSizeData = {1, 1, 8, 4};
  const bool alignCorners = true;
  const double scalesH = 2.0;
  const double scalesW = 2.0;

  aclTensor* gradOutput = nullptr;
  aclTensor* out = nullptr;
  aclIntArray* outputSize = nullptr;
  aclIntArray* inputSize = nullptr;
  EXAMPLE_RETURN_IF_ERROR(
      session.CreateTensor(gradOutputHost, gradOutputShape, ACL_FORMAT_NCHW, &gradOutput));
  EXAMPLE_RETURN_IF_ERROR(session.CreateZeros(outShape, ACL_FORMAT_NCHW, &out));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(outputSizeData, &outputSize));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(inputSizeData, &inputSize));

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  EXAMPLE_CHECK(aclnnUpsampleBicubic2dAAGradGetWorkspaceSize(gradOutput, outputSize, inputSize,
                                                             alignCorners, scalesH, scalesW, out,
                                                             &workspaceSize, &executor),
                "aclnnUpsampleBicubic2dAAGradGetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(aclnnUpsampleBicubic2dAAGrad(workspace, workspaceSize, executor, session.Stream()),
                "aclnnUpsampleBicubic2dAAGrad");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(out));
  return session.Close();
}
