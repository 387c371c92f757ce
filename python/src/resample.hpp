// Tensor-level forward and backward on the engine, shared by the upsample:: operators
// (library.cpp) and the aten kernels that upsample.install() registers (aten_kernels.cpp).
// Every function checks its arguments the way PyTorch's upsample kernels do (same conditions,
// RuntimeError) with messages that start with `what` and name the argument and its value.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/MemoryFormat.h>
#include <c10/util/string_view.h>

#include <optional>
#include <vector>

#include "bridge.hpp"

namespace upsample::torch_ext {

// F.interpolate's mode names: "nearest", "nearest-exact", "linear", "bilinear", "bicubic",
// "trilinear", "area".
struct ModeInfo {
  Mode mode;
  int rank;            // spatial rank the mode requires, 0 when it takes any of 1, 2, 3
  bool interpolating;  // align_corners applies (linear and cubic modes)
  bool antialias_ok;   // antialias applies (bilinear, bicubic)
};
std::optional<ModeInfo> parse_mode(c10::string_view name);

// The request for `mode` on a tensor of `dim` dims, with F.interpolate's exception types: an
// unknown mode or one that does not fit `dim` raises NotImplementedError; align_corners or
// antialias where the mode has none, ValueError; scale_factors of the wrong length,
// RuntimeError. scale_factors reach the kernel (area mode ignores them).
Request make_request(const char* what, c10::string_view mode, int64_t dim,
                     c10::optional<at::ArrayRef<double>> scale_factors, bool align_corners,
                     bool antialias);

// The output's spatial sizes: output_size when given, else floor(in * scale) per axis computed
// in double (aten's .vec overloads); RuntimeError when neither is given, a length is wrong or a
// size is not representable (a NaN or infinite scale).
std::vector<int64_t> output_spatial_size(const char* what, at::IntArrayRef input_size, int rank,
                                         at::OptionalIntArrayRef output_size,
                                         c10::optional<at::ArrayRef<double>> scale_factors);

// PyTorch's size rules for a forward call: spatial input sizes > 0, output sizes > 0 (area:
// >= 0, adaptive pooling allows an empty output), C > 0 except for area; N may be 0.
void check_sizes(const char* what, at::IntArrayRef input_size, at::IntArrayRef out_spatial,
                 const Request& request);

// Forward: input [N, C, in...] -> a new tensor [N, C, out_spatial...] in memory format `fmt`.
at::Tensor forward(const char* what, const at::Tensor& input, at::IntArrayRef out_spatial,
                   const Request& request, at::MemoryFormat fmt);

// Forward into `out` (the aten .out overloads): resized when its shape differs, and then given
// memory format `fmt`; otherwise written through its own strides.
at::Tensor& forward_out(const char* what, const at::Tensor& input, at::IntArrayRef out_spatial,
                        const Request& request, at::MemoryFormat fmt, at::Tensor& out);

// Backward: grad_output [N, C, out...] -> grad_input of `input_size` ([N, C, in...]).
at::Tensor backward(const char* what, const at::Tensor& grad_output, at::IntArrayRef input_size,
                    const Request& request, at::MemoryFormat fmt);

at::Tensor& backward_out(const char* what, const at::Tensor& grad_output,
                         at::IntArrayRef input_size, const Request& request, at::MemoryFormat fmt,
                         at::Tensor& grad_input);

// PyTorch 1.13's "nearest" index rule has two short-cuts (nearest_idx in
// aten/src/ATen/native/cpu/UpSampleKernel.cpp): an axis with out == in is copied (source index =
// output index) and one with out == 2 * in repeats each input twice (index = output >> 1), even
// when a scale_factor that maps otherwise was given (1.1 with out == in, 2.1 with out == 2 * in).
// Its backward kernels always take them; its forward only in its channels-last kernel (the
// inputs of forward_request() below). nearest-exact has none.
bool nearest_shortcut_axis(int64_t in_len, int64_t out_len);

// The request with the scale of every nearest short-cut axis dropped: with no scale the
// engine's ratio in / out is exactly 1 or 0.5 in float32, which gives the short-cut's indices
// for every output index up to 2^24. Other modes are returned unchanged.
Request with_nearest_shortcuts(const Request& request, at::IntArrayRef in_spatial,
                               at::IntArrayRef out_spatial);

// The request PyTorch 1.13's nearest forward follows for an input of these sizes and element
// strides: with_nearest_shortcuts() where it runs its channels-last kernel, i.e. where a 4-D /
// 5-D input is contiguous in the channels-last memory format (c10's rule: dims of size 1 are
// skipped, so a contiguous tensor with C = 1 or with every spatial size 1 is too); else
// `request` itself. Used by forward() and forward_out() and for NumPy arrays.
Request forward_request(const Request& request, at::IntArrayRef sizes, at::IntArrayRef strides,
                        at::IntArrayRef out_spatial);

// The memory format PyTorch's upsample kernels give their result when they keep the layout:
// channels-last for 4-D / 5-D tensors whose strides are channels-last, else contiguous.
at::MemoryFormat suggested_format(const at::Tensor& t);

}  // namespace upsample::torch_ext
