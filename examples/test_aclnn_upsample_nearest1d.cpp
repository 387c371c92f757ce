// aclnnUpsampleNearest1d: self [1,3,3] = 0..8 (NCL), outputSize {5} -> out [1,3,5] (NCL).
// Legacy nearest, r = 3/5: source index floor(i * 3/5) = 0, 0, 1, 1, 2 in every row.
// Expected: 0,0,1,1,2, 3,3,4,4,5, 6,6,7,7,8.
#include <cstdint>
#include <numeric>
#include <vector>

#include "aclnnop/aclnn_upsample_nearest_1d.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const std::vector<int64_t> selfShape = {1, 3, 3};
  const std::vector<int64_t> outShape = {1, 3, 5};
  std::vector<float> selfHost(9);
  std::iota(selfHost.begin(), selfHost.end(), 0.0f);
  const std::vector<int64_t> outputSizeData = {5};

  aclTensor* self = nullptr;
  aclTensor* out = nullptr;
  aclIntArray* outputSize = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.CreateTensor(selfHost, selfShape, ACL_FORMAT_NCL, &self));
  EXAMPLE_RETURN_IF_ERROR(session.CreateZeros(outShape, ACL_FORMAT_NCL, &out));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(outputSizeData, &outputSize));

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  EXAMPLE_CHECK(
      aclnnUpsampleNearest1dGetWorkspaceSize(self, outputSize, out, &workspaceSize, &executor),
      "aclnnUpsampleNearest1dGetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(aclnnUpsampleNearest1d(workspace, workspaceSize, executor, session.Stream()),
                "aclnnUpsampleNearest1d");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(out));
  return session.Close();
}
