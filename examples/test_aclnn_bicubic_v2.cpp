// aclnnUpsampleBicubic2d (resize_bicubic_v2 sample): self [1,1,3,3] = 1..9 (ND),
// outputSize {5,5}, alignCorners false, scalesH = scalesW = 0 -> out [1,1,5,5] (ND). Half-pixel
// source x = (i + 0.5) * 3/5 - 0.5 (not clamped), 4 taps clamped into the image, cubic
// a = -0.75. The host result buffer holds all 25 elements (CANN's sample had 2).
// Expected values: PyTorch's upsample_bicubic2d.
#include <cstdint>
#include <numeric>
#include <vector>

#include "aclnnop/aclnn_upsample_bicubic_2d.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const std::vector<int64_t> selfShape = {1, 1, 3, 3};
  const std::vector<int64_t> outShape = {1, 1, 5, 5};
  std::vector<float> selfHost(9);
  std::iota(selfHost.begin(), selfHost.end(), 1.0f);
  const std::vector<int64_t> outputSizeData = {5, 5};
  const bool alignCorners = false;
  const double scalesH = 0.0;
  const double scalesW = 0.0;

  aclTensor* self = nullptr;
  aclTensor* out = nullptr;
  aclIntArray* outputSize = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.CreateTensor(selfHost, selfShape, ACL_FORMAT_ND, &self));
  EXAMPLE_RETURN_IF_ERROR(session.CreateZeros(outShape, ACL_FORMAT_ND, &out));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(outputSizeData, &outputSize));

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  EXAMPLE_CHECK(aclnnUpsampleBicubic2dGetWorkspaceSize(self, outputSize, alignCorners, scalesH,
                                                       scalesW, out, &workspaceSize, &executor),
                "aclnnUpsampleBicubic2dGetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(aclnnUpsampleBicubic2d(workspace, workspaceSize, executor, session.Stream()),
                "aclnnUpsampleBicubic2d");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(out));
  return session.Close();
}
