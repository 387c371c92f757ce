// Geometry conventions against hand-computed values, and the invariants of every weight table.
#include "core/axis_table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/dtype.hpp"
#include "core/geometry.hpp"

namespace upsample {
namespace {

std::vector<int64_t> row_indices(const AxisTable<double>& t, int64_t r) {
  return {t.index.begin() + t.offsets[r], t.index.begin() + t.offsets[r + 1]};
}
std::vector<double> row_weights(const AxisTable<double>& t, int64_t r) {
  return {t.weight.begin() + t.offsets[r], t.weight.begin() + t.offsets[r + 1]};
}

TEST(Geometry, RatioResolution) {
  // align_corners: (in-1)/(out-1), 0 for a single output; the user scale is ignored.
  EXPECT_DOUBLE_EQ(geometry::ratio<double>(4, 7, true, 3.0), 0.5);
  EXPECT_DOUBLE_EQ(geometry::ratio<double>(4, 1, true, 0.0), 0.0);
  // Otherwise 1/scale when given (> 0), else in/out.
  EXPECT_DOUBLE_EQ(geometry::ratio<double>(5, 6, false, 1.3), 1.0 / 1.3);
  EXPECT_DOUBLE_EQ(geometry::ratio<double>(5, 6, false, 0.0), 5.0 / 6.0);
  EXPECT_DOUBLE_EQ(geometry::ratio<double>(5, 6, false, -1.0), 5.0 / 6.0);
  // float ratio: the reciprocal is taken in double, then rounded.
  EXPECT_EQ(geometry::ratio<float>(5, 6, false, 1.3), static_cast<float>(1.0 / 1.3));
}

TEST(Geometry, LinearSourceIndex) {
  // 2 -> 4, align_corners=False: r = 0.5, x = 0.5 (dst + 0.5) - 0.5, clamped at 0.
  EXPECT_DOUBLE_EQ(geometry::linear_source_index(0.5, 0, false), 0.0);  // -0.25 clamped
  EXPECT_DOUBLE_EQ(geometry::linear_source_index(0.5, 1, false), 0.25);
  EXPECT_DOUBLE_EQ(geometry::linear_source_index(0.5, 3, false), 1.25);
  EXPECT_DOUBLE_EQ(geometry::linear_source_index(0.5, 3, true), 1.5);
}

TEST(Geometry, CubicSourceIndexIsNotClamped) {
  EXPECT_DOUBLE_EQ(geometry::cubic_source_index(0.5, 0, false), -0.25);
  EXPECT_EQ(geometry::cubic_tap(-0.25), -1);
  // PyTorch floors the coordinate after rounding it to float: 14.999999999999998 -> 15.
  EXPECT_EQ(geometry::cubic_tap(15.0 / 13.0 * 13.0), 15);
}

TEST(Geometry, NearestAndNearestExactIndices) {
  // 3 -> 5: nearest floor(dst * 0.6) = 0,0,1,1,2; nearest-exact floor((dst+0.5) * 0.6) = 0,0,1,2,2.
  const int64_t nearest[] = {0, 0, 1, 1, 2};
  const int64_t exact[] = {0, 0, 1, 2, 2};
  for (int dst = 0; dst < 5; ++dst) {
    EXPECT_EQ(geometry::nearest_index(dst, 3, 5, 0.0), nearest[dst]) << dst;
    EXPECT_EQ(geometry::nearest_exact_index(dst, 3, 5, 0.0), exact[dst]) << dst;
  }
  // 26 -> 11 (ratio 26/11 in float32) separates the two rules at several outputs.
  int differ = 0;
  for (int dst = 0; dst < 11; ++dst) {
    const float r = 26.0f / 11.0f;
    EXPECT_EQ(geometry::nearest_index(dst, 26, 11, 0.0),
              std::min<int64_t>(static_cast<int64_t>(std::floor(dst * r)), 25));
    differ += geometry::nearest_index(dst, 26, 11, 0.0) !=
              geometry::nearest_exact_index(dst, 26, 11, 0.0);
  }
  EXPECT_GT(differ, 3);
  // The index never leaves the input, even when a scale points past its end.
  EXPECT_EQ(geometry::nearest_index(9, 4, 10, 0.1), 3);
}

TEST(Geometry, CubicCoefficients) {
  double c[4];
  geometry::cubic_coefficients<double>(0.0, -0.75, c);
  EXPECT_DOUBLE_EQ(c[0], 0.0);
  EXPECT_DOUBLE_EQ(c[1], 1.0);
  EXPECT_DOUBLE_EQ(c[2], 0.0);
  EXPECT_DOUBLE_EQ(c[3], 0.0);
  geometry::cubic_coefficients<double>(0.5, -0.75, c);
  EXPECT_DOUBLE_EQ(c[0], -0.09375);
  EXPECT_DOUBLE_EQ(c[1], 0.59375);
  EXPECT_DOUBLE_EQ(c[2], 0.59375);
  EXPECT_DOUBLE_EQ(c[3], -0.09375);
}

TEST(AxisTable, LinearTwoToFourHandValues) {
  AxisSpec s{Mode::kLinear, false, false, 2, 4, 0.0};
  const auto t = build_axis_table<double>(s);
  ASSERT_EQ(t.rows, 4);
  EXPECT_EQ(row_indices(t, 0), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(row_weights(t, 0), (std::vector<double>{1.0, 0.0}));
  EXPECT_EQ(row_weights(t, 1), (std::vector<double>{0.75, 0.25}));
  EXPECT_EQ(row_weights(t, 2), (std::vector<double>{0.25, 0.75}));
  // Past the last input both taps are the last input (PyTorch evaluates both).
  EXPECT_EQ(row_indices(t, 3), (std::vector<int64_t>{1, 1}));
}

TEST(AxisTable, IdentityAxesAreFlagged) {
  EXPECT_TRUE(build_axis_table<float>({Mode::kLinear, false, false, 7, 7, 0.0}).identity);
  EXPECT_TRUE(build_axis_table<float>({Mode::kLinear, false, true, 7, 7, 0.0}).identity);
  EXPECT_TRUE(build_axis_table<float>({Mode::kNearest, false, false, 7, 7, 0.0}).identity);
  EXPECT_TRUE(build_axis_table<float>({Mode::kLinear, true, false, 7, 7, 0.0}).identity);
  EXPECT_FALSE(build_axis_table<float>({Mode::kLinear, false, false, 7, 8, 0.0}).identity);
  EXPECT_TRUE(build_axis_table<float>({Mode::kNearest, false, false, 3, 6, 0.0}).unit_taps);
}

TEST(AxisTable, CubicBorderTapsAreClampedAndKept) {
  const auto t = build_axis_table<double>({Mode::kCubic, false, false, 3, 5, 0.0});
  // dst 0: x = 0.6 * 0.5 - 0.5 = -0.2 (not clamped), floor -1: taps -2..1 -> 0,0,0,1.
  EXPECT_EQ(row_indices(t, 0), (std::vector<int64_t>{0, 0, 0, 1}));
  double sum = 0;
  for (double w : row_weights(t, 0)) sum += w;
  EXPECT_NEAR(sum, 1.0, 1e-15);
}

TEST(AxisTable, AntialiasBilinearDownsampleByTwo) {
  // 4 -> 2: r = 2, support 2, centre 1 for dst 0: taps 0..2 with triangle(|j - 1 + 0.5| / 2).
  const auto t = build_axis_table<double>({Mode::kLinear, true, false, 4, 2, 0.0});
  EXPECT_EQ(row_indices(t, 0), (std::vector<int64_t>{0, 1, 2}));
  const auto w = row_weights(t, 0);
  ASSERT_EQ(w.size(), 3u);  // raw weights 0.75, 0.75, 0.25, normalised by their sum 1.75
  EXPECT_NEAR(w[0], 0.75 / 1.75, 1e-15);
  EXPECT_NEAR(w[1], 0.75 / 1.75, 1e-15);
  EXPECT_NEAR(w[2], 0.25 / 1.75, 1e-15);
}

struct Case {
  Mode mode;
  bool antialias;
  bool align_corners;
};

class TableProperties : public ::testing::TestWithParam<Case> {};

// Rows sum to 1, indices in bounds, transpose(transpose(t)) == t, for random sizes with ratios
// from 1/20 to 20, output length 1 and input length 1.
TEST_P(TableProperties, HoldForRandomSizes) {
  const Case c = GetParam();
  std::mt19937 rng(1234);
  std::vector<std::pair<int64_t, int64_t>> sizes = {
      {1, 1}, {1, 7}, {7, 1}, {1, 1000}, {1000, 1}, {3, 60}, {60, 3}, {20, 400}, {400, 20}};
  std::uniform_int_distribution<int64_t> len(1, 300);
  for (int i = 0; i < 60; ++i) sizes.emplace_back(len(rng), len(rng));
  for (auto [in, out] : sizes) {
    for (double scale : {0.0, static_cast<double>(out) / in * 1.07}) {
      if (c.mode == Mode::kArea && scale != 0.0) continue;  // area takes no scale
      AxisSpec spec{c.mode, c.antialias, c.align_corners, in, out, scale};
      const auto t = build_axis_table<double>(spec);
      ASSERT_EQ(check_invariants(t), "") << in << "->" << out;
      ASSERT_EQ(t.rows, out);
      for (int64_t r = 0; r < t.rows; ++r) {
        double sum = 0;
        for (double w : row_weights(t, r)) sum += w;
        ASSERT_NEAR(sum, 1.0, 1e-12) << in << "->" << out << " row " << r;
      }
      const auto tt = transpose(t);
      ASSERT_EQ(check_invariants(tt), "");
      ASSERT_EQ(tt.rows, in);
      const auto ttt = transpose(tt);
      EXPECT_EQ(ttt.offsets, t.offsets);
      EXPECT_EQ(ttt.index, t.index);
      EXPECT_EQ(ttt.weight, t.weight);  // bitwise: transposition only moves entries
      // float tables obey the same invariants.
      const auto tf = build_axis_table<float>(spec);
      ASSERT_EQ(check_invariants(tf), "");
      ASSERT_EQ(check_invariants(transpose(tf)), "");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllModes, TableProperties,
    ::testing::Values(Case{Mode::kNearest, false, false}, Case{Mode::kNearestExact, false, false},
                      Case{Mode::kLinear, false, false}, Case{Mode::kLinear, false, true},
                      Case{Mode::kCubic, false, false}, Case{Mode::kCubic, false, true},
                      Case{Mode::kLinear, true, false}, Case{Mode::kLinear, true, true},
                      Case{Mode::kCubic, true, false}, Case{Mode::kCubic, true, true},
                      Case{Mode::kArea, false, false}),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string name = mode_name(info.param.mode);
      name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
      return name + (info.param.antialias ? "_antialias" : "") +
             (info.param.align_corners ? "_align_corners" : "");
    });

}  // namespace
}  // namespace upsample

namespace upsample {
namespace {

TEST(AxisTable, InterleaveSpreadsEachRowOverItsGroup) {
  const auto t = build_axis_table<double>({Mode::kCubic, false, false, 5, 7, 0.0});
  const auto g = interleave(t, 3);
  ASSERT_EQ(check_invariants(g), "");
  ASSERT_EQ(g.rows, 21);
  ASSERT_EQ(g.src_len, 15);
  for (int64_t r = 0; r < t.rows; ++r) {
    for (int64_t c = 0; c < 3; ++c) {
      ASSERT_EQ(g.taps(r * 3 + c), t.taps(r));
      for (int64_t k = 0; k < t.taps(r); ++k) {
        EXPECT_EQ(g.index[g.offsets[r * 3 + c] + k], t.index[t.offsets[r] + k] * 3 + c);
        EXPECT_EQ(g.weight[g.offsets[r * 3 + c] + k], t.weight[t.offsets[r] + k]);
      }
    }
  }
  EXPECT_TRUE(
      interleave(build_axis_table<float>({Mode::kNearest, false, false, 4, 9, 0.0}), 2).unit_taps);
}

}  // namespace
}  // namespace upsample

namespace upsample {
namespace {

// Adaptive average pooling windows as PyTorch forms them (start = floor(i * in / out),
// end = ceil((i + 1) * in / out)): 5 -> 3 gives [0, 2), [1, 4), [3, 5); equal weights per row.
TEST(AxisTable, AreaWindowsOverlapForNonIntegerRatios) {
  const auto t = build_axis_table<double>({Mode::kArea, false, false, 5, 3, 0.0});
  ASSERT_EQ(check_invariants(t), "");
  const std::vector<int64_t> offsets = {0, 2, 5, 7};
  const std::vector<int64_t> index = {0, 1, 1, 2, 3, 3, 4};
  EXPECT_EQ(t.offsets, offsets);
  EXPECT_EQ(t.index, index);
  for (int64_t r = 0; r < 3; ++r) {
    for (int64_t e = t.offsets[r]; e < t.offsets[r + 1]; ++e) {
      EXPECT_DOUBLE_EQ(t.weight[e], 1.0 / static_cast<double>(t.taps(r)));
    }
  }
  // Integer upsampling repeats inputs (each window is one input); a non-integer one averages
  // the two inputs around the boundary (2 -> 5: output 2 is the mean of inputs 0 and 1).
  const auto up = build_axis_table<double>({Mode::kArea, false, false, 2, 4, 0.0});
  EXPECT_TRUE(up.unit_taps);
  EXPECT_EQ(up.index, (std::vector<int64_t>{0, 0, 1, 1}));
  const auto odd = build_axis_table<double>({Mode::kArea, false, false, 2, 5, 0.0});
  EXPECT_EQ(odd.offsets, (std::vector<int64_t>{0, 1, 2, 4, 5, 6}));
  EXPECT_EQ(odd.index, (std::vector<int64_t>{0, 0, 0, 1, 1, 1}));
}

}  // namespace
}  // namespace upsample

namespace upsample {
namespace {

// The streamed form of a table (AxisWeights::row / transposed_row, what kernels use for axes too
// long to materialise) yields exactly the materialised table's and its transpose's rows: same
// taps, same order, same weights - and the cheap bounds and counts agree with them.
TEST_P(TableProperties, StreamedRowsEqualTheMaterialisedTable) {
  const Case c = GetParam();
  std::mt19937 rng(77);
  std::uniform_int_distribution<int64_t> len(1, 200);
  for (int i = 0; i < 40; ++i) {
    const int64_t in = len(rng), out = len(rng);
    for (bool backward : {false, true}) {
      AxisSpec spec{c.mode, c.antialias, c.align_corners, in, out, 0.0, backward};
      const AxisWeights<float> weights(spec);
      const AxisTable<float> t = build_axis_table(weights);
      ASSERT_EQ(weights.total_taps(), static_cast<int64_t>(t.index.size()));
      for (int64_t r = 0; r < t.rows; ++r) {
        std::vector<std::pair<int64_t, float>> got;
        weights.row(r, [&](int64_t index, float w) { got.emplace_back(index, w); });
        ASSERT_EQ(static_cast<int64_t>(got.size()), t.taps(r)) << in << "->" << out;
        for (int64_t k = 0; k < t.taps(r); ++k) {
          ASSERT_EQ(got[k].first, t.index[t.offsets[r] + k]);
          ASSERT_EQ(float_to_bits(got[k].second), float_to_bits(t.weight[t.offsets[r] + k]));
        }
        int64_t first, last, count;
        weights.row_bounds(r, &first, &last, &count);
        ASSERT_EQ(count, t.taps(r));
        if (count > 0) {
          ASSERT_EQ(first, t.index[t.offsets[r]]);
          ASSERT_EQ(last, t.index[t.offsets[r + 1] - 1]);
        }
      }
      const AxisTable<float> tt = transpose(t);
      for (int64_t s = 0; s < tt.rows; ++s) {
        std::vector<std::pair<int64_t, float>> got;
        weights.transposed_row(s, [&](int64_t o, float w) { got.emplace_back(o, w); });
        ASSERT_EQ(static_cast<int64_t>(got.size()), tt.taps(s)) << in << "->" << out << " " << s;
        for (int64_t k = 0; k < tt.taps(s); ++k) {
          ASSERT_EQ(got[k].first, tt.index[tt.offsets[s] + k]);
          ASSERT_EQ(float_to_bits(got[k].second), float_to_bits(tt.weight[tt.offsets[s] + k]));
        }
      }
    }
  }
}

}  // namespace
}  // namespace upsample
