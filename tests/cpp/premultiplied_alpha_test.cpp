// Premultiplied alpha (OpDesc::premultiplied_alpha) against its definition: the float32 (float64
// for float64 data) computation of the same plan on colour samples multiplied by their alpha,
// each colour output divided by its alpha output (0 where that is not positive), rounded once to
// the storage type - bit for bit, for every mode, every storage type, pixels of 2 to 5 channels,
// passes in either kernel shape, on every SIMD target and with the scalar kernels, any thread
// count; plans that only move samples are unchanged by it; and the calls it is not defined for
// are refused.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "cpu/dispatch.hpp"
#include "engine_helpers.hpp"
#include "hwy/targets.h"

namespace upsample {
namespace {

using namespace ::upsample::test_support;  // NOLINT

// Storage bytes of `n` logical elements of `type`: colour and alpha in the type's range, with
// transparent pixels (alpha 0) and opaque ones.
std::vector<unsigned char> random_pixels(DType type, int64_t n, int64_t channels,
                                         std::mt19937* rng) {
  const double max = type == DType::kUInt8 ? 255.0 : type == DType::kUInt16 ? 65535.0 : 1.0;
  std::vector<unsigned char> bytes(static_cast<size_t>(n) * dtype_size(type));
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int64_t i = 0; i < n; ++i) {
    double v = u(*rng) * max;
    const bool alpha = i % channels == channels - 1;  // logical NCHW: channel planes
    (void)alpha;
    if ((*rng)() % 7 == 0) v = 0.0;
    if ((*rng)() % 7 == 0) v = max;
    if (type == DType::kUInt8 || type == DType::kUInt16) v = std::nearbyint(v);
    store_element(type, bytes.data() + i * dtype_size(type), v);
  }
  return bytes;
}

// Runs `p` on logical-order bytes of `type` in channels-last memory.
std::vector<unsigned char> run_bytes(const Problem& p, DType type,
                                     const std::vector<unsigned char>& x, int threads,
                                     const PlanOptions& options = {}) {
  const size_t es = dtype_size(type);
  const TensorDesc src = desc_of(type, p, p.in, true), dst = desc_of(type, p, p.out, true);
  Plan plan;
  const Status st = make_plan(p.op, src, dst, &plan, options);
  EXPECT_TRUE(st.ok()) << st.message << " " << describe(p);
  std::vector<unsigned char> in(x.size()), out(static_cast<size_t>(dst.numel()) * es);
  for (int64_t i = 0; i < src.numel(); ++i) {
    std::memcpy(&in[offset_of(src, i) * es], &x[i * es], es);
  }
  std::vector<unsigned char> ws(plan.workspace_bytes());
  ExecContext ctx;
  ctx.num_threads = threads;
  EXPECT_TRUE(execute(plan, in.data(), out.data(), ws.data(), ws.size(), ctx).ok());
  std::vector<unsigned char> result(out.size());
  for (int64_t i = 0; i < dst.numel(); ++i) {
    std::memcpy(&result[i * es], &out[offset_of(dst, i) * es], es);
  }
  return result;
}

// The definition, with W the accumulation type (float, or double for float64 data).
template <typename W>
std::vector<unsigned char> definition(const Problem& p, DType type,
                                      const std::vector<unsigned char>& x) {
  const size_t es = dtype_size(type);
  const DType acc = std::is_same_v<W, double> ? DType::kFloat64 : DType::kFloat32;
  const int64_t plane_in = numel(p, p.in) / (p.n * p.c), plane_out = numel(p, p.out) / (p.n * p.c);
  std::vector<W> pre(static_cast<size_t>(numel(p, p.in)));
  for (int64_t n = 0; n < p.n; ++n) {
    for (int64_t c = 0; c < p.c; ++c) {
      for (int64_t k = 0; k < plane_in; ++k) {
        const int64_t i = (n * p.c + c) * plane_in + k, a = (n * p.c + p.c - 1) * plane_in + k;
        const W v = static_cast<W>(load_element(type, &x[i * es]));
        pre[i] = c == p.c - 1 ? v : v * static_cast<W>(load_element(type, &x[a * es]));
      }
    }
  }
  Problem plain = p;
  plain.op.premultiplied_alpha = false;
  const std::vector<W> y = run<W>(plain, Direction::kForward, pre, acc, true, 1);
  std::vector<unsigned char> result(y.size() * es);
  for (int64_t n = 0; n < p.n; ++n) {
    for (int64_t c = 0; c < p.c; ++c) {
      for (int64_t k = 0; k < plane_out; ++k) {
        const int64_t i = (n * p.c + c) * plane_out + k, a = (n * p.c + p.c - 1) * plane_out + k;
        const W v = c == p.c - 1 ? y[i] : (y[a] > W(0) ? y[i] / y[a] : W(0));
        store_element(type, &result[i * es], static_cast<double>(v));
      }
    }
  }
  return result;
}

bool same_bytes(DType type, const std::vector<unsigned char>& a,
                const std::vector<unsigned char>& b, int64_t* where) {
  const size_t es = dtype_size(type);
  for (size_t i = 0; i < a.size() / es; ++i) {
    if (std::memcmp(&a[i * es], &b[i * es], es) != 0) {
      *where = static_cast<int64_t>(i);
      return false;
    }
  }
  return a.size() == b.size();
}

std::vector<Problem> alpha_problems(unsigned seed) {
  std::vector<Problem> problems;
  std::mt19937 rng(seed);
  for (Problem p : random_problems(120, seed)) {
    p.c = 2 + static_cast<int64_t>(rng() % 4);  // 2..5 channels, alpha last
    p.op.premultiplied_alpha = true;
    problems.push_back(p);
  }
  // The shapes of images: RGBA and grey + alpha, 2-D, antialias down and bilinear up, with one
  // axis kept (the first pass is then the vertical one).
  for (int64_t c : {2, 4}) {
    Problem p;
    p.c = c;
    p.op.premultiplied_alpha = true;
    p.op.spatial_rank = 2;
    p.op.mode = Mode::kCubic;
    p.op.antialias = true;
    p.in = {61, 97, 1};
    p.out = {17, 23, 1};
    problems.push_back(p);
    p.out = {61, 29, 1};
    problems.push_back(p);
    p.out = {19, 97, 1};
    problems.push_back(p);
    p.op.mode = Mode::kLinear;
    p.op.antialias = false;
    p.in = {13, 21, 1};
    p.out = {40, 70, 1};
    problems.push_back(p);
  }
  return problems;
}

const DType kTypes[] = {DType::kFloat32, DType::kUInt8,    DType::kUInt16,
                        DType::kFloat16, DType::kBFloat16, DType::kFloat64};

TEST(PremultipliedAlpha, EqualsTheDefinitionOnEveryTargetAndThreadCount) {
  std::mt19937 rng(29);
  const std::vector<Problem> problems = alpha_problems(31);
  int checked = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (bool scalar_only : {false, true}) {
      if (scalar_only && target != hwy::SupportedAndGeneratedTargets().front()) continue;
      cpu::set_kernel_policy_for_testing(scalar_only ? cpu::KernelPolicy::kScalarOnly
                                                     : cpu::KernelPolicy::kBest);
      for (const Problem& p : problems) {
        for (DType type : kTypes) {
          // A plan whose steps only move samples (nearest modes, area at integer upsampling
          // ratios, kept sizes) does no arithmetic: it copies them, premultiplied or not.
          Plan plan;
          ASSERT_TRUE(
              make_plan(p.op, desc_of(type, p, p.in, true), desc_of(type, p, p.out, true), &plan)
                  .ok());
          const bool moves = plan.describe().find("premultiply") == std::string::npos;
          const auto x = random_pixels(type, numel(p, p.in), p.c, &rng);
          // With the scalar kernels, the tables streamed too (the streaming kernel).
          PlanOptions options;
          if (scalar_only && checked % 2 == 0) options.table_budget = 1;
          const auto got = run_bytes(p, type, x, 1 + checked % 3, options);
          Problem plain = p;
          plain.op.premultiplied_alpha = false;
          const auto expected = moves                     ? run_bytes(plain, type, x, 1)
                                : type == DType::kFloat64 ? definition<double>(p, type, x)
                                                          : definition<float>(p, type, x);
          int64_t where = -1;
          ASSERT_TRUE(same_bytes(type, got, expected, &where))
              << hwy::TargetName(target) << (scalar_only ? " scalar" : "") << " "
              << dtype_name(type) << " " << describe(p) << " element " << where;
          ++checked;
        }
      }
    }
  }
  cpu::set_kernel_policy_for_testing(cpu::KernelPolicy::kBest);
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GT(checked, 1000);
}

TEST(PremultipliedAlpha, RefusesWhatItIsNotDefinedFor) {
  OpDesc op;
  op.premultiplied_alpha = true;
  const TensorDesc cl_in = TensorDesc::channels_last(DType::kUInt8, {1, 4, 8, 8});
  const TensorDesc cl_out = TensorDesc::channels_last(DType::kUInt8, {1, 4, 4, 4});
  Plan plan;
  EXPECT_TRUE(make_plan(op, cl_in, cl_out, &plan).ok());
  // NCHW planes: the alpha of a pixel is not next to its colour.
  Status st = make_plan(op, TensorDesc::contiguous(DType::kUInt8, {1, 4, 8, 8}),
                        TensorDesc::contiguous(DType::kUInt8, {1, 4, 4, 4}), &plan);
  EXPECT_EQ(st.code, StatusCode::kInvalidArgument);
  EXPECT_NE(st.message.find("channels-last"), std::string::npos) << st.message;
  // One channel: no colour to premultiply.
  st = make_plan(op, TensorDesc::channels_last(DType::kUInt8, {1, 1, 8, 8}),
                 TensorDesc::channels_last(DType::kUInt8, {1, 1, 4, 4}), &plan);
  EXPECT_EQ(st.code, StatusCode::kInvalidArgument);
  EXPECT_NE(st.message.find("C = 1"), std::string::npos) << st.message;
  // Backward.
  op.direction = Direction::kBackward;
  st = make_plan(op, TensorDesc::channels_last(DType::kFloat32, {1, 4, 4, 4}),
                 TensorDesc::channels_last(DType::kFloat32, {1, 4, 8, 8}), &plan);
  EXPECT_EQ(st.code, StatusCode::kInvalidArgument);
  EXPECT_NE(st.message.find("forward"), std::string::npos) << st.message;
  // A channels-last view that is not dense (every other pixel of a row).
  op.direction = Direction::kForward;
  TensorDesc strided = cl_in;
  strided.strides = {8 * 16 * 4, 1, 16 * 4, 8};
  st = make_plan(op, strided, cl_out, &plan);
  EXPECT_EQ(st.code, StatusCode::kInvalidArgument);
  EXPECT_NE(st.message.find("dense"), std::string::npos) << st.message;
}

}  // namespace
}  // namespace upsample
