// The engine at its limits: tables streamed instead of materialised, axes of billions of
// elements, phase-1 memory (estimate, limit), extreme scales, overlapping views.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <vector>

#include "core/layout.hpp"
#include "core/plan.hpp"
#include "core/validate.hpp"
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

// Phase 1 visits at most AxisWeights::kMaxVisitedRows rows per axis, so planning an axis of
// 2^40 claimed elements (or a 2^40-element gradient) finishes at once with a bounded plan -
// for every mode, both directions and an upsampling and a downsampling axis. (The call itself
// is the check: an O(length) phase 1 would take hours here.)
TEST(EngineLimits, PhaseOneWorkIsIndependentOfClaimedLengths) {
  const int64_t huge = int64_t{1} << 40;
  struct ModeCase {
    Mode mode;
    bool aa;
  };
  for (const ModeCase m : {ModeCase{Mode::kNearest, false}, ModeCase{Mode::kNearestExact, false},
                           ModeCase{Mode::kLinear, false}, ModeCase{Mode::kLinear, true},
                           ModeCase{Mode::kCubic, false}, ModeCase{Mode::kCubic, true},
                           ModeCase{Mode::kArea, false}}) {
    for (Direction dir : {Direction::kForward, Direction::kBackward}) {
      for (const auto& [in_len, out_len] :
           {std::pair{int64_t{2}, huge}, std::pair{huge, int64_t{3}}, std::pair{huge, huge},
            std::pair{huge, huge / 3}, std::pair{int64_t{1} << 24, huge}}) {
        OpDesc op;
        op.mode = m.mode;
        op.antialias = m.aa;
        op.direction = dir;
        op.spatial_rank = 1;
        const TensorDesc input = TensorDesc::contiguous(DType::kFloat32, {1, 1, in_len});
        const TensorDesc output = TensorDesc::contiguous(DType::kFloat32, {1, 1, out_len});
        const TensorDesc& src = dir == Direction::kForward ? input : output;
        const TensorDesc& dst = dir == Direction::kForward ? output : input;
        Plan plan;
        const Status st = make_plan(op, src, dst, &plan);
        ASSERT_TRUE(st.ok()) << mode_name(m.mode) << (m.aa ? "+aa " : " ") << src.to_string()
                             << " -> " << dst.to_string() << ": " << st.message;
        EXPECT_LT(plan.held_bytes(), size_t{1} << 20) << plan.describe();
        EXPECT_LT(plan.workspace_bytes(), size_t{1} << 20) << plan.describe();
      }
    }
  }
  // A streamed transposed axis whose every row may read the whole gradient: the work estimate
  // (rows x taps) saturates instead of overflowing.
  OpDesc op;
  op.direction = Direction::kBackward;
  op.spatial_rank = 1;
  Plan plan;
  ASSERT_TRUE(make_plan(op, TensorDesc::contiguous(DType::kFloat32, {1, 1, huge}),
                        TensorDesc::contiguous(DType::kFloat32, {1, 1, int64_t{1} << 24}), &plan)
                  .ok());
}

// (Phase-1 memory against the measured peak: tests/cpp/alloc_failure/plan_memory_test.cpp.)
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

// The workspace counts against the same limit: a broadcast view (zero strides over one element)
// claiming 2^40 rows needs tiny tables, but the CPU backend packs such an input into the
// workspace (4 TiB here): refused with the figures; a limit that covers it accepts the call.
TEST(EngineLimits, MemoryLimitCoversTheWorkspace) {
  OpDesc op;
  op.mode = Mode::kLinear;
  TensorDesc src = TensorDesc::contiguous(DType::kFloat32, {1, 1, int64_t{1} << 40, 1});
  for (int d = 0; d < 4; ++d) src.strides[d] = 0;
  const TensorDesc dst = TensorDesc::contiguous(DType::kFloat32, {1, 1, 4, 1});
  Plan plan;
  const Status st = make_plan(op, src, dst, &plan);
  ASSERT_EQ(st.code, StatusCode::kInvalidArgument);
  EXPECT_NE(st.message.find("the workspace for"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("more than the limit of"), std::string::npos) << st.message;
  PlanOptions roomy;
  roomy.max_bytes = SIZE_MAX;
  ASSERT_TRUE(make_plan(op, src, dst, &plan, roomy).ok());
  EXPECT_GE(plan.workspace_bytes(), size_t{1} << 42);
  // A workspace within the default limit is unaffected.
  const TensorDesc small = TensorDesc::contiguous(DType::kFloat32, {1, 1, 1024, 1});
  EXPECT_TRUE(make_plan(op, small, dst, &plan).ok());
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

// views_overlap against the definition: the byte sets of two small random views, enumerated.
// Every pair must be decided (never `undecided`) and agree with the enumeration.
TEST(EngineLimits, ViewsOverlapEqualsExhaustiveSearch) {
  std::mt19937 rng(17);
  auto random_view = [&](TensorDesc* t, uintptr_t* base) {
    const DType types[] = {DType::kUInt8, DType::kFloat16, DType::kFloat32, DType::kFloat64};
    t->dtype = types[rng() % 4];
    t->rank = 1 + static_cast<int>(rng() % 4);
    for (int d = 0; d < t->rank; ++d) {
      t->sizes[d] = 1 + static_cast<int64_t>(rng() % 5);
      t->strides[d] = static_cast<int64_t>(rng() % 25) - 12;
    }
    *base = 4096 + rng() % 64;  // offsets reach +-4 * 12 * 4 elements of 8 bytes
  };
  auto bytes_of = [](const TensorDesc& t, uintptr_t base) {
    std::vector<bool> hit(8192, false);
    std::array<int64_t, kMaxRank> i{};
    const int64_t elem = static_cast<int64_t>(dtype_size(t.dtype));
    for (int64_t n = 0; n < t.numel(); ++n) {
      int64_t offset = 0;
      for (int d = 0; d < t.rank; ++d) offset += i[d] * t.strides[d];
      for (int64_t b = 0; b < elem; ++b) hit[static_cast<size_t>(base + offset * elem + b)] = true;
      for (int d = t.rank - 1; d >= 0 && ++i[d] == t.sizes[d]; --d) i[d] = 0;
    }
    return hit;
  };
  int overlapping = 0;
  for (int trial = 0; trial < 60000; ++trial) {
    TensorDesc a, b;
    uintptr_t a_base, b_base;
    random_view(&a, &a_base);
    random_view(&b, &b_base);
    if (trial % 2 == 1) {  // b another view of a's tensor: same strides (some scaled), new sizes
      b = a;
      for (int d = 0; d < b.rank; ++d) {
        b.sizes[d] = 1 + static_cast<int64_t>(rng() % 6);
        if (rng() % 4 == 0) b.strides[d] *= 1 + static_cast<int64_t>(rng() % 3);
      }
      b_base = a_base + rng() % 48;
    }
    const std::vector<bool> ha = bytes_of(a, a_base), hb = bytes_of(b, b_base);
    bool expected = false;
    for (size_t k = 0; k < ha.size(); ++k) expected = expected || (ha[k] && hb[k]);
    bool undecided = true;
    const bool got = core::views_overlap({&a, a_base}, {&b, b_base}, &undecided);
    ASSERT_FALSE(undecided) << a.to_string() << " @" << a_base << " vs " << b.to_string() << " @"
                            << b_base;
    ASSERT_EQ(got, expected) << a.to_string() << " @" << a_base << " vs " << b.to_string() << " @"
                             << b_base;
    overlapping += expected ? 1 : 0;
  }
  EXPECT_GT(overlapping, 10000);  // both answers well represented
  EXPECT_LT(overlapping, 50000);
}

// Views of one tensor with millions of rows are decided exactly, with work independent of the
// row count: even/odd rows, every third row against the others, side-by-side blocks, and the
// same views shifted by one row so that they do overlap.
TEST(EngineLimits, InterleavedViewsOfMillionsOfRowsAreDecided) {
  const int64_t rows = (int64_t{1} << 23) + 5;
  struct Case {
    const char* name;
    TensorDesc a, b;
    uintptr_t a_base, b_base;
    bool overlap;
  };
  auto view = [](int64_t h, int64_t w, int64_t row_stride) {
    TensorDesc t = TensorDesc::contiguous(DType::kFloat32, {1, 1, h, w});
    t.strides = {h * row_stride, h * row_stride, row_stride, 1};
    return t;
  };
  const uintptr_t base = uintptr_t{1} << 40;
  std::vector<Case> cases = {
      {"even rows / odd rows", view(rows, 2, 4), view(rows, 1, 4), base, base + 8, false},
      {"even rows / odd rows, shifted", view(rows, 2, 4), view(rows, 2, 2), base, base + 8, true},
      {"every third row / rows 1 and 2 of three", view(rows, 3, 9), view(rows, 6, 9), base,
       base + 12, false},
      {"every third row / all rows", view(rows, 3, 9), view(3 * rows, 1, 3), base, base + 8, true},
      {"left block / right block", view(rows, 5, 16), view(rows, 11, 16), base, base + 20, false},
      {"left block / right block, one column wider", view(rows, 6, 16), view(rows, 11, 16), base,
       base + 20, true},
      {"every other row (stride 2 rows) / the rows between", view(rows, 7, 14), view(rows, 7, 14),
       base, base + 28, false},
  };
  for (const Case& c : cases) {
    bool undecided = true;
    EXPECT_EQ(core::views_overlap({&c.a, c.a_base}, {&c.b, c.b_base}, &undecided), c.overlap)
        << c.name;
    EXPECT_FALSE(undecided) << c.name;
    EXPECT_EQ(core::views_overlap({&c.b, c.b_base}, {&c.a, c.a_base}, &undecided), c.overlap)
        << c.name << " (swapped)";
    EXPECT_FALSE(undecided) << c.name << " (swapped)";
  }
}

}  // namespace
}  // namespace upsample
