// NaN results have one bit pattern: the default quiet NaN of the type, whatever the payloads and
// signs of the NaN inputs, so results are bitwise identical across layouts (kernel shapes) and
// thread counts also where NaNs meet (fuzz/aclnn_fuzz.cpp compares strided results with
// contiguous ones bit for bit). Nearest copies keep every input bit pattern.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine_helpers.hpp"

namespace upsample {
namespace {

using namespace ::upsample::test_support;  // NOLINT

template <typename T, typename Bits>
T with_bits(Bits b) {
  T v;
  std::memcpy(&v, &b, sizeof(v));
  return v;
}

// Whether every step of the plan moves elements (nearest forward, area at integer upsampling
// ratios, kept sizes): its kernels are the copying ones.
bool moves_values(const Problem& p, Direction dir) {
  Problem q = p;
  q.op.direction = dir;
  const bool fwd = dir == Direction::kForward;
  Plan plan;
  EXPECT_TRUE(make_plan(q.op, desc_of(DType::kFloat32, q, fwd ? q.in : q.out, false),
                        desc_of(DType::kFloat32, q, fwd ? q.out : q.in, false), &plan)
                  .ok());
  const std::string text = plan.describe();
  size_t kernels = 0, copies = 0;
  const std::string mark = "\n    kernel ";  // the line naming a step's kernel
  for (size_t at = text.find(mark); at != std::string::npos; at = text.find(mark, at + 1)) {
    ++kernels;
    const size_t from = at + mark.size();
    const std::string name = text.substr(from, text.find_first_of(" \n", from) - from);
    copies += name.find("copy") != std::string::npos ? 1 : 0;
  }
  return kernels == copies;
}

TEST(NanBits, ResultsAreCanonicalInEveryLayoutAndThreadCount) {
  std::mt19937 rng(37);
  int with_nan = 0;
  for (const Problem& p : random_problems(200, 41)) {
    for (Direction dir : {Direction::kForward, Direction::kBackward}) {
      const auto& len = dir == Direction::kForward ? p.in : p.out;
      std::vector<float> xf(numel(p, len));
      std::vector<double> xd(xf.size());
      for (size_t i = 0; i < xf.size(); ++i) {
        xf[i] = static_cast<float>(std::normal_distribution<double>()(rng));
        xd[i] = xf[i];
        if (rng() % 5 == 0) {  // NaNs of assorted payloads and signs
          const uint32_t payload = 1 + static_cast<uint32_t>(rng() % 0x3fffff);
          xf[i] = with_bits<float>((rng() % 2 ? 0xffc00000u : 0x7fc00000u) | payload);
          xd[i] = with_bits<double>((rng() % 2 ? 0xfff8000000000000ull : 0x7ff8000000000000ull) |
                                    (uint64_t{payload} << 20));
        }
      }
      const auto f_ref = run<float>(p, dir, xf, DType::kFloat32, false, 1);
      const auto d_ref = run<double>(p, dir, xd, DType::kFloat64, false, 1);
      EXPECT_TRUE(bitwise_equal(f_ref, run<float>(p, dir, xf, DType::kFloat32, true, 3)))
          << describe(p);
      EXPECT_TRUE(bitwise_equal(d_ref, run<double>(p, dir, xd, DType::kFloat64, true, 2)))
          << describe(p);
      if (moves_values(p, dir)) continue;  // bit-exact copies of the inputs, payloads included
      for (float v : f_ref) {
        if (v != v) {
          ++with_nan;
          const float canonical = std::numeric_limits<float>::quiet_NaN();
          ASSERT_EQ(std::memcmp(&v, &canonical, sizeof(v)), 0)
              << describe(p) << (dir == Direction::kForward ? " forward" : " backward");
        }
      }
      for (double v : d_ref) {
        if (v != v) {
          const double canonical = std::numeric_limits<double>::quiet_NaN();
          ASSERT_EQ(std::memcmp(&v, &canonical, sizeof(v)), 0)
              << describe(p) << (dir == Direction::kForward ? " forward" : " backward");
        }
      }
    }
  }
  EXPECT_GT(with_nan, 1000);
}

}  // namespace
}  // namespace upsample
