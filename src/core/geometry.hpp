// Geometry: the one home of every coordinate convention.
//
// Each function reproduces a named PyTorch 1.13 CPU rule (ATen/native/UpSample.h and
// native/cpu/UpSampleKernel.cpp), including the precision in which PyTorch evaluates it, because
// a float-vs-double difference moves a nearest index or a linear weight. The weight-table
// builder (axis_table.cpp) is the only caller; kernels never compute a source coordinate.
//
// Notation: in_len / out_len are the lengths of one axis; dst is an output index; `scale` is
// the user's scale_factor for the axis (a multiplier out/in), <= 0 when not given.
#pragma once

#include <cstdint>

namespace upsample::geometry {

// Note [ratio]
// PyTorch's area_pixel_compute_scale / compute_scales_value: the ratio that maps output
// coordinates to input coordinates (input units per output unit).
//   align_corners:  (in - 1) / (out - 1), or 0 when out == 1 (the user scale is ignored);
//   otherwise:      1 / scale when a scale > 0 is given (reciprocal taken in double, then
//                   rounded to T), else in / out computed in T.
// T is the kernel's "opmath" type: float for float/half/bfloat16 data, double for double.
template <typename T>
T ratio(int64_t in_len, int64_t out_len, bool align_corners, double scale) {
  if (align_corners) {
    return out_len > 1 ? static_cast<T>(in_len - 1) / static_cast<T>(out_len - 1) : T(0);
  }
  return scale > 0.0 ? static_cast<T>(1.0 / scale)
                     : static_cast<T>(in_len) / static_cast<T>(out_len);
}

// Note [nearest index]
// PyTorch "nearest" (OpenCV INTER_NEAREST, "buggy and kept for BC"): the ratio is always a
// float32 (compute_scales_value<float>) and the product dst * ratio is a float32 product,
// floored with floorf; the index is clamped to in - 1. A double-precision evaluation picks a
// different pixel at some boundaries, so the float32 arithmetic is part of the contract.
int64_t nearest_index(int64_t dst, int64_t in_len, int64_t out_len, double scale);

// Note [nearest-exact index]
// PyTorch "nearest-exact" (Pillow, scikit-image): floorf((dst + 0.5) * ratio) with the float32
// ratio of Note [nearest index]; (dst + 0.5) is a double, so the product is formed in double and
// rounded to float32 by floorf's argument conversion — reproduced literally. Clamped to in - 1.
int64_t nearest_exact_index(int64_t dst, int64_t in_len, int64_t out_len, double scale);

// Note [linear source index]
// PyTorch's area_pixel_compute_source_index with cubic = false, evaluated in the accumulate type
// (double on the CPU, also for float data: compute_source_index_and_lambda uses
// acc_type<scalar_t, /*is_cuda=*/false>):
//   align_corners: x = ratio * dst;   otherwise: x = max(ratio * (dst + 0.5) - 0.5, 0).
// The clamp at 0 makes the first output copy the first input for upsampling.
double linear_source_index(double ratio, int64_t dst, bool align_corners);

// Note [cubic source index]
// PyTorch 1.13's bicubic forward: the ratio is rounded to T (opmath), but the coordinate is
// formed in double like the linear one, NOT clamped at 0 (cubic = true: a negative coordinate
// changes the weights):
//   align_corners: x = ratio * dst;   otherwise: x = ratio * (dst + 0.5) - 0.5.
// The tap is floorf(float(x)) - the coordinate is rounded to float before flooring, even for
// double data - and the fraction t = x - floor is NOT clamped (it can be slightly negative when
// the float rounding crossed an integer). Reproduced literally: it picks the same weights as
// PyTorch in every configuration we sampled.
double cubic_source_index(double ratio, int64_t dst, bool align_corners);
int64_t cubic_tap(double x);

// PyTorch 1.13's bicubic BACKWARD instead evaluates the coordinate in T, clamps the tap to
// in - 1 and t to [0, 1] (guard_index_and_lambda); backward tables follow that rule. The two
// differ only by the rounding of the coordinate, so the backward is still the adjoint of the
// forward up to rounding (the cubic interpolant is continuous across taps).
template <typename T>
T cubic_source_index_backward(T ratio, int64_t dst, bool align_corners) {
  if (align_corners) return ratio * static_cast<T>(dst);
  return ratio * (static_cast<T>(dst) + static_cast<T>(0.5)) - static_cast<T>(0.5);
}

// Note [cubic coefficients]
// Keys' cubic convolution with A = -0.75 (OpenCV's value; PyTorch get_cubic_upsample_coefficients)
// for the taps floor(x)-1 .. floor(x)+2 at fraction t, evaluated in T with PyTorch's argument
// forms t + 1, t, 1 - t and (1 - t) + 1 (two roundings for the last, as PyTorch).
template <typename T>
void cubic_coefficients(T t, T A, T coeffs[4]) {
  auto near = [A](T x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };       // |x| <= 1
  auto far = [A](T x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };  // 1 < |x| < 2
  const T one_minus_t = T(1) - t;
  coeffs[0] = far(t + T(1));
  coeffs[1] = near(t);
  coeffs[2] = near(one_minus_t);
  coeffs[3] = far(one_minus_t + T(1));
}

// Note [identity axes]
// An axis whose length does not change is copied, not resampled: PyTorch's linear helper
// (compute_source_index_and_lambda) returns the taps (dst, 1) and (dst, 0) regardless of the
// scale, and its antialias weights at ratio 1 are a copy. PyTorch evaluates the zero-weight tap,
// so an infinite input becomes NaN there; we skip the pass and keep it (docs/numerics.md,
// deviation 1).

// Note [area window]
// PyTorch "area" is adaptive average pooling (F.interpolate calls adaptive_avg_pool{1,2,3}d):
// output i averages the inputs [start, end) with start = floor(i * in / out) and
// end = ceil((i + 1) * in / out), the quotients formed in float32 from the integer products
// (AdaptivePooling.h: start_index / end_index), reproduced literally. Windows of neighbouring
// outputs may overlap by one input when in / out is not an integer. No scale and no
// align_corners: the ratio is always in / out.
int64_t area_start(int64_t dst, int64_t in_len, int64_t out_len);
int64_t area_end(int64_t dst, int64_t in_len, int64_t out_len);

inline constexpr double kCubicA = -0.75;          // bicubic without antialias
inline constexpr double kCubicAntialiasA = -0.5;  // bicubic with antialias (Pillow's value)

// Note [antialias filters]
// PyTorch's aa_filter for bilinear (triangle, support 1) and bicubic (Keys a = -0.5, support 2),
// as in Pillow. Evaluated in T.
template <typename T>
T triangle_filter(T x) {
  if (x < T(0)) x = -x;
  return x < T(1) ? T(1) - x : T(0);
}
// PyTorch 1.13 writes a as a double literal, so the |x| < 1 branch is evaluated in double and
// rounded to T; the other branch is T arithmetic (its final product by -0.5 is exact).
template <typename T>
T antialias_cubic_filter(T x) {
  constexpr double a = kCubicAntialiasA;
  if (x < T(0)) x = -x;
  const double xd = static_cast<double>(x);
  if (x < T(1)) return static_cast<T>(((a + 2.0) * xd - (a + 3.0)) * xd * xd + 1.0);
  if (x < T(2)) return static_cast<T>((((x - T(5)) * x + T(8)) * x - T(4)) * a);
  return T(0);
}

}  // namespace upsample::geometry
