// aclnnResize: self [1,1,2,2] = {1, 2, 3, 4} (NCHW), scales {1, 1, 2, 2} (aclFloatArray),
// mode "nearest" -> out [1,1,4,4] (NCHW). Legacy nearest with r = in/out = 1/2.
// Expected: 1,1,2,2, 1,1,2,2, 3,3,4,4, 3,3,4,4.
#include <cstdint>
#include <vector>

#include "aclnnop/aclnn_resize.h"
#include "example_common.h"

int main() {
  example::Session session;
  EXAMPLE_RETURN_IF_ERROR(session.Init(0));

  const std::vector<int64_t> selfShape = {1, 1, 2, 2};
  const std::vector<int64_t> outShape = {1, 1, 4, 4};
  const std::vector<float> selfHost = {1.0f, 2.0f, 3.0f, 4.0f};
  const std::vector<float> scalesData = {1.0f, 1.0f, 2.0f, 2.0f};
  const char* mode = "nearest";

  aclTensor* self = nullptr;
  aclTensor* out = nullptr;
  aclFloatArray* scales = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.CreateTensor(selfHost, selfShape, ACL_FORMAT_NCHW, &self));
  EXAMPLE_RETURN_IF_ERROR(session.CreateZeros(outShape, ACL_FORMAT_NCHW, &out));
  EXAMPLE_RETURN_IF_ERROR(session.CreateFloatArray(scalesData, &scales));

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  EXAMPLE_CHECK(aclnnResizeGetWorkspaceSize(self, scales, mode, out, &workspaceSize, &executor),
                "aclnnResizeGetWorkspaceSize");
  void* workspace = nullptr;
  EXAMPLE_RETURN_IF_ERROR(session.AllocWorkspace(workspaceSize, &workspace));
  EXAMPLE_CHECK(aclnnResize(workspace, workspaceSize, executor, session.Stream()), "aclnnResize");
  EXAMPLE_CHECK(aclrtSynchronizeStream(session.Stream()), "aclrtSynchronizeStream");

  EXAMPLE_RETURN_IF_ERROR(session.PrintResult(out));
  return session.Close();
}
