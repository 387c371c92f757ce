// CPU kernels: the functions a compiled plan calls for its steps.
//
// A resample pass sees a dense tensor as [outer, len, inner]:
//   dst[o, r, i] = sum over row r's taps e of weight[e] * src[o, index[e], i].
// Two kernel shapes: "horizontal" when inner == 1 (taps along the unit-stride axis; lanes are
// consecutive outputs of a row) and "vertical" otherwise (each tap is a contiguous run of
// `inner` elements; lanes run along it). Kernels take tables; they never compute coordinates.
//
// Arithmetic contract (identical in every kernel, scalar or SIMD, any target, any thread count):
// loads convert the storage type exactly to the accumulation type W (float32, or float64 for
// float64 data); acc = w0 * x0; acc = acc + wk * xk for k = 1.. in table order; no fused
// multiply-add; a row without taps gives 0; the store rounds once (to nearest even; integer
// types saturate, NaN stores 0). So NCHW, NHWC and views give identical values.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/dtype.hpp"
#include "core/plan.hpp"

namespace upsample::cpu {

using core::PassShape;

inline constexpr int kDTypes = static_cast<int>(DType::kUInt16) + 1;

// Kernel-ready form of a materialised table, built once at plan time.
template <typename W>
struct PassTable {
  AxisTable<W> table;
  int64_t max_taps = 0;
  // Every row's taps are consecutive source indices (antialias, linear away from the border):
  // scalar loops can then walk the source with a pointer instead of loading each index.
  bool consecutive_taps = false;
  // Tap-major, zero-padded copy for vectorised horizontal kernels: entry (k, r) at
  // [k * padded_rows + r]; padding lanes have index 0, weight 0 and count 0.
  int64_t padded_rows = 0;
  int64_t padded_taps = 0;
  std::vector<int32_t> padded_index;
  std::vector<W> padded_weight;
  std::vector<int32_t> padded_count;
  // Windowed form of the padded table, per block of `window_lanes` consecutive rows: when every
  // tap of the block lies in [base, base + window_lanes * kind) for kind 1..4, the kernel loads
  // those vectors once and permutes them (no gathers: gathers are slow on several CPUs); kind 0:
  // the block's window is wider and its rows are computed one by one. window_rel holds
  // index - base, tap-major like padded_index.
  int64_t window_lanes = 0;
  std::vector<int32_t> window_base;
  std::vector<uint8_t> window_kind;
  std::vector<int32_t> window_rel;
  // Source rows shorter than one vector (src_len < window_lanes): every block's window is the
  // whole row (kind 1, base 0), and a kernel loads it from a zero-padded copy of the row, since a
  // vector load at the row would read past it.
  bool short_rows = false;
  // Per block of the windowed form: the most taps a row of the block has (taps beyond it are
  // masked out in every lane, so the kernel stops there), and whether every row of the block
  // has exactly that many (no masks needed). Transposed tables are uniform inside and differ
  // only at the borders: their inner blocks run as uniform ones.
  std::vector<int32_t> block_taps;
  std::vector<uint8_t> block_uniform;
  // Per block of the windowed form: how many blocks from this one on have the same window kind
  // (1-4), taps, uniformity, counts, offsets (window_rel) and weights, bit for bit; they differ
  // only in window_base. A kernel can then keep one block's taps in registers for the whole run.
  // An upsampling factor whose period in outputs divides the block (2x, 4x, 8x or 16x without
  // align_corners, at 16 lanes) repeats one block away from the borders. At least 1 and at most
  // INT32_MAX (a longer run is cut in pieces); 1 for wide windows (kind 0), whose taps are not
  // described by window_rel, except phased ones (below).
  std::vector<int32_t> block_run;
  // Per block of the windowed form: s (2 to 4) where the block is uniform and whole (no padding
  // rows), its rows lie s source elements apart and its taps are consecutive elements (tap k of
  // row first + l is element index[first] + s * l + k), and every later block of its run
  // (block_run) starts s * window_lanes elements after the one before; 0 otherwise. A kernel can
  // then split each block's source into its s phases (every s-th element) and take each tap from
  // one phase, shifted, instead of permuting a window per tap. Inside, the transposed tables of
  // nearest 2x-4x, linear 2x-3x and cubic 2x upsampling are phased, and so is downsampling by 2
  // to 4 (linear 2:1-4:1, antialiased 2:1 to 4:1). A block whose window is wider than 4 vectors
  // (kind 0; antialiased 4:1 has 8 taps, 68 elements for 16 lanes) is phased when it has at most
  // kMaxPhasedTaps taps: its window_base and window_rel are then set from its first tap (its kind
  // stays 0, so no kernel permutes its window), and it can run with blocks like it.
  std::vector<uint8_t> block_phases;
  // Per block of the windowed form: 1 where the block can end the phased run before it as one
  // more block of that run, though it is not in it (block_run): block b - 1 is phased with stride
  // s and is the last of its run, and each row first + l of block b (its rows in the table) has
  // b - 1's tap count and, lane by lane, its weights, with tap k at element min(w + s * l + k,
  // src_len - 1), w = s * window_lanes elements after b - 1's first tap. Taps past the row's end
  // are its last element repeated (the border rows of transposed tables: W2's last row takes
  // element 127 twice), which a kernel reproduces by reading the elements past the end as the
  // last one. 0 elsewhere.
  std::vector<uint8_t> phased_tail;

  // `padded`: build the padded and windowed forms for vectors of `lanes` floats.
  PassTable(AxisTable<W> t, bool padded, int64_t lanes);
  bool has_padded() const { return padded_rows > 0; }
  // Bytes of the arrays the padded and windowed forms add (what PassTable adds to its table).
  static int64_t padded_bytes(int64_t rows, int64_t max_taps, int64_t lanes);
  // Whether padding to the longest row wastes little: transposed tables of extreme ratios can
  // have one long row among many short ones; those stay CSR.
  static bool padding_is_compact(int64_t rows, int64_t max_taps, int64_t total_taps,
                                 int64_t src_len);

 private:
  void build_windows(int64_t lanes);
  // block_phases' s for block b alone (uniform, whole, rows s apart, consecutive taps), or 0.
  int64_t phase_stride(int64_t b) const;
  // Whether windowed (or wide phased) blocks a and b are the same but for their window_base
  // (block_run).
  bool same_block(int64_t a, int64_t b) const;
  // phased_tail for block b (b >= 1).
  bool ends_phased_run(int64_t b) const;
};

// The most taps of a phased block whose window is wider than 4 vectors (PassTable::block_phases):
// the kernels hold 1 to 8 taps in registers.
inline constexpr int64_t kMaxPhasedTaps = 8;

// What a kernel call needs besides its buffers and item range.
template <typename W>
struct PassArgs {
  PassShape shape;
  const PassTable<W>* table = nullptr;  // materialised-table kernels
  const core::Axis<W>* axis = nullptr;  // streaming kernels: the row generator
  core::CopyShape copy;                 // copy kernels
  // Vertical kernels: source row `index_bias` is the first row of `src` (a fused pass hands
  // them a window of the intermediate's rows).
  int64_t index_bias = 0;
  // Plain vertical kernels (simd_vertical, scalar_vertical): item `dst_item_bias` is written at
  // the start of `dst` (a pair fused in row bands hands the first step a band of rows in the
  // thread's scratch).
  int64_t dst_item_bias = 0;
  // simd_vertical (not its alpha kernels) and simd_vertical_stream reading the caller's tensor
  // in rows of at most kPrefetchRowBytes: before output row r, the source rows that table row
  // r + this many starts reading are prefetched (0: none). Program::compile_step sets it where
  // the kernel choice says the kernel prefetches (PassChoice::prefetches).
  int64_t prefetch_rows_ahead = 0;
  // simd_vertical and simd_vertical_stream reading the caller's tensor, float32 into float32, in
  // rows of at least kPrefetchLongRowBytes: within each output row of 1 to 8 taps, the source rows
  // it reads first (past the last tap of the table row before it; the last two of them at most)
  // are prefetched this many elements ahead of its loads (0: none). Program::compile_step sets it.
  int64_t prefetch_within_row = 0;
  // Premultiplied alpha (core::Step): the kernel's contiguous runs are pixels of
  // `alpha_channels` elements, alpha last.
  int64_t alpha_channels = 0;
  bool premultiply = false;
  bool unpremultiply = false;
};

// The kernels' store of a computed value: a NaN result is stored as the type's default quiet
// NaN (positive, no payload), so which NaN operand an addition propagated - it depends on the
// kernel shape and the compiler's operand order - never shows in the bits; any other value as
// store_from (one rounding). The element-moving kernels copy bits instead.
template <typename T, typename W>
inline void store_result(T* p, W v) {
  if (v != v) v = std::numeric_limits<W>::quiet_NaN();
  store_from(p, v);
}

// Premultiplied alpha, in the accumulation type W: element `e` of a run of pixels of `channels`
// elements as a premultiplying load sees it (colour times its pixel's alpha; alpha itself)...
template <typename W, typename T>
inline W load_premultiplied(const T* run, int64_t e, int64_t channels) {
  const int64_t c = e % channels;
  const W v = load_as<W>(run + e);
  return c == channels - 1 ? v : v * load_as<W>(run + e - c + channels - 1);
}
// ... and a colour output divided by its pixel's alpha output (0 where that is not positive).
template <typename W>
inline W unpremultiplied(W colour, W alpha) {
  return alpha > W(0) ? colour / alpha : W(0);
}

// Computes items [begin, end) of a step. `scratch`: the calling thread's private scratch of the
// size the kernel's dispatch choice asked for (null when it asked for none).
template <typename W>
using PassFn = void (*)(const PassArgs<W>& args, const void* src, void* dst, int64_t begin,
                        int64_t end, void* scratch);

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

// Two consecutive vertical passes at once: pass `b` (items: its (outer, row) pairs) over the
// rows pass `a` would write, each computed in registers where it is used and never stored. `a`
// reads storage type T and writes float32, `b` reads float32 and writes T. Same arithmetic as the
// two passes one after the other (a's value of each tap of b, then b's sum over them).
template <typename W>
using PairFn = void (*)(const PassArgs<W>& a, const PassArgs<W>& b, const void* src, void* dst,
                        int64_t begin, int64_t end);

// Work items (the unit of parallel splitting) of the two shapes: whole rows of outputs for a
// horizontal kernel, (outer, row) pairs for a vertical one.
inline int64_t horizontal_items(const PassShape& s) { return s.outer; }
inline int64_t vertical_items(const PassShape& s) { return s.outer * s.rows; }
int64_t copy_items(const core::CopyShape& c);

// ---- the storage types, one list for every kernel set ----------------------------------------
// The storage types a pass with weights W reads and writes: with float weights, a storage type S
// of {float32, float16, bfloat16, uint8, uint16} meets float32 intermediates (S -> f32,
// f32 -> S) or stays S through a single pass (S -> S); float64 runs f64 -> f64 only. The scalar
// kernels (scalar.cpp) and every SIMD target's set (simd.cpp) are instantiated from this list and
// kReachable, and from nothing else.
template <typename... T>
struct TypeList {};

template <typename W>
using StorageTypes = std::conditional_t<std::is_same_v<W, double>, TypeList<double>,
                                        TypeList<float, Half, BFloat16, uint8_t, uint16_t>>;

template <typename T, typename... L>
constexpr bool in_list(TypeList<L...>) {
  return (std::is_same_v<T, L> || ...);
}

template <typename W, typename Tin, typename Tout>
inline constexpr bool kReachable =
    in_list<Tin>(StorageTypes<W>{}) && in_list<Tout>(StorageTypes<W>{}) &&
    (std::is_same_v<Tin, W> || std::is_same_v<Tout, W> || std::is_same_v<Tin, Tout>);

// The DType of a storage type (the inverse of visit_dtype).
template <typename T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, Half>) return DType::kFloat16;
  if constexpr (std::is_same_v<T, BFloat16>) return DType::kBFloat16;
  if constexpr (std::is_same_v<T, double>) return DType::kFloat64;
  if constexpr (std::is_same_v<T, uint8_t>) return DType::kUInt8;
  if constexpr (std::is_same_v<T, uint16_t>) return DType::kUInt16;
  return DType::kFloat32;
}

// Calls f(T{}) for every T of the list, in order.
template <typename... L, typename F>
constexpr void for_each_type(TypeList<L...>, F&& f) {
  (f(L{}), ...);
}

// ---- scalar kernels (src/cpu/scalar.cpp), every reachable type pair ---------------------------
// Whether kReachable holds for the runtime pair.
template <typename W>
bool reachable_types(DType in, DType out);

template <typename W>
PassFn<W> scalar_vertical(DType in, DType out);
template <typename W>
PassFn<W> scalar_horizontal(DType in, DType out);
// Streams the rows of an axis too long to materialise (any shape; items are (outer, row)).
template <typename W>
PassFn<W> scalar_streamed(DType in, DType out);
// The vertical kernel with premultiplied alpha (PassArgs::premultiply, unpremultiply; inner a
// multiple of alpha_channels, at most core::kMaxAlphaChannels); scalar_streamed implements it
// too.
using core::kMaxAlphaChannels;
template <typename W>
PassFn<W> scalar_vertical_alpha(DType in, DType out);
// Unit-tap tables (nearest forward), same type in and out: moves elements, no arithmetic; one
// kernel per element size of StorageTypes<W> (nullptr for another size).
template <typename W>
PassFn<W> gather_copy(size_t elem_size, bool horizontal);
template <typename W>
PassFn<W> streamed_gather_copy(size_t elem_size);
template <typename W>
PassFn<W> strided_copy();

// ---- SIMD kernels (src/cpu/simd.cpp): Highway, one set per compiled target ------------------
struct SimdKernels {
  const char* target = "";
  int64_t lanes = 1;  // float32 lanes of the target's vectors
  // Every reachable pair of StorageTypes<float> (nullptr for the others).
  PassFn<float> vertical[kDTypes][kDTypes] = {};
  PassFn<float> horizontal[kDTypes][kDTypes] = {};
  // vertical float32 -> float32 with non-temporal stores, for outputs much larger than the
  // caches and those of reducing passes (the only pair it serves: a float32 output has float32
  // inputs and intermediates).
  PassFn<float> vertical_stream = nullptr;
  // horizontal float32 -> float32 with non-temporal stores (whole aligned vectors), for outputs
  // larger than the caches and those of reducing passes.
  PassFn<float> horizontal_stream = nullptr;
  // The kernels with non-temporal stores (vertical_stream, horizontal_stream, copy_pair_4_stream)
  // do not fence them: a thread that ran them calls this before other threads read what they
  // wrote (an sfence on x86). Fencing once per thread and call instead of once per kernel call
  // matters where a fused pair calls its kernel once per row band: W2's horizontal pass, 512
  // calls per thread.
  void (*flush_streams)() = nullptr;
  // Unit-tap rows of 4-byte elements moved with vector permutes (no arithmetic).
  PassFn<float> copy_rows_4 = nullptr;
  // Horizontal passes vectorised across rows through transposed tiles (wide windows); each
  // thread needs transposed_scratch_bytes of scratch. Null on scalable-vector targets.
  PassFn<float> horizontal_transposed[kDTypes][kDTypes] = {};
  int64_t transposed_scratch_bytes = 0;
  // The vertical kernel with premultiplied alpha, for pixels of 2 ([0]) or 4 ([1]) channels;
  // null where a vector does not hold whole pixels (the scalar target).
  PassFn<float> vertical_alpha[2][kDTypes][kDTypes] = {};
  // Two vertical passes at once (PairFn), per storage type T (T -> float32 -> T).
  PairFn<float> vertical_pair[kDTypes] = {};
  // A row copy (copy_rows_4's) and a row gather at once (PairFn), for 4-byte elements.
  PairFn<float> copy_pair_4 = nullptr;
  // copy_pair_4 with non-temporal stores, for outputs larger than the caches hold well.
  PairFn<float> copy_pair_4_stream = nullptr;
};

// The horizontal SIMD kernels walk a run of at least this many blocks with the same taps
// (PassTable::block_run) row by row, shorter runs block by block across a chunk of rows
// (simd.cpp, held_block, says why), except phased runs (kPhasedBlocks), which are always walked
// row by row, and the runs of rows framed by two border blocks, whose rows are walked whole
// (simd.cpp, framed_rows). Either order gives the same bits.
inline constexpr int64_t kRowByRowBlocks = 6;
// The horizontal SIMD kernels take runs of at least this many phased blocks
// (PassTable::block_phases) from their phases (simd.cpp, phased_run); shorter ones permute their
// windows. Either way gives the same bits.
inline constexpr int64_t kPhasedBlocks = 2;
// A vertical pass over the caller's tensor in rows of at most this many bytes prefetches its
// source rows kPrefetchBytesAhead bytes of rows ahead (PassArgs::prefetch_rows_ahead): each
// output row re-reads most of the rows of the one before and adds a few short ones, a pattern
// the hardware prefetchers follow too late. W14's first pass (rows of 256 bytes) read its source
// at half the rate of a plain read; prefetched, W14 takes 17% less on 2 threads. Rows of 512
// bytes (W2, W6) gain on one thread but lose 8-10% on two, so they are left to the hardware
// (docs/performance.md, "Prefetching short rows").
inline constexpr int64_t kPrefetchRowBytes = 256;
inline constexpr int64_t kPrefetchBytesAhead = 4096;
// A vertical pass over the caller's tensor, float32 into float32, in rows of at least this many
// bytes prefetches within each output row the source rows that row reads first,
// kPrefetchWithinRowBytes ahead of its loads (PassArgs::prefetch_within_row): the output row before
// it left the other rows in cache, and the stalls of the loop sit on the loads of the new ones.
// W16's first pass (rows of 16 KiB, 2 of its 4 rows new per output row) takes about 5% less; a
// distance of 1, 2 or 8 KiB gains less, and rows of 8 KiB (NHWC 64 pixels of 32 channels) do not
// gain (docs/performance.md, "Long source rows prefetched within the row").
inline constexpr int64_t kPrefetchLongRowBytes = 16384;
inline constexpr int64_t kPrefetchWithinRowBytes = 4096;

// The set of the best target this CPU supports (chosen once per process, or the one a test set
// with hwy::SetSupportedTargetsForTest).
const SimdKernels& simd_kernels();

}  // namespace upsample::cpu
