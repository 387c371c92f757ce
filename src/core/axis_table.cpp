#include "core/axis_table.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/geometry.hpp"

namespace upsample {
namespace {

template <typename W>
class TableBuilder {
 public:
  TableBuilder(int64_t rows, int64_t src_len, int64_t taps_hint) {
    table_.rows = rows;
    table_.src_len = src_len;
    table_.offsets.reserve(static_cast<size_t>(rows) + 1);
    table_.offsets.push_back(0);
    table_.index.reserve(static_cast<size_t>(rows * taps_hint));
    table_.weight.reserve(static_cast<size_t>(rows * taps_hint));
  }
  void tap(int64_t index, W weight) {
    table_.index.push_back(index);
    table_.weight.push_back(weight);
  }
  void end_row() { table_.offsets.push_back(static_cast<int64_t>(table_.index.size())); }
  AxisTable<W> finish() {
    finalize_flags(&table_);
    return std::move(table_);
  }

  static void finalize_flags(AxisTable<W>* t) {
    bool unit = true;
    bool identity = t->rows == t->src_len;
    for (int64_t r = 0; r < t->rows && (unit || identity); ++r) {
      const bool one_tap = t->taps(r) == 1 && t->weight[t->offsets[r]] == W(1);
      unit = unit && one_tap;
      identity = identity && one_tap && t->index[t->offsets[r]] == r;
    }
    t->unit_taps = unit;
    t->identity = identity;
  }

 private:
  AxisTable<W> table_;
};

template <typename W>
AxisTable<W> identity_table(int64_t len) {
  TableBuilder<W> b(len, len, 1);
  for (int64_t r = 0; r < len; ++r) {
    b.tap(r, W(1));
    b.end_row();
  }
  return b.finish();
}

template <typename W>
AxisTable<W> build_nearest(const AxisSpec& s, bool exact) {
  TableBuilder<W> b(s.out_len, s.in_len, 1);
  for (int64_t dst = 0; dst < s.out_len; ++dst) {
    const int64_t src = exact ? geometry::nearest_exact_index(dst, s.in_len, s.out_len, s.scale)
                              : geometry::nearest_index(dst, s.in_len, s.out_len, s.scale);
    b.tap(std::clamp<int64_t>(src, 0, s.in_len - 1), W(1));
    b.end_row();
  }
  return b.finish();
}

// PyTorch compute_source_index_and_lambda: two taps (i0, 1 - l) and (i1, l) with
// i1 = i0 + 1 except at the last input, where both taps are i0 (both are evaluated, as in
// PyTorch). i0 is clamped to in_len - 1 and l to [0, 1], as newer PyTorch versions guard
// against scales that point past the end (1.13 would read out of bounds there).
template <typename W>
AxisTable<W> build_linear(const AxisSpec& s) {
  if (s.in_len == s.out_len) return identity_table<W>(s.in_len);  // Note [identity axes]
  const W r = geometry::ratio<W>(s.in_len, s.out_len, s.align_corners, s.scale);
  TableBuilder<W> b(s.out_len, s.in_len, 2);
  for (int64_t dst = 0; dst < s.out_len; ++dst) {
    const double x = geometry::linear_source_index(static_cast<double>(r), dst, s.align_corners);
    const int64_t i0 = std::min(static_cast<int64_t>(x), s.in_len - 1);
    const int64_t i1 = i0 + (i0 < s.in_len - 1 ? 1 : 0);
    const W l1 = static_cast<W>(std::clamp(x - static_cast<double>(i0), 0.0, 1.0));
    b.tap(i0, W(1) - l1);
    b.tap(i1, l1);
    b.end_row();
  }
  return b.finish();
}

// PyTorch bicubic (antialias=False): four taps floor(x)-1 .. floor(x)+2, each clamped into
// [0, in_len - 1] (replicated border; duplicates kept and evaluated separately).
template <typename W>
AxisTable<W> build_cubic(const AxisSpec& s) {
  const W r = geometry::ratio<W>(s.in_len, s.out_len, s.align_corners, s.scale);
  TableBuilder<W> b(s.out_len, s.in_len, 4);
  const double far_end = static_cast<double>(s.in_len) + 2.0;
  for (int64_t dst = 0; dst < s.out_len; ++dst) {
    const double x = geometry::cubic_source_index(static_cast<double>(r), dst, s.align_corners);
    int64_t i;
    W t;
    if (s.for_backward) {
      const W xb = geometry::cubic_source_index_backward<W>(r, dst, s.align_corners);
      i = std::min(static_cast<int64_t>(std::floor(xb)), s.in_len - 1);
      i = std::max<int64_t>(i, -2);  // a far-negative coordinate reads only element 0 anyway
      t = std::clamp(xb - static_cast<W>(i), W(0), W(1));
    } else if (x >= -3.0 && x <= far_end) {
      i = geometry::cubic_tap(x);
      t = static_cast<W>(x - static_cast<double>(i));
    } else {  // far outside (only with a scale that disagrees with the sizes): every tap is the
      i = x < 0 ? -2 : s.in_len + 1;  // border element; a centred tap keeps the weights exact
      t = W(0);
    }
    W coeffs[4];
    geometry::cubic_coefficients<W>(t, static_cast<W>(geometry::kCubicA), coeffs);
    for (int k = 0; k < 4; ++k) b.tap(std::clamp<int64_t>(i - 1 + k, 0, s.in_len - 1), coeffs[k]);
    b.end_row();
  }
  return b.finish();
}

// PyTorch _compute_weights_aa (after Pillow's precompute_coeffs): the filter's support is
// stretched by the downscale ratio, taps outside the input are dropped and the weights are
// normalised to sum 1. Mixed float/double expressions follow PyTorch's literally.
template <typename W>
AxisTable<W> build_antialias(const AxisSpec& s) {
  const bool cubic = s.mode == Mode::kCubic;
  const double interp_size = cubic ? 4.0 : 2.0;
  const W scale = geometry::ratio<W>(s.in_len, s.out_len, s.align_corners, s.scale);
  // Same size at ratio 1 is a copy (Note [identity axes]); a user scale != 1 still resamples.
  if (s.in_len == s.out_len && scale == W(1)) return identity_table<W>(s.in_len);
  const W support = static_cast<W>(scale >= W(1) ? (interp_size * 0.5) * scale : interp_size * 0.5);
  const W invscale = scale >= W(1) ? W(1) / scale : W(1);
  TableBuilder<W> b(s.out_len, s.in_len, static_cast<int64_t>(std::ceil(support)) * 2 + 1);
  std::vector<W> w;
  for (int64_t dst = 0; dst < s.out_len; ++dst) {
    const W center = static_cast<W>(scale * (static_cast<double>(dst) + 0.5));
    const int64_t xmin =
        std::max(static_cast<int64_t>(center - support + 0.5), static_cast<int64_t>(0));
    const int64_t xmax = std::min(static_cast<int64_t>(center + support + 0.5), s.in_len);
    w.clear();
    W total = 0;
    for (int64_t j = xmin; j < xmax; ++j) {
      const W arg = static_cast<W>((static_cast<W>(j) - center + 0.5) * invscale);
      const W value =
          cubic ? geometry::antialias_cubic_filter<W>(arg) : geometry::triangle_filter<W>(arg);
      w.push_back(value);
      total += value;
    }
    for (size_t k = 0; k < w.size(); ++k) {
      b.tap(xmin + static_cast<int64_t>(k), total != W(0) ? w[k] / total : w[k]);
    }
    b.end_row();
  }
  return b.finish();
}

// Adaptive average pooling (Note [area window]): output dst averages [start, end) with equal
// weights 1 / (end - start). PyTorch divides the window's sum by its size; multiplying each tap
// by the reciprocal is the same up to rounding (docs/numerics.md).
template <typename W>
AxisTable<W> build_area(const AxisSpec& s) {
  if (s.in_len == s.out_len) return identity_table<W>(s.in_len);
  TableBuilder<W> b(s.out_len, s.in_len, (s.in_len + s.out_len - 1) / s.out_len + 1);
  for (int64_t dst = 0; dst < s.out_len; ++dst) {
    const int64_t start = geometry::area_start(dst, s.in_len, s.out_len);
    const int64_t end = std::max(geometry::area_end(dst, s.in_len, s.out_len), start + 1);
    const W w = W(1) / static_cast<W>(end - start);
    for (int64_t j = start; j < end; ++j) b.tap(j, w);
    b.end_row();
  }
  return b.finish();
}

}  // namespace

template <typename W>
int64_t AxisTable<W>::max_taps() const {
  int64_t m = 0;
  for (int64_t r = 0; r < rows; ++r) m = std::max(m, taps(r));
  return m;
}

template <typename W>
bool AxisTable<W>::uniform_taps() const {
  if (rows == 0) return true;
  const int64_t t0 = taps(0);
  for (int64_t r = 1; r < rows; ++r) {
    if (taps(r) != t0) return false;
  }
  return true;
}

template <typename W>
AxisTable<W> build_axis_table(const AxisSpec& spec) {
  if (spec.antialias && (spec.mode == Mode::kLinear || spec.mode == Mode::kCubic)) {
    return build_antialias<W>(spec);
  }
  switch (spec.mode) {
    case Mode::kNearest:
      return build_nearest<W>(spec, /*exact=*/false);
    case Mode::kNearestExact:
      return build_nearest<W>(spec, /*exact=*/true);
    case Mode::kLinear:
      return build_linear<W>(spec);
    case Mode::kCubic:
      return build_cubic<W>(spec);
    case Mode::kArea:
      return build_area<W>(spec);
  }
  return {};
}

template <typename W>
AxisTable<W> transpose(const AxisTable<W>& t) {
  AxisTable<W> out;
  out.rows = t.src_len;
  out.src_len = t.rows;
  out.offsets.assign(static_cast<size_t>(out.rows) + 1, 0);
  for (int64_t idx : t.index) ++out.offsets[idx + 1];
  for (int64_t r = 0; r < out.rows; ++r) out.offsets[r + 1] += out.offsets[r];
  out.index.resize(t.index.size());
  out.weight.resize(t.weight.size());
  std::vector<int64_t> cursor(out.offsets.begin(), out.offsets.end() - 1);
  // Visiting forward rows in ascending order leaves each transposed row in ascending
  // destination order: the summation order of the backward gather is fixed by the table.
  for (int64_t r = 0; r < t.rows; ++r) {
    for (int64_t e = t.offsets[r]; e < t.offsets[r + 1]; ++e) {
      const int64_t pos = cursor[t.index[e]]++;
      out.index[pos] = r;
      out.weight[pos] = t.weight[e];
    }
  }
  TableBuilder<W>::finalize_flags(&out);
  return out;
}

template <typename W>
AxisTable<W> interleave(const AxisTable<W>& t, int64_t group) {
  TableBuilder<W> b(t.rows * group, t.src_len * group, t.max_taps());
  for (int64_t r = 0; r < t.rows; ++r) {
    for (int64_t c = 0; c < group; ++c) {
      for (int64_t e = t.offsets[r]; e < t.offsets[r + 1]; ++e) {
        b.tap(t.index[e] * group + c, t.weight[e]);
      }
      b.end_row();
    }
  }
  return b.finish();
}

template <typename W>
std::string check_invariants(const AxisTable<W>& t) {
  std::ostringstream why;
  if (static_cast<int64_t>(t.offsets.size()) != t.rows + 1 || t.offsets.front() != 0 ||
      t.offsets.back() != static_cast<int64_t>(t.index.size()) ||
      t.index.size() != t.weight.size()) {
    return "offsets/index/weight sizes are inconsistent";
  }
  for (int64_t r = 0; r < t.rows; ++r) {
    if (t.offsets[r + 1] < t.offsets[r]) {
      why << "offsets decrease at row " << r;
      return why.str();
    }
    for (int64_t e = t.offsets[r]; e < t.offsets[r + 1]; ++e) {
      if (t.index[e] < 0 || t.index[e] >= t.src_len) {
        why << "row " << r << " tap " << e - t.offsets[r] << " index " << t.index[e]
            << " outside [0, " << t.src_len << ")";
        return why.str();
      }
      if (e > t.offsets[r] && t.index[e] < t.index[e - 1]) {
        why << "row " << r << " indices decrease at tap " << e - t.offsets[r];
        return why.str();
      }
    }
  }
  AxisTable<W> copy = t;
  TableBuilder<W>::finalize_flags(&copy);
  if (copy.identity != t.identity || copy.unit_taps != t.unit_taps) return "flags disagree";
  return {};
}

template struct AxisTable<float>;
template struct AxisTable<double>;
template AxisTable<float> build_axis_table<float>(const AxisSpec&);
template AxisTable<double> build_axis_table<double>(const AxisSpec&);
template AxisTable<float> transpose<float>(const AxisTable<float>&);
template AxisTable<float> interleave<float>(const AxisTable<float>&, int64_t);
template AxisTable<double> interleave<double>(const AxisTable<double>&, int64_t);
template AxisTable<double> transpose<double>(const AxisTable<double>&);
template std::string check_invariants<float>(const AxisTable<float>&);
template std::string check_invariants<double>(const AxisTable<double>&);

}  // namespace upsample
