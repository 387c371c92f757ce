// aclnnUpsampleLinear1dBackward: gradOut [1,1,3] = {1,2,3}, outputSize {3}, inputSize {1,1,6},
// alignCorners true, scales 1.1 -> gradInput [1,1,6] (ND). With align corners the ratio is
// (6-1)/(3-1) = 2.5, so the gradients land on x = 0, 2.5, 5. Expected: 1, 0, 1, 1, 0, 3.
#include <cstdint>
#include <vector>

#include "aclnnop/aclnn_upsample_linear_1d_backward.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const std::vector<int64_t> gradOutShape = {1, 1, 3};
  const std::vector<int64_t> gradInShape = {1, 1, 6};
  const std::vector<float> gradOutHost = {1, 2, 3};
  const std::vector<int64_t> outputSizeData = {3};
  const std::vector<int64_t> inputSizeData = {1, 1, 6};
  const bool alignCorners = true;
  const double scales = 1.1;

  aclTensor* gradOut = nullptr;
  aclTensor* gradIn = nullptr;
  aclIntArray* outputSize = nullptr;
  aclIntArray* inputSize = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.CreateTensor(gradOutHost, gradOutShape, ACL_FORMAT_ND, &gradOut));
  EXAMPLE_RETURN_IF_ERROR(session.CreateZeros(gradInShape, ACL_FORMAT_ND, &gradIn));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(outputSizeData, &outputSize));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(inputSizeData, &inputSize));

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  EXAMPLE_CHECK(
      aclnnUpsampleLinear1dBackwardGetWorkspaceSize(gradOut, outputSize, inputSize, alignCorners,
                                                    scales, gradIn, &workspaceSize, &executor),
      "aclnnUpsampleLinear1dBackwardGetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(aclnnUpsampleLinear1dBackward(workspace, workspaceSize, executor, session.Stream()),
                "aclnnUpsampleLinear1dBackward");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(gradIn));
  return session.Close();
}
