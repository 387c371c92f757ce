// Helpers of the engine tests: random problems over every mode, running the native API on
// logical-order data in a chosen layout, and comparisons.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "reference/mode.hpp"
#include "reference/reference.hpp"
#include "upsample/resample.hpp"

namespace upsample::test_support {

struct Problem {
  OpDesc op;
  int64_t n = 1, c = 1;
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1};
};

inline TensorDesc desc_of(DType dtype, const Problem& p, const std::array<int64_t, 3>& spatial,
                          bool channels_last) {
  TensorDesc t;
  t.dtype = dtype;
  t.rank = p.op.spatial_rank + 2;
  t.sizes[0] = p.n;
  t.sizes[1] = p.c;
  for (int a = 0; a < p.op.spatial_rank; ++a) t.sizes[2 + a] = spatial[a];
  // Row-major strides in the physical order (N, C, spatial) or (N, spatial, C).
  std::vector<int> order = {0};
  if (!channels_last) order.push_back(1);
  for (int a = 0; a < p.op.spatial_rank; ++a) order.push_back(2 + a);
  if (channels_last) order.push_back(1);
  int64_t stride = 1;
  for (int i = t.rank - 1; i >= 0; --i) {
    t.strides[order[i]] = stride;
    stride *= t.sizes[order[i]];
  }
  return t;
}

inline int64_t offset_of(const TensorDesc& t, int64_t logical_index) {
  int64_t off = 0;
  for (int d = t.rank - 1; d >= 0; --d) {
    off += (logical_index % t.sizes[d]) * t.strides[d];
    logical_index /= t.sizes[d];
  }
  return off;
}

// Runs the op on logical-order data; returns the result in logical order.
template <typename T>
std::vector<T> run(const Problem& p, Direction dir, const std::vector<T>& src_logical, DType dtype,
                   bool channels_last = false, int threads = 2, const PlanOptions& options = {}) {
  Problem q = p;
  q.op.direction = dir;
  const bool fwd = dir == Direction::kForward;
  const TensorDesc src = desc_of(dtype, q, fwd ? q.in : q.out, channels_last);
  const TensorDesc dst = desc_of(dtype, q, fwd ? q.out : q.in, channels_last);
  Plan plan;
  const Status st = make_plan(q.op, src, dst, &plan, options);
  EXPECT_TRUE(st.ok()) << st.message;
  std::vector<T> src_buf(src.numel()), dst_buf(dst.numel());
  for (int64_t i = 0; i < src.numel(); ++i) src_buf[offset_of(src, i)] = src_logical[i];
  std::vector<unsigned char> ws(plan.workspace_bytes());
  ExecContext ctx;
  ctx.num_threads = threads;
  const Status ex = execute(plan, src_buf.data(), dst_buf.data(), ws.data(), ws.size(), ctx);
  EXPECT_TRUE(ex.ok()) << ex.message;
  std::vector<T> result(dst.numel());
  for (int64_t i = 0; i < dst.numel(); ++i) result[i] = dst_buf[offset_of(dst, i)];
  return result;
}

inline int64_t numel(const Problem& p, const std::array<int64_t, 3>& spatial) {
  int64_t n = p.n * p.c;
  for (int a = 0; a < p.op.spatial_rank; ++a) n *= spatial[a];
  return n;
}

inline reference::Problem to_reference(const Problem& p) {
  reference::Problem r;
  r.mode = reference::reference_mode(p.op.mode);
  r.antialias = p.op.antialias;
  r.align_corners = p.op.align_corners;
  r.n = p.n;
  r.c = p.c;
  r.spatial_rank = p.op.spatial_rank;
  r.in_sizes = p.in;
  r.out_sizes = p.out;
  r.scales = p.op.scales;
  return r;
}

inline std::vector<double> random_vector(int64_t n, std::mt19937* rng) {
  std::normal_distribution<double> dist(0.0, 1.0);
  std::vector<double> v(n);
  for (auto& x : v) x = dist(*rng);
  return v;
}

// Random problems over every mode, ranks 1..3, ratios from 1/20 to 20 (also length 1).
inline std::vector<Problem> random_problems(int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Problem> problems;
  const Mode modes[] = {Mode::kNearest, Mode::kNearestExact, Mode::kLinear, Mode::kCubic,
                        Mode::kArea};
  std::uniform_int_distribution<int> pick(0, 99);
  for (int i = 0; i < count; ++i) {
    Problem p;
    p.op.mode = modes[i % 5];
    const bool interpolating = p.op.mode == Mode::kLinear || p.op.mode == Mode::kCubic;
    p.op.antialias = interpolating && pick(rng) < 40;
    p.op.align_corners = interpolating && pick(rng) < 40;
    p.op.spatial_rank = 1 + i % 3;
    p.n = 1 + pick(rng) % 2;
    p.c = 1 + pick(rng) % 3;
    for (int a = 0; a < p.op.spatial_rank; ++a) {
      const int kind = pick(rng) % 6;
      if (kind == 0) {  // strong downsampling
        p.in[a] = 20 + pick(rng) % 40;
        p.out[a] = 1 + pick(rng) % 3;
      } else if (kind == 1) {  // strong upsampling
        p.in[a] = 1 + pick(rng) % 3;
        p.out[a] = 20 + pick(rng) % 40;
      } else {
        p.in[a] = 1 + pick(rng) % 12;
        p.out[a] = 1 + pick(rng) % 12;
      }
      if (pick(rng) < 25 && p.op.mode != Mode::kArea) {
        p.op.scales[a] = static_cast<double>(p.out[a]) / p.in[a] * 1.1;
      }
    }
    problems.push_back(p);
  }
  return problems;
}

inline std::string describe(const Problem& p) {
  std::ostringstream os;
  os << mode_name(p.op.mode) << (p.op.antialias ? "+aa" : "") << (p.op.align_corners ? " ac" : "")
     << " n" << p.n << "c" << p.c;
  for (int a = 0; a < p.op.spatial_rank; ++a) {
    os << " " << p.in[a] << "->" << p.out[a] << "(s=" << p.op.scales[a] << ")";
  }
  return os.str();
}

template <typename T>
bool bitwise_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

}  // namespace upsample::test_support
