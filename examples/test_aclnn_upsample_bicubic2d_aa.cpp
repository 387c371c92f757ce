// aclnnUpsampleBicubic2dAA: x [1,1,3,3] = 1..9 (ND), outputSize {5,5}, alignCorners false,
// scalesH = scalesW = 0 -> out [1,1,5,5] (ND). Upsampling r = 3/5 < 1: support 2, AA cubic
// a = -0.5 centred on r * (i + 0.5), weights normalised over the taps inside the image.
// The host result buffer holds all 25 elements (CANN's sample had 2).
// Expected values: PyTorch's _upsample_bicubic2d_aa.
#include <cstdint>
#include <numeric>
#include <vector>

#include "aclnnop/aclnn_upsample_bicubic2d_aa.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const std::vector<int64_t> xShape = {1, 1, 3, 3};
  const std::vector<int64_t> outShape = {1, 1, 5, 5};
  std::vector<float> xHost(9);
  std::iota(xHost.begin(), xHost.end(), 1.0f);
  const std::vector<int64_t> outputSizeData = {5, 5};
  const bool alignCorners = false;
  const double scalesH = 0.0;
  const double scalesW = 0.0;

  aclTensor* x = nullptr;
  aclTensor* out = nullptr;
  aclIntArray* outputSize = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.CreateTensor(xHost, xShape, ACL_FORMAT_ND, &x));
  EXAMPLE_RETURN_IF_ERROR(session.CreateZeros(outShape, ACL_FORMAT_ND, &out));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(outputSizeData, &outputSize));

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  EXAMPLE_CHECK(aclnnUpsampleBicubic2dAAGetWorkspaceSize(x, outputSize, alignCorners, scalesH,
                                                         scalesW, out, &workspaceSize, &executor),
                "aclnnUpsampleBicubic2dAAGetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(aclnnUpsampleBicubic2dAA(workspace, workspaceSize, executor, session.Stream()),
                "aclnnUpsampleBicubic2dAA");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(out));
  return session.Close();
}
