// aclnnUpsampleNearestExact1d: self [1,3,3] = 0..8 (NCL), outputSize {5}, scales 0 (not given)
// -> out [1,3,5] (NCL). The host result buffer holds all 15 elements (CANN's sample read back
// only 5 floats). Nearest-exact, r = 3/5: floor((i + 0.5) * 3/5) = 0, 0, 1, 2, 2.
// Expected: 0,0,1,2,2, 3,3,4,5,5, 6,6,7,8,8.
#include <cstdint>
#include <numeric>
#include <vector>

#include "aclnnop/aclnn_upsample_nearest_exact1d.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const std::vector<int64_t> selfShape = {1, 3, 3};
  const std::vector<int64_t> outShape = {1, 3, 5};
  std::vector<float> selfHost(9);
  std::iota(selfHost.begin(), selfHost.end(), 0.0f);
  const std::vector<int64_t> outputSizeData = {5};
  const double scales = 0.0;

  aclTensor* self = nullptr;
  aclTensor* out = nullptr;
  aclIntArray* outputSize = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.CreateTensor(selfHost, selfShape, ACL_FORMAT_NCL, &self));
  EXAMPLE_RETURN_IF_ERROR(session.CreateZeros(outShape, ACL_FORMAT_NCL, &out));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(outputSizeData, &outputSize));

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  EXAMPLE_CHECK(aclnnUpsampleNearestExact1dGetWorkspaceSize(self, outputSize, scales, out,
                                                            &workspaceSize, &executor),
                "aclnnUpsampleNearestExact1dGetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(aclnnUpsampleNearestExact1d(workspace, workspaceSize, executor, session.Stream()),
                "aclnnUpsampleNearestExact1d");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(out));
  return session.Close();
}
