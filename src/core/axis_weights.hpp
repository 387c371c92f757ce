// AxisWeights: the weight table of one axis, one row at a time.
//
// Every mode reduces to rows of taps (source index, weight) - this class is where a mode's
// geometry (src/core/geometry.hpp) becomes those taps. build_axis_table() materialises all rows;
// a plan whose table would be too large (an axis of billions of elements) keeps an AxisWeights
// instead and kernels stream the rows they need, in the same order with the same values, so the
// two forms give identical bits. Rows of the transposed table (backward) are streamed by
// transposed_row(): the forward rows that read a source index form one contiguous range (every
// mode's taps move monotonically with the output index), found by binary search.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/checked.hpp"
#include "core/geometry.hpp"
#include "upsample/resample.hpp"

namespace upsample {

struct AxisSpec {
  Mode mode = Mode::kLinear;
  bool antialias = false;
  bool align_corners = false;
  int64_t in_len = 1;
  int64_t out_len = 1;
  double scale = 0.0;  // user scale (out/in); <= 0: not given
  // The table will be transposed for a backward pass. Only bicubic cares: PyTorch 1.13 rounds
  // its coordinate differently in forward and backward (Note [cubic source index]).
  bool for_backward = false;
};

// W is the precision the weights are computed and stored in: float for float32 / float16 /
// bfloat16 / integer data, double for float64 data.
template <typename W>
class AxisWeights {
 public:
  explicit AxisWeights(const AxisSpec& spec) : spec_(spec) {
    ratio_ = geometry::ratio<W>(spec.in_len, spec.out_len, spec.align_corners, spec.scale);
    const bool same = spec.in_len == spec.out_len;
    if (spec.antialias && (spec.mode == Mode::kLinear || spec.mode == Mode::kCubic)) {
      // Same size at ratio 1 is a copy (Note [identity axes]); a user scale != 1 still resamples.
      kind_ = same && ratio_ == W(1) ? Kind::kIdentity : Kind::kAntialias;
      const double interp_size = spec.mode == Mode::kCubic ? 4.0 : 2.0;
      support_ = static_cast<W>(ratio_ >= W(1) ? (interp_size * 0.5) * ratio_ : interp_size * 0.5);
      invscale_ = ratio_ >= W(1) ? W(1) / ratio_ : W(1);
      return;
    }
    switch (spec.mode) {
      case Mode::kNearest:
        kind_ = Kind::kNearest;
        break;
      case Mode::kNearestExact:
        kind_ = Kind::kNearestExact;
        break;
      case Mode::kLinear:
        kind_ = same ? Kind::kIdentity : Kind::kLinear;
        break;
      case Mode::kCubic:
        kind_ = spec.for_backward ? Kind::kCubicBackward : Kind::kCubic;
        break;
      case Mode::kArea:
        kind_ = same ? Kind::kIdentity : Kind::kArea;
        break;
    }
  }

  const AxisSpec& spec() const { return spec_; }
  int64_t rows() const { return spec_.out_len; }
  int64_t src_len() const { return spec_.in_len; }
  // Every row r is the single tap (r, 1): the axis is copied, not resampled.
  bool identity() const { return kind_ == Kind::kIdentity; }
  // Every row is one tap of weight 1 (nearest modes): a pass moves values without arithmetic.
  bool unit_taps() const {
    return kind_ == Kind::kIdentity || kind_ == Kind::kNearest || kind_ == Kind::kNearestExact;
  }
  // Exact forms of the two flags, decided by visiting rows (no allocation): a nearest axis of
  // equal lengths is the identity only while float32 represents every index, and an area axis
  // has single taps only for integer upsampling. At most kMaxVisitedRows rows are visited, so
  // phase 1 costs no more for an axis of 2^40 claimed elements than for one of 2^24; beyond
  // that the answer is `false`, which is always safe: an identity axis resampled with its unit
  // taps, or unit area taps (weight 1) applied with arithmetic, give the same bits.
  static constexpr int64_t kMaxVisitedRows = int64_t{1} << 24;
  bool rows_are_identity() const {
    if (identity()) return true;
    if (spec_.in_len != spec_.out_len || !unit_taps() || rows() > kMaxVisitedRows) return false;
    for (int64_t r = 0; r < rows(); ++r) {
      bool same = true;
      row(r, [&](int64_t index, W) { same = index == r; });
      if (!same) return false;
    }
    return true;
  }
  bool rows_are_unit() const {
    if (unit_taps()) return true;
    if (kind_ != Kind::kArea || rows() > kMaxVisitedRows) return false;
    for (int64_t r = 0; r < rows(); ++r) {
      int64_t first, last, count;
      row_bounds(r, &first, &last, &count);
      if (count != 1) return false;
    }
    return true;
  }

  // An upper bound of the taps of any row, without generating the rows.
  int64_t max_taps_bound() const {
    switch (kind_) {
      case Kind::kLinear:
        return 2;
      case Kind::kCubic:
      case Kind::kCubicBackward:
        return 4;
      case Kind::kAntialias:
        // (The support saturates at 2^62 for ratios near 2^100: doubled with saturation.)
        return std::min<int64_t>(
            spec_.in_len,
            saturating_add(
                saturating_mul(saturating_trunc(std::ceil(static_cast<double>(support_))), 2), 1));
      case Kind::kArea:
        return std::min<int64_t>(spec_.in_len, spec_.in_len / spec_.out_len + 2);
      default:
        return 1;
    }
  }

  // Calls sink(index, weight) for every tap of output row `dst`, in table order (source indices
  // nondecreasing).
  template <class Sink>
  void row(int64_t dst, Sink&& sink) const {
    switch (kind_) {
      case Kind::kIdentity:
        sink(dst, W(1));
        return;
      case Kind::kNearest:
        sink(geometry::nearest_index(dst, spec_.in_len, spec_.out_len, spec_.scale), W(1));
        return;
      case Kind::kNearestExact:
        sink(geometry::nearest_exact_index(dst, spec_.in_len, spec_.out_len, spec_.scale), W(1));
        return;
      case Kind::kLinear:
        return linear_row(dst, sink);
      case Kind::kCubic:
      case Kind::kCubicBackward:
        return cubic_row(dst, sink);
      case Kind::kAntialias:
        return antialias_row(dst, sink);
      case Kind::kArea:
        return area_row(dst, sink);
    }
  }

  // The smallest and largest source index row `dst` reads and its number of taps (count 0: the
  // row reads nothing and last < first). Cheap: no weights are computed. Both bounds are
  // nondecreasing in dst for every mode.
  void row_bounds(int64_t dst, int64_t* first, int64_t* last, int64_t* count) const {
    switch (kind_) {
      case Kind::kAntialias: {
        int64_t lo, hi;
        antialias_window(antialias_center(dst), &lo, &hi);
        *first = lo;
        *last = hi - 1;
        *count = std::max<int64_t>(hi - lo, 0);
        return;
      }
      case Kind::kCubic:
      case Kind::kCubicBackward: {
        int64_t i;
        W t;
        cubic_position(dst, &i, &t);
        *first = std::clamp<int64_t>(i - 1, 0, spec_.in_len - 1);
        *last = std::clamp<int64_t>(i + 2, 0, spec_.in_len - 1);
        *count = 4;
        return;
      }
      case Kind::kArea: {
        const int64_t start = geometry::area_start(dst, spec_.in_len, spec_.out_len);
        const int64_t end =
            std::max(geometry::area_end(dst, spec_.in_len, spec_.out_len), start + 1);
        *first = start;
        *last = end - 1;
        *count = end - start;
        return;
      }
      default: {
        int64_t lo = INT64_MAX, hi = INT64_MIN, n = 0;
        row(dst, [&](int64_t index, W) {
          lo = std::min(lo, index);
          hi = std::max(hi, index);
          ++n;
        });
        *first = lo;
        *last = hi;
        *count = n;
        return;
      }
    }
  }

  // Total number of taps of the table (the transposed table has the same number): exact in
  // closed form or by visiting at most kMaxVisitedRows rows (*exact = true); otherwise the upper
  // bound rows() * max_taps_bound(), saturated (*exact = false: such a table is never
  // materialised, see plan.cpp).
  int64_t total_taps(bool* exact = nullptr) const {
    if (exact != nullptr) *exact = true;
    if (kind_ == Kind::kLinear) return saturating_mul(2, rows());
    if (kind_ == Kind::kCubic || kind_ == Kind::kCubicBackward) return saturating_mul(4, rows());
    if (unit_taps()) return rows();
    if (rows() > kMaxVisitedRows) {
      if (exact != nullptr) *exact = false;
      return saturating_mul(rows(), max_taps_bound());
    }
    int64_t total = 0;
    for (int64_t r = 0; r < rows(); ++r) {
      int64_t first, last, count;
      row_bounds(r, &first, &last, &count);
      total = saturating_add(total, count);
    }
    return total;
  }

  // Calls sink(output_row, weight) for every tap of row `src` of the transposed table, in the
  // order transpose() of the materialised table lists them: ascending output row, then the
  // forward row's tap order (a row may read one source index several times).
  template <class Sink>
  void transposed_row(int64_t src, Sink&& sink) const {
    if (kind_ != Kind::kAntialias && kind_ != Kind::kArea) {
      // Rows of at most four taps, never empty: the first tap tells when the rows have moved
      // past `src`, so each row is generated once.
      for (int64_t o = first_row_reading(src); o < rows(); ++o) {
        bool first = true, past = false;
        row(o, [&](int64_t index, W weight) {
          if (first) past = index > src;
          first = false;
          if (index == src) sink(o, weight);
        });
        if (past) break;
      }
      return;
    }
    for (int64_t o = first_row_reading(src); o < rows(); ++o) {
      int64_t first, last, count;
      row_bounds(o, &first, &last, &count);
      if (first > src) break;
      if (count == 0 || last < src) continue;
      row(o, [&](int64_t index, W weight) {
        if (index == src) sink(o, weight);
      });
    }
  }

  // The first output row whose last tap is >= src (rows() if none).
  int64_t first_row_reading(int64_t src) const {
    int64_t lo = 0, hi = rows();
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      int64_t first, last, count;
      row_bounds(mid, &first, &last, &count);
      if (last >= src) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

 private:
  enum class Kind {
    kIdentity,
    kNearest,
    kNearestExact,
    kLinear,
    kCubic,
    kCubicBackward,
    kAntialias,
    kArea
  };

  // PyTorch compute_source_index_and_lambda: two taps (i0, 1 - l) and (i1, l) with
  // i1 = i0 + 1 except at the last input, where both taps are i0 (both are evaluated, as in
  // PyTorch). i0 is clamped to in_len - 1 and l to [0, 1], as newer PyTorch versions guard
  // against scales that point past the end (1.13 would read out of bounds there).
  template <class Sink>
  void linear_row(int64_t dst, Sink& sink) const {
    const double x =
        geometry::linear_source_index(static_cast<double>(ratio_), dst, spec_.align_corners);
    const int64_t i0 = std::min(saturating_trunc(x), spec_.in_len - 1);
    const int64_t i1 = i0 + (i0 < spec_.in_len - 1 ? 1 : 0);
    const W l1 = static_cast<W>(std::clamp(x - static_cast<double>(i0), 0.0, 1.0));
    sink(i0, W(1) - l1);
    sink(i1, l1);
  }

  // PyTorch bicubic (antialias=False): four taps floor(x)-1 .. floor(x)+2, each clamped into
  // [0, in_len - 1] (replicated border; duplicates kept and evaluated separately).
  // cubic_position: the tap floor(x) and the fraction t of output dst.
  void cubic_position(int64_t dst, int64_t* tap, W* fraction) const {
    const int64_t in_len = spec_.in_len;
    if (kind_ == Kind::kCubicBackward) {
      const W xb = geometry::cubic_source_index_backward<W>(ratio_, dst, spec_.align_corners);
      int64_t i = std::min(saturating_floor(static_cast<double>(xb)), in_len - 1);
      i = std::max<int64_t>(i, -2);  // a far-negative coordinate reads only element 0 anyway
      *tap = i;
      *fraction = std::clamp(xb - static_cast<W>(i), W(0), W(1));
      return;
    }
    const double x =
        geometry::cubic_source_index(static_cast<double>(ratio_), dst, spec_.align_corners);
    if (x >= -3.0 && x <= static_cast<double>(in_len) + 2.0) {
      *tap = geometry::cubic_tap(x);
      *fraction = static_cast<W>(x - static_cast<double>(*tap));
    } else {  // far outside (only with a scale that disagrees with the sizes): every tap is the
      *tap = x < 0 ? -2 : in_len + 1;  // border element; a centred tap keeps the weights exact
      *fraction = W(0);
    }
  }
  template <class Sink>
  void cubic_row(int64_t dst, Sink& sink) const {
    int64_t i;
    W t;
    cubic_position(dst, &i, &t);
    W coeffs[4];
    geometry::cubic_coefficients<W>(t, static_cast<W>(geometry::kCubicA), coeffs);
    for (int k = 0; k < 4; ++k) {
      sink(std::clamp<int64_t>(i - 1 + k, 0, spec_.in_len - 1), coeffs[k]);
    }
  }

  // PyTorch _compute_weights_aa (after Pillow's precompute_coeffs): the filter's support is
  // stretched by the downscale ratio, taps outside the input are dropped and the weights are
  // normalised to sum 1. Mixed float/double expressions follow PyTorch's literally. The weights
  // are evaluated twice (sum, then emit): identical values, no scratch buffer.
  W antialias_center(int64_t dst) const {
    return static_cast<W>(ratio_ * (static_cast<double>(dst) + 0.5));
  }
  void antialias_window(W center, int64_t* xmin, int64_t* xmax) const {
    *xmin = std::max(saturating_trunc(center - support_ + 0.5), int64_t{0});
    *xmax = std::min(saturating_trunc(center + support_ + 0.5), spec_.in_len);
  }
  W antialias_filter(int64_t j, W center) const {
    const W arg = static_cast<W>((static_cast<W>(j) - center + 0.5) * invscale_);
    return spec_.mode == Mode::kCubic ? geometry::antialias_cubic_filter<W>(arg)
                                      : geometry::triangle_filter<W>(arg);
  }
  template <class Sink>
  void antialias_row(int64_t dst, Sink& sink) const {
    const W center = antialias_center(dst);
    int64_t xmin, xmax;
    antialias_window(center, &xmin, &xmax);
    W total = 0;
    for (int64_t j = xmin; j < xmax; ++j) total += antialias_filter(j, center);
    for (int64_t j = xmin; j < xmax; ++j) {
      const W value = antialias_filter(j, center);
      sink(j, total != W(0) ? value / total : value);
    }
  }

  // Adaptive average pooling (Note [area window]): output dst averages [start, end) with equal
  // weights 1 / (end - start). PyTorch divides the window's sum by its size; multiplying each
  // tap by the reciprocal is the same up to rounding (docs/numerics.md).
  template <class Sink>
  void area_row(int64_t dst, Sink& sink) const {
    const int64_t start = geometry::area_start(dst, spec_.in_len, spec_.out_len);
    const int64_t end = std::max(geometry::area_end(dst, spec_.in_len, spec_.out_len), start + 1);
    const W w = W(1) / static_cast<W>(end - start);
    for (int64_t j = start; j < end; ++j) sink(j, w);
  }

  AxisSpec spec_;
  Kind kind_ = Kind::kIdentity;
  W ratio_ = W(1);
  W support_ = W(0);
  W invscale_ = W(1);
};

}  // namespace upsample
