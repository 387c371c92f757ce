#include "check/expected.hpp"

#include "reference/mode.hpp"

namespace upsample::cli {
namespace {

// The reference problem of `e` called with `call_scales` on case `g`.
reference::Problem reference_problem(const EntryPoint& e, const Geometry& g, bool align_corners,
                                     const std::array<double, 3>& call_scales) {
  reference::Problem p;
  p.mode = reference::reference_mode(e.row->mode);
  p.antialias = e.row->antialias;
  p.align_corners = align_corners;
  p.n = kBatch;
  p.c = g.channels;
  p.spatial_rank = e.spatial_rank();
  p.in_sizes = g.in;
  p.out_sizes = g.out;
  p.scales = aclnn::effective_scales(*e.row, call_scales);
  return p;
}

// Whether the reference's backward of `p` is not the transpose of its forward: PyTorch's nearest
// backward takes nearest_idx's short-cuts (out == in: copy, out == 2 * in: dst >> 1) where a
// given scale makes its forward pick other pixels, and its bicubic backward copies when no
// spatial size changes (docs/numerics.md, deviation 5; src/reference/reference.cpp, rules_for).
bool reference_backward_is_not_transpose(const reference::Problem& p) {
  if (p.antialias) return false;
  if (p.mode == reference::Mode::kNearest) {
    for (int a = 0; a < p.spatial_rank; ++a) {
      const bool shortcut = p.out_sizes[a] == p.in_sizes[a] || p.out_sizes[a] == 2 * p.in_sizes[a];
      if (shortcut && p.scales[a] > 0.0) return true;
    }
  }
  if (p.mode == reference::Mode::kCubic) {
    for (int a = 0; a < p.spatial_rank; ++a) {
      if (p.out_sizes[a] != p.in_sizes[a]) return false;
    }
    return true;
  }
  return false;
}

// grad_in = A^T grad_out with A the reference forward of `p`, built column by column from the
// forward of one plane (every plane resamples alike).
std::vector<double> transposed_forward(const reference::Problem& p,
                                       const std::vector<double>& grad_out) {
  reference::Problem plane = p;
  plane.n = 1;
  plane.c = 1;
  const auto in_plane = static_cast<size_t>(reference::input_numel(plane));
  const auto out_plane = static_cast<size_t>(reference::output_numel(plane));
  const size_t planes = static_cast<size_t>(p.n * p.c);
  std::vector<double> grad_in(planes * in_plane, 0.0);
  std::vector<double> unit(in_plane, 0.0);
  for (size_t j = 0; j < in_plane; ++j) {
    unit[j] = 1.0;
    const std::vector<double> column = reference::forward(plane, unit);  // A e_j
    unit[j] = 0.0;
    for (size_t q = 0; q < planes; ++q) {
      double acc = 0.0;
      for (size_t i = 0; i < out_plane; ++i) acc += column[i] * grad_out[q * out_plane + i];
      grad_in[q * in_plane + j] = acc;
    }
  }
  return grad_in;
}

}  // namespace

std::vector<double> reference_result(const EntryPoint& e, const Geometry& g, bool align_corners,
                                     const std::array<double, 3>& call_scales,
                                     const std::vector<double>& src) {
  const reference::Problem p = reference_problem(e, g, align_corners, call_scales);
  if (e.forward()) return reference::forward(p, src);
  return reference_backward_is_not_transpose(p) ? transposed_forward(p, src)
                                                : reference::backward(p, src);
}

}  // namespace upsample::cli
