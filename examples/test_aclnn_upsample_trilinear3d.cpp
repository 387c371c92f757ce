// aclnnUpsampleTrilinear3d: self [1,1,2,2,2] = 1..8 (NCDHW, value 1 + 4d + 2h + w),
// outputSize {4,4,4}, alignCorners false, scalesD = scalesH = scalesW = 0 (use the sizes)
// -> out [1,1,4,4,4] (NCDHW). Half-pixel source coordinates per axis are 0, 0.25, 0.75, 1.25
// (the last clamps to 1), so out[a][b][c] = 1 + 4a + 2b + c over a, b, c in {0, .25, .75, 1}.
#include <cstdint>
#include <numeric>
#include <vector>

#include "aclnnop/aclnn_upsample_trilinear_3d.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const std::vector<int64_t> selfShape = {1, 1, 2, 2, 2};
  const std::vector<int64_t> outShape = {1, 1, 4, 4, 4};
  std::vector<float> selfHost(8);
  std::iota(selfHost.begin(), selfHost.end(), 1.0f);
  const std::vector<int64_t> outputSizeData = {4, 4, 4};
  const bool alignCorners = false;
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
  EXAMPLE_CHECK(
      aclnnUpsampleTrilinear3dGetWorkspaceSize(self, outputSize, alignCorners, scalesD, scalesH,
                                               scalesW, out, &workspaceSize, &executor),
      "aclnnUpsampleTrilinear3dGetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(aclnnUpsampleTrilinear3d(workspace, workspaceSize, executor, session.Stream()),
                "aclnnUpsampleTrilinear3d");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(out));
  return session.Close();
}
