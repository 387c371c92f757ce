// Kernels beside the main set, on every compiled SIMD target this CPU runs. The vectorised
// unit-tap row copy (copy_rows_4 of src/cpu/simd.cpp): bit-exact against the scalar gather for
// every bit pattern (signalling NaNs included), for nearest and nearest-exact tables of every ratio
// (windows of 1-4 vectors and wider), row lengths around the vector length, channel interleaves.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
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

TEST(CopyKernel, BitExactOnEveryTarget) {
  std::mt19937 rng(17);
  int targets = 0;
  ForEachTarget each;
  for (int64_t target : each.targets()) {
    const SimdKernels& k = each.use(target);
    const PassFn<float> copy = k.copy_rows_4;
    ++targets;
    for (Mode mode : {Mode::kNearest, Mode::kNearestExact}) {
      for (int i = 0; i < 60; ++i) {
        AxisSpec spec;
        spec.mode = mode;
        spec.in_len = 1 + static_cast<int64_t>(rng() % (i < 30 ? 40 : 300));
        spec.out_len = 1 + static_cast<int64_t>(rng() % (i < 30 ? 80 : 300));
        for (int64_t group : {1, 3, 8}) {
          AxisTable<float> t = build_axis_table<float>(spec);
          if (group > 1) t = interleave(t, group);
          const PassTable<float> table(t, true, k.lanes);
          PassArgs<float> args;
          args.table = &table;
          args.shape = {3, t.src_len, t.rows, 1};
          std::vector<uint32_t> src(static_cast<size_t>(3 * t.src_len));
          for (auto& v : src) v = static_cast<uint32_t>(rng());  // any bits: NaNs, sNaNs, ...
          std::vector<uint32_t> got(static_cast<size_t>(3 * t.rows), 0xdeadbeefu);
          std::vector<uint32_t> expected(got.size());
          copy(args, src.data(), got.data(), 0, 3, nullptr);
          gather_copy<float>(4, true)(args, src.data(), expected.data(), 0, 3, nullptr);
          ASSERT_EQ(got, expected) << hwy::TargetName(target) << " " << mode_name(mode) << " "
                                   << spec.in_len << "->" << spec.out_len << " group " << group;
        }
      }
    }
  }
  EXPECT_GE(targets, 2);
}

// The row copy and the row gather as one kernel (copy_pair_4, nearest forward over NCHW planes)
// against the two passes one after the other (copy_rows_4 into an intermediate, then the scalar
// row gather): every bit pattern, both nearest modes, up- and downsampling of both axes (rows
// repeated 1 to 20 times: more than the kernel writes from one copy), short rows, and the items
// split into uneven ranges (a run of repeated rows may straddle them); the same for its
// streaming variant (copy_pair_4_stream), at aligned and misaligned outputs.
TEST(CopyKernel, PairIsTheTwoPassesOnEveryTarget) {
  std::mt19937 rng(23);
  int targets = 0;
  ForEachTarget each;
  for (int64_t target : each.targets()) {
    const SimdKernels& k = each.use(target);
    ASSERT_NE(k.copy_pair_4, nullptr) << hwy::TargetName(target);
    ASSERT_NE(k.copy_pair_4_stream, nullptr) << hwy::TargetName(target);
    ++targets;
    for (Mode mode : {Mode::kNearest, Mode::kNearestExact}) {
      for (int i = 0; i < 24; ++i) {
        AxisSpec w_spec, h_spec;
        w_spec.mode = h_spec.mode = mode;
        w_spec.in_len = 1 + static_cast<int64_t>(rng() % 70);
        w_spec.out_len = 1 + static_cast<int64_t>(rng() % 140);
        h_spec.in_len = 1 + static_cast<int64_t>(rng() % 12);
        h_spec.out_len = i % 3 == 0 ? h_spec.in_len * 20 : 1 + static_cast<int64_t>(rng() % 40);
        const AxisTable<float> wt = build_axis_table<float>(w_spec);
        const AxisTable<float> ht = build_axis_table<float>(h_spec);
        const PassTable<float> w_table(wt, true, k.lanes);
        const PassTable<float> h_table(ht, false, k.lanes);
        const int64_t planes = 3;
        PassArgs<float> a, b;
        a.table = &w_table;
        a.shape = {planes * ht.src_len, wt.src_len, wt.rows, 1};
        b.table = &h_table;
        b.shape = {planes, ht.src_len, ht.rows, wt.rows};
        std::vector<uint32_t> src(static_cast<size_t>(planes * ht.src_len * wt.src_len));
        for (auto& v : src) v = static_cast<uint32_t>(rng());  // any bits: NaNs, sNaNs, ...
        std::vector<uint32_t> mid(static_cast<size_t>(planes * ht.src_len * wt.rows));
        std::vector<uint32_t> expected(static_cast<size_t>(planes * ht.rows * wt.rows));
        k.copy_rows_4(a, src.data(), mid.data(), 0, a.shape.outer, nullptr);
        gather_copy<float>(4, false)(b, mid.data(), expected.data(), 0, planes * ht.rows, nullptr);
        const int64_t items = planes * ht.rows;
        // The output at a 64-byte boundary and one element past it: the streaming kernel's
        // aligned vectors take non-temporal stores, the others ordinary ones.
        std::vector<uint32_t> buffer(expected.size() + 32);
        const size_t aligned = (64 - reinterpret_cast<uintptr_t>(buffer.data()) % 64) % 64 / 4;
        for (PairFn<float> pair : {k.copy_pair_4, k.copy_pair_4_stream}) {
          for (size_t shift : {size_t{0}, size_t{1}}) {
            uint32_t* got = buffer.data() + aligned + shift;
            for (int64_t split : {int64_t{0}, items / 3, items / 2 + 1}) {
              std::fill(buffer.begin(), buffer.end(), 0xdeadbeefu);
              pair(a, b, src.data(), got, 0, split);
              pair(a, b, src.data(), got, split, items);
              ASSERT_TRUE(std::equal(expected.begin(), expected.end(), got))
                  << hwy::TargetName(target) << " " << mode_name(mode) << " " << h_spec.in_len
                  << "x" << w_spec.in_len << "->" << h_spec.out_len << "x" << w_spec.out_len
                  << " split " << split << " shift " << shift
                  << (pair == k.copy_pair_4_stream ? " streaming" : "");
              ASSERT_EQ(got[expected.size()], 0xdeadbeefu) << "wrote past the output";
            }
          }
        }
      }
    }
  }
  EXPECT_GE(targets, 2);
}

// `shift` floats past the first 64-byte boundary in v (which has room for 16 floats of alignment
// and the shift): shift 0 starts at a whole vector of every target, so the streaming kernels'
// non-temporal stores run (a std::vector is only 16-byte aligned).
float* at_boundary(std::vector<float>& v, size_t shift) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(v.data());
  return v.data() + (64 - address % 64) % 64 / sizeof(float) + shift;
}

// The vertical kernel with non-temporal stores (float32 -> float32, the only pair it serves)
// gives the ordinary one's bits on every target, for row lengths and offsets that make some
// vectors aligned and others not: a forward cubic table, and the transposed 2x linear one that
// W16's last pass streams over rows of 32 channels (a reducing pass: dispatch.cpp,
// kReducingStreamBytes).
TEST(StreamKernel, SameBitsAsTheOrdinaryVerticalKernel) {
  std::mt19937 rng(19);
  const int f32 = static_cast<int>(DType::kFloat32);
  ForEachTarget each;
  for (int64_t target : each.targets()) {
    const SimdKernels& k = each.use(target);
    for (int64_t inner : {int64_t{32}, int64_t{64}, int64_t{67}, int64_t{200}}) {
      for (bool transposed : {false, true}) {
        const AxisTable<float> t =
            transposed ? transpose(build_axis_table<float>(
                             AxisSpec{Mode::kLinear, false, false, 64, 128, 0.0}))
                       : build_axis_table<float>(AxisSpec{Mode::kCubic, false, false, 9, 23, 0.0});
        const PassTable<float> table(t, false, k.lanes);
        PassArgs<float> args;
        args.table = &table;
        args.shape = {2, t.src_len, t.rows, inner};
        std::vector<float> src(static_cast<size_t>(2 * t.src_len * inner));
        for (float& v : src) v = static_cast<float>(static_cast<int>(rng() % 200)) * 0.37f;
        const size_t n = static_cast<size_t>(2 * t.rows * inner);
        std::vector<float> streamed(n + 32), ordinary(n + 32);
        for (size_t shift : {size_t{0}, size_t{1}}) {  // aligned and misaligned rows
          float* s_out = at_boundary(streamed, shift);
          float* o_out = at_boundary(ordinary, shift);
          k.vertical_stream(args, src.data(), s_out, 0, 2 * t.rows, nullptr);
          k.vertical[f32][f32](args, src.data(), o_out, 0, 2 * t.rows, nullptr);
          ASSERT_EQ(0, std::memcmp(s_out, o_out, n * sizeof(float)))
              << hwy::TargetName(target) << " inner " << inner << " shift " << shift
              << (transposed ? " transposed" : "");
        }
      }
    }
  }
}

// The horizontal kernel with non-temporal stores (float32 -> float32) gives the ordinary one's
// bits on every target: 2x linear upsampling (W11's long runs of held blocks), cubic, a ratio
// whose blocks differ, and downsampling (phased runs), over rows whose outputs start aligned
// or not, in three calls that split the rows; NaN and infinite inputs included.
TEST(StreamKernel, SameBitsAsTheOrdinaryHorizontalKernel) {
  std::mt19937 rng(23);
  const int f32 = static_cast<int>(DType::kFloat32);
  ForEachTarget each;
  int targets = 0;
  for (int64_t target : each.targets()) {
    const SimdKernels& k = each.use(target);
    ASSERT_NE(k.horizontal_stream, nullptr);
    ASSERT_NE(k.flush_streams, nullptr);  // (the executor's fence: the kernels do not fence)
    ++targets;
    // Forward tables, and the transposed ones of the backward passes the kernel streams as
    // reducing passes (dispatch.cpp, kReducingStreamBytes): W2's 2x linear (phased runs between
    // border blocks) and a 2x cubic (W4's).
    struct Case {
      AxisSpec spec;
      bool transposed;
    };
    for (const Case& c : {Case{{Mode::kLinear, false, false, 256, 512, 0.0}, false},
                          Case{{Mode::kCubic, false, false, 100, 200, 0.0}, false},
                          Case{{Mode::kLinear, false, true, 37, 101, 0.0}, false},
                          Case{{Mode::kLinear, false, false, 512, 256, 0.0}, false},
                          Case{{Mode::kLinear, false, false, 64, 128, 0.0}, true},
                          Case{{Mode::kCubic, false, false, 256, 512, 0.0}, true}}) {
      const AxisSpec& spec = c.spec;
      const AxisTable<float> axis = build_axis_table<float>(spec);
      const PassTable<float> table(c.transposed ? transpose(axis) : axis, true, k.lanes);
      const int64_t outer = 11;
      const int64_t in_len = c.transposed ? spec.out_len : spec.in_len;
      const int64_t out_len = c.transposed ? spec.in_len : spec.out_len;
      PassArgs<float> args;
      args.table = &table;
      args.shape = {outer, in_len, out_len, 1};
      std::vector<float> src(static_cast<size_t>(outer * in_len));
      for (float& v : src) v = static_cast<float>(static_cast<int>(rng() % 2000)) * 0.37f - 300.0f;
      src[5] = std::numeric_limits<float>::quiet_NaN();
      src[in_len + 9] = std::numeric_limits<float>::infinity();
      const size_t n = static_cast<size_t>(outer * out_len);
      for (size_t shift : {size_t{0}, size_t{1}}) {  // aligned and misaligned outputs
        std::vector<float> streamed(n + 32, -1.0f), ordinary(n + 32, -2.0f);
        float* s_out = at_boundary(streamed, shift);
        float* o_out = at_boundary(ordinary, shift);
        const int64_t cuts[] = {0, 4, 5, outer};
        for (int c = 0; c < 3; ++c) {
          k.horizontal_stream(args, src.data(), s_out, cuts[c], cuts[c + 1], nullptr);
        }
        k.flush_streams();
        k.horizontal[f32][f32](args, src.data(), o_out, 0, outer, nullptr);
        ASSERT_EQ(0, std::memcmp(s_out, o_out, n * sizeof(float)))
            << hwy::TargetName(target) << " " << in_len << "->" << out_len
            << (c.transposed ? " transposed" : "") << " shift " << shift;
      }
    }
  }
  EXPECT_GE(targets, 2);
}

}  // namespace
}  // namespace upsample::cpu
