// aclnnUpsampleNearest1dV2: self [1,3,3] = 0..8 (NCL), outputSize {6}, scaleL 0 (not given, the
// ratio comes from the sizes: 1/2) -> out [1,3,6] (NCL). The host result buffer holds all 18
// elements (CANN's sample read back only 6 floats).
// Expected: 0,0,1,1,2,2, 3,3,4,4,5,5, 6,6,7,7,8,8.
#include <cstdint>
#include <numeric>
#include <vector>

#include "aclnnop/aclnn_upsample_nearest_1d_v2.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const std::vector<int64_t> selfShape = {1, 3, 3};
  const std::vector<int64_t> outShape = {1, 3, 6};
  std::vector<float> selfHost(9);
  std::iota(selfHost.begin(), selfHost.end(), 0.0f);
  const std::vector<int64_t> outputSizeData = {6};
  const float scaleL = 0.0f;

  aclTensor* self = nullptr;
  aclTensor* out = nullptr;
  aclIntArray* outputSize = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.CreateTensor(selfHost, selfShape, ACL_FORMAT_NCL, &self));
  EXAMPLE_RETURN_IF_ERROR(session.CreateZeros(outShape, ACL_FORMAT_NCL, &out));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(outputSizeData, &outputSize));

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  EXAMPLE_CHECK(aclnnUpsampleNearest1dV2GetWorkspaceSize(self, outputSize, scaleL, out,
                                                         &workspaceSize, &executor),
                "aclnnUpsampleNearest1dV2GetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(aclnnUpsampleNearest1dV2(workspace, workspaceSize, executor, session.Stream()),
                "aclnnUpsampleNearest1dV2");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(out));
  return session.Close();
}
