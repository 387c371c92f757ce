// aclnnUpsampleNearestExact2dBackward: gradOutput [1,1,4,2] = 0..7 (NCHW), outputSize {4,2},
// inputSize {1,1,8,4}, scalesH = scalesW = 0.5 -> out [1,1,8,4] (NCHW). r = 2 per axis, so
// gradOutput (h, w) lands on (2h + 1, 2w + 1). Expected: rows 0, 2, 4, 6 zero; row 1 = 0,0,0,1,
// row 3 = 0,2,0,3, row 5 = 0,4,0,5, row 7 = 0,6,0,7.
#include <cstdint>
#include <numeric>
#include <vector>

#include "aclnnop/aclnn_upsample_nearest_exact2d_backward.h"
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
  EXAMPLE_CHECK(
      aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(
          gradOutput, outputSize, inputSize, scalesH, scalesW, out, &workspaceSize, &executor),
      "aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(
      aclnnUpsampleNearestExact2dBackward(workspace, workspaceSize, executor, session.Stream()),
      "aclnnUpsampleNearestExact2dBackward");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(out));
  return session.Close();
}
