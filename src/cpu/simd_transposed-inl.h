// Horizontal passes with wide windows (strong antialias downsampling: tens of taps per output),
// vectorised across rows: each vector of Lanes rows of a tile (kTiles of them) is transposed so
// that a vector holds one of its columns (the same input position of Lanes rows); every output is
// then a sequence of broadcast-weight multiply-adds over column vectors, in table order - the
// vertical kernel's arithmetic, lane by lane the scalar row's (acc = w0 * x0; acc = acc + wk *
// xk; no FMA) - and the outputs are transposed back into the rows. No gathers, no per-output
// window limit. The columns are transposed into a ring as the outputs advance (ring_chunk), or,
// for premultiplied alpha and for a chunk of outputs with a group wider than the ring, a chunk's
// whole column range first (linear_chunks); the arithmetic is the same.
//
// Included by simd.cpp inside its per-target namespace, after the load/store helpers.
// (No include guard: Highway compiles this once per target.)

// An L x L transpose of float vectors (L = Lanes(d) of a fixed-size target: 1, 4, 8 or 16):
// in[i] is row i of the block, out[j] receives column j. Within each 128-bit block 4 x 4
// transposes (32- then 64-bit interleaves), then the blocks of groups of four rows (L / 4 of
// them) change places.
template <size_t L>
HWY_INLINE void transpose_square(DF d, const VF* in, VF* out) {
#if HWY_TARGET == HWY_SCALAR
  (void)d;
  out[0] = in[0];
#else
  {
    static_assert(L == 4 || L == 8 || L == 16, "fixed-size x86/NEON vectors");
    const hn::Repartition<double, DF> dd;
    constexpr size_t kGroups = L / 4;
    VF part[kGroups][4];  // part[g][k]: block b holds column 4b + k of rows 4g .. 4g + 3
    for (size_t g = 0; g < kGroups; ++g) {
      const VF* r = in + 4 * g;
      const auto t0 = hn::BitCast(dd, hn::InterleaveLower(d, r[0], r[1]));
      const auto t1 = hn::BitCast(dd, hn::InterleaveLower(d, r[2], r[3]));
      const auto t2 = hn::BitCast(dd, hn::InterleaveUpper(d, r[0], r[1]));
      const auto t3 = hn::BitCast(dd, hn::InterleaveUpper(d, r[2], r[3]));
      part[g][0] = hn::BitCast(d, hn::InterleaveLower(dd, t0, t1));
      part[g][1] = hn::BitCast(d, hn::InterleaveUpper(dd, t0, t1));
      part[g][2] = hn::BitCast(d, hn::InterleaveLower(dd, t2, t3));
      part[g][3] = hn::BitCast(d, hn::InterleaveUpper(dd, t2, t3));
    }
    for (size_t k = 0; k < 4; ++k) {
      if constexpr (kGroups == 1) {
        out[k] = part[0][k];
      } else if constexpr (kGroups == 2) {
        out[k] = hn::ConcatLowerLower(d, part[1][k], part[0][k]);
        out[4 + k] = hn::ConcatUpperUpper(d, part[1][k], part[0][k]);
      } else {
        // Blocks [x0 y0 x2 y2] and [x1 y1 x3 y3] of each pair of groups, then their halves.
        VF even[2], odd[2];
        for (size_t h = 0; h < 2; ++h) {
          const VF x = part[2 * h][k], y = part[2 * h + 1][k];
          even[h] = hn::OddEvenBlocks(hn::SwapAdjacentBlocks(y), x);
          odd[h] = hn::OddEvenBlocks(y, hn::SwapAdjacentBlocks(x));
        }
        out[k] = hn::ConcatLowerLower(d, even[1], even[0]);
        out[8 + k] = hn::ConcatUpperUpper(d, even[1], even[0]);
        out[4 + k] = hn::ConcatLowerLower(d, odd[1], odd[0]);
        out[12 + k] = hn::ConcatUpperUpper(d, odd[1], odd[0]);
      }
    }
  }
#endif
}

// Scratch of the transposed kernel, per thread: room for the columns of one chunk of a tile
// (linear_chunks; the ring and its mirror use the start of it) and for its outputs, kTiles
// vectors each (Lanes floats).
inline constexpr int64_t kTransposedMaxColumns = 2048;
inline constexpr int64_t kTransposedMaxOutputs = 256;
// A tile is up to kTiles row vectors (kTiles * Lanes rows): each weight is broadcast once for
// all of them, and twice the chains run side by side (one thread on the Zen 5 host: W9 0.774 ->
// 0.735 ms and W7 0.630 -> 0.612 ms with two vectors instead of one; docs/performance.md).
inline constexpr int64_t kTiles = 2;

// Outputs whose chains run side by side (transposed_outputs), and the ring's unit of outputs.
inline constexpr int64_t kChainGroup = 4;

// The ring of transposed columns (ring_chunk): kRingColumns slots, column j in slot
// j % kRingColumns, and after them a mirror of the first slots, so that the columns of a group of
// outputs are consecutive in memory even where the ring wraps. A tile's columns are transposed
// as its outputs advance, into memory that stays in L1 (16 KiB and the mirror with two 16-lane
// row vectors), where transposing every column of a chunk first (linear_chunks) writes them to
// L2 (128 KiB for 1024 columns) and reads them back from there. On the Zen 5 host of
// docs/performance.md, W9's horizontal pass alone took 0.28 ms with 128 slots, 0.29 with 256 and
// 0.33 transposing whole chunks first (two threads).
inline constexpr int64_t kRingColumns = 128;
// Columns by which the ring fills a tile's first row vector ahead of its others (ring_tile), at
// most: where the tile's rows are a multiple of 4 KiB apart (W9's 1024 float32 columns), its two
// vectors would otherwise load the same columns of 32 rows at once, and those lines all fall in
// the same L1 set. On the Zen 5 host of docs/performance.md ("The ring's first vector four blocks
// ahead") W9 took 1.4-2% less time on two threads and 3% on one with the first vector 4 blocks
// ahead and its rows 64-byte aligned, as PyTorch and upsample_bench allocate them; 7-15% with
// its input only 16-byte aligned, every row load split across two lines (2 blocks: 7-11%, 1
// block: 2%, 6 or 8 blocks with a larger ring: no better than 4; the same lead for every
// vector: no change; rows 4000 bytes apart: 1%).
inline constexpr int64_t kLeadBlocks = 4;
// Outputs per ring chunk: the column ranges of its groups of kChainGroup outputs are found once
// per call, into arrays of kRingChunk / kChainGroup.
inline constexpr int64_t kRingChunk = 256;
static_assert(2 * kRingColumns <= kTransposedMaxColumns, "the ring and its mirror in the scratch");
static_assert(kRingChunk % kChainGroup == 0, "whole groups in a ring chunk");

inline int64_t transposed_scratch_bytes() {
  return (kTransposedMaxColumns + kTransposedMaxOutputs) * kTiles *
             static_cast<int64_t>(hn::Lanes(DF()) * sizeof(float)) +
         64;
}

// cols[(j - lo) * stride + l] = row l's element j, for j in [lo, hi] (stride: floats from one
// column to the next); the same into `mirror` too when it is not null.
template <size_t L, typename Tin>
HWY_INLINE void transpose_columns_in(DF d, const Tin* const* rows, int64_t lo, int64_t hi,
                                     float* cols, int64_t stride, float* mirror = nullptr) {
  int64_t j = lo;
  for (; j + static_cast<int64_t>(L) <= hi + 1; j += static_cast<int64_t>(L)) {
    VF in[L], out[L];
    for (size_t l = 0; l < L; ++l) in[l] = load(d, rows[l] + j);
    transpose_square<L>(d, in, out);
    const int64_t at = (j - lo) * stride;
    for (size_t k = 0; k < L; ++k)
      hn::Store(out[k], d, cols + at + static_cast<int64_t>(k) * stride);
    if (mirror != nullptr) {
      for (size_t k = 0; k < L; ++k) {
        hn::Store(out[k], d, mirror + at + static_cast<int64_t>(k) * stride);
      }
    }
  }
  for (; j <= hi; ++j) {
    for (size_t l = 0; l < L; ++l) {
      const float v = load_as<float>(rows[l] + j);
      cols[(j - lo) * stride + l] = v;
      if (mirror != nullptr) mirror[(j - lo) * stride + l] = v;
    }
  }
}

// Row l's outputs [r0, r1) from outs[(r - r0) * stride + l], for the first `live` rows.
template <size_t L, typename Tout>
HWY_INLINE void transpose_outputs_out(DF d, const float* outs, int64_t r0, int64_t r1,
                                      int64_t stride, Tout* const* rows, size_t live) {
  int64_t r = r0;
  for (; r + static_cast<int64_t>(L) <= r1; r += static_cast<int64_t>(L)) {
    VF in[L], out[L];
    for (size_t k = 0; k < L; ++k)
      in[k] = hn::Load(d, outs + (r - r0 + static_cast<int64_t>(k)) * stride);
    transpose_square<L>(d, in, out);
    for (size_t l = 0; l < live; ++l) store(out[l], d, rows[l] + r);
  }
  for (; r < r1; ++r) {
    for (size_t l = 0; l < live; ++l) store_result(rows[l] + r, outs[(r - r0) * stride + l]);
  }
}

// Outputs r0 .. r1 - 1 of the row tile whose columns lo .. are in `cols`: kT row vectors, the
// column j of vector u at cols + ((j - lo) * kT + u) * L, output r of vector u likewise in
// `outs`. Each output of each vector is one dependent chain of additions; kGroup outputs (times
// kT vectors) run side by side (each chain unchanged, in table order) so that the chains'
// latencies overlap, and a weight is broadcast once for the kT vectors. kConsecutive: every
// row's taps are consecutive source indices (PassTable::consecutive_taps).
template <bool kConsecutive, int64_t kT>
HWY_INLINE void transposed_outputs(DF d, const AxisTable<float>& t, int64_t r0, int64_t r1,
                                   int64_t lo, const float* cols, float* outs) {
  constexpr int64_t L = static_cast<int64_t>(hn::MaxLanes(DF()));
  constexpr int64_t kGroup = kChainGroup;
  // Locals: the store may alias any memory, and the table's arrays would be reloaded.
  const int64_t* offsets = t.offsets.data();
  const int64_t* index = t.index.data();
  const float* weight = t.weight.data();
  // Tap e's column (its first vector); for consecutive taps, tap k of a row whose first tap is e0.
  const auto column = [&](int64_t e0, int64_t k) HWY_ATTR __attribute__((always_inline)) {
    return kConsecutive ? cols + (index[e0] - lo + k) * kT * L
                        : cols + (index[e0 + k] - lo) * kT * L;
  };
  // A chain's first product, and each later step, for the kT vectors. (These lambdas are inlined
  // by attribute: docs/design.md, "Hot lambdas are inlined by attribute".)
  const auto first = [&](VF * acc, int64_t e0) HWY_ATTR __attribute__((always_inline)) {
    const VF w = hn::Set(d, weight[e0]);
    const float* c = column(e0, 0);
    for (int64_t u = 0; u < kT; ++u) acc[u] = hn::Mul(w, hn::Load(d, c + u * L));
  };
  const auto step = [&](VF * acc, int64_t e0, int64_t k) HWY_ATTR __attribute__((always_inline)) {
    const VF w = hn::Set(d, weight[e0 + k]);
    const float* c = column(e0, k);
    for (int64_t u = 0; u < kT; ++u) acc[u] = hn::Add(acc[u], hn::Mul(w, hn::Load(d, c + u * L)));
  };
  const auto put = [&](const VF* acc, int64_t r) HWY_ATTR __attribute__((always_inline)) {
    for (int64_t u = 0; u < kT; ++u) hn::Store(acc[u], d, outs + ((r - r0) * kT + u) * L);
  };
  // One output's whole chain (zero for a row without taps).
  const auto one = [&](int64_t r) HWY_ATTR __attribute__((always_inline)) {
    const int64_t e0 = offsets[r], n = offsets[r + 1] - e0;
    VF acc[kT];
    for (int64_t u = 0; u < kT; ++u) acc[u] = hn::Zero(d);
    if (n > 0) {
      first(acc, e0);
      for (int64_t k = 1; k < n; ++k) step(acc, e0, k);
    }
    put(acc, r);
  };
  int64_t r = r0;
  for (; r + kGroup <= r1; r += kGroup) {
    const int64_t e0 = offsets[r], e1 = offsets[r + 1], e2 = offsets[r + 2], e3 = offsets[r + 3];
    const int64_t n0 = e1 - e0, n1 = e2 - e1, n2 = e3 - e2, n3 = offsets[r + 4] - e3;
    const int64_t common = std::min(std::min(n0, n1), std::min(n2, n3));
    if (common == 0) {
      for (int64_t i = 0; i < kGroup; ++i) one(r + i);
      continue;
    }
    VF a0[kT], a1[kT], a2[kT], a3[kT];
    first(a0, e0);
    first(a1, e1);
    first(a2, e2);
    first(a3, e3);
    for (int64_t k = 1; k < common; ++k) {
      step(a0, e0, k);
      step(a1, e1, k);
      step(a2, e2, k);
      step(a3, e3, k);
    }
    for (int64_t k = common; k < n0; ++k) step(a0, e0, k);
    for (int64_t k = common; k < n1; ++k) step(a1, e1, k);
    for (int64_t k = common; k < n2; ++k) step(a2, e2, k);
    for (int64_t k = common; k < n3; ++k) step(a3, e3, k);
    put(a0, r);
    put(a1, r + 1);
    put(a2, r + 2);
    put(a3, r + 3);
  }
  for (; r < r1; ++r) one(r);
}

// Premultiplied alpha on the columns [lo, hi] of a row vector (pixels of `channels` columns, lo
// and hi + 1 multiples of it; `stride` floats from one column to the next): colour columns times
// their pixel's alpha column.
HWY_INLINE void premultiply_columns(DF d, int64_t lo, int64_t hi, int64_t channels, int64_t stride,
                                    float* cols) {
  for (int64_t p = lo; p <= hi; p += channels) {
    const VF alpha = hn::Load(d, cols + (p - lo + channels - 1) * stride);
    for (int64_t c = 0; c + 1 < channels; ++c) {
      float* col = cols + (p - lo + c) * stride;
      hn::Store(hn::Mul(hn::Load(d, col), alpha), d, col);
    }
  }
}

// ... and colour outputs [r0, r1) divided by their pixel's alpha output (0 where not positive).
HWY_INLINE void unpremultiply_outputs(DF d, int64_t r0, int64_t r1, int64_t channels,
                                      int64_t stride, float* outs) {
  for (int64_t p = r0; p < r1; p += channels) {
    const VF alpha = hn::Load(d, outs + (p - r0 + channels - 1) * stride);
    const auto positive = hn::Gt(alpha, hn::Zero(d));
    // Lanes that are not positive divide by 1 (their quotient is discarded): no division by
    // zero, which Highway's scalar targets would perform as an undefined C++ division.
    const VF divisor = hn::IfThenElse(positive, alpha, hn::Set(d, 1.0f));
    for (int64_t c = 0; c + 1 < channels; ++c) {
      float* out = outs + (p - r0 + c) * stride;
      hn::Store(hn::IfThenElseZero(positive, hn::Div(hn::Load(d, out), divisor)), d, out);
    }
  }
}

// Outputs [r0, r1) of one row with the scalar arithmetic (an output group wider than the
// scratch), premultiplied as the step asks.
template <typename Tin, typename Tout>
void transposed_rows_scalar(const PassArgs<float>& a, const AxisTable<float>& t, int64_t r0,
                            int64_t r1, const Tin* x, Tout* out) {
  const int64_t channels = a.alpha_channels;
  float acc[kMaxAlphaChannels];
  for (int64_t r = r0; r < r1; ++r) {
    float v = 0.0f;
    for (int64_t e = t.offsets[r]; e < t.offsets[r + 1]; ++e) {
      const float xe = a.premultiply ? load_premultiplied<float>(x, t.index[e], channels)
                                     : load_as<float>(x + t.index[e]);
      v = e == t.offsets[r] ? t.weight[e] * xe : v + t.weight[e] * xe;
    }
    acc[r - r0] = v;
  }
  for (int64_t r = r0; r < r1; ++r) {
    float v = acc[r - r0];
    if (a.unpremultiply && (r - r0) % channels != channels - 1) {
      v = unpremultiplied(v, acc[r - r0 - (r - r0) % channels + channels - 1]);
    }
    store_result(out + r, v);
  }
}

// A tile of rows from row o0 (of items [o0, end)): kTiles row vectors while more than one
// vector's rows are left, then one. Lanes past the last row read it again; their results are
// not stored.
template <typename Tin, typename Tout>
struct Tile {
  static constexpr int64_t kLanes = static_cast<int64_t>(hn::MaxLanes(DF()));
  int64_t vectors = 1;  // row vectors
  int64_t live = 0;     // rows
  const Tin* in[kTiles * kLanes];
  Tout* out[kTiles * kLanes];

  Tile(const PassShape& s, const Tin* src, Tout* dst, int64_t o0, int64_t end) {
    vectors = end - o0 > kLanes ? kTiles : 1;
    live = std::min(vectors * kLanes, end - o0);
    for (int64_t l = 0; l < vectors * kLanes; ++l) {
      const int64_t o = o0 + std::min(l, live - 1);
      in[l] = src + o * s.src_len;
      out[l] = dst + o * s.rows;
    }
  }
};

// The tile's outputs [r0, r1), vector u's at outs + u * L (`stride` floats from one output to the
// next), transposed out into its live rows; with `unpremultiply`, colour outputs are divided by
// their pixel's alpha output first (pixels of `channels` outputs).
template <typename Tin, typename Tout>
HWY_INLINE void tile_outputs_out(DF d, const Tile<Tin, Tout>& tile, float* outs, int64_t r0,
                                 int64_t r1, int64_t stride, bool unpremultiply, int64_t channels) {
  constexpr int64_t L = static_cast<int64_t>(hn::MaxLanes(DF()));
  for (int64_t u = 0; u < tile.vectors; ++u) {
    const int64_t live = std::min(L, tile.live - u * L);
    if (live <= 0) break;
    if (unpremultiply) unpremultiply_outputs(d, r0, r1, channels, stride, outs + u * L);
    transpose_outputs_out<L>(d, outs + u * L, r0, r1, stride, tile.out + u * L,
                             static_cast<size_t>(live));
  }
}

// f(consecutive, vectors) with both as constants (std::bool_constant,
// std::integral_constant<int64_t>): the kernels' template arguments for a tile.
template <class F>
HWY_INLINE void with_tile_kind(bool consecutive, int64_t vectors, const F& f) {
  using Two = std::integral_constant<int64_t, kTiles>;
  using One = std::integral_constant<int64_t, 1>;
  if (vectors == kTiles) {
    if (consecutive) return f(std::true_type{}, Two{});
    return f(std::false_type{}, Two{});
  }
  if (consecutive) return f(std::true_type{}, One{});
  f(std::false_type{}, One{});
}

// [*lo, *hi] widened to the columns the taps of outputs [r0, r1) read, in whole pixels of `pixel`
// columns (a row's indices do not decrease: AxisTable).
inline void widen_to_taps(const AxisTable<float>& t, int64_t r0, int64_t r1, int64_t pixel,
                          int64_t* lo, int64_t* hi) {
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t e0 = t.offsets[r], e1 = t.offsets[r + 1];
    if (e0 == e1) continue;
    *lo = std::min(*lo, t.index[e0] / pixel * pixel);
    *hi = std::max(*hi, t.index[e1 - 1] / pixel * pixel + pixel - 1);
  }
}

// Outputs [q0, q1) of rows [begin, end) with the whole column range of each chunk of outputs
// transposed first (the columns of at most kTransposedMaxColumns, the outputs of at most
// kTransposedMaxOutputs): the path for premultiplied alpha (whole pixels) and for a ring chunk
// with a group of outputs wider than the ring.
template <typename Tin, typename Tout>
void linear_chunks(const PassArgs<float>& a, const Tin* src, Tout* dst, int64_t begin, int64_t end,
                   int64_t q0, int64_t q1, float* cols, float* outs) {
  const DF d;
  constexpr int64_t L = static_cast<int64_t>(hn::MaxLanes(DF()));
  const AxisTable<float>& t = a.table->table;
  // Premultiplied alpha works on whole pixels: output groups and column ranges of `group`.
  const bool alpha = a.premultiply || a.unpremultiply;
  const int64_t group = alpha ? a.alpha_channels : 1;
  const int64_t max_outputs = kTransposedMaxOutputs / group * group;
  // Chunks of outputs outside, tiles of rows inside: a chunk's column range is found once per
  // call, not once per tile.
  for (int64_t r0 = q0; r0 < q1;) {
    // The longest chunk of output groups whose taps span at most kTransposedMaxColumns columns
    // (whole pixels with alpha).
    int64_t lo = INT64_MAX, hi = -1, r1 = r0;
    for (; r1 < q1 && r1 - r0 < max_outputs; r1 += group) {
      int64_t new_lo = lo, new_hi = hi;
      widen_to_taps(t, r1, r1 + group, group, &new_lo, &new_hi);
      if (new_hi - new_lo + 1 > kTransposedMaxColumns) break;
      lo = new_lo;
      hi = new_hi;
    }
    const bool too_wide = r1 == r0;  // one output group wider than the scratch
    if (too_wide) r1 = r0 + group;
    for (int64_t o0 = begin; o0 < end;) {
      const Tile<Tin, Tout> tile(a.shape, src, dst, o0, end);
      o0 += tile.live;
      if (too_wide) {  // its rows one by one
        for (int64_t l = 0; l < tile.live; ++l) {
          transposed_rows_scalar(a, t, r0, r1, tile.in[l], tile.out[l]);
        }
        continue;
      }
      const int64_t stride = tile.vectors * L;
      for (int64_t u = 0; u < tile.vectors && lo <= hi; ++u) {
        transpose_columns_in<L>(d, tile.in + u * L, lo, hi, cols + u * L, stride);
        if (a.premultiply) premultiply_columns(d, lo, hi, group, stride, cols + u * L);
      }
      with_tile_kind(a.table->consecutive_taps, tile.vectors, [&](auto consecutive, auto vectors) {
        transposed_outputs<decltype(consecutive)::value, decltype(vectors)::value>(d, t, r0, r1, lo,
                                                                                   cols, outs);
      });
      tile_outputs_out(d, tile, outs, r0, r1, stride, a.unpremultiply, group);
    }
    r0 = r1;
  }
}

// The outputs [q0, q1) of one tile of kT row vectors through the ring: per group of kChainGroup
// outputs (columns group_lo[g] .. group_hi[g]), the blocks of L columns up to group_hi[g] not yet
// in the ring are transposed into it (column j in slot j % kRingColumns; the first
// `mirrored_slots` slots also after the ring), then the group's outputs are computed from its
// columns, consecutive in memory from group_lo[g]'s slot; every L outputs are transposed out into
// the rows. With more than one vector, the first is filled `lead` columns (a multiple of L) ahead
// of the others (kLeadBlocks). A group whose first column was overwritten or lies past the ring's
// (a table that is not monotone, or a gap) starts the ring again at the block of its first column.
template <bool kConsecutive, int64_t kT, typename Tin, typename Tout>
HWY_INLINE void ring_tile(DF d, const AxisTable<float>& t, int64_t src_len, int64_t q0, int64_t q1,
                          const int64_t* group_lo, const int64_t* group_hi, int64_t mirrored_slots,
                          int64_t lead, const Tile<Tin, Tout>& tile, float* ring, float* outs) {
  constexpr int64_t L = static_cast<int64_t>(hn::MaxLanes(DF()));
  constexpr int64_t stride = kT * L;
  static_assert(kRingColumns % L == 0, "blocks of L columns never cross the ring's end");
  static_assert(L % kChainGroup == 0 || kChainGroup % L == 0, "groups within batches, or one");
  if (kT == 1) lead = 0;
  // Block c's columns of row vector u into its slot (and the mirror's).
  const auto fill = [&](int64_t u, int64_t c) HWY_ATTR __attribute__((always_inline)) {
    const int64_t slot = c % kRingColumns;
    float* mirror = slot < mirrored_slots ? ring + (kRingColumns + slot) * stride : nullptr;
    transpose_columns_in<L>(d, tile.in + u * L, c, std::min(c + L, src_len) - 1,
                            ring + slot * stride + u * L, stride,
                            mirror == nullptr ? nullptr : mirror + u * L);
  };
  // The ring holds columns [valid, next) of every vector, and vector 0's up to next + lead (both
  // multiples of L); valid counts vector 0's overwritten slots.
  int64_t next = 0, valid = 0;
  for (int64_t b0 = q0; b0 < q1; b0 += L) {
    const int64_t b1 = std::min(b0 + L, q1);
    for (int64_t g0 = b0; g0 < b1; g0 += kChainGroup) {
      const int64_t g = (g0 - q0) / kChainGroup;
      const int64_t lo = group_lo[g], hi = group_hi[g];
      const float* at = ring;  // (a group without taps reads no column)
      if (hi >= lo) {
        if (lo < valid || lo >= next) {
          next = valid = lo / L * L;
          for (int64_t c = next; c < std::min(next + lead, src_len); c += L) fill(0, c);
        }
        for (; next <= hi; next += L) {
          for (int64_t u = lead > 0 ? 1 : 0; u < kT; ++u) fill(u, next);
          if (lead > 0 && next + lead < src_len) fill(0, next + lead);
        }
        valid = std::max(valid, next + lead - kRingColumns);
        at = ring + (lo % kRingColumns) * stride;
      }
      transposed_outputs<kConsecutive, kT>(d, t, g0, std::min(g0 + kChainGroup, b1), lo, at,
                                           outs + (g0 - b0) * stride);
    }
    tile_outputs_out(d, tile, outs, b0, b1, stride, false, 1);
  }
}

// Outputs [q0, q1) (at most kRingChunk) of rows [begin, end) through the ring; false, with
// nothing written, when a group of outputs spans more than kRingColumns - L + 1 columns: filling
// the block of its last column (at most L - 1 columns past it) must not overwrite its first. The
// first vector's lead takes what room is left (at most kLeadBlocks blocks): the span plus L - 1
// plus the lead stays within the ring.
template <typename Tin, typename Tout>
bool ring_chunk(const PassArgs<float>& a, const Tin* src, Tout* dst, int64_t begin, int64_t end,
                int64_t q0, int64_t q1, float* ring, float* outs) {
  const DF d;
  constexpr int64_t L = static_cast<int64_t>(hn::MaxLanes(DF()));
  const AxisTable<float>& t = a.table->table;
  int64_t group_lo[kRingChunk / kChainGroup], group_hi[kRingChunk / kChainGroup];
  int64_t span = 0;
  for (int64_t g0 = q0; g0 < q1; g0 += kChainGroup) {
    const int64_t g = (g0 - q0) / kChainGroup;
    group_lo[g] = INT64_MAX;
    group_hi[g] = -1;
    widen_to_taps(t, g0, std::min(g0 + kChainGroup, q1), 1, &group_lo[g], &group_hi[g]);
    if (group_hi[g] >= group_lo[g]) span = std::max(span, group_hi[g] - group_lo[g] + 1);
  }
  if (span > kRingColumns - L + 1) return false;
  const int64_t mirrored_slots = (span + L - 1) / L * L;
  const int64_t lead = std::min(kLeadBlocks, (kRingColumns - L + 1 - span) / L) * L;
  for (int64_t o0 = begin; o0 < end;) {
    const Tile<Tin, Tout> tile(a.shape, src, dst, o0, end);
    o0 += tile.live;
    with_tile_kind(a.table->consecutive_taps, tile.vectors, [&](auto consecutive, auto vectors) {
      ring_tile<decltype(consecutive)::value, decltype(vectors)::value>(
          d, t, a.shape.src_len, q0, q1, group_lo, group_hi, mirrored_slots, lead, tile, ring,
          outs);
    });
  }
  return true;
}

// Outputs [q0, q1) of rows [begin, end) through ring chunks of kRingChunk outputs, each through
// linear_chunks where a group of it is wider than the ring.
template <typename Tin, typename Tout>
void ring_outputs(const PassArgs<float>& a, const Tin* src, Tout* dst, int64_t begin, int64_t end,
                  int64_t q0, int64_t q1, float* cols, float* outs) {
  for (int64_t c0 = q0; c0 < q1; c0 += kRingChunk) {
    const int64_t c1 = std::min(c0 + kRingChunk, q1);
    if (!ring_chunk(a, src, dst, begin, end, c0, c1, cols, outs)) {
      linear_chunks(a, src, dst, begin, end, c0, c1, cols, outs);
    }
  }
}

// The phased runs of a padded table of float32 rows into float32 (PassTable::block_phases, at
// most kMaxPhasedTaps taps: taken from their phases, row by row, by phased_block_run): antialiased
// downsampling by 2 to 4 has windows wider than 4 vectors at 4:1 (8 taps), yet each of its inner
// blocks is every 4th element and the 8 taps after it. Per 16 outputs of a row on AVX-512: 4 loads,
// 12 permutes, 15 multiplies and additions, where the ring transposes 68 columns of 16 rows in and
// 16 outputs out. The outputs outside the runs (the borders) go through the ring.
struct PhasedRuns {
  static constexpr int kMax = 4;  // (more runs than this: the rest through the ring)
  int n = 0;
  int64_t first_block[kMax], blocks[kMax];
};

inline PhasedRuns phased_runs(const PassTable<float>& p) {
  PhasedRuns runs;
  if (p.window_lanes != static_cast<int64_t>(hn::MaxLanes(DF()))) return runs;
  const int64_t total = static_cast<int64_t>(p.block_phases.size());
  for (int64_t b = 0; b < total && runs.n < PhasedRuns::kMax;) {
    const int64_t run = p.block_run[b];
    if (p.block_phases[b] != 0 && run >= kPhasedBlocks && p.block_taps[b] >= 1 &&
        p.block_taps[b] <= kMaxPhasedTaps) {
      runs.first_block[runs.n] = b;
      runs.blocks[runs.n] = run;
      ++runs.n;
    }
    b += p.block_phases[b] != 0 ? run : 1;
  }
  return runs;
}

// Items [begin, end) (rows) of a horizontal pass through transposed tiles: ring chunks of
// kRingChunk outputs (ring_outputs); premultiplied alpha all through linear_chunks. With phased
// runs (a padded table, PhasedRuns), per tile of rows: the ring's outputs between the runs, then
// each run's outputs of those rows from its phases.
template <typename Tin, typename Tout>
void horizontal_transposed(const PassArgs<float>& a, const void* src_v, void* dst_v, int64_t begin,
                           int64_t end, void* scratch) {
  constexpr int64_t L = static_cast<int64_t>(hn::MaxLanes(DF()));
  const PassShape& s = a.shape;
  const Tin* src = static_cast<const Tin*>(src_v);
  Tout* dst = static_cast<Tout*>(dst_v);
  auto* base = static_cast<unsigned char*>(scratch);
  float* cols = reinterpret_cast<float*>(base + (64 - reinterpret_cast<uintptr_t>(base) % 64) % 64);
  float* outs = cols + kTransposedMaxColumns * kTiles * L;
  if (a.premultiply || a.unpremultiply) {
    linear_chunks(a, src, dst, begin, end, 0, s.rows, cols, outs);
    return;
  }
  if constexpr (std::is_same_v<Tin, float> && std::is_same_v<Tout, float>) {
    const PhasedRuns runs = phased_runs(*a.table);
    if (runs.n > 0) {
      const DF d;
      const Windows wv(*a.table);
      for (int64_t o0 = begin; o0 < end;) {
        const int64_t o1 = std::min(end, o0 + kTiles * L);
        int64_t q = 0;  // the outputs before q are done
        for (int i = 0; i < runs.n; ++i) {
          const int64_t b = runs.first_block[i], r = b * L;
          ring_outputs(a, src, dst, o0, o1, q, r, cols, outs);
          for (int64_t j0 = o0; j0 < o1; j0 += kChunkRows) {
            const int n = static_cast<int>(std::min<int64_t>(kChunkRows, o1 - j0));
            const float* x[kChunkRows];
            float* out[kChunkRows];
            for (int j = 0; j < n; ++j) {
              x[j] = src + (j0 + j) * s.src_len;
              out[j] = dst + (j0 + j) * s.rows;
            }
            with_held_taps(wv.taps[b], [&](auto held) HWY_ATTR {
              phased_block_run<decltype(held)::value>(d, wv, b, runs.blocks[i], r, x, out, n,
                                                      s.rows, s.src_len);
            });
          }
          q = r + runs.blocks[i] * L;
        }
        ring_outputs(a, src, dst, o0, o1, q, s.rows, cols, outs);
        o0 = o1;
      }
      return;
    }
  }
  ring_outputs(a, src, dst, begin, end, 0, s.rows, cols, outs);
}
