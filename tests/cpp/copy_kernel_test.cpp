// The vectorised unit-tap row copy (src/cpu/simd_copy.cpp) on every compiled SIMD target this CPU
// runs: bit-exact against the scalar gather for every bit pattern (signalling NaNs included),
// for nearest and nearest-exact tables of every ratio (windows of 1-4 vectors and wider), row
// lengths around the vector length, channel interleaves.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/axis_table.hpp"
#include "cpu/kernels.hpp"
#include "hwy/targets.h"

namespace upsample::cpu {
namespace {

TEST(CopyKernel, BitExactOnEveryTarget) {
  std::mt19937 rng(17);
  int targets = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    const SimdKernels& k = simd_kernels();
    const PassFn<float> copy = simd_copy_rows_4();
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
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(targets, 2);
}

}  // namespace
}  // namespace upsample::cpu
