// aclnnUpsampleNearest2dV2: self [1,1,4,2] = 0..7 (NCHW), outputSize {8,4}, scalesH = scalesW = 0
// (not given) -> out [1,1,8,4] (NCHW). Same result as aclnnUpsampleNearest2d:
// rows (each twice) 0,0,1,1 / 2,2,3,3 / 4,4,5,5 / 6,6,7,7.
#include <cstdint>
#include <numeric>
#include <vector>

#include "aclnnop/aclnn_upsample_nearest_2d_v2.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const std::vector<int64_t> selfShape = {1, 1, 4, 2};
  const std::vector<int64_t> outShape = {1, 1, 8, 4};
  std::vector<float> selfHost(8);
  std::iota(selfHost.begin(), selfHost.end(), 0.0f);
  const std::vector<int64_t> outputSizeData = {8, 4};
  const float scalesH = 0.0f;
  const float scalesW = 0.0f;

  aclTensor* self = nullptr;
  aclTensor* out = nullptr;
  aclIntArray* outputSize = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.CreateTensor(selfHost, selfShape, ACL_FORMAT_NCHW, &self));
  EXAMPLE_RETURN_IF_ERROR(session.CreateZeros(outShape, ACL_FORMAT_NCHW, &out));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(outputSizeData, &outputSize));

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  EXAMPLE_CHECK(aclnnUpsampleNearest2dV2GetWorkspaceSize(self, outputSize, scalesH, scalesW, out,
                                                         &workspaceSize, &executor),
                "aclnnUpsampleNearest2dV2GetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(aclnnUpsampleNearest2dV2(workspace, workspaceSize, executor, session.Stream()),
                "aclnnUpsampleNearest2dV2");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(out));
  return session.Close();
}
