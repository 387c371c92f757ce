#include "aclnn/entry.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <sstream>
#include <string>

#include "acl/errors.hpp"
#include "aclnn/executor.hpp"

// Returns 161002 with a message from the calling function unless `cond` holds.
#define UPS_REQUIRE(api, cond, stream_expr)                                         \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::ostringstream ups_why_;                                                  \
      ups_why_ << stream_expr;                                                      \
      return ::upsample::aclnn::fail(api, ACLNN_ERR_PARAM_INVALID, ups_why_.str()); \
    }                                                                               \
  } while (0)

#define UPS_RETURN_IF_ERROR(expr)                         \
  do {                                                    \
    const aclnnStatus ups_status_ = (expr);               \
    if (ups_status_ != ACLNN_SUCCESS) return ups_status_; \
  } while (0)

namespace upsample::aclnn {
namespace {

aclnnStatus check_not_null(const char* api, std::initializer_list<const void*> pointers,
                           std::initializer_list<const char*> names) {
  auto name = names.begin();
  for (const void* p : pointers) {
    if (p == nullptr) return fail(api, ACLNN_ERR_PARAM_NULLPTR, std::string(*name) + " is null");
    ++name;
  }
  return ACLNN_SUCCESS;
}

std::string dtype_list(uint32_t dtypes) {
  std::string s;
  for (int t = 0; t <= static_cast<int>(DType::kUInt16); ++t) {
    if (dtypes & dtype_bit(static_cast<DType>(t))) {
      s += (s.empty() ? "" : ", ") + std::string(dtype_name(static_cast<DType>(t)));
    }
  }
  return s;
}

// The checks every entry point shares, in CANN's order: the two tensors, their dtypes and
// formats, and outputSize.
aclnnStatus check_tensors(const EntryRow& row, const aclTensor* in_t, const aclTensor* out_t,
                          const aclIntArray* output_size, LogicalTensor* in, LogicalTensor* out) {
  const char* api = row.name;
  const int rank = row.spatial_rank + 2;
  UPS_RETURN_IF_ERROR(to_logical(api, row.in_name, in_t, rank, in));
  UPS_RETURN_IF_ERROR(to_logical(api, row.out_name, out_t, rank, out));
  UPS_REQUIRE(api, row.dtypes & dtype_bit(in->desc.dtype),
              row.in_name << " dtype " << dtype_name(in->desc.dtype)
                          << " is not supported (expected " << dtype_list(row.dtypes) << ")");
  UPS_REQUIRE(api, out->desc.dtype == in->desc.dtype,
              row.out_name << " dtype " << dtype_name(out->desc.dtype) << " must equal "
                           << row.in_name << " dtype " << dtype_name(in->desc.dtype));
  if (row.format_count > 0) {
    std::string allowed;
    for (int i = 0; i < row.format_count; ++i) {
      allowed += (allowed.empty() ? "" : ", ") + format_name(row.formats[i]);
    }
    for (const LogicalTensor* t : {in, out}) {
      const bool ok = std::find(row.formats, row.formats + row.format_count, t->format) !=
                      row.formats + row.format_count;
      UPS_REQUIRE(api, ok,
                  (t == in ? row.in_name : row.out_name)
                      << " format " << format_name(t->format)
                      << " is not supported (expected one of " << allowed << ")");
    }
  }
  UPS_REQUIRE(api, !row.formats_equal || in->format == out->format,
              row.in_name << " format " << format_name(in->format) << " and " << row.out_name
                          << " format " << format_name(out->format) << " must be equal");
  UPS_REQUIRE(api, static_cast<int>(output_size->values.size()) == row.spatial_rank,
              "outputSize must have " << row.spatial_rank << " element(s), got "
                                      << dims_string(output_size->values));
  for (int64_t v : output_size->values) {
    UPS_REQUIRE(api, v > 0,
                "outputSize values must be > 0, got " << dims_string(output_size->values));
  }
  return ACLNN_SUCCESS;
}

// The OpDesc of a row, with the user scales resolved by the row's scale rule.
aclnnStatus make_op(const EntryRow& row, bool align_corners, std::initializer_list<double> scales,
                    OpDesc* op) {
  op->mode = row.mode;
  op->antialias = row.antialias;
  op->direction = row.direction;
  op->align_corners = row.has_align_corners && align_corners;
  op->spatial_rank = row.spatial_rank;
  std::array<double, 3> given{0.0, 0.0, 0.0};
  int a = 0;
  for (double s : scales) {
    UPS_REQUIRE(row.name, !row.reject_negative_scales || s >= 0.0,
                "scales must not be negative, got " << s << " for spatial axis " << a);
    given[a++] = s;
  }
  op->scales = effective_scales(row, given);
  return ACLNN_SUCCESS;
}

aclnnStatus forward_body(const EntryRow& row, const aclTensor* self, const aclIntArray* output_size,
                         bool align_corners, std::initializer_list<double> scales,
                         const aclTensor* out, uint64_t* workspace_size, aclOpExecutor** executor) {
  const char* api = row.name;
  UPS_RETURN_IF_ERROR(
      check_not_null(api, {self, output_size, out, workspace_size, executor},
                     {row.in_name, "outputSize", row.out_name, "workspaceSize", "executor"}));
  LogicalTensor in, res;
  UPS_RETURN_IF_ERROR(check_tensors(row, self, out, output_size, &in, &res));
  const int rank = row.spatial_rank + 2;
  for (int d = row.batch_may_be_empty ? 1 : 0; d < rank; ++d) {
    UPS_REQUIRE(api, in.desc.sizes[d] > 0,
                row.in_name << " dims " << (row.batch_may_be_empty ? "other than N " : "")
                            << "must be > 0, got shape " << dims_string(in.dims));
  }
  TensorDesc expected = in.desc;
  for (int a = 0; a < row.spatial_rank; ++a) expected.sizes[2 + a] = output_size->values[a];
  UPS_REQUIRE(
      api,
      std::equal(expected.sizes.begin(), expected.sizes.begin() + rank, res.desc.sizes.begin()),
      row.out_name << " shape " << dims_string(res.dims) << " (" << format_name(res.format)
                   << ") must be N, C of " << row.in_name << " and outputSize "
                   << dims_string(output_size->values) << ": logical " << dims_string(expected));
  OpDesc op;
  UPS_RETURN_IF_ERROR(make_op(row, align_corners, scales, &op));
  return make_executor(api, op, in, res, workspace_size, executor);
}

// inputSize in logical order (N, C, spatial...), from the order the row reads it in.
std::array<int64_t, kMaxRank> logical_input_size(const EntryRow& row, const aclIntArray& input_size,
                                                 const LogicalTensor& grad,
                                                 const LogicalTensor& res) {
  const int rank = row.spatial_rank + 2;
  aclFormat order_format = ACL_FORMAT_ND;
  if (row.input_size_order == InputSizeOrder::kByOutFormat) order_format = res.format;
  if (row.input_size_order == InputSizeOrder::kByGradFormat) order_format = grad.format;
  std::array<int64_t, kMaxRank> sizes{};
  for (int d = 0; d < rank; ++d) sizes[d] = input_size.values[d];
  if (is_channels_last(order_format)) {
    sizes[1] = input_size.values[rank - 1];
    for (int d = 2; d < rank; ++d) sizes[d] = input_size.values[d - 1];
  }
  return sizes;
}

aclnnStatus backward_body(const EntryRow& row, const aclTensor* grad_out,
                          const aclIntArray* output_size, const aclIntArray* input_size,
                          bool align_corners, std::initializer_list<double> scales,
                          const aclTensor* grad_in, uint64_t* workspace_size,
                          aclOpExecutor** executor) {
  const char* api = row.name;
  UPS_RETURN_IF_ERROR(check_not_null(
      api, {grad_out, output_size, input_size, grad_in, workspace_size, executor},
      {row.in_name, "outputSize", "inputSize", row.out_name, "workspaceSize", "executor"}));
  LogicalTensor g, res;
  UPS_RETURN_IF_ERROR(check_tensors(row, grad_out, grad_in, output_size, &g, &res));
  const int rank = row.spatial_rank + 2;
  UPS_REQUIRE(
      api, static_cast<int>(input_size->values.size()) == rank,
      "inputSize must have " << rank << " elements, got " << dims_string(input_size->values));
  const std::array<int64_t, kMaxRank> in_sizes = logical_input_size(row, *input_size, g, res);
  for (int d = 1; d < rank; ++d) {
    UPS_REQUIRE(api, in_sizes[d] > 0,
                "inputSize dims other than N must be > 0, got " << dims_string(input_size->values));
  }
  UPS_REQUIRE(api, row.batch_may_be_empty ? in_sizes[0] >= 0 : in_sizes[0] > 0,
              "inputSize N must be " << (row.batch_may_be_empty ? ">= 0" : "> 0") << ", got "
                                     << in_sizes[0]);
  TensorDesc expected_grad_out = g.desc;
  expected_grad_out.sizes[0] = in_sizes[0];
  expected_grad_out.sizes[1] = in_sizes[1];
  for (int a = 0; a < row.spatial_rank; ++a) {
    expected_grad_out.sizes[2 + a] = output_size->values[a];
  }
  UPS_REQUIRE(api,
              std::equal(expected_grad_out.sizes.begin(), expected_grad_out.sizes.begin() + rank,
                         g.desc.sizes.begin()),
              row.in_name << " shape " << dims_string(g.dims) << " (" << format_name(g.format)
                          << ") must be N, C of inputSize and outputSize: logical "
                          << dims_string(expected_grad_out));
  UPS_REQUIRE(api, std::equal(in_sizes.begin(), in_sizes.begin() + rank, res.desc.sizes.begin()),
              row.out_name << " shape " << dims_string(res.dims) << " (" << format_name(res.format)
                           << ") must match inputSize " << dims_string(input_size->values));
  OpDesc op;
  UPS_RETURN_IF_ERROR(make_op(row, align_corners, scales, &op));
  return make_executor(api, op, g, res, workspace_size, executor);
}

aclnnStatus resize_body(const aclTensor* self, const aclFloatArray* scales, const char* mode,
                        const aclTensor* out, uint64_t* workspace_size, aclOpExecutor** executor) {
  const char* api = "aclnnResize";
  UPS_RETURN_IF_ERROR(
      check_not_null(api, {self, scales, mode, out, workspace_size, executor},
                     {"self", "scales", "mode", "out", "workspaceSize", "executor"}));
  // CANN compares only a prefix, so "nearest-exact" would silently run "nearest": we require the
  // exact names (docs/compat.md).
  const EntryRow* row = find_entry(api, mode);
  UPS_REQUIRE(api, row != nullptr,
              "mode must be \"nearest\" or \"bilinear\", got \"" << mode << "\"");
  LogicalTensor in, res;
  UPS_RETURN_IF_ERROR(to_logical(api, "self", self, 4, &in));
  UPS_RETURN_IF_ERROR(to_logical(api, "out", out, 4, &res));
  UPS_REQUIRE(api, scales->values.size() == 4,
              "scales must have 4 elements (one per dim of self), got " << scales->values.size());
  // The scales are in the tensor's dim order: H and W sit at 2, 3 (NCHW) or 1, 2 (NHWC).
  const int first_spatial = is_channels_last(in.format) ? 1 : 2;
  for (int a = 0; a < 2; ++a) {
    const double s = scales->values[first_spatial + a];
    const int64_t in_len = in.desc.sizes[2 + a], out_len = res.desc.sizes[2 + a];
    const double lo = std::trunc(static_cast<double>(in_len) * (s - 1e-5));
    const double hi = std::trunc(static_cast<double>(in_len) * (s + 1e-5));
    UPS_REQUIRE(api,
                std::isfinite(s) && s > 0 && lo <= static_cast<double>(out_len) &&
                    static_cast<double>(out_len) <= hi,
                "scales[" << first_spatial + a << "] = " << s << " does not give the out "
                          << (a == 0 ? "H" : "W") << " " << out_len << " from the self "
                          << (a == 0 ? "H" : "W") << " " << in_len << " (expected trunc(" << in_len
                          << " * scale))");
  }
  const aclIntArray output_size{{res.desc.sizes[2], res.desc.sizes[3]}};
  return forward_body(*row, self, &output_size, false, {0.0, 0.0}, out, workspace_size, executor);
}

}  // namespace

aclnnStatus forward_entry(const EntryRow& row, const aclTensor* self,
                          const aclIntArray* output_size, bool align_corners,
                          std::initializer_list<double> scales, const aclTensor* out,
                          uint64_t* workspace_size, aclOpExecutor** executor) {
  return acl::guard_c_api(row.name, acl::kAclnnFailure, [&] {
    return forward_body(row, self, output_size, align_corners, scales, out, workspace_size,
                        executor);
  });
}

aclnnStatus backward_entry(const EntryRow& row, const aclTensor* grad_out,
                           const aclIntArray* output_size, const aclIntArray* input_size,
                           bool align_corners, std::initializer_list<double> scales,
                           const aclTensor* grad_in, uint64_t* workspace_size,
                           aclOpExecutor** executor) {
  return acl::guard_c_api(row.name, acl::kAclnnFailure, [&] {
    return backward_body(row, grad_out, output_size, input_size, align_corners, scales, grad_in,
                         workspace_size, executor);
  });
}

aclnnStatus resize_entry(const aclTensor* self, const aclFloatArray* scales, const char* mode,
                         const aclTensor* out, uint64_t* workspace_size, aclOpExecutor** executor) {
  return acl::guard_c_api("aclnnResize", acl::kAclnnFailure, [&] {
    return resize_body(self, scales, mode, out, workspace_size, executor);
  });
}

}  // namespace upsample::aclnn
