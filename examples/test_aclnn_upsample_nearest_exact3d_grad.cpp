// aclnnUpsampleNearestExact3dBackward: gradOut [2,2,2,2,2] = 1..32 (NCDHW), outputSize {2,2,2},
// inputSize {2,2,1,1,1}, scales 0 -> gradInput [2,2,1,1,1] (NCDHW). Each (n, c) block of 8 is
// summed. Expected: 36, 100, 164, 228.
#include <cstdint>
#include <numeric>
#include <vector>

#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const std::vector<int64_t> gradOutShape = {2, 2, 2, 2, 2};
  const std::vector<int64_t> gradInShape = {2, 2, 1, 1, 1};
  std::vector<float> gradOutHost(32);
  std::iota(gradOutHost.begin(), gradOutHost.end(), 1.0f);
  const std::vector<int64_t> outputSizeData = {2, 2, 2};
  const std::vector<int64_t> inputSizeData = {2, 2, 1, 1, 1};
  const double scalesD = 0.0;
  const double scalesH = 0.0;
  const double scalesW = 0.0;

  aclTensor* gradOut = nullptr;
  aclTensor* gradIn = nullptr;
  aclIntArray* outputSize = nullptr;
  aclIntArray* inputSize = nullptr;
  EXAMPLE_RETURN_IF_ERROR(
      session.CreateTensor(gradOutHost, gradOutShape, ACL_FORMAT_NCDHW, &gradOut));
  EXAMPLE_RETURN_IF_ERROR(session.CreateZeros(gradInShape, ACL_FORMAT_NCDHW, &gradIn));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(outputSizeData, &outputSize));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(inputSizeData, &inputSize));

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  EXAMPLE_CHECK(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
                    gradOut, outputSize, inputSize, scalesD, scalesH, scalesW, gradIn,
                    &workspaceSize, &executor),
                "aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(
      aclnnUpsampleNearestExact3dBackward(workspace, workspaceSize, executor, session.Stream()),
      "aclnnUpsampleNearestExact3dBackward");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(gradIn));
  return session.Close();
}
