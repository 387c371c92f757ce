// The cases of `upsample check`: geometries per spatial rank x align_corners x input patterns,
// their data (seeded, the same on every platform) and the call of an entry point on each.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "check/acl_runner.hpp"
#include "check/compare.hpp"
#include "check/entry_points.hpp"

namespace upsample::cli {

inline constexpr int64_t kBatch = 2;

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
const std::vector<Geometry>& geometries(int spatial_rank);

// The align_corners values the entry point is checked with.
std::vector<bool> align_corners_values(const EntryPoint& e);

// "%g".
std::string format_number(double v);
// "5x6->6x9 scales=1.3x1.5 align_corners=0"
std::string case_label(const Geometry& g, int rank, bool align_corners);

struct Pattern {
  enum class Kind { kConstant, kRamp, kRandom };
  std::string name;
  Kind kind;
  double value = 0.0;  // kConstant
  int dim = 0;         // kRamp: logical dim whose index is the value
};

// zeros, ones, a horizontal ramp x[..., w] = w, a vertical ramp along H (along C for 1-D,
// which has no H), a depth ramp along D for 3-D, and random data.
std::vector<Pattern> patterns(int spatial_rank);

// The random data of a case depends on the seed and the case's name only, so filtering with
// --op / --dtype / --layout does not change what a case sees.
uint64_t stream_for(uint64_t seed, std::string_view key);
// `n` values uniform in [-1, 1) from the stream `state`.
std::vector<double> random_values(size_t n, uint64_t state);
// The values of pattern `p` on a tensor of logical `shape` (random data from `random_state`).
std::vector<double> pattern_values(const Pattern& p, const std::vector<int64_t>& shape,
                                   const DTypeInfo& dtype, uint64_t random_state);

// "[n,c,h,w]": the logical index of row-major position `linear` in `shape`.
std::string position(const std::vector<int64_t>& shape, int64_t linear);

// The call of `e` on case `g`; its scales are passed_scales(e, g.scales) unless `scales` is
// given (the adjoint check passes both sides of a pair the same scales).
Call make_call(const EntryPoint& e, const Layout& layout, const DTypeInfo& dtype, const Geometry& g,
               bool align_corners,
               const std::optional<std::array<double, 3>>& scales = std::nullopt);

}  // namespace upsample::cli
