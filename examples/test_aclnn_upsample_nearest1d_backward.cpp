// aclnnUpsampleNearest1dBackward: gradOut [1,1,2] = {1, 4.1} (NCL), outputSize {2},
// inputSize {1,1,3}, scales 1.1 -> gradInput [1,1,3] (NCL). The given scale sets the ratio
// r = 1/1.1 (PyTorch semantics, although floor(3 * 1.1) = 3 != 2): both outputs read source 0.
// Expected: 5.1, 0, 0.
#include <cstdint>
#include <vector>

#include "aclnnop/aclnn_upsample_nearest_1d_backward.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const std::vector<int64_t> gradOutShape = {1, 1, 2};
  const std::vector<int64_t> gradInShape = {1, 1, 3};
  const std::vector<float> gradOutHost = {1.0f, 4.1f};
  const std::vector<int64_t> outputSizeData = {2};
  const std::vector<int64_t> inputSizeData = {1, 1, 3};
  const double scales = 1.1;

  aclTensor* gradOut = nullptr;
  aclTensor* gradIn = nullptr;
  aclIntArray* outputSize = nullptr;
  aclIntArray* inputSize = nullptr;
  EXAMPLE_RETURN_IF_ERROR(
      session.CreateTensor(gradOutHost, gradOutShape, ACL_FORMAT_NCL, &gradOut));
  EXAMPLE_RETURN_IF_ERROR(session.CreateZeros(gradInShape, ACL_FORMAT_NCL, &gradIn));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(outputSizeData, &outputSize));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(inputSizeData, &inputSize));

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  EXAMPLE_CHECK(aclnnUpsampleNearest1dBackwardGetWorkspaceSize(
                    gradOut, outputSize, inputSize, scales, gradIn, &workspaceSize, &executor),
                "aclnnUpsampleNearest1dBackwardGetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(
      aclnnUpsampleNearest1dBackward(workspace, workspaceSize, executor, session.Stream()),
      "aclnnUpsampleNearest1dBackward");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(gradIn));
  return session.Close();
}
