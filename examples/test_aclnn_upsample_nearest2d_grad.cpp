// aclnnUpsampleNearest2dBackward: gradOut [2,2,3,3] = 1..36 (NCHW), outputSize {3,3},
// inputSize {2,2,1,1}, scalesH = scalesW = 0 -> gradInput [2,2,1,1] (NCHW). Every output pixel
// reads the single input pixel, so each (n, c) block of 9 is summed. Expected: 45, 126, 207, 288.
#include <cstdint>
#include <numeric>
#include <vector>

#include "aclnnop/aclnn_upsample_nearest_2d_backward.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const std::vector<int64_t> gradOutShape = {2, 2, 3, 3};
  const std::vector<int64_t> gradInShape = {2, 2, 1, 1};
  std::vector<float> gradOutHost(36);
  std::iota(gradOutHost.begin(), gradOutHost.end(), 1.0f);
  const std::vector<int64_t> outputSizeData = {3, 3};
  const std::vector<int64_t> inputSizeData = {2, 2, 1, 1};
  const double scalesH = 0.0;
  const double scalesW = 0.0;

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
  EXAMPLE_CHECK(
      aclnnUpsampleNearest2dBackwardGetWorkspaceSize(gradOut, outputSize, inputSize, scalesH,
                                                     scalesW, gradIn, &workspaceSize, &executor),
      "aclnnUpsampleNearest2dBackwardGetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(
      aclnnUpsampleNearest2dBackward(workspace, workspaceSize, executor, session.Stream()),
      "aclnnUpsampleNearest2dBackward");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(gradIn));
  return session.Close();
}
