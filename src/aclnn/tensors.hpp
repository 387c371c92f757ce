// acl handles as the engine sees them: an aclTensor becomes a TensorDesc in logical order
// (N, C, spatial...) plus the address of its element 0, after every check of the view against
// its storage (checked arithmetic: a view whose addresses cannot be formed is an error).
// This layer is the only place where acl types and CANN's public names appear.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "acl/runtime_internal.hpp"
#include "aclnn/aclnn_base.h"
#include "upsample/resample.hpp"

namespace upsample::aclnn {

// Records "<api>: <message>" as the calling thread's last error and returns `code`.
aclnnStatus fail(const char* api, aclnnStatus code, const std::string& message);

struct LogicalTensor {
  TensorDesc desc;
  void* data = nullptr;  // address of the view's element 0 (data + offset); null when empty
  aclFormat format = ACL_FORMAT_UNDEFINED;
  std::vector<int64_t> dims;  // as given (format order)
};

// Converts and checks a tensor argument `name` of entry point `api`: a supported dtype, the
// rank, every element of the view inside its storage, a data address when not empty. NHWC /
// NDHWC tensors give their dims in format order (CANN's convention); they are permuted to
// logical order here.
aclnnStatus to_logical(const char* api, const char* name, const aclTensor* tensor,
                       int expected_rank, LogicalTensor* out);

bool is_channels_last(aclFormat format);
std::string format_name(aclFormat format);
std::string dims_string(const std::vector<int64_t>& dims);
std::string dims_string(const TensorDesc& desc);  // logical sizes

}  // namespace upsample::aclnn
