// The native API end to end: against the float64 reference, the adjoint identity, thread-count
// and layout invariance, views, validation.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/dtype.hpp"
#include "engine_helpers.hpp"
#include "reference/reference.hpp"
#include "upsample/resample.hpp"

namespace upsample {
namespace {

using namespace ::upsample::test_support;  // NOLINT

// Cases where PyTorch 1.13's backward is not the transpose of its forward, which the reference
// reproduces and the engine deliberately does not (docs/numerics.md): nearest backward's
// shortcuts when a scale is given and out is in or 2 * in; bicubic backward's copy when no
// spatial size changes.
bool pytorch_backward_quirk(const Problem& p) {
  bool scaled = false, all_same = true, shortcut = false;
  for (int a = 0; a < p.op.spatial_rank; ++a) {
    scaled = scaled || p.op.scales[a] > 0;
    all_same = all_same && p.in[a] == p.out[a];
    shortcut = shortcut || (p.op.scales[a] > 0 && (p.out[a] == p.in[a] || p.out[a] == 2 * p.in[a]));
  }
  if (p.op.mode == Mode::kNearest) return shortcut;
  if (p.op.mode == Mode::kCubic && !p.op.antialias) return scaled && all_same;
  return false;
}

TEST(Engine, MatchesFloat64ReferenceForwardAndBackward) {
  std::mt19937 rng(7);
  for (const Problem& p : random_problems(240, 11)) {
    const auto x = random_vector(numel(p, p.in), &rng);
    const auto y = random_vector(numel(p, p.out), &rng);
    const auto ours_fwd = run<double>(p, Direction::kForward, x, DType::kFloat64);
    const auto ref_fwd = reference::forward(to_reference(p), x);
    ASSERT_EQ(ours_fwd.size(), ref_fwd.size());
    for (size_t i = 0; i < ref_fwd.size(); ++i) {
      ASSERT_NEAR(ours_fwd[i], ref_fwd[i], 1e-12 * std::max(1.0, std::fabs(ref_fwd[i])))
          << describe(p) << " forward element " << i;
    }
    if (pytorch_backward_quirk(p)) continue;
    const auto ours_bwd = run<double>(p, Direction::kBackward, y, DType::kFloat64);
    const auto ref_bwd = reference::backward(to_reference(p), y);
    for (size_t i = 0; i < ref_bwd.size(); ++i) {
      ASSERT_NEAR(ours_bwd[i], ref_bwd[i], 1e-12 * std::max(1.0, std::fabs(ref_bwd[i])))
          << describe(p) << " backward element " << i;
    }
  }
}

// <A x, y> == <x, A^T y>: backward is the exact transpose of forward, for every mode.
TEST(Engine, AdjointIdentity) {
  std::mt19937 rng(3);
  for (const Problem& p : random_problems(300, 5)) {
    const auto x = random_vector(numel(p, p.in), &rng);
    const auto y = random_vector(numel(p, p.out), &rng);
    const auto ax = run<double>(p, Direction::kForward, x, DType::kFloat64);
    const auto aty = run<double>(p, Direction::kBackward, y, DType::kFloat64);
    double lhs = 0, rhs = 0, scale = 0;
    for (size_t i = 0; i < y.size(); ++i) lhs += ax[i] * y[i], scale += std::fabs(ax[i] * y[i]);
    for (size_t i = 0; i < x.size(); ++i) rhs += x[i] * aty[i];
    EXPECT_NEAR(lhs, rhs, 1e-12 * std::max(1.0, scale)) << describe(p);
  }
}

TEST(Engine, AdjointIdentityAtExtremeAntialiasRatios) {
  std::mt19937 rng(9);
  for (Mode mode : {Mode::kLinear, Mode::kCubic}) {
    for (auto [in, out] : {std::pair<int64_t, int64_t>{500, 5}, {5, 500}, {1000, 10}, {3, 300}}) {
      Problem p;
      p.op.mode = mode;
      p.op.antialias = true;
      p.op.spatial_rank = 2;
      p.in = {in, 7, 1};
      p.out = {out, 9, 1};
      const auto x = random_vector(numel(p, p.in), &rng);
      const auto y = random_vector(numel(p, p.out), &rng);
      const auto ax = run<double>(p, Direction::kForward, x, DType::kFloat64);
      const auto aty = run<double>(p, Direction::kBackward, y, DType::kFloat64);
      double lhs = 0, rhs = 0;
      for (size_t i = 0; i < y.size(); ++i) lhs += ax[i] * y[i];
      for (size_t i = 0; i < x.size(); ++i) rhs += x[i] * aty[i];
      EXPECT_NEAR(lhs, rhs, 1e-10 * std::max(1.0, std::fabs(lhs))) << describe(p);
    }
  }
}

// Bitwise identical results for 1, 2, 3 and 7 threads, and for NCHW vs channels-last layouts.
TEST(Engine, ThreadCountAndLayoutInvariance) {
  std::mt19937 rng(21);
  auto problems = random_problems(80, 17);
  Problem big;  // large enough to be split between threads
  big.op.mode = Mode::kLinear;
  big.n = 2;
  big.c = 5;
  big.in = {37, 61, 1};
  big.out = {80, 29, 1};
  problems.push_back(big);
  for (const Problem& p : problems) {
    std::vector<float> x(numel(p, p.in)), y(numel(p, p.out));
    for (auto& v : x) v = static_cast<float>(std::normal_distribution<double>()(rng));
    for (auto& v : y) v = static_cast<float>(std::normal_distribution<double>()(rng));
    for (Direction dir : {Direction::kForward, Direction::kBackward}) {
      const auto& input = dir == Direction::kForward ? x : y;
      const auto one = run<float>(p, dir, input, DType::kFloat32, false, 1);
      for (int threads : {2, 3, 7}) {
        EXPECT_TRUE(bitwise_equal(one, run<float>(p, dir, input, DType::kFloat32, false, threads)))
            << describe(p) << " threads " << threads;
      }
      EXPECT_TRUE(bitwise_equal(one, run<float>(p, dir, input, DType::kFloat32, true, 2)))
          << describe(p) << " channels-last";
    }
  }
}

// Constant in -> constant out (partition of unity), for every mode, in float32: within a few
// ulp (the float32 weights of a row sum to 1 up to their own rounding).
TEST(Engine, ConstantInConstantOut) {
  for (const Problem& p : random_problems(120, 23)) {
    for (float value : {1.0f, -3.5f, 1e30f}) {
      const std::vector<float> x(numel(p, p.in), value);
      const auto out = run<float>(p, Direction::kForward, x, DType::kFloat32);
      // Four float32 cubic coefficients round separately: allow 16 ulp there, 4 elsewhere.
      const float ulps = p.op.mode == Mode::kCubic ? 16.0f : 4.0f;
      for (float v : out) {
        ASSERT_NEAR(v, value, ulps * 1.2e-7f * std::fabs(value)) << describe(p);
      }
    }
  }
}

TEST(Engine, NearestForwardIsBitExactForEveryDtype) {
  Problem p;
  p.op.mode = Mode::kNearestExact;
  p.op.spatial_rank = 2;
  p.n = 2;
  p.c = 3;
  p.in = {26, 7, 1};
  p.out = {11, 15, 1};
  std::vector<uint8_t> x(numel(p, p.in));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint8_t>(i * 37);
  const auto out = run<uint8_t>(p, Direction::kForward, x, DType::kUInt8);
  std::vector<double> xd(x.begin(), x.end());
  const auto ref = reference::forward(to_reference(p), xd);
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], ref[i]) << i;
  // NaN payloads and signed zeros survive a float32 nearest copy.
  std::vector<float> xf(numel(p, p.in), -0.0f);
  xf[5] = bits_to_float(0x7fc01234u);
  const auto outf = run<float>(p, Direction::kForward, xf, DType::kFloat32);
  for (size_t i = 0; i < outf.size(); ++i) {
    const uint32_t bits = float_to_bits(outf[i]);
    ASSERT_TRUE(bits == 0x80000000u || bits == 0x7fc01234u) << i;
  }
}

TEST(Engine, ValidationMessagesNameTheProblem) {
  Plan plan;
  OpDesc op;
  op.spatial_rank = 2;
  TensorDesc src = TensorDesc::contiguous(DType::kFloat32, {1, 3, 4, 4});
  TensorDesc dst = TensorDesc::contiguous(DType::kFloat32, {1, 2, 8, 8});
  Status st = make_plan(op, src, dst, &plan);
  EXPECT_EQ(st.code, StatusCode::kInvalidArgument);
  EXPECT_NE(st.message.find("N and C"), std::string::npos) << st.message;

  dst = TensorDesc::contiguous(DType::kFloat32, {1, 3, 0, 8});
  st = make_plan(op, src, dst, &plan);
  EXPECT_EQ(st.code, StatusCode::kInvalidArgument);
  EXPECT_NE(st.message.find("dst dim 2"), std::string::npos) << st.message;

  dst = TensorDesc::contiguous(DType::kFloat16, {1, 3, 8, 8});
  EXPECT_EQ(make_plan(op, src, dst, &plan).code, StatusCode::kInvalidArgument);

  op.mode = Mode::kNearest;
  op.align_corners = true;
  dst = TensorDesc::contiguous(DType::kFloat32, {1, 3, 8, 8});
  st = make_plan(op, src, dst, &plan);
  EXPECT_NE(st.message.find("align_corners"), std::string::npos) << st.message;

  op = OpDesc{};
  dst.strides = {0, 0, 0, 0};  // every output at one address
  st = make_plan(op, src, dst, &plan);
  EXPECT_NE(st.message.find("overlap"), std::string::npos) << st.message;

  op.scales = {std::nan(""), 0, 0};
  dst = TensorDesc::contiguous(DType::kFloat32, {1, 3, 8, 8});
  EXPECT_EQ(make_plan(op, src, dst, &plan).code, StatusCode::kInvalidArgument);

  EXPECT_EQ(make_plan(OpDesc{}, src, dst, nullptr).code, StatusCode::kNullPointer);
}

TEST(Engine, WorkspaceIsCheckedAndEmptyBatchIsANoOp) {
  OpDesc op;
  TensorDesc src = TensorDesc::contiguous(DType::kFloat32, {1, 3, 4, 4});
  TensorDesc dst = TensorDesc::contiguous(DType::kFloat32, {1, 3, 8, 8});
  dst.strides = {1000, 300, 20, 2};  // a strided (non-dense) destination needs a workspace
  Plan plan;
  ASSERT_TRUE(make_plan(op, src, dst, &plan).ok());
  ASSERT_GT(plan.workspace_bytes(), 0u);
  std::vector<float> in(48, 1.0f), out(1000, 0.0f);
  EXPECT_EQ(execute(plan, in.data(), out.data(), nullptr, 0).code, StatusCode::kInvalidArgument);
  std::vector<unsigned char> ws(plan.workspace_bytes());
  EXPECT_EQ(execute(plan, in.data(), out.data(), ws.data(), ws.size() - 1).code,
            StatusCode::kInvalidArgument);
  ASSERT_TRUE(execute(plan, in.data(), out.data(), ws.data(), ws.size()).ok());
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], 0.0f);  // between strided elements: untouched

  src = TensorDesc::contiguous(DType::kFloat32, {0, 3, 4, 4});
  dst = TensorDesc::contiguous(DType::kFloat32, {0, 3, 8, 8});
  ASSERT_TRUE(make_plan(op, src, dst, &plan).ok());
  EXPECT_TRUE(plan.empty());
  EXPECT_EQ(plan.workspace_bytes(), 0u);
  EXPECT_TRUE(execute(plan, nullptr, nullptr, nullptr, 0).ok());
}

// Shapes large enough for several chunks per thread with 3 threads (src/cpu/work_shares.hpp):
// fused passes in one band per plane and in several, plane mode (blocks of 9 slices), direct pairs
// and single steps (chunks of 32 rows and more).
std::vector<Problem> chunked_problems() {
  const auto problem = [](Mode mode, bool antialias, int rank, int64_t n, int64_t c,
                          std::array<int64_t, 3> in, std::array<int64_t, 3> out) {
    Problem p;
    p.op.mode = mode;
    p.op.antialias = antialias;
    p.op.spatial_rank = rank;
    p.n = n;
    p.c = c;
    p.in = in;
    p.out = out;
    return p;
  };
  return {
      // fused passes, one band per plane
      problem(Mode::kLinear, false, 2, 4, 16, {32, 32, 1}, {64, 64, 1}),
      // antialiased bicubic: transposed rows, two bands of 118 and 52 rows per plane
      problem(Mode::kCubic, true, 2, 1, 2, {800, 800, 1}, {170, 170, 1}),
      // the two nearest passes as one kernel
      problem(Mode::kNearest, false, 2, 4, 32, {64, 64, 1}, {128, 128, 1}),
      // plane mode
      problem(Mode::kLinear, false, 3, 2, 32, {12, 12, 12}, {24, 24, 24}),
      // one pass
      problem(Mode::kLinear, false, 1, 4, 256, {1000, 1, 1}, {2000, 1, 1}),
  };
}

// Threads share out a call's work in chunks and help each other finish, so which thread runs
// which rows changes from call to call. With 3 threads on 2 vCPUs (CI's machines) the threads are
// descheduled at random points, and the ones running finish the others' shares (the forced case
// is in work_shares_test.cpp); every call must give the bits of one thread, forward and backward.
// (Not 7 threads: LLVM's libomp 14, the sanitizer builds' OpenMP, then reports leaks of its own,
// docs/reliability.md.)
TEST(Engine, BitsDoNotDependOnWhichThreadRunsAChunk) {
  std::mt19937 rng(41);
  for (const Problem& p : chunked_problems()) {
    for (Direction dir : {Direction::kForward, Direction::kBackward}) {
      std::vector<float> x(numel(p, dir == Direction::kForward ? p.in : p.out));
      for (auto& v : x) v = std::normal_distribution<float>()(rng);
      const auto one = run<float>(p, dir, x, DType::kFloat32, false, 1);
      for (int call = 0; call < 8; ++call) {
        ASSERT_TRUE(bitwise_equal(one, run<float>(p, dir, x, DType::kFloat32, false, 3)))
            << describe(p) << (dir == Direction::kForward ? " forward" : " backward") << " call "
            << call;
      }
    }
  }
}

// A call made from inside another OpenMP parallel region gets a region of one thread (nested
// regions are inactive by default) although it asks for two: that thread runs its own share and
// then the share of the thread that never started. Every element is computed, with the bits of a
// one-thread call, on each of the outer region's threads at once.
TEST(Engine, CallsInsideAnOpenMPRegionComputeEveryElement) {
  std::mt19937 rng(43);
  for (const Problem& p : chunked_problems()) {
    std::vector<float> x(numel(p, p.in));
    for (auto& v : x) v = std::normal_distribution<float>()(rng);
    const auto one = run<float>(p, Direction::kForward, x, DType::kFloat32, false, 1);
    std::vector<std::vector<float>> got(3);
#pragma omp parallel num_threads(3)
    got[static_cast<size_t>(omp_get_thread_num())] =
        run<float>(p, Direction::kForward, x, DType::kFloat32, false, 2);
    for (const auto& g : got) EXPECT_TRUE(bitwise_equal(one, g)) << describe(p);
  }
}

// float16 / bfloat16 convert in the kernels' loads and stores; results must still be bitwise
// identical for any thread count and layout (plane mode and row-split mode, vector bodies and
// tails).
TEST(Engine, LowPrecisionThreadCountAndLayoutInvariance) {
  std::mt19937 rng(33);
  std::normal_distribution<float> dist(0.0f, 3.0f);
  Problem big;
  big.op.mode = Mode::kCubic;
  big.n = 3;
  big.c = 1;
  big.in = {37, 61, 1};
  big.out = {80, 29, 1};
  Problem aa = big;
  aa.op.mode = Mode::kLinear;
  aa.op.antialias = true;
  aa.out = {9, 13, 1};
  for (const Problem& p : {big, aa}) {
    for (DType dtype : {DType::kFloat16, DType::kBFloat16}) {
      for (Direction dir : {Direction::kForward, Direction::kBackward}) {
        std::vector<uint16_t> x(numel(p, dir == Direction::kForward ? p.in : p.out));
        for (auto& v : x) {
          const float f = dist(rng);
          v = dtype == DType::kFloat16 ? float_to_half(f) : float_to_bf16(f);
        }
        const auto one = run<uint16_t>(p, dir, x, dtype, false, 1);
        for (int threads : {2, 3}) {
          EXPECT_TRUE(bitwise_equal(one, run<uint16_t>(p, dir, x, dtype, false, threads)))
              << describe(p) << " " << dtype_name(dtype) << " threads " << threads;
        }
        EXPECT_TRUE(bitwise_equal(one, run<uint16_t>(p, dir, x, dtype, true, 2)))
            << describe(p) << " " << dtype_name(dtype) << " channels-last";
      }
    }
  }
}

}  // namespace
}  // namespace upsample
