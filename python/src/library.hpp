// The upsample:: operators, registered with PyTorch's dispatcher when the module loads, so that
// TorchScript, tracing and torch.ops.upsample.* reach them as any aten op:
//
//   upsample::resample(Tensor input, int[]? output_size=None, float[]? scale_factors=None,
//                      str mode="nearest", bool align_corners=False, bool antialias=False)
//   upsample::resample_backward(Tensor grad_output, int[] input_size,
//                               float[]? scale_factors=None, str mode="nearest",
//                               bool align_corners=False, bool antialias=False)
//
// resample is F.interpolate after its argument rules: `mode` is one of F.interpolate's names,
// output_size gives the output's spatial sizes, or, when it is None, floor(in * scale) per axis
// (as aten's .vec overloads compute it). scale_factors, when given, also reach the kernel as
// F.interpolate's scale_factor (the coordinate ratio is 1/scale; area mode ignores them).
// CPU kernels run the engine; Autograd kernels make each op differentiable, resample's
// derivative being resample_backward and resample_backward's being resample, so derivatives
// of any order exist.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/string_view.h>

namespace upsample::torch_ext {

// Calls through the dispatcher (autograd, tracing and the CPU kernel, as torch.ops would).
at::Tensor call_resample(const at::Tensor& input, at::OptionalIntArrayRef output_size,
                         c10::optional<at::ArrayRef<double>> scale_factors, c10::string_view mode,
                         bool align_corners, bool antialias);

}  // namespace upsample::torch_ext
