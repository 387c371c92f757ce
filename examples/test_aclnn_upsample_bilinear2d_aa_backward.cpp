// aclnnUpsampleBilinear2dAABackward: gradOutput [1,1,4,2] = 0..7 (NCHW), outputSize {4,2},
// inputSize {1,1,8,4}, alignCorners true, scalesH = scalesW = 0.5 -> out [1,1,8,4] (NCHW).
// The forward was an anti-aliased 8x4 -> 4x2 downscale with r = 7/3 and 3 (align corners), so
// each gradient spreads over a triangle window of support r. Expected values: PyTorch's
// _upsample_bilinear2d_aa_backward.
#include <cstdint>
#include <numeric>
#include <vector>

#include "aclnnop/aclnn_upsample_bilinear2d_aa_backward.h"
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
  const double scalesH = 0.5;
  const double scalesW = 0.5;

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
  EXAMPLE_CHECK(aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize(gradOutput, outputSize, inputSize,
                                                                  alignCorners, scalesH, scalesW,
                                                                  out, &workspaceSize, &executor),
                "aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(
      aclnnUpsampleBilinear2dAABackward(workspace, workspaceSize, executor, session.Stream()),
      "aclnnUpsampleBilinear2dAABackward");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(out));
  return session.Close();
}
