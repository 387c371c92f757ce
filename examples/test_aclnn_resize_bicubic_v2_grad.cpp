// aclnnUpsampleBicubic2dBackward (resize_bicubic_v2_grad sample): gradOut [1,1,2,2] =
// {1, 2, 3, 4.1} (NCHW), outputSize {2,2}, inputSize {1,1,3,3}, alignCorners true,
// scalesH = scalesW = 1.1 -> gradInput [1,1,3,3] (NCHW). Align corners: r = (3-1)/(2-1) = 2
// (the scales are not used), so the gradients land exactly on the corners (0,0), (0,2), (2,0),
// (2,2).
// Expected (PyTorch's upsample_bicubic2d_backward): 1, 0, 2, 0, 0, 0, 3, 0, 4.1.
#include <cstdint>
#include <vector>

#include "aclnnop/aclnn_upsample_bicubic_2d_backward.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const std::vector<int64_t> gradOutShape = {1, 1, 2, 2};
  const std::vector<int64_t> gradInShape = {1, 1, 3, 3};
  const std::vector<float> gradOutHost = {1.0f, 2.0f, 3.0f, 4.1f};
  const std::vector<int64_t> outputSizeData = {2, 2};
  const std::vector<int64_t> inputSizeData = {1, 1, 3, 3};
  const bool alignCorners = true;
  const double scalesH = 1.1;
  const double scalesW = 1.1;

  aclTensor* gradOut = nullptr;
  aclTensor* gradIn = nullptr;
  aclIntArray* outputSize = nullptr;
  aclIntArray* inputSize = nullptr;
  EXAMPLE_RETURN_IF_ERROR(
      session.CreateTensor(gradOutHost, gradOutShape, ACL_FORMAT_NCHW, &gradOut));
  EXAMPLE_RETURN_IF_ERROR(session.CreateZeros(gradInShape, ACL_FORMAT_NCHW, &gradIn));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(outputSizeData, &outputSize));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(inputSizeData, &inputSize));

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  EXAMPLE_CHECK(aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(gradOut, outputSize, inputSize,
                                                               alignCorners, scalesH, scalesW,
                                                               gradIn, &workspaceSize, &executor),
                "aclnnUpsampleBicubic2dBackwardGetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(
      aclnnUpsampleBicubic2dBackward(workspace, workspaceSize, executor, session.Stream()),
      "aclnnUpsampleBicubic2dBackward");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(gradIn));
  return session.Close();
}
