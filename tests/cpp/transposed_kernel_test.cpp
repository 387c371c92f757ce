// The horizontal kernel that runs across rows through transposed tiles
// (src/cpu/simd_transposed-inl.h), on every SIMD target this CPU can run, against the portable
// scalar kernel: every storage-type pair, row counts around the vector length (partial tiles),
// outputs and columns around it (transpose tails), item ranges that start inside the tensor,
// interleaved channels, chunks of outputs bounded by the scratch, one output wider than the
// scratch, groups of outputs around the capacity of the ring of transposed columns, and groups
// that jump back. Results must be bitwise equal (NaN equals NaN).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/axis_table.hpp"
#include "core/dtype.hpp"
#include "cpp/kernel_test_data.hpp"
#include "cpu/kernels.hpp"
#include "hwy/targets.h"

namespace upsample::cpu {
namespace {

std::vector<AxisSpec> specs() {
  std::vector<AxisSpec> s = {
      {Mode::kCubic, true, false, 900, 13, 0.0},     // 70 to 140 taps per output
      {Mode::kLinear, true, false, 1024, 256, 0.0},  // W7's horizontal pass
      {Mode::kCubic, true, false, 1024, 224, 0.0},   // W9's
      {Mode::kCubic, true, false, 2000, 500, 0.0},   // a photo to a quarter
      {Mode::kLinear, true, false, 20000, 3, 0.0},   // outputs wider than the scratch
      {Mode::kLinear, false, false, 37, 101, 0.0},   // narrow windows work too
      {Mode::kCubic, false, false, 300, 29, 0.0},   {Mode::kArea, false, false, 5000, 617, 0.0},
  };
  return s;
}

TEST(TransposedKernel, MatchesScalarOnEveryTarget) {
  std::mt19937 rng(23);
  int checked_targets = 0;
  ForEachTarget targets;
  for (int64_t target : targets.targets()) {
    const SimdKernels& k = targets.use(target);
    ++checked_targets;
    std::vector<unsigned char> scratch(static_cast<size_t>(k.transposed_scratch_bytes) + 64);
    for (int in = 0; in < kDTypes; ++in) {
      for (int out = 0; out < kDTypes; ++out) {
        const DType tin = static_cast<DType>(in), tout = static_cast<DType>(out);
        if (!reachable_types<float>(tin, tout)) continue;
        const PassFn<float> fn = k.horizontal_transposed[in][out];
        ASSERT_NE(fn, nullptr) << k.target << " " << in << out;
        for (const AxisSpec& spec : specs()) {
          for (bool backward : {false, true}) {
            AxisTable<float> table = build_axis_table<float>(spec);
            if (backward) table = transpose(table);
            for (int64_t group : {1, 3}) {
              if (group > 1 && backward) continue;
              const AxisTable<float> t = group > 1 ? interleave(table, group) : table;
              PassTable<float> plain(t, false, k.lanes);
              for (int64_t outer : {int64_t{1}, k.lanes - 1, k.lanes + 3, 2 * k.lanes + 5}) {
                // every row count on float32 -> float32, a partial and a full tile otherwise
                const bool all = tin == DType::kFloat32 && tout == DType::kFloat32;
                if (outer < 1 || (!all && outer != 1 && outer != k.lanes + 3)) continue;
                PassArgs<float> args;
                args.table = &plain;
                args.shape = {outer, t.src_len, t.rows, 1};
                const auto src = random_bytes(tin, outer * t.src_len, &rng);
                const size_t out_bytes = static_cast<size_t>(outer * t.rows) * dtype_size(tout);
                std::vector<unsigned char> simd(out_bytes, 0xCD), scalar(out_bytes, 0xCD);
                // Items [1, outer) and then [0, 1): a range that starts inside the tensor.
                const int64_t split = std::min<int64_t>(1, outer - 1);
                fn(args, src.data(), simd.data(), split, outer, scratch.data() + 7);
                fn(args, src.data(), simd.data(), 0, split, scratch.data() + 7);
                scalar_horizontal<float>(tin, tout)(args, src.data(), scalar.data(), 0, outer,
                                                    nullptr);
                for (int64_t i = 0; i < outer * t.rows; ++i) {
                  ASSERT_TRUE(same_element(tout, &simd[i * dtype_size(tout)],
                                           &scalar[i * dtype_size(tout)]))
                      << k.target << " " << dtype_name(tin) << "->" << dtype_name(tout) << " "
                      << mode_name(spec.mode) << (spec.antialias ? "+aa " : " ") << spec.in_len
                      << "->" << spec.out_len << (backward ? " bwd" : "") << " group " << group
                      << " outer " << outer << " element " << i;
                }
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GE(checked_targets, 2);  // at least one SIMD target besides the scalar one
}

// Hand-built tables whose neighbouring rows differ in length, rows without taps among them,
// with consecutive and with spread-out taps: the kernel runs groups of outputs side by side up
// to their shortest row, then each row's remaining taps, and rows without taps store zero.
AxisTable<float> mixed_table(int64_t rows, int64_t src_len, int64_t stride, std::mt19937* rng) {
  AxisTable<float> t;
  t.rows = rows;
  t.src_len = src_len;
  t.offsets.push_back(0);
  std::uniform_real_distribution<float> w(-1.0f, 1.0f);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t taps = (r * 7) % 23;  // 0, 7, 14, 21, 5, 12, ...: every group of 4 differs
    const int64_t first = (r * 11) % (src_len - 22 * stride);
    for (int64_t k = 0; k < taps; ++k) {
      t.index.push_back(first + k * stride);
      t.weight.push_back(w(*rng));
    }
    t.offsets.push_back(static_cast<int64_t>(t.index.size()));
  }
  return t;
}

// The float32 kernel `fn` over `outer` rows of `table` (items [split, outer), then [0, split))
// against the scalar kernel, bit for bit; `what` names the case in a failure.
void expect_float32_rows_match_scalar(PassFn<float> fn, const PassTable<float>& table,
                                      int64_t outer, int64_t split, unsigned char* scratch,
                                      std::mt19937* rng, const std::string& what) {
  const AxisTable<float>& t = table.table;
  PassArgs<float> args;
  args.table = &table;
  args.shape = {outer, t.src_len, t.rows, 1};
  const auto src = random_bytes(DType::kFloat32, outer * t.src_len, rng);
  std::vector<float> simd(static_cast<size_t>(outer * t.rows), -7.0f);
  std::vector<float> scalar(simd.size(), 7.0f);
  fn(args, src.data(), simd.data(), split, outer, scratch);
  fn(args, src.data(), simd.data(), 0, split, scratch);
  scalar_horizontal<float>(DType::kFloat32, DType::kFloat32)(args, src.data(), scalar.data(), 0,
                                                             outer, nullptr);
  for (size_t i = 0; i < simd.size(); ++i) {
    ASSERT_EQ(std::memcmp(&simd[i], &scalar[i], sizeof(float)), 0) << what << " element " << i;
  }
}

// f(k, fn, scratch) with fn the float32 -> float32 kernel of each target this CPU runs (at least
// one SIMD target besides the scalar one).
template <class F>
void on_every_target(const F& f) {
  int checked_targets = 0;
  ForEachTarget targets;
  for (int64_t target : targets.targets()) {
    const SimdKernels& k = targets.use(target);
    ++checked_targets;
    std::vector<unsigned char> scratch(static_cast<size_t>(k.transposed_scratch_bytes) + 64);
    f(k,
      k.horizontal_transposed[static_cast<int>(DType::kFloat32)][static_cast<int>(DType::kFloat32)],
      scratch.data());
  }
  EXPECT_GE(checked_targets, 2);
}

TEST(TransposedKernel, RowsOfDifferentLengthsMatchScalar) {
  std::mt19937 rng(29);
  on_every_target([&](const SimdKernels& k, PassFn<float> fn, unsigned char* scratch) {
    for (int64_t stride : {1, 2}) {
      for (int64_t rows : {int64_t{3}, int64_t{37}, int64_t{300}}) {
        const AxisTable<float> t = mixed_table(rows, 400, stride, &rng);
        ASSERT_EQ(check_invariants(t), "");
        PassTable<float> plain(t, false, k.lanes);
        ASSERT_EQ(plain.consecutive_taps, stride == 1);
        ASSERT_NO_FATAL_FAILURE(expect_float32_rows_match_scalar(
            fn, plain, k.lanes + 3, 0, scratch + 3, &rng,
            std::string(k.target) + " stride " + std::to_string(stride) + " rows " +
                std::to_string(rows)));
      }
    }
  });
}

// Rows of two taps `width` columns apart, from column 5r + 3 (row r): a group of 4 outputs
// spans width + 16 columns from a column 3 past a multiple of 4. The ring takes groups of up to
// kRingColumns - Lanes + 1 columns (113 at 16 lanes: widths up to 97; at 8 lanes 105; at 4 lanes
// 109; at 1 lane 112): one more, and filling the block of the group's last column could
// overwrite its first. The widths lie on both sides of each bound (a group one column too wide
// that starts at L - 1 modulo L is the one that would be overwritten) and far past it; 300 rows
// are two ring chunks. The last tap is the row's last column, which is not a multiple of the
// lanes for even widths: the last, partial block lands in a mirrored slot that the last group
// reads past the ring's end. Tiles of one and two vectors, and a call that starts inside the
// tensor. Tiles of two vectors fill the first `lead` columns ahead (kLeadBlocks), as many blocks
// as the group's span leaves room for: at most (kRingColumns - L + 1 - span) / L of them, so the
// widths also lie on both sides of each step of that bound (at 16 lanes 33/34, 49/50, 65/66 and
// 81/82 from 4 blocks down to 0; at 8 lanes 73/74 .. 97/98; at 4 lanes 93/94 .. 105/106). (Which
// path ran is not visible: a ring that took fewer groups, or a shorter lead, would pass too.)
TEST(TransposedKernel, GroupsAroundTheRingCapacityMatchScalar) {
  std::mt19937 rng(31);
  on_every_target([&](const SimdKernels& k, PassFn<float> fn, unsigned char* scratch) {
    std::uniform_real_distribution<float> w(-1.0f, 1.0f);
    for (int64_t width :
         {33, 34, 49,  50,  60,  65,  66,  73,  74,  81,  82,  89,  90,  93,  94, 96,
          97, 98, 101, 102, 104, 105, 106, 108, 109, 110, 112, 113, 114, 140, 260}) {
      AxisTable<float> t;
      t.rows = 300;
      t.src_len = 5 * (t.rows - 1) + 3 + width + 1;
      t.offsets.push_back(0);
      for (int64_t r = 0; r < t.rows; ++r) {
        for (int64_t index : {5 * r + 3, 5 * r + 3 + width}) {
          t.index.push_back(index);
          t.weight.push_back(w(rng));
        }
        t.offsets.push_back(static_cast<int64_t>(t.index.size()));
      }
      ASSERT_EQ(check_invariants(t), "");
      PassTable<float> plain(t, false, k.lanes);
      for (int64_t outer : {int64_t{1}, 2 * k.lanes + 5}) {
        ASSERT_NO_FATAL_FAILURE(expect_float32_rows_match_scalar(
            fn, plain, outer, outer / 2, scratch + 5, &rng,
            std::string(k.target) + " width " + std::to_string(width) + " outer " +
                std::to_string(outer)));
      }
    }
  });
}

// Narrow groups (rows of two taps 3 columns apart, 4 rows a group, each row one column after the
// one before) whose first columns jump: forward past a gap (to 1000, 16 columns a group), a
// short way back (to 980: below the columns the ring holds since its restart at the block of
// 1000, though within 128 columns of its end), far back (to 500) and forward again (to 1500).
// Then a run without gaps from 1680 to 1808 (4 columns a group, so that no group starts the ring
// again) and back to 1700: the ring's second vectors still hold 1700's columns, but with 16 or 8
// lanes its first vector, filled `lead` columns ahead (kLeadBlocks), has overwritten them. Each
// jump back must start the ring again; one that read the ring's slots instead would read columns
// never transposed since, or overwritten.
TEST(TransposedKernel, GroupsThatJumpBackMatchScalar) {
  std::mt19937 rng(37);
  std::vector<int64_t> group_first = {0,   8,   16,  24,  1000, 1016, 1032, 1048,
                                      980, 500, 510, 520, 1500, 1520, 1540, 1560};
  for (int64_t first = 1680; first <= 1808; first += 4) group_first.push_back(first);
  group_first.push_back(1700);
  AxisTable<float> t;
  t.rows = static_cast<int64_t>(group_first.size()) * 4;
  t.src_len = 2000;
  t.offsets.push_back(0);
  std::uniform_real_distribution<float> w(-1.0f, 1.0f);
  for (int64_t r = 0; r < t.rows; ++r) {
    const int64_t first = group_first[static_cast<size_t>(r / 4)] + r % 4;
    for (int64_t index : {first, first + 3}) {
      t.index.push_back(index);
      t.weight.push_back(w(rng));
    }
    t.offsets.push_back(static_cast<int64_t>(t.index.size()));
  }
  ASSERT_EQ(check_invariants(t), "");
  on_every_target([&](const SimdKernels& k, PassFn<float> fn, unsigned char* scratch) {
    PassTable<float> plain(t, false, k.lanes);
    for (int64_t outer : {int64_t{1}, 2 * k.lanes + 1}) {
      ASSERT_NO_FATAL_FAILURE(expect_float32_rows_match_scalar(
          fn, plain, outer, 0, scratch + 1, &rng,
          std::string(k.target) + " outer " + std::to_string(outer)));
    }
  });
}

// Padded tables (the kernel's choice for downsampling by exactly 2-4 with at most 8 taps: W7):
// the phased runs (PassTable::block_phases) go from their phases, the outputs around them
// through the ring. Antialiased linear 4:1 (wide blocks on every target: 4 * (lanes - 1) + 8
// elements), with a partial last block (1000 -> 250) and rows shorter than the ring's chunk;
// 3:1 and 2:1 and cubic 2:1, whose phased blocks are windowed; linear 4:1 without antialias (2
// taps); and tables with no phased run (W9's ratio, 20000 -> 3). Row counts around the tile
// (kTiles vectors) and the chunk of rows, calls that start inside the tensor.
TEST(TransposedKernel, PhasedRunsOfPaddedTablesMatchScalar) {
  std::mt19937 rng(41);
  const std::vector<AxisSpec> padded_specs = {
      {Mode::kLinear, true, false, 1024, 256, 0.0},  {Mode::kLinear, true, false, 1000, 250, 0.0},
      {Mode::kLinear, true, false, 200, 50, 0.0},    {Mode::kLinear, true, false, 960, 320, 0.0},
      {Mode::kLinear, true, false, 512, 256, 0.0},   {Mode::kCubic, true, false, 512, 256, 0.0},
      {Mode::kLinear, false, false, 1024, 256, 0.0}, {Mode::kCubic, true, false, 1024, 224, 0.0},
      {Mode::kLinear, true, false, 20000, 3, 0.0},
  };
  on_every_target([&](const SimdKernels& k, PassFn<float> fn, unsigned char* scratch) {
    int wide_runs = 0;
    for (const AxisSpec& spec : padded_specs) {
      const PassTable<float> padded(build_axis_table<float>(spec), true, k.lanes);
      if (k.lanes >= 4 && spec.antialias && spec.mode == Mode::kLinear &&
          spec.in_len == 4 * spec.out_len) {
        // Wide phased blocks from the second to the one before last (the scalar target has no
        // windowed form).
        const int64_t blocks = (spec.out_len + k.lanes - 1) / k.lanes;  // (with outputs)
        ASSERT_EQ(padded.window_kind[1], 0) << k.target;
        ASSERT_EQ(padded.block_phases[1], 4) << k.target;
        ASSERT_GE(padded.block_run[1], blocks - 3) << k.target;
        ++wide_runs;
      }
      for (int64_t outer : {int64_t{1}, int64_t{7}, k.lanes + 3, 2 * k.lanes + 5, 3 * k.lanes}) {
        ASSERT_NO_FATAL_FAILURE(expect_float32_rows_match_scalar(
            fn, padded, outer, outer / 3, scratch + 9, &rng,
            std::string(k.target) + " " + mode_name(spec.mode) + (spec.antialias ? "+aa " : " ") +
                std::to_string(spec.in_len) + "->" + std::to_string(spec.out_len) + " outer " +
                std::to_string(outer)));
      }
    }
    if (k.lanes >= 4) {
      EXPECT_EQ(wide_runs, 3) << k.target;
    }
  });
}

}  // namespace
}  // namespace upsample::cpu
