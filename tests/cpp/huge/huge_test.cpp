// Opt-in tests on tensors of more than 2^31 elements (several GiB; minutes). Not part of the
// default test run: `./dev huge` builds and runs them and reports the time and peak memory.
//
// - The CANN repro of a 2147483649-row bicubic gradient (gradOut [1,1,2^31+1,1] -> [1,1,2,1]),
//   with nonzero gradients scattered over the whole axis, against a float64 evaluation of
//   PyTorch's bicubic backward formula for those gradients.
// - nearest-exact uint8 forward into 2^31 + 3 outputs, every output checked.
// - bilinear uint8 forward from a 46341 x 46341 image (2^31 + 4761 elements), both passes,
//   sampled outputs checked against the float64 formula.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "upsample/resample.hpp"

namespace upsample {
namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
template <typename T>
using Buffer = std::unique_ptr<T[], FreeDeleter>;

// calloc: the kernel maps untouched pages to the zero page, so a mostly-zero input costs
// little resident memory.
template <typename T>
Buffer<T> zeros(int64_t n) {
  T* p = static_cast<T*>(std::calloc(static_cast<size_t>(n), sizeof(T)));
  if (p == nullptr) throw std::bad_alloc();
  return Buffer<T>(p);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void run(const OpDesc& op, const TensorDesc& src, const TensorDesc& dst, const void* in, void* out,
         const char* what) {
  Plan plan;
  const Status st = make_plan(op, src, dst, &plan);
  ASSERT_TRUE(st.ok()) << st.message;
  std::vector<unsigned char> workspace(plan.workspace_bytes());
  std::printf("[huge] %s: plan holds %zu bytes, workspace %zu bytes\n", what, plan.held_bytes(),
              plan.workspace_bytes());
  const auto t0 = std::chrono::steady_clock::now();
  const Status ex = execute(plan, in, out, workspace.data(), workspace.size());
  ASSERT_TRUE(ex.ok()) << ex.message;
  std::printf("[huge] %s: executed in %.1f s\n", what, seconds_since(t0));
  std::fflush(stdout);
}

// PyTorch 1.13's bicubic backward weights of output o along an axis (guard_index_and_lambda:
// coordinate in float, tap clamped to in - 1, fraction to [0, 1]; taps clamped into the axis).
void bicubic_backward_taps(int64_t o, int64_t in_len, int64_t out_len, int64_t taps[4],
                           double weights[4]) {
  const float ratio = static_cast<float>(in_len) / static_cast<float>(out_len);
  const float x = ratio * (static_cast<float>(o) + 0.5f) - 0.5f;
  const int64_t i = std::min(static_cast<int64_t>(std::floor(x)), in_len - 1);
  const double t = std::clamp(static_cast<double>(x - static_cast<float>(i)), 0.0, 1.0);
  const double a = -0.75;
  auto near = [a](double v) { return ((a + 2) * v - (a + 3)) * v * v + 1; };
  auto far = [a](double v) { return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a; };
  const double w[4] = {far(t + 1), near(t), near(1 - t), far(2 - t)};
  for (int k = 0; k < 4; ++k) {
    taps[k] = std::clamp<int64_t>(i - 1 + k, 0, in_len - 1);
    weights[k] = w[k];
  }
}

TEST(Huge, BicubicGradientOfTwoBillionRows) {
  const int64_t rows = 2147483649LL;
  OpDesc op;
  op.mode = Mode::kCubic;
  op.direction = Direction::kBackward;
  const TensorDesc grad_out = TensorDesc::contiguous(DType::kFloat32, {1, 1, rows, 1});
  const TensorDesc grad_in = TensorDesc::contiguous(DType::kFloat32, {1, 1, 2, 1});
  Buffer<float> g = zeros<float>(rows);
  std::mt19937_64 rng(3);
  std::vector<int64_t> where = {0, 1, rows / 2, rows - 2, rows - 1};
  for (int k = 0; k < 60; ++k) where.push_back(static_cast<int64_t>(rng() % rows));
  double expected[2] = {0.0, 0.0}, magnitude[2] = {0.0, 0.0};
  for (int64_t o : where) {
    if (g[o] != 0.0f) continue;
    g[o] = static_cast<float>(static_cast<int>(rng() % 17) - 8) * 0.375f + 0.125f;
    int64_t taps[4];
    double weights[4];
    bicubic_backward_taps(o, 2, rows, taps, weights);
    for (int k = 0; k < 4; ++k) {
      expected[taps[k]] += weights[k] * g[o];  // the W axis (1 -> 1) has weights (0, 1, 0, 0)
      magnitude[taps[k]] += std::fabs(weights[k] * g[o]);
    }
  }
  float out[2] = {NAN, NAN};
  run(op, grad_out, grad_in, g.get(), out, "bicubic backward [1,1,2^31+1,1] -> [1,1,2,1]");
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(out[i], expected[i], 1e-5 * magnitude[i]) << i;
    std::printf("[huge] gradInput[%d] = %.9g (float64 formula %.9g)\n", i, out[i], expected[i]);
  }
}

TEST(Huge, NearestExactUint8IntoTwoBillionOutputs) {
  const int64_t in_len = int64_t{1} << 20, out_len = 2147483651LL;
  OpDesc op;
  op.mode = Mode::kNearestExact;
  op.spatial_rank = 1;
  const TensorDesc src = TensorDesc::contiguous(DType::kUInt8, {1, 1, in_len});
  const TensorDesc dst = TensorDesc::contiguous(DType::kUInt8, {1, 1, out_len});
  std::vector<uint8_t> x(static_cast<size_t>(in_len));
  for (int64_t i = 0; i < in_len; ++i) x[i] = static_cast<uint8_t>((i * 131) >> 3);
  Buffer<uint8_t> y = zeros<uint8_t>(out_len);
  run(op, src, dst, x.data(), y.get(), "nearest-exact uint8 [1,1,2^20] -> [1,1,2^31+3]");
  // Every output: index min(floorf((o + 0.5) * ratio), in - 1) with the float32 ratio.
  const float ratio = static_cast<float>(in_len) / static_cast<float>(out_len);
  int64_t wrong = 0;
  for (int64_t o = 0; o < out_len; ++o) {
    const float pos = static_cast<float>((static_cast<double>(o) + 0.5) * ratio);
    const int64_t i = std::min(static_cast<int64_t>(std::floor(pos)), in_len - 1);
    wrong += y[o] != x[i];
  }
  EXPECT_EQ(wrong, 0);
}

TEST(Huge, BilinearUint8FromTwoBillionElements) {
  const int64_t side = 46341, out_h = 8000, out_w = 6000;  // side^2 = 2^31 + 4761
  OpDesc op;
  op.mode = Mode::kLinear;
  const TensorDesc src = TensorDesc::contiguous(DType::kUInt8, {1, 1, side, side});
  const TensorDesc dst = TensorDesc::contiguous(DType::kUInt8, {1, 1, out_h, out_w});
  Buffer<uint8_t> x = zeros<uint8_t>(side * side);
  auto value = [](int64_t r, int64_t c) { return static_cast<uint8_t>((r * 7 + c * 3) % 251); };
  for (int64_t r = 0; r < side; ++r) {
    for (int64_t c = 0; c < side; ++c) x[r * side + c] = value(r, c);
  }
  std::vector<uint8_t> y(static_cast<size_t>(out_h * out_w));
  run(op, src, dst, x.get(), y.data(), "bilinear uint8 [1,1,46341,46341] -> [1,1,8000,6000]");
  // Sampled outputs against the float64 formula (PyTorch's linear rule per axis); the float32
  // computation and the final rounding allow a difference of 1.
  auto taps = [](int64_t o, int64_t in_len, int64_t out_len, int64_t* i0, int64_t* i1, double* l1) {
    const double ratio =
        static_cast<double>(static_cast<float>(in_len) / static_cast<float>(out_len));
    const double pos = std::max(ratio * (static_cast<double>(o) + 0.5) - 0.5, 0.0);
    *i0 = std::min(static_cast<int64_t>(pos), in_len - 1);
    *i1 = std::min(*i0 + 1, in_len - 1);
    *l1 = std::clamp(pos - static_cast<double>(*i0), 0.0, 1.0);
  };
  std::mt19937_64 rng(5);
  int64_t far_off = 0;
  for (int k = 0; k < 100000; ++k) {
    const int64_t r = static_cast<int64_t>(rng() % out_h), c = static_cast<int64_t>(rng() % out_w);
    int64_t r0, r1, c0, c1;
    double lr, lc;
    taps(r, side, out_h, &r0, &r1, &lr);
    taps(c, side, out_w, &c0, &c1, &lc);
    const double top = (1 - lc) * value(r0, c0) + lc * value(r0, c1);
    const double bottom = (1 - lc) * value(r1, c0) + lc * value(r1, c1);
    const double expected = (1 - lr) * top + lr * bottom;
    far_off += std::fabs(y[r * out_w + c] - expected) > 1.0;
  }
  EXPECT_EQ(far_off, 0);
}

}  // namespace
}  // namespace upsample
