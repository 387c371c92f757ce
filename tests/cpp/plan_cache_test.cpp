// PlanCache (include/upsample/plan_cache.hpp) and the aclnn layer's use of it: a kept plan is the
// plan make_plan() makes (same bits, any thread count), everything make_plan() reads is in the
// key, the bounds hold, failures are never kept, and the checks that depend on data pointers
// still run on every GetWorkspaceSize call.
#include "upsample/plan_cache.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "cpp/nchw_call.hpp"
#include "cpu/dispatch.hpp"
#include "engine_helpers.hpp"

namespace upsample {
namespace {

using namespace ::upsample::test_support;  // NOLINT

OpDesc bilinear() {
  OpDesc op;
  op.mode = Mode::kLinear;
  return op;
}

// Sets an environment variable for its lifetime, then restores the value it had (or its absence).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

const TensorDesc kSrc = TensorDesc::contiguous(DType::kFloat32, {2, 3, 7, 9});
const TensorDesc kDst = TensorDesc::contiguous(DType::kFloat32, {2, 3, 12, 5});

// Runs `plan` (float32, contiguous src) on a ramp along the last dim plus one along the dim
// before it (swapped axes would show) and returns the output.
std::vector<float> run_plan(const Plan& plan, const TensorDesc& src, const TensorDesc& dst,
                            int threads) {
  std::vector<float> in(static_cast<size_t>(src.numel())), out(static_cast<size_t>(dst.numel()));
  for (size_t i = 0; i < in.size(); ++i) {
    const int64_t last = src.sizes[src.rank - 1], before_last = src.sizes[src.rank - 2];
    const int64_t w = static_cast<int64_t>(i) % last;
    const int64_t h = static_cast<int64_t>(i) / last % before_last;
    in[i] = static_cast<float>(w) + 100.0f * static_cast<float>(h) + 0.25f;
  }
  std::vector<unsigned char> ws(plan.workspace_bytes());
  ExecContext ctx;
  ctx.num_threads = threads;
  const Status st = execute(plan, in.data(), out.data(), ws.data(), ws.size(), ctx);
  EXPECT_TRUE(st.ok()) << st.message;
  return out;
}

TEST(PlanCache, AKeptPlanIsTheOneMakePlanMakes) {
  PlanCache cache;
  Plan first, second, made;
  ASSERT_TRUE(cache.get(bilinear(), kSrc, kDst, &first).ok());
  ASSERT_TRUE(cache.get(bilinear(), kSrc, kDst, &second).ok());
  ASSERT_TRUE(make_plan(bilinear(), kSrc, kDst, &made).ok());
  EXPECT_EQ(first.impl(), second.impl());  // one plan shared, not made twice
  EXPECT_NE(first.impl(), made.impl());
  EXPECT_EQ(second.describe(), made.describe());
  EXPECT_EQ(second.workspace_bytes(), made.workspace_bytes());
  const std::vector<float> expected = run_plan(made, kSrc, kDst, 1);
  for (int threads : {1, 2, 3}) {
    EXPECT_TRUE(bitwise_equal(expected, run_plan(second, kSrc, kDst, threads))) << threads;
  }
  const PlanCache::Stats s = cache.stats();
  EXPECT_EQ(s.size, 1);
  EXPECT_EQ(s.hits, 1);
  EXPECT_EQ(s.misses, 1);
  EXPECT_EQ(s.held_bytes, first.held_bytes());
  EXPECT_GT(s.held_bytes, 0u);
}

// Every field make_plan() reads gives a different plan (the one make_plan() makes); the same
// fields give the kept one.
TEST(PlanCache, EveryArgumentIsPartOfTheKey) {
  PlanCache cache;
  Plan base;
  ASSERT_TRUE(cache.get(bilinear(), kSrc, kDst, &base).ok());
  auto differs = [&](const OpDesc& op, const TensorDesc& src, const TensorDesc& dst,
                     const PlanOptions& options, const char* what) {
    Plan p;
    const Status st = cache.get(op, src, dst, &p, options);
    ASSERT_TRUE(st.ok()) << what << ": " << st.message;
    EXPECT_NE(p.impl(), base.impl()) << what;
    Plan direct;
    ASSERT_TRUE(make_plan(op, src, dst, &direct, options).ok()) << what;
    EXPECT_EQ(p.describe(), direct.describe()) << what;
    EXPECT_EQ(p.workspace_bytes(), direct.workspace_bytes()) << what;
    if (src.dtype == DType::kFloat32 && op.direction == Direction::kForward) {
      EXPECT_TRUE(bitwise_equal(run_plan(direct, src, dst, 2), run_plan(p, src, dst, 2))) << what;
    }
  };
  OpDesc op = bilinear();
  op.align_corners = true;
  differs(op, kSrc, kDst, {}, "align_corners");
  op = bilinear();
  op.antialias = true;
  differs(op, kSrc, kDst, {}, "antialias");
  op = bilinear();
  op.mode = Mode::kCubic;
  differs(op, kSrc, kDst, {}, "mode");
  op = bilinear();
  op.scales = {1.75, 0.5, 0.0};
  differs(op, kSrc, kDst, {}, "scales");
  op = bilinear();
  op.direction = Direction::kBackward;
  differs(op, kSrc, kDst, {}, "direction");
  op = bilinear();
  op.spatial_rank = 1;
  differs(op, TensorDesc::contiguous(DType::kFloat32, {2, 3, 7}),
          TensorDesc::contiguous(DType::kFloat32, {2, 3, 5}), {}, "spatial_rank");
  differs(bilinear(), TensorDesc::contiguous(DType::kBFloat16, {2, 3, 7, 9}),
          TensorDesc::contiguous(DType::kBFloat16, {2, 3, 12, 5}), {}, "dtype");
  differs(bilinear(), TensorDesc::channels_last(DType::kFloat32, {2, 3, 7, 9}), kDst, {},
          "src strides");
  differs(bilinear(), kSrc, TensorDesc::channels_last(DType::kFloat32, {2, 3, 12, 5}), {},
          "dst strides");
  differs(bilinear(), TensorDesc::contiguous(DType::kFloat32, {2, 3, 8, 9}), kDst, {}, "src sizes");
  differs(bilinear(), kSrc, TensorDesc::contiguous(DType::kFloat32, {2, 3, 12, 6}), {},
          "dst sizes");
  {
    const TensorDesc src = TensorDesc::channels_last(DType::kFloat32, {2, 3, 7, 9});
    const TensorDesc dst = TensorDesc::channels_last(DType::kFloat32, {2, 3, 12, 5});
    Plan plain;
    ASSERT_TRUE(cache.get(bilinear(), src, dst, &plain).ok());
    op = bilinear();
    op.premultiplied_alpha = true;
    Plan alpha;
    ASSERT_TRUE(cache.get(op, src, dst, &alpha).ok());
    EXPECT_NE(alpha.impl(), plain.impl()) << "premultiplied_alpha";
    Plan direct;
    ASSERT_TRUE(make_plan(op, src, dst, &direct).ok());
    EXPECT_EQ(alpha.describe(), direct.describe());
  }
  PlanOptions streamed;
  streamed.table_budget = 1;
  differs(bilinear(), kSrc, kDst, streamed, "table_budget");
  PlanOptions limited;
  limited.max_bytes = size_t{1} << 30;
  differs(bilinear(), kSrc, kDst, limited, "max_bytes");
  {
    cpu::set_kernel_policy_for_testing(cpu::KernelPolicy::kScalarOnly);
    differs(bilinear(), kSrc, kDst, {}, "kernel policy");
    cpu::set_kernel_policy_for_testing(cpu::KernelPolicy::kBest);
  }
  Plan again;
  ASSERT_TRUE(cache.get(bilinear(), kSrc, kDst, &again).ok());
  EXPECT_EQ(again.impl(), base.impl());
}

// The default thread count sizes a plan's scratch slots (its workspace): a plan kept under one
// UPSAMPLE_NUM_THREADS is not returned under another.
TEST(PlanCache, TheDefaultThreadCountIsPartOfTheKey) {
  PlanCache cache;
  std::string described[2];
  size_t workspace[2] = {0, 0};
  const char* counts[2] = {"1", "3"};
  for (int i = 0; i < 2; ++i) {
    ScopedEnv threads("UPSAMPLE_NUM_THREADS", counts[i]);
    Plan direct;
    ASSERT_TRUE(make_plan(bilinear(), kSrc, kDst, &direct).ok());
    described[i] = direct.describe();
    workspace[i] = direct.workspace_bytes();
    Plan cached;
    ASSERT_TRUE(cache.get(bilinear(), kSrc, kDst, &cached).ok());
    EXPECT_EQ(cached.describe(), direct.describe()) << counts[i];
    EXPECT_EQ(cached.workspace_bytes(), direct.workspace_bytes()) << counts[i];
  }
  // (the premise: the count changes this plan)
  EXPECT_NE(workspace[0], workspace[1]) << described[0] << "\n" << described[1];
  EXPECT_EQ(cache.stats().size, 2);
}

// The limit UPSAMPLE_MAX_BYTES sets is read on every call: a plan kept under a larger limit is
// not returned under a smaller one, which refuses it as make_plan() does.
TEST(PlanCache, ALimitSetAfterwardsStillRefusesTheKeptPlan) {
  PlanCache cache;
  Plan p;
  ASSERT_TRUE(cache.get(bilinear(), kSrc, kDst, &p).ok());
  Status st, direct_st;
  Plan refused;
  {
    ScopedEnv limit("UPSAMPLE_MAX_BYTES", "16");
    st = cache.get(bilinear(), kSrc, kDst, &refused);
    Plan direct;
    direct_st = make_plan(bilinear(), kSrc, kDst, &direct);
  }
  EXPECT_EQ(st.code, StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message, direct_st.message);
  EXPECT_NE(st.message.find("UPSAMPLE_MAX_BYTES"), std::string::npos) << st.message;
  EXPECT_FALSE(refused.valid());
  EXPECT_EQ(cache.stats().size, 1);
}

TEST(PlanCache, FailuresAreReturnedAndNeverKept) {
  PlanCache cache;
  TensorDesc bad_dst = kDst;
  bad_dst.sizes[1] = 4;  // C differs from src
  for (int i = 0; i < 2; ++i) {
    Plan p;
    const Status st = cache.get(bilinear(), kSrc, bad_dst, &p);
    Plan direct;
    const Status direct_st = make_plan(bilinear(), kSrc, bad_dst, &direct);
    EXPECT_EQ(st.code, StatusCode::kInvalidArgument);
    EXPECT_EQ(st.message, direct_st.message);
    EXPECT_FALSE(p.valid());
  }
  const PlanCache::Stats s = cache.stats();
  EXPECT_EQ(s.size, 0);
  EXPECT_EQ(s.misses, 2);
  EXPECT_EQ(s.hits, 0);
  EXPECT_EQ(cache.get(bilinear(), kSrc, kDst, nullptr).code, StatusCode::kNullPointer);
}

TEST(PlanCache, TheLeastRecentlyUsedPlanGoesBeyondTheCapacity) {
  PlanCache cache(2);
  auto dst_of_width = [](int64_t w) {
    return TensorDesc::contiguous(DType::kFloat32, {2, 3, 12, w});
  };
  Plan a, b, c;
  ASSERT_TRUE(cache.get(bilinear(), kSrc, dst_of_width(5), &a).ok());
  ASSERT_TRUE(cache.get(bilinear(), kSrc, dst_of_width(6), &b).ok());
  Plan a_again;
  ASSERT_TRUE(cache.get(bilinear(), kSrc, dst_of_width(5), &a_again).ok());  // a is now recent
  EXPECT_EQ(a_again.impl(), a.impl());
  ASSERT_TRUE(cache.get(bilinear(), kSrc, dst_of_width(7), &c).ok());  // drops b
  EXPECT_EQ(cache.stats().size, 2);
  Plan probe;
  ASSERT_TRUE(cache.get(bilinear(), kSrc, dst_of_width(5), &probe).ok());
  EXPECT_EQ(probe.impl(), a.impl());
  ASSERT_TRUE(cache.get(bilinear(), kSrc, dst_of_width(6), &probe).ok());
  EXPECT_NE(probe.impl(), b.impl());  // made again
  // b lives on in its holder: still a whole plan.
  EXPECT_TRUE(bitwise_equal(run_plan(probe, kSrc, dst_of_width(6), 2),
                            run_plan(b, kSrc, dst_of_width(6), 2)));
}

TEST(PlanCache, HeldBytesStayWithinTheBound) {
  Plan probe;
  ASSERT_TRUE(make_plan(bilinear(), kSrc, kDst, &probe).ok());
  const size_t one = probe.held_bytes();
  ASSERT_GT(one, 0u);
  {
    PlanCache too_small(8, one - 1);  // no plan fits: each is returned, none kept
    Plan p;
    ASSERT_TRUE(too_small.get(bilinear(), kSrc, kDst, &p).ok());
    EXPECT_TRUE(p.valid());
    EXPECT_EQ(too_small.stats().size, 0);
    EXPECT_EQ(too_small.stats().held_bytes, 0u);
  }
  PlanCache bounded(8, 3 * one);
  std::vector<size_t> made;  // held bytes of each plan, in the order asked
  for (int64_t w = 5; w < 12; ++w) {
    Plan p;
    ASSERT_TRUE(
        bounded.get(bilinear(), kSrc, TensorDesc::contiguous(DType::kFloat32, {2, 3, 12, w}), &p)
            .ok());
    made.push_back(p.held_bytes());
    const PlanCache::Stats s = bounded.stats();
    EXPECT_LE(s.held_bytes, s.max_held_bytes) << w;
    EXPECT_GE(s.size, 1) << w;
    // The most recent plans are the ones kept, and their bytes are the count.
    size_t expected = 0;
    for (int64_t i = 0; i < s.size; ++i) expected += made[made.size() - 1 - i];
    EXPECT_EQ(s.held_bytes, expected) << w;
  }
  const PlanCache::Stats full = bounded.stats();
  EXPECT_LT(full.size, 7);  // the byte bound, not the count, dropped plans
  PlanCache off(0);
  Plan p;
  ASSERT_TRUE(off.get(bilinear(), kSrc, kDst, &p).ok());
  EXPECT_TRUE(p.valid());
  EXPECT_EQ(off.stats().size, 0);
  bounded.clear();
  const PlanCache::Stats cleared = bounded.stats();
  EXPECT_EQ(cleared.size, 0);
  EXPECT_EQ(cleared.held_bytes, 0u);
  EXPECT_EQ(cleared.hits, full.hits);  // the counters stay
  EXPECT_EQ(cleared.misses, full.misses);
}

// Threads asking for the same and for different plans at once (TSan runs this too): every
// thread gets a plan that gives make_plan()'s bits.
TEST(PlanCache, ThreadsShareOneCache) {
  PlanCache cache(3);
  std::vector<std::vector<float>> expected;
  for (int64_t w = 4; w < 8; ++w) {
    const TensorDesc dst = TensorDesc::contiguous(DType::kFloat32, {2, 3, 12, w});
    Plan p;
    ASSERT_TRUE(make_plan(bilinear(), kSrc, dst, &p).ok());
    expected.push_back(run_plan(p, kSrc, dst, 1));
  }
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 40; ++i) {
        const int64_t w = 4 + (t + i) % 4;
        const TensorDesc dst = TensorDesc::contiguous(DType::kFloat32, {2, 3, 12, w});
        Plan p;
        if (!cache.get(bilinear(), kSrc, dst, &p).ok() ||
            !bitwise_equal(expected[w - 4], run_plan(p, kSrc, dst, 1))) {
          ++mismatches[t];
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(mismatches[t], 0) << t;
  const PlanCache::Stats s = cache.stats();
  EXPECT_EQ(s.hits + s.misses, 160);
  EXPECT_LE(s.size, 3);
}

// A child forked while another thread uses the cache (and may hold its lock) can still use it.
// The child gives itself 10 s (alarm): a lock inherited held would hang it, and the hang is
// reported as a failure rather than as a test timeout.
TEST(PlanCache, AForkedChildCanPlan) {
  PlanCache cache;
  Plan p;
  ASSERT_TRUE(cache.get(bilinear(), kSrc, kDst, &p).ok());
  std::atomic<bool> stop{false};
  std::thread busy([&] {
    int64_t w = 5;
    while (!stop.load()) {
      Plan q;
      (void)cache.get(bilinear(), kSrc, TensorDesc::contiguous(DType::kFloat32, {2, 3, 12, w}), &q);
      w = w == 9 ? 5 : w + 1;
    }
  });
  struct Join {  // stops and joins `busy` however the test leaves
    std::atomic<bool>& stop;
    std::thread& thread;
    ~Join() {
      stop.store(true);
      thread.join();
    }
  } join{stop, busy};
  for (int i = 0; i < 5; ++i) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      alarm(10);
      Plan q;
      const bool ok = cache.get(bilinear(), kSrc, kDst, &q).ok() && q.impl() == p.impl();
      _exit(ok ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << i << (WIFSIGNALED(status) ? ": the child was killed (a lock held across fork?)" : "");
  }
}

// Through the C API: phase one plans through the process-wide cache, yet data pointers are
// checked on every call (a kept plan never lets an overlapping output through), and each
// executor runs on its own tensors.
TEST(AclnnPlanCache, RepeatedCallsCheckTheirOwnPointers) {
  testing::NchwCall a({1, 2, 4, 6}, {1, 2, 8, 12});
  testing::NchwCall b({1, 2, 4, 6}, {1, 2, 8, 12});
  for (size_t i = 0; i < b.src.size(); ++i) b.src[i] = static_cast<float>(i % 6);
  for (testing::NchwCall* call : {&a, &b, &a}) {
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    ASSERT_EQ(aclnnUpsampleBilinear2dGetWorkspaceSize(call->self, call->output_size, false, 0, 0,
                                                      call->out, &ws, &ex),
              ACLNN_SUCCESS);
    std::vector<unsigned char> workspace(ws);
    ASSERT_EQ(aclnnUpsampleBilinear2d(workspace.data(), ws, ex, nullptr), ACLNN_SUCCESS);
  }
  for (float v : a.dst) EXPECT_EQ(v, 1.0f);  // ones in, ones out
  // The horizontal ramp 0..5 upsampled 2x (half-pixel centres, clamped at the edges).
  const float row[12] = {0.0f,  0.25f, 0.75f, 1.25f, 1.75f, 2.25f,
                         2.75f, 3.25f, 3.75f, 4.25f, 4.75f, 5.0f};
  for (size_t i = 0; i < b.dst.size(); ++i) EXPECT_EQ(b.dst[i], row[i % 12]) << i;

  // The same descriptors, the output now over the input's own memory: refused, as on the first
  // call.
  const int64_t dims[4] = {1, 2, 8, 12};
  std::vector<float> shared(1 * 2 * 8 * 12, 0.0f);
  const int64_t in_dims[4] = {1, 2, 4, 6};
  aclTensor* self =
      aclCreateTensor(in_dims, 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCHW, dims, 4, shared.data());
  aclTensor* out =
      aclCreateTensor(dims, 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCHW, dims, 4, shared.data());
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  EXPECT_EQ(
      aclnnUpsampleBilinear2dGetWorkspaceSize(self, a.output_size, false, 0, 0, out, &ws, &ex),
      ACLNN_ERR_PARAM_INVALID);
  const char* text = aclGetRecentErrMsg();
  EXPECT_NE(std::string(text == nullptr ? "" : text).find("overlaps"), std::string::npos);
  aclDestroyTensor(self);
  aclDestroyTensor(out);
}

}  // namespace
}  // namespace upsample
