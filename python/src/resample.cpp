#include "resample.hpp"

#include <ATen/MemoryOverlap.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/empty.h>
#include <c10/util/Exception.h>

#include <cmath>
#include <string>
#include <vector>

namespace upsample::torch_ext {

std::optional<ModeInfo> parse_mode(c10::string_view name) {
  if (name == "nearest") return ModeInfo{Mode::kNearest, 0, false, false};
  if (name == "nearest-exact") return ModeInfo{Mode::kNearestExact, 0, false, false};
  if (name == "area") return ModeInfo{Mode::kArea, 0, false, false};
  if (name == "linear") return ModeInfo{Mode::kLinear, 1, true, false};
  if (name == "bilinear") return ModeInfo{Mode::kLinear, 2, true, true};
  if (name == "trilinear") return ModeInfo{Mode::kLinear, 3, true, false};
  if (name == "bicubic") return ModeInfo{Mode::kCubic, 2, true, true};
  return std::nullopt;
}

Request make_request(const char* what, c10::string_view mode, int64_t dim,
                     c10::optional<at::ArrayRef<double>> scale_factors, bool align_corners,
                     bool antialias) {
  const std::optional<ModeInfo> info = parse_mode(mode);
  TORCH_CHECK_NOT_IMPLEMENTED(info.has_value(), what, ": unknown mode '", mode, "' (nearest, ",
                              "nearest-exact, linear, bilinear, bicubic, trilinear or area)");
  const int64_t rank = dim - 2;
  const bool rank_ok = info->rank == 0 ? rank >= 1 && rank <= 3 : rank == info->rank;
  TORCH_CHECK_NOT_IMPLEMENTED(
      rank_ok, what, ": mode '", mode, "' needs a ",
      (info->rank == 0 ? "3-D, 4-D or 5-D" : std::to_string(info->rank + 2) + "-D"),
      " input [N, C, spatial...], got a ", dim, "-D input");
  TORCH_CHECK_VALUE(!align_corners || info->interpolating, what, ": align_corners=True is only ",
                    "defined for the linear, bilinear, bicubic and trilinear modes, not for '",
                    mode, "'");
  TORCH_CHECK_VALUE(!antialias || info->antialias_ok, what, ": antialias=True is only defined ",
                    "for the bilinear and bicubic modes, not for '", mode, "'");
  Request r;
  r.mode = info->mode;
  r.align_corners = align_corners;
  r.antialias = antialias;
  r.rank = static_cast<int>(rank);
  if (scale_factors.has_value()) {
    TORCH_CHECK(static_cast<int64_t>(scale_factors->size()) == rank, what, ": scale_factors ",
                "must have ", rank, " elements (one per spatial dim), got ", *scale_factors);
    if (r.mode != Mode::kArea) {
      // A scale is used when it is > 0 (PyTorch's rule); NaN is not.
      for (int a = 0; a < r.rank; ++a) {
        const double s = (*scale_factors)[a];
        r.scales[a] = s > 0.0 ? s : 0.0;
      }
    }
  }
  return r;
}

std::vector<int64_t> output_spatial_size(const char* what, at::IntArrayRef input_size, int rank,
                                         at::OptionalIntArrayRef output_size,
                                         c10::optional<at::ArrayRef<double>> scale_factors) {
  if (output_size.has_value()) {
    TORCH_CHECK(static_cast<int>(output_size->size()) == rank, what, ": output_size must have ",
                rank, " elements (one per spatial dim), got ", *output_size);
    return output_size->vec();
  }
  TORCH_CHECK(scale_factors.has_value(), what, ": either output_size or scale_factors must ",
              "be given");
  std::vector<int64_t> out(rank);
  for (int a = 0; a < rank; ++a) {
    const double scale = (*scale_factors)[a];
    const double size = std::floor(static_cast<double>(input_size[2 + a]) * scale);
    // 2^63 is exactly representable; every double below it converts to int64 exactly.
    TORCH_CHECK(
        std::isfinite(size) && size >= -9.223372036854775808e18 && size < 9.223372036854775808e18,
        what, ": scale_factor ", scale, " gives spatial dim ", a, " of size ", input_size[2 + a],
        " an output size that is not representable");
    out[a] = static_cast<int64_t>(size);
  }
  return out;
}

at::MemoryFormat suggested_format(const at::Tensor& t) { return t.suggest_memory_format(); }

bool nearest_shortcut_axis(int64_t in_len, int64_t out_len) {
  return out_len == in_len || out_len == 2 * in_len;
}

Request with_nearest_shortcuts(const Request& request, at::IntArrayRef in_spatial,
                               at::IntArrayRef out_spatial) {
  Request r = request;
  if (r.mode != Mode::kNearest) return r;
  for (int a = 0; a < r.rank; ++a) {
    if (nearest_shortcut_axis(in_spatial[a], out_spatial[a])) r.scales[a] = 0.0;
  }
  return r;
}

namespace {

bool channels_last_contiguous(at::IntArrayRef sizes, at::IntArrayRef strides) {
  if (sizes.size() != 4 && sizes.size() != 5) return false;
  // Innermost first: C, then the spatial dims from the last, then N.
  std::vector<size_t> order{1};
  for (size_t d = sizes.size() - 1; d >= 2; --d) order.push_back(d);
  order.push_back(0);
  int64_t expected = 1;
  for (size_t d : order) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

}  // namespace

Request forward_request(const Request& request, at::IntArrayRef sizes, at::IntArrayRef strides,
                        at::IntArrayRef out_spatial) {
  if (!channels_last_contiguous(sizes, strides)) return request;
  return with_nearest_shortcuts(request, sizes.slice(2), out_spatial);
}

void check_sizes(const char* what, at::IntArrayRef input_size, at::IntArrayRef out_spatial,
                 const Request& request) {
  const bool area = request.mode == Mode::kArea;
  bool ok = area || input_size[1] > 0;
  for (int a = 0; a < request.rank; ++a) {
    ok = ok && input_size[2 + a] > 0 && (area ? out_spatial[a] >= 0 : out_spatial[a] > 0);
  }
  TORCH_CHECK(ok, what, ": the input's spatial sizes", (area ? "" : " and C"),
              " must be > 0 and the output size ", (area ? ">= 0" : "> 0"), ", got input sizes ",
              input_size, " and output size ", out_spatial);
}

namespace {

void check_cpu(const char* what, const char* name, const at::Tensor& t) {
  TORCH_CHECK(t.defined(), what, ": ", name, " is an undefined tensor");
  TORCH_CHECK(t.device().is_cpu() && t.layout() == at::kStrided, what, ": ", name,
              " must be a strided CPU tensor (upsample runs on the CPU), got a ", t.device(),
              " tensor with layout ", t.layout());
}

DType check_dtype(const char* what, const char* name, const at::Tensor& t, Direction direction) {
  const std::optional<DType> dtype = engine_dtype(t.scalar_type());
  const bool ok =
      dtype.has_value() && !(direction == Direction::kBackward && *dtype == DType::kUInt8);
  TORCH_CHECK(ok, what, ": ", name, " has dtype ", t.scalar_type(), ", which is not supported ",
              "(supported: ", supported_dtypes_text(), ")");
  return *dtype;
}

void check_rank(const char* what, const char* name, int64_t dim, const Request& request) {
  TORCH_CHECK(dim == request.rank + 2, what, ": ", name, " must have ", request.rank + 2,
              " dims (N, C and ", request.rank, " spatial), got ", dim);
}

std::vector<int64_t> full_size(at::IntArrayRef nc_from, at::IntArrayRef spatial) {
  std::vector<int64_t> sizes{nc_from[0], nc_from[1]};
  sizes.insert(sizes.end(), spatial.begin(), spatial.end());
  return sizes;
}

void execute_into(const char* what, Direction direction, DType dtype, const Request& request,
                  const at::Tensor& src, const at::Tensor& dst) {
  run(what, request.op(direction), describe(dtype, src.sizes(), src.strides()), src.data_ptr(),
      describe(dtype, dst.sizes(), dst.strides()), dst.data_ptr());
}

// Forward into a prepared `out`, with the request PyTorch's forward kernel for `input` follows.
void forward_into(const char* what, DType dtype, const Request& request, const at::Tensor& input,
                  const at::Tensor& out) {
  execute_into(what, Direction::kForward, dtype,
               forward_request(request, input.sizes(), input.strides(), out.sizes().slice(2)),
               input, out);
}

// The checks shared by forward() and forward_out(); returns the engine dtype.
DType check_forward(const char* what, const at::Tensor& input, at::IntArrayRef out_spatial,
                    const Request& request) {
  check_cpu(what, "input", input);
  check_rank(what, "input", input.dim(), request);
  TORCH_CHECK(static_cast<int>(out_spatial.size()) == request.rank, what, ": output_size must ",
              "have ", request.rank, " elements, got ", out_spatial);
  const DType dtype = check_dtype(what, "input", input, Direction::kForward);
  check_sizes(what, input.sizes(), out_spatial, request);
  return dtype;
}

DType check_backward(const char* what, const at::Tensor& grad_output, at::IntArrayRef input_size,
                     const Request& request) {
  check_cpu(what, "grad_output", grad_output);
  check_rank(what, "input_size", static_cast<int64_t>(input_size.size()), request);
  check_rank(what, "grad_output", grad_output.dim(), request);
  TORCH_CHECK(grad_output.size(0) == input_size[0] && grad_output.size(1) == input_size[1], what,
              ": grad_output's N and C must match input_size, got grad_output sizes ",
              grad_output.sizes(), " and input_size ", input_size);
  const DType dtype = check_dtype(what, "grad_output", grad_output, Direction::kBackward);
  check_sizes(what, input_size, grad_output.sizes().slice(2), request);
  return dtype;
}

void check_out(const char* what, const char* name, const at::Tensor& out, const at::Tensor& src) {
  check_cpu(what, name, out);
  TORCH_CHECK(out.scalar_type() == src.scalar_type(), what, ": ", name, " has dtype ",
              out.scalar_type(), ", expected ", src.scalar_type());
}

// An out tensor whose shape differs is resized and then gets memory format `fmt`, as PyTorch's
// structured kernels do; one with the right shape keeps its strides.
void prepare_out(at::Tensor& out, at::IntArrayRef sizes, at::MemoryFormat fmt,
                 const at::Tensor& src) {
  if (at::native::resize_output(out, sizes)) {
    out.unsafeGetTensorImpl()->empty_tensor_restride(fmt);
  }
  at::assert_no_internal_overlap(out);
  at::assert_no_overlap(out, src);
}

}  // namespace

at::Tensor forward(const char* what, const at::Tensor& input, at::IntArrayRef out_spatial,
                   const Request& request, at::MemoryFormat fmt) {
  const DType dtype = check_forward(what, input, out_spatial, request);
  at::Tensor out =
      at::empty(full_size(input.sizes(), out_spatial), input.options().memory_format(fmt));
  forward_into(what, dtype, request, input, out);
  return out;
}

at::Tensor& forward_out(const char* what, const at::Tensor& input, at::IntArrayRef out_spatial,
                        const Request& request, at::MemoryFormat fmt, at::Tensor& out) {
  const DType dtype = check_forward(what, input, out_spatial, request);
  check_out(what, "out", out, input);
  prepare_out(out, full_size(input.sizes(), out_spatial), fmt, input);
  forward_into(what, dtype, request, input, out);
  return out;
}

namespace {

// Backward into a prepared grad_input, with PyTorch's backward index rule (nearest short-cuts
// on every layout). An empty grad_output (area mode with an output size of 0) contributes
// nothing: grad_input is zero.
void backward_into(const char* what, DType dtype, const Request& request,
                   const at::Tensor& grad_output, at::Tensor& grad_input) {
  if (grad_output.numel() == 0) {
    if (grad_input.numel() > 0) grad_input.zero_();
    return;
  }
  execute_into(
      what, Direction::kBackward, dtype,
      with_nearest_shortcuts(request, grad_input.sizes().slice(2), grad_output.sizes().slice(2)),
      grad_output, grad_input);
}

}  // namespace

at::Tensor backward(const char* what, const at::Tensor& grad_output, at::IntArrayRef input_size,
                    const Request& request, at::MemoryFormat fmt) {
  const DType dtype = check_backward(what, grad_output, input_size, request);
  at::Tensor grad_input = at::empty(input_size, grad_output.options().memory_format(fmt));
  backward_into(what, dtype, request, grad_output, grad_input);
  return grad_input;
}

at::Tensor& backward_out(const char* what, const at::Tensor& grad_output,
                         at::IntArrayRef input_size, const Request& request, at::MemoryFormat fmt,
                         at::Tensor& grad_input) {
  const DType dtype = check_backward(what, grad_output, input_size, request);
  check_out(what, "grad_input", grad_input, grad_output);
  prepare_out(grad_input, input_size, fmt, grad_output);
  backward_into(what, dtype, request, grad_output, grad_input);
  return grad_input;
}

}  // namespace upsample::torch_ext
