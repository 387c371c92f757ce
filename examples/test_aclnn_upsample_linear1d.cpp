// aclnnUpsampleLinear1d: self [1,1,2] = {1,1} -> out [1,1,3] (ND), alignCorners false, scale -1
// (a negative scale means "no scale": the ratio comes from the sizes). Expected: 1, 1, 1.
#include <cstdint>
#include <vector>

#include "aclnnop/aclnn_upsample_linear_1d.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const std::vector<int64_t> selfShape = {1, 1, 2};
  const std::vector<int64_t> outShape = {1, 1, 3};
  const std::vector<float> selfHost = {1, 1};
  const std::vector<int64_t> outputSizeData = {3};
  const bool alignCorners = false;
  const double scales = -1.0;

  aclTensor* self = nullptr;
  aclTensor* out = nullptr;
  aclIntArray* outputSize = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.CreateTensor(selfHost, selfShape, ACL_FORMAT_ND, &self));
  EXAMPLE_RETURN_IF_ERROR(session.CreateZeros(outShape, ACL_FORMAT_ND, &out));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(outputSizeData, &outputSize));

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  EXAMPLE_CHECK(aclnnUpsampleLinear1dGetWorkspaceSize(self, outputSize, alignCorners, scales, out,
                                                      &workspaceSize, &executor),
                "aclnnUpsampleLinear1dGetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(aclnnUpsampleLinear1d(workspace, workspaceSize, executor, session.Stream()),
                "aclnnUpsampleLinear1d");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(out));
  return session.Close();
}
