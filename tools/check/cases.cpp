#include "check/cases.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace upsample::cli {
namespace {

std::string join_sizes(const std::array<int64_t, 3>& sizes, int rank) {
  std::string s;
  for (int a = 0; a < rank; ++a) {
    if (a > 0) s += 'x';
    s += std::to_string(sizes[a]);
  }
  return s;
}

// Logical dim names per spatial rank, for ramp names and element positions.
const char* dim_names(int spatial_rank) {
  static const char* const kNames[] = {"NCL", "NCHW", "NCDHW"};
  return kNames[spatial_rank - 1];
}

// splitmix64: a seeded stream that is the same on every platform (unlike std::
// distributions), so a seed printed by a failing run reproduces it anywhere.
uint64_t splitmix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The random data of an integer dtype: the integers 0 ... 254. 255 is left out because it is
// the byte the runner fills outputs with, so an output element the entry point does not write
// can never match the reference.
void to_integers(std::vector<double>* v) {
  for (double& x : *v) x = std::floor((x + 1.0) * 127.5);
}

std::vector<int64_t> logical_shape(const Geometry& g, const std::array<int64_t, 3>& spatial,
                                   int spatial_rank) {
  std::vector<int64_t> shape = {kBatch, g.channels};
  shape.insert(shape.end(), spatial.begin(), spatial.begin() + spatial_rank);
  return shape;
}

// Index along `dim` of the element at logical row-major position `linear`.
int64_t index_along(const std::vector<int64_t>& shape, int64_t linear, int dim) {
  for (int d = static_cast<int>(shape.size()) - 1; d > dim; --d) linear /= shape[d];
  return linear % shape[dim];
}

}  // namespace

const std::vector<Geometry>& geometries(int spatial_rank) {
  static const std::array<std::vector<Geometry>, 3> kGeometries = {{
      {
          {{7}, {12}, {0}},
          {{10}, {4}, {0}},
          {{6}, {1}, {0}},
          {{8}, {8}, {0}},
          {{26}, {11}, {0}},
          {{5}, {6}, {1.3}},
          {{26}, {11}, {0.43}},
          {{8}, {8}, {1.1}},
          {{5}, {10}, {2.1}},
          {{31}, {100}, {0}},
          {{32}, {7}, {0}},
      },
      {
          {{5, 7}, {8, 11}, {0, 0}},
          {{9, 10}, {4, 6}, {0, 0}},
          {{6, 9}, {10, 4}, {0, 0}},
          {{4, 5}, {1, 5}, {0, 0}},
          {{26, 40}, {11, 7}, {0, 0}},
          {{100, 12}, {5, 31}, {0, 0}},
          {{5, 6}, {6, 9}, {1.3, 1.5}},
          {{5, 6}, {7, 9}, {0, 1.5}},
          {{40, 26}, {7, 11}, {0.18, 0.43}},
          {{6, 7}, {6, 7}, {1.1, 1.1}},
          {{5, 6}, {10, 12}, {2.1, 2.1}},
          {{13, 29}, {20, 43}, {0, 0}, 19},
          {{9, 32}, {5, 7}, {0, 0}, 19},
      },
      {
          {{3, 4, 5}, {5, 6, 8}, {0, 0, 0}},
          {{6, 7, 5}, {4, 3, 2}, {0, 0, 0}},
          {{2, 3, 4}, {1, 5, 4}, {0, 0, 0}},
          {{3, 26, 5}, {4, 11, 8}, {0, 0, 0}},
          {{4, 5, 6}, {6, 6, 7}, {1.5, 1.3, 1.25}},
          {{4, 5, 6}, {6, 6, 7}, {0, 1.3, 1.25}},
          {{4, 5, 6}, {4, 10, 6}, {1.1, 2.1, 1.1}},
          {{3, 4, 29}, {5, 3, 41}, {0, 0, 0}, 17},
      },
  }};
  return kGeometries[spatial_rank - 1];
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// "5x6->6x9 scales=1.3x1.5 align_corners=0"
std::string case_label(const Geometry& g, int rank, bool align_corners) {
  std::string s = join_sizes(g.in, rank) + "->" + join_sizes(g.out, rank);
  if (std::any_of(g.scales.begin(), g.scales.begin() + rank, [](double x) { return x != 0; })) {
    s += " scales=";
    for (int a = 0; a < rank; ++a) {
      if (a > 0) s += 'x';
      s += format_number(g.scales[a]);
    }
  }
  return s + (align_corners ? " align_corners=1" : " align_corners=0");
}

std::vector<Pattern> patterns(int spatial_rank) {
  const int rank = spatial_rank + 2;
  const char* dims = dim_names(spatial_rank);
  std::vector<Pattern> p = {{"zeros", Pattern::Kind::kConstant, 0.0},
                            {"ones", Pattern::Kind::kConstant, 1.0}};
  const int ramps = spatial_rank == 3 ? 3 : 2;
  for (int r = 1; r <= ramps; ++r) {
    p.push_back({std::string("ramp-") + dims[rank - r], Pattern::Kind::kRamp, 0.0, rank - r});
  }
  p.push_back({"random", Pattern::Kind::kRandom});
  return p;
}

uint64_t stream_for(uint64_t seed, std::string_view key) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (unsigned char c : key) h = (h ^ c) * 0x100000001b3ull;
  uint64_t state = seed ^ h;
  return splitmix64(&state);
}

// Uniform in [-1, 1).
std::vector<double> random_values(size_t n, uint64_t state) {
  std::vector<double> v(n);
  for (double& x : v) x = static_cast<double>(splitmix64(&state) >> 11) * 0x1p-52 - 1.0;
  return v;
}

std::string position(const std::vector<int64_t>& shape, int64_t linear) {
  std::string s = "[";
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    if (d > 0) s += ',';
    s += std::to_string(index_along(shape, linear, d));
  }
  return s + "]";
}

std::vector<double> pattern_values(const Pattern& p, const std::vector<int64_t>& shape,
                                   const DTypeInfo& dtype, uint64_t random_state) {
  const int64_t n = numel(shape);
  if (p.kind == Pattern::Kind::kRandom) {
    std::vector<double> v = random_values(static_cast<size_t>(n), random_state);
    if (dtype.integer) to_integers(&v);
    return v;
  }
  std::vector<double> v(static_cast<size_t>(n), p.value);
  if (p.kind == Pattern::Kind::kRamp) {
    for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>(index_along(shape, i, p.dim));
  }
  return v;
}

Call make_call(const EntryPoint& e, const Layout& layout, const DTypeInfo& dtype, const Geometry& g,
               bool align_corners, const std::optional<std::array<double, 3>>& scales) {
  const std::vector<int64_t> in_shape = logical_shape(g, g.in, e.spatial_rank());
  const std::vector<int64_t> out_shape = logical_shape(g, g.out, e.spatial_rank());
  const bool forward = e.forward();
  Call call;
  call.entry = &e;
  call.layout = &layout;
  call.dtype = &dtype;
  call.src_shape = forward ? in_shape : out_shape;
  call.dst_shape = forward ? out_shape : in_shape;
  call.output_size.assign(g.out.begin(), g.out.begin() + e.spatial_rank());
  if (!forward) {
    // Rows that order inputSize by a format read it from gradOut's or from the output's; the
    // check gives both tensors one layout, so the two coincide here.
    const bool by_format = e.row->input_size_order != aclnn::InputSizeOrder::kLogical;
    call.input_size = by_format ? in_format_order(in_shape, layout) : in_shape;
  }
  call.align_corners = align_corners;
  call.scales = scales ? *scales : passed_scales(e, g.scales);
  return call;
}

std::vector<bool> align_corners_values(const EntryPoint& e) {
  if (!e.row->has_align_corners) return {false};
  return {false, true};
}

}  // namespace upsample::cli
