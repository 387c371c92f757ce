// Independent float64 reference: PyTorch 1.13 CPU resampling evaluated formula by formula.
//
// Every output element is computed from scratch: for each spatial axis the source taps and
// weights of that one output coordinate are derived directly from PyTorch's index formulas
// (ATen/native/UpSample.h and the CPU kernels), and the value is the sum over the tensor
// product of the per-axis taps of (product of weights) * input. Nothing is cached in per-axis
// tables, so the engine's table builder, its transposition and its kernels are all checked
// against code that shares none of their structure. The backward pass scatters (the engine
// gathers). Speed is deliberately not a goal.
//
// Checked against torch 1.13 (float64, NCHW-contiguous, consistent and inconsistent scales) to
// 1e-12 absolute. Not reproduced: (1) PyTorch's AVX2 kernels contract a * b - c into an FMA and
// the cubic kernels floor via floorf, so a source coordinate that is mathematically an integer
// can round to the other side there; values agree to an ulp, but which zero-weight neighbour is
// read (and so where an inf in the input turns into NaN) can differ at such points. (2) Where a
// scale disagrees with the sizes so much that PyTorch reads out of bounds (linear: src past the
// last pixel; antialias: an empty window), the reference clamps (linear) or yields 0 (AA).
#include "reference/reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace upsample::reference {
namespace {

// One source tap of one output coordinate along one axis.
struct Tap {
  int64_t src = 0;
  double weight = 0.0;
};
using Taps = std::vector<Tap>;

// One resampled axis. A `padded` axis is a leading axis the problem does not have (rank < 3);
// it always yields the single tap {0, 1}.
struct Axis {
  int64_t in_len = 1;
  int64_t out_len = 1;
  double scale = 0.0;  // user multiplier; <= 0 (or NaN) means "not given"
  bool padded = true;
};

enum class Pass { kForward, kBackward };

// Quirks of PyTorch 1.13's CPU code paths that depend on the pass and on the whole problem
// rather than on one axis.
struct PathRules {
  bool nearest_shortcuts = false;  // nearest goes through nearest_idx (see nearest_taps)
  bool copy_all = false;           // the pass is a plain element-wise copy
};

constexpr int kMaxRank = 3;

// ---------------------------------------------------------------------------------------------
// Ratios.

// compute_scales_value<float>: the nearest modes pick their index in float32. The ratio is the
// reciprocal of the user scale taken in double and rounded to float, or float(in) / float(out).
// The exact float32 value matters: a double ratio selects a different pixel at some boundaries
// (docs/numerics.md, "nearest"). This is what PyTorch 1.13 CPU does for float32 tensors, and for
// every dtype in the backward and on the channels-last path; its contiguous *float64* forward alone
// (upsample_generic_Nd with scalar_t = double) uses a double ratio, e.g. 14 -> 46 nearest or
// 26 -> 11 nearest-exact pick other pixels there. The reference has no dtype; it follows float32.
float nearest_ratio(const Axis& axis) {
  return axis.scale > 0.0 ? static_cast<float>(1.0 / axis.scale)
                          : static_cast<float>(axis.in_len) / static_cast<float>(axis.out_len);
}

// area_pixel_compute_scale<double>: align_corners maps the corner pixels onto each
// other and ignores the user scale; otherwise the user scale wins over in/out when it is > 0.
double area_pixel_ratio(const Axis& axis, bool align_corners) {
  if (align_corners) {
    return axis.out_len > 1
               ? static_cast<double>(axis.in_len - 1) / static_cast<double>(axis.out_len - 1)
               : 0.0;
  }
  return axis.scale > 0.0 ? 1.0 / axis.scale
                          : static_cast<double>(axis.in_len) / static_cast<double>(axis.out_len);
}

// area_pixel_compute_source_index: half-pixel centres unless align_corners; only the linear
// modes clamp a negative coordinate to 0 (cubic keeps it, its taps need the sub-pixel offset).
double source_coordinate(double ratio, int64_t dst, bool align_corners, bool cubic) {
  if (align_corners) return ratio * static_cast<double>(dst);
  const double src = ratio * (static_cast<double>(dst) + 0.5) - 0.5;
  return (!cubic && src < 0.0) ? 0.0 : src;
}

// Truncates toward zero like static_cast<int64_t>, but saturates instead of overflowing when an
// absurd user scale makes the coordinate huge (the taps are clamped into the input afterwards).
int64_t trunc_to_index(double v) {
  constexpr double kLimit = 4.0e18;
  return static_cast<int64_t>(std::clamp(v, -kLimit, kLimit));
}

// ---------------------------------------------------------------------------------------------
// Per-axis taps of one output coordinate, one function per convention.

// nearest (legacy, OpenCV INTER_NEAREST): src = min(floorf(dst * r), in - 1), product in
// float32 (nearest_neighbor_compute_source_index).
//
// `shortcuts` selects PyTorch's nearest_idx helper instead, which copies when out == in and
// halves (dst >> 1) when out == 2 * in, ignoring the user scale. PyTorch 1.13 CPU uses it in
// every nearest backward, but in the forward only on its channels-last path (which also
// serves C == 1 tensors); the contiguous NC(D)HW / NCL forward uses the plain formula, and so
// does this reference's forward. The two only differ when a scale is given whose
// floor(in * s) lands on in or 2 * in (or a scale disagrees with the sizes); in exactly those
// cases the backward is not the adjoint of the forward, as in PyTorch (docs/numerics.md,
// deviation 5).
void nearest_taps(const Axis& axis, int64_t dst, bool shortcuts, Taps* taps) {
  int64_t src = 0;
  if (shortcuts && axis.out_len == axis.in_len) {
    src = dst;
  } else if (shortcuts && axis.out_len == 2 * axis.in_len) {
    src = dst >> 1;
  } else {
    const float ratio = nearest_ratio(axis);
    const float product = static_cast<float>(dst) * ratio;
    src = std::min(trunc_to_index(std::floor(product)), axis.in_len - 1);
  }
  taps->push_back({src, 1.0});
}

// nearest-exact (PIL / scikit-image): src = min(floorf((dst + 0.5) * r), in - 1) with the float
// ratio; as in nearest_neighbor_exact_compute_source_index the product is formed in double
// (dst + 0.5 is a double) and rounded to float by floorf's float parameter before flooring.
// No short-cuts in either direction (nearest_exact_idx has none).
void nearest_exact_taps(const Axis& axis, int64_t dst, Taps* taps) {
  const float ratio = nearest_ratio(axis);
  const auto product =
      static_cast<float>((static_cast<double>(dst) + 0.5) * static_cast<double>(ratio));
  const int64_t src = std::min(trunc_to_index(std::floor(product)), axis.in_len - 1);
  taps->push_back({src, 1.0});
}

// linear (one axis of linear / bilinear / trilinear), compute_source_index_and_lambda.
void linear_taps(const Axis& axis, bool align_corners, int64_t dst, Taps* taps) {
  // PyTorch copies an axis whose size does not change (weight 1 on dst), whatever the scale
  // and align_corners say (https://github.com/pytorch/pytorch/issues/70559).
  // The copy still names two taps, index0 = index1 = dst with lambdas (1, 0), and both are
  // read: an inf in the input (or in grad_out) becomes 1 * inf + 0 * inf = NaN in PyTorch.
  if (axis.out_len == axis.in_len) {
    taps->push_back({dst, 1.0});
    taps->push_back({dst, 0.0});
    return;
  }
  const double ratio = area_pixel_ratio(axis, align_corners);
  const double src = source_coordinate(ratio, dst, align_corners, /*cubic=*/false);
  // The floor is clamped to the last pixel and the fraction to [0, 1]; this only bites
  // when a user scale is inconsistent with the sizes (the source coordinate then runs past
  // the end, where PyTorch itself would read out of bounds).
  const int64_t i0 = std::min(trunc_to_index(std::floor(src)), axis.in_len - 1);
  const int64_t i1 = std::min(i0 + 1, axis.in_len - 1);
  const double lambda1 = std::clamp(src - static_cast<double>(i0), 0.0, 1.0);
  taps->push_back({i0, 1.0 - lambda1});
  taps->push_back({i1, lambda1});
}

// Keys cubic convolution pieces, written exactly as cubic_convolution1/2 in UpSample.h.
double cubic_convolution1(double x, double a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
double cubic_convolution2(double x, double a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }

// cubic (bicubic, antialias = false): Keys A = -0.75 on the taps floor(src) - 1 .. + 2, each
// index clamped into [0, in - 1] (replicated border, weights not renormalised).
// No per-axis out == in short-cut exists for cubic (rules_for has the one whole-problem
// copy of the backward).
void cubic_taps(const Axis& axis, bool align_corners, int64_t dst, Taps* taps) {
  constexpr double kA = -0.75;
  const double ratio = area_pixel_ratio(axis, align_corners);
  const double src = source_coordinate(ratio, dst, align_corners, /*cubic=*/true);
  // PyTorch 1.13 takes base = floor(src) and t = src - base with no further guard (no
  // min(base, in - 1), no clamp of t; the taps alone are clamped). With a scale consistent with
  // the sizes the source never reaches in - 0.5 so a guard would be moot; with an inconsistent
  // one (the aclnn APIs accept any scale) the taps all clamp to the last pixel and t stays the
  // true fraction, which is what PyTorch computes. (PyTorch floors via floorf, i.e. after
  // rounding src to float; a double floor differs only within a float ulp of an integer, where
  // the weights are (0, 1, 0, 0) either way.)
  const double floor_src = std::floor(src);
  const int64_t base = trunc_to_index(floor_src);
  const double t = src - floor_src;
  // get_cubic_upsample_coefficients: w0 = cc2(t + 1), w1 = cc1(t), w2 = cc1(1 - t),
  // w3 = cc2((1 - t) + 1).
  const double weights[4] = {cubic_convolution2(t + 1.0, kA), cubic_convolution1(t, kA),
                             cubic_convolution1(1.0 - t, kA),
                             cubic_convolution2((1.0 - t) + 1.0, kA)};
  for (int k = 0; k < 4; ++k) {
    const int64_t src_index = std::clamp<int64_t>(base - 1 + k, 0, axis.in_len - 1);
    taps->push_back({src_index, weights[k]});
  }
}

// area (adaptive average pooling, adaptive_avg_pool{1,2,3}d): output dst averages the inputs
// [floor(dst * in / out), ceil((dst + 1) * in / out)), the quotients formed in float32 from the
// integer products as AdaptivePooling.h's start_index / end_index do. The ratio is always
// in / out: area has no scale and no align_corners.
void area_taps(const Axis& axis, int64_t dst, Taps* taps) {
  const auto in = static_cast<float>(axis.in_len), out = static_cast<float>(axis.out_len);
  const int64_t start = trunc_to_index(std::floor(static_cast<float>(dst) * in / out));
  const int64_t end = trunc_to_index(std::ceil(static_cast<float>(dst + 1) * in / out));
  for (int64_t j = start; j < end; ++j) {
    taps->push_back({j, 1.0 / static_cast<double>(end - start)});
  }
}

// The anti-aliasing filters, written as PyTorch's aa_filter of the linear and cubic helpers.
double triangle_filter(double x) {
  x = std::fabs(x);
  return x < 1.0 ? 1.0 - x : 0.0;
}

double antialias_cubic_filter(double x) {
  constexpr double kA = -0.5;  // Keys/PIL value, not the -0.75 of the plain bicubic mode
  x = std::fabs(x);
  if (x < 1.0) return ((kA + 2.0) * x - (kA + 3.0)) * x * x + 1.0;
  if (x < 2.0) return (((x - 5.0) * x + 8.0) * x - 4.0) * kA;
  return 0.0;
}

// Anti-aliased linear / cubic (_compute_weights_aa): the filter is stretched by the
// ratio when downsampling, taps outside the input are dropped and the rest renormalised.
void antialias_taps(const Axis& axis, bool align_corners, Mode mode, int64_t dst, Taps* taps) {
  // No out == in short-cut: PyTorch 1.13 runs the filter on an axis whose size does not change.
  // Without a user scale the weights are then (0, 1, 0...) at integer offsets, i.e. a copy in
  // value, but the zero-weight neighbours are still read (0 * inf = NaN); with a scale the
  // ratio 1 / s really resamples.
  const bool cubic = mode == Mode::kCubic;
  const double interp_size = cubic ? 4.0 : 2.0;
  // align_corners only changes the ratio; the centre keeps the half-pixel form.
  const double ratio = area_pixel_ratio(axis, align_corners);
  const double support = ratio >= 1.0 ? (interp_size * 0.5) * ratio : interp_size * 0.5;
  const double center = ratio * (static_cast<double>(dst) + 0.5);
  const double invscale = ratio >= 1.0 ? 1.0 / ratio : 1.0;
  // Truncation toward zero, as PyTorch's static_cast does.
  const int64_t xmin = std::max(trunc_to_index(center - support + 0.5), int64_t{0});
  const int64_t xmax = std::min(trunc_to_index(center + support + 0.5), axis.in_len);
  const int64_t xsize = std::max<int64_t>(xmax - xmin, 0);
  const size_t first = taps->size();
  double total = 0.0;
  for (int64_t j = 0; j < xsize; ++j) {
    const double arg = (static_cast<double>(j + xmin) - center + 0.5) * invscale;
    const double w = cubic ? antialias_cubic_filter(arg) : triangle_filter(arg);
    taps->push_back({xmin + j, w});
    total += w;
  }
  if (total != 0.0) {
    for (size_t k = first; k < taps->size(); ++k) (*taps)[k].weight /= total;
  }
}

// All taps of output coordinate `dst` along `axis`, replacing the content of `taps`.
void axis_taps(const Problem& p, const PathRules& rules, const Axis& axis, int64_t dst,
               Taps* taps) {
  taps->clear();
  if (axis.padded) {
    taps->push_back({0, 1.0});
    return;
  }
  if (rules.copy_all) {
    taps->push_back({dst, 1.0});
    return;
  }
  if (p.antialias) {
    antialias_taps(axis, p.align_corners, p.mode, dst, taps);
    return;
  }
  switch (p.mode) {
    case Mode::kNearest:
      nearest_taps(axis, dst, rules.nearest_shortcuts, taps);
      return;
    case Mode::kNearestExact:
      nearest_exact_taps(axis, dst, taps);
      return;
    case Mode::kLinear:
      linear_taps(axis, p.align_corners, dst, taps);
      return;
    case Mode::kCubic:
      cubic_taps(axis, p.align_corners, dst, taps);
      return;
    case Mode::kArea:
      area_taps(axis, dst, taps);
      return;
  }
  throw std::invalid_argument("reference: unknown mode " +
                              std::to_string(static_cast<int>(p.mode)));
}

PathRules rules_for(const Problem& p, Pass pass) {
  PathRules rules;
  // nearest_idx (with its out == in / out == 2 * in short-cuts) serves every nearest backward;
  // the (contiguous-layout) forward uses the plain formula.
  rules.nearest_shortcuts = pass == Pass::kBackward;
  // The bicubic backward (not the forward, not AA) starts with "input and output have the same
  // spatial size: copy grad_out", ignoring scales and align_corners. It is a whole-problem test;
  // one equal axis alone is resampled normally.
  if (pass == Pass::kBackward && p.mode == Mode::kCubic && !p.antialias) {
    bool all_equal = true;
    for (int a = 0; a < p.spatial_rank; ++a) all_equal &= p.in_sizes[a] == p.out_sizes[a];
    rules.copy_all = all_equal;
  }
  return rules;
}

// ---------------------------------------------------------------------------------------------
// Validation and shapes.

int64_t checked_product(int64_t a, int64_t b, const char* what) {
  int64_t result = 0;
  if (__builtin_mul_overflow(a, b, &result)) {
    throw std::invalid_argument(std::string("reference: ") + what + " overflows int64");
  }
  return result;
}

void validate(const Problem& p) {
  if (p.spatial_rank < 1 || p.spatial_rank > kMaxRank) {
    throw std::invalid_argument("reference: spatial_rank must be 1, 2 or 3, got " +
                                std::to_string(p.spatial_rank));
  }
  if (p.n < 0) throw std::invalid_argument("reference: n must be >= 0, got " + std::to_string(p.n));
  if (p.c <= 0) throw std::invalid_argument("reference: c must be > 0, got " + std::to_string(p.c));
  for (int a = 0; a < p.spatial_rank; ++a) {
    if (p.in_sizes[a] <= 0) {
      throw std::invalid_argument("reference: in_sizes[" + std::to_string(a) +
                                  "] must be > 0, got " + std::to_string(p.in_sizes[a]));
    }
    if (p.out_sizes[a] <= 0) {
      throw std::invalid_argument("reference: out_sizes[" + std::to_string(a) +
                                  "] must be > 0, got " + std::to_string(p.out_sizes[a]));
    }
  }
  for (int a = 0; a < p.spatial_rank; ++a) {
    // A positive scale is used as 1 / s; one so small that 1 / s overflows is misuse.
    if (p.scales[a] > 0.0 && !std::isfinite(1.0 / p.scales[a])) {
      throw std::invalid_argument("reference: scales[" + std::to_string(a) +
                                  "] is too small to invert, got " + std::to_string(p.scales[a]));
    }
  }
  if (p.antialias && p.mode != Mode::kLinear && p.mode != Mode::kCubic) {
    throw std::invalid_argument("reference: antialias needs the linear or cubic mode, got mode " +
                                std::to_string(static_cast<int>(p.mode)));
  }
}

// The three axes in D, H, W order; the leading 3 - spatial_rank are padded with size 1.
std::array<Axis, kMaxRank> make_axes(const Problem& p) {
  std::array<Axis, kMaxRank> axes{};
  const int pad = kMaxRank - p.spatial_rank;
  for (int a = 0; a < kMaxRank; ++a) {
    const int problem_axis = a - pad;
    // (validate has bounded spatial_rank; the explicit range keeps -O3's array-bound analysis
    // quiet.)
    if (problem_axis < 0 || problem_axis >= kMaxRank) continue;
    axes[a] = Axis{p.in_sizes[problem_axis], p.out_sizes[problem_axis], p.scales[problem_axis],
                   /*padded=*/false};
  }
  return axes;
}

int64_t numel(const Problem& p, const std::array<int64_t, 3>& sizes) {
  validate(p);
  int64_t numel = checked_product(p.n, p.c, "n * c");
  for (int a = 0; a < p.spatial_rank; ++a) numel = checked_product(numel, sizes[a], "numel");
  return numel;
}

void check_length(const std::vector<double>& v, int64_t expected, const char* name) {
  if (static_cast<int64_t>(v.size()) != expected) {
    throw std::invalid_argument(std::string("reference: ") + name + " has " +
                                std::to_string(v.size()) + " elements, expected " +
                                std::to_string(expected));
  }
}

// Visits every output point once, in row-major (D, H, W) order, with its row-major offset in
// one plane and the per-axis taps derived for it right there (nothing is cached across points).
template <typename Visit>
void for_each_output_point(const Problem& p, Pass pass, const std::array<Axis, kMaxRank>& axes,
                           Visit&& visit) {
  const PathRules rules = rules_for(p, pass);
  std::array<Taps, kMaxRank> taps;
  int64_t dst_offset = 0;
  for (int64_t od = 0; od < axes[0].out_len; ++od) {
    for (int64_t oh = 0; oh < axes[1].out_len; ++oh) {
      for (int64_t ow = 0; ow < axes[2].out_len; ++ow, ++dst_offset) {
        axis_taps(p, rules, axes[0], od, &taps[0]);
        axis_taps(p, rules, axes[1], oh, &taps[1]);
        axis_taps(p, rules, axes[2], ow, &taps[2]);
        visit(dst_offset, taps);
      }
    }
  }
}

// Visits every output element of every plane: visit(in_base, out_index, terms), with in_base
// the offset of the element's input plane, out_index the element's index in the whole output,
// and terms(term) calling term(offset, weight) for each term of the tensor product of its
// per-axis taps (offset in the input plane, weight the product of the three weights). Every
// tap is a term, zero weights and clamped duplicates included.
template <typename Visit>
void for_each_output_element(const Problem& p, Pass pass, Visit&& visit) {
  const int64_t planes = p.n * p.c;
  if (planes == 0) return;
  const std::array<Axis, kMaxRank> axes = make_axes(p);
  const int64_t in_h = axes[1].in_len;
  const int64_t in_w = axes[2].in_len;
  const int64_t in_plane = axes[0].in_len * in_h * in_w;
  const int64_t out_plane = axes[0].out_len * axes[1].out_len * axes[2].out_len;
  for_each_output_point(p, pass, axes, [&](int64_t dst_offset, const auto& taps) {
    const auto terms = [&](auto&& term) {
      for (const Tap& td : taps[0]) {
        for (const Tap& th : taps[1]) {
          for (const Tap& tw : taps[2]) {
            term((td.src * in_h + th.src) * in_w + tw.src, td.weight * th.weight * tw.weight);
          }
        }
      }
    };
    for (int64_t plane = 0; plane < planes; ++plane) {
      visit(plane * in_plane, plane * out_plane + dst_offset, terms);
    }
  });
}

// Checks that `src` holds the pass's source elements (the input forward, the output gradient
// backward) and returns its result filled with zeros.
std::vector<double> zero_result(const Problem& p, Pass pass, const std::vector<double>& src) {
  const int64_t in_numel = input_numel(p);
  const int64_t out_numel = output_numel(p);
  const bool forward = pass == Pass::kForward;
  check_length(src, forward ? in_numel : out_numel, forward ? "x" : "grad_out");
  return std::vector<double>(static_cast<size_t>(forward ? out_numel : in_numel), 0.0);
}

}  // namespace

int64_t input_numel(const Problem& p) { return numel(p, p.in_sizes); }

int64_t output_numel(const Problem& p) { return numel(p, p.out_sizes); }

std::vector<double> forward(const Problem& p, const std::vector<double>& x) {
  std::vector<double> y = zero_result(p, Pass::kForward, x);
  // Every tap is read, zero weights included, so 0 * inf = NaN propagates as it does in
  // PyTorch; clamped duplicate taps are separate terms.
  for_each_output_element(p, Pass::kForward, [&](int64_t in_base, int64_t out_index, auto terms) {
    double acc = 0.0;
    terms([&](int64_t offset, double weight) {
      acc += weight * x[static_cast<size_t>(in_base + offset)];
    });
    y[static_cast<size_t>(out_index)] = acc;
  });
  return y;
}

std::vector<double> backward(const Problem& p, const std::vector<double>& grad_out) {
  std::vector<double> grad_in = zero_result(p, Pass::kBackward, grad_out);
  // Scatter W^T g: one term per (output point, tap); replicated border taps add up.
  for_each_output_element(p, Pass::kBackward, [&](int64_t in_base, int64_t out_index, auto terms) {
    const double g = grad_out[static_cast<size_t>(out_index)];
    terms([&](int64_t offset, double weight) {
      grad_in[static_cast<size_t>(in_base + offset)] += weight * g;
    });
  });
  return grad_in;
}

}  // namespace upsample::reference
