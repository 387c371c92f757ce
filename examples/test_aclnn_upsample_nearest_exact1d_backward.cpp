// aclnnUpsampleNearestExact1dBackward: gradOutput [1,1,2] = {1, 2} (NCL), outputSize {2},
// inputSize {1,1,4}, scales 0.5 -> out [1,1,4] (NCL). r = 1/0.5 = 2, so outputs 0 and 1 read the
// sources floor((i + 0.5) * 2) = 1 and 3. Expected: 0, 1, 0, 2.
#include <cstdint>
#include <vector>

#include "aclnnop/aclnn_upsample_nearest_exact1d_backward.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const std::vector<int64_t> gradOutputShape = {1, 1, 2};
  const std::vector<int64_t> outShape = {1, 1, 4};
  const std::vector<float> gradOutputHost = {1.0f, 2.0f};
  const std::vector<int64_t> outputSizeData = {2};
  const std::vector<int64_t> inputSizeData = {1, 1, 4};
  const double scales = 0.5;

  aclTensor* gradOutput = nullptr;
  aclTensor* out = nullptr;
  aclIntArray* outputSize = nullptr;
  aclIntArray* inputSize = nullptr;
  EXAMPLE_RETURN_IF_ERROR(
      session.CreateTensor(gradOutputHost, gradOutputShape, ACL_FORMAT_NCL, &gradOutput));
  EXAMPLE_RETURN_IF_ERROR(session.CreateZeros(outShape, ACL_FORMAT_NCL, &out));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(outputSizeData, &outputSize));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(inputSizeData, &inputSize));

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  EXAMPLE_CHECK(aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(
                    gradOutput, outputSize, inputSize, scales, out, &workspaceSize, &executor),
                "aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(
      aclnnUpsampleNearestExact1dBackward(workspace, workspaceSize, executor, session.Stream()),
      "aclnnUpsampleNearestExact1dBackward");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(out));
  return session.Close();
}
