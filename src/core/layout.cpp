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
    // Split the view with the longer extent along its largest stride; visit only the slices
    // whose extent meets the other view's.
    const bool split_a = a.extent() >= b.extent() ? a.dims > 0 : b.dims == 0;
    const ByteView& big = split_a ? a : b;
    const ByteView& other = split_a ? b : a;
    ByteView slice = big;
    slice.dims = big.dims - 1;
    const Addr stride = big.stride[big.dims - 1];
    const Addr slice_extent = slice.extent();
    const Addr other_end = other.base + other.extent();
    // Slice k spans [big.base + k * stride, + slice_extent); it meets `other` iff
    // big.base + k * stride < other_end and big.base + k * stride + slice_extent > other.base.
    Addr k_first = floor_div(other.base - slice_extent - big.base, stride) + 1;
    Addr k_last = ceil_div(other_end - big.base, stride) - 1;
    k_first = std::max<Addr>(k_first, 0);
    k_last = std::min<Addr>(k_last, big.size[big.dims - 1] - 1);
    for (Addr k = k_first; k <= k_last; ++k) {
      slice.base = big.base + k * stride;
      if (overlap(slice, other)) return true;
      if (undecided) return true;
    }
    return false;
  }

 private:
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
