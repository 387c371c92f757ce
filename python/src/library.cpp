#include "library.hpp"

#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/GradMode.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include <string>
#include <vector>

#include "resample.hpp"

namespace upsample::torch_ext {

namespace {

constexpr const char* kWhat = "upsample.interpolate";
constexpr const char* kWhatBackward = "upsample.interpolate (backward)";

using ScaleFactors = c10::optional<at::ArrayRef<double>>;
using ResampleSig = at::Tensor(const at::Tensor&, at::OptionalIntArrayRef, ScaleFactors,
                               c10::string_view, bool, bool);
using ResampleBackwardSig = at::Tensor(const at::Tensor&, at::IntArrayRef, ScaleFactors,
                                       c10::string_view, bool, bool);

const c10::TypedOperatorHandle<ResampleSig>& resample_op() {
  static const auto op =
      c10::Dispatcher::singleton().findSchemaOrThrow("upsample::resample", "").typed<ResampleSig>();
  return op;
}

const c10::TypedOperatorHandle<ResampleBackwardSig>& resample_backward_op() {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("upsample::resample_backward", "")
                             .typed<ResampleBackwardSig>();
  return op;
}

// ---------------------------------------------------------------------------------------------
// CPU kernels.

at::Tensor resample_cpu(const at::Tensor& input, at::OptionalIntArrayRef output_size,
                        ScaleFactors scale_factors, c10::string_view mode, bool align_corners,
                        bool antialias) {
  const Request request =
      make_request(kWhat, mode, input.dim(), scale_factors, align_corners, antialias);
  const std::vector<int64_t> out_spatial =
      output_spatial_size(kWhat, input.sizes(), request.rank, output_size, scale_factors);
  return forward(kWhat, input, out_spatial, request, suggested_format(input));
}

at::Tensor resample_backward_cpu(const at::Tensor& grad_output, at::IntArrayRef input_size,
                                 ScaleFactors scale_factors, c10::string_view mode,
                                 bool align_corners, bool antialias) {
  const Request request = make_request(kWhatBackward, mode, static_cast<int64_t>(input_size.size()),
                                       scale_factors, align_corners, antialias);
  return backward(kWhatBackward, grad_output, input_size, request, suggested_format(grad_output));
}

// ---------------------------------------------------------------------------------------------
// Autograd. The derivative of resample is resample_backward applied to the output's gradient;
// resample_backward is linear in grad_output and its derivative is resample. Both calls go
// through the dispatcher, so higher derivatives are recorded too.

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The sizes the derivative needs (the forward input's for resample, the output's spatial sizes
// for resample_backward) and the non-tensor arguments, saved for the backward pass.
void save_arguments(AutogradContext* ctx, at::IntArrayRef sizes, ScaleFactors scale_factors,
                    c10::string_view mode, bool align_corners, bool antialias) {
  ctx->saved_data["sizes"] = sizes.vec();
  ctx->saved_data["has_scales"] = scale_factors.has_value();
  ctx->saved_data["scales"] =
      scale_factors.has_value() ? scale_factors->vec() : std::vector<double>{};
  ctx->saved_data["mode"] = std::string(mode);
  ctx->saved_data["align_corners"] = align_corners;
  ctx->saved_data["antialias"] = antialias;
}

struct SavedArguments {
  std::vector<int64_t> sizes;
  std::vector<double> scales;
  bool has_scales;
  std::string mode;
  bool align_corners;
  bool antialias;

  explicit SavedArguments(AutogradContext* ctx)
      : sizes(ctx->saved_data["sizes"].toIntVector()),
        scales(ctx->saved_data["scales"].toDoubleVector()),
        has_scales(ctx->saved_data["has_scales"].toBool()),
        mode(ctx->saved_data["mode"].toStringRef()),
        align_corners(ctx->saved_data["align_corners"].toBool()),
        antialias(ctx->saved_data["antialias"].toBool()) {}

  ScaleFactors scale_factors() const {
    return has_scales ? ScaleFactors(at::ArrayRef<double>(scales)) : ScaleFactors();
  }
};

// Runs `call` with the autograd keys excluded (the CPU kernel, no graph).
template <typename Call>
at::Tensor below_autograd(Call&& call) {
  at::AutoDispatchBelowADInplaceOrView guard;
  return call();
}

// The gradients of an op's six arguments: only the tensor has one.
variable_list tensor_gradient(at::Tensor grad) {
  return {std::move(grad), at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
}

class ResampleFunction : public torch::autograd::Function<ResampleFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& input,
                            at::OptionalIntArrayRef output_size, ScaleFactors scale_factors,
                            c10::string_view mode, bool align_corners, bool antialias) {
    save_arguments(ctx, input.sizes(), scale_factors, mode, align_corners, antialias);
    return below_autograd([&] {
      return resample_op().call(input, output_size, scale_factors, mode, align_corners, antialias);
    });
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const SavedArguments a(ctx);
    return tensor_gradient(resample_backward_op().call(grad_outputs[0], a.sizes, a.scale_factors(),
                                                       a.mode, a.align_corners, a.antialias));
  }
};

class ResampleBackwardFunction : public torch::autograd::Function<ResampleBackwardFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& grad_output,
                            at::IntArrayRef input_size, ScaleFactors scale_factors,
                            c10::string_view mode, bool align_corners, bool antialias) {
    save_arguments(ctx, grad_output.sizes().slice(2), scale_factors, mode, align_corners,
                   antialias);
    return below_autograd([&] {
      return resample_backward_op().call(grad_output, input_size, scale_factors, mode,
                                         align_corners, antialias);
    });
  }

  // The adjoint of resample_backward: resample with the backward's index rule, i.e. with the
  // nearest short-cuts on every layout (resample takes them only on channels-last inputs, as
  // PyTorch's forward does), so that second derivatives are exact (gradgradcheck).
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    SavedArguments a(ctx);
    if (parse_mode(a.mode)->mode == Mode::kNearest) {
      for (size_t i = 0; i < a.scales.size(); ++i) {
        if (nearest_shortcut_axis(grad_outputs[0].size(2 + i), a.sizes[i])) a.scales[i] = 0.0;
      }
    }
    return tensor_gradient(resample_op().call(grad_outputs[0], a.sizes, a.scale_factors(), a.mode,
                                              a.align_corners, a.antialias));
  }
};

// No graph is recorded under no_grad or for inputs that do not require grad: the call goes
// straight to the kernel below autograd.
at::Tensor resample_autograd(const at::Tensor& input, at::OptionalIntArrayRef output_size,
                             ScaleFactors scale_factors, c10::string_view mode, bool align_corners,
                             bool antialias) {
  if (c10::GradMode::is_enabled() && input.requires_grad()) {
    return ResampleFunction::apply(input, output_size, scale_factors, mode, align_corners,
                                   antialias);
  }
  return below_autograd([&] {
    return resample_op().call(input, output_size, scale_factors, mode, align_corners, antialias);
  });
}

at::Tensor resample_backward_autograd(const at::Tensor& grad_output, at::IntArrayRef input_size,
                                      ScaleFactors scale_factors, c10::string_view mode,
                                      bool align_corners, bool antialias) {
  if (c10::GradMode::is_enabled() && grad_output.requires_grad()) {
    return ResampleBackwardFunction::apply(grad_output, input_size, scale_factors, mode,
                                           align_corners, antialias);
  }
  return below_autograd([&] {
    return resample_backward_op().call(grad_output, input_size, scale_factors, mode, align_corners,
                                       antialias);
  });
}

}  // namespace

at::Tensor call_resample(const at::Tensor& input, at::OptionalIntArrayRef output_size,
                         c10::optional<at::ArrayRef<double>> scale_factors, c10::string_view mode,
                         bool align_corners, bool antialias) {
  return resample_op().call(input, output_size, scale_factors, mode, align_corners, antialias);
}

TORCH_LIBRARY(upsample, m) {
  m.def(
      "resample(Tensor input, int[]? output_size=None, float[]? scale_factors=None, "
      "str mode=\"nearest\", bool align_corners=False, bool antialias=False) -> Tensor");
  m.def(
      "resample_backward(Tensor grad_output, int[] input_size, float[]? scale_factors=None, "
      "str mode=\"nearest\", bool align_corners=False, bool antialias=False) -> Tensor");
}

TORCH_LIBRARY_IMPL(upsample, CPU, m) {
  m.impl("resample", TORCH_FN(resample_cpu));
  m.impl("resample_backward", TORCH_FN(resample_backward_cpu));
}

TORCH_LIBRARY_IMPL(upsample, Autograd, m) {
  m.impl("resample", TORCH_FN(resample_autograd));
  m.impl("resample_backward", TORCH_FN(resample_backward_autograd));
}

}  // namespace upsample::torch_ext
