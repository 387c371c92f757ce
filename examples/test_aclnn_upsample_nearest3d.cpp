// aclnnUpsampleNearest3d: self [2,2,2,2,3] = 1..48 (NCDHW), outputSize {1,1,1}, scales 0 (not
// given) -> out [2,2,1,1,1] (NCDHW). Legacy nearest picks source (0,0,0) of each of the four
// (n, c) blocks of 12 values. Expected: 1, 13, 25, 37.
#include <cstdint>
#include <numeric>
#include <vector>

#include "aclnnop/aclnn_upsample_nearest_3d.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const std::vector<int64_t> selfShape = {2, 2, 2, 2, 3};
  const std::vector<int64_t> outShape = {2, 2, 1, 1, 1};
  std::vector<float> selfHost(48);
  std::iota(selfHost.begin(), selfHost.end(), 1.0f);
  const std::vector<int64_t> outputSizeData = {1, 1, 1};
  const double scalesD = 0.0;
  const double scalesH = 0.0;
  const double scalesW = 0.0;

  aclTensor* self = nullptr;
  aclTensor* out = nullptr;
  aclIntArray* outputSize = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.CreateTensor(selfHost, selfShape, ACL_FORMAT_NCDHW, &self));
  EXAMPLE_RETURN_IF_ERROR(session.CreateZeros(outShape, ACL_FORMAT_NCDHW, &out));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(outputSizeData, &outputSize));

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  EXAMPLE_CHECK(aclnnUpsampleNearest3dGetWorkspaceSize(self, outputSize, scalesD, scalesH, scalesW,
                                                       out, &workspaceSize, &executor),
                "aclnnUpsampleNearest3dGetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(aclnnUpsampleNearest3d(workspace, workspaceSize, executor, session.Stream()),
                "aclnnUpsampleNearest3d");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(out));
  return session.Close();
}
