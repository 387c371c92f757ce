// Phase-1 memory against the truth: the bytes make_plan() holds at its peak and when it is done,
// measured by the replaced operator new (injection.cpp), against the estimate the memory limit
// is applied to (core::phase_one_bytes), computed before anything proportional to an axis is
// allocated.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/executable.hpp"
#include "core/plan.hpp"
#include "cpp/alloc_failure/injection.hpp"
#include "cpu/backend.hpp"
#include "upsample/resample.hpp"

namespace upsample {
namespace {

struct Case {
  const char* name;
  OpDesc op;
  TensorDesc src, dst;
};

Case make_case(const char* name, Mode mode, bool aa, Direction dir, int rank, TensorDesc in,
               TensorDesc out) {
  Case c;
  c.name = name;
  c.op.mode = mode;
  c.op.antialias = aa;
  c.op.direction = dir;
  c.op.spatial_rank = rank;
  c.src = dir == Direction::kForward ? in : out;
  c.dst = dir == Direction::kForward ? out : in;
  return c;
}

template <typename W>
int64_t estimate(const Case& c) {
  core::Plan<W> plan;
  // With the backend's advice on the pass order, as make_plan plans (the tables' build order,
  // hence the peak, follows the pass order).
  EXPECT_TRUE(core::plan_structure(c.op, c.src, c.dst, {}, &plan, &cpu::backend()).ok()) << c.name;
  return core::phase_one_bytes(plan, cpu::backend());
}

TEST(PlanMemory, PhaseOneEstimateIsWithinTenPercentOfThePeak) {
  using TD = TensorDesc;
  constexpr DType f32 = DType::kFloat32;
  const Direction fwd = Direction::kForward, bwd = Direction::kBackward;
  const std::vector<Case> cases = {
      make_case("bicubic up, two axes", Mode::kCubic, false, fwd, 2,
                TD::contiguous(f32, {1, 1, 64, 64}), TD::contiguous(f32, {1, 1, 200000, 90000})),
      make_case("bilinear aa backward (transposed)", Mode::kLinear, true, bwd, 2,
                TD::contiguous(f32, {1, 1, 300000, 4000}), TD::contiguous(f32, {1, 1, 70000, 900})),
      make_case("bilinear up, channels-last RGB (interleaved)", Mode::kLinear, false, fwd, 2,
                TD::channels_last(f32, {1, 3, 1000, 1000}),
                TD::channels_last(f32, {1, 3, 300000, 250000})),
      make_case("nearest-exact backward float64", Mode::kNearestExact, false, bwd, 2,
                TD::contiguous(DType::kFloat64, {1, 1, 50000, 70000}),
                TD::contiguous(DType::kFloat64, {1, 1, 350000, 90000})),
      make_case("bicubic aa down, wide rows", Mode::kCubic, true, fwd, 1,
                TD::contiguous(f32, {1, 1, 1000000}), TD::contiguous(f32, {1, 1, 70000})),
      make_case("area down", Mode::kArea, false, fwd, 1, TD::contiguous(f32, {1, 1, 3000000}),
                TD::contiguous(f32, {1, 1, 700000})),
      make_case("bilinear backward channels-last (transposed, interleaved)", Mode::kLinear, false,
                bwd, 2, TD::channels_last(f32, {1, 3, 4, 200000}),
                TD::channels_last(f32, {1, 3, 4, 600000})),
      make_case("bicubic aa backward, 2 axes", Mode::kCubic, true, bwd, 2,
                TD::contiguous(f32, {1, 1, 600000, 300000}),
                TD::contiguous(f32, {1, 1, 90000, 50000})),
  };
  for (const Case& c : cases) {
    const int64_t estimated =
        c.src.dtype == DType::kFloat64 ? estimate<double>(c) : estimate<float>(c);
    const int64_t before = testing_alloc::g_live_bytes.load();
    testing_alloc::reset_peak_bytes();
    Plan plan;
    // Claimed shapes: what phase 1 holds is measured; their workspaces (tens of GB, never
    // allocated here) are let through the memory limit.
    PlanOptions unlimited;
    unlimited.max_bytes = SIZE_MAX;
    const Status st = make_plan(c.op, c.src, c.dst, &plan, unlimited);
    ASSERT_TRUE(st.ok()) << c.name << ": " << st.message;
    const double peak = static_cast<double>(testing_alloc::g_peak_bytes.load() - before);
    const double held = static_cast<double>(testing_alloc::g_live_bytes.load() - before);
    ASSERT_GT(peak, 4e6) << c.name << ": a case large enough to measure\n" << plan.describe();
    EXPECT_NEAR(static_cast<double>(estimated), peak, 0.1 * peak)
        << c.name << ": estimate " << estimated << " bytes, peak " << peak << ", held " << held
        << "\n"
        << plan.describe();
    EXPECT_NEAR(static_cast<double>(plan.held_bytes()), held, 0.1 * held) << c.name;
    std::printf("  %-58s estimate %11lld  peak %11.0f (%+.1f%%)  held %11.0f\n", c.name,
                static_cast<long long>(estimated), peak, 100.0 * (estimated - peak) / peak, held);
  }
}

}  // namespace
}  // namespace upsample
