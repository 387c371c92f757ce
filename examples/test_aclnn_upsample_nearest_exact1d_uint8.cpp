// aclnnUpsampleNearestExact1d on UINT8: self [1,3,3] = 0..8 (NCL), outputSize {5}, scales 0
// -> out [1,3,5] UINT8 (NCL), printed with %u. Nearest-exact copies elements, so the values are
// those of the float32 sample: 0,0,1,2,2, 3,3,4,5,5, 6,6,7,8,8.
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
  std::vector<uint8_t> selfHost(9);
  std::iota(selfHost.begin(), selfHost.end(), uint8_t{0});
  const std::vector<uint8_t> outHost(15, 0);
  const std::vector<int64_t> outputSizeData = {5};
  const double scales = 0.0;

  aclTensor* self = nullptr;
  aclTensor* out = nullptr;
  aclIntArray* outputSize = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.CreateTensorU8(selfHost, selfShape, ACL_FORMAT_NCL, &self));
  EXAMPLE_RETURN_IF_ERROR(session.CreateTensorU8(outHost, outShape, ACL_FORMAT_NCL, &out));
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
