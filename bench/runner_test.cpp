// Tests of the benchmark runner (bench/workloads.hpp, bench/floor.hpp): the floor kernel against
// a scalar model of its definition, the random data, the workload table, and single runs of a
// native and of the aclnn call-cost workloads. No timing is asserted beyond "positive".
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <set>
#include <vector>

#include "core/dtype.hpp"
#include "floor.hpp"
#include "workloads.hpp"

namespace upsample::bench {
namespace {

struct Aligned {
  explicit Aligned(size_t n)
      : bytes(n), ptr(static_cast<uint8_t*>(::operator new(n + 64, std::align_val_t(64)))) {}
  ~Aligned() { ::operator delete(ptr, std::align_val_t(64)); }
  Aligned(const Aligned&) = delete;
  Aligned& operator=(const Aligned&) = delete;
  size_t bytes;
  uint8_t* ptr;
};

// The floor's output by its definition in floor.hpp, one byte at a time.
std::vector<uint8_t> model_floor(const uint8_t* in, size_t in_bytes, size_t out_bytes, int n,
                                 size_t lanes) {
  std::vector<uint8_t> out(out_bytes);
  const size_t no = out_bytes / lanes, ni = no > 0 ? in_bytes / lanes : 0;
  const size_t active = ni > 0 && no > 0 ? std::min({static_cast<size_t>(n), ni, no}) : 1;
  for (size_t t = 0; t < active; ++t) {
    const size_t i0 = ni * t / active, i1 = ni * (t + 1) / active;
    const size_t o0 = no * t / active, o1 = no * (t + 1) / active;
    const size_t sni = i1 - i0, sno = o1 - o0;
    if (sni == 0) continue;  // zero vectors: out is value-initialised
    // Output vector k of the share takes input vectors [first(k), first(k + 1)) (downsampling,
    // XOR) or input vector j with first(j) <= k < first(j + 1) (upsampling).
    if (sno >= sni) {
      size_t k = 0;
      for (size_t j = 0; j < sni; ++j) {
        const size_t count = (j + 1) * sno / sni - j * sno / sni;
        for (size_t m = 0; m < count; ++m, ++k) {
          std::memcpy(&out[(o0 + k) * lanes], in + (i0 + j) * lanes, lanes);
        }
      }
    } else {
      size_t j = 0;
      for (size_t k = 0; k < sno; ++k) {
        const size_t count = (k + 1) * sni / sno - k * sni / sno;
        for (size_t m = 0; m < count; ++m, ++j) {
          for (size_t b = 0; b < lanes; ++b) out[(o0 + k) * lanes + b] ^= in[(i0 + j) * lanes + b];
        }
      }
    }
  }
  uint8_t x = 0;
  for (size_t b = ni * lanes; b < in_bytes; ++b) x ^= in[b];
  if (no * lanes < out_bytes) {
    for (size_t b = no * lanes; b < out_bytes; ++b)
      out[b] = x ^ static_cast<uint8_t>(b - no * lanes);
  } else if (out_bytes > 0) {
    out[out_bytes - 1] ^= x;
  }
  return out;
}

struct FloorCase {
  size_t in_vecs, in_tail, out_vecs, out_tail;
};

TEST(Floor, MatchesItsDefinitionForEveryThreadCountAndStoreKind) {
  const size_t lanes = floor_vector_bytes();
  ASSERT_GE(lanes, 16u);
  ASSERT_NE(std::string(floor_target()), "");
  const std::vector<FloorCase> cases = {{64, 0, 256, 0}, {256, 0, 64, 0}, {37, 0, 101, 0},
                                        {101, 0, 37, 0}, {5, 3, 5, 7},    {0, 9, 3, 0},
                                        {3, 0, 0, 11},   {1, 0, 1, 0},    {48, 17, 192, 1},
                                        {13, 5, 2, 0},   {7, 0, 1000, 0}, {1000, 0, 7, 0}};
  for (const FloorCase& c : cases) {
    const size_t in_bytes = c.in_vecs * lanes + c.in_tail;
    const size_t out_bytes = c.out_vecs * lanes + c.out_tail;
    Aligned in(in_bytes), out(out_bytes);
    for (size_t b = 0; b < in_bytes; ++b) in.ptr[b] = static_cast<uint8_t>(b * 131 + 7);
    for (int threads : {1, 2, 3, 8}) {
      const std::vector<uint8_t> want = model_floor(in.ptr, in_bytes, out_bytes, threads, lanes);
      for (FloorStores stores : {FloorStores::kNormal, FloorStores::kStreaming}) {
        std::memset(out.ptr, 0xCD, out_bytes);
        Pool pool(threads);
        run_floor(in.ptr, in_bytes, out.ptr, out_bytes, pool, stores);
        EXPECT_EQ(0, std::memcmp(want.data(), out.ptr, out_bytes))
            << "in " << in_bytes << " out " << out_bytes << " bytes, " << threads
            << " threads, streaming " << (stores == FloorStores::kStreaming);
      }
    }
  }
}

TEST(Floor, EveryInputByteReachesTheOutput) {
  const size_t lanes = floor_vector_bytes();
  for (const FloorCase& c : std::vector<FloorCase>{{40, 3, 160, 0}, {160, 0, 40, 5}}) {
    const size_t in_bytes = c.in_vecs * lanes + c.in_tail;
    const size_t out_bytes = c.out_vecs * lanes + c.out_tail;
    Aligned in(in_bytes), out(out_bytes);
    std::memset(in.ptr, 0x5A, in_bytes);
    Pool pool(2);
    run_floor(in.ptr, in_bytes, out.ptr, out_bytes, pool, FloorStores::kNormal);
    const std::vector<uint8_t> base(out.ptr, out.ptr + out_bytes);
    for (size_t b = 0; b < in_bytes; b += 7) {
      in.ptr[b] ^= 0x01;
      run_floor(in.ptr, in_bytes, out.ptr, out_bytes, pool, FloorStores::kNormal);
      EXPECT_NE(0, std::memcmp(base.data(), out.ptr, out_bytes)) << "input byte " << b;
      in.ptr[b] ^= 0x01;
    }
  }
}

TEST(Data, RandomValuesGoThroughTheLibraryCodec) {
  const int64_t n = 100000;
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kFloat64}) {
    std::vector<uint8_t> buf(n * dtype_size(dtype));
    fill_random(buf.data(), n, dtype, 7u);
    std::set<double> distinct;
    double lo = 2, hi = -2;
    for (int64_t i = 0; i < n; ++i) {
      const double v = load_element(dtype, buf.data() + i * dtype_size(dtype));
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      distinct.insert(v);
    }
    EXPECT_GE(lo, -1.0) << dtype_name(dtype);
    EXPECT_LE(hi, 1.0) << dtype_name(dtype);
    EXPECT_LT(lo, -0.99) << dtype_name(dtype);
    EXPECT_GT(hi, 0.99) << dtype_name(dtype);
    EXPECT_GT(distinct.size(), 1000u) << dtype_name(dtype);
  }
  // float16 keeps the subnormals it is given: the codec's rounding, not a flush to zero.
  std::vector<uint16_t> half(1 << 20);
  fill_random(half.data(), static_cast<int64_t>(half.size()), DType::kFloat16, 11u);
  const auto subnormal = [](uint16_t h) { return (h & 0x7c00u) == 0 && (h & 0x3ffu) != 0; };
  const bool flushed = std::none_of(half.begin(), half.end(), subnormal);
  // P(|x| < 2^-14) = 2^-14 per draw: about 64 subnormal draws in 2^20.
  EXPECT_FALSE(flushed);
  for (DType dtype : {DType::kUInt8, DType::kUInt16}) {
    std::vector<uint8_t> buf(n * dtype_size(dtype));
    fill_random(buf.data(), n, dtype, 3u);
    double lo = 1e9, hi = -1;
    for (int64_t i = 0; i < n; ++i) {
      const double v = load_element(dtype, buf.data() + i * dtype_size(dtype));
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    EXPECT_EQ(lo, 0.0);
    EXPECT_EQ(hi, dtype == DType::kUInt8 ? 255.0 : 65535.0);
  }
}

TEST(Workloads, TableNamesAndShapes) {
  std::set<std::string> names;
  for (const Workload& w : standard_workloads()) {
    EXPECT_TRUE(names.insert(w.name).second) << w.name;
    EXPECT_EQ(w.in.size(), w.out.size()) << w.name;
    EXPECT_EQ(w.in[0], w.out[0]) << w.name;
    EXPECT_EQ(w.in[1], w.out[1]) << w.name;
    if (w.call != CallKind::kNative) {
      EXPECT_EQ(w.mode, Mode::kLinear) << w.name;
      EXPECT_EQ(w.dir, Direction::kForward) << w.name;
      EXPECT_EQ(w.in.size(), 4u) << w.name;
    }
  }
  for (int i = 1; i <= 19; ++i)
    EXPECT_EQ(names.count(std::string("W").append(std::to_string(i))), 1u) << i;
  for (int i = 1; i <= 4; ++i)
    EXPECT_EQ(names.count(std::string("C").append(std::to_string(i))), 1u) << i;
  ASSERT_NE(find_workload("w5E"), nullptr);
  EXPECT_EQ(find_workload("w5E")->mode, Mode::kNearestExact);
  EXPECT_EQ(find_workload("W99"), nullptr);
  EXPECT_EQ(find_workload("C1")->call, CallKind::kCannCall);
  EXPECT_EQ(find_workload("C3")->in, (std::vector<int64_t>{1, 3, 32, 32}));
  EXPECT_EQ(find_workload("C4")->out, (std::vector<int64_t>{1, 16, 16, 16}));
  EXPECT_EQ(find_workload("C2")->in, find_workload("W1")->in);

  std::vector<int64_t> in, out;
  EXPECT_EQ(parse_shape("2x3x10:7", &in, &out), "");
  EXPECT_EQ(in, (std::vector<int64_t>{2, 3, 10}));
  EXPECT_EQ(out, (std::vector<int64_t>{2, 3, 7}));
  EXPECT_NE(parse_shape("1x3x8x8", &in, &out).find("no ':'"), std::string::npos);
  EXPECT_NE(parse_shape("1x3x8x8:4", &in, &out).find("spatial"), std::string::npos);
  EXPECT_NE(parse_shape("1x0x8x8:4x4", &in, &out).find("positive"), std::string::npos);
}

TEST(Timing, MedianAndMin) {
  const Timing odd = timing_of({3.0, 1.0, 2.0});
  EXPECT_EQ(odd.median, 2.0);
  EXPECT_EQ(odd.min, 1.0);
  const Timing even = timing_of({4.0, 1.0, 3.0, 2.0});
  EXPECT_EQ(even.median, 2.5);
  EXPECT_EQ(even.min, 1.0);
}

void expect_measured(const Result& r, int reps) {
  ASSERT_TRUE(r.ok()) << r.name << ": " << r.error;
  EXPECT_EQ(r.reps, reps);
  EXPECT_GT(r.ms_median, 0.0);
  EXPECT_GE(r.ms_median, r.ms_min);
  EXPECT_GT(r.floor_normal.median, 0.0);
  EXPECT_GT(r.floor_streaming.median, 0.0);
  EXPECT_EQ(r.floor_ms, std::min(r.floor_normal.median, r.floor_streaming.median));
  EXPECT_EQ(r.floor_streaming_wins, r.floor_streaming.median < r.floor_normal.median);
  EXPECT_EQ(r.bytes, r.src_bytes + r.dst_bytes);
  EXPECT_NE(r.describe.find("simd"), std::string::npos) << r.describe;
}

TEST(Runner, NativeCustomShape) {
  Workload w;
  w.name = "S1";
  w.what = "bicubic2d bwd";
  w.mode = Mode::kCubic;
  w.dir = Direction::kBackward;
  w.in = {1, 2, 9, 7};
  w.out = {1, 2, 20, 13};
  RunOptions opt;
  opt.reps = 3;
  Pool pool(opt.threads);
  const Result r = run_workload(w, opt, pool);
  expect_measured(r, 3);
  EXPECT_EQ(r.src_bytes, 2 * 20 * 13 * 4);
  EXPECT_EQ(r.dst_bytes, 2 * 9 * 7 * 4);
  EXPECT_EQ(r.shape, "1x2x9x7->20x13");
}

TEST(Runner, AclnnCallWorkloads) {
  const char* env = std::getenv("UPSAMPLE_NUM_THREADS");
  const std::string before = env ? env : "(unset)";
  RunOptions opt;
  opt.reps = 3;
  Pool pool(opt.threads);
  for (const char* name : {"C1", "C2", "C3", "C4"}) {
    const Workload& w = *find_workload(name);
    const Result r = run_workload(w, opt, pool);
    expect_measured(r, 3);
    EXPECT_EQ(r.src_bytes, w.in[0] * w.in[1] * w.in[2] * w.in[3] * 4) << name;
  }
  // The runner restores the thread variable it sets for the aclnn layer.
  env = std::getenv("UPSAMPLE_NUM_THREADS");
  EXPECT_EQ(env ? env : "(unset)", before);
}

TEST(Runner, AclnnCallRefusesOtherOperators) {
  Workload w = *find_workload("C3");
  w.mode = Mode::kCubic;
  RunOptions opt;
  opt.reps = 2;
  Pool pool(1);
  const Result r = run_workload(w, opt, pool);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("bilinear2d fwd float32 NCHW only"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace upsample::bench
