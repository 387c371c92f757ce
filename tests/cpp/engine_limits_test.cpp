// The engine at its limits: tables streamed instead of materialised, axes of billions of
// elements, phase-1 memory (estimate, limit), extreme scales, overlapping views.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <vector>

#include "core/plan.hpp"
#include "core/validate.hpp"
#include "cpu/backend.hpp"
#include "engine_helpers.hpp"

namespace upsample {
namespace {

using namespace ::upsample::test_support;  // NOLINT

// A table budget of one byte streams every table; the kernels then generate each row as they
// go, in the same order with the same weights, so the bits must not change - for every mode,
// both directions, every dtype and thread count.
TEST(EngineLimits, StreamedTablesGiveTheSameBits) {
  std::mt19937 rng(41);
  PlanOptions streamed;
  streamed.table_budget = 1;
  for (const Problem& p : random_problems(150, 43)) {
    for (Direction dir : {Direction::kForward, Direction::kBackward}) {
      const auto& len = dir == Direction::kForward ? p.in : p.out;
      std::vector<float> xf(numel(p, len));
      for (auto& v : xf) v = static_cast<float>(std::normal_distribution<double>()(rng));
      const auto ref = run<float>(p, dir, xf, DType::kFloat32);
      EXPECT_TRUE(bitwise_equal(ref, run<float>(p, dir, xf, DType::kFloat32, false, 1, streamed)))
          << describe(p);
      EXPECT_TRUE(bitwise_equal(ref, run<float>(p, dir, xf, DType::kFloat32, true, 3, streamed)))
          << describe(p) << " channels-last";
      std::vector<double> xd(xf.begin(), xf.end());
      EXPECT_TRUE(bitwise_equal(run<double>(p, dir, xd, DType::kFloat64),
                                run<double>(p, dir, xd, DType::kFloat64, false, 2, streamed)))
          << describe(p) << " float64";
      if (dir == Direction::kForward) {
        std::vector<uint8_t> xu(xf.size());
        for (size_t i = 0; i < xu.size(); ++i) xu[i] = static_cast<uint8_t>(rng());
        EXPECT_TRUE(bitwise_equal(run<uint8_t>(p, dir, xu, DType::kUInt8),
                                  run<uint8_t>(p, dir, xu, DType::kUInt8, true, 2, streamed)))
            << describe(p) << " uint8";
      }
    }
  }
}

// The CANN repro of a 2147483649-row bicubic grad: the transposed table would hold 2^33 taps;
// streamed, the plan holds a few bytes and a tiny workspace (its execution is the opt-in test
// tests/cpp/huge/huge_axis_test.cpp).
TEST(EngineLimits, AxisOfTwoBillionRowsPlansInBoundedMemory) {
  OpDesc op;
  op.mode = Mode::kCubic;
  op.direction = Direction::kBackward;
  const TensorDesc grad_out = TensorDesc::contiguous(DType::kFloat32, {1, 1, 2147483649LL, 1});
  const TensorDesc grad_in = TensorDesc::contiguous(DType::kFloat32, {1, 1, 2, 1});
  Plan plan;
  const Status st = make_plan(op, grad_out, grad_in, &plan);
  ASSERT_TRUE(st.ok()) << st.message;
  EXPECT_LT(plan.held_bytes(), 1u << 20);
  // H first (2^31 + 1 rows into 2), then the 1 -> 1 cubic W pass: a 2-element intermediate.
  EXPECT_LT(plan.workspace_bytes(), 1u << 10);
  EXPECT_NE(plan.describe().find("streamed"), std::string::npos) << plan.describe();
  // Its forward (2 -> 2^31 + 1) too.
  op.direction = Direction::kForward;
  ASSERT_TRUE(make_plan(op, grad_in, grad_out, &plan).ok());
  EXPECT_LT(plan.held_bytes(), 1u << 20);
}

size_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

// Phase 1 knows what it will allocate before allocating it: the estimate (core tables plus the
// CPU backend's kernel-ready forms) is within 10% of the heap the finished plan holds.
TEST(EngineLimits, PlanMemoryEstimateIsWithinTenPercent) {
  struct Case {
    OpDesc op;
    TensorDesc src, dst;
  };
  std::vector<Case> cases;
  auto add = [&](Mode mode, bool aa, Direction dir, TensorDesc in, TensorDesc out) {
    Case c;
    c.op.mode = mode;
    c.op.antialias = aa;
    c.op.direction = dir;
    c.src = dir == Direction::kForward ? in : out;
    c.dst = dir == Direction::kForward ? out : in;
    cases.push_back(c);
  };
  using TD = TensorDesc;
  add(Mode::kCubic, false, Direction::kForward, TD::contiguous(DType::kFloat32, {1, 1, 64, 64}),
      TD::contiguous(DType::kFloat32, {1, 1, 200000, 90000}));
  add(Mode::kLinear, true, Direction::kBackward,
      TD::contiguous(DType::kFloat32, {1, 1, 300000, 4000}),
      TD::contiguous(DType::kFloat32, {1, 1, 70000, 900}));
  add(Mode::kLinear, false, Direction::kForward,
      TD::channels_last(DType::kFloat32, {1, 3, 1000, 1000}),
      TD::channels_last(DType::kFloat32, {1, 3, 300000, 250000}));
  add(Mode::kNearestExact, false, Direction::kBackward,
      TD::contiguous(DType::kFloat64, {1, 1, 50000, 70000}),
      TD::contiguous(DType::kFloat64, {1, 1, 350000, 90000}));
  for (const Case& c : cases) {
    core::Plan<float> structure;
    core::Plan<double> structure64;
    int64_t estimate = 0;
    if (c.src.dtype == DType::kFloat64) {
      ASSERT_TRUE(core::plan_structure(c.op, c.src, c.dst, {}, &structure64).ok());
      estimate = structure64.table_bytes + cpu::compiled_table_bytes(structure64);
    } else {
      ASSERT_TRUE(core::plan_structure(c.op, c.src, c.dst, {}, &structure).ok());
      estimate = structure.table_bytes + cpu::compiled_table_bytes(structure);
    }
    const size_t before = heap_in_use();
    Plan plan;
    ASSERT_TRUE(make_plan(c.op, c.src, c.dst, &plan).ok());
    const double held = static_cast<double>(heap_in_use() - before);
    EXPECT_GT(held, 1e6) << plan.describe();  // a case large enough to measure
    EXPECT_NEAR(static_cast<double>(estimate), held, 0.1 * held) << plan.describe();
    EXPECT_NEAR(static_cast<double>(plan.held_bytes()), held, 0.1 * held);
  }
}

TEST(EngineLimits, MemoryLimitRefusesWithTheFigures) {
  OpDesc op;
  op.mode = Mode::kCubic;
  const TensorDesc src = TensorDesc::contiguous(DType::kFloat32, {1, 1, 8, 8});
  const TensorDesc dst = TensorDesc::contiguous(DType::kFloat32, {1, 1, 40000, 8});
  Plan plan;
  PlanOptions small;
  small.max_bytes = 100000;
  Status st = make_plan(op, src, dst, &plan, small);
  ASSERT_EQ(st.code, StatusCode::kInvalidArgument);
  EXPECT_NE(st.message.find("limit of 100000 bytes"), std::string::npos) << st.message;
  EXPECT_FALSE(plan.valid());
  ASSERT_EQ(setenv("UPSAMPLE_MAX_BYTES", "64K", 1), 0);
  st = make_plan(op, src, dst, &plan);
  unsetenv("UPSAMPLE_MAX_BYTES");
  ASSERT_EQ(st.code, StatusCode::kInvalidArgument);
  EXPECT_NE(st.message.find("limit of 65536 bytes"), std::string::npos) << st.message;
  EXPECT_TRUE(make_plan(op, src, dst, &plan).ok());
}

// Every finite positive scale is either accepted - with finite results equal to the float64
// reference's (which clamps its indices the same way) - or refused with a message.
TEST(EngineLimits, ExtremeScales) {
  std::mt19937 rng(5);
  const double denormal = std::numeric_limits<double>::denorm_min();
  for (Mode mode : {Mode::kNearest, Mode::kNearestExact, Mode::kLinear, Mode::kCubic}) {
    for (bool aa : {false, true}) {
      if (aa && (mode == Mode::kNearest || mode == Mode::kNearestExact)) continue;
      for (double scale : {1e-30, core::kMinScale, 1e30, 1e300, 1.0, 0.5}) {
        Problem p;
        p.op.mode = mode;
        p.op.antialias = aa;
        p.op.spatial_rank = 2;
        p.in = {5, 7, 1};
        p.out = {9, 4, 1};
        p.op.scales = {scale, scale, 0};
        const auto x = random_vector(numel(p, p.in), &rng);
        const auto y = random_vector(numel(p, p.out), &rng);
        const auto fwd = run<double>(p, Direction::kForward, x, DType::kFloat64);
        const auto ref = reference::forward(to_reference(p), x);
        for (size_t i = 0; i < ref.size(); ++i) {
          ASSERT_TRUE(std::isfinite(fwd[i])) << describe(p);
          ASSERT_NEAR(fwd[i], ref[i], 1e-9 * std::max(1.0, std::fabs(ref[i]))) << describe(p);
        }
        const auto f32 = run<float>(p, Direction::kForward, std::vector<float>(x.begin(), x.end()),
                                    DType::kFloat32);
        for (float v : f32) ASSERT_TRUE(std::isfinite(v)) << describe(p);
        const auto bwd = run<double>(p, Direction::kBackward, y, DType::kFloat64);
        for (double v : bwd) ASSERT_TRUE(std::isfinite(v)) << describe(p);
      }
      for (double scale : {denormal, 1e-310, 1e-40, 7e-31}) {
        OpDesc op;
        op.mode = mode;
        op.antialias = aa;
        op.scales = {scale, 0.0, 0.0};
        Plan plan;
        const Status st = make_plan(op, TensorDesc::contiguous(DType::kFloat32, {1, 1, 5, 7}),
                                    TensorDesc::contiguous(DType::kFloat32, {1, 1, 9, 4}), &plan);
        ASSERT_EQ(st.code, StatusCode::kInvalidArgument) << scale;
        EXPECT_NE(st.message.find("2^-100"), std::string::npos) << st.message;
      }
    }
  }
}

// An output that overlaps the input is refused; interleaved or side-by-side views of one
// buffer that do not share an element give the same result as separate buffers.
TEST(EngineLimits, OverlappingViewsAreRefusedOthersUnchanged) {
  OpDesc op;
  op.mode = Mode::kLinear;
  // src: 2x3 in the left half of a 4-wide canvas row; dst: 4x2 ... placed variously.
  TensorDesc src = TensorDesc::contiguous(DType::kFloat32, {1, 1, 2, 3});
  TensorDesc dst = TensorDesc::contiguous(DType::kFloat32, {1, 1, 2, 3});
  dst.sizes = {1, 1, 4, 2};
  std::vector<float> canvas(64, 0.0f);
  for (int i = 0; i < 64; ++i) canvas[i] = static_cast<float>(i % 7);
  auto run_on = [&](const TensorDesc& s, const float* sp, const TensorDesc& d, float* dp) {
    Plan plan;
    const Status st = make_plan(op, s, d, &plan);
    EXPECT_TRUE(st.ok()) << st.message;
    std::vector<unsigned char> ws(plan.workspace_bytes());
    return execute(plan, sp, dp, ws.data(), ws.size());
  };
  // Side by side: rows of 8 floats, src in columns 0..2, dst in columns 4..5.
  src.strides = {16, 16, 8, 1};
  dst.strides = {32, 32, 8, 1};
  std::vector<float> separate(64, 0.0f);
  ASSERT_TRUE(run_on(src, canvas.data(), dst, separate.data() + 4).ok());
  std::vector<float> shared = canvas;
  const Status side = run_on(src, shared.data(), dst, shared.data() + 4);
  ASSERT_TRUE(side.ok()) << side.message;
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 2; ++c) EXPECT_EQ(shared[r * 8 + 4 + c], separate[r * 8 + 4 + c]);
  }
  // Even/odd interleaving: src on even elements, dst on odd ones.
  src.strides = {12, 12, 6, 2};
  dst.strides = {16, 16, 4, 2};
  std::fill(separate.begin(), separate.end(), 0.0f);
  ASSERT_TRUE(run_on(src, canvas.data(), dst, separate.data() + 1).ok());
  shared = canvas;
  ASSERT_TRUE(run_on(src, shared.data(), dst, shared.data() + 1).ok());
  for (int i = 1; i < 16; i += 2) EXPECT_EQ(shared[i], separate[i]) << i;
  // Overlap: dst starts inside src.
  src.strides = {6, 6, 3, 1};
  dst.strides = {8, 8, 2, 1};
  shared = canvas;
  const Status overlap = run_on(src, shared.data(), dst, shared.data() + 5);
  EXPECT_EQ(overlap.code, StatusCode::kInvalidArgument);
  EXPECT_NE(overlap.message.find("overlaps"), std::string::npos) << overlap.message;
  EXPECT_EQ(shared, canvas);  // nothing written
}

}  // namespace
}  // namespace upsample
