#include "aten_kernels.hpp"

#include <c10/util/Exception.h>
#include <torch/library.h>

#include <array>
#include <initializer_list>
#include <memory>
#include <mutex>

#include "resample.hpp"

namespace upsample::torch_ext {

namespace {

// One aten upsample operator family: the forward op, its .out overload, <name>_backward and
// <name>_backward.grad_input.
struct AtenOp {
  const char* name;
  Mode mode;
  bool antialias;
  int rank;
  // Whether PyTorch 1.13's kernel gives its result the memory format of its (grad) input
  // (channels-last kept) or always a contiguous one; measured per op, forward and backward.
  bool forward_keeps_layout;
  bool backward_keeps_layout;
};

constexpr std::array<AtenOp, 12> kOps{{
    {"upsample_nearest1d", Mode::kNearest, false, 1, true, false},
    {"upsample_nearest2d", Mode::kNearest, false, 2, true, true},
    {"upsample_nearest3d", Mode::kNearest, false, 3, true, false},
    {"_upsample_nearest_exact1d", Mode::kNearestExact, false, 1, true, false},
    {"_upsample_nearest_exact2d", Mode::kNearestExact, false, 2, true, true},
    {"_upsample_nearest_exact3d", Mode::kNearestExact, false, 3, true, false},
    {"upsample_linear1d", Mode::kLinear, false, 1, true, false},
    {"upsample_bilinear2d", Mode::kLinear, false, 2, true, true},
    {"upsample_bicubic2d", Mode::kCubic, false, 2, false, false},
    {"upsample_trilinear3d", Mode::kLinear, false, 3, true, true},
    {"_upsample_bilinear2d_aa", Mode::kLinear, true, 2, true, true},
    {"_upsample_bicubic2d_aa", Mode::kCubic, true, 2, false, false},
}};

enum OpIndex : int {
  kNearest1d,
  kNearest2d,
  kNearest3d,
  kNearestExact1d,
  kNearestExact2d,
  kNearestExact3d,
  kLinear1d,
  kBilinear2d,
  kBicubic2d,
  kTrilinear3d,
  kBilinear2dAa,
  kBicubic2dAa,
};

Request make_request(const AtenOp& op, bool align_corners,
                     std::initializer_list<c10::optional<double>> scales) {
  Request r;
  r.mode = op.mode;
  r.antialias = op.antialias;
  r.align_corners = align_corners;
  r.rank = op.rank;
  int a = 0;
  for (const c10::optional<double>& s : scales) {
    // PyTorch uses a scale only when it is given and > 0 (NaN is not).
    r.scales[a++] = s.has_value() && *s > 0.0 ? *s : 0.0;
  }
  return r;
}

at::MemoryFormat layout_of(bool keeps_layout, const at::Tensor& t) {
  return keeps_layout ? suggested_format(t) : at::MemoryFormat::Contiguous;
}

// aten's backward ops name the output size explicitly: it must be grad_output's.
void check_output_size(const AtenOp& op, const at::Tensor& grad_output,
                       at::IntArrayRef output_size) {
  TORCH_CHECK(static_cast<int>(output_size.size()) == op.rank, op.name,
              "_backward: output_size must have ", op.rank, " elements, got ", output_size);
  TORCH_CHECK(grad_output.dim() == op.rank + 2 && grad_output.sizes().slice(2) == output_size,
              op.name, "_backward: grad_output must have the shape of the output, [N, C] + ",
              output_size, ", got ", grad_output.sizes());
}

// The kernels, one template per aten signature shape. Scales is one c10::optional<double> per
// spatial axis (scales_d, scales_h, scales_w order).

template <int kOp, typename... Scales>
at::Tensor forward_kernel(const at::Tensor& self, at::IntArrayRef output_size, Scales... scales) {
  const AtenOp& op = kOps[kOp];
  return forward(op.name, self, output_size, make_request(op, false, {scales...}),
                 layout_of(op.forward_keeps_layout, self));
}

template <int kOp, typename... Scales>
at::Tensor forward_align_kernel(const at::Tensor& self, at::IntArrayRef output_size,
                                bool align_corners, Scales... scales) {
  const AtenOp& op = kOps[kOp];
  return forward(op.name, self, output_size, make_request(op, align_corners, {scales...}),
                 layout_of(op.forward_keeps_layout, self));
}

template <int kOp, typename... Scales>
at::Tensor& forward_out_kernel(const at::Tensor& self, at::IntArrayRef output_size,
                               Scales... scales, at::Tensor& out) {
  const AtenOp& op = kOps[kOp];
  return forward_out(op.name, self, output_size, make_request(op, false, {scales...}),
                     layout_of(op.forward_keeps_layout, self), out);
}

template <int kOp, typename... Scales>
at::Tensor& forward_align_out_kernel(const at::Tensor& self, at::IntArrayRef output_size,
                                     bool align_corners, Scales... scales, at::Tensor& out) {
  const AtenOp& op = kOps[kOp];
  return forward_out(op.name, self, output_size, make_request(op, align_corners, {scales...}),
                     layout_of(op.forward_keeps_layout, self), out);
}

template <int kOp, typename... Scales>
at::Tensor backward_kernel(const at::Tensor& grad_output, at::IntArrayRef output_size,
                           at::IntArrayRef input_size, Scales... scales) {
  const AtenOp& op = kOps[kOp];
  check_output_size(op, grad_output, output_size);
  return backward(op.name, grad_output, input_size, make_request(op, false, {scales...}),
                  layout_of(op.backward_keeps_layout, grad_output));
}

template <int kOp, typename... Scales>
at::Tensor backward_align_kernel(const at::Tensor& grad_output, at::IntArrayRef output_size,
                                 at::IntArrayRef input_size, bool align_corners, Scales... scales) {
  const AtenOp& op = kOps[kOp];
  check_output_size(op, grad_output, output_size);
  return backward(op.name, grad_output, input_size, make_request(op, align_corners, {scales...}),
                  layout_of(op.backward_keeps_layout, grad_output));
}

template <int kOp, typename... Scales>
at::Tensor& backward_out_kernel(const at::Tensor& grad_output, at::IntArrayRef output_size,
                                at::IntArrayRef input_size, Scales... scales,
                                at::Tensor& grad_input) {
  const AtenOp& op = kOps[kOp];
  check_output_size(op, grad_output, output_size);
  return backward_out(op.name, grad_output, input_size, make_request(op, false, {scales...}),
                      layout_of(op.backward_keeps_layout, grad_output), grad_input);
}

template <int kOp, typename... Scales>
at::Tensor& backward_align_out_kernel(const at::Tensor& grad_output, at::IntArrayRef output_size,
                                      at::IntArrayRef input_size, bool align_corners,
                                      Scales... scales, at::Tensor& grad_input) {
  const AtenOp& op = kOps[kOp];
  check_output_size(op, grad_output, output_size);
  return backward_out(op.name, grad_output, input_size,
                      make_request(op, align_corners, {scales...}),
                      layout_of(op.backward_keeps_layout, grad_output), grad_input);
}

using S = c10::optional<double>;

// Registers the four overloads of the op family `name`.
template <auto kForward, auto kForwardOut, auto kBackward, auto kBackwardOut>
void register_overloads(torch::Library& lib, const std::string& name) {
  lib.impl(name.c_str(), TORCH_FN(kForward));
  lib.impl((name + ".out").c_str(), TORCH_FN(kForwardOut));
  lib.impl((name + "_backward").c_str(), TORCH_FN(kBackward));
  lib.impl((name + "_backward.grad_input").c_str(), TORCH_FN(kBackwardOut));
}

// The kernels of one op family, whose aten signatures take `Scales...` (and align_corners when
// kAlign).
template <int kOp, bool kAlign, typename... Scales>
void register_family(torch::Library& lib) {
  if constexpr (kAlign) {
    register_overloads<
        &forward_align_kernel<kOp, Scales...>, &forward_align_out_kernel<kOp, Scales...>,
        &backward_align_kernel<kOp, Scales...>, &backward_align_out_kernel<kOp, Scales...>>(
        lib, kOps[kOp].name);
  } else {
    register_overloads<&forward_kernel<kOp, Scales...>, &forward_out_kernel<kOp, Scales...>,
                       &backward_kernel<kOp, Scales...>, &backward_out_kernel<kOp, Scales...>>(
        lib, kOps[kOp].name);
  }
}

void register_all(torch::Library& lib) {
  register_family<kNearest1d, false, S>(lib);
  register_family<kNearest2d, false, S, S>(lib);
  register_family<kNearest3d, false, S, S, S>(lib);
  register_family<kNearestExact1d, false, S>(lib);
  register_family<kNearestExact2d, false, S, S>(lib);
  register_family<kNearestExact3d, false, S, S, S>(lib);
  register_family<kLinear1d, true, S>(lib);
  register_family<kBilinear2d, true, S, S>(lib);
  register_family<kBicubic2d, true, S, S>(lib);
  register_family<kTrilinear3d, true, S, S, S>(lib);
  register_family<kBilinear2dAa, true, S, S>(lib);
  register_family<kBicubic2dAa, true, S, S>(lib);
}

// Overriding an existing kernel makes the dispatcher warn once per operator; that is the
// purpose of install(), so those warnings are dropped while it registers. Others go on.
class DropOverrideWarnings : public c10::WarningHandler {
 public:
  explicit DropOverrideWarnings(c10::WarningHandler* next) : next_(next) {}
  void process(const c10::SourceLocation& where, const std::string& msg,
               const bool verbatim) override {
    if (msg.rfind("Overriding a previously registered kernel", 0) == 0) return;
    if (next_ != nullptr) next_->process(where, msg, verbatim);
  }

 private:
  c10::WarningHandler* next_;
};

std::mutex g_mutex;
std::unique_ptr<torch::Library> g_library;  // our registrations while installed

}  // namespace

bool install_aten_kernels() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_library) return false;
  DropOverrideWarnings filter(c10::Warning::get_warning_handler());
  c10::Warning::WarningHandlerGuard guard(&filter);
  auto lib = std::make_unique<torch::Library>(torch::Library::IMPL, "aten", c10::DispatchKey::CPU,
                                              __FILE__, __LINE__);
  register_all(*lib);
  g_library = std::move(lib);
  return true;
}

bool uninstall_aten_kernels() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_library) return false;
  g_library.reset();
  return true;
}

bool aten_kernels_installed() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_library != nullptr;
}

std::vector<std::string> aten_kernel_names() {
  std::vector<std::string> names;
  for (const AtenOp& op : kOps) {
    const std::string base = std::string("aten::") + op.name;
    names.push_back(base);
    names.push_back(base + ".out");
    names.push_back(base + "_backward");
    names.push_back(base + "_backward.grad_input");
  }
  return names;
}

}  // namespace upsample::torch_ext
