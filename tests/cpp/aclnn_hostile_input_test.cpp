// Hostile input through the C API only: views whose addresses cannot be formed or leave their
// storage (on the input and on the output tensor), executors launched on a destroyed stream,
// and executors made repeatable while other threads launch them (the Concurrency tests, which
// `./dev sanitize` also runs under ThreadSanitizer).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa.h"
#include "aclnnop/aclnn_upsample_bilinear2d_aa.h"
#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "aclnnop/aclnn_upsample_nearest_2d.h"
#include "aclnnop/aclnn_upsample_nearest_2d_backward.h"
#include "cpp/nchw_call.hpp"

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

std::string take_error_text() {
  const char* text = aclGetRecentErrMsg();
  return text == nullptr ? std::string() : std::string(text);
}

// A float32 NCHW view (strides and offset in elements) over `data`.
struct View {
  std::vector<int64_t> dims, strides;
  int64_t offset = 0;
  std::vector<int64_t> storage;
};

View contiguous(std::vector<int64_t> dims) {
  View v;
  v.dims = dims;
  v.strides.assign(dims.size(), 1);
  int64_t n = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    v.strides[d] = n;
    n *= dims[d];
  }
  v.storage = {n};
  return v;
}

aclTensor* make_tensor(const View& v, void* data) {
  return aclCreateTensor(v.dims.data(), v.dims.size(), ACL_FLOAT, v.strides.data(), v.offset,
                         ACL_FORMAT_NCHW, v.storage.data(), v.storage.size(), data);
}

// A view an attacker builds from a valid one.
struct HostileView {
  const char* what;
  View (*make)(View);
};

const HostileView kHostileViews[] = {
    {"stride INT64_MAX / 2",
     [](View v) {
       v.strides[3] = kMax / 2;
       return v;
     }},
    {"(size - 1) * stride wraps around int64",
     [](View v) {
       v.strides[3] = kMax / (v.dims[3] - 1) + 1;
       return v;
     }},
    {"offset near INT64_MAX",
     [](View v) {
       v.offset = kMax - 2;
       return v;
     }},
    {"negative stride from offset 0",
     [](View v) {
       v.strides[3] = -1;
       return v;
     }},
    {"offset -1",
     [](View v) {
       v.offset = -1;
       return v;
     }},
    {"stride INT64_MIN",
     [](View v) {
       v.strides[2] = kMin;
       return v;
     }},
    {"storage * element size overflows int64",
     [](View v) {
       v.storage = {kMax / 2};
       return v;
     }},
    {"storage dims multiply past int64",
     [](View v) {
       v.storage = {int64_t{1} << 32, int64_t{1} << 32};
       return v;
     }},
    {"no storage dims",
     [](View v) {
       v.storage = {};
       return v;
     }},
};

// Phase one of Bilinear2d (1x1x4x4 -> 1x1x8x8) with the given views; the error text in `*text`.
aclnnStatus bilinear_phase_one(const View& in, const View& out, std::string* text) {
  std::vector<float> src(16, 1.0f), dst(64, 0.0f);
  aclTensor* self = make_tensor(in, src.data());
  aclTensor* result = make_tensor(out, dst.data());
  const int64_t size[2] = {8, 8};
  aclIntArray* output_size = aclCreateIntArray(size, 2);
  uint64_t ws = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus st = aclnnUpsampleBilinear2dGetWorkspaceSize(self, output_size, false, 0.0, 0.0,
                                                                 result, &ws, &executor);
  *text = take_error_text();
  if (st == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
  aclDestroyTensor(self);
  aclDestroyTensor(result);
  aclDestroyIntArray(output_size);
  return st;
}

TEST(AclnnHostileViews, ValidViewsAreAccepted) {
  std::string text;
  EXPECT_EQ(bilinear_phase_one(contiguous({1, 1, 4, 4}), contiguous({1, 1, 8, 8}), &text),
            ACLNN_SUCCESS)
      << text;
}

TEST(AclnnHostileViews, EachIsRefusedOnTheInputWithAMessageNamingIt) {
  for (const HostileView& h : kHostileViews) {
    std::string text;
    EXPECT_EQ(bilinear_phase_one(h.make(contiguous({1, 1, 4, 4})), contiguous({1, 1, 8, 8}), &text),
              ACLNN_ERR_PARAM_INVALID)
        << h.what;
    EXPECT_NE(text.find("aclnnUpsampleBilinear2d: self view"), std::string::npos)
        << h.what << ": " << text;
  }
}

TEST(AclnnHostileViews, EachIsRefusedOnTheOutputWithAMessageNamingIt) {
  for (const HostileView& h : kHostileViews) {
    std::string text;
    EXPECT_EQ(bilinear_phase_one(contiguous({1, 1, 4, 4}), h.make(contiguous({1, 1, 8, 8})), &text),
              ACLNN_ERR_PARAM_INVALID)
        << h.what;
    EXPECT_NE(text.find("aclnnUpsampleBilinear2d: out view"), std::string::npos)
        << h.what << ": " << text;
  }
}

TEST(AclnnHostileViews, BackwardTensorsAreNamedByTheirParameterNames) {
  std::vector<float> grad_out(64, 1.0f), grad_in(16, 0.0f);
  const int64_t out_size[2] = {8, 8}, in_size[4] = {1, 1, 4, 4};
  aclIntArray* output_size = aclCreateIntArray(out_size, 2);
  aclIntArray* input_size = aclCreateIntArray(in_size, 4);
  for (int hostile = 0; hostile < 2; ++hostile) {
    View g = contiguous({1, 1, 8, 8}), r = contiguous({1, 1, 4, 4});
    (hostile == 0 ? g : r).offset = kMax - 2;
    aclTensor* g_t = make_tensor(g, grad_out.data());
    aclTensor* r_t = make_tensor(r, grad_in.data());
    uint64_t ws = 0;
    aclOpExecutor* executor = nullptr;
    EXPECT_EQ(aclnnUpsampleNearest2dBackwardGetWorkspaceSize(g_t, output_size, input_size, 0.0, 0.0,
                                                             r_t, &ws, &executor),
              ACLNN_ERR_PARAM_INVALID);
    const std::string text = take_error_text();
    EXPECT_NE(text.find(hostile == 0 ? "gradOut view" : "gradInput view"), std::string::npos)
        << text;
    EXPECT_NE(text.find("overflow"), std::string::npos) << text;
    aclDestroyTensor(g_t);
    aclDestroyTensor(r_t);
  }
  aclDestroyIntArray(output_size);
  aclDestroyIntArray(input_size);
}

// The byte count that overflows is named as such, not as elements outside the storage.
TEST(AclnnHostileViews, AStorageWhoseByteCountOverflowsIsReportedAsSuch) {
  View in = contiguous({1, 1, 4, 4});
  in.storage = {kMax / 2};
  std::string text;
  ASSERT_EQ(bilinear_phase_one(in, contiguous({1, 1, 8, 8}), &text), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(text.find("its storage of " + std::to_string(kMax / 2) +
                      " elements of 4 bytes exceeds the int64 range of byte counts"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("outside"), std::string::npos) << text;
}

// Phase one of an antialias forward from a claimed float64 1x1xin_hx1 view whose strides are all
// zero (every element is element 0 of a one-element storage) to 1x1x2x1, with the given scale of
// H. Returns the status; the error text in `*text`.
aclnnStatus antialias_phase_one(bool bicubic, int64_t in_h, double scale_h, std::string* text) {
  double src = 0.0;
  std::vector<double> dst(2, -1.0);
  const int64_t in_dims[4] = {1, 1, in_h, 1}, zero[4] = {0, 0, 0, 0}, one = 1;
  const int64_t out_dims[4] = {1, 1, 2, 1}, size[2] = {2, 1}, two = 2;
  aclTensor* self =
      aclCreateTensor(in_dims, 4, ACL_DOUBLE, zero, 0, ACL_FORMAT_NCHW, &one, 1, &src);
  aclTensor* out =
      aclCreateTensor(out_dims, 4, ACL_DOUBLE, nullptr, 0, ACL_FORMAT_NCHW, &two, 1, dst.data());
  aclIntArray* output_size = aclCreateIntArray(size, 2);
  uint64_t ws = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus st = bicubic ? aclnnUpsampleBicubic2dAAGetWorkspaceSize(
                                       self, output_size, false, scale_h, 0.0, out, &ws, &executor)
                                 : aclnnUpsampleBilinear2dAAGetWorkspaceSize(
                                       self, output_size, false, scale_h, 0.0, out, &ws, &executor);
  *text = take_error_text();
  if (st == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
  aclDestroyTensor(self);
  aclDestroyTensor(out);
  aclDestroyIntArray(output_size);
  return st;
}

// fuzz/findings/antialias_support_overflow.md: with the ratio 2^100 (scalesH = 2^-100, the
// smallest scale accepted) the antialias support saturates at 2^62 and the bound of a row's taps
// doubled it past int64 (UBSan in build-asan). Now the bound saturates and phase one plans the
// axis without overflow; it then refuses the call for its workspace (the CPU backend packs the
// broadcast input, 8 bytes per claimed row, more than UPSAMPLE_MAX_BYTES' default), with the
// figures. From the sizes alone the ratio reaches 2^58 at most (a float64 axis of 2^59 rows;
// 2^60 and more hold more bytes than int64 counts, refused with a message that says so).
TEST(AclnnExtremeScales, AntialiasRatiosBeyond2To60ArePlannedWithoutOverflow) {
  for (bool bicubic : {false, true}) {
    std::string text;
    for (int64_t rows : {(int64_t{1} << 32) + 1, int64_t{1} << 59}) {
      const double scale = rows == int64_t{1} << 59 ? 0.0 : 0x1p-100;
      EXPECT_EQ(antialias_phase_one(bicubic, rows, scale, &text), ACLNN_ERR_PARAM_INVALID);
      EXPECT_NE(text.find("the workspace for float64[1,1," + std::to_string(rows) + ",1]"),
                std::string::npos)
          << bicubic << ": " << text;
      EXPECT_NE(text.find("more than the limit of"), std::string::npos) << text;
    }
    EXPECT_EQ(antialias_phase_one(bicubic, int64_t{1} << 62, 0.0, &text), ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(text.find("[1,1,4611686018427387904,1] hold more bytes than int64 can count"),
              std::string::npos)
        << text;
  }
}

// A 2x nearest upscale of a 1x1x2x2 float32 input: the executor and the tensors it reads and
// writes.
class NearestExecutor {
 public:
  NearestExecutor() {
    call_.src = {1.0f, 2.0f, 3.0f, 4.0f};
    clear();
  }
  aclOpExecutor* create() {
    uint64_t ws = 0;
    aclOpExecutor* executor = nullptr;
    EXPECT_EQ(aclnnUpsampleNearest2dGetWorkspaceSize(call_.self, call_.output_size, call_.out, &ws,
                                                     &executor),
              ACLNN_SUCCESS)
        << take_error_text();
    workspace_.resize(ws);
    return executor;
  }
  // Launches with the workspace the executor asked for (shared by every launch of the test,
  // which therefore all go to one stream).
  aclnnStatus launch(aclOpExecutor* executor, aclrtStream stream) {
    return aclnnUpsampleNearest2d(workspace_.data(), workspace_.size(), executor, stream);
  }
  // Every output element is the input element it was copied from.
  void expect_result() const {
    for (int y = 0; y < 4; ++y) {
      for (int x = 0; x < 4; ++x) {
        EXPECT_EQ(call_.dst[y * 4 + x], call_.src[(y / 2) * 2 + x / 2]) << y << "," << x;
      }
    }
  }
  void clear() { call_.dst.assign(16, -1.0f); }

 private:
  upsample::testing::NchwCall call_{{1, 1, 2, 2}, {1, 1, 4, 4}};
  std::vector<unsigned char> workspace_;
};

TEST(AclnnExecutor, ANonRepeatableExecutorSurvivesALaunchOnADestroyedStream) {
  NearestExecutor op;
  aclOpExecutor* executor = op.create();
  aclrtStream dead = nullptr, live = nullptr;
  ASSERT_EQ(aclrtCreateStream(&dead), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(dead), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&live), ACL_SUCCESS);
  EXPECT_EQ(op.launch(executor, dead), ACLNN_ERR_RUNTIME_ERROR);
  EXPECT_NE(take_error_text().find("the executor is kept"), std::string::npos);
  EXPECT_EQ(op.launch(executor, live), ACLNN_SUCCESS) << take_error_text();
  EXPECT_EQ(aclrtSynchronizeStream(live), ACL_SUCCESS);
  op.expect_result();
  // The successful launch consumed it.
  EXPECT_EQ(op.launch(executor, live), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_ERR_PARAM_INVALID);
  take_error_text();
  EXPECT_EQ(aclrtDestroyStream(live), ACL_SUCCESS);
}

// aclSetAclOpExecutorRepeatable on one thread while others launch the executor on a shared
// stream: an executor is consumed at most once. If it is still registered afterwards, it was
// made repeatable before any launch took it, and every launch ran; otherwise exactly one did.
TEST(Concurrency, SetRepeatableRacingLaunchesConsumesTheExecutorAtMostOnce) {
  constexpr int kRounds = 40, kLaunchers = 3, kLaunchesEach = 2;
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  NearestExecutor op;
  for (int round = 0; round < kRounds; ++round) {
    op.clear();
    aclOpExecutor* executor = op.create();
    std::atomic<bool> go{false};
    std::atomic<int> launched{0};
    std::atomic<bool> made_repeatable{false};
    std::vector<std::thread> threads;
    threads.emplace_back([&] {
      while (!go.load()) std::this_thread::yield();
      made_repeatable.store(aclSetAclOpExecutorRepeatable(executor) == ACLNN_SUCCESS);
      take_error_text();
    });
    for (int t = 0; t < kLaunchers; ++t) {
      threads.emplace_back([&] {
        while (!go.load()) std::this_thread::yield();
        for (int i = 0; i < kLaunchesEach; ++i) {
          const aclnnStatus st = op.launch(executor, stream);
          if (st == ACLNN_SUCCESS) launched.fetch_add(1);
          EXPECT_TRUE(st == ACLNN_SUCCESS || st == ACLNN_ERR_PARAM_INVALID) << st;
          take_error_text();
        }
      });
    }
    go.store(true);
    for (std::thread& t : threads) t.join();
    ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    op.expect_result();
    const bool still_registered = aclDestroyAclOpExecutor(executor) == ACLNN_SUCCESS;
    take_error_text();
    if (still_registered) {
      EXPECT_TRUE(made_repeatable.load());
      EXPECT_EQ(launched.load(), kLaunchers * kLaunchesEach);
    } else {
      EXPECT_EQ(launched.load(), 1);
    }
  }
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

// A repeatable executor launched from several threads at once on one stream: every launch runs.
TEST(Concurrency, ARepeatableExecutorLaunchesFromSeveralThreads) {
  constexpr int kLaunchers = 4, kLaunchesEach = 25;
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  NearestExecutor op;
  aclOpExecutor* executor = op.create();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
  std::atomic<int> launched{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kLaunchers; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kLaunchesEach; ++i) {
        if (op.launch(executor, stream) == ACLNN_SUCCESS) {
          launched.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(launched.load(), kLaunchers * kLaunchesEach);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  op.expect_result();
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

// Threads that each run their own calls (phase one, aclrtMalloc'd workspace, launch on their own
// stream or the null stream, free) at once; the problem is large enough for the engine's
// OpenMP regions, and every result equals the single-threaded one.
TEST(Concurrency, IndependentCallsOnSeveralThreadsGiveTheSameResults) {
  constexpr int kThreads = 3, kCallsEach = 4;
  constexpr int64_t kH = 96, kW = 80, kOH = 150, kOW = 130;
  std::vector<float> src(kH * kW);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>((i * 7919) % 1000) * 0.01f;
  auto run = [&](std::vector<float>* dst, aclrtStream stream) {
    const int64_t in_dims[4] = {1, 1, kH, kW}, out_dims[4] = {1, 1, kOH, kOW};
    const int64_t size[2] = {kOH, kOW};
    aclTensor* self =
        aclCreateTensor(in_dims, 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCHW, in_dims, 4, src.data());
    aclTensor* out = aclCreateTensor(out_dims, 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCHW, out_dims,
                                     4, dst->data());
    aclIntArray* output_size = aclCreateIntArray(size, 2);
    uint64_t ws = 0;
    aclOpExecutor* executor = nullptr;
    aclnnStatus st = aclnnUpsampleBilinear2dGetWorkspaceSize(self, output_size, false, 0.0, 0.0,
                                                             out, &ws, &executor);
    void* workspace = nullptr;
    if (st == ACLNN_SUCCESS && ws > 0 &&
        aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
      st = ACLNN_ERR_INNER;
    }
    if (st == ACLNN_SUCCESS) st = aclnnUpsampleBilinear2d(workspace, ws, executor, stream);
    if (st == ACLNN_SUCCESS && stream != nullptr) st = aclrtSynchronizeStream(stream);
    if (workspace != nullptr) aclrtFree(workspace);
    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyIntArray(output_size);
    return st;
  };
  std::vector<float> expected(kOH * kOW);
  ASSERT_EQ(run(&expected, nullptr), ACLNN_SUCCESS) << take_error_text();
  std::vector<std::vector<float>> results(kThreads * kCallsEach,
                                          std::vector<float>(kOH * kOW, -1.0f));
  std::vector<aclnnStatus> statuses(results.size(), -1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      aclrtStream stream = nullptr;
      if (t > 0 && aclrtCreateStream(&stream) != ACL_SUCCESS) return;
      for (int i = 0; i < kCallsEach; ++i) {
        const size_t k = static_cast<size_t>(t * kCallsEach + i);
        statuses[k] = run(&results[k], stream);
      }
      if (stream != nullptr) aclrtDestroyStream(stream);
    });
  }
  for (std::thread& t : threads) t.join();
  for (size_t k = 0; k < results.size(); ++k) {
    EXPECT_EQ(statuses[k], ACLNN_SUCCESS) << k;
    EXPECT_EQ(results[k], expected) << k;
  }
}

}  // namespace
