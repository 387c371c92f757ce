#include "aclnn/entry.hpp"

#include <algorithm>

namespace upsample::aclnn {
namespace {

bool contains(const std::vector<DType>& v, DType x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string dtype_list(const std::vector<DType>& v) {
  std::string s;
  for (DType d : v) s += (s.empty() ? "" : ", ") + std::string(dtype_name(d));
  return s;
}

aclnnStatus check_formats(const char* api, const EntryRules& rules, const char* in_name,
                          const LogicalTensor& in, const char* out_name, const LogicalTensor& out) {
  if (!rules.formats.empty()) {
    for (const auto* t : {&in, &out}) {
      const bool ok =
          std::find(rules.formats.begin(), rules.formats.end(), t->format) != rules.formats.end();
      std::string allowed;
      for (aclFormat f : rules.formats) allowed += (allowed.empty() ? "" : ", ") + format_name(f);
      UPS_REQUIRE(api, ok,
                  (t == &in ? in_name : out_name)
                      << " format " << format_name(t->format)
                      << " is not supported (expected one of " << allowed << ")");
    }
  }
  UPS_REQUIRE(api, !rules.formats_equal || in.format == out.format,
              in_name << " format " << format_name(in.format) << " and " << out_name << " format "
                      << format_name(out.format) << " must be equal");
  return ACLNN_SUCCESS;
}

aclnnStatus check_dtypes(const char* api, const EntryRules& rules, const char* in_name,
                         const LogicalTensor& in, const char* out_name, const LogicalTensor& out) {
  UPS_REQUIRE(api, contains(rules.dtypes, in.desc.dtype),
              in_name << " dtype " << dtype_name(in.desc.dtype) << " is not supported (expected "
                      << dtype_list(rules.dtypes) << ")");
  UPS_REQUIRE(api, out.desc.dtype == in.desc.dtype,
              out_name << " dtype " << dtype_name(out.desc.dtype) << " must equal " << in_name
                       << " dtype " << dtype_name(in.desc.dtype));
  return ACLNN_SUCCESS;
}

aclnnStatus check_output_size(const char* api, const EntryRules& rules,
                              const aclIntArray* output_size) {
  UPS_REQUIRE(api, static_cast<int>(output_size->values.size()) == rules.spatial_rank,
              "outputSize must have " << rules.spatial_rank << " element(s), got "
                                      << dims_string(output_size->values));
  for (int64_t v : output_size->values) {
    UPS_REQUIRE(api, v > 0,
                "outputSize values must be > 0, got " << dims_string(output_size->values));
  }
  return ACLNN_SUCCESS;
}

// Resolves the user scales into OpDesc::scales, applying the entry point's scale rules.
aclnnStatus resolve_scales(const char* api, const EntryRules& rules,
                           std::initializer_list<double> scales, OpDesc* op) {
  int a = 0;
  bool all_positive = true;
  for (double s : scales) {
    UPS_REQUIRE(api, !rules.reject_negative_scales || s >= 0.0,
                "scales must not be negative, got " << s << " for spatial axis " << a);
    op->scales[a++] = s;
    all_positive = all_positive && s > 0.0;
  }
  if (rules.ignore_scales || (rules.scales_all_or_none && !all_positive)) {
    op->scales = {0.0, 0.0, 0.0};
  }
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus forward_entry(const char* api, const EntryRules& rules, const aclTensor* self,
                          const aclIntArray* output_size, bool align_corners,
                          std::initializer_list<double> scales, const aclTensor* out,
                          uint64_t* workspace_size, aclOpExecutor** executor) {
  UPS_CHECK_NOT_NULL(api, self, rules.in_name);
  UPS_CHECK_NOT_NULL(api, output_size, "outputSize");
  UPS_CHECK_NOT_NULL(api, out, rules.out_name);
  UPS_CHECK_NOT_NULL(api, workspace_size, "workspaceSize");
  UPS_CHECK_NOT_NULL(api, executor, "executor");
  const int rank = rules.spatial_rank + 2;
  LogicalTensor in, res;
  UPS_RETURN_IF_ERROR(to_logical(api, rules.in_name, self, rank, &in));
  UPS_RETURN_IF_ERROR(to_logical(api, rules.out_name, out, rank, &res));
  UPS_RETURN_IF_ERROR(check_dtypes(api, rules, rules.in_name, in, rules.out_name, res));
  UPS_RETURN_IF_ERROR(check_formats(api, rules, rules.in_name, in, rules.out_name, res));
  UPS_RETURN_IF_ERROR(check_output_size(api, rules, output_size));
  for (int d = rules.batch_may_be_empty ? 1 : 0; d < rank; ++d) {
    UPS_REQUIRE(api, in.desc.sizes[d] > 0,
                rules.in_name << " dims " << (rules.batch_may_be_empty ? "other than N " : "")
                              << "must be > 0, got shape " << dims_string(in.dims));
  }
  TensorDesc expected = in.desc;
  for (int a = 0; a < rules.spatial_rank; ++a) expected.sizes[2 + a] = output_size->values[a];
  UPS_REQUIRE(
      api,
      std::equal(expected.sizes.begin(), expected.sizes.begin() + rank, res.desc.sizes.begin()),
      "out shape " << dims_string(res.dims) << " (" << format_name(res.format)
                   << ") must be N, C of self and outputSize " << dims_string(output_size->values)
                   << ": logical " << dims_string(expected));
  OpDesc op;
  op.mode = rules.mode;
  op.antialias = rules.antialias;
  op.direction = Direction::kForward;
  op.align_corners = align_corners;
  op.spatial_rank = rules.spatial_rank;
  UPS_RETURN_IF_ERROR(resolve_scales(api, rules, scales, &op));
  return make_executor(api, op, in, res, workspace_size, executor);
}

aclnnStatus backward_entry(const char* api, const EntryRules& rules, const aclTensor* grad_out,
                           const aclIntArray* output_size, const aclIntArray* input_size,
                           bool align_corners, std::initializer_list<double> scales,
                           const aclTensor* grad_in, uint64_t* workspace_size,
                           aclOpExecutor** executor) {
  UPS_CHECK_NOT_NULL(api, grad_out, rules.in_name);
  UPS_CHECK_NOT_NULL(api, output_size, "outputSize");
  UPS_CHECK_NOT_NULL(api, input_size, "inputSize");
  UPS_CHECK_NOT_NULL(api, grad_in, rules.out_name);
  UPS_CHECK_NOT_NULL(api, workspace_size, "workspaceSize");
  UPS_CHECK_NOT_NULL(api, executor, "executor");
  const int rank = rules.spatial_rank + 2;
  LogicalTensor g, res;
  UPS_RETURN_IF_ERROR(to_logical(api, rules.in_name, grad_out, rank, &g));
  UPS_RETURN_IF_ERROR(to_logical(api, rules.out_name, grad_in, rank, &res));
  UPS_RETURN_IF_ERROR(check_dtypes(api, rules, rules.in_name, g, rules.out_name, res));
  UPS_RETURN_IF_ERROR(check_formats(api, rules, rules.in_name, g, rules.out_name, res));
  UPS_RETURN_IF_ERROR(check_output_size(api, rules, output_size));
  UPS_REQUIRE(
      api, static_cast<int>(input_size->values.size()) == rank,
      "inputSize must have " << rank << " elements, got " << dims_string(input_size->values));
  // inputSize in logical order.
  aclFormat order_format = ACL_FORMAT_ND;
  if (rules.input_size_order == EntryRules::InputSizeOrder::kByOutFormat) order_format = res.format;
  if (rules.input_size_order == EntryRules::InputSizeOrder::kByGradFormat) order_format = g.format;
  std::array<int64_t, kMaxRank> in_sizes{};
  for (int d = 0; d < rank; ++d) in_sizes[d] = input_size->values[d];
  if (is_channels_last(order_format)) {
    in_sizes[1] = input_size->values[rank - 1];
    for (int d = 2; d < rank; ++d) in_sizes[d] = input_size->values[d - 1];
  }
  for (int d = 1; d < rank; ++d) {
    UPS_REQUIRE(api, in_sizes[d] > 0,
                "inputSize dims other than N must be > 0, got " << dims_string(input_size->values));
  }
  UPS_REQUIRE(api, rules.batch_may_be_empty ? in_sizes[0] >= 0 : in_sizes[0] > 0,
              "inputSize N must be " << (rules.batch_may_be_empty ? ">= 0" : "> 0") << ", got "
                                     << in_sizes[0]);
  TensorDesc expected_grad_out = g.desc;
  expected_grad_out.sizes[0] = in_sizes[0];
  expected_grad_out.sizes[1] = in_sizes[1];
  for (int a = 0; a < rules.spatial_rank; ++a) {
    expected_grad_out.sizes[2 + a] = output_size->values[a];
  }
  UPS_REQUIRE(api,
              std::equal(expected_grad_out.sizes.begin(), expected_grad_out.sizes.begin() + rank,
                         g.desc.sizes.begin()),
              rules.in_name << " shape " << dims_string(g.dims) << " (" << format_name(g.format)
                            << ") must be N, C of inputSize and outputSize: logical "
                            << dims_string(expected_grad_out));
  UPS_REQUIRE(api, std::equal(in_sizes.begin(), in_sizes.begin() + rank, res.desc.sizes.begin()),
              rules.out_name << " shape " << dims_string(res.dims) << " ("
                             << format_name(res.format) << ") must match inputSize "
                             << dims_string(input_size->values));
  OpDesc op;
  op.mode = rules.mode;
  op.antialias = rules.antialias;
  op.direction = Direction::kBackward;
  op.align_corners = align_corners;
  op.spatial_rank = rules.spatial_rank;
  UPS_RETURN_IF_ERROR(resolve_scales(api, rules, scales, &op));
  return make_executor(api, op, g, res, workspace_size, executor);
}

}  // namespace upsample::aclnn
