// Every SIMD target compiled into the library that this CPU can run, against the portable scalar
// kernels: tails, window sizes (1-4 vectors and wider), channel interleaves, every storage-type
// pair the kernels take, and the conversions of every 16-bit pattern. Results must be bitwise
// equal (a NaN equals any NaN: which operand's payload an addition keeps is not specified).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/axis_table.hpp"
#include "core/dtype.hpp"
#include "cpp/kernel_test_data.hpp"
#include "cpu/kernels.hpp"
#include "cpu/program.hpp"
#include "hwy/targets.h"

namespace upsample::cpu {
namespace {

// Runs `fn` over every item, in three calls of about a third of the items each (as threads
// split them: a call may begin and end inside a plane), and returns the destination bytes.
std::vector<unsigned char> run_kernel(PassFn<float> fn, const PassArgs<float>& args, DType out,
                                      int64_t items, const std::vector<unsigned char>& src,
                                      int64_t dst_elems) {
  std::vector<unsigned char> dst(static_cast<size_t>(dst_elems) * dtype_size(out), 0xCD);
  const int64_t cuts[] = {0, items / 3, std::min(items, items * 2 / 3 + 1), items};
  for (int c = 0; c < 3; ++c) {
    if (cuts[c] < cuts[c + 1]) fn(args, src.data(), dst.data(), cuts[c], cuts[c + 1], nullptr);
  }
  return dst;
}

std::vector<AxisSpec> table_specs(std::mt19937* rng) {
  std::vector<AxisSpec> specs;
  for (Mode mode : {Mode::kNearest, Mode::kLinear, Mode::kCubic, Mode::kArea}) {
    for (int i = 0; i < 6; ++i) {
      AxisSpec s;
      s.mode = mode;
      s.in_len = 1 + static_cast<int64_t>((*rng)() % 70);
      s.out_len = 1 + static_cast<int64_t>((*rng)() % 70);
      s.antialias = (mode == Mode::kLinear || mode == Mode::kCubic) && i % 2 == 1;
      specs.push_back(s);
    }
  }
  // Wide antialias windows (strong downsampling): blocks whose taps span more than 4 vectors.
  specs.push_back({Mode::kCubic, true, false, 900, 13, 0.0});
  specs.push_back({Mode::kLinear, true, false, 500, 61, 0.0});
  // Source rows shorter than a vector (PassTable::short_rows): the small-tensor case (8 -> 16),
  // one-element rows, and rows one short of the AVX2 and AVX-512 float lanes.
  specs.push_back({Mode::kLinear, false, false, 8, 16, 0.0});
  specs.push_back({Mode::kNearest, false, false, 5, 11, 0.0});
  specs.push_back({Mode::kCubic, false, true, 3, 7, 0.0});
  specs.push_back({Mode::kLinear, false, false, 1, 9, 0.0});
  specs.push_back({Mode::kCubic, true, false, 15, 4, 0.0});
  specs.push_back({Mode::kLinear, false, false, 7, 40, 0.0});
  // Long axes: the transposed tables have uniform inner blocks and shorter or longer rows at the
  // borders (PassTable::block_taps, block_uniform).
  specs.push_back({Mode::kLinear, false, false, 300, 600, 0.0});
  specs.push_back({Mode::kCubic, false, true, 170, 333, 0.0});
  // Downsampling by 2, 3 and 4 whose blocks are phased (PassTable::block_phases; forward 2 taps,
  // the last run's next window passing the row's end), an antialiased 3:1 (6 taps), W4's cubic
  // 2x read backward (8 taps; its transpose), and nearest 4x read backward (4 taps, s = 4: every
  // phase of a 4-vector split).
  specs.push_back({Mode::kNearest, false, false, 300, 1200, 0.0});
  specs.push_back({Mode::kLinear, false, false, 64, 32, 0.0});
  specs.push_back({Mode::kLinear, false, false, 99, 33, 0.0});
  specs.push_back({Mode::kLinear, false, false, 132, 33, 0.0});
  specs.push_back({Mode::kLinear, true, false, 192, 64, 0.0});
  specs.push_back({Mode::kCubic, false, false, 128, 256, 0.0});
  // W2's 2x linear read backward: its last row takes the row's last element twice, so its last
  // block ends the phased run before it (PassTable::phased_tail) on every vector length.
  specs.push_back({Mode::kLinear, false, false, 64, 128, 0.0});
  // Nearest 2x of the same rows: rows of one tap framed by border blocks (simd.cpp, framed_rows),
  // whose first block is in the run after it and whose last one reads a window moved back from
  // the row's end.
  specs.push_back({Mode::kNearest, false, false, 64, 128, 0.0});
  return specs;
}

// Block b of `p` (built from `table`) alone: s (2..4) where it is uniform and whole, row first + l
// has taps index[first] + s * l + k, and its window is 1-4 vectors or wider with at most
// kMaxPhasedTaps taps; else 0 (PassTable::block_phases before runs).
int64_t phase_stride_alone(const PassTable<float>& p, const AxisTable<float>& table, int64_t b) {
  const int64_t lanes = p.window_lanes, first = b * lanes;
  if (first + lanes > table.rows) return 0;
  const int64_t taps = table.taps(first);
  if (p.window_kind[b] == 0 && taps > kMaxPhasedTaps) return 0;
  for (int64_t l = 0; l < lanes; ++l) {
    if (taps == 0 || table.taps(first + l) != taps) return 0;  // (empty rows: no index)
  }
  const int64_t start = table.index[table.offsets[first]];
  const int64_t s = table.index[table.offsets[first + 1]] - start;
  if (s < 2 || s > 4) return 0;
  for (int64_t l = 0; l < lanes; ++l) {
    for (int64_t k = 0; k < taps; ++k) {
      if (table.index[table.offsets[first + l] + k] != start + s * l + k) return 0;
    }
  }
  return s;
}

// Whether block b of `p` (built from `table`) ends the phased run before it, from the table:
// block b - 1 is phased (stride s) and the last of its run, and each row of block b has as many
// taps as b - 1's rows, tap k at min(w + s * l + k, src_len - 1) (w: s * lanes elements after
// b - 1's first tap) with the weight of the same tap in the row a block before it.
bool ends_phased_run(const PassTable<float>& p, const AxisTable<float>& table, int64_t b) {
  const int64_t lanes = p.window_lanes, first = b * lanes, s = p.block_phases[b - 1];
  if (s == 0 || p.block_run[b - 1] != 1 || first >= table.rows) return false;
  const int64_t taps = table.taps(first - lanes);
  const int64_t start = table.index[table.offsets[first - lanes]] + s * lanes;
  for (int64_t r = first; r < std::min(first + lanes, table.rows); ++r) {
    if (table.taps(r) != taps) return false;
    for (int64_t k = 0; k < taps; ++k) {
      const int64_t e = table.offsets[r] + k, before = table.offsets[r - lanes] + k;
      if (table.index[e] != std::min(start + s * (r - first) + k, table.src_len - 1) ||
          std::memcmp(&table.weight[e], &table.weight[before], sizeof(float)) != 0) {
        return false;
      }
    }
  }
  return true;
}

// The per-block tap counts of the windowed form: the longest row of the block, and uniform only
// when every row of the block has that many. A transposed 2x linear table (4 taps inside, other
// counts at both ends) has both kinds of block and blocks shorter than its longest row.
TEST(KernelTargets, BlockTapCountsDescribeEveryBlock) {
  const int64_t lanes = 16;
  AxisTable<float> table =
      transpose(build_axis_table<float>({Mode::kLinear, false, false, 300, 600, 0.0}));
  PassTable<float> p(table, true, lanes);
  ASSERT_EQ(p.window_lanes, lanes);
  const int64_t blocks = p.padded_rows / lanes;
  ASSERT_EQ(static_cast<int64_t>(p.block_taps.size()), blocks);
  int uniform = 0, mixed = 0, shorter = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    int64_t most = 0;
    bool same = true;
    const int64_t last = std::min((b + 1) * lanes, table.rows);
    for (int64_t r = b * lanes; r < last; ++r) most = std::max(most, table.taps(r));
    for (int64_t r = b * lanes; r < last; ++r) same = same && table.taps(r) == most;
    EXPECT_EQ(p.block_taps[b], most) << "block " << b;
    EXPECT_EQ(p.block_uniform[b] != 0, same) << "block " << b;
    uniform += same;
    mixed += !same;
    shorter += most < p.padded_taps;
  }
  EXPECT_GT(uniform, 10);
  EXPECT_GE(mixed, 1);
  EXPECT_GT(shorter, 10);
}

// Block runs (PassTable::block_run): from every block, the number of blocks on that equal it in
// everything the kernel holds in registers (kind 1-4, or wide with the same phase stride; taps,
// uniformity, counts, offsets, weights), and no more: the block after a run differs. Compared
// here element by element. An exact 2x upsampling repeats one block from the second to the one
// before last, forward and transposed, and so does antialiased 4:1 (wide blocks, 8 taps).
TEST(KernelTargets, BlockRunsAreMaximalRunsOfEqualBlocks) {
  std::mt19937 rng(5);
  std::vector<AxisSpec> specs = table_specs(&rng);
  specs.push_back({Mode::kLinear, false, false, 4096, 8192, 0.0});
  specs.push_back({Mode::kLinear, true, false, 4096, 1024, 0.0});
  int long_runs = 0, wide_runs = 0, ends = 0;
  for (const AxisSpec& spec : specs) {
    for (bool backward : {false, true}) {
      AxisTable<float> table = build_axis_table<float>(spec);
      if (backward) table = transpose(table);
      for (int64_t lanes : {4, 8, 16}) {
        const PassTable<float> p(table, true, lanes);
        ASSERT_EQ(p.window_lanes, lanes);
        const int64_t blocks = p.padded_rows / lanes, rows = p.padded_rows;
        ASSERT_EQ(static_cast<int64_t>(p.block_run.size()), blocks);
        const auto equal = [&](int64_t a, int64_t b) {
          // Wide windows (kind 0) carry offsets in window_rel only when phased: runs of those
          // with the same stride, never of the others.
          const int64_t s = p.window_kind[a] == 0 ? phase_stride_alone(p, table, a) : 0;
          if ((p.window_kind[a] == 0 && (s == 0 || phase_stride_alone(p, table, b) != s)) ||
              p.window_kind[a] != p.window_kind[b] || p.block_taps[a] != p.block_taps[b] ||
              p.block_uniform[a] != p.block_uniform[b]) {
            return false;
          }
          for (int64_t l = 0; l < lanes; ++l) {
            if (p.padded_count[a * lanes + l] != p.padded_count[b * lanes + l]) return false;
            for (int64_t k = 0; k < p.padded_taps; ++k) {
              const int64_t ea = k * rows + a * lanes + l, eb = k * rows + b * lanes + l;
              if (p.window_rel[ea] != p.window_rel[eb]) return false;
              uint32_t wa, wb;
              std::memcpy(&wa, &p.padded_weight[ea], 4);
              std::memcpy(&wb, &p.padded_weight[eb], 4);
              if (wa != wb) return false;
            }
          }
          return true;
        };
        for (int64_t b = 0; b < blocks; ++b) {
          const int64_t run = p.block_run[b];
          ASSERT_GE(run, 1) << "block " << b;
          ASSERT_LE(b + run, blocks) << "block " << b;
          for (int64_t q = 1; q < run; ++q) ASSERT_TRUE(equal(b, b + q)) << "block " << b + q;
          if (b + run < blocks) {
            ASSERT_FALSE(equal(b, b + run)) << "block " << b << " run " << run;
            ++ends;
          }
        }
        if (spec.in_len == 4096 && spec.out_len == 8192 && lanes == 16) {
          // 512 blocks forward, 256 transposed: the first and last differ (the borders), the
          // rest repeat.
          ASSERT_EQ(blocks, backward ? 256 : 512);
          EXPECT_EQ(p.block_run[1], blocks - 2) << (backward ? "transposed" : "forward");
          ++long_runs;
        }
        if (spec.out_len == 1024 && !backward) {
          // Antialiased 4:1 forward: wide windows (8 taps, 4 * (lanes - 1) + 8 elements), one
          // run from the second block to the one before last.
          ASSERT_EQ(blocks, 1024 / lanes);
          EXPECT_EQ(p.window_kind[1], 0);
          EXPECT_EQ(p.block_run[1], blocks - 2) << "lanes " << lanes;
          ++wide_runs;
        }
      }
    }
  }
  EXPECT_EQ(long_runs, 2);
  EXPECT_EQ(wide_runs, 3);
  EXPECT_GT(ends, 100);
}

// Phased blocks (PassTable::block_phases) against the table itself: s where the block is
// windowed (or wide with at most kMaxPhasedTaps taps), uniform and whole, row first + l has taps
// index[first] + s * l + k (s = 2..4), and so has every later block of its run, each s * lanes
// elements on; 0 elsewhere. The transposed cubic 2x of W4 is phased inside (s = 2), and so is
// each of 2:1, 3:1 and 4:1 downsampling; antialiased 4:1 (W7's 8 taps) in wide blocks, whose
// window offsets then start at their first tap.
TEST(KernelTargets, PhasedBlocksFollowFromTheTable) {
  std::mt19937 rng(5);
  int phased[5] = {0, 0, 0, 0, 0}, plain = 0, wide = 0, tails = 0, w2_tables = 0;
  std::vector<AxisSpec> specs = table_specs(&rng);
  specs.push_back({Mode::kLinear, true, false, 1024, 256, 0.0});
  specs.push_back({Mode::kLinear, true, false, 1000, 250, 0.0});
  for (const AxisSpec& spec : specs) {
    for (bool backward : {false, true}) {
      AxisTable<float> table = build_axis_table<float>(spec);
      if (backward) table = transpose(table);
      for (int64_t lanes : {4, 8, 16}) {
        const PassTable<float> p(table, true, lanes);
        const int64_t blocks = p.padded_rows / lanes;
        ASSERT_EQ(static_cast<int64_t>(p.block_phases.size()), blocks);
        const auto stride = [&](int64_t b) { return phase_stride_alone(p, table, b); };
        for (int64_t b = 0; b < blocks; ++b) {
          int64_t s = stride(b);
          const int64_t start = s ? table.index[table.offsets[b * lanes]] : 0;
          for (int64_t c = b + 1; s != 0 && c < b + p.block_run[b]; ++c) {
            if (stride(c) != s ||
                table.index[table.offsets[c * lanes]] != start + (c - b) * s * lanes) {
              s = 0;
            }
          }
          ASSERT_EQ(p.block_phases[b], s)
              << mode_name(spec.mode) << " " << spec.in_len << "->" << spec.out_len
              << (backward ? " bwd" : "") << " lanes " << lanes << " block " << b;
          ++phased[s];
          plain += s == 0 && p.window_kind[b] > 0;
          if (s != 0 && p.window_kind[b] == 0) {
            // A wide phased block: its window starts at its first tap, offsets from there.
            ++wide;
            const int64_t first = b * lanes;
            ASSERT_EQ(p.window_base[b], table.index[table.offsets[first]]);
            for (int64_t l = 0; l < lanes; ++l) {
              for (int64_t k = 0; k < table.taps(first + l); ++k) {
                ASSERT_EQ(p.window_rel[k * p.padded_rows + first + l], s * l + k);
              }
            }
          }
        }
        if (spec.mode == Mode::kCubic && spec.in_len == 128 && backward && lanes == 16) {
          for (int64_t b = 1; b + 1 < blocks; ++b) EXPECT_EQ(p.block_phases[b], 2) << b;
        }
        // Blocks that end the phased run before them (PassTable::phased_tail).
        ASSERT_EQ(p.phased_tail.size(), p.block_phases.size());
        for (int64_t b = 0; b < blocks; ++b) {
          ASSERT_EQ(p.phased_tail[b] != 0, b > 0 && ends_phased_run(p, table, b))
              << mode_name(spec.mode) << " " << spec.in_len << "->" << spec.out_len
              << (backward ? " bwd" : "") << " lanes " << lanes << " block " << b;
          tails += p.phased_tail[b];
        }
        // W2's rows (64 of 4 blocks): a border block, a phased run of 2 and the last block,
        // whose last row repeats element 127, ending that run.
        if (spec.mode == Mode::kLinear && spec.in_len == 64 && spec.out_len == 128 && backward &&
            lanes == 16) {
          EXPECT_EQ(p.block_phases[0], 0);
          EXPECT_EQ(p.block_phases[1], 2);
          EXPECT_EQ(p.block_run[1], 2);
          EXPECT_EQ(p.phased_tail[3], 1);
          ++w2_tables;
        }
      }
    }
  }
  EXPECT_GT(phased[2], 0);
  EXPECT_GT(phased[3], 0);
  EXPECT_GT(phased[4], 0);
  EXPECT_GT(plain, 100);
  EXPECT_GT(wide, 100);
  EXPECT_GT(tails, 0);
  EXPECT_EQ(w2_tables, 1);
}

// The rows a band of a fused pair reads: from the band's first and last rows with taps for
// monotone tables (every table the specs build, forward and transposed, is one), by walking
// every row for the others; the same range either way.
TEST(KernelTargets, BandRowsOfMonotoneTablesNeedNoWalk) {
  std::mt19937 rng(11);
  int checked = 0;
  for (const AxisSpec& spec : table_specs(&rng)) {
    const AxisTable<float> forward = build_axis_table<float>(spec);
    for (const AxisTable<float>& t : {forward, transpose(forward)}) {
      ASSERT_TRUE(rows_monotone(t))
          << "mode " << static_cast<int>(spec.mode) << " " << spec.in_len << " -> " << spec.out_len;
      for (int k = 0; k < 20; ++k) {
        const int64_t r0 = static_cast<int64_t>(rng() % t.rows);
        const int64_t r1 = r0 + 1 + static_cast<int64_t>(rng() % (t.rows - r0));
        int64_t lo, hi, walked_lo, walked_hi;
        band_rows_read(t, true, r0, r1, &lo, &hi);
        band_rows_read(t, false, r0, r1, &walked_lo, &walked_hi);
        ASSERT_EQ(lo, walked_lo) << r0 << ".." << r1;
        ASSERT_EQ(hi, walked_hi) << r0 << ".." << r1;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 1000);
  // Rows without taps at a band's ends and inside it, and a band of none.
  AxisTable<float> gaps;
  gaps.rows = 6;
  gaps.offsets = {0, 0, 2, 2, 2, 4, 4};
  gaps.index = {1, 2, 4, 5};
  gaps.weight = {0.5f, 0.5f, 0.5f, 0.5f};
  ASSERT_TRUE(rows_monotone(gaps));
  int64_t lo, hi;
  band_rows_read(gaps, true, 0, 6, &lo, &hi);
  EXPECT_EQ(lo, 1);
  EXPECT_EQ(hi, 5);
  band_rows_read(gaps, true, 2, 4, &lo, &hi);
  EXPECT_LT(hi, lo);
  // A table whose rows go back: not monotone, walked.
  AxisTable<float> back = gaps;
  back.index = {4, 5, 1, 2};
  EXPECT_FALSE(rows_monotone(back));
  band_rows_read(back, false, 0, 6, &lo, &hi);
  EXPECT_EQ(lo, 1);
  EXPECT_EQ(hi, 5);
}

// A row shorter than a vector still gets windows: every block's window is the whole row (one
// vector from base 0, read from a zero-padded copy by the kernels), and its taps index the row.
TEST(KernelTargets, ShortRowsGetWholeRowWindows) {
  for (const int64_t lanes : {8, 16}) {
    for (const AxisSpec& spec : {AxisSpec{Mode::kLinear, false, false, 5, 7, 0.0},
                                 AxisSpec{Mode::kNearest, false, false, 7, 3, 0.0}}) {
      for (bool backward : {false, true}) {
        AxisTable<float> table = build_axis_table<float>(spec);
        if (backward) table = transpose(table);
        ASSERT_LT(table.src_len, lanes);
        PassTable<float> p(table, true, lanes);
        ASSERT_EQ(p.window_lanes, lanes);
        EXPECT_TRUE(p.short_rows);
        const int64_t blocks = p.padded_rows / lanes;
        for (int64_t b = 0; b < blocks; ++b) {
          EXPECT_EQ(p.window_kind[b], 1) << "block " << b;
          EXPECT_EQ(p.window_base[b], 0) << "block " << b;
        }
        for (size_t i = 0; i < p.window_rel.size(); ++i) {
          EXPECT_GE(p.window_rel[i], 0);
          EXPECT_LT(p.window_rel[i], table.src_len) << "tap " << i;
        }
      }
    }
  }
  // A row of a vector or more reads in place.
  PassTable<float> wide(build_axis_table<float>({Mode::kLinear, false, false, 16, 32, 0.0}), true,
                        16);
  EXPECT_FALSE(wide.short_rows);
}

TEST(KernelTargets, SimdMatchesScalarOnEveryTarget) {
  ForEachTarget targets;
  std::mt19937 rng(11);
  const std::vector<AxisSpec> specs = table_specs(&rng);
  int checked_targets = 0;
  std::string names;
  for (int64_t target : targets.targets()) {
    const SimdKernels& k = targets.use(target);
    ASSERT_EQ(std::string(k.target), hwy::TargetName(target));
    int kinds_seen[5] = {0, 0, 0, 0, 0};  // blocks by window kind (0: wider than 4 vectors)
    // Runs of held blocks (windowed, 1-8 taps) as the kernel walks them, from each run's first
    // block: runs of 2 to kRowByRowBlocks - 1 blocks (walked block by block across the rows),
    // and longer runs (walked row by row): [0] uniform windows of one vector and at most 4 taps,
    // [1] of two vectors, [2] the others (on float32, float16 and bfloat16 rows into float32 the
    // first two run loops with constant kinds; other rows and the rest test kind and uniformity
    // per block).
    int short_runs_seen = 0;
    // Short runs of float32 rows into float32 that are not phased, with windows of 1 to 3
    // vectors, by [kind - 1][uniform]: those loops take kind and uniformity as constants (the
    // border blocks of transposed tables, antialiased blocks in runs of one); the others test
    // them per block.
    int short_constant_seen[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    int long_runs_seen[3] = {0, 0, 0};
    // Phased runs (PassTable::block_phases, float32 rows into float32) by s, and those whose
    // last block's next window passes the row's end (read as the row's last element repeated) and
    // whose taps reach into that window (more taps than s).
    int phased_runs_seen[5] = {0, 0, 0, 0, 0};
    int phased_ends_seen = 0;
    int phased_tails_seen = 0;  // runs that take the block ending them (PassTable::phased_tail)
    // Rows framed by border blocks (simd.cpp, framed_rows; float32, float16 and bfloat16 rows
    // into float32), by taps (1, 2): a first block, block 1's run up to the last but one, and a
    // last block (of the blocks holding outputs), each a uniform window of one vector, not
    // phased. The kernel walks those rows whole; their runs are not counted above.
    int framed_seen[2] = {0, 0};
    int framed_short_seen = 0;  // framed rows whose run is shorter than kRowByRowBlocks (W13's)
    ++checked_targets;
    names += std::string(names.empty() ? "" : " ") + k.target;
    for (int in = 0; in < kDTypes; ++in) {
      for (int out = 0; out < kDTypes; ++out) {
        const DType tin = static_cast<DType>(in), tout = static_cast<DType>(out);
        const bool reachable = reachable_types<float>(tin, tout);
        ASSERT_EQ(k.vertical[in][out] != nullptr, reachable) << k.target << " " << in << out;
        ASSERT_EQ(k.horizontal[in][out] != nullptr, reachable) << k.target << " " << in << out;
        if (!reachable) continue;
        for (const AxisSpec& spec : specs) {
          for (bool backward : {false, true}) {
            AxisTable<float> table = build_axis_table<float>(spec);
            if (backward) table = transpose(table);
            const std::string what = std::string(k.target) + " " + dtype_name(tin) + "->" +
                                     dtype_name(tout) + " " + mode_name(spec.mode) +
                                     (spec.antialias ? "+aa " : " ") + std::to_string(spec.in_len) +
                                     "->" + std::to_string(spec.out_len) + (backward ? " bwd" : "");
            // Horizontal, optionally over interleaved channels (NHWC rows of 1..5 channels).
            for (int64_t group : {1, 3, 5}) {
              AxisTable<float> t = group > 1 ? interleave(table, group) : table;
              PassTable<float> padded(t, true, k.lanes);
              for (uint8_t kind : padded.window_kind) ++kinds_seen[std::min<int>(kind, 4)];
              const int64_t blocks = (t.rows + k.lanes - 1) / k.lanes;  // (then padding)
              const bool f32 = tin == DType::kFloat32 && tout == DType::kFloat32;
              int framed_taps = 0;
              if (tout == DType::kFloat32 &&
                  (tin == DType::kFloat32 || tin == DType::kFloat16 || tin == DType::kBFloat16) &&
                  padded.window_lanes == k.lanes && blocks >= 3 &&
                  padded.block_run[1] >= blocks - 2) {
                framed_taps = padded.block_taps[0];
                for (const int64_t b : {int64_t{0}, int64_t{1}, blocks - 1}) {
                  if (padded.window_kind[b] != 1 || padded.block_uniform[b] == 0 ||
                      padded.block_taps[b] != framed_taps || (f32 && padded.block_phases[b] != 0)) {
                    framed_taps = 0;
                  }
                }
                if (framed_taps > 2) framed_taps = 0;
              }
              if (framed_taps > 0) {
                ++framed_seen[framed_taps - 1];
                framed_short_seen += blocks - 2 < kRowByRowBlocks;
              }
              for (size_t b = 0; framed_taps == 0 && b < padded.block_run.size();) {
                const bool held = padded.window_kind[b] > 0 && padded.block_taps[b] >= 1 &&
                                  padded.block_taps[b] <= 8;
                int64_t run = held ? padded.block_run[b] : 1;
                const int64_t s = padded.block_phases[b];
                // A phased run takes the block after it where that one ends it.
                const bool tail = held && f32 && s != 0 &&
                                  b + static_cast<size_t>(run) < padded.phased_tail.size() &&
                                  padded.phased_tail[b + run] != 0;
                run += tail;
                phased_tails_seen += tail;
                const bool phased = held && s != 0 && run >= kPhasedBlocks && f32;
                if (held && !phased && f32 && run < kRowByRowBlocks && padded.window_kind[b] >= 1 &&
                    padded.window_kind[b] <= 3) {
                  ++short_constant_seen[padded.window_kind[b] - 1][padded.block_uniform[b] ? 1 : 0];
                }
                if (phased) {
                  ++phased_runs_seen[s];
                  const int64_t window = padded.padded_index[b * k.lanes];
                  phased_ends_seen +=
                      window + (run + 1) * s * k.lanes > t.src_len && padded.block_taps[b] > s;
                }
                if (run >= kRowByRowBlocks) {
                  const bool constant = padded.block_uniform[b] && padded.block_taps[b] <= 4 &&
                                        padded.window_kind[b] <= 2;
                  ++long_runs_seen[constant ? padded.window_kind[b] - 1 : 2];
                } else {
                  short_runs_seen += run > 1;
                }
                b += static_cast<size_t>(run);
              }
              // 11 rows: a whole chunk of rows (kChunkRows, 8) and a partial one.
              const int64_t n_rows = 11;
              PassArgs<float> args;
              args.table = &padded;
              args.shape = {n_rows, t.src_len, t.rows, 1};
              const auto src = random_bytes(tin, n_rows * t.src_len, &rng);
              const auto simd =
                  run_kernel(k.horizontal[in][out], args, tout, n_rows, src, n_rows * t.rows);
              const auto scalar = run_kernel(scalar_horizontal<float>(tin, tout), args, tout,
                                             n_rows, src, n_rows * t.rows);
              for (int64_t i = 0; i < n_rows * t.rows; ++i) {
                ASSERT_TRUE(
                    same_element(tout, &simd[i * dtype_size(tout)], &scalar[i * dtype_size(tout)]))
                    << what << " horizontal group " << group << " element " << i;
              }
            }
            // Vertical with inner lengths around the vector length (body and tail), of whole
            // vectors (runs of rows with equal tap counts), and one long enough for the rows of
            // more than 8 taps to run four vectors at a time.
            for (int64_t inner : {int64_t{1}, k.lanes - 1, k.lanes, 2 * k.lanes, 2 * k.lanes + 3,
                                  5 * k.lanes + 1}) {
              if (inner < 1) continue;
              PassTable<float> plain(table, false, k.lanes);
              PassArgs<float> args;
              args.table = &plain;
              args.shape = {2, table.src_len, table.rows, inner};
              const auto src = random_bytes(tin, 2 * table.src_len * inner, &rng);
              const int64_t items = 2 * table.rows, n = items * inner;
              const auto simd = run_kernel(k.vertical[in][out], args, tout, items, src, n);
              const auto scalar =
                  run_kernel(scalar_vertical<float>(tin, tout), args, tout, items, src, n);
              for (int64_t i = 0; i < n; ++i) {
                ASSERT_TRUE(
                    same_element(tout, &simd[i * dtype_size(tout)], &scalar[i * dtype_size(tout)]))
                    << what << " vertical inner " << inner << " element " << i;
              }
            }
          }
        }
      }
    }
    if (k.lanes >= 4) {  // windowed targets: every window kind was exercised
      for (int kind = 0; kind <= 4; ++kind) {
        EXPECT_GT(kinds_seen[kind], 0) << k.target << " window kind " << kind;
      }
      EXPECT_GT(short_runs_seen, 0) << k.target << " runs walked block by block";
      for (int kind = 1; kind <= 3; ++kind) {
        for (int uniform = 0; uniform <= 1; ++uniform) {
          EXPECT_GT(short_constant_seen[kind - 1][uniform], 0)
              << k.target << " short float32 runs of window kind " << kind << ", uniform "
              << uniform;
        }
      }
      for (int c = 0; c < 3; ++c) {
        EXPECT_GT(long_runs_seen[c], 0) << k.target << " runs walked row by row, class " << c;
      }
      for (int s = 2; s <= 4; ++s) EXPECT_GT(phased_runs_seen[s], 0) << k.target << " phased " << s;
      EXPECT_GT(phased_ends_seen, 0) << k.target << " phased runs at the row's end";
      EXPECT_GT(phased_tails_seen, 0) << k.target << " phased runs with the block ending them";
      for (int taps = 1; taps <= 2; ++taps) {
        EXPECT_GT(framed_seen[taps - 1], 0) << k.target << " framed rows of " << taps << " taps";
      }
      EXPECT_GT(framed_short_seen, 0) << k.target << " framed rows of a short run";
    }
  }
  // Two at least: EMU128 and a vector target in a Release build, SSSE3 and SSE4 at least in a
  // sanitizer build (CMakeLists.txt: SSSE3 as the baseline there).
  EXPECT_GE(checked_targets, 2);
  std::printf("SIMD targets checked against the scalar kernels: %s\n", names.c_str());
}

// Two vertical passes as one kernel (vertical_pair) against the two passes run one after the
// other on the same target (T -> float32 -> T), and against the scalar kernels: bilinear-like
// tables (up, down, align_corners, one-element axes), tables of more taps and transposed ones
// (the kernel's general path, with empty rows), inner lengths around the vector length, and the
// items split into uneven ranges (a pair of rows sharing their source rows may straddle them).
TEST(KernelTargets, VerticalPairMatchesTwoPassesOnEveryTarget) {
  ForEachTarget targets;
  std::mt19937 rng(23);
  const std::vector<std::pair<AxisSpec, AxisSpec>> specs = {
      {{Mode::kLinear, false, false, 9, 18, 0.0}, {Mode::kLinear, false, false, 7, 14, 0.0}},
      {{Mode::kLinear, false, true, 13, 5, 0.0}, {Mode::kLinear, false, false, 6, 11, 0.0}},
      {{Mode::kLinear, false, false, 1, 3, 0.0}, {Mode::kLinear, false, true, 5, 1, 0.0}},
      {{Mode::kLinear, false, false, 8, 8, 0.0}, {Mode::kNearest, false, false, 3, 7, 0.0}},
      {{Mode::kCubic, false, false, 6, 13, 0.0}, {Mode::kLinear, true, false, 17, 5, 0.0}},
  };
  int pairs_checked = 0;
  for (int64_t target : targets.targets()) {
    const SimdKernels& k = targets.use(target);
    for_each_type(StorageTypes<float>{}, [&](auto tag) {
      using T = decltype(tag);
      const DType type = dtype_of<T>();
      const int t = static_cast<int>(type), f32 = static_cast<int>(DType::kFloat32);
      ASSERT_NE(k.vertical_pair[t], nullptr) << k.target;
      for (const auto& [spec_a, spec_b] : specs) {
        for (bool backward : {false, true}) {
          AxisTable<float> ta = build_axis_table<float>(spec_a);
          AxisTable<float> tb = build_axis_table<float>(spec_b);
          if (backward) {
            ta = transpose(ta);
            tb = transpose(tb);
          }
          PassTable<float> pa(ta, false, k.lanes), pb(tb, false, k.lanes);
          for (int64_t inner : {k.lanes, k.lanes + 3, 2 * k.lanes + 1}) {
            const int64_t planes = 3;
            PassArgs<float> a, b;
            a.table = &pa;
            a.shape = {planes * tb.src_len, ta.src_len, ta.rows, inner};
            b.table = &pb;
            b.shape = {planes, tb.src_len, tb.rows, ta.rows * inner};
            const auto src = random_bytes(type, planes * tb.src_len * ta.src_len * inner, &rng);
            const int64_t mid = planes * tb.src_len * ta.rows * inner;
            const int64_t items = planes * tb.rows, n = items * b.shape.inner;
            const auto two_passes = [&](PassFn<float> first, PassFn<float> second) {
              const auto tmp =
                  run_kernel(first, a, DType::kFloat32, planes * tb.src_len * ta.rows, src, mid);
              return run_kernel(second, b, type, items, tmp, n);
            };
            const auto simd = two_passes(k.vertical[t][f32], k.vertical[f32][t]);
            const auto scalar = two_passes(scalar_vertical<float>(type, DType::kFloat32),
                                           scalar_vertical<float>(DType::kFloat32, type));
            std::vector<unsigned char> pair(static_cast<size_t>(n) * sizeof(T), 0xCD);
            for (int64_t begin = 0, step = 1; begin < items; begin += step, step += 2) {
              k.vertical_pair[t](a, b, src.data(), pair.data(), begin,
                                 std::min(items, begin + step));
            }
            const std::string what =
                std::string(k.target) + " " + dtype_name(type) + " " + mode_name(spec_a.mode) +
                "/" + mode_name(spec_b.mode) + " " + std::to_string(spec_a.in_len) + "->" +
                std::to_string(spec_a.out_len) + ", " + std::to_string(spec_b.in_len) + "->" +
                std::to_string(spec_b.out_len) + (backward ? " bwd" : "") + " inner " +
                std::to_string(inner);
            for (int64_t i = 0; i < n; ++i) {
              const size_t at = static_cast<size_t>(i) * sizeof(T);
              ASSERT_TRUE(same_element(type, &pair[at], &simd[at])) << what << " element " << i;
              ASSERT_TRUE(same_element(type, &pair[at], &scalar[at])) << what << " element " << i;
            }
            ++pairs_checked;
          }
        }
      }
    });
  }
  EXPECT_GE(pairs_checked, 2 * 5 * 10 * 3);  // two targets at least, 5 types, 10 tables, 3 inners
}

// A table whose row r is the single tap (r, 1): the kernels then only convert.
AxisTable<float> unit_table(int64_t n) {
  AxisTable<float> t;
  t.rows = t.src_len = n;
  for (int64_t r = 0; r <= n; ++r) t.offsets.push_back(r);
  for (int64_t r = 0; r < n; ++r) {
    t.index.push_back(r);
    t.weight.push_back(1.0f);
  }
  t.unit_taps = t.identity = true;
  return t;
}

// Round to nearest even, checked against exact arithmetic in double.
double exact_round(double x, int mantissa_bits, int min_exponent) {
  int e;
  std::frexp(x, &e);
  const double ulp = std::ldexp(1.0, std::max(e - 1, min_exponent) - mantissa_bits);
  return std::nearbyint(x / ulp) * ulp;  // default rounding mode: ties to even
}

std::vector<float> narrowing_cases() {
  std::vector<float> v;
  std::mt19937 rng(5);
  for (int i = 0; i < 100000; ++i) v.push_back(bits_to_float(static_cast<uint32_t>(rng())));
  for (uint32_t u = 0; u < 0x80000000u; u += 0x00004321u) {  // sweep every binade
    v.push_back(bits_to_float(u));
    v.push_back(bits_to_float(u | 0x80000000u));
  }
  // bfloat16 halfway cases and their neighbours in runs of whole vectors, both signs, from the
  // denormals to the largest finite floats (whose halfway cases round to infinity).
  for (uint32_t hi = 0; hi < 0x8000u; hi += 0x7fu) {
    for (uint32_t low : {0x7fffu, 0x8000u, 0x8001u, 0x0000u}) {
      const uint32_t u = std::min(hi, 0x7f7fu) << 16 | low;
      v.push_back(bits_to_float(u));
      v.push_back(bits_to_float(u | 0x80000000u));
      v.push_back(bits_to_float(u + 0x10000u));
      v.push_back(bits_to_float((u + 0x10000u) | 0x80000000u));
    }
  }
  for (float f : {0.0f,
                  -0.0f,
                  65504.0f,
                  65519.99f,
                  65520.0f,
                  1e30f,
                  INFINITY,
                  -INFINITY,
                  NAN,
                  std::ldexp(1.0f, -24),
                  std::ldexp(1.0f, -25),
                  std::ldexp(3.0f, -26),
                  1.0f + std::ldexp(1.0f, -11),
                  1.0f + std::ldexp(3.0f, -11),
                  1.0f + std::ldexp(1.0f, -8),
                  1.0f + std::ldexp(3.0f, -8),
                  0.5f,
                  1.5f,
                  2.5f,
                  254.5f,
                  255.5f,
                  65534.5f,
                  65535.5f,
                  -0.5f,
                  300.0f,
                  1e6f,
                  70000.0f}) {
    v.push_back(f);
  }
  for (float f = -10.0f; f < 300.0f; f += 0.25f) v.push_back(f);
  v.push_back(bits_to_float(0x7f800001u));  // signalling NaN
  v.push_back(bits_to_float(0xffc12345u));
  return v;
}

// Whether `got_bytes` hold f narrowed to `type` once: to nearest even (integers saturate, NaN -> 0;
// a NaN is the type's default quiet NaN, whatever the input's sign and payload), checked against
// exact arithmetic.
testing::AssertionResult narrowed_exactly(DType type, float f, const unsigned char* got_bytes) {
  const double got = load_element(type, got_bytes);
  auto fail = [&](double expected) {
    return testing::AssertionFailure()
           << dtype_name(type) << " value " << f << " bits " << float_to_bits(f) << ": got " << got
           << ", expected " << expected;
  };
  if (type == DType::kUInt8 || type == DType::kUInt16) {
    const double max = type == DType::kUInt8 ? 255.0 : 65535.0;
    const double expected = !(f > 0.0f) ? 0.0 : f >= max ? max : std::nearbyint(f);
    return got == expected ? testing::AssertionSuccess() : fail(expected);
  }
  const bool half = type == DType::kFloat16;
  if (std::isnan(f)) {
    uint16_t bits;
    std::memcpy(&bits, got_bytes, 2);
    const uint16_t expected = half ? 0x7e00u : 0x7fc0u;
    if (bits == expected) return testing::AssertionSuccess();
    return testing::AssertionFailure() << dtype_name(type) << " NaN bits " << float_to_bits(f)
                                       << ": got bits " << bits << ", expected " << expected;
  }
  const double exact = half ? exact_round(f, 10, -14) : exact_round(f, 7, -126);
  const double limit = half ? 65504.0 : 3.3895313892515355e38;
  const double expected = std::fabs(exact) > limit ? std::copysign(INFINITY, f) : exact;
  return got == expected ? testing::AssertionSuccess() : fail(expected);
}

// Widening: every float16 / bfloat16 / uint8 / uint16 pattern becomes the exact float32 value.
// Narrowing: every float32 case rounds once, to nearest even (integers saturate, NaN -> 0),
// checked against exact arithmetic, in the vector bodies and tails of every target.
TEST(KernelTargets, ConversionsAreExactOnEveryTarget) {
  ForEachTarget targets;
  const std::vector<float> values = narrowing_cases();
  for (int64_t target : targets.targets()) {
    const SimdKernels& k = targets.use(target);
    for (DType type : {DType::kFloat16, DType::kBFloat16, DType::kUInt8, DType::kUInt16}) {
      const int64_t patterns = type == DType::kUInt8 ? 256 : 65536;
      const int64_t n = patterns + 5;  // + a tail that is not a multiple of any vector
      const PassTable<float> unit(unit_table(n), true, k.lanes);
      PassArgs<float> args;
      args.table = &unit;
      args.shape = {1, n, n, 1};
      std::vector<unsigned char> src(static_cast<size_t>(n) * dtype_size(type));
      for (int64_t i = 0; i < n; ++i) {
        const uint16_t bits = static_cast<uint16_t>(i % patterns);
        std::memcpy(src.data() + i * dtype_size(type), &bits, dtype_size(type));
      }
      const int in = static_cast<int>(type), f32 = static_cast<int>(DType::kFloat32);
      const auto wide = run_kernel(k.horizontal[in][f32], args, DType::kFloat32, 1, src, n);
      for (int64_t i = 0; i < n; ++i) {
        const double expected = load_element(type, src.data() + i * dtype_size(type));
        float got;
        std::memcpy(&got, wide.data() + i * 4, 4);
        if (std::isnan(expected)) {
          ASSERT_TRUE(std::isnan(got)) << k.target << " " << dtype_name(type) << " " << i;
        } else {
          ASSERT_EQ(static_cast<double>(got), expected)
              << k.target << " " << dtype_name(type) << " pattern " << i;
        }
      }
    }
    const int64_t n = static_cast<int64_t>(values.size());
    const PassTable<float> unit(unit_table(n), true, k.lanes);
    PassArgs<float> args;
    args.table = &unit;
    args.shape = {1, n, n, 1};
    std::vector<unsigned char> src(values.size() * 4);
    std::memcpy(src.data(), values.data(), src.size());
    for (DType type : {DType::kFloat16, DType::kBFloat16, DType::kUInt8, DType::kUInt16}) {
      const int out = static_cast<int>(type), f32 = static_cast<int>(DType::kFloat32);
      const size_t es = dtype_size(type);
      const auto narrow = run_kernel(k.horizontal[f32][out], args, type, 1, src, n);
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_TRUE(narrowed_exactly(type, values[i], narrow.data() + i * es))
            << k.target << " horizontal";
      }
    }
  }
}

// The vertical kernels' stores too: rows of one tap (weight 1: the values themselves) over the
// narrowing cases, each row 5 full vectors and a tail, or 4 full vectors (rows of whole vectors
// run in runs of rows in `vertical`). Vectors with and without NaN or denormal lanes both
// occur, and so do rows of 4 vectors with and without them, and pairs of vectors (0 and 1, 2 and
// 3, ... of a row) of which only one has them: with AVX512_BF16 a bfloat16 pair without them is
// converted in one instruction (store2), a vector without them in one, the others the portable
// way.
TEST(KernelTargets, VerticalNarrowingIsExactOnEveryTarget) {
  ForEachTarget targets;
  const std::vector<float> values = narrowing_cases();
  for (int64_t target : targets.targets()) {
    for (const bool tail : {true, false}) {
      const SimdKernels& k = targets.use(target);
      const int64_t inner = tail ? 5 * k.lanes + 3 : 4 * k.lanes;
      const int64_t rows = static_cast<int64_t>(values.size()) / inner;
      const PassTable<float> unit(unit_table(rows), false, k.lanes);
      PassArgs<float> args;
      args.table = &unit;
      args.shape = {1, rows, rows, inner};
      std::vector<unsigned char> src(static_cast<size_t>(rows * inner) * 4);
      std::memcpy(src.data(), values.data(), src.size());
      int64_t vectors = 0, special_vectors = 0, special_rows = 0, mixed_pairs = 0;
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t before = special_vectors;
        bool pair_first = false;  // whether the even vector of the current pair has such lanes
        for (int64_t v = 0; v + k.lanes <= inner; v += k.lanes, ++vectors) {
          const float* first = &values[r * inner + v];
          const bool special = std::any_of(first, first + k.lanes, [](float f) {
            return std::isnan(f) || std::fpclassify(f) == FP_SUBNORMAL;
          });
          special_vectors += special;
          if ((v / k.lanes) % 2 == 0) {
            pair_first = special;
          } else {
            mixed_pairs += special != pair_first;
          }
        }
        special_rows += special_vectors > before;
      }
      ASSERT_GT(special_vectors, 100);
      ASSERT_LT(special_vectors, vectors - 100);
      ASSERT_GT(special_rows, 100);
      ASSERT_LT(special_rows, rows - 100);
      ASSERT_GT(mixed_pairs, 50);
      for (DType type : {DType::kFloat16, DType::kBFloat16, DType::kUInt8, DType::kUInt16}) {
        const int out = static_cast<int>(type), f32 = static_cast<int>(DType::kFloat32);
        const size_t es = dtype_size(type);
        const auto narrow = run_kernel(k.vertical[f32][out], args, type, rows, src, rows * inner);
        for (int64_t i = 0; i < rows * inner; ++i) {
          ASSERT_TRUE(narrowed_exactly(type, values[i], narrow.data() + i * es))
              << k.target << " vertical row " << i / inner << " element " << i % inner
              << (tail ? " (rows with a tail)" : " (rows of whole vectors)");
        }
      }
    }
  }
}

// bfloat16 rows of linear resampling (2x and 4x up, 3:2 down) into float32, against the scalar
// kernel bit for bit, with denormals, tiny and near-largest elements, and more infinities, NaNs
// and signed zeros than the random rows of SimdMatchesScalarOnEveryTarget. Rows of three kinds:
// elements from 2^-109 up to 2^-103 (sums of two products that nearly cancel are still normal
// float32 values); elements below 2^-103 down to denormals, over a third of them denormal
// (products and sums denormal too: a kernel that flushed denormals to zero, as VDPBF16PS does,
// would give zeros there; docs/performance.md, "Two-tap bfloat16 blocks by dot product"); and
// signed zeros, infinities, NaNs and elements near the largest bfloat16.
TEST(KernelTargets, BFloat16LinearRowsAreExactOnEveryTarget) {
  ForEachTarget targets;
  std::mt19937 rng(23);
  const int f32 = static_cast<int>(DType::kFloat32), bf16 = static_cast<int>(DType::kBFloat16);
  const auto element = [&](int kind) -> uint16_t {
    const uint16_t sign = static_cast<uint16_t>(rng() % 2 ? 0x8000 : 0);
    const uint16_t mantissa = static_cast<uint16_t>(rng() % 128);
    int exponent = 0;
    if (kind == 0) exponent = 18 + static_cast<int>(rng() % 6);
    if (kind == 1) exponent = rng() % 3 == 0 ? 0 : static_cast<int>(rng() % 24);
    if (kind == 2) {
      const uint32_t pick = rng() % 5;
      if (pick == 0) return sign;                                      // a signed zero
      if (pick == 1) return static_cast<uint16_t>(sign | 0x7f80);      // an infinity
      if (pick == 2) return static_cast<uint16_t>(0x7fc0 | mantissa);  // a NaN
      exponent = 250 + static_cast<int>(rng() % 5);                    // near the largest
    }
    return static_cast<uint16_t>(sign | exponent << 7 | mantissa);
  };
  int checked_targets = 0, denormal_outputs = 0;  // (of the scalar kernel)
  for (int64_t target : targets.targets()) {
    const SimdKernels& k = targets.use(target);
    ++checked_targets;
    for (const AxisSpec& spec : {AxisSpec{Mode::kLinear, false, false, 64, 128, 0.0},
                                 AxisSpec{Mode::kLinear, false, false, 100, 400, 0.0},
                                 AxisSpec{Mode::kLinear, false, false, 96, 64, 0.0}}) {
      const AxisTable<float> table = build_axis_table<float>(spec);
      PassTable<float> padded(table, true, k.lanes);
      const int64_t n_rows = 48;
      std::vector<unsigned char> src(static_cast<size_t>(n_rows * table.src_len) * 2);
      for (int64_t r = 0; r < n_rows; ++r) {
        const int kind = static_cast<int>(r % 3);
        for (int64_t i = 0; i < table.src_len; ++i) {
          const uint16_t e = element(kind);
          std::memcpy(&src[static_cast<size_t>(r * table.src_len + i) * 2], &e, 2);
        }
      }
      PassArgs<float> args;
      args.table = &padded;
      args.shape = {n_rows, table.src_len, table.rows, 1};
      const auto simd = run_kernel(k.horizontal[bf16][f32], args, DType::kFloat32, n_rows, src,
                                   n_rows * table.rows);
      const auto scalar = run_kernel(scalar_horizontal<float>(DType::kBFloat16, DType::kFloat32),
                                     args, DType::kFloat32, n_rows, src, n_rows * table.rows);
      for (int64_t i = 0; i < n_rows * table.rows; ++i) {
        ASSERT_TRUE(same_element(DType::kFloat32, &simd[i * 4], &scalar[i * 4]))
            << k.target << " " << spec.in_len << "->" << spec.out_len << " row " << i / table.rows
            << " (kind " << (i / table.rows) % 3 << ") element " << i % table.rows;
        float value;
        std::memcpy(&value, &scalar[i * 4], 4);
        denormal_outputs += std::fpclassify(value) == FP_SUBNORMAL;
      }
    }
  }
  EXPECT_GE(checked_targets, 2);
  EXPECT_GT(denormal_outputs, 200 * checked_targets);
}

}  // namespace
}  // namespace upsample::cpu
