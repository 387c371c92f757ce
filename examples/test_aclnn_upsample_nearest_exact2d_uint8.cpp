// aclnnUpsampleNearestExact2d on UINT8: self [1,1,4,2] = 0..7 (NCHW), outputSize {8,4}, scales 0
// -> out [1,1,8,4] UINT8 (NCHW), printed with %u.
// Expected rows (each twice): 0,0,1,1 / 2,2,3,3 / 4,4,5,5 / 6,6,7,7.
#include <cstdint>
#include <numeric>
#include <vector>

#include "aclnnop/aclnn_upsample_nearest_exact2d.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const std::vector<int64_t> selfShape = {1, 1, 4, 2};
  const std::vector<int64_t> outShape = {1, 1, 8, 4};
  std::vector<uint8_t> selfHost(8);
  std::iota(selfHost.begin(), selfHost.end(), uint8_t{0});
  const std::vector<uint8_t> outHost(32, 0);
  const std::vector<int64_t> outputSizeData = {8, 4};
  const double scalesH = 0.0;
  const double scalesW = 0.0;

  aclTensor* self = nullptr;
  aclTensor* out = nullptr;
  aclIntArray* outputSize = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.CreateTensorU8(selfHost, selfShape, ACL_FORMAT_NCHW, &self));
  EXAMPLE_RETURN_IF_ERROR(session.CreateTensorU8(outHost, outShape, ACL_FORMAT_NCHW, &out));
  EXAMPLE_RETURN_IF_ERROR(session.CreateIntArray(outputSizeData, &outputSize));

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  EXAMPLE_CHECK(aclnnUpsampleNearestExact2dGetWorkspaceSize(self, outputSize, scalesH, scalesW, out,
                                                            &workspaceSize, &executor),
                "aclnnUpsampleNearestExact2dGetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(aclnnUpsampleNearestExact2d(workspace, workspaceSize, executor, session.Stream()),
                "aclnnUpsampleNearestExact2d");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(out));
  return session.Close();
}
