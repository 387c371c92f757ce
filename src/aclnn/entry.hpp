// The generic forward and backward entry points. Each CANN entry point is a few lines that
// state its rules (EntryRules) and call one of these; docs/ops.md tabulates the mapping.
#pragma once

#include <initializer_list>
#include <vector>

#include "aclnn/common.hpp"

namespace upsample::aclnn {

struct EntryRules {
  // The CANN parameter names of the operator's input and output tensors, used in messages.
  const char* in_name = "self";
  const char* out_name = "out";
  Mode mode = Mode::kLinear;
  bool antialias = false;
  int spatial_rank = 2;
  std::vector<DType> dtypes;       // accepted dtypes (input and output must be equal)
  std::vector<aclFormat> formats;  // accepted formats; empty: any (dims read as N, C, spatial)
  bool formats_equal = false;      // input and output must have the same format
  bool batch_may_be_empty = true;  // N = 0 gives an empty executor (else 161002)
  bool reject_negative_scales = false;
  bool scales_all_or_none = false;  // scales are used only if every one is > 0
  bool ignore_scales = false;       // ratio from the sizes only
  // How a backward inputSize is ordered: logically (N, C, spatial...) or in the format order of
  // the out / gradOut tensor (N, spatial..., C when that tensor is channels-last).
  enum class InputSizeOrder { kLogical, kByOutFormat, kByGradFormat };
  InputSizeOrder input_size_order = InputSizeOrder::kLogical;
};

// self -> out, output spatial size from outputSize.
aclnnStatus forward_entry(const char* api, const EntryRules& rules, const aclTensor* self,
                          const aclIntArray* output_size, bool align_corners,
                          std::initializer_list<double> scales, const aclTensor* out,
                          uint64_t* workspace_size, aclOpExecutor** executor);

// gradOut [N, C, outputSize...] -> gradInput shaped like inputSize.
aclnnStatus backward_entry(const char* api, const EntryRules& rules, const aclTensor* grad_out,
                           const aclIntArray* output_size, const aclIntArray* input_size,
                           bool align_corners, std::initializer_list<double> scales,
                           const aclTensor* grad_in, uint64_t* workspace_size,
                           aclOpExecutor** executor);

}  // namespace upsample::aclnn
