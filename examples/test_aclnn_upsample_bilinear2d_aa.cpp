// aclnnUpsampleBilinear2dAA: input [1,1,4,2] = 0..7 (NCHW), outputSize {8,4}, alignCorners true,
// scalesH = scalesW = 2 -> out [1,1,8,4] (NCHW). With align corners the ratio is (in-1)/(out-1)
// (3/7, 1/3; the scales are not used) and the AA centre is r * (i + 0.5). When upsampling the
// triangle filter has support 1. Expected values: PyTorch's _upsample_bilinear2d_aa.
#include <cstdint>
#include <numeric>
#include <vector>

#include "aclnnop/aclnn_upsample_bilinear2d_aa.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const std::vector<int64_t> inputShape = {1, 1, 4, 2};
  const std::vector<int64_t> outShape = {1, 1, 8, 4};
  std::vector<float> inputHost(8);
  std::iota(inputHost.begin(), inputHost.end(), 0.0f);
  const std::vector<int64_t> outputSizeData = {8, 4};
  const bool alignCorners = true;
  const double scalesH = 2.0;
  const double scalesW = 2.0;

  aclTensor* input = nullptr;
  aclTensor* out = nullptr;
  aclIntArray* outputSize = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.CreateTensor(inputHost, inputShape, ACL_FORMAT_NCHW, &input));
  EXAMPLE_RETURN_IF_ERROR(session.CreateZeros(outShape, ACL_FORMAT_NCHW, &out));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(outputSizeData, &outputSize));

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  EXAMPLE_CHECK(aclnnUpsampleBilinear2dAAGetWorkspaceSize(input, outputSize, alignCorners, scalesH,
                                                          scalesW, out, &workspaceSize, &executor),
                "aclnnUpsampleBilinear2dAAGetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(aclnnUpsampleBilinear2dAA(workspace, workspaceSize, executor, session.Stream()),
                "aclnnUpsampleBilinear2dAA");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(out));
  return session.Close();
}
