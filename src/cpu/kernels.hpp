// CPU pass kernels. A pass resamples one axis of a dense tensor viewed as
// [outer, len, inner]: dst[o, r, i] = sum over row r's taps e of weight[e] * src[o, index[e], i].
//
// Two kernel shapes (architecture note 7.1): "horizontal" when inner == 1 (taps along the
// unit-stride axis: gathers), "vertical" otherwise (taps along a strided axis, a contiguous run
// of `inner` elements per tap). Kernels take the table; they never compute coordinates.
//
// Arithmetic contract (identical in every kernel, scalar or SIMD, any target, any thread count):
// acc = w0 * x0; acc = acc + wk * xk for k = 1.. in table order; no fused multiply-add; a row
// without taps gives 0; the store rounds once. So NCHW, NHWC and views give identical values.
#pragma once

#include <cstdint>
#include <vector>

#include "core/axis_table.hpp"
#include "core/dtype.hpp"
#include "upsample/tensor_desc.hpp"

namespace upsample::cpu {

struct PassShape {
  int64_t outer = 1;
  int64_t src_len = 1;  // length of the axis in the source
  int64_t rows = 1;     // length of the axis in the destination
  int64_t inner = 1;
};

// Kernel-ready form of an AxisTable, built once in the plan.
template <typename W>
struct PassTable {
  AxisTable<W> table;
  // Tap-major, zero-padded copy for vectorised horizontal gathers: entry (k, r) at
  // [k * padded_rows + r]; padding lanes have index 0, weight 0 and count 0. Built only for
  // float tables whose padded size stays close to the CSR size.
  int64_t padded_rows = 0;
  int64_t padded_taps = 0;
  std::vector<int32_t> padded_index;
  std::vector<W> padded_weight;
  std::vector<int32_t> padded_count;
  bool uniform = false;
  // Every row's taps are consecutive source indices (antialias, linear away from the border):
  // scalar loops can then walk the source with a pointer instead of loading each index.
  bool consecutive_taps = false;
  // Windowed form of the padded table, per block of `window_lanes` consecutive rows: when every
  // tap of the block lies in [base, base + window_lanes * kind), the kernel loads those 1 to 4
  // vectors once and permutes them (no gathers: gathers are slow on several CPUs). kind 0 =
  // the block gathers. window_rel holds index - base, tap-major like padded_index.
  int64_t window_lanes = 0;
  std::vector<int32_t> window_base;
  std::vector<uint8_t> window_kind;
  std::vector<int32_t> window_rel;

  explicit PassTable(AxisTable<W> t);
  bool has_padded() const { return padded_rows > 0; }

 private:
  void build_windows();
};

// Output r of a horizontal pass over source row x, in the contract's order. `consecutive`: every
// row's taps are consecutive source indices, walked with a pointer instead of loaded indices.
template <typename W, typename T>
inline W horizontal_output(const AxisTable<W>& t, int64_t r, const T* x, bool consecutive) {
  const int64_t e0 = t.offsets[r], e1 = t.offsets[r + 1];
  if (e0 == e1) return W(0);
  const W* w = t.weight.data() + e0;
  W acc = w[0] * load_as<W>(x + t.index[e0]);
  if (consecutive) {
    const T* xs = x + t.index[e0];
    for (int64_t k = 1; k < e1 - e0; ++k) acc = acc + w[k] * load_as<W>(xs + k);
  } else {
    for (int64_t e = e0 + 1; e < e1; ++e) acc = acc + t.weight[e] * load_as<W>(x + t.index[e]);
  }
  return acc;
}

// Number of work items of a pass and of a strided copy: the unit of parallel splitting.
int64_t pass_items(const PassShape& shape);

// Runs items [begin, end) of a resampling pass. src_type/dst_type are the buffers' element
// types; W is float or double (the accumulation type).
template <typename W>
void run_pass(const PassShape& shape, const PassTable<W>& table, DType src_type, const void* src,
              DType dst_type, void* dst, int64_t begin, int64_t end);

// Moves elements without arithmetic (nearest forward): a unit-tap table, same dtype both sides.
// `index[r]` is the source index of output row r.
void run_gather_copy(const PassShape& shape, const int64_t* index, size_t elem_size,
                     const void* src, void* dst, int64_t begin, int64_t end);

struct StridedCopy {
  int rank = 0;
  int64_t sizes[5] = {1, 1, 1, 1, 1};
  int64_t src_strides[5] = {0, 0, 0, 0, 0};  // elements
  int64_t dst_strides[5] = {0, 0, 0, 0, 0};
  size_t elem_size = 4;
};
int64_t strided_copy_items(const StridedCopy& copy);
void run_strided_copy(const StridedCopy& copy, const void* src, void* dst, int64_t begin,
                      int64_t end);

// Elementwise conversion of elements [begin, end) between a storage type and float32 (one of the
// two is float32): the round trip of float16 / bfloat16 data around the float32 passes.
void run_convert(DType from, const void* src, DType to, void* dst, int64_t begin, int64_t end);

// Vectorised float32 kernels (Highway, dispatched once per call to the best target).
void vertical_f32(const PassShape& shape, const AxisTable<float>& table, const float* src,
                  float* dst, int64_t begin, int64_t end);
void horizontal_f32(const PassShape& shape, const PassTable<float>& table, const float* src,
                    float* dst, int64_t begin, int64_t end);
const char* simd_target_name();
// float32 lanes of the dispatched target's vectors.
int64_t simd_lanes_f32();

}  // namespace upsample::cpu
