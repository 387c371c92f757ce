#include "core/layout.hpp"

#include <algorithm>
#include <numeric>
#include <sstream>

#include "core/checked.hpp"

namespace upsample::core {

DimOrder stride_order(const TensorDesc& t) {
  DimOrder order{};
  std::iota(order.begin(), order.begin() + t.rank, 0);
  std::stable_sort(order.begin(), order.begin() + t.rank, [&](int a, int b) {
    if (t.sizes[a] == 1 || t.sizes[b] == 1) return false;  // size-1 dims keep their place
    return t.strides[a] > t.strides[b];
  });
  return order;
}

bool dense_in_order(const TensorDesc& t, const DimOrder& order) {
  int64_t expected = 1;
  for (int i = t.rank - 1; i >= 0; --i) {
    const int d = order[i];
    if (t.sizes[d] != 1 && t.strides[d] != expected) return false;
    if (!checked_mul(expected, t.sizes[d], &expected)) return false;
  }
  return true;
}

std::array<int64_t, kMaxRank> dense_strides(const std::array<int64_t, kMaxRank>& sizes, int rank,
                                            const DimOrder& order) {
  std::array<int64_t, kMaxRank> strides{};
  int64_t s = 1;
  for (int i = rank - 1; i >= 0; --i) {
    strides[order[i]] = s;
    s *= sizes[order[i]];  // the plan validated that every tensor's element count fits
  }
  return strides;
}

bool element_span(const TensorDesc& t, int64_t* lowest, int64_t* highest) {
  CheckedInt64 lo = 0, hi = 0;
  for (int d = 0; d < t.rank; ++d) {
    if (t.sizes[d] == 0) {
      *lowest = *highest = 0;
      return true;
    }
  }
  for (int d = 0; d < t.rank; ++d) {
    const CheckedInt64 span = CheckedInt64(t.sizes[d] - 1) * t.strides[d];
    if (!span.ok()) return false;
    (span.value() < 0 ? lo : hi) += span;
  }
  if (!lo.ok() || !hi.ok()) return false;
  *lowest = lo.value();
  *highest = hi.value();
  return true;
}

namespace {

// Insertion sort of at most kMaxRank (stride, size) pairs, ascending.
template <typename Pair>
void sort_small(Pair* p, int n) {
  for (int i = 1; i < n; ++i) {
    for (int j = i; j > 0 && p[j] < p[j - 1]; --j) std::swap(p[j], p[j - 1]);
  }
}

}  // namespace

bool self_overlapping(const TensorDesc& t) {
  std::array<std::pair<int64_t, int64_t>, kMaxRank> dims{};  // (|stride|, size), size > 1
  int count = 0;
  for (int d = 0; d < t.rank; ++d) {
    if (t.sizes[d] == 0) return false;
    if (t.sizes[d] > 1) {
      if (t.strides[d] == INT64_MIN) return true;  // |stride| does not fit: not addressable
      dims[count++] = {t.strides[d] < 0 ? -t.strides[d] : t.strides[d], t.sizes[d]};
    }
  }
  sort_small(dims.data(), count);
  // Sorted by stride, the view is free of overlaps when every stride reaches past the elements
  // spanned by the smaller dims (the classic non-overlap test; sufficient, and exact for the
  // views a resampler writes).
  CheckedInt64 extent = 1;
  for (int k = 0; k < count; ++k) {
    const auto [stride, size] = dims[k];
    if (stride < extent.value()) return true;
    extent = CheckedInt64(stride) * (size - 1) + extent;
    if (!extent.ok()) return true;
  }
  return false;
}

namespace {

using Addr = __int128;

// A view in bytes: element byte ranges [base + sum(i_k * stride_k), ... + elem) for
// 0 <= i_k < size_k; strides made positive (same set of elements), size-1 dims dropped, sorted by
// stride ascending.
struct ByteView {
  Addr base = 0;
  Addr elem = 1;
  int dims = 0;
  Addr size[kMaxRank] = {};
  Addr stride[kMaxRank] = {};

  Addr extent() const {  // bytes from base to the end of the last element
    Addr e = elem;
    for (int k = 0; k < dims; ++k) e += (size[k] - 1) * stride[k];
    return e;
  }
  // Every byte of [base, base + extent()) belongs to some element.
  bool covers() const {
    Addr reach = elem;
    for (int k = 0; k < dims; ++k) {
      if (stride[k] > reach) return false;
      reach += (size[k] - 1) * stride[k];
    }
    return true;
  }
};

ByteView to_bytes(const PlacedView& v) {
  ByteView b;
  b.base = static_cast<Addr>(v.base);
  b.elem = static_cast<Addr>(dtype_size(v.desc->dtype));
  std::array<std::pair<Addr, Addr>, kMaxRank> dims{};  // (stride, size); no allocation here:
  int count = 0;                                       // execute() checks overlaps too
  for (int d = 0; d < v.desc->rank; ++d) {
    if (v.desc->sizes[d] <= 1 || v.desc->strides[d] == 0) continue;  // no new addresses
    Addr stride = static_cast<Addr>(v.desc->strides[d]) * b.elem;
    const Addr size = v.desc->sizes[d];
    if (stride < 0) {
      b.base += (size - 1) * stride;
      stride = -stride;
    }
    dims[count++] = {stride, size};
  }
  sort_small(dims.data(), count);
  for (int k = 0; k < count; ++k) {
    b.stride[b.dims] = dims[k].first;
    b.size[b.dims] = dims[k].second;
    ++b.dims;
  }
  return b;
}

Addr gcd128(Addr a, Addr b) {
  while (b != 0) {
    const Addr t = a % b;
    a = b;
    b = t;
  }
  return a < 0 ? -a : a;
}

// Decides whether two byte views share a byte by splitting them into slices along their largest
// stride, visiting only slices that can meet the other view. Two reductions keep the work
// independent of the number of rows for the views that occur in practice (several views into
// one tensor: even/odd rows, every third row, side-by-side blocks, channel slices):
//  - rows of equal stride S (each view's rows narrower than S): row k of one view can meet only
//    the two rows of the other that start within S of it, and which pair that is does not depend
//    on k - two checks of the row patterns decide every row;
//  - rows of the other view whose stride divides the split stride: every slice meets the other
//    view's rows at the same phase, so all slices whose neighbouring rows of the other view all
//    exist give the same answer - one is checked, plus the few slices at either end.
// The work is still bounded (kBudget visits): a view pair too intricate for both reductions is
// reported as overlapping with `undecided` set, so a real overlap is never missed.
class OverlapSearch {
 public:
  static constexpr int64_t kBudget = int64_t{1} << 22;
  bool undecided = false;

  bool overlap(const ByteView& a, const ByteView& b) {
    if (++visited_ > kBudget) {
      undecided = true;
      return true;
    }
    const Addr a_end = a.base + a.extent(), b_end = b.base + b.extent();
    if (a_end <= b.base || b_end <= a.base) return false;
    if (a.covers() && b.covers()) return true;
    if (residues_apart(a, b)) return false;
    if (is_lattice(a) && is_lattice(b)) {
      const Addr sa = top_stride(a), sb = top_stride(b);
      if (sa == sb) return rows_overlap(a, b);
      if (sa % sb == 0) return split(a, b, /*periodic=*/true);
      if (sb % sa == 0) return split(b, a, /*periodic=*/true);
    }
    // Split the view with the longer extent along its largest stride.
    const bool split_a = a.extent() >= b.extent() ? a.dims > 0 : b.dims == 0;
    return split_a ? split(a, b, false) : split(b, a, false);
  }

 private:
  static Addr top_stride(const ByteView& v) { return v.stride[v.dims - 1]; }
  // v without its largest-stride dim (one row), at v's base.
  static ByteView row_of(const ByteView& v) {
    ByteView r = v;
    r.dims = v.dims - 1;
    return r;
  }
  // Rows along the largest stride that do not overlap each other.
  static bool is_lattice(const ByteView& v) {
    return v.dims > 0 && row_of(v).extent() <= top_stride(v);
  }
  // Two lattices of equal row stride S. With b.base - a.base = q * S + r (0 <= r < S), row k of
  // a can meet only row j = k - q of b (which starts r bytes later) or row j = k - q - 1 (which
  // starts S - r bytes earlier), for the rows both views have.
  bool rows_overlap(const ByteView& a, const ByteView& b) {
    const Addr s = top_stride(a);
    const Addr ka = a.size[a.dims - 1], kb = b.size[b.dims - 1];
    const Addr q = floor_div(b.base - a.base, s);
    const Addr r = b.base - a.base - q * s;
    ByteView row_a = row_of(a), row_b = row_of(b);
    row_a.base = 0;
    for (const Addr shift : {Addr{0}, Addr{1}}) {  // k = j + q + shift
      const Addr j_first = std::max<Addr>(0, -q - shift);
      const Addr j_last = std::min<Addr>(kb, ka - q - shift) - 1;
      if (j_first > j_last) continue;
      row_b.base = r - shift * s;
      if (overlap(row_a, row_b)) return true;
      if (undecided) return true;
    }
    return false;
  }

  // Visits the slices of `big` along its largest stride that can meet `other`. `periodic`: other
  // is a lattice whose row stride divides big's, so slices whose reach of other's rows is not
  // cut off by other's first or last row all give the answer of the first such slice.
  bool split(const ByteView& big, const ByteView& other, bool periodic) {
    ByteView slice = row_of(big);
    const Addr stride = top_stride(big);
    const Addr slice_extent = slice.extent();
    const Addr other_end = other.base + other.extent();
    // Slice k spans [big.base + k * stride, + slice_extent); it meets `other`'s hull iff
    // big.base + k * stride < other_end and big.base + k * stride + slice_extent > other.base.
    const Addr k_first =
        std::max<Addr>(floor_div(other.base - slice_extent - big.base, stride) + 1, 0);
    const Addr k_last =
        std::min<Addr>(ceil_div(other_end - big.base, stride) - 1, big.size[big.dims - 1] - 1);
    const Addr t = periodic ? top_stride(other) : 1;
    const Addr other_rows = periodic ? other.size[other.dims - 1] : 0;
    const Addr other_row_extent = periodic ? row_of(other).extent() : 0;
    bool interior_checked = false;
    for (Addr k = k_first; k <= k_last; ++k) {
      slice.base = big.base + k * stride;
      if (periodic) {
        // The rows j of other whose span meets the slice: other.base + j * t is within
        // (slice.base - other_row_extent, slice.base + slice_extent).
        const Addr j_lo = floor_div(slice.base - other_row_extent - other.base, t) + 1;
        const Addr j_hi = ceil_div(slice.base + slice_extent - other.base, t) - 1;
        if (j_lo >= 0 && j_hi < other_rows) {
          if (interior_checked) {
            // Skip to the last interior slice's successor: j_hi grows by stride / t per slice.
            const Addr last_interior = k + (other_rows - 1 - j_hi) / (stride / t);
            k = std::min(last_interior, k_last);
            continue;
          }
          interior_checked = true;
        }
      }
      if (overlap(slice, other)) return true;
      if (undecided) return true;
    }
    return false;
  }

  // Every element address of a is congruent to a.base modulo g, every address of b to b.base,
  // where g divides all strides: when the residues keep every pair at least one element apart,
  // no bytes are shared (even/odd interleavings).
  static bool residues_apart(const ByteView& a, const ByteView& b) {
    Addr g = 0;
    for (int k = 0; k < a.dims; ++k) g = gcd128(g, a.stride[k]);
    for (int k = 0; k < b.dims; ++k) g = gcd128(g, b.stride[k]);
    if (g == 0) return false;
    Addr d = (a.base - b.base) % g;
    if (d < 0) d += g;
    // Differences a - b take the values d + m * g; elements meet iff -a.elem < a - b < b.elem.
    return d >= b.elem && g - d >= a.elem;
  }
  static Addr floor_div(Addr x, Addr y) { return x >= 0 ? x / y : -((-x + y - 1) / y); }
  static Addr ceil_div(Addr x, Addr y) { return x >= 0 ? (x + y - 1) / y : -((-x) / y); }

  int64_t visited_ = 0;
};

}  // namespace

bool views_overlap(const PlacedView& a, const PlacedView& b, bool* undecided) {
  if (undecided != nullptr) *undecided = false;
  if (a.desc->numel() == 0 || b.desc->numel() == 0) return false;
  OverlapSearch search;
  const bool result = search.overlap(to_bytes(a), to_bytes(b));
  if (undecided != nullptr) *undecided = search.undecided;
  return result;
}

std::string sizes_string(const TensorDesc& t) {
  std::ostringstream os;
  os << "[";
  for (int d = 0; d < t.rank; ++d) os << (d ? "," : "") << t.sizes[d];
  os << "]";
  return os.str();
}

}  // namespace upsample::core
