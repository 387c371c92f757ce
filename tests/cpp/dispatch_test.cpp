// The CPU backend's decisions (src/cpu/dispatch.cpp): the execution strategy, whether steps are
// fused, the per-call plane rule, and that Plan::describe() names every choice with its reasons.
// Whatever the choice, the bits are the same: a plan compiled with the scalar kernels only gives
// the SIMD plan's result.
#include "cpu/dispatch.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cpu/threads.hpp"
#include "upsample/resample.hpp"

namespace upsample::cpu {
namespace {

StrategyRequest sliceable(int passes, int64_t batch, int64_t slice_scratch) {
  StrategyRequest r;
  r.passes = passes;
  r.batch = batch;
  r.slice_scratch = slice_scratch;
  return r;
}

TEST(Strategy, PlaneModeOnlyForIndependentSlicesThatFitInCache) {
  EXPECT_FALSE(choose_strategy(sliceable(1, 8, 1000)).planes);
  EXPECT_FALSE(choose_strategy(sliceable(2, 1, 1000)).planes);
  StrategyRequest copies = sliceable(2, 8, 1000);
  copies.has_copies = true;
  EXPECT_FALSE(choose_strategy(copies).planes);
  EXPECT_FALSE(choose_strategy(sliceable(2, 8, int64_t{3} << 20)).planes);
  const Strategy s = choose_strategy(sliceable(2, 8, 64 << 10));
  EXPECT_TRUE(s.planes);
  EXPECT_EQ(s.block, 4);  // 256 KiB per block of 64 KiB slices
  EXPECT_NE(s.why.find("plane mode: 8 slices in blocks of 4"), std::string::npos) << s.why;
  for (const StrategyRequest& r : {sliceable(1, 8, 1000), sliceable(2, 1, 1000), copies}) {
    const Strategy t = choose_strategy(r);
    EXPECT_EQ(t.why.rfind("tensor mode: ", 0), 0u) << t.why;
  }
}

TEST(Strategy, FusionIsTriedUnlessPlaneModeKeepsThreeIntermediates) {
  Strategy planes;
  planes.planes = true;
  planes.why = "plane mode: x";
  const Strategy tensor;
  EXPECT_EQ(fusion_not_tried(planes, 2), "");
  EXPECT_EQ(fusion_not_tried(tensor, 3), "");
  EXPECT_NE(fusion_not_tried(planes, 3).find("all 3 passes"), std::string::npos);

  // Fused pairs replace plane mode, whose reason stays in the description.
  const Strategy fused = strategy_after_fusion(planes, true);
  EXPECT_FALSE(fused.planes);
  EXPECT_NE(fused.why.find("instead of plane mode: x"), std::string::npos) << fused.why;
  EXPECT_TRUE(strategy_after_fusion(planes, false).planes);
  EXPECT_EQ(strategy_after_fusion(tensor, true).why, tensor.why);
}

TEST(Strategy, PlanesPerCallUnlessTheSlicesSplitUnevenly) {
  Strategy s;
  s.planes = true;
  s.slots = 64;
  EXPECT_TRUE(planes_for_call(s, 4, 2));
  EXPECT_FALSE(planes_for_call(s, 3, 2));  // 2 and 1 slices
  EXPECT_FALSE(planes_for_call(s, 7, 2));  // uneven, fewer than 4 each
  EXPECT_TRUE(planes_for_call(s, 9, 2));   // uneven, but at least 4 each
  EXPECT_TRUE(planes_for_call(s, 3, 3));
  EXPECT_TRUE(planes_for_call(s, 3, 1));
  s.slots = 1;  // one slot: one thread runs every slice
  EXPECT_TRUE(planes_for_call(s, 3, 2));
  s.planes = false;
  EXPECT_FALSE(planes_for_call(s, 4, 2));
  EXPECT_NE(describe_strategy(Strategy{true, 1, 2, "plane mode"}).find("per thread"),
            std::string::npos);
}

TEST(Fusion, EachConditionNamesItsReason) {
  FusionRequest ok{true, true, true, true, true};
  EXPECT_EQ(fusion_declines(ok), "");
  FusionRequest r = ok;
  r.a_resample = false;
  EXPECT_EQ(fusion_declines(r), "not two resample steps");
  r = ok;
  r.connected = false;
  EXPECT_NE(fusion_declines(r).find("workspace output"), std::string::npos);
  r = ok;
  r.b_vertical_table = false;
  EXPECT_NE(fusion_declines(r).find("vertical kernel"), std::string::npos);
  r = ok;
  r.adjacent = false;
  EXPECT_NE(fusion_declines(r).find("output rows"), std::string::npos);

  FusionRequest rows{true, true, true, false, false, true, true};
  EXPECT_EQ(row_fusion_declines(rows), "");
  r = rows;
  r.b_resample = false;
  EXPECT_EQ(row_fusion_declines(r), "not two resample steps");
  r = rows;
  r.connected = false;
  EXPECT_NE(row_fusion_declines(r).find("workspace output"), std::string::npos);
  r = rows;
  r.a_plain_vertical = false;
  EXPECT_NE(row_fusion_declines(r).find("plain vertical kernel"), std::string::npos);
  r = rows;
  r.b_within_rows = false;
  EXPECT_NE(row_fusion_declines(r).find("planes are not inside"), std::string::npos);
}

// Runs a plan on `threads` threads (0: the default).
template <typename T>
std::vector<T> run_on(const OpDesc& op, const TensorDesc& src, const TensorDesc& dst,
                      const std::vector<T>& in, int threads, std::string* description) {
  Plan plan;
  EXPECT_TRUE(make_plan(op, src, dst, &plan).ok());
  *description = plan.describe();
  std::vector<T> out(static_cast<size_t>(dst.numel()));
  std::vector<std::byte> ws(plan.workspace_bytes());
  ExecContext ctx;
  ctx.num_threads = threads;
  EXPECT_TRUE(execute(plan, in.data(), out.data(), ws.data(), ws.size(), ctx).ok());
  return out;
}

std::vector<float> run(const OpDesc& op, const TensorDesc& src, const TensorDesc& dst,
                       const std::vector<float>& in, std::string* description) {
  return run_on(op, src, dst, in, 0, description);
}

// Restores the best kernels when a test ends.
struct ScalarOnly {
  ScalarOnly() { set_kernel_policy_for_testing(KernelPolicy::kScalarOnly); }
  ~ScalarOnly() { set_kernel_policy_for_testing(KernelPolicy::kBest); }
};

TEST(Describe, NamesEveryKernelAndReason) {
  OpDesc op;
  op.mode = Mode::kCubic;
  const TensorDesc src = TensorDesc::contiguous(DType::kFloat32, {2, 3, 37, 41});
  const TensorDesc dst = TensorDesc::contiguous(DType::kFloat32, {2, 3, 70, 90});
  std::vector<float> in(static_cast<size_t>(src.numel()));
  std::mt19937 rng(3);
  for (float& v : in) v = static_cast<float>(rng() % 1000) / 7.0f;
  std::string best_text, scalar_text;
  const std::vector<float> best = run(op, src, dst, in, &best_text);
  std::vector<float> scalar;
  {
    ScalarOnly policy;
    scalar = run(op, src, dst, in, &scalar_text);
  }
  EXPECT_EQ(0, std::memcmp(best.data(), scalar.data(), best.size() * sizeof(float)));
  for (const std::string& text : {best_text, scalar_text}) {
    EXPECT_NE(text.find("step 0: resample"), std::string::npos) << text;
    EXPECT_NE(text.find("step 1: resample"), std::string::npos) << text;
    EXPECT_NE(text.find("(declined: simd_copy_rows: taps carry weights;"), std::string::npos)
        << text;
    EXPECT_NE(text.find("fused with the next step"), std::string::npos) << text;
    EXPECT_NE(text.find("runs in the bands of the step before"), std::string::npos) << text;
    EXPECT_NE(text.find("instead of plane mode: 6 slices"), std::string::npos) << text;
  }
  EXPECT_NE(best_text.find("kernel simd_horizontal"), std::string::npos) << best_text;
  EXPECT_NE(scalar_text.find("kernel scalar_horizontal"), std::string::npos) << scalar_text;
  EXPECT_NE(scalar_text.find("scalar kernels forced (test policy)"), std::string::npos)
      << scalar_text;

  // Three passes in plane mode: fusion is not tried, and describe() says why.
  OpDesc op3;
  op3.spatial_rank = 3;
  const TensorDesc src3 = TensorDesc::contiguous(DType::kFloat32, {2, 2, 5, 6, 7});
  const TensorDesc dst3 = TensorDesc::contiguous(DType::kFloat32, {2, 2, 9, 10, 11});
  std::vector<float> in3(static_cast<size_t>(src3.numel()), 1.0f);
  std::string text3;
  run(op3, src3, dst3, in3, &text3);
  EXPECT_NE(text3.find("plane mode: 4 slices"), std::string::npos) << text3;
  EXPECT_NE(
      text3.find("fusion in bands not tried: plane mode keeps the intermediates of all 3 passes"),
      std::string::npos)
      << text3;
}

// A 2-D backward whose H pass shrinks the gradient at least as much as its W pass runs H first
// (plan.cpp, order_backward_passes), and the W pass then reads each band of H's output rows
// straight from the thread's scratch (Fused::row_bands). The result is, bit for bit, the two
// one-axis backward passes run one after the other - H alone, then W alone - for NCHW and NHWC,
// float32 and float64, linear and cubic, on 1 to 3 threads and with the scalar kernels only. When
// W shrinks more, W runs first (the bands of the other direction).
template <typename T>
void check_row_bands(DType dtype) {
  std::mt19937 rng(47);
  struct Shape {
    int64_t out_h, out_w, in_h, in_w;
    bool h_first;
  };
  for (const Shape sh :
       {Shape{40, 36, 20, 18, true}, Shape{64, 70, 31, 35, true}, Shape{40, 36, 13, 30, true},
        Shape{17, 80, 15, 20, false}, Shape{8, 9, 3, 4, true}, Shape{128, 144, 64, 72, true}}) {
    for (Mode mode : {Mode::kLinear, Mode::kCubic}) {
      for (bool channels_last : {false, true}) {
        for (bool align : {false, true}) {
          OpDesc op;
          op.mode = mode;
          op.direction = Direction::kBackward;
          op.align_corners = align;
          auto desc = [&](int64_t h, int64_t w) {
            return channels_last ? TensorDesc::channels_last(dtype, {2, 5, h, w})
                                 : TensorDesc::contiguous(dtype, {2, 5, h, w});
          };
          const TensorDesc grad_out = desc(sh.out_h, sh.out_w);
          const TensorDesc grad_in = desc(sh.in_h, sh.in_w);
          // The same axes one at a time (the other keeps its size: an identity, skipped).
          const TensorDesc middle = sh.h_first ? desc(sh.in_h, sh.out_w) : desc(sh.out_h, sh.in_w);
          std::vector<T> in(static_cast<size_t>(grad_out.numel()));
          std::normal_distribution<double> normal(0.0, 3.0);
          for (T& v : in) v = static_cast<T>(normal(rng));
          std::string text, unused;
          const std::vector<T> first = run_on(op, grad_out, middle, in, 1, &unused);
          const std::vector<T> expected = run_on(op, middle, grad_in, first, 1, &unused);
          const std::string what = std::to_string(sh.out_h) + "x" + std::to_string(sh.out_w) +
                                   " cubic " + std::to_string(mode == Mode::kCubic) +
                                   " channels_last " + std::to_string(channels_last) + " align " +
                                   std::to_string(align);
          for (int threads : {1, 2, 3}) {
            const std::vector<T> got = run_on(op, grad_out, grad_in, in, threads, &text);
            ASSERT_EQ(0, std::memcmp(got.data(), expected.data(), got.size() * sizeof(T)))
                << what << ", " << threads << " threads\n"
                << text;
            EXPECT_EQ(text.find("fused with the next step in row bands") != std::string::npos,
                      sh.h_first)
                << what << "\n"
                << text;
          }
          ScalarOnly policy;
          const std::vector<T> scalar = run_on(op, grad_out, grad_in, in, 2, &text);
          ASSERT_EQ(0, std::memcmp(scalar.data(), expected.data(), scalar.size() * sizeof(T)))
              << what << ", scalar kernels\n"
              << text;
          EXPECT_EQ(text.find("fused with the next step in row bands") != std::string::npos,
                    sh.h_first)
              << what << "\n"
              << text;
        }
      }
    }
  }
}

TEST(Fusion, RowBandsGiveTheBitsOfTheTwoPassesOneAfterTheOther) {
  check_row_bands<float>(DType::kFloat32);
  check_row_bands<double>(DType::kFloat64);
}

// Where both orders of a 2-D backward keep the same largest intermediate, the CPU backend decides
// (cpu::backward_inner_first): W first for the gradient of an integer upsampling by 2 to 4 with
// rows of 8 or more taps and grad_input rows of 128 or more elements; else H first, whose W pass
// writes half as much. The result is, bit for bit, the two one-axis passes in the order the
// description names, for NCHW and NHWC, on 1 and 2 threads; a 3-D backward keeps W last.
TEST(Fusion, TiedBackwardOrdersAreTheBackendsChoice) {
  struct Case {
    Mode mode;
    bool align;
    int64_t out_h, out_w, in_h, in_w;  // gradient, grad_input
    bool w_first;
  };
  const Case cases[] = {
      {Mode::kCubic, false, 40, 256, 20, 128, true},    // cubic 2x: 8 taps
      {Mode::kLinear, false, 40, 256, 20, 128, false},  // linear 2x: 4 taps
      {Mode::kLinear, false, 40, 512, 10, 128, true},   // linear 4x: 8 taps
      {Mode::kCubic, true, 40, 256, 20, 128, false},    // align_corners: blocks not alike
      {Mode::kCubic, false, 40, 128, 20, 64, false},    // rows of 64
      {Mode::kLinear, false, 30, 390, 10, 130, false},  // linear 3x: 6 taps
      {Mode::kCubic, false, 30, 390, 10, 130, true},    // cubic 3x: 12 taps
      {Mode::kLinear, false, 40, 640, 8, 128, false},   // linear 5x: factor above 4
  };
  std::mt19937 rng(61);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (const Case& c : cases) {
    OpDesc op;
    op.mode = c.mode;
    op.direction = Direction::kBackward;
    op.align_corners = c.align;
    for (bool channels_last : {false, true}) {
      auto desc = [&](int64_t h, int64_t w) {
        return channels_last ? TensorDesc::channels_last(DType::kFloat32, {2, 3, h, w})
                             : TensorDesc::contiguous(DType::kFloat32, {2, 3, h, w});
      };
      const TensorDesc grad_out = desc(c.out_h, c.out_w), grad_in = desc(c.in_h, c.in_w);
      const TensorDesc middle = c.w_first ? desc(c.out_h, c.in_w) : desc(c.in_h, c.out_w);
      std::vector<float> in(static_cast<size_t>(grad_out.numel()));
      for (float& v : in) v = normal(rng);
      std::string text, unused;
      const std::vector<float> first = run_on(op, grad_out, middle, in, 1, &unused);
      const std::vector<float> expected = run_on(op, middle, grad_in, first, 1, &unused);
      const std::string what = std::to_string(c.out_h) + "x" + std::to_string(c.out_w) + " -> " +
                               std::to_string(c.in_h) + "x" + std::to_string(c.in_w) + " cubic " +
                               std::to_string(c.mode == Mode::kCubic) + " align " +
                               std::to_string(c.align) + " channels_last " +
                               std::to_string(channels_last);
      for (int threads : {1, 2}) {
        const std::vector<float> got = run_on(op, grad_out, grad_in, in, threads, &text);
        ASSERT_EQ(0, std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)))
            << what << ", " << threads << " threads\n"
            << text;
        const size_t step0 = text.find("step 0: resample");
        ASSERT_NE(step0, std::string::npos) << text;
        const std::string line = text.substr(step0, text.find('\n', step0) - step0);
        EXPECT_NE(line.find(c.w_first ? "dim 3" : "dim 2"), std::string::npos) << what << "\n"
                                                                               << text;
      }
    }
  }
  // 3-D: the question is asked for 2-D only; W runs last (it writes the fewest elements there).
  OpDesc op;
  op.direction = Direction::kBackward;
  op.spatial_rank = 3;
  std::string text;
  const TensorDesc grad_out = TensorDesc::contiguous(DType::kFloat32, {1, 2, 16, 16, 512});
  const TensorDesc grad_in = TensorDesc::contiguous(DType::kFloat32, {1, 2, 4, 4, 128});
  run_on(op, grad_out, grad_in, std::vector<float>(static_cast<size_t>(grad_out.numel()), 1.0f), 2,
         &text);
  const size_t step2 = text.find("step 2: resample");
  ASSERT_NE(step2, std::string::npos) << text;
  EXPECT_NE(text.substr(step2, text.find('\n', step2) - step2).find("dim 4"), std::string::npos)
      << text;
}

// A horizontal pass's float32 output of 32 MiB or more (W11: 16x64x4096 -> 8192) is streamed
// past the caches (simd_horizontal_stream), one of 16 MiB is not, and a float64 one has no
// vector kernel; the streamed pass gives the scalar kernels' bits.
TEST(HorizontalStream, LargeFloat32OutputsAreStreamed) {
  OpDesc op;
  op.spatial_rank = 1;
  const TensorDesc src = TensorDesc::contiguous(DType::kFloat32, {16, 64, 4096});
  const TensorDesc dst = TensorDesc::contiguous(DType::kFloat32, {16, 64, 8192});
  std::vector<float> in(static_cast<size_t>(src.numel()));
  std::mt19937 rng(71);
  for (float& v : in) v = static_cast<float>(rng() % 1000) / 7.0f;
  std::string text, scalar_text;
  const std::vector<float> streamed = run_on(op, src, dst, in, 2, &text);
  EXPECT_NE(text.find("kernel simd_horizontal_stream"), std::string::npos) << text;
  std::vector<float> scalar;
  {
    ScalarOnly policy;
    scalar = run_on(op, src, dst, in, 2, &scalar_text);
  }
  ASSERT_EQ(streamed.size(), scalar.size());
  EXPECT_EQ(0, std::memcmp(streamed.data(), scalar.data(), streamed.size() * sizeof(float)));
  // Half as many rows: 16 MiB of output.
  const TensorDesc half_src = TensorDesc::contiguous(DType::kFloat32, {8, 64, 4096});
  const TensorDesc half_dst = TensorDesc::contiguous(DType::kFloat32, {8, 64, 8192});
  std::vector<float> half_in(static_cast<size_t>(half_src.numel()), 1.0f);
  std::string half_text;
  run_on(op, half_src, half_dst, half_in, 2, &half_text);
  EXPECT_EQ(half_text.find("kernel simd_horizontal_stream"), std::string::npos) << half_text;
  EXPECT_NE(half_text.find("simd_horizontal_stream: the output fits the caches"), std::string::npos)
      << half_text;
}

// A reducing pass (fewer outputs than inputs along its axis) that writes a float32 output of 2 MiB
// or more in rows of whole 64-byte lines streams it past the caches (dispatch.cpp,
// kReducingStreamBytes): W2's backward at half its batch (NCHW, the last pass horizontal) and
// W16's (NHWC, the last pass vertical over rows of 32 channels), with the scalar kernels' bits on
// 1 and 2 threads. Not streamed, each with its reason: the same backward with a 1 MiB output,
// rows of 60 outputs (240 bytes), and the 2x forward (its passes do not reduce). An NHWC 2x
// downsampling whose two vertical passes run as one kernel (vertical_pair) still does, though its
// second step alone would stream.
TEST(ReducingStream, ReducedOutputsOfTwoMiBAreStreamed) {
  OpDesc backward;
  backward.direction = Direction::kBackward;
  const auto nchw = [](int64_t n, int64_t c, int64_t h, int64_t w) {
    return TensorDesc::contiguous(DType::kFloat32, {n, c, h, w});
  };
  const auto nhwc = [](int64_t n, int64_t c, int64_t h, int64_t w) {
    return TensorDesc::channels_last(DType::kFloat32, {n, c, h, w});
  };
  struct Case {
    OpDesc op;
    TensorDesc src, dst;
    const char* chosen;  // the last step's kernel line, or the reason it is not streamed
  };
  const Case cases[] = {
      {backward, nchw(4, 32, 128, 128), nchw(4, 32, 64, 64), "kernel simd_horizontal_stream"},
      {backward, nhwc(4, 32, 128, 128), nhwc(4, 32, 64, 64), "kernel simd_vertical_stream"},
      {backward, nchw(2, 32, 128, 128), nchw(2, 32, 64, 64),
       "simd_horizontal_stream: a reducing pass's output under 2 MiB"},
      {backward, nchw(8, 32, 128, 120), nchw(8, 32, 64, 60),
       "simd_horizontal_stream: rows not of whole 64-byte lines"},
      {OpDesc{}, nchw(4, 32, 64, 64), nchw(4, 32, 128, 128),
       "simd_vertical_stream: the output fits the caches and the pass does not reduce"},
      {OpDesc{}, nhwc(4, 32, 128, 128), nhwc(4, 32, 64, 64),
       "runs in the kernel of the step before"},
  };
  for (const Case& c : cases) {
    std::vector<float> in(static_cast<size_t>(c.src.numel()));
    std::mt19937 rng(29);
    for (float& v : in) v = static_cast<float>(rng() % 2000) * 0.37f - 300.0f;
    std::string text, scalar_text;
    std::vector<float> scalar;
    {
      ScalarOnly policy;
      scalar = run_on(c.op, c.src, c.dst, in, 2, &scalar_text);
    }
    for (int threads : {1, 2}) {
      const std::vector<float> got = run_on(c.op, c.src, c.dst, in, threads, &text);
      const size_t last = text.find("step 1: resample");  // (the last of the two passes)
      ASSERT_NE(last, std::string::npos) << text;
      EXPECT_NE(text.find(c.chosen, last), std::string::npos) << c.chosen << "\n" << text;
      ASSERT_EQ(got.size(), scalar.size());
      EXPECT_EQ(0, std::memcmp(got.data(), scalar.data(), got.size() * sizeof(float)))
          << c.chosen << ", " << threads << " threads";
    }
  }
}

// A vertical pass over the caller's tensor in rows of at most kPrefetchRowBytes prefetches its
// source rows ahead (PassArgs::prefetch_rows_ahead, 4096 bytes of rows); the description says
// so - that is what this test pins: a prefetch reads nothing, so the bits (the scalar kernels',
// on 1 to 3 threads, whose shares end inside planes and prefetch into the next plane and past
// the tensor's end) could only show a bad read of the table. Rows of 512 bytes, pairs run as one
// kernel and the alpha kernels do not prefetch. Rows of at least kPrefetchLongRowBytes (float32)
// are prefetched within each output row instead (PassArgs::prefetch_within_row: the rows it
// reads first, 4096 bytes ahead, past the row's and the tensor's end at the last rows).
TEST(Prefetch, ShortSourceRowsGiveTheBitsOfTheScalarKernels) {
  struct Case {
    OpDesc op;
    TensorDesc src, dst;
    int64_t ahead;   // rows ahead; 0: not prefetched
    int64_t within;  // elements ahead within the row; 0: not prefetched
  };
  OpDesc backward;
  backward.direction = Direction::kBackward;
  OpDesc backward_3d = backward;
  backward_3d.spatial_rank = 3;
  OpDesc cubic;
  cubic.mode = Mode::kCubic;
  OpDesc alpha;
  alpha.premultiplied_alpha = true;
  const std::vector<Case> cases = {
      // H first over rows of 64 floats (W2's shape at a quarter of its width).
      {backward, TensorDesc::contiguous(DType::kFloat32, {2, 3, 64, 64}),
       TensorDesc::contiguous(DType::kFloat32, {2, 3, 32, 32}), 16, 0},
      // W14's order (H, D, W) on a smaller volume: H over rows of 64 floats.
      {backward_3d, TensorDesc::contiguous(DType::kFloat32, {1, 2, 16, 16, 64}),
       TensorDesc::contiguous(DType::kFloat32, {1, 2, 8, 8, 32}), 16, 0},
      // A forward bicubic W pass over NHWC pixels of 32 channels (128 bytes), fused in bands.
      {cubic, TensorDesc::channels_last(DType::kFloat32, {2, 32, 16, 16}),
       TensorDesc::channels_last(DType::kFloat32, {2, 32, 32, 32}), 32, 0},
      // Bilinear: the two passes run as one kernel (vertical_pair), which does not prefetch.
      {OpDesc{}, TensorDesc::channels_last(DType::kFloat32, {2, 32, 16, 16}),
       TensorDesc::channels_last(DType::kFloat32, {2, 32, 32, 32}), 0, 0},
      // Premultiplied alpha (pixels of 4 channels): the alpha kernels do not prefetch.
      {alpha, TensorDesc::channels_last(DType::kFloat32, {1, 4, 16, 16}),
       TensorDesc::channels_last(DType::kFloat32, {1, 4, 32, 32}), 0, 0},
      // Rows of 128 floats: left to the hardware.
      {backward, TensorDesc::contiguous(DType::kFloat32, {2, 3, 64, 128}),
       TensorDesc::contiguous(DType::kFloat32, {2, 3, 32, 64}), 0, 0},
      // W16's order (H, then W) on a smaller tensor: H over NHWC rows of 128 pixels of 32
      // channels (16 KiB), 2 of the 4 rows of an output row read first (3 at the borders).
      {backward, TensorDesc::channels_last(DType::kFloat32, {2, 32, 12, 128}),
       TensorDesc::channels_last(DType::kFloat32, {2, 32, 6, 64}), 0, 1024},
      // Rows of 64 such pixels (8 KiB): left to the hardware.
      {backward, TensorDesc::channels_last(DType::kFloat32, {2, 32, 12, 64}),
       TensorDesc::channels_last(DType::kFloat32, {2, 32, 6, 32}), 0, 0},
  };
  std::mt19937 rng(67);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (const Case& c : cases) {
    std::vector<float> in(static_cast<size_t>(c.src.numel()));
    for (float& v : in) v = normal(rng);
    std::string text;
    std::vector<float> scalar;
    {
      ScalarOnly policy;
      scalar = run_on(c.op, c.src, c.dst, in, 1, &text);
    }
    EXPECT_EQ(text.find("prefetches"), std::string::npos) << text;
    for (int threads : {1, 2, 3}) {
      const std::vector<float> got = run_on(c.op, c.src, c.dst, in, threads, &text);
      ASSERT_EQ(0, std::memcmp(got.data(), scalar.data(), got.size() * sizeof(float)))
          << c.src.to_string() << ", " << threads << " threads\n"
          << text;
      const std::string says =
          "prefetches the source rows of the output row " + std::to_string(c.ahead) + " rows ahead";
      if (c.ahead > 0) {
        EXPECT_NE(text.find(says), std::string::npos) << text;
      } else {
        EXPECT_EQ(text.find("prefetches the source rows"), std::string::npos) << text;
      }
      const std::string within =
          "prefetches within each output row the source rows it reads first, " +
          std::to_string(c.within) + " elements ahead";
      if (c.within > 0) {
        EXPECT_NE(text.find(within), std::string::npos) << text;
      } else {
        EXPECT_EQ(text.find("prefetches within"), std::string::npos) << text;
      }
    }
  }
}

// Views that are not dense: the gradient is gathered into the workspace, the H pass reads it
// there, and the W pass of the row bands writes the region the H pass read (the pair's steps
// swap regions), before the result is scattered into the strided grad_input. Same bits as the
// dense call. And a 3-D backward (H shrinks most, then D, then W) against its three one-axis
// passes in that order.
TEST(Fusion, RowBandsOnViewsAnd3dGiveTheSameBits) {
  std::mt19937 rng(59);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  OpDesc op;
  op.direction = Direction::kBackward;
  const TensorDesc dense_out = TensorDesc::contiguous(DType::kFloat32, {2, 3, 40, 36});
  const TensorDesc dense_in = TensorDesc::contiguous(DType::kFloat32, {2, 3, 20, 18});
  // Every other element of a buffer twice as long.
  auto spread = [](TensorDesc t) {
    for (int d = 0; d < t.rank; ++d) t.strides[d] *= 2;
    return t;
  };
  const TensorDesc view_out = spread(dense_out), view_in = spread(dense_in);
  std::vector<float> dense_values(static_cast<size_t>(dense_out.numel()));
  for (float& v : dense_values) v = normal(rng);
  std::vector<float> spread_values(dense_values.size() * 2, 0.0f);
  for (size_t i = 0; i < dense_values.size(); ++i) spread_values[2 * i] = dense_values[i];
  std::string text;
  const std::vector<float> expected = run_on(op, dense_out, dense_in, dense_values, 2, &text);
  EXPECT_NE(text.find("fused with the next step in row bands"), std::string::npos) << text;
  for (int threads : {1, 2, 3}) {
    Plan plan;
    ASSERT_TRUE(make_plan(op, view_out, view_in, &plan).ok());
    text = plan.describe();
    std::vector<float> got(static_cast<size_t>(dense_in.numel()) * 2, -1.0f);
    std::vector<std::byte> ws(plan.workspace_bytes());
    ExecContext ctx;
    ctx.num_threads = threads;
    ASSERT_TRUE(execute(plan, spread_values.data(), got.data(), ws.data(), ws.size(), ctx).ok());
    for (size_t i = 0; i < expected.size(); ++i) {
      ASSERT_EQ(0, std::memcmp(&got[2 * i], &expected[i], sizeof(float)))
          << i << ", " << threads << " threads\n"
          << text;
      ASSERT_EQ(got[2 * i + 1], -1.0f) << "wrote between the view's elements";
    }
  }
  EXPECT_NE(text.find("fused with the next step in row bands"), std::string::npos) << text;
  EXPECT_NE(text.find("strided_copy"), std::string::npos) << text;

  OpDesc op3;
  op3.direction = Direction::kBackward;
  op3.spatial_rank = 3;
  auto dense3 = [](int64_t d, int64_t h, int64_t w) {
    return TensorDesc::contiguous(DType::kFloat32, {1, 1, d, h, w});
  };
  std::vector<float> values3(static_cast<size_t>(dense3(12, 20, 16).numel()));
  for (float& v : values3) v = normal(rng);
  std::string unused;
  const std::vector<float> h =
      run_on(op3, dense3(12, 20, 16), dense3(12, 5, 16), values3, 1, &unused);
  const std::vector<float> hd = run_on(op3, dense3(12, 5, 16), dense3(6, 5, 16), h, 1, &unused);
  const std::vector<float> hdw = run_on(op3, dense3(6, 5, 16), dense3(6, 5, 8), hd, 1, &unused);
  for (int threads : {1, 2, 3}) {
    const std::vector<float> got =
        run_on(op3, dense3(12, 20, 16), dense3(6, 5, 8), values3, threads, &text);
    ASSERT_EQ(0, std::memcmp(got.data(), hdw.data(), got.size() * sizeof(float)))
        << threads << " threads\n"
        << text;
  }
}

// The threads of a fused pair split its rows (planes x rows per plane), not its bands
// (execute.cpp, run_fused): with two threads the share boundary below falls inside a band, in
// both kinds of fusion, and two threads give the bits of one thread, which are also the scalar
// kernels'. (A team is at most default_threads() strong: its scratch slots.)
TEST(Fusion, ThreadSharesMayEndInsideABand) {
  if (cpu::default_threads() < 2) GTEST_SKIP() << "one thread: no share boundary";
  struct Case {
    OpDesc op;
    TensorDesc src, dst;
    int64_t planes, rows;  // the rows the bands cut, per plane
    std::string fusion;    // the description's words before the band count
  };
  OpDesc aa;  // a 2-D antialias downsample: bands of the H pass's output rows
  aa.mode = Mode::kCubic;
  aa.antialias = true;
  OpDesc up_backward;  // a 2x bilinear backward: H first, bands of its output rows
  up_backward.direction = Direction::kBackward;
  const std::vector<Case> cases = {
      {aa, TensorDesc::contiguous(DType::kFloat32, {1, 3, 600, 2400}),
       TensorDesc::contiguous(DType::kFloat32, {1, 3, 98, 2000}), 3, 98,
       "fused with the next step: "},
      {up_backward, TensorDesc::contiguous(DType::kFloat32, {1, 3, 20, 128}),
       TensorDesc::contiguous(DType::kFloat32, {1, 3, 10, 64}), 3, 10,
       "fused with the next step in row bands: "},
  };
  std::mt19937 rng(53);
  for (const Case& c : cases) {
    std::vector<float> in(static_cast<size_t>(c.src.numel()));
    for (float& v : in) v = static_cast<float>(rng() % 2001) / 1000.0f - 1.0f;
    std::string text;
    const std::vector<float> one = run_on(c.op, c.src, c.dst, in, 1, &text);
    const size_t at = text.find(c.fusion);
    ASSERT_NE(at, std::string::npos) << text;
    const size_t of = text.find(" band(s) of ", at);
    ASSERT_NE(of, std::string::npos) << text;
    const int64_t band_rows = std::stoll(text.substr(of + 12));
    ASSERT_GT(band_rows, 1) << text;
    const int64_t boundary = c.planes * c.rows / 2;  // where two threads' shares meet
    EXPECT_NE(boundary % c.rows % band_rows, 0) << "the test's premise\n" << text;
    const std::vector<float> two = run_on(c.op, c.src, c.dst, in, 2, &text);
    ASSERT_EQ(0, std::memcmp(two.data(), one.data(), one.size() * sizeof(float))) << text;
    ScalarOnly policy;
    const std::vector<float> scalar = run_on(c.op, c.src, c.dst, in, 2, &text);
    ASSERT_EQ(0, std::memcmp(scalar.data(), one.data(), one.size() * sizeof(float))) << text;
  }
}

// The CPUID family of known signatures, and the streaming threshold per CPU.
TEST(Fusion, CopyStreamThresholdPerCpu) {
  EXPECT_EQ(x86_family(0x00A20F10u), 0x19u);  // Zen 3
  EXPECT_EQ(x86_family(0x00A60F12u), 0x19u);  // Zen 4
  EXPECT_EQ(x86_family(0x00B40F40u), 0x1Au);  // Zen 5
  EXPECT_EQ(x86_family(0x00830F10u), 0x17u);  // Zen 2
  EXPECT_EQ(x86_family(0x000806F8u), 0x6u);   // Sapphire Rapids
  constexpr int64_t kMiB = int64_t{1} << 20;
  EXPECT_EQ(copy_stream_bytes_for(false, 6, 0), 16 * kMiB);
  EXPECT_EQ(copy_stream_bytes_for(false, 6, 105 * kMiB), 16 * kMiB);
  EXPECT_EQ(copy_stream_bytes_for(true, 0x17, 0), 16 * kMiB);
  EXPECT_EQ(copy_stream_bytes_for(true, 0x19, 0), 24 * kMiB);
  EXPECT_EQ(copy_stream_bytes_for(true, 0x1A, 0), 24 * kMiB);
  EXPECT_EQ(copy_stream_bytes_for(true, 0x19, 16 * kMiB), 12 * kMiB);
  EXPECT_EQ(copy_stream_bytes_for(true, 0x1A, 96 * kMiB), 72 * kMiB);
}

// A row copy then a row gather (nearest forward) writes with non-temporal stores only when its
// output is the call's and at least copy_stream_bytes() (16 or 24 MiB, by CPU); a vertical pair
// never does.
TEST(Fusion, OnlyLargeNearestOutputsStream) {
  const int64_t threshold = copy_stream_bytes();
  EXPECT_GT(threshold, 0);
  PairRequest r;
  r.copy_then_row_copy = true;
  r.b_writes_dst = true;
  r.b_out_bytes = threshold;
  EXPECT_TRUE(pair_streams(r));
  r.b_out_bytes = threshold - 1;
  EXPECT_FALSE(pair_streams(r));
  r.b_out_bytes = threshold;
  r.b_writes_dst = false;
  EXPECT_FALSE(pair_streams(r));
  r.b_writes_dst = true;
  r.copy_then_row_copy = false;
  r.both_simd_vertical = true;
  EXPECT_FALSE(pair_streams(r));

  // End to end: W5's shape (16 MiB out), half of it and 1.5 times it; each gives the scalar-only
  // plan's bits (any bit pattern: the kernels copy raw bits), with non-temporal stores exactly
  // when the output reaches this CPU's threshold.
  std::mt19937 rng(31);
  for (int64_t batch : {4, 8, 12}) {
    OpDesc op;
    op.mode = Mode::kNearest;
    const TensorDesc src = TensorDesc::contiguous(DType::kFloat32, {batch, 32, 64, 64});
    const TensorDesc dst = TensorDesc::contiguous(DType::kFloat32, {batch, 32, 128, 128});
    std::vector<float> in(static_cast<size_t>(src.numel()));
    for (float& v : in) {
      const uint32_t bits = static_cast<uint32_t>(rng());
      std::memcpy(&v, &bits, sizeof(v));
    }
    std::string best_text, scalar_text;
    const std::vector<float> best = run(op, src, dst, in, &best_text);
    std::vector<float> scalar;
    {
      ScalarOnly policy;
      scalar = run(op, src, dst, in, &scalar_text);
    }
    ASSERT_EQ(0, std::memcmp(best.data(), scalar.data(), best.size() * sizeof(float))) << batch;
    const bool streams = dst.numel() * 4 >= threshold;
    EXPECT_EQ(best_text.find("(copy_pair_4 with non-temporal stores)") != std::string::npos,
              streams)
        << best_text;
    EXPECT_EQ(best_text.find("(copy_pair_4)") != std::string::npos, !streams) << best_text;
  }
}

// Channels-last bilinear: the two vertical passes run as one kernel (vertical_pair) with the
// scalar-only plan's bits, NaN and infinity included, for channel counts around the vector length
// and any thread count; bicubic (4 taps) and premultiplied-alpha-free float64 keep the bands, and
// describe() says why.
TEST(Describe, ChannelsLastBilinearRunsBothPassesAsOneKernel) {
  std::mt19937 rng(29);
  for (int64_t channels : {8, 12, 16, 19, 32, 40}) {
    for (bool align : {false, true}) {
      OpDesc op;
      op.align_corners = align;
      const TensorDesc src = TensorDesc::channels_last(DType::kFloat32, {3, channels, 9, 14});
      const TensorDesc dst = TensorDesc::channels_last(DType::kFloat32, {3, channels, 17, 25});
      std::vector<float> in(static_cast<size_t>(src.numel()));
      std::normal_distribution<float> normal(0.0f, 10.0f);
      for (float& v : in) v = normal(rng);
      in[5] = NAN;
      in[77] = INFINITY;
      std::string best_text, scalar_text;
      const std::vector<float> best = run(op, src, dst, in, &best_text);
      std::vector<float> scalar;
      {
        ScalarOnly policy;
        scalar = run(op, src, dst, in, &scalar_text);
      }
      ASSERT_EQ(0, std::memcmp(best.data(), scalar.data(), best.size() * sizeof(float)))
          << channels << " channels";
      EXPECT_NE(scalar_text.find("not as one kernel: not two vector vertical kernels"),
                std::string::npos)
          << scalar_text;
      const bool vector_long = channels > 8 && channels >= simd_kernels().lanes;
      EXPECT_EQ(best_text.find("as one kernel (vertical_pair)") != std::string::npos, vector_long)
          << best_text;
      if (channels <= 8) {  // channels interleaved into the W pass's rows: a horizontal kernel
        EXPECT_NE(best_text.find("not as one kernel: not two vector vertical kernels"),
                  std::string::npos)
            << best_text;
      } else if (!vector_long) {
        EXPECT_NE(best_text.find("not as one kernel: the first pass's taps are shorter"),
                  std::string::npos)
            << best_text;
      }
    }
  }
  OpDesc cubic;
  cubic.mode = Mode::kCubic;
  const TensorDesc src = TensorDesc::channels_last(DType::kFloat32, {2, 32, 9, 14});
  const TensorDesc dst = TensorDesc::channels_last(DType::kFloat32, {2, 32, 17, 25});
  std::vector<float> in(static_cast<size_t>(src.numel()), 1.0f);
  std::string text;
  const std::vector<float> out = run(cubic, src, dst, in, &text);
  for (float v : out) ASSERT_NEAR(v, 1.0f, 1e-5f);  // constant in, constant out
  EXPECT_NE(text.find("not as one kernel: more than 2 taps"), std::string::npos) << text;
}

}  // namespace
}  // namespace upsample::cpu
