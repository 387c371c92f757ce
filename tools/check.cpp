#include "check.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "acl_runner.hpp"
#include "entry_points.hpp"
#include "numeric.hpp"
#include "reference/reference.hpp"

namespace upsample::cli {
namespace {

constexpr uint64_t kDefaultSeed = 1;
constexpr double kAdjointThreshold = 1e-10;
constexpr int64_t kBatch = 2;

// ---------------------------------------------------------------------------------------------
// Options.

struct Options {
  std::string op_text;
  std::optional<std::regex> op;
  std::vector<const DTypeInfo*> dtypes;  // empty: all
  std::vector<const Layout*> layouts;    // empty: all
  uint64_t seed = kDefaultSeed;
  bool json = false;
};

template <typename T>
std::string names_of(const std::vector<T>& items) {
  std::string s;
  for (const T& item : items) {
    if (!s.empty()) s += ',';
    s += item.name;
  }
  return s;
}

void print_help() {
  std::string entry_names;
  for (const EntryPoint& e : all_entry_points()) entry_names += "\n  " + display_name(e);
  std::printf(
      "Usage: upsample check [--op REGEX] [--dtype LIST] [--layout LIST] [--seed N] [--json]\n"
      "\n"
      "Runs every implemented aclnn entry point through the aclnn C API, as an application\n"
      "does (aclInit, aclrtSetDevice, a stream, aclrtMalloc, aclCreateTensor,\n"
      "GetWorkspaceSize, launch, aclrtSynchronizeStream), forward and backward, for each dtype\n"
      "and layout it supports, on a few shapes (non-integer upsampling, downsampling, sizes-\n"
      "and scale-driven, align_corners on and off) filled with zeros, ones, ramps along each\n"
      "axis and seeded random data (uint8: integers 0 to 254). Results are compared with an\n"
      "independent float64 reference computed on the same dtype-rounded inputs; where\n"
      "PyTorch's (and so the reference's) backward is not the transpose of its forward\n"
      "(nearest with a scale and out == in or 2 * in, bicubic with no size change), the\n"
      "library's backward is compared with the transpose of the reference forward. Each\n"
      "forward/backward pair is also checked for the adjoint identity\n"
      "<A x, y> = <x, A^T y> in float64, through the library alone.\n"
      "\n"
      "Options:\n"
      "  --op REGEX     only entry points whose name (or name(variant), e.g.\n"
      "                 aclnnResize(nearest)) contains a match of REGEX (ECMAScript),\n"
      "                 e.g. 'Bilinear2d$'; an adjoint pair runs when either side matches\n"
      "  --dtype LIST   comma-separated, from %s (default: all);\n"
      "                 the adjoint check runs when float64 is selected\n"
      "  --layout LIST  comma-separated, from %s (default: all)\n"
      "  --seed N       seed of the random data (default %llu)\n"
      "  --json         print one JSON document (rows, adjoint, summary) instead of tables\n"
      "  -h, --help     print this help\n"
      "\n"
      "Pass criteria per element, with r the reference value and m = max(1, |r|):\n"
      "  float32  |err| <= 1e-5 m forward, 1e-4 m backward\n"
      "  float64  |err| <= 1e-12 m\n"
      "  float16, bfloat16  |err| <= 1 ulp of the dtype at r, or <= the float32 tolerance\n"
      "           plus half an ulp (near-zero results of cancellation)\n"
      "  exact    nearest and nearest-exact forward (every dtype) and uint8: r rounded to\n"
      "           the dtype must have the same bits as the result\n"
      "  adjoint  |<A x, y> - <x, A^T y>| / |<A x, y>| <= %g\n"
      "Reported: max abs error, max error in ulps of the dtype at m, max error relative to m.\n"
      "\n"
      "Entry points:%s\n"
      "\n"
      "Exit status: 0 all checks pass, 1 a check failed, 2 usage error.\n",
      names_of(all_dtypes()).c_str(), names_of(all_layouts()).c_str(),
      static_cast<unsigned long long>(kDefaultSeed), kAdjointThreshold, entry_names.c_str());
}

int usage_error(const std::string& what) {
  std::fprintf(stderr, "upsample check: %s (see 'upsample check --help')\n", what.c_str());
  return 2;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    items.push_back(text.substr(start, comma - start));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

// Parses a comma-separated list of names from `known`; returns an error text or "".
template <typename T>
std::string parse_names(const char* flag, const char* noun, const std::string& text,
                        const std::vector<T>& known, std::vector<const T*>* out) {
  for (const std::string& name : split_list(text)) {
    const auto it =
        std::find_if(known.begin(), known.end(), [&](const T& k) { return name == k.name; });
    const T* item = it == known.end() ? nullptr : &*it;
    if (item == nullptr) {
      return std::string(flag) + ": unknown " + noun + " '" + name +
             "' (expected a comma-separated list from " + names_of(known) + ")";
    }
    if (std::find(out->begin(), out->end(), item) == out->end()) out->push_back(item);
  }
  return "";
}

// Returns std::nullopt and sets *exit_code when the command is done (help or usage error).
std::optional<Options> parse_options(const std::vector<std::string>& args, int* exit_code) {
  Options opts;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::optional<std::string> value;
    if (const size_t eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag.resize(eq);
    }
    const bool takes_value =
        flag == "--op" || flag == "--dtype" || flag == "--layout" || flag == "--seed";
    if (takes_value && !value) {
      if (i + 1 == args.size()) {
        *exit_code = usage_error(flag + ": missing value");
        return std::nullopt;
      }
      value = args[++i];
    } else if (!takes_value && value) {
      *exit_code = usage_error(flag + ": takes no value");
      return std::nullopt;
    }
    std::string error;
    if (flag == "-h" || flag == "--help") {
      print_help();
      *exit_code = 0;
      return std::nullopt;
    } else if (flag == "--json") {
      opts.json = true;
    } else if (flag == "--op") {
      // std::regex reports a bad pattern only by throwing.
      try {
        opts.op.emplace(*value, std::regex::ECMAScript);
        opts.op_text = *value;
      } catch (const std::regex_error& e) {
        error = "--op: invalid regular expression '" + *value + "': " + e.what();
      }
    } else if (flag == "--dtype") {
      error = parse_names("--dtype", "dtype", *value, all_dtypes(), &opts.dtypes);
    } else if (flag == "--layout") {
      error = parse_names("--layout", "layout", *value, all_layouts(), &opts.layouts);
    } else if (flag == "--seed") {
      const char* end = value->data() + value->size();
      const auto [ptr, ec] = std::from_chars(value->data(), end, opts.seed);
      if (value->empty() || ec != std::errc() || ptr != end) {
        error = "--seed: '" + *value + "' is not an unsigned 64-bit integer";
      }
    } else if (flag.rfind("-", 0) == 0) {
      error = "unknown option '" + flag + "'";
    } else {
      error = "unexpected argument '" + flag + "'";
    }
    if (!error.empty()) {
      *exit_code = usage_error(error);
      return std::nullopt;
    }
  }
  return opts;
}

bool selected(const Options& opts, const EntryPoint& e) {
  return !opts.op || std::regex_search(e.name, *opts.op) ||
         std::regex_search(display_name(e), *opts.op);
}
bool selected(const Options& opts, const DTypeInfo& d) {
  return opts.dtypes.empty() ||
         std::find(opts.dtypes.begin(), opts.dtypes.end(), &d) != opts.dtypes.end();
}
bool selected(const Options& opts, const Layout& l) {
  return opts.layouts.empty() ||
         std::find(opts.layouts.begin(), opts.layouts.end(), &l) != opts.layouts.end();
}

// The entry point's layouts that are selected, in the entry point's order.
std::vector<const Layout*> layouts_of(const Options& opts, const EntryPoint& e) {
  std::vector<const Layout*> layouts;
  for (aclFormat f : e.layouts) {
    const Layout* l = find_layout(f, e.spatial_rank);
    if (l != nullptr && selected(opts, *l)) layouts.push_back(l);
  }
  return layouts;
}

// ---------------------------------------------------------------------------------------------
// Cases: geometries (per spatial rank) x align_corners x input patterns.

struct Geometry {
  std::array<int64_t, 3> in;  // spatial sizes, D, H, W order (first spatial_rank used)
  std::array<int64_t, 3> out;
  std::array<double, 3> scales;  // passed to the entry point; 0: not given
  int64_t channels = 3;
};

// Each rank covers: a non-integer upsampling, a downsampling, an axis of one output (the
// align_corners ratio is 0 there) or of unchanged size (identity shortcut), and scale-driven
// calls where out = floor(in * s) but the ratio 1/s differs from in/out, so a scale that is
// dropped, or used where the rules say it must not be, changes the result. The 2-D and 3-D
// cases with a "not given" (0) scale make Bilinear2d mix a size-driven and a scale-driven axis
// while Trilinear3d and Nearest3d must ignore all three. The wide cases reach the vector
// kernels: full vectors plus a masked or scalar tail along W, and, for the channels-last
// layouts, along C. Further:
//   - 26 -> 11 (a non-integer ratio) maps outputs to different pixels in nearest and
//     nearest-exact, so one mode run for the other fails;
//   - 40 -> 7 and 100 -> 5 are antialias downsamplings (a wide filter; 100 -> 5 averages 40
//     taps), 40 -> 7 also scale-driven (s = 0.18: the filter width follows 1/s, not 40/7);
//   - the scale-driven cases where out == in or out == 2 * in with a scale whose 1/s is not
//     in/out are the configurations where PyTorch's nearest backward (nearest_idx short-cuts)
//     and, with every size unchanged, its bicubic backward (a copy) are not the transpose of
//     its forward; the library's backward always is, and the reference's backward is replaced
//     by the transpose of its forward there (see reference_result); with antialias, an axis
//     whose size does not change is resampled with the ratio 1 / scale, not copied (the copy
//     is the ratio-1 case only, src/core/geometry.hpp Note [identity axes]).
// Source coordinates stay below about 100: the library computes the ratio in float32, as
// PyTorch does, so a coordinate x carries an error of about x * 2^-24, which times the step
// between neighbours (1 in the ramps) must stay within float32's 1e-5.
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

std::string join_sizes(const std::array<int64_t, 3>& sizes, int rank) {
  std::string s;
  for (int a = 0; a < rank; ++a) {
    if (a > 0) s += 'x';
    s += std::to_string(sizes[a]);
  }
  return s;
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

// Logical dim names per spatial rank, for ramp names and element positions.
const char* dim_names(int spatial_rank) {
  static const char* const kNames[] = {"NCL", "NCHW", "NCDHW"};
  return kNames[spatial_rank - 1];
}

struct Pattern {
  enum class Kind { kConstant, kRamp, kRandom };
  std::string name;
  Kind kind;
  double value = 0.0;  // kConstant
  int dim = 0;         // kRamp: logical dim whose index is the value
};

// zeros, ones, a horizontal ramp x[..., w] = w, a vertical ramp along H (along C for 1-D,
// which has no H), a depth ramp along D for 3-D, and random data.
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

// splitmix64: a seeded stream that is the same on every platform (unlike std::
// distributions), so a seed printed by a failing run reproduces it anywhere.
uint64_t splitmix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The random data of a case depends on the seed and the case's name only, so filtering with
// --op / --dtype / --layout does not change what a case sees.
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

int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

// Index along `dim` of the element at logical row-major position `linear`.
int64_t index_along(const std::vector<int64_t>& shape, int64_t linear, int dim) {
  for (int d = static_cast<int>(shape.size()) - 1; d > dim; --d) linear /= shape[d];
  return linear % shape[dim];
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

// The call of `e` on case `g`; its scales are passed_scales(e, g.scales) unless `scales` is
// given (the adjoint check passes both sides of a pair the same scales).
Call make_call(const EntryPoint& e, const Layout& layout, const DTypeInfo& dtype, const Geometry& g,
               bool align_corners,
               const std::optional<std::array<double, 3>>& scales = std::nullopt) {
  const std::vector<int64_t> in_shape = logical_shape(g, g.in, e.spatial_rank);
  const std::vector<int64_t> out_shape = logical_shape(g, g.out, e.spatial_rank);
  const bool forward = e.direction == Direction::kForward;
  Call call;
  call.entry = &e;
  call.layout = &layout;
  call.dtype = &dtype;
  call.src_shape = forward ? in_shape : out_shape;
  call.dst_shape = forward ? out_shape : in_shape;
  call.output_size.assign(g.out.begin(), g.out.begin() + e.spatial_rank);
  if (!forward) {
    call.input_size = e.input_size_in_format_order ? in_format_order(in_shape, layout) : in_shape;
  }
  call.align_corners = align_corners;
  call.scales = scales ? *scales : passed_scales(e, g.scales);
  return call;
}

// The reference problem of `e` called with `call_scales` on case `g`.
reference::Problem reference_problem(const EntryPoint& e, const Geometry& g, bool align_corners,
                                     const std::array<double, 3>& call_scales) {
  reference::Problem p;
  p.mode = e.mode;
  p.antialias = e.antialias;
  p.align_corners = align_corners;
  p.n = kBatch;
  p.c = g.channels;
  p.spatial_rank = e.spatial_rank;
  p.in_sizes = g.in;
  p.out_sizes = g.out;
  p.scales = effective_scales(e, call_scales);
  return p;
}

// Whether the reference's backward of `p` is not the transpose of its forward: PyTorch's nearest
// backward takes nearest_idx's short-cuts (out == in: copy, out == 2 * in: dst >> 1) where a
// given scale makes its forward pick other pixels, and its bicubic backward copies when no
// spatial size changes (docs/numerics.md, deviation 5; reference.cpp, RulesFor).
bool reference_backward_is_not_transpose(const reference::Problem& p) {
  if (p.antialias) return false;
  if (p.mode == reference::Mode::kNearest) {
    for (int a = 0; a < p.spatial_rank; ++a) {
      const bool shortcut = p.out_sizes[a] == p.in_sizes[a] || p.out_sizes[a] == 2 * p.in_sizes[a];
      if (shortcut && p.scales[a] > 0.0) return true;
    }
  }
  if (p.mode == reference::Mode::kCubic) {
    for (int a = 0; a < p.spatial_rank; ++a) {
      if (p.out_sizes[a] != p.in_sizes[a]) return false;
    }
    return true;
  }
  return false;
}

// grad_in = A^T grad_out with A the reference forward of `p`, built column by column from the
// forward of one plane (every plane resamples alike).
std::vector<double> transposed_forward(const reference::Problem& p,
                                       const std::vector<double>& grad_out) {
  reference::Problem plane = p;
  plane.n = 1;
  plane.c = 1;
  const auto in_plane = static_cast<size_t>(reference::input_numel(plane));
  const auto out_plane = static_cast<size_t>(reference::output_numel(plane));
  const size_t planes = static_cast<size_t>(p.n * p.c);
  std::vector<double> grad_in(planes * in_plane, 0.0);
  std::vector<double> unit(in_plane, 0.0);
  for (size_t j = 0; j < in_plane; ++j) {
    unit[j] = 1.0;
    const std::vector<double> column = reference::forward(plane, unit);  // A e_j
    unit[j] = 0.0;
    for (size_t q = 0; q < planes; ++q) {
      double acc = 0.0;
      for (size_t i = 0; i < out_plane; ++i) acc += column[i] * grad_out[q * out_plane + i];
      grad_in[q * in_plane + j] = acc;
    }
  }
  return grad_in;
}

std::vector<double> reference_result(const EntryPoint& e, const Geometry& g, bool align_corners,
                                     const std::array<double, 3>& call_scales,
                                     const std::vector<double>& src) {
  const reference::Problem p = reference_problem(e, g, align_corners, call_scales);
  if (e.direction == Direction::kForward) return reference::forward(p, src);
  return reference_backward_is_not_transpose(p) ? transposed_forward(p, src)
                                                : reference::backward(p, src);
}

std::vector<bool> align_corners_values(const EntryPoint& e) {
  if (!e.has_align_corners) return {false};
  return {false, true};
}

// ---------------------------------------------------------------------------------------------
// Comparison against the reference.

struct Row {
  const EntryPoint* entry = nullptr;
  const DTypeInfo* dtype = nullptr;
  const Layout* layout = nullptr;
  int64_t cases = 0;
  double max_abs = 0.0;
  double max_ulp = 0.0;
  double max_rel = 0.0;
  bool exact = false;        // compared bit for bit (see bit_exact)
  double worst_ratio = 0.0;  // max of error / tolerance; > 1 fails
  std::string failure;       // the worst element when failing, or the call that failed
  bool passed() const { return failure.empty(); }
};

void compare(const std::vector<double>& ours, const std::vector<double>& ref,
             const std::vector<int64_t>& shape, const std::string& case_label, Row* row) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const Direction direction = row->entry->direction;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double err = std::isnan(ours[i]) ? kInf : std::fabs(ours[i] - ref[i]);
    row->max_abs = std::max(row->max_abs, err);
    row->max_ulp =
        std::max(row->max_ulp, err / ulp_at(*row->dtype, std::max(1.0, std::fabs(ref[i]))));
    row->max_rel = std::max(row->max_rel, err / std::max(1.0, std::fabs(ref[i])));
    const double ratio = error_ratio(*row->dtype, direction, row->exact, ours[i], ref[i]);
    if (ratio > row->worst_ratio) {
      row->worst_ratio = ratio;
      if (ratio > 1.0) {
        char ours_text[40], ref_text[40];
        std::snprintf(ours_text, sizeof ours_text, "%.9g", ours[i]);
        std::snprintf(ref_text, sizeof ref_text, "%.9g", ref[i]);
        row->failure = case_label + ": " +
                       (direction == Direction::kForward ? "out" : "gradInput") +
                       position(shape, static_cast<int64_t>(i)) + " = " + ours_text +
                       ", reference " + ref_text +
                       (row->exact ? " (not bit-exact)"
                                   : " (error " + format_number(ratio) + "x the tolerance)");
      }
    }
  }
}

// Fills in `row`, whose entry point, dtype and layout are set.
void check_row(const AclSession& session, const Options& opts, Row* row) {
  const EntryPoint& e = *row->entry;
  const DTypeInfo& dtype = *row->dtype;
  const Layout& layout = *row->layout;
  for (const Geometry& g : geometries(e.spatial_rank)) {
    for (bool align : align_corners_values(e)) {
      const Call call = make_call(e, layout, dtype, g, align);
      for (const Pattern& p : patterns(e.spatial_rank)) {
        const std::string label = case_label(g, e.spatial_rank, align) + " " + p.name;
        std::vector<double> src = pattern_values(
            p, call.src_shape, dtype,
            stream_for(opts.seed, display_name(e) + " " + layout.name + " " + label));
        for (double& x : src) x = round_to(dtype, x);
        std::vector<double> ours;
        std::string error;
        ++row->cases;
        if (!run_call(session, call, src, &ours, &error)) {
          row->failure = label + ": " + error;
          return;
        }
        compare(ours, reference_result(e, g, align, call.scales, src), call.dst_shape, label,
                row);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Adjoint identity: <A x, y> == <x, A^T y> with A the forward and A^T the backward entry point,
// both run through the library in float64. It checks that the backward is the transpose of
// the forward (same taps, same weights) independently of the reference.

struct AdjointRow {
  const EntryPoint* forward = nullptr;
  const EntryPoint* backward = nullptr;
  const Layout* layout = nullptr;
  int64_t cases = 0;
  double max_residual = 0.0;
  std::string failure;
  bool passed() const { return failure.empty(); }
};

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Fills in `row`, whose entry points and layout are set.
void check_adjoint(const AclSession& session, const Options& opts, AdjointRow* row) {
  const EntryPoint& fwd = *row->forward;
  const EntryPoint& bwd = *row->backward;
  const Layout& layout = *row->layout;
  const DTypeInfo& f64 = *find_dtype("float64");
  for (Geometry g : geometries(fwd.spatial_rank)) {
    // Both sides get the same scales: rounded to float when either takes float scales
    // (Nearest2dV2 with Nearest2dBackward), and none at all when one side ignores scales that
    // the other honours (Bilinear2dBackward V1 with Bilinear2d, Nearest2d with
    // Nearest2dBackward), where the two would resample with different ratios.
    g.scales = passed_scales(fwd, passed_scales(bwd, g.scales));
    if (effective_scales(fwd, g.scales) != effective_scales(bwd, g.scales)) g.scales = {0, 0, 0};
    for (bool align : align_corners_values(fwd)) {
      const std::string label = case_label(g, fwd.spatial_rank, align);
      const Call forward_call = make_call(fwd, layout, f64, g, align, g.scales);
      const Call backward_call = make_call(bwd, layout, f64, g, align, g.scales);
      const std::string key =
          std::string(fwd.name) + " " + bwd.name + " " + layout.name + " " + label;
      const std::vector<double> x = random_values(
          static_cast<size_t>(numel(forward_call.src_shape)), stream_for(opts.seed, key + " x"));
      const std::vector<double> y = random_values(
          static_cast<size_t>(numel(forward_call.dst_shape)), stream_for(opts.seed, key + " y"));
      std::vector<double> ax, aty;
      std::string error;
      ++row->cases;
      if (!run_call(session, forward_call, x, &ax, &error) ||
          !run_call(session, backward_call, y, &aty, &error)) {
        row->failure = label + ": " + error;
        return;
      }
      const double lhs = dot(ax, y);
      double residual =
          std::fabs(lhs - dot(x, aty)) / (std::fabs(lhs) + std::numeric_limits<double>::min());
      if (std::isnan(residual)) residual = std::numeric_limits<double>::infinity();
      row->max_residual = std::max(row->max_residual, residual);
      if (residual > kAdjointThreshold && row->failure.empty()) {
        row->failure = label + ": residual " + format_number(residual) + " > " +
                       format_number(kAdjointThreshold);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Output.

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// JSON has no infinity or NaN: those become null.
std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string json_failure(const std::string& failure) {
  return failure.empty() ? "null" : json_string(failure);
}

void print_json(const Options& opts, const std::vector<Row>& rows,
                const std::vector<AdjointRow>& adjoint, int passed, int failed) {
  std::printf("{\n  \"command\": \"check\",\n  \"seed\": %llu,\n  \"op\": %s,\n  \"rows\": [",
              static_cast<unsigned long long>(opts.seed),
              opts.op ? json_string(opts.op_text).c_str() : "null");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    std::printf(
        "%s\n    {\"entry_point\": %s, \"variant\": %s, \"direction\": \"%s\", \"dtype\": \"%s\", "
        "\"layout\": \"%s\", \"cases\": %lld, \"exact\": %s, \"max_abs_err\": %s, "
        "\"max_ulp_err\": %s, \"max_rel_err\": %s, \"pass\": %s, \"status\": \"%s\", "
        "\"failure\": %s}",
        i ? "," : "", json_string(r.entry->name).c_str(),
        r.entry->variant ? json_string(r.entry->variant).c_str() : "null",
        r.entry->direction == Direction::kForward ? "forward" : "backward", r.dtype->name,
        r.layout->name, static_cast<long long>(r.cases), r.exact ? "true" : "false",
        json_number(r.max_abs).c_str(), json_number(r.max_ulp).c_str(),
        json_number(r.max_rel).c_str(), r.passed() ? "true" : "false",
        r.passed() ? "PASS" : "FAIL", json_failure(r.failure).c_str());
  }
  std::printf("\n  ],\n  \"adjoint\": [");
  for (size_t i = 0; i < adjoint.size(); ++i) {
    const AdjointRow& a = adjoint[i];
    std::printf(
        "%s\n    {\"forward\": %s, \"backward\": %s, \"dtype\": \"float64\", \"layout\": \"%s\", "
        "\"cases\": %lld, \"max_residual\": %s, \"threshold\": %s, \"pass\": %s, "
        "\"status\": \"%s\", \"failure\": %s}",
        i ? "," : "", json_string(a.forward->name).c_str(), json_string(a.backward->name).c_str(),
        a.layout->name, static_cast<long long>(a.cases), json_number(a.max_residual).c_str(),
        json_number(kAdjointThreshold).c_str(), a.passed() ? "true" : "false",
        a.passed() ? "PASS" : "FAIL", json_failure(a.failure).c_str());
  }
  std::printf("\n  ],\n  \"summary\": {\"passed\": %d, \"failed\": %d}\n}\n", passed, failed);
}

void print_tables(const Options& opts, const std::vector<Row>& rows,
                  const std::vector<AdjointRow>& adjoint, int passed, int failed) {
  std::printf("upsample check: aclnn entry points vs the float64 reference (seed %llu)\n\n",
              static_cast<unsigned long long>(opts.seed));
  int name_width = static_cast<int>(std::strlen("entry point"));
  for (const Row& r : rows) {
    name_width = std::max(name_width, static_cast<int>(display_name(*r.entry).size()));
  }
  std::printf("%-*s  %-8s  %-6s  %5s  %-7s  %11s  %11s  %11s  %s\n", name_width, "entry point",
              "dtype", "layout", "cases", "compare", "max abs err", "max ulp err", "max rel err",
              "result");
  for (const Row& r : rows) {
    std::printf("%-*s  %-8s  %-6s  %5lld  %-7s  %11.3g  %11.3g  %11.3g  %s\n", name_width,
                display_name(*r.entry).c_str(), r.dtype->name, r.layout->name,
                static_cast<long long>(r.cases), r.exact ? "exact" : "tol", r.max_abs, r.max_ulp,
                r.max_rel, r.passed() ? "PASS" : "FAIL");
  }
  std::printf(
      "\ncompare: exact = the reference rounded to the dtype must have our bits (nearest forward,\n"
      "uint8); tol = the tolerances of --help. ulps are those of the dtype at max(1, |ref|), the\n"
      "scale of the tolerances: at a near-zero reference (cancellation) an ulp of the result\n"
      "itself would be meaninglessly small.\n");
  if (!adjoint.empty()) {
    int forward_width = static_cast<int>(std::strlen("forward"));
    int backward_width = static_cast<int>(std::strlen("backward"));
    for (const AdjointRow& a : adjoint) {
      forward_width = std::max(forward_width, static_cast<int>(std::strlen(a.forward->name)));
      backward_width = std::max(backward_width, static_cast<int>(std::strlen(a.backward->name)));
    }
    std::printf("\nadjoint identity, float64: |<A x, y> - <x, A^T y>| / |<A x, y>| <= %g\n\n",
                kAdjointThreshold);
    std::printf("%-*s  %-*s  %-6s  %5s  %11s  %s\n", forward_width, "forward", backward_width,
                "backward", "layout", "cases", "residual", "result");
    for (const AdjointRow& a : adjoint) {
      std::printf("%-*s  %-*s  %-6s  %5lld  %11.3g  %s\n", forward_width, a.forward->name,
                  backward_width, a.backward->name, a.layout->name,
                  static_cast<long long>(a.cases), a.max_residual, a.passed() ? "PASS" : "FAIL");
    }
  }
  if (failed > 0) std::printf("\n");
  for (const Row& r : rows) {
    if (!r.passed()) {
      std::printf("FAIL %s %s %s: %s\n", display_name(*r.entry).c_str(), r.dtype->name,
                  r.layout->name, r.failure.c_str());
    }
  }
  for (const AdjointRow& a : adjoint) {
    if (!a.passed()) {
      std::printf("FAIL adjoint %s / %s %s: %s\n", a.forward->name, a.backward->name,
                  a.layout->name, a.failure.c_str());
    }
  }
  std::printf("\n%d passed, %d failed\n", passed, failed);
}

}  // namespace

int run_check(const std::vector<std::string>& args) {
  int exit_code = 0;
  const std::optional<Options> parsed = parse_options(args, &exit_code);
  if (!parsed) return exit_code;
  const Options& opts = *parsed;

  // The rows to fill, decided before the runtime starts so that an empty selection is a usage
  // error rather than a vacuous pass.
  std::vector<Row> rows;
  for (const EntryPoint& e : all_entry_points()) {
    if (!selected(opts, e)) continue;
    for (const DTypeInfo& d : all_dtypes()) {
      const bool supported = std::find(e.dtypes.begin(), e.dtypes.end(), d.acl) != e.dtypes.end();
      if (!supported || !selected(opts, d)) continue;
      for (const Layout* l : layouts_of(opts, e)) {
        rows.emplace_back();
        rows.back().entry = &e;
        rows.back().dtype = &d;
        rows.back().layout = l;
        rows.back().exact = bit_exact(e) || d.integer;
      }
    }
  }
  std::vector<AdjointRow> adjoint;
  if (selected(opts, *find_dtype("float64"))) {
    for (const EntryPoint& bwd : all_entry_points()) {
      for (const char* forward_name : bwd.adjoint_of) {
        const EntryPoint* fwd = find_entry_point(forward_name);
        if (fwd == nullptr || !(selected(opts, *fwd) || selected(opts, bwd))) continue;
        for (const Layout* l : layouts_of(opts, bwd)) {
          if (std::find(fwd->layouts.begin(), fwd->layouts.end(), l->format) ==
              fwd->layouts.end()) {
            continue;
          }
          adjoint.emplace_back();
          adjoint.back().forward = fwd;
          adjoint.back().backward = &bwd;
          adjoint.back().layout = l;
        }
      }
    }
  }
  if (rows.empty() && adjoint.empty()) {
    return usage_error(
        "nothing to check: no implemented entry point matches the --op, --dtype "
        "and --layout selection");
  }

  std::string error;
  const std::unique_ptr<AclSession> session = AclSession::open(&error);
  if (session == nullptr) {
    std::fprintf(stderr, "upsample check: cannot start the acl runtime: %s\n", error.c_str());
    return 1;
  }
  for (Row& r : rows) check_row(*session, opts, &r);
  for (AdjointRow& a : adjoint) check_adjoint(*session, opts, &a);

  int passed = 0, failed = 0;
  for (const Row& r : rows) (r.passed() ? passed : failed)++;
  for (const AdjointRow& a : adjoint) (a.passed() ? passed : failed)++;
  if (opts.json) {
    print_json(opts, rows, adjoint, passed, failed);
  } else {
    print_tables(opts, rows, adjoint, passed, failed);
  }
  return failed > 0 ? 1 : 0;
}

}  // namespace upsample::cli
