// Scalar pass kernels for every storage type, and the dtype dispatch of a pass.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "core/dtype.hpp"
#include "cpu/kernels.hpp"

namespace upsample::cpu {
namespace {

constexpr int64_t kPadLanes = 64;  // >= float32 lanes of any Highway target (SVE: up to 64)

// Vertical shape, generic types: the accumulator lives in dst when dst is the accumulation
// type, else in a fixed stack chunk (execute() allocates nothing).
template <typename Tin, typename Tout, typename W>
void vertical_scalar(const PassShape& s, const AxisTable<W>& t, const Tin* src, Tout* dst,
                     int64_t begin, int64_t end) {
  constexpr int64_t kChunk = 256;
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
        const Tin* x = src_plane + t.index[e0] * s.inner + i0;
        for (int64_t i = 0; i < n; ++i) acc[i] = w * load_as<W>(x + i);
      }
      for (int64_t e = e0 + 1; e < e1; ++e) {
        const W w = t.weight[e];
        const Tin* x = src_plane + t.index[e] * s.inner + i0;
        for (int64_t i = 0; i < n; ++i) acc[i] = acc[i] + w * load_as<W>(x + i);
      }
      for (int64_t i = 0; i < n; ++i) store_from(out + i0 + i, acc[i]);
    }
  }
}

template <typename Tin, typename Tout, typename W>
void horizontal_scalar(const PassShape& s, const PassTable<W>& p, const Tin* src, Tout* dst,
                       int64_t begin, int64_t end) {
  for (int64_t o = begin; o < end; ++o) {
    const Tin* x = src + o * s.src_len;
    Tout* out = dst + o * s.rows;
    for (int64_t r = 0; r < s.rows; ++r) {
      store_from(out + r, horizontal_output(p.table, r, x, p.consecutive_taps));
    }
  }
}

template <typename Tin, typename Tout, typename W>
void pass_typed(const PassShape& s, const PassTable<W>& p, const void* src, void* dst,
                int64_t begin, int64_t end) {
  const Tin* in = static_cast<const Tin*>(src);
  Tout* out = static_cast<Tout*>(dst);
  if constexpr (std::is_same_v<Tin, float> && std::is_same_v<Tout, float> &&
                std::is_same_v<W, float>) {
    if (s.inner == 1) {
      if (p.has_padded()) return horizontal_f32(s, p, in, out, begin, end);
    } else {
      return vertical_f32(s, p.table, in, out, begin, end);
    }
  }
  if (s.inner == 1) return horizontal_scalar<Tin, Tout, W>(s, p, in, out, begin, end);
  vertical_scalar<Tin, Tout, W>(s, p.table, in, out, begin, end);
}

template <typename Tin, typename W>
void pass_out(const PassShape& s, const PassTable<W>& p, const void* src, DType dst_type, void* dst,
              int64_t begin, int64_t end) {
  switch (dst_type) {
    case DType::kFloat32:
      return pass_typed<Tin, float, W>(s, p, src, dst, begin, end);
    case DType::kFloat64:
      return pass_typed<Tin, double, W>(s, p, src, dst, begin, end);
    case DType::kFloat16:
      return pass_typed<Tin, Half, W>(s, p, src, dst, begin, end);
    case DType::kBFloat16:
      return pass_typed<Tin, BFloat16, W>(s, p, src, dst, begin, end);
    case DType::kUInt8:
      return pass_typed<Tin, uint8_t, W>(s, p, src, dst, begin, end);
    case DType::kUInt16:
      return pass_typed<Tin, uint16_t, W>(s, p, src, dst, begin, end);
  }
}

template <size_t kSize>
struct Bytes {
  unsigned char b[kSize];
};

template <typename T>
void gather_copy_typed(const PassShape& s, const int64_t* index, const T* src, T* dst,
                       int64_t begin, int64_t end) {
  if (s.inner == 1) {
    for (int64_t o = begin; o < end; ++o) {
      const T* x = src + o * s.src_len;
      T* out = dst + o * s.rows;
      for (int64_t r = 0; r < s.rows; ++r) out[r] = x[index[r]];
    }
    return;
  }
  // Items are (o, r) pairs in row-major order; no division per item (it dominated small rows).
  int64_t o = begin / s.rows, r = begin % s.rows;
  for (int64_t item = begin; item < end; ++item, ++r) {
    if (r == s.rows) {
      r = 0;
      ++o;
    }
    std::memcpy(dst + item * s.inner, src + (o * s.src_len + index[r]) * s.inner,
                static_cast<size_t>(s.inner) * sizeof(T));
  }
}

}  // namespace

template <typename W>
PassTable<W>::PassTable(AxisTable<W> t) : table(std::move(t)) {
  consecutive_taps = true;
  for (int64_t r = 0; r < table.rows && consecutive_taps; ++r) {
    for (int64_t e = table.offsets[r] + 1; e < table.offsets[r + 1]; ++e) {
      if (table.index[e] != table.index[e - 1] + 1) {
        consecutive_taps = false;
        break;
      }
    }
  }
  if constexpr (std::is_same_v<W, float>) {
    const int64_t taps = table.max_taps();
    const int64_t rows = (table.rows + kPadLanes - 1) / kPadLanes * kPadLanes;
    const int64_t nnz = static_cast<int64_t>(table.index.size());
    // Gathers index with int32; pad only when it wastes little (transposed tables of extreme
    // ratios can have one long row among many short ones: those stay CSR and scalar).
    if (table.src_len <= INT32_MAX && taps > 0 && rows * taps <= 2 * nnz + 4 * rows) {
      padded_rows = rows;
      padded_taps = taps;
      uniform = table.uniform_taps();
      padded_index.assign(static_cast<size_t>(rows * taps), 0);
      padded_weight.assign(static_cast<size_t>(rows * taps), 0.0f);
      padded_count.assign(static_cast<size_t>(rows), 0);
      for (int64_t r = 0; r < table.rows; ++r) {
        padded_count[r] = static_cast<int32_t>(table.taps(r));
        for (int64_t k = 0; k < table.taps(r); ++k) {
          padded_index[k * rows + r] = static_cast<int32_t>(table.index[table.offsets[r] + k]);
          padded_weight[k * rows + r] = table.weight[table.offsets[r] + k];
        }
      }
      build_windows();
    }
  }
}

template <typename W>
void PassTable<W>::build_windows() {
  const int64_t lanes = simd_lanes_f32();
  if (lanes <= 1 || padded_rows % lanes != 0) return;
  const int64_t blocks = padded_rows / lanes;
  window_lanes = lanes;
  window_base.assign(static_cast<size_t>(blocks), 0);
  window_kind.assign(static_cast<size_t>(blocks), 0);
  window_rel.assign(padded_index.size(), 0);
  for (int64_t b = 0; b < blocks; ++b) {
    int64_t lo = INT64_MAX, hi = -1;
    for (int64_t r = b * lanes; r < std::min((b + 1) * lanes, table.rows); ++r) {
      for (int64_t k = 0; k < padded_count[r]; ++k) {
        lo = std::min<int64_t>(lo, padded_index[k * padded_rows + r]);
        hi = std::max<int64_t>(hi, padded_index[k * padded_rows + r]);
      }
    }
    if (hi < 0) lo = hi = 0;  // a block of empty rows reads element 0 with weight 0
    for (int kind = 1; kind <= 4; ++kind) {
      const int64_t span = kind * lanes;
      if (hi - lo >= span || table.src_len < span) continue;
      const int64_t base = std::min(lo, table.src_len - span);  // the window stays in the row
      window_base[b] = static_cast<int32_t>(base);
      window_kind[b] = static_cast<uint8_t>(kind);
      for (int64_t r = b * lanes; r < (b + 1) * lanes; ++r) {
        for (int64_t k = 0; k < padded_taps; ++k) {
          const int64_t rel =
              r < table.rows && k < padded_count[r] ? padded_index[k * padded_rows + r] - base : 0;
          window_rel[k * padded_rows + r] = static_cast<int32_t>(rel);
        }
      }
      break;
    }
  }
}

template struct PassTable<float>;
template struct PassTable<double>;

int64_t pass_items(const PassShape& s) { return s.inner == 1 ? s.outer : s.outer * s.rows; }

template <typename W>
void run_pass(const PassShape& s, const PassTable<W>& p, DType src_type, const void* src,
              DType dst_type, void* dst, int64_t begin, int64_t end) {
  switch (src_type) {
    case DType::kFloat32:
      return pass_out<float, W>(s, p, src, dst_type, dst, begin, end);
    case DType::kFloat64:
      return pass_out<double, W>(s, p, src, dst_type, dst, begin, end);
    case DType::kFloat16:
      return pass_out<Half, W>(s, p, src, dst_type, dst, begin, end);
    case DType::kBFloat16:
      return pass_out<BFloat16, W>(s, p, src, dst_type, dst, begin, end);
    case DType::kUInt8:
      return pass_out<uint8_t, W>(s, p, src, dst_type, dst, begin, end);
    case DType::kUInt16:
      return pass_out<uint16_t, W>(s, p, src, dst_type, dst, begin, end);
  }
}

template void run_pass<float>(const PassShape&, const PassTable<float>&, DType, const void*, DType,
                              void*, int64_t, int64_t);
template void run_pass<double>(const PassShape&, const PassTable<double>&, DType, const void*,
                               DType, void*, int64_t, int64_t);

void run_gather_copy(const PassShape& s, const int64_t* t, size_t elem_size, const void* src,
                     void* dst, int64_t begin, int64_t end) {
  switch (elem_size) {
    case 1:
      return gather_copy_typed(s, t, static_cast<const Bytes<1>*>(src), static_cast<Bytes<1>*>(dst),
                               begin, end);
    case 2:
      return gather_copy_typed(s, t, static_cast<const Bytes<2>*>(src), static_cast<Bytes<2>*>(dst),
                               begin, end);
    case 4:
      return gather_copy_typed(s, t, static_cast<const Bytes<4>*>(src), static_cast<Bytes<4>*>(dst),
                               begin, end);
    default:
      return gather_copy_typed(s, t, static_cast<const Bytes<8>*>(src), static_cast<Bytes<8>*>(dst),
                               begin, end);
  }
}

int64_t strided_copy_items(const StridedCopy& c) {
  int64_t items = 1;
  for (int d = 0; d + 1 < c.rank; ++d) items *= c.sizes[d];
  return c.rank == 0 ? 1 : items;
}

// Item = one index of all dims but the last; the last dim is copied in a loop.
void run_strided_copy(const StridedCopy& c, const void* src, void* dst, int64_t begin,
                      int64_t end) {
  const auto* in = static_cast<const unsigned char*>(src);
  auto* out = static_cast<unsigned char*>(dst);
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

}  // namespace upsample::cpu
