// The tensors of a 2-D forward call through the C API: a contiguous float32 NCHW input and
// output over host vectors, and the outputSize array (the output's H and W). Shared by the
// C API tests (aclnn_hostile_input_test.cpp) and the allocation-failure tests.
#pragma once

#include <cstdint>
#include <vector>

#include "acl/acl.h"

namespace upsample::testing {

struct NchwCall {
  NchwCall(const int64_t (&in_dims)[4], const int64_t (&out_dims)[4])
      : src(static_cast<size_t>(in_dims[0] * in_dims[1] * in_dims[2] * in_dims[3]), 1.0f),
        dst(static_cast<size_t>(out_dims[0] * out_dims[1] * out_dims[2] * out_dims[3]), 0.0f) {
    self =
        aclCreateTensor(in_dims, 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCHW, in_dims, 4, src.data());
    out = aclCreateTensor(out_dims, 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCHW, out_dims, 4,
                          dst.data());
    output_size = aclCreateIntArray(out_dims + 2, 2);
  }
  ~NchwCall() {
    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyIntArray(output_size);
  }
  NchwCall(const NchwCall&) = delete;
  NchwCall& operator=(const NchwCall&) = delete;

  std::vector<float> src, dst;  // the tensors' memory (their sizes never change)
  aclTensor* self = nullptr;
  aclTensor* out = nullptr;
  aclIntArray* output_size = nullptr;
};

}  // namespace upsample::testing
