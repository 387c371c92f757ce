// Tests of the independent float64 reference (src/reference): hand-computed values for every
// convention, the example programs of examples/, invariants (constants, ramps, adjointness) and
// the PyTorch 1.13 quirks the reference reproduces on purpose.
#include "reference/reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/mode.hpp"

namespace {

namespace ref = upsample::reference;
using ref::Mode;

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string describe(const ref::Problem& p) {
  std::string text = std::string(upsample::mode_name(ref::library_mode(p.mode))) +
                     (p.antialias ? " aa" : "") + (p.align_corners ? " align" : "") +
                     " n=" + std::to_string(p.n) + " c=" + std::to_string(p.c) + " in/out/scale:";
  for (int a = 0; a < p.spatial_rank; ++a) {
    text += " " + std::to_string(p.in_sizes[a]) + "->" + std::to_string(p.out_sizes[a]) + "/" +
            std::to_string(p.scales[a]);
  }
  return text;
}

// A one-plane 1-D problem.
ref::Problem problem_1d(Mode mode, int64_t in_len, int64_t out_len, bool align_corners = false,
                        double scale = 0.0, bool antialias = false) {
  ref::Problem p;
  p.mode = mode;
  p.antialias = antialias;
  p.align_corners = align_corners;
  p.spatial_rank = 1;
  p.in_sizes = {in_len, 1, 1};
  p.out_sizes = {out_len, 1, 1};
  p.scales = {scale, 0.0, 0.0};
  return p;
}

// A one-plane 2-D problem.
ref::Problem problem_2d(Mode mode, int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w,
                        bool align_corners = false, double scale_h = 0.0, double scale_w = 0.0,
                        bool antialias = false) {
  ref::Problem p;
  p.mode = mode;
  p.antialias = antialias;
  p.align_corners = align_corners;
  p.spatial_rank = 2;
  p.in_sizes = {in_h, in_w, 1};
  p.out_sizes = {out_h, out_w, 1};
  p.scales = {scale_h, scale_w, 0.0};
  return p;
}

std::vector<double> iota(int64_t count, double start = 0.0) {
  std::vector<double> v(static_cast<size_t>(count));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + static_cast<double>(i);
  return v;
}

std::vector<double> random_values(int64_t count, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> v(static_cast<size_t>(count));
  for (double& e : v) e = dist(rng);
  return v;
}

std::vector<double> impulse(int64_t count, int64_t at) {
  std::vector<double> v(static_cast<size_t>(count), 0.0);
  v[static_cast<size_t>(at)] = 1.0;
  return v;
}

// The source index each output picks, read back by resampling the ramp 0, 1, 2, ...
std::vector<int64_t> picked_indices(const ref::Problem& p) {
  const std::vector<double> y = ref::forward(p, iota(ref::input_numel(p)));
  std::vector<int64_t> indices;
  for (double v : y) indices.push_back(static_cast<int64_t>(v));
  return indices;
}

void expect_all_near(const std::vector<double>& actual, const std::vector<double>& expected,
                     double tolerance, const std::string& context = "") {
  ASSERT_EQ(actual.size(), expected.size()) << context;
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], tolerance) << context << " at " << i;
  }
}

// ---------------------------------------------------------------------------------------------
// Linear.

TEST(ReferenceLinear, AlignFalseUpsample2To4) {
  // src = max(0.5 * (dst + 0.5) - 0.5, 0) = 0 (from -0.25), 0.25, 0.75, 1.25; i1 clamps to 1.
  const auto p = problem_1d(Mode::kLinear, 2, 4);
  const std::vector<double> x = {3.0, 7.0};
  expect_all_near(ref::forward(p, x), {3.0, 0.75 * 3 + 0.25 * 7, 0.25 * 3 + 0.75 * 7, 7.0}, 0.0);
}

TEST(ReferenceLinear, AlignTrue2To3GivesTheMidpoint) {
  // r = (2 - 1) / (3 - 1) = 0.5: src = 0, 0.5, 1.
  const auto p = problem_1d(Mode::kLinear, 2, 3, /*align_corners=*/true);
  expect_all_near(ref::forward(p, {3.0, 7.0}), {3.0, 5.0, 7.0}, 0.0);
}

TEST(ReferenceLinear, SameSizeIsACopyWhateverTheScale) {
  // compute_source_index_and_lambda copies when out == in, even with a scale of 1.3 or
  // align_corners (pytorch/pytorch#70559).
  const std::vector<double> x = {4.0, -1.0, 2.5, 8.0, 0.5};
  for (bool align : {false, true}) {
    for (double scale : {0.0, 1.3, 0.4}) {
      expect_all_near(ref::forward(problem_1d(Mode::kLinear, 5, 5, align, scale), x), x, 0.0);
    }
  }
}

TEST(ReferenceLinear, SameSizeCopyStillReadsItsZeroWeightTap) {
  // PyTorch's copy is index0 = index1 = dst with lambdas (1, 0): 1 * inf + 0 * inf = NaN.
  const std::vector<double> y =
      ref::forward(problem_1d(Mode::kLinear, 4, 4), {1.0, kInf, 3.0, 4.0});
  EXPECT_EQ(y[0], 1.0);
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_EQ(y[2], 3.0);
}

TEST(ReferenceLinear, RampIsReproducedExactlyWithAlignCorners) {
  // A ramp a*i + b resamples to a*r*dst + b for every dst when align_corners = true.
  for (int64_t in_len : {2, 3, 7, 16}) {
    for (int64_t out_len : {2, 5, 9, 31}) {
      if (in_len == out_len) continue;
      const auto p = problem_1d(Mode::kLinear, in_len, out_len, /*align_corners=*/true);
      std::vector<double> x(static_cast<size_t>(in_len));
      for (int64_t i = 0; i < in_len; ++i) x[static_cast<size_t>(i)] = 2.0 * i + 1.0;
      const std::vector<double> y = ref::forward(p, x);
      const double ratio = static_cast<double>(in_len - 1) / static_cast<double>(out_len - 1);
      for (int64_t dst = 0; dst < out_len; ++dst) {
        EXPECT_NEAR(y[static_cast<size_t>(dst)], 2.0 * ratio * dst + 1.0, 1e-12)
            << in_len << "->" << out_len << " dst " << dst;
      }
    }
  }
}

TEST(ReferenceLinear, RampIsReproducedInTheInteriorWithoutAlignCorners) {
  for (int64_t in_len : {3, 7, 16}) {
    for (int64_t out_len : {2, 5, 9, 31}) {
      const auto p = problem_1d(Mode::kLinear, in_len, out_len);
      std::vector<double> x(static_cast<size_t>(in_len));
      for (int64_t i = 0; i < in_len; ++i) x[static_cast<size_t>(i)] = -3.0 * i + 2.0;
      const std::vector<double> y = ref::forward(p, x);
      const double ratio = static_cast<double>(in_len) / static_cast<double>(out_len);
      for (int64_t dst = 0; dst < out_len; ++dst) {
        const double src = in_len == out_len ? dst : ratio * (dst + 0.5) - 0.5;
        if (src < 0.0 || src > in_len - 1) continue;  // the clamped borders
        EXPECT_NEAR(y[static_cast<size_t>(dst)], -3.0 * src + 2.0, 1e-12)
            << in_len << "->" << out_len << " dst " << dst;
      }
    }
  }
}

TEST(ReferenceLinear, BilinearPlaneIsReproducedWithAlignCorners) {
  // x[h][w] = 5h - 2w + 1 on 3x4 -> 7x6; r_h = 2/6, r_w = 3/5.
  auto p = problem_2d(Mode::kLinear, 3, 4, 7, 6, /*align_corners=*/true);
  std::vector<double> x;
  for (int h = 0; h < 3; ++h) {
    for (int w = 0; w < 4; ++w) x.push_back(5.0 * h - 2.0 * w + 1.0);
  }
  const std::vector<double> y = ref::forward(p, x);
  for (int h = 0; h < 7; ++h) {
    for (int w = 0; w < 6; ++w) {
      EXPECT_NEAR(y[static_cast<size_t>(h * 6 + w)], 5.0 * h / 3.0 - 2.0 * w * 0.6 + 1.0, 1e-12);
    }
  }
}

TEST(ReferenceLinear, LengthOneOutputSamplesTheCentre) {
  // align false: r = in / out = 4, src = 4 * 0.5 - 0.5 = 1.5 (docs/numerics.md, "linear source
  // index"); align true: r = 0.
  const std::vector<double> x = {1.0, 10.0, 100.0, 1000.0};
  expect_all_near(ref::forward(problem_1d(Mode::kLinear, 4, 1), x), {55.0}, 1e-12);
  expect_all_near(ref::forward(problem_1d(Mode::kLinear, 4, 1, true), x), {1.0}, 0.0);
}

TEST(ReferenceLinear, GivenScaleChangesTheRatio) {
  // A given scale sets the ratio (docs/numerics.md, "ratio"): in = 5, s = 1.3 -> out = 6.
  // r = 1/1.3 (kept) vs 5/6 (recomputed); on the ramp 0..4 the value is the source coordinate
  // itself: dst 5 -> 5.5/1.3 - 0.5 = 3.73 vs 5.5*5/6 - 0.5 = 4.083, which lies past the last
  // pixel, so both taps are pixel 4.
  const std::vector<double> x = iota(5);
  const std::vector<double> kept = ref::forward(problem_1d(Mode::kLinear, 5, 6, false, 1.3), x);
  const std::vector<double> recomputed = ref::forward(problem_1d(Mode::kLinear, 5, 6), x);
  EXPECT_NEAR(kept[5], 5.5 / 1.3 - 0.5, 1e-12);  // 3.7307...
  EXPECT_EQ(recomputed[5], 4.0);
  EXPECT_NEAR(kept[1], 1.5 / 1.3 - 0.5, 1e-12);
  EXPECT_NEAR(recomputed[1], 1.5 * 5.0 / 6.0 - 0.5, 1e-12);
  // align_corners ignores the scale.
  expect_all_near(ref::forward(problem_1d(Mode::kLinear, 5, 6, true, 1.3), x),
                  ref::forward(problem_1d(Mode::kLinear, 5, 6, true), x), 0.0);
}

// ---------------------------------------------------------------------------------------------
// Nearest and nearest-exact.

TEST(ReferenceNearest, ThreeToFive) {
  // nearest: floor(dst * 0.6) = 0, 0, 1, 1, 2; exact: floor((dst + 0.5) * 0.6) = 0, 0, 1, 2, 2.
  EXPECT_EQ(picked_indices(problem_1d(Mode::kNearest, 3, 5)),
            (std::vector<int64_t>{0, 0, 1, 1, 2}));
  EXPECT_EQ(picked_indices(problem_1d(Mode::kNearestExact, 3, 5)),
            (std::vector<int64_t>{0, 0, 1, 2, 2}));
}

TEST(ReferenceNearest, TwentySixToElevenUsesTheFloat32Ratio) {
  // r = float(26) / float(11) = 2.3636362552642822, just below 26/11.
  // nearest: floor(float(dst * r)): 0, 2.36, 4.73, 7.09, 9.45, 11.8, 14.2, 16.5, 18.9, 21.3, 23.6.
  EXPECT_EQ(picked_indices(problem_1d(Mode::kNearest, 26, 11)),
            (std::vector<int64_t>{0, 2, 4, 7, 9, 11, 14, 16, 18, 21, 23}));
  // nearest-exact: floor(float((dst + 0.5) * r)): 1.18, 3.55, 5.91, 8.27, 10.6, then
  // 5.5 * r = 12.9999994 (would be exactly 13 with the true ratio, and 13 when dividing by
  // out/in as flagos-ai/FlagGems#5229 did), 15.4, 17.7, 20.1, 22.5, 24.8.
  EXPECT_EQ(picked_indices(problem_1d(Mode::kNearestExact, 26, 11)),
            (std::vector<int64_t>{1, 3, 5, 8, 10, 12, 15, 17, 20, 22, 24}));
}

TEST(ReferenceNearest, FourteenToFortySixPicksTheFloat32Neighbour) {
  // r = float(14/46) = 0.30434781312942505 < 7/23, so dst 23 gives float(23 r) = 6.9999995 ->
  // 6, where exact arithmetic would give 7 (the ratio is float32: docs/numerics.md, "nearest").
  const std::vector<int64_t> picked = picked_indices(problem_1d(Mode::kNearest, 14, 46));
  EXPECT_EQ(picked[23], 6);
  EXPECT_EQ(picked[22], 6);
  EXPECT_EQ(picked[24], 7);
}

TEST(ReferenceNearest, GivenScaleChangesTheRatio) {
  // in = 5, s = 1.3, out = 6: r = float(1/1.3) = 0.7692308 -> dst 5 picks floor(3.846) = 3;
  // r = 5/6 picks floor(4.1667) = 4.
  EXPECT_EQ(picked_indices(problem_1d(Mode::kNearest, 5, 6, false, 1.3)),
            (std::vector<int64_t>{0, 0, 1, 2, 3, 3}));
  EXPECT_EQ(picked_indices(problem_1d(Mode::kNearest, 5, 6)),
            (std::vector<int64_t>{0, 0, 1, 2, 3, 4}));
}

TEST(ReferenceNearest, ForwardHasNoShortCutButBackwardHas) {
  // PyTorch 1.13 CPU: the (contiguous) forward applies floor(dst * r) even when out == in or
  // out == 2 * in, while the backward's nearest_idx copies / halves (nearest_idx in
  // https://github.com/pytorch/pytorch/blob/v1.13.0/aten/src/ATen/native/UpSample.h).
  const auto same = problem_1d(Mode::kNearest, 5, 5, false, 1.1);  // floor(5 * 1.1) = 5
  EXPECT_EQ(picked_indices(same), (std::vector<int64_t>{0, 0, 1, 2, 3}));
  expect_all_near(ref::backward(same, {1, 2, 3, 4, 5}), {1, 2, 3, 4, 5}, 0.0);

  const auto twice = problem_1d(Mode::kNearest, 5, 10, false, 2.1);  // floor(5 * 2.1) = 10
  EXPECT_EQ(picked_indices(twice), (std::vector<int64_t>{0, 0, 0, 1, 1, 2, 2, 3, 3, 4}));
  expect_all_near(ref::backward(twice, iota(10, 1.0)), {3, 7, 11, 15, 19}, 0.0);

  // nearest-exact has no short-cut in either direction: backward is the transpose.
  const auto exact = problem_1d(Mode::kNearestExact, 5, 5, false, 3.0);
  EXPECT_EQ(picked_indices(exact), (std::vector<int64_t>{0, 0, 0, 1, 1}));
  expect_all_near(ref::backward(exact, {1, 2, 3, 4, 5}), {6, 9, 0, 0, 0}, 0.0);
}

TEST(ReferenceNearest, LengthOneInputAndOutput) {
  for (Mode mode : {Mode::kNearest, Mode::kNearestExact}) {
    expect_all_near(ref::forward(problem_1d(mode, 1, 4), {7.0}), {7, 7, 7, 7}, 0.0);
  }
  // in = 4 -> out = 1: r = 4: nearest floor(0) = 0, nearest-exact floor(0.5 * 4) = 2.
  EXPECT_EQ(picked_indices(problem_1d(Mode::kNearest, 4, 1)), (std::vector<int64_t>{0}));
  EXPECT_EQ(picked_indices(problem_1d(Mode::kNearestExact, 4, 1)), (std::vector<int64_t>{2}));
}

// ---------------------------------------------------------------------------------------------
// Cubic (antialias = false).

// Keys weights with A = -0.75 at t = 0.25, computed by hand:
// cc1(x) = (1.25x - 2.25)x^2 + 1, cc2(x) = -0.75(((x - 5)x + 8)x - 4).
constexpr double kCubicW0 = -0.10546875;  // cc2(1.25)
constexpr double kCubicW1 = 0.87890625;   // cc1(0.25)
constexpr double kCubicW2 = 0.26171875;   // cc1(0.75)
constexpr double kCubicW3 = -0.03515625;  // cc2(1.75)

TEST(ReferenceCubic, HandComputedWeightsInTheInterior) {
  // 4 -> 8, align false: src = 0.5 * (3 + 0.5) - 0.5 = 1.25 at dst 3, base 1, t = 0.25; the
  // impulse response at dst 3 reads the weight of each tap 0..3.
  const auto p = problem_1d(Mode::kCubic, 4, 8);
  const double expected[4] = {kCubicW0, kCubicW1, kCubicW2, kCubicW3};
  EXPECT_DOUBLE_EQ(kCubicW0 + kCubicW1 + kCubicW2 + kCubicW3, 1.0);
  for (int k = 0; k < 4; ++k) {
    EXPECT_DOUBLE_EQ(ref::forward(p, impulse(4, k))[3], expected[k]) << "tap " << k;
  }
}

TEST(ReferenceCubic, BorderTapsAreReplicatedNotRenormalised) {
  // dst 0: src = -0.25 (not clamped to 0 for cubic), base -1, t = 0.75: taps -2, -1, 0, 1 clamp
  // to 0, 0, 0, 1 with weights cc2(1.75), cc1(0.75), cc1(0.25), cc2(1.25).
  const auto p = problem_1d(Mode::kCubic, 4, 8);
  EXPECT_DOUBLE_EQ(ref::forward(p, impulse(4, 0))[0], kCubicW3 + kCubicW2 + kCubicW1);
  EXPECT_DOUBLE_EQ(ref::forward(p, impulse(4, 1))[0], kCubicW0);
  EXPECT_DOUBLE_EQ(ref::forward(p, {1, 10, 100, 1000})[0], 0.05078125);
  // The transposed replicated taps accumulate on pixel 0 (B10.1).
  std::vector<double> g(8, 0.0);
  g[0] = 1.0;
  expect_all_near(ref::backward(p, g), {kCubicW3 + kCubicW2 + kCubicW1, kCubicW0, 0, 0}, 1e-15);
}

TEST(ReferenceCubic, ZeroFractionIsThePixelItself) {
  // align true 3 -> 5: r = 0.5, dst 2 -> src 1 exactly, weights (0, 1, 0, 0).
  const auto p = problem_1d(Mode::kCubic, 3, 5, /*align_corners=*/true);
  EXPECT_EQ(ref::forward(p, {2.0, -7.0, 5.0})[2], -7.0);
  EXPECT_EQ(ref::forward(p, impulse(3, 0))[2], 0.0);
  EXPECT_EQ(ref::forward(p, impulse(3, 1))[2], 1.0);
  EXPECT_EQ(ref::forward(p, impulse(3, 2))[2], 0.0);
  // The zero-weight taps are still read, as in PyTorch: 0 * inf = NaN (torch gives
  // [nan, nan, nan, nan, 5] here).
  const std::vector<double> y = ref::forward(p, {kInf, -7.0, 5.0});
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_EQ(y[4], 5.0);
  // Same size without a scale: src = dst everywhere, so a copy in value.
  const std::vector<double> x = {3.0, 1.0, 4.0, 1.0, 5.0};
  expect_all_near(ref::forward(problem_1d(Mode::kCubic, 5, 5), x), x, 0.0);
}

TEST(ReferenceCubic, WeightsSumToOneForRandomFractions) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> size(1, 23);
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t in_len = size(rng);
    const int64_t out_len = size(rng);
    const auto p = problem_1d(Mode::kCubic, in_len, out_len, trial % 2 == 1);
    for (int64_t dst = 0; dst < out_len; ++dst) {
      // The sum of the impulse responses at dst is the sum of its weights.
      double sum = 0.0;
      for (int64_t k = 0; k < in_len; ++k) {
        sum += ref::forward(p, impulse(in_len, k))[static_cast<size_t>(dst)];
      }
      EXPECT_NEAR(sum, 1.0, 1e-14) << describe(p) << " dst " << dst;
    }
  }
}

TEST(ReferenceCubic, LengthOneOutput) {
  // 4 -> 1 align false: src = 1.5, base 1, t = 0.5: weights cc2(1.5), cc1(0.5), cc1(0.5),
  // cc2(1.5) = -0.09375, 0.59375, 0.59375, -0.09375 on taps 0..3.
  const double expected = -0.09375 * 1 + 0.59375 * 10 + 0.59375 * 100 - 0.09375 * 1000;
  expect_all_near(ref::forward(problem_1d(Mode::kCubic, 4, 1), {1, 10, 100, 1000}), {expected},
                  1e-12);
}

TEST(ReferenceCubic, BackwardOfASameSizeProblemIsACopy) {
  // PyTorch 1.13's bicubic backward copies grad_out when every spatial size is unchanged,
  // ignoring the scales, although the forward resamples with r = 1/s (not an adjoint pair).
  const auto p = problem_2d(Mode::kCubic, 4, 3, 4, 3, false, 1.3, 0.0);
  const std::vector<double> g = iota(12, 1.0);
  expect_all_near(ref::backward(p, g), g, 0.0);
  const std::vector<double> y = ref::forward(p, iota(12));
  EXPECT_GT(std::fabs(y[3] - 3.0), 0.1);
  // With only one axis unchanged the backward is the real transpose.
  const auto q = problem_2d(Mode::kCubic, 4, 3, 4, 6, false, 1.3, 0.0);
  const std::vector<double> gq = iota(24, 1.0);
  const std::vector<double> x = iota(12, -3.0);
  double lhs = 0.0;
  double rhs = 0.0;
  const std::vector<double> fx = ref::forward(q, x);
  const std::vector<double> bg = ref::backward(q, gq);
  for (size_t i = 0; i < fx.size(); ++i) lhs += fx[i] * gq[i];
  for (size_t i = 0; i < x.size(); ++i) rhs += x[i] * bg[i];
  EXPECT_NEAR(lhs, rhs, 1e-10);
}

// ---------------------------------------------------------------------------------------------
// Anti-aliased linear / cubic.

TEST(ReferenceAntialias, BilinearDownsample4To2) {
  // r = 2, support = 2, invscale = 0.5. dst 0: centre 1, window [0, 3), weights
  // tri(-0.25), tri(0.25), tri(0.75) = 0.75, 0.75, 0.25 -> 3/7, 3/7, 1/7.
  // dst 1: centre 3, window [1, 4), weights 0.25, 0.75, 0.75 -> 1/7, 3/7, 3/7.
  const auto p = problem_1d(Mode::kLinear, 4, 2, false, 0.0, /*antialias=*/true);
  expect_all_near(ref::forward(p, {1, 10, 100, 1000}),
                  {(3.0 + 30.0 + 100.0) / 7.0, (10.0 + 300.0 + 3000.0) / 7.0}, 1e-12);
  expect_all_near(ref::backward(p, {7.0, 0.0}), {3, 3, 1, 0}, 1e-12);
}

TEST(ReferenceAntialias, BicubicDownsample4To2) {
  // r = 2, support = 4, invscale = 0.5. dst 0: centre 1, window [0, 4), args -0.25, 0.25, 0.75,
  // 1.25 on the a = -0.5 Keys filter: 0.8671875, 0.8671875, 0.2265625, -0.0703125 (sum
  // 1.890625), normalised.
  const auto p = problem_1d(Mode::kCubic, 4, 2, false, 0.0, /*antialias=*/true);
  const double raw[4] = {0.8671875, 0.8671875, 0.2265625, -0.0703125};
  const double sum = 1.890625;
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(ref::forward(p, impulse(4, k))[0], raw[k] / sum, 1e-15) << "tap " << k;
  }
}

TEST(ReferenceAntialias, BicubicUpsampleUsesKeysMinusHalf) {
  // 4 -> 8: r = 0.5 (< 1: support 2, invscale 1). dst 3: centre 1.75, window [0, 4),
  // args -1.25, -0.25, 0.75, 1.75: -0.0703125, 0.8671875, 0.2265625, -0.0234375 (sum 1), which
  // differ from the A = -0.75 weights of the plain bicubic mode at the same point.
  const auto aa = problem_1d(Mode::kCubic, 4, 8, false, 0.0, /*antialias=*/true);
  const std::vector<double> x = {1, 10, 100, 1000};
  EXPECT_NEAR(ref::forward(aa, x)[3], -0.0703125 + 8.671875 + 22.65625 - 23.4375, 1e-12);
  EXPECT_NEAR(ref::forward(problem_1d(Mode::kCubic, 4, 8), x)[3],
              kCubicW0 + 10 * kCubicW1 + 100 * kCubicW2 + 1000 * kCubicW3, 1e-12);
}

TEST(ReferenceAntialias, BilinearUpsampleEqualsPlainBilinearInside) {
  // Upsampling with the triangle filter of support 1 is ordinary linear interpolation where the
  // window is not cut by a border.
  const auto aa = problem_1d(Mode::kLinear, 5, 12, false, 0.0, true);
  const auto plain = problem_1d(Mode::kLinear, 5, 12);
  const std::vector<double> x = {2.0, -1.0, 4.0, 0.5, 3.0};
  const std::vector<double> ya = ref::forward(aa, x);
  const std::vector<double> yp = ref::forward(plain, x);
  for (size_t dst = 2; dst + 2 < ya.size(); ++dst) EXPECT_NEAR(ya[dst], yp[dst], 1e-12) << dst;
}

TEST(ReferenceAntialias, SameSizeAxisIsFilteredNotSkipped) {
  // PyTorch 1.13 has no out == in short-cut for AA. Without a scale the weights at integer
  // offsets make it a copy in value, but the zero-weight neighbour is read (0 * inf = NaN).
  const auto p = problem_1d(Mode::kLinear, 6, 6, false, 0.0, true);
  const std::vector<double> x = {0, 1, 2, 3, 4, 5};
  expect_all_near(ref::forward(p, x), x, 0.0);
  const std::vector<double> y = ref::forward(p, {0, 1, kInf, 3, 4, 5});
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_EQ(y[2], kInf);
  EXPECT_EQ(y[3], 3.0);
  // With a scale the ratio 1/s resamples: s = 1.1, dst 1: centre 1.5/1.1 = 15/11, window
  // [0, 2), weights 3/22 and 19/22 -> 19/22 on the ramp.
  const std::vector<double> ys = ref::forward(problem_1d(Mode::kLinear, 6, 6, false, 1.1, true), x);
  EXPECT_NEAR(ys[1], 19.0 / 22.0, 1e-12);
  EXPECT_EQ(ys[0], 0.0);
}

TEST(ReferenceAntialias, AlignCornersOnlyChangesTheRatio) {
  // 4 -> 2 align true: r = 3, support = 3, invscale = 1/3, centre = 3 * (dst + 0.5) = 1.5, 4.5.
  // dst 0: window [max(trunc(-1), 0), min(trunc(5), 4)) = [0, 4): args (j - 1)/3 ->
  // tri(-1/3), tri(0), tri(1/3), tri(2/3) = 2/3, 1, 2/3, 1/3 (sum 8/3).
  const auto p = problem_1d(Mode::kLinear, 4, 2, true, 0.0, true);
  const std::vector<double> y = ref::forward(p, {1, 10, 100, 1000});
  EXPECT_NEAR(y[0], (2.0 / 3 * 1 + 10 + 2.0 / 3 * 100 + 1.0 / 3 * 1000) / (8.0 / 3), 1e-12);
}

// ---------------------------------------------------------------------------------------------
// Invariants over many problems.

struct Variant {
  Mode mode;
  bool antialias;
  bool align_corners;
};

std::vector<Variant> all_variants() {
  std::vector<Variant> variants;
  for (Mode mode : {Mode::kNearest, Mode::kNearestExact}) variants.push_back({mode, false, false});
  for (Mode mode : {Mode::kLinear, Mode::kCubic}) {
    for (bool aa : {false, true}) {
      for (bool align : {false, true}) variants.push_back({mode, aa, align});
    }
  }
  return variants;
}

// A random problem of the given variant; scales, when given, are consistent with the sizes
// (out = floor(in * s)) as interpolate() produces them.
ref::Problem random_problem(const Variant& v, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> rank_dist(1, 3);
  std::uniform_int_distribution<int64_t> size(1, 9);
  std::uniform_real_distribution<double> scale_dist(0.3, 3.2);
  ref::Problem p;
  p.mode = v.mode;
  p.antialias = v.antialias;
  p.align_corners = v.align_corners;
  p.n = std::uniform_int_distribution<int64_t>(1, 2)(rng);
  p.c = std::uniform_int_distribution<int64_t>(1, 2)(rng);
  p.spatial_rank = rank_dist(rng);
  for (int a = 0; a < p.spatial_rank; ++a) {
    p.in_sizes[a] = size(rng);
    p.out_sizes[a] = size(rng);
    p.scales[a] = 0.0;
    if (rng() % 2 == 0) {
      const double s = scale_dist(rng);
      const auto out = static_cast<int64_t>(static_cast<double>(p.in_sizes[a]) * s);
      if (out >= 1) {
        p.out_sizes[a] = out;
        p.scales[a] = s;
      }
    }
  }
  return p;
}

TEST(ReferenceInvariants, ConstantInputGivesConstantOutput) {
  std::mt19937_64 rng(11);
  for (const Variant& v : all_variants()) {
    for (int trial = 0; trial < 60; ++trial) {
      const ref::Problem p = random_problem(v, rng);
      const std::vector<double> x(static_cast<size_t>(ref::input_numel(p)), -2.75);
      const std::vector<double> y = ref::forward(p, x);
      ASSERT_EQ(static_cast<int64_t>(y.size()), ref::output_numel(p));
      for (double e : y) ASSERT_NEAR(e, -2.75, 1e-13) << describe(p);
    }
  }
}

TEST(ReferenceInvariants, ConstantSurvivesUpAndDownsamplingInEveryMode) {
  // Explicit up / down pairs, both align settings, 2-D (AA and cubic are 2-D in PyTorch).
  for (const Variant& v : all_variants()) {
    for (auto [in_len, out_len] :
         {std::pair<int64_t, int64_t>{3, 11}, {11, 3}, {16, 5}, {1, 4}, {4, 1}, {7, 7}}) {
      const auto p =
          problem_2d(v.mode, in_len, 2, out_len, 5, v.align_corners, 0.0, 0.0, v.antialias);
      const std::vector<double> y =
          ref::forward(p, std::vector<double>(static_cast<size_t>(in_len * 2), 4.5));
      for (double e : y) ASSERT_NEAR(e, 4.5, 1e-13) << describe(p);
    }
  }
}

TEST(ReferenceInvariants, LengthOneInputBroadcasts) {
  for (const Variant& v : all_variants()) {
    const auto p = problem_1d(v.mode, 1, 6, v.align_corners, 0.0, v.antialias);
    for (double e : ref::forward(p, {-1.5})) EXPECT_NEAR(e, -1.5, 1e-14) << describe(p);
  }
}

// Whether PyTorch's backward of this problem is the transpose of its forward: it is not for the
// nearest_idx short-cuts and the bicubic same-size copy (see the dedicated tests).
bool backward_is_adjoint(const ref::Problem& p) {
  bool all_equal = true;
  bool any_scale = false;
  for (int a = 0; a < p.spatial_rank; ++a) {
    const bool equal = p.in_sizes[a] == p.out_sizes[a];
    all_equal &= equal;
    any_scale |= p.scales[a] > 0.0;
    if (p.mode == Mode::kNearest && p.scales[a] > 0.0 &&
        (equal || p.out_sizes[a] == 2 * p.in_sizes[a])) {
      return false;
    }
  }
  return !(p.mode == Mode::kCubic && !p.antialias && all_equal && any_scale && !p.align_corners);
}

TEST(ReferenceInvariants, BackwardIsTheAdjointOfForward) {
  std::mt19937_64 rng(3);
  int checked = 0;
  for (const Variant& v : all_variants()) {
    for (int trial = 0; trial < 80; ++trial) {
      const ref::Problem p = random_problem(v, rng);
      if (!backward_is_adjoint(p)) continue;
      const std::vector<double> x = random_values(ref::input_numel(p), rng);
      const std::vector<double> g = random_values(ref::output_numel(p), rng);
      const std::vector<double> fx = ref::forward(p, x);
      const std::vector<double> bg = ref::backward(p, g);
      double lhs = 0.0;
      double rhs = 0.0;
      double scale = 0.0;
      for (size_t i = 0; i < fx.size(); ++i) {
        lhs += fx[i] * g[i];
        scale += std::fabs(fx[i] * g[i]);
      }
      for (size_t i = 0; i < x.size(); ++i) rhs += x[i] * bg[i];
      EXPECT_NEAR(lhs, rhs, 1e-12 * std::max(scale, 1.0)) << describe(p);
      ++checked;
    }
  }
  EXPECT_GT(checked, 700);
}

TEST(ReferenceInvariants, PlanesAreIndependent) {
  // Two planes resampled together equal each resampled alone.
  std::mt19937_64 rng(5);
  for (const Variant& v : all_variants()) {
    ref::Problem p = problem_2d(v.mode, 5, 3, 4, 7, v.align_corners, 0.0, 0.0, v.antialias);
    p.n = 2;
    p.c = 3;
    const std::vector<double> x = random_values(ref::input_numel(p), rng);
    const std::vector<double> y = ref::forward(p, x);
    ref::Problem one = p;
    one.n = 1;
    one.c = 1;
    for (int plane = 0; plane < 6; ++plane) {
      const std::vector<double> xp(x.begin() + plane * 15, x.begin() + (plane + 1) * 15);
      const std::vector<double> yp = ref::forward(one, xp);
      for (size_t i = 0; i < yp.size(); ++i) {
        ASSERT_EQ(y[static_cast<size_t>(plane) * 28 + i], yp[i]) << describe(p);
      }
    }
  }
}

TEST(ReferenceInvariants, EmptyBatch) {
  ref::Problem p = problem_2d(Mode::kLinear, 3, 3, 5, 5);
  p.n = 0;
  EXPECT_EQ(ref::input_numel(p), 0);
  EXPECT_TRUE(ref::forward(p, {}).empty());
  EXPECT_TRUE(ref::backward(p, {}).empty());
}

// ---------------------------------------------------------------------------------------------
// The example programs of examples/ (expected values re-derived by hand).

TEST(ReferenceAclnnExamples, Nearest1dAndNearestExact1d) {
  ref::Problem p = problem_1d(Mode::kNearest, 3, 5);
  p.c = 3;
  expect_all_near(ref::forward(p, iota(9)), {0, 0, 1, 1, 2, 3, 3, 4, 4, 5, 6, 6, 7, 7, 8}, 0.0);
  p.mode = Mode::kNearestExact;
  expect_all_near(ref::forward(p, iota(9)), {0, 0, 1, 2, 2, 3, 3, 4, 5, 5, 6, 6, 7, 8, 8}, 0.0);
}

TEST(ReferenceAclnnExamples, Nearest2dAndResize) {
  // [1,1,4,2] = 0..7 -> 8x4: rows (each twice) [0,0,1,1], [2,2,3,3], ...
  for (Mode mode : {Mode::kNearest, Mode::kNearestExact}) {
    const std::vector<double> y = ref::forward(problem_2d(mode, 4, 2, 8, 4), iota(8));
    for (int h = 0; h < 8; ++h) {
      for (int w = 0; w < 4; ++w) {
        EXPECT_EQ(y[static_cast<size_t>(h * 4 + w)], 2 * (h / 2) + w / 2) << h << "," << w;
      }
    }
  }
  // Resize, scales 2: [1,2,3,4] 2x2 -> 4x4.
  expect_all_near(
      ref::forward(problem_2d(Mode::kNearest, 2, 2, 4, 4, false, 2.0, 2.0), {1, 2, 3, 4}),
      {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}, 0.0);
}

TEST(ReferenceAclnnExamples, Nearest3dAndNearestExact3dToOnePoint) {
  // [2,2,2,2,3] = 1..48 -> 1x1x1: nearest reads (0,0,0), exact reads (1,1,1) = offset 10.
  ref::Problem p;
  p.mode = Mode::kNearest;
  p.n = 2;
  p.c = 2;
  p.spatial_rank = 3;
  p.in_sizes = {2, 2, 3};
  p.out_sizes = {1, 1, 1};
  expect_all_near(ref::forward(p, iota(48, 1.0)), {1, 13, 25, 37}, 0.0);
  p.mode = Mode::kNearestExact;
  expect_all_near(ref::forward(p, iota(48, 1.0)), {11, 23, 35, 47}, 0.0);
}

TEST(ReferenceAclnnExamples, NearestBackwards) {
  // Nearest1dBackward: gradOut [1, 4.1], outputSize 2, inputSize 3, scale 1.1:
  // r = float(1/1.1): dst 0, 1 -> 0, 0.
  expect_all_near(ref::backward(problem_1d(Mode::kNearest, 3, 2, false, 1.1), {1.0, 4.1}),
                  {5.1, 0, 0}, 1e-15);
  // Nearest2dBackward: gradOut [2,2,3,3] = 1..36 -> [2,2,1,1]: per-plane sums.
  ref::Problem p2 = problem_2d(Mode::kNearest, 1, 1, 3, 3);
  p2.n = 2;
  p2.c = 2;
  expect_all_near(ref::backward(p2, iota(36, 1.0)), {45, 126, 207, 288}, 0.0);
  // Nearest3dBackward / NearestExact3dBackward / Trilinear3dBackward: [2,2,2,2,2] = 1..32.
  for (Mode mode : {Mode::kNearest, Mode::kNearestExact, Mode::kLinear}) {
    ref::Problem p3;
    p3.mode = mode;
    p3.n = 2;
    p3.c = 2;
    p3.spatial_rank = 3;
    p3.in_sizes = {1, 1, 1};
    p3.out_sizes = {2, 2, 2};
    expect_all_near(ref::backward(p3, iota(32, 1.0)), {36, 100, 164, 228}, 1e-12);
  }
  // NearestExact1dBackward: gradOutput [1, 2], outputSize 2, inputSize 4, scale 0.5: r = 2,
  // src = floor((dst + 0.5) * 2) = 1, 3.
  expect_all_near(ref::backward(problem_1d(Mode::kNearestExact, 4, 2, false, 0.5), {1, 2}),
                  {0, 1, 0, 2}, 0.0);
  // NearestExact2dBackward: gradOutput [1,1,4,2] = 0..7, inputSize 8x4, scales 0.5: rows 1, 3,
  // 5, 7 and columns 1, 3 receive.
  const std::vector<double> g =
      ref::backward(problem_2d(Mode::kNearestExact, 8, 4, 4, 2, false, 0.5, 0.5), iota(8));
  std::vector<double> expected(32, 0.0);
  for (int h = 0; h < 4; ++h) {
    expected[static_cast<size_t>((2 * h + 1) * 4 + 1)] = 2 * h;
    expected[static_cast<size_t>((2 * h + 1) * 4 + 3)] = 2 * h + 1;
  }
  expect_all_near(g, expected, 0.0);
}

TEST(ReferenceAclnnExamples, Linear1d) {
  // upsample_linear1d: [1, 1] -> 3 with scale -1 (= not given): 1, 1, 1.
  expect_all_near(ref::forward(problem_1d(Mode::kLinear, 2, 3, false, -1.0), {1, 1}), {1, 1, 1},
                  0.0);
  // resize_linear: [1, 4] -> 3: r = 2/3, src = -1/6 -> 0, 0.5, 7/6 (i0 = i1 = 1): 1, 2.5, 4.
  expect_all_near(ref::forward(problem_1d(Mode::kLinear, 2, 3, false, -1.0), {1, 4}), {1, 2.5, 4},
                  1e-15);
}

TEST(ReferenceAclnnExamples, Linear1dBackward) {
  // gradOut [1, 2, 3], outputSize 3, inputSize 6, align true (the scale 1.1 is ignored):
  // r = 5/2, src = 0, 2.5, 5 -> 1 on 0; 1, 1 on 2, 3; 3 on 5.
  expect_all_near(ref::backward(problem_1d(Mode::kLinear, 6, 3, true, 1.1), {1, 2, 3}),
                  {1, 0, 1, 1, 0, 3}, 1e-15);
}

TEST(ReferenceAclnnExamples, Bilinear2dAlignCorners) {
  // [1,1,4,2] = 0..7 (v = 2y + x) -> 8x4, align true, scales 2 ignored: 6h/7 + w/3.
  const std::vector<double> y =
      ref::forward(problem_2d(Mode::kLinear, 4, 2, 8, 4, true, 2.0, 2.0), iota(8));
  for (int h = 0; h < 8; ++h) {
    for (int w = 0; w < 4; ++w) {
      EXPECT_NEAR(y[static_cast<size_t>(h * 4 + w)], 6.0 * h / 7.0 + w / 3.0, 1e-14);
    }
  }
}

TEST(ReferenceAclnnExamples, Bilinear2dBackward) {
  // gradOut 6x6 ones -> 3x3, align true: r = 2/5, src 0, 0.4, ..., 2; per-axis column sums
  // 1.8, 2.4, 1.8, and the 2-D result is their outer product.
  const std::vector<double> g = ref::backward(problem_2d(Mode::kLinear, 3, 3, 6, 6, true, 2.0, 2.0),
                                              std::vector<double>(36, 1.0));
  expect_all_near(g, {3.24, 4.32, 3.24, 4.32, 5.76, 4.32, 3.24, 4.32, 3.24}, 1e-12);
}

TEST(ReferenceAclnnExamples, Trilinear3d) {
  // [1,1,2,2,2] = 1..8 (v = 1 + 4d + 2h + w) -> 4x4x4, align false: per-axis coordinates
  // 0 (from -0.25), 0.25, 0.75, 1 (i1 clamped), value 1 + 4a + 2b + c.
  ref::Problem p;
  p.mode = Mode::kLinear;
  p.spatial_rank = 3;
  p.in_sizes = {2, 2, 2};
  p.out_sizes = {4, 4, 4};
  const std::vector<double> y = ref::forward(p, iota(8, 1.0));
  const double coordinate[4] = {0.0, 0.25, 0.75, 1.0};
  for (int d = 0; d < 4; ++d) {
    for (int h = 0; h < 4; ++h) {
      for (int w = 0; w < 4; ++w) {
        EXPECT_NEAR(y[static_cast<size_t>((d * 4 + h) * 4 + w)],
                    1 + 4 * coordinate[d] + 2 * coordinate[h] + coordinate[w], 1e-14);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Misuse.

TEST(ReferenceValidation, RejectsBadProblemsWithTheOffendingValue) {
  auto expect_throw = [](const ref::Problem& p, const std::string& fragment) {
    try {
      ref::forward(p, {});
      ADD_FAILURE() << "no exception for " << fragment;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  ref::Problem p = problem_2d(Mode::kLinear, 3, 3, 5, 5);
  p.spatial_rank = 4;
  expect_throw(p, "4");
  p = problem_2d(Mode::kLinear, 3, 0, 5, 5);
  expect_throw(p, "in_sizes[1]");
  p = problem_2d(Mode::kLinear, 3, 3, -2, 5);
  expect_throw(p, "-2");
  p = problem_2d(Mode::kLinear, 3, 3, 5, 5);
  p.n = -1;
  expect_throw(p, "-1");
  p.n = 1;
  p.c = 0;
  expect_throw(p, "c must be > 0");
  p = problem_2d(Mode::kNearest, 3, 3, 5, 5, false, 0.0, 0.0, /*antialias=*/true);
  expect_throw(p, "antialias");
  p = problem_1d(Mode::kLinear, 3, 5, false, 1e-320);
  expect_throw(p, "scales[0]");
}

TEST(ReferenceValidation, RejectsVectorsOfTheWrongLength) {
  const auto p = problem_1d(Mode::kLinear, 3, 5);
  EXPECT_THROW(ref::forward(p, {1.0, 2.0}), std::invalid_argument);
  EXPECT_THROW(ref::backward(p, {1.0, 2.0, 3.0}), std::invalid_argument);
  try {
    ref::forward(p, {1.0, 2.0});
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("2 elements, expected 3"), std::string::npos);
  }
}

// ---------------------------------------------------------------------------------------------
// The modes as the library names them (reference/mode.hpp).

TEST(ReferenceModes, EveryModeMapsToTheLibrarysAndBack) {
  for (Mode mode :
       {Mode::kNearest, Mode::kNearestExact, Mode::kLinear, Mode::kCubic, Mode::kArea}) {
    const upsample::Mode library = ref::library_mode(mode);
    EXPECT_EQ(ref::reference_mode(library), mode) << upsample::mode_name(library);
  }
  EXPECT_STREQ(upsample::mode_name(ref::library_mode(Mode::kNearestExact)), "nearest-exact");
  EXPECT_STREQ(upsample::mode_name(ref::library_mode(Mode::kArea)), "area");
}

}  // namespace
