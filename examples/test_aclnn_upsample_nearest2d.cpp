// aclnnUpsampleNearest2d: self [1,1,4,2] = 0..7 (NCHW), outputSize {8,4} -> out [1,1,8,4] (NCHW).
// Legacy nearest, r = 1/2 on both axes: every input row and column appears twice.
// Expected rows (each twice): 0,0,1,1 / 2,2,3,3 / 4,4,5,5 / 6,6,7,7.
#include <cstdint>
#include <numeric>
#include <vector>

#include "aclnnop/aclnn_upsample_nearest_2d.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const std::vector<int64_t> selfShape = {1, 1, 4, 2};
  const std::vector<int64_t> outShape = {1, 1, 8, 4};
  std::vector<float> selfHost(8);
  std::iota(selfHost.begin(), selfHost.end(), 0.0f);
  const std::vector<int64_t> outputSizeData = {8, 4};

  aclTensor* self = nullptr;
  aclTensor* out = nullptr;
  aclIntArray* outputSize = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.CreateTensor(selfHost, selfShape, ACL_FORMAT_NCHW, &self));
  EXAMPLE_RETURN_IF_ERROR(session.CreateZeros(outShape, ACL_FORMAT_NCHW, &out));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(outputSizeData, &outputSize));

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  EXAMPLE_CHECK(
      aclnnUpsampleNearest2dGetWorkspaceSize(self, outputSize, out, &workspaceSize, &executor),
      "aclnnUpsampleNearest2dGetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(aclnnUpsampleNearest2d(workspace, workspaceSize, executor, session.Stream()),
                "aclnnUpsampleNearest2d");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(out));
  return session.Close();
}
