// aclnnUpsampleBilinear2dBackwardV2: gradOut [1,1,6,6] = 1 (NCHW), outputSize {6,6},
// inputSize {1,1,3,3}, alignCorners true, scalesH = scalesW = 2 -> gradInput [1,1,3,3] (NCHW).
// Per axis the ones spread as 1.8, 2.4, 1.8, so the result is their outer product:
// 3.24, 4.32, 3.24, 4.32, 5.76, 4.32, 3.24, 4.32, 3.24.
#include <cstdint>
#include <vector>

#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const std::vector<int64_t> gradOutShape = {1, 1, 6, 6};
  const std::vector<int64_t> gradInShape = {1, 1, 3, 3};
  const std::vector<float> gradOutHost(36, 1.0f);
  const std::vector<int64_t> outputSizeData = {6, 6};
  const std::vector<int64_t> inputSizeData = {1, 1, 3, 3};
  const bool alignCorners = true;
  const double scalesH = 2.0;
  const double scalesW = 2.0;

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
  EXAMPLE_CHECK(aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(
                    gradOut, outputSize, inputSize, alignCorners, scalesH, scalesW, gradIn,
                    &workspaceSize, &executor),
                "aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(
      aclnnUpsampleBilinear2dBackwardV2(workspace, workspaceSize, executor, session.Stream()),
      "aclnnUpsampleBilinear2dBackwardV2");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(gradIn));
  return session.Close();
}
