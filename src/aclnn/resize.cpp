// aclnnResize: TensorFlow-style resize with a mode string and a float scale per dim. The scales
// only have to agree with the output shape; the coordinate ratio comes from the sizes.
#include <cmath>
#include <cstring>

#include "aclnn/entry.hpp"
#include "aclnnop/aclnn_resize.h"

extern "C" {

ACLNN_API aclnnStatus aclnnResizeGetWorkspaceSize(const aclTensor* self,
                                                  const aclFloatArray* scales, const char* mode,
                                                  aclTensor* out, uint64_t* workspaceSize,
                                                  aclOpExecutor** executor) {
  const char* api = "aclnnResize";
  UPS_CHECK_NOT_NULL(api, self, "self");
  UPS_CHECK_NOT_NULL(api, scales, "scales");
  UPS_CHECK_NOT_NULL(api, mode, "mode");
  UPS_CHECK_NOT_NULL(api, out, "out");
  UPS_CHECK_NOT_NULL(api, workspaceSize, "workspaceSize");
  UPS_CHECK_NOT_NULL(api, executor, "executor");
  upsample::aclnn::EntryRules rules;
  // CANN compares only a prefix, so "nearest-exact" would silently run "nearest": we require the
  // exact names (docs/compat.md).
  if (std::strcmp(mode, "nearest") == 0) {
    rules.mode = upsample::Mode::kNearest;
  } else if (std::strcmp(mode, "bilinear") == 0) {
    rules.mode = upsample::Mode::kLinear;  // half-pixel centres, align_corners = false
  } else {
    return upsample::aclnn::fail(
        api, ACLNN_ERR_PARAM_INVALID,
        std::string("mode must be \"nearest\" or \"bilinear\", got \"") + mode + "\"");
  }
  rules.spatial_rank = 2;
  rules.dtypes = {upsample::DType::kFloat32, upsample::DType::kFloat16, upsample::DType::kBFloat16,
                  upsample::DType::kFloat64};
  rules.formats = {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC};
  rules.formats_equal = true;

  upsample::aclnn::LogicalTensor in, res;
  UPS_RETURN_IF_ERROR(upsample::aclnn::to_logical(api, "self", self, 4, &in));
  UPS_RETURN_IF_ERROR(upsample::aclnn::to_logical(api, "out", out, 4, &res));
  UPS_REQUIRE(api, scales->values.size() == 4,
              "scales must have 4 elements (one per dim of self), got " << scales->values.size());
  // The scales are in the tensor's dim order: H and W sit at 2, 3 (NCHW) or 1, 2 (NHWC).
  const int first_spatial = upsample::aclnn::is_channels_last(in.format) ? 1 : 2;
  for (int a = 0; a < 2; ++a) {
    const double s = scales->values[first_spatial + a];
    const int64_t in_len = in.desc.sizes[2 + a], out_len = res.desc.sizes[2 + a];
    const double lo = std::trunc(static_cast<double>(in_len) * (s - 1e-5));
    const double hi = std::trunc(static_cast<double>(in_len) * (s + 1e-5));
    UPS_REQUIRE(api, std::isfinite(s) && s > 0 && lo <= out_len && out_len <= hi,
                "scales[" << first_spatial + a << "] = " << s << " does not give the out "
                          << (a == 0 ? "H" : "W") << " " << out_len << " from the self "
                          << (a == 0 ? "H" : "W") << " " << in_len << " (expected trunc(" << in_len
                          << " * scale))");
  }
  const aclIntArray output_size{{res.desc.sizes[2], res.desc.sizes[3]}};
  return upsample::aclnn::forward_entry(api, rules, self, &output_size, false, {0.0, 0.0}, out,
                                        workspaceSize, executor);
}
UPS_ACLNN_PHASE2(aclnnResize)

}  // extern "C"
