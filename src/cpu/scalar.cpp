// Scalar kernels for every reachable storage-type pair, the element-moving kernels, and the
// streaming kernel for tables too long to materialise.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "cpu/kernels.hpp"

namespace upsample::cpu {
namespace {

// Vertical shape: the accumulator lives in a fixed stack chunk (execute() allocates nothing).
template <typename Tin, typename Tout, typename W>
void vertical_scalar(const PassArgs<W>& a, const void* src_v, void* dst_v, int64_t begin,
                     int64_t end, void* /* scratch */) {
  constexpr int64_t kChunk = 256;
  const PassShape& s = a.shape;
  const AxisTable<W>& t = a.table->table;
  const Tin* src = static_cast<const Tin*>(src_v);
  Tout* dst = static_cast<Tout*>(dst_v);
  W acc[kChunk];
  // Items are (o, r) pairs in row-major order; no division per item (it dominated small rows).
  int64_t o = begin / s.rows, r = begin % s.rows;
  for (int64_t item = begin; item < end; ++item, ++r) {
    if (r == s.rows) {
      r = 0;
      ++o;
    }
    const Tin* src_plane = src + o * s.src_len * s.inner;
    Tout* out = dst + item * s.inner;
    const int64_t e0 = t.offsets[r], e1 = t.offsets[r + 1];
    for (int64_t i0 = 0; i0 < s.inner; i0 += kChunk) {
      const int64_t n = std::min(kChunk, s.inner - i0);
      if (e0 == e1) {
        std::fill(acc, acc + n, W(0));
      } else {
        const W w = t.weight[e0];
        const Tin* x = src_plane + (t.index[e0] - a.index_bias) * s.inner + i0;
        for (int64_t i = 0; i < n; ++i) acc[i] = w * load_as<W>(x + i);
      }
      for (int64_t e = e0 + 1; e < e1; ++e) {
        const W w = t.weight[e];
        const Tin* x = src_plane + (t.index[e] - a.index_bias) * s.inner + i0;
        for (int64_t i = 0; i < n; ++i) acc[i] = acc[i] + w * load_as<W>(x + i);
      }
      for (int64_t i = 0; i < n; ++i) store_from(out + i0 + i, acc[i]);
    }
  }
}

template <typename Tin, typename Tout, typename W>
void horizontal_scalar(const PassArgs<W>& a, const void* src_v, void* dst_v, int64_t begin,
                       int64_t end, void* /* scratch */) {
  const PassShape& s = a.shape;
  const PassTable<W>& p = *a.table;
  const Tin* src = static_cast<const Tin*>(src_v);
  Tout* dst = static_cast<Tout*>(dst_v);
  for (int64_t o = begin; o < end; ++o) {
    const Tin* x = src + o * s.src_len;
    Tout* out = dst + o * s.rows;
    for (int64_t r = 0; r < s.rows; ++r) {
      store_from(out + r, horizontal_output(p.table, r, x, p.consecutive_taps));
    }
  }
}

// Streams row r of the axis' (transposed) table: the row generator yields its taps in table
// order, so each output gets exactly the arithmetic of the materialised kernels. A chunk of
// `inner` is accumulated per visit of the row.
template <typename W, class Sink>
void visit_row(const core::Axis<W>& axis, int64_t r, Sink&& sink) {
  if (axis.transposed) {
    axis.weights.transposed_row(r, sink);
  } else {
    axis.weights.row(r, sink);
  }
}

template <typename Tin, typename Tout, typename W>
void streamed_scalar(const PassArgs<W>& a, const void* src_v, void* dst_v, int64_t begin,
                     int64_t end, void* /* scratch */) {
  constexpr int64_t kChunk = 256;
  const PassShape& s = a.shape;
  const Tin* src = static_cast<const Tin*>(src_v);
  Tout* dst = static_cast<Tout*>(dst_v);
  W acc[kChunk];
  for (int64_t item = begin; item < end; ++item) {
    const int64_t o = item / s.rows, r = item % s.rows;
    const Tin* src_plane = src + o * s.src_len * s.inner;
    Tout* out = dst + item * s.inner;
    for (int64_t i0 = 0; i0 < s.inner; i0 += kChunk) {
      const int64_t n = std::min(kChunk, s.inner - i0);
      bool first = true;
      visit_row(*a.axis, r, [&](int64_t index, W w) {
        const Tin* x = src_plane + index * s.inner + i0;
        if (first) {
          for (int64_t i = 0; i < n; ++i) acc[i] = w * load_as<W>(x + i);
          first = false;
        } else {
          for (int64_t i = 0; i < n; ++i) acc[i] = acc[i] + w * load_as<W>(x + i);
        }
      });
      if (first) std::fill(acc, acc + n, W(0));
      for (int64_t i = 0; i < n; ++i) store_from(out + i0 + i, acc[i]);
    }
  }
}

// The vertical (kStreamed false: a materialised table) and streamed kernels with premultiplied
// alpha: the same arithmetic, with each loaded colour element multiplied by its pixel's alpha
// and each stored colour output divided by its pixel's alpha output (kernels.hpp). Chunks of
// the inner run hold whole pixels.
template <typename Tin, typename Tout, typename W, bool kStreamed>
void alpha_scalar(const PassArgs<W>& a, const void* src_v, void* dst_v, int64_t begin, int64_t end,
                  void* /* scratch */) {
  constexpr int64_t kChunk = 256;
  const PassShape& s = a.shape;
  const int64_t channels = a.alpha_channels;
  const int64_t chunk = kChunk / channels * channels;
  const Tin* src = static_cast<const Tin*>(src_v);
  Tout* dst = static_cast<Tout*>(dst_v);
  W acc[kChunk];
  for (int64_t item = begin; item < end; ++item) {
    const int64_t o = item / s.rows, r = item % s.rows;
    const Tin* src_plane = src + o * s.src_len * s.inner;
    Tout* out = dst + item * s.inner;
    for (int64_t i0 = 0; i0 < s.inner; i0 += chunk) {
      const int64_t n = std::min(chunk, s.inner - i0);
      bool first = true;
      auto tap = [&](int64_t index, W w) {
        const Tin* run = src_plane + (index - a.index_bias) * s.inner;
        for (int64_t i = 0; i < n; ++i) {
          const W v = a.premultiply ? load_premultiplied<W>(run, i0 + i, channels)
                                    : load_as<W>(run + i0 + i);
          acc[i] = first ? w * v : acc[i] + w * v;
        }
        first = false;
      };
      if constexpr (kStreamed) {
        visit_row(*a.axis, r, tap);
      } else {
        const AxisTable<W>& t = a.table->table;
        for (int64_t e = t.offsets[r]; e < t.offsets[r + 1]; ++e) tap(t.index[e], t.weight[e]);
      }
      if (first) std::fill(acc, acc + n, W(0));
      for (int64_t i = 0; i < n; ++i) {
        const int64_t c = (i0 + i) % channels;
        W v = acc[i];
        if (a.unpremultiply && c != channels - 1) v = unpremultiplied(v, acc[i - c + channels - 1]);
        store_from(out + i0 + i, v);
      }
    }
  }
}

template <size_t kSize>
struct Bytes {
  unsigned char b[kSize];
};

template <typename T, typename W>
void gather_copy_horizontal(const PassArgs<W>& a, const void* src_v, void* dst_v, int64_t begin,
                            int64_t end, void* /* scratch */) {
  const PassShape& s = a.shape;
  const int64_t* index = a.table->table.index.data();
  const T* src = static_cast<const T*>(src_v);
  T* dst = static_cast<T*>(dst_v);
  for (int64_t o = begin; o < end; ++o) {
    const T* x = src + o * s.src_len;
    T* out = dst + o * s.rows;
    for (int64_t r = 0; r < s.rows; ++r) out[r] = x[index[r]];
  }
}

template <typename T, typename W>
void gather_copy_vertical(const PassArgs<W>& a, const void* src_v, void* dst_v, int64_t begin,
                          int64_t end, void* /* scratch */) {
  const PassShape& s = a.shape;
  const int64_t* index = a.table->table.index.data();
  const T* src = static_cast<const T*>(src_v);
  T* dst = static_cast<T*>(dst_v);
  int64_t o = begin / s.rows, r = begin % s.rows;
  for (int64_t item = begin; item < end; ++item, ++r) {
    if (r == s.rows) {
      r = 0;
      ++o;
    }
    std::memcpy(dst + item * s.inner, src + (o * s.src_len + index[r] - a.index_bias) * s.inner,
                static_cast<size_t>(s.inner) * sizeof(T));
  }
}

template <typename T, typename W>
void streamed_gather_copy_kernel(const PassArgs<W>& a, const void* src_v, void* dst_v,
                                 int64_t begin, int64_t end, void* /* scratch */) {
  const PassShape& s = a.shape;
  const T* src = static_cast<const T*>(src_v);
  T* dst = static_cast<T*>(dst_v);
  for (int64_t item = begin; item < end; ++item) {
    const int64_t o = item / s.rows, r = item % s.rows;
    int64_t index = 0;
    a.axis->weights.row(r, [&index](int64_t i, W) { index = i; });
    std::memcpy(dst + item * s.inner, src + (o * s.src_len + index) * s.inner,
                static_cast<size_t>(s.inner) * sizeof(T));
  }
}

// Item = one index of all dims but the last; the last dim is copied in a loop.
template <typename W>
void strided_copy_kernel(const PassArgs<W>& a, const void* src_v, void* dst_v, int64_t begin,
                         int64_t end, void* /* scratch */) {
  const core::CopyShape& c = a.copy;
  const auto* in = static_cast<const unsigned char*>(src_v);
  auto* out = static_cast<unsigned char*>(dst_v);
  const int last = c.rank - 1;
  const int64_t len = c.rank == 0 ? 1 : c.sizes[last];
  const int64_t in_step = c.rank == 0 ? 0 : c.src_strides[last];
  const int64_t out_step = c.rank == 0 ? 0 : c.dst_strides[last];
  const int64_t es = static_cast<int64_t>(c.elem_size);
  for (int64_t item = begin; item < end; ++item) {
    int64_t rem = item, in_off = 0, out_off = 0;
    for (int d = last - 1; d >= 0; --d) {
      const int64_t i = rem % c.sizes[d];
      rem /= c.sizes[d];
      in_off += i * c.src_strides[d];
      out_off += i * c.dst_strides[d];
    }
    if (in_step == 1 && out_step == 1) {
      std::memcpy(out + out_off * es, in + in_off * es, static_cast<size_t>(len * es));
      continue;
    }
    for (int64_t j = 0; j < len; ++j) {
      std::memcpy(out + (out_off + j * out_step) * es, in + (in_off + j * in_step) * es,
                  c.elem_size);
    }
  }
}

// The kernel template K<Tin, Tout, W> for a reachable runtime pair (kernels.hpp, kReachable),
// nullptr otherwise; only reachable pairs are instantiated.
template <typename W, template <typename, typename, typename> class K, typename Tin>
PassFn<W> pick_out(DType out) {
  return visit_dtype(out, [](auto tout) -> PassFn<W> {
    using Tout = decltype(tout);
    if constexpr (kReachable<W, Tin, Tout>) {
      return &K<Tin, Tout, W>::run;
    } else {
      return nullptr;
    }
  });
}

template <typename W, template <typename, typename, typename> class K>
PassFn<W> pick(DType in, DType out) {
  return visit_dtype(in, [out](auto tin) { return pick_out<W, K, decltype(tin)>(out); });
}

template <typename Tin, typename Tout, typename W>
struct Vertical {
  static void run(const PassArgs<W>& a, const void* s, void* d, int64_t b, int64_t e, void* x) {
    vertical_scalar<Tin, Tout, W>(a, s, d, b, e, x);
  }
};
template <typename Tin, typename Tout, typename W>
struct Horizontal {
  static void run(const PassArgs<W>& a, const void* s, void* d, int64_t b, int64_t e, void* x) {
    horizontal_scalar<Tin, Tout, W>(a, s, d, b, e, x);
  }
};
template <typename Tin, typename Tout, typename W>
struct Streamed {
  static void run(const PassArgs<W>& a, const void* s, void* d, int64_t b, int64_t e, void* x) {
    streamed_scalar<Tin, Tout, W>(a, s, d, b, e, x);
  }
};

template <typename Tin, typename Tout, typename W>
struct VerticalAlpha {
  static void run(const PassArgs<W>& a, const void* s, void* d, int64_t b, int64_t e, void* x) {
    alpha_scalar<Tin, Tout, W, false>(a, s, d, b, e, x);
  }
};
template <typename Tin, typename Tout, typename W>
struct StreamedAlpha {
  static void run(const PassArgs<W>& a, const void* s, void* d, int64_t b, int64_t e, void* x) {
    alpha_scalar<Tin, Tout, W, true>(a, s, d, b, e, x);
  }
};

// The element-moving kernel K<Bytes<n>, W> for the element size n of a storage type of
// StorageTypes<W>, nullptr for another size; only those sizes are instantiated.
template <typename W, template <typename, typename> class K>
PassFn<W> by_size(size_t elem_size) {
  PassFn<W> fn = nullptr;
  for_each_type(StorageTypes<W>{}, [&](auto tag) {
    if (sizeof(tag) == elem_size) fn = &K<Bytes<sizeof(tag)>, W>::run;
  });
  return fn;
}
template <typename T, typename W>
struct CopyH {
  static void run(const PassArgs<W>& a, const void* s, void* d, int64_t b, int64_t e, void* x) {
    gather_copy_horizontal<T, W>(a, s, d, b, e, x);
  }
};
template <typename T, typename W>
struct CopyV {
  static void run(const PassArgs<W>& a, const void* s, void* d, int64_t b, int64_t e, void* x) {
    gather_copy_vertical<T, W>(a, s, d, b, e, x);
  }
};
template <typename T, typename W>
struct CopyStreamed {
  static void run(const PassArgs<W>& a, const void* s, void* d, int64_t b, int64_t e, void* x) {
    streamed_gather_copy_kernel<T, W>(a, s, d, b, e, x);
  }
};

}  // namespace

int64_t copy_items(const core::CopyShape& c) {
  int64_t items = 1;
  for (int d = 0; d + 1 < c.rank; ++d) items *= c.sizes[d];
  return items;
}

template <typename W>
bool reachable_types(DType in, DType out) {
  return pick<W, Vertical>(in, out) != nullptr;
}

template <typename W>
PassFn<W> scalar_vertical(DType in, DType out) {
  return pick<W, Vertical>(in, out);
}
template <typename W>
PassFn<W> scalar_horizontal(DType in, DType out) {
  return pick<W, Horizontal>(in, out);
}
template <typename W>
PassFn<W> scalar_streamed(DType in, DType out) {
  return pick<W, Streamed>(in, out);
}
template <typename W>
PassFn<W> scalar_vertical_alpha(DType in, DType out) {
  return pick<W, VerticalAlpha>(in, out);
}
template <typename W>
PassFn<W> scalar_streamed_alpha(DType in, DType out) {
  return pick<W, StreamedAlpha>(in, out);
}
template <typename W>
PassFn<W> gather_copy(size_t elem_size, bool horizontal) {
  return horizontal ? by_size<W, CopyH>(elem_size) : by_size<W, CopyV>(elem_size);
}
template <typename W>
PassFn<W> streamed_gather_copy(size_t elem_size) {
  return by_size<W, CopyStreamed>(elem_size);
}
template <typename W>
PassFn<W> strided_copy() {
  return &strided_copy_kernel<W>;
}

#define UPSAMPLE_INSTANTIATE(W)                              \
  template bool reachable_types<W>(DType, DType);            \
  template PassFn<W> scalar_vertical<W>(DType, DType);       \
  template PassFn<W> scalar_horizontal<W>(DType, DType);     \
  template PassFn<W> scalar_streamed<W>(DType, DType);       \
  template PassFn<W> scalar_vertical_alpha<W>(DType, DType); \
  template PassFn<W> scalar_streamed_alpha<W>(DType, DType); \
  template PassFn<W> gather_copy<W>(size_t, bool);           \
  template PassFn<W> streamed_gather_copy<W>(size_t);        \
  template PassFn<W> strided_copy<W>();
UPSAMPLE_INSTANTIATE(float)
UPSAMPLE_INSTANTIATE(double)
#undef UPSAMPLE_INSTANTIATE

}  // namespace upsample::cpu
