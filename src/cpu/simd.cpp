// Vectorised pass kernels (float32 accumulation), written once against a Highway descriptor and
// compiled for every target; the plan takes the set of the best target this CPU supports
// (simd_kernels()), so nothing is dispatched per call. Storage types are converted in registers
// at the loads and stores: loads widen exactly, stores round once (to nearest even; integers
// saturate; NaN stores 0), so the results equal the scalar kernels' bit for bit (kernels.hpp).
// Besides the arithmetic kernels, copy_rows_4 moves the elements of unit-tap tables (nearest
// forward) with permutes only, so every bit pattern is copied exactly.
//
// The file is compiled twice, so that a build runs the two compilations side by side: as itself,
// for the targets below AVX2 and the dispatch (HWY_ONCE, at the end), and from simd_avx.cpp,
// which sets UPSAMPLE_SIMD_AVX_COPY for the AVX2 and AVX-512 targets. Each copy declares the
// other's kernel_set(); every target's kernels are compiled once (docs/reliability.md, "Two
// copies of simd.cpp").

#ifndef UPSAMPLE_SIMD_AVX_COPY
#define UPSAMPLE_SIMD_AVX_COPY 0
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd.cpp"
#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/dtype.hpp"
#include "cpu/kernels.hpp"
#include "hwy/cache_control.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace upsample::cpu::HWY_NAMESPACE {
#if (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2) == UPSAMPLE_SIMD_AVX_COPY
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// float16 <-> float32 in hardware (round to nearest even) on x86 targets from AVX2 up.
#undef UPSAMPLE_F16C
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)
#define UPSAMPLE_F16C 1
#else
#define UPSAMPLE_F16C 0
#endif

// ---- loads: Lanes(d) consecutive storage elements, widened exactly to float32 ----------------

HWY_INLINE VF load(DF d, const float* p) { return hn::LoadU(d, p); }

HWY_INLINE VF load(DF d, const BFloat16* p) {
  const hn::Rebind<uint16_t, DF> du16;
  const hn::Rebind<uint32_t, DF> du32;
  const auto wide = hn::PromoteTo(du32, hn::LoadU(du16, reinterpret_cast<const uint16_t*>(p)));
  return hn::BitCast(d, hn::ShiftLeft<16>(wide));
}

HWY_INLINE VF load(DF d, const Half* p) {
#if UPSAMPLE_F16C
  const hn::Rebind<hwy::float16_t, DF> df16;
  return hn::PromoteTo(d, hn::LoadU(df16, reinterpret_cast<const hwy::float16_t*>(p)));
#else
  HWY_ALIGN float buf[hn::MaxLanes(DF())];
  for (size_t i = 0; i < hn::Lanes(d); ++i) buf[i] = half_to_float(p[i].bits);
  return hn::Load(d, buf);
#endif
}

HWY_INLINE VF load(DF d, const uint8_t* p) {
  const hn::Rebind<uint8_t, DF> du8;
  const hn::Rebind<int32_t, DF> di32;
  return hn::ConvertTo(d, hn::PromoteTo(di32, hn::LoadU(du8, p)));
}

HWY_INLINE VF load(DF d, const uint16_t* p) {
  const hn::Rebind<uint16_t, DF> du16;
  const hn::Rebind<int32_t, DF> di32;
  return hn::ConvertTo(d, hn::PromoteTo(di32, hn::LoadU(du16, p)));
}

// ---- stores: Lanes(d) elements, rounded once -------------------------------------------------

// A NaN result becomes the default quiet NaN (kernels.hpp, store_result).
HWY_INLINE VF canonical(VF v, DF d) {
  return hn::IfThenElse(hn::IsNaN(v), hn::Set(d, std::numeric_limits<float>::quiet_NaN()), v);
}

HWY_INLINE void store(VF v, DF d, float* p) { hn::StoreU(canonical(v, d), d, p); }

// AVX512_BF16's VCVTNEPS2BF16 converts 16 floats to bfloat16 in one instruction. For normal
// numbers, zeros and infinities it computes what the rounding below computes (the same
// add-0x7fff-plus-lsb rule, in the Intel SDM's pseudocode), but it flushes denormals to zero and
// keeps NaN payloads, so it takes only vectors with neither; the others go the portable way.
// Whether the CPU has it is read once, by kernel_set(), before any kernel of this target runs.
// (Highway 1.0 has no target with AVX512_BF16, hence the instruction by name.)
#undef UPSAMPLE_BF16_CONVERT
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3 && HWY_TARGET != HWY_SCALAR && \
    (defined(__GNUC__) || defined(__clang__))
#define UPSAMPLE_BF16_CONVERT 1
bool bf16_convert = false;
// VFPCLASSPS classes the instruction does not take: QNaN, denormal, SNaN.
constexpr int kNaNOrDenormal = 0x01 | 0x20 | 0x80;
#else
#define UPSAMPLE_BF16_CONVERT 0
#endif

// Round to nearest even on the bits. A NaN is the default quiet NaN (0x7fc00000) by then, which
// this rounding maps to bfloat16's default quiet NaN 0x7fc0, as the scalar store does; infinities
// and values that round past the largest finite bfloat16 become infinities.
HWY_INLINE void store(VF v_any, DF d, BFloat16* p) {
#if UPSAMPLE_BF16_CONVERT
  static_assert(hn::MaxLanes(DF()) == 16);
  if (HWY_LIKELY(bf16_convert && _mm512_fpclass_ps_mask(v_any.raw, kNaNOrDenormal) == 0)) {
    __m256i bits;
    asm("vcvtneps2bf16 %1, %0" : "=v"(bits) : "v"(v_any.raw));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), bits);
    return;
  }
#endif
  const VF v = canonical(v_any, d);
  const hn::Rebind<uint16_t, DF> du16;
  const hn::Rebind<uint32_t, DF> du32;
  const hn::Rebind<int32_t, DF> di32;
  const auto u = hn::BitCast(du32, v);
  const auto lsb = hn::And(hn::ShiftRight<16>(u), hn::Set(du32, 1u));
  const auto rounded = hn::ShiftRight<16>(hn::Add(u, hn::Add(hn::Set(du32, 0x7fffu), lsb)));
  hn::StoreU(hn::DemoteTo(du16, hn::BitCast(di32, rounded)), du16, reinterpret_cast<uint16_t*>(p));
}

#if UPSAMPLE_BF16_CONVERT
// Two vectors of bfloat16 outputs, p[0, 2 Lanes). VCVTNE2PS2BF16 converts both in one
// instruction, by the rule of VCVTNEPS2BF16, when neither has a NaN or denormal lane; the others
// go through store() one by one. In the stand-alone loops of docs/performance.md ("Two bfloat16
// vectors per conversion") either instruction adds about 0.5 ns to a loop's iteration on the Zen 5
// host, so one per pair halves the conversions' cost. The converting path is marked likely (here
// and in store() above): without the hint GCC laid it out of line, two taken branches per pair,
// and W17 took 2-7% longer (docs/performance.md, "The bfloat16 stores' likely path").
HWY_INLINE void store2(VF v0, VF v1, DF d, BFloat16* p) {
  if (HWY_LIKELY(bf16_convert && (_mm512_fpclass_ps_mask(v0.raw, kNaNOrDenormal) |
                                  _mm512_fpclass_ps_mask(v1.raw, kNaNOrDenormal)) == 0)) {
    __m512i bits;  // (low half from the last operand: v0's 16 values first)
    asm("vcvtne2ps2bf16 %2, %1, %0" : "=v"(bits) : "v"(v1.raw), "v"(v0.raw));
    _mm512_storeu_si512(p, bits);
    return;
  }
  store(v0, d, p);
  store(v1, d, p + hn::Lanes(d));
}
#endif

HWY_INLINE void store(VF v_any, DF d, Half* p) {
  const VF v = canonical(v_any, d);
#if UPSAMPLE_F16C
  const hn::Rebind<hwy::float16_t, DF> df16;
  hn::StoreU(hn::DemoteTo(df16, v), df16, reinterpret_cast<hwy::float16_t*>(p));
#else
  HWY_ALIGN float buf[hn::MaxLanes(DF())];
  hn::Store(v, d, buf);
  for (size_t i = 0; i < hn::Lanes(d); ++i) p[i].bits = float_to_half(buf[i]);
#endif
}

// Integers: NaN and values <= 0 store 0, values >= max store max, others round half to even.
// (x + 2^23) - 2^23 rounds x in [0, 2^23) to an integer with IEEE round-to-nearest-even on
// every target, exactly as the scalar store's nearbyint.
template <int kMax>
HWY_INLINE hn::Vec<hn::Rebind<int32_t, DF>> round_saturate(VF v, DF d) {
  const hn::Rebind<int32_t, DF> di32;
  const auto positive = hn::Gt(v, hn::Zero(d));
  const auto clamped = hn::Min(hn::IfThenElseZero(positive, v), hn::Set(d, float(kMax)));
  const auto magic = hn::Set(d, 8388608.0f);
  const auto rounded = hn::Sub(hn::Add(clamped, magic), magic);
  return hn::ConvertTo(di32, rounded);
}

HWY_INLINE void store(VF v, DF d, uint8_t* p) {
  const hn::Rebind<uint8_t, DF> du8;
  hn::StoreU(hn::DemoteTo(du8, round_saturate<255>(v, d)), du8, p);
}

HWY_INLINE void store(VF v, DF d, uint16_t* p) {
  const hn::Rebind<uint16_t, DF> du16;
  hn::StoreU(hn::DemoteTo(du16, round_saturate<65535>(v, d)), du16, p);
}

// The first n (< Lanes) lanes, through the scalar store (same rounding).
template <typename T>
HWY_INLINE void store_first(VF v, DF d, T* p, size_t n) {
  if constexpr (std::is_same_v<T, float>) {
    hn::BlendedStore(canonical(v, d), hn::FirstN(d, n), d, p);
  } else {
    HWY_ALIGN float buf[hn::MaxLanes(DF())];
    hn::Store(v, d, buf);
    // (n < Lanes always; the bound also tells GCC, whose range analysis otherwise warns about
    // a memset of up to SIZE_MAX bytes where this loop is inlined into held_block's loops.)
    n = std::min(n, hn::Lanes(d));
    for (size_t i = 0; i < n; ++i) store_result(p + i, buf[i]);
  }
}

// ---- vertical: taps along a strided axis, each a contiguous run of `inner` elements ----------

// fn(std::integral_constant<int, n>{}) for a tap count n of 1 to 8 (kernels that hold a row's
// taps in registers, as arrays of that size: bicubic's transposed rows have 8), and true; false
// for other counts.
template <int kN = 1, class Fn>
HWY_INLINE bool with_held_taps(int64_t n, const Fn& fn) {
  if constexpr (kN > 8) {
    return false;
  } else {
    if (n == kN) {
      fn(std::integral_constant<int, kN>{});
      return true;
    }
    return with_held_taps<kN + 1>(n, fn);
  }
}

#if !HWY_HAVE_SCALABLE  // (arrays of vectors; sizeless vector types run the general loop)
// The full vectors of an output row of kTaps taps (source rows plane + (index[k] - bias) *
// inner, weights weight[k]), the rows' pointers and weights held in registers; returns where the
// tail begins. The operations of the general loop, in its order. kPairs: two vectors at a time
// through put2 (then one through put). kPrefetchable (float32 into float32) with pf_ahead > 0
// (PassArgs::prefetch_within_row): the source rows past prev_last (the last tap of the table row
// before; the last two such rows at most) are prefetched pf_ahead elements ahead of the loads,
// the addresses formed as integers (past the tensor, a prefetch loads nothing).
template <int kTaps, bool kPairs, bool kPrefetchable, typename Tin, class Put, class Put2>
HWY_INLINE int64_t vertical_held(DF d, const Tin* plane, const int64_t* index, const float* weight,
                                 int64_t bias, int64_t inner, int64_t prev_last, int64_t pf_ahead,
                                 Put& put, Put2& put2) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const Tin* x[kTaps];
  VF w[kTaps];
  for (int k = 0; k < kTaps; ++k) {
    x[k] = plane + (index[k] - bias) * inner;
    w[k] = hn::Set(d, weight[k]);
  }
  int64_t i = 0;
  if constexpr (kPrefetchable && !kPairs) {
    uintptr_t first_read[2] = {0, 0};  // byte addresses pf_ahead elements into the rows
    int n = 0;
    for (int k = kTaps - 1; pf_ahead > 0 && k >= 0 && n < 2; --k) {
      if (index[k] > prev_last) {
        const uintptr_t row = reinterpret_cast<uintptr_t>(x[k]);
        first_read[n++] = row + static_cast<uintptr_t>(pf_ahead) * sizeof(Tin);
      }
    }
    if (n > 0) {
      if (n == 1) first_read[1] = first_read[0];
      for (; i + lanes <= inner; i += lanes) {
        const uintptr_t at = static_cast<uintptr_t>(i) * sizeof(Tin);
        hwy::Prefetch(reinterpret_cast<const unsigned char*>(first_read[0] + at));
        hwy::Prefetch(reinterpret_cast<const unsigned char*>(first_read[1] + at));
        VF acc = hn::Mul(w[0], load(d, x[0] + i));
        for (int k = 1; k < kTaps; ++k) acc = hn::Add(acc, hn::Mul(w[k], load(d, x[k] + i)));
        put(acc, i);
      }
      return i;
    }
  }
  if constexpr (kPairs) {
    for (; i + 2 * lanes <= inner; i += 2 * lanes) {
      VF acc0 = hn::Mul(w[0], load(d, x[0] + i));
      VF acc1 = hn::Mul(w[0], load(d, x[0] + i + lanes));
      for (int k = 1; k < kTaps; ++k) {
        acc0 = hn::Add(acc0, hn::Mul(w[k], load(d, x[k] + i)));
        acc1 = hn::Add(acc1, hn::Mul(w[k], load(d, x[k] + i + lanes)));
      }
      put2(acc0, acc1, i);
    }
  }
  for (; i + lanes <= inner; i += lanes) {
    VF acc = hn::Mul(w[0], load(d, x[0] + i));
    for (int k = 1; k < kTaps; ++k) acc = hn::Add(acc, hn::Mul(w[k], load(d, x[k] + i)));
    put(acc, i);
  }
  return i;
}
#endif

// Prefetches the source rows that table row r + ahead starts reading (those after the last tap
// of the row before it, at most 4; row r + ahead may lie in the next plane). The addresses are
// formed as integers: a row past the tensor is a prefetch that loads nothing, not a pointer.
template <typename Tin>
HWY_INLINE void prefetch_rows(const Tin* plane, int64_t r, int64_t ahead, int64_t rows,
                              int64_t src_len, int64_t inner, const int64_t* offsets,
                              const int64_t* index, int64_t bias) {
  const int64_t row_bytes = inner * static_cast<int64_t>(sizeof(Tin));
  uintptr_t base = reinterpret_cast<uintptr_t>(plane);
  int64_t next = r + ahead;
  if (next >= rows) {  // (a prefetch distance of 2 planes or more prefetches nothing)
    next -= rows;
    base += static_cast<uintptr_t>(src_len * row_bytes);
    if (next >= rows) return;
  }
  const int64_t e0 = offsets[next], e1 = offsets[next + 1];
  if (e0 == e1) return;
  const int64_t last = index[e1 - 1];
  const int64_t first = std::max(e0 > 0 ? index[e0 - 1] + 1 : index[e0], last - 3);
  for (int64_t j = first; j <= last; ++j) {
    const uintptr_t start = base + static_cast<uintptr_t>((j - bias) * row_bytes);
    const uintptr_t end = start + static_cast<uintptr_t>(row_bytes);
    for (uintptr_t line = start & ~uintptr_t{63}; line < end; line += 64) {
      hwy::Prefetch(reinterpret_cast<const unsigned char*>(line));
    }
  }
}

// kStream: full vectors at aligned addresses go out with non-temporal stores (an output much
// larger than the caches, or a reducing pass's: dispatch.cpp, kReducingStreamBytes), not fenced
// here (SimdKernels::flush_streams); same values.
template <typename Tin, typename Tout, bool kStream = false>
void vertical(const PassArgs<float>& a, const void* src_v, void* dst_v, int64_t begin, int64_t end,
              void* /* scratch */) {
  const DF d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  // Locals, not members: a vector store may alias any memory, and members would be reloaded.
  const int64_t rows = a.shape.rows, inner = a.shape.inner, src_len = a.shape.src_len;
  const AxisTable<float>& t = a.table->table;
  const int64_t* offsets = t.offsets.data();
  const int64_t* index = t.index.data();
  const float* weight = t.weight.data();
  const int64_t bias = a.index_bias;
  const Tin* src = static_cast<const Tin*>(src_v);
  const int64_t dst_bias = a.dst_item_bias;
  const int64_t ahead = a.prefetch_rows_ahead;
  const int64_t within = a.prefetch_within_row;
  Tout* dst = static_cast<Tout*>(dst_v);
#if !HWY_HAVE_SCALABLE
  // Rows of whole vectors, not streamed: runs of rows with equal tap counts (each prefetching as
  // the loop below does).
  const bool runs = !kStream && inner % lanes == 0;
#endif
  // Items are (o, r) pairs in row-major order; no division per item (it dominated small rows).
  int64_t o = begin / rows, r = begin % rows;
  for (int64_t item = begin; item < end; ++item, ++r) {
    if (r == rows) {
      r = 0;
      ++o;
    }
    const Tin* plane = src + o * src_len * inner;
    if (ahead > 0) prefetch_rows(plane, r, ahead, rows, src_len, inner, offsets, index, bias);
    Tout* out = dst + (item - dst_bias) * inner;
    const int64_t e0 = offsets[r], e1 = offsets[r + 1];
    if (e0 == e1) {
      for (int64_t i = 0; i < inner; ++i) store_result(out + i, 0.0f);
      continue;
    }
    const Tin* x0 = plane + (index[e0] - bias) * inner;
    const float w0 = weight[e0];
    // Inlined by attribute, not left to GCC's inlining budget for this file (docs/design.md,
    // "Hot lambdas are inlined by attribute").
    auto put = [&](VF acc, int64_t i) HWY_ATTR __attribute__((always_inline)) {
      if constexpr (kStream) {
        if (reinterpret_cast<uintptr_t>(out + i) % (lanes * sizeof(float)) == 0) {
          hn::Stream(canonical(acc, d), d, out + i);
          return;
        }
      }
      store(acc, d, out + i);
    };
    // Two vectors at once where bfloat16 converts them in one instruction (store2).
    constexpr bool kPairs = UPSAMPLE_BF16_CONVERT && std::is_same_v<Tout, BFloat16> && !kStream;
    auto put2 = [&](VF acc0, VF acc1, int64_t i) HWY_ATTR __attribute__((always_inline)) {
      if constexpr (kPairs) {
        store2(acc0, acc1, d, out + i);
      } else {
        put(acc0, i);
        put(acc1, i + lanes);
      }
    };
    int64_t i = 0;
#if !HWY_HAVE_SCALABLE
    // Rows of 1 to 8 taps: their source rows and weights held in registers for the run. Where
    // rows are whole vectors (runs), the rows after this one in the plane and the items with as
    // many taps follow here, each setting only its rows and weights (W17's 128 rows of 8 vectors
    // a plane: docs/performance.md, "Runs of rows"); i is then inner for the last of them.
    with_held_taps(e1 - e0, [&](auto taps) {
      constexpr int kTaps = decltype(taps)::value;
      constexpr bool kPrefetchable = std::is_same_v<Tin, float> && std::is_same_v<Tout, float>;
      for (int64_t e = e0;;) {
        const int64_t prev_last = e > 0 ? index[e - 1] : std::numeric_limits<int64_t>::min();
        i = vertical_held<kTaps, kPairs, kPrefetchable>(d, plane, index + e, weight + e, bias,
                                                        inner, prev_last, within, put, put2);
        if (!runs || item + 1 == end || r + 1 == rows || offsets[r + 2] - offsets[r + 1] != kTaps) {
          break;
        }
        ++item;
        ++r;
        out += inner;
        e = offsets[r];
        if (ahead > 0) prefetch_rows(plane, r, ahead, rows, src_len, inner, offsets, index, bias);
      }
    });
#endif
    // The rows of more taps: four vectors at a time (one pass over the taps' pointers and
    // weights for four), then one.
    for (; i + 4 * lanes <= inner; i += 4 * lanes) {
      const VF wv0 = hn::Set(d, w0);
      VF acc0 = hn::Mul(wv0, load(d, x0 + i)), acc1 = hn::Mul(wv0, load(d, x0 + i + lanes));
      VF acc2 = hn::Mul(wv0, load(d, x0 + i + 2 * lanes));
      VF acc3 = hn::Mul(wv0, load(d, x0 + i + 3 * lanes));
      for (int64_t e = e0 + 1; e < e1; ++e) {
        const Tin* x = plane + (index[e] - bias) * inner + i;
        const VF w = hn::Set(d, weight[e]);
        acc0 = hn::Add(acc0, hn::Mul(w, load(d, x)));
        acc1 = hn::Add(acc1, hn::Mul(w, load(d, x + lanes)));
        acc2 = hn::Add(acc2, hn::Mul(w, load(d, x + 2 * lanes)));
        acc3 = hn::Add(acc3, hn::Mul(w, load(d, x + 3 * lanes)));
      }
      put2(acc0, acc1, i);
      put2(acc2, acc3, i + 2 * lanes);
    }
    for (; i + lanes <= inner; i += lanes) {
      auto acc = hn::Mul(hn::Set(d, w0), load(d, x0 + i));
      for (int64_t e = e0 + 1; e < e1; ++e) {
        const Tin* x = plane + (index[e] - bias) * inner;
        acc = hn::Add(acc, hn::Mul(hn::Set(d, weight[e]), load(d, x + i)));
      }
      put(acc, i);
    }
    for (; i < inner; ++i) {
      float acc = w0 * load_as<float>(x0 + i);
      for (int64_t e = e0 + 1; e < e1; ++e) {
        acc = acc + weight[e] * load_as<float>(plane + (index[e] - bias) * inner + i);
      }
      store_result(out + i, acc);
    }
  }
}

// ---- two vertical passes at once (PairFn): a's rows live in registers, never in memory -------
// For an output row of b (item (o, r)) and each row `q` of a's output inside it, every tap k of
// b names a source row y_k of the plane: a's value there is t_k = sum_j wa_j * x[y_k, x_j] (a's
// taps in table order), the output sum_k wb_k * t_k (b's taps in order): the two passes'
// arithmetic, without the store and load of t_k in between. a's store would turn a NaN t_k into
// the default NaN; not doing so changes no bit: the output is NaN either way, and its store
// canonicalises it. When the next row of b reads the same source rows (upsampling), both rows are
// computed from the same t_k.

// a's value t at row `x` (the tap's source row of a's input), elements [i, i + lanes).
template <typename Tin>
HWY_INLINE VF pair_tap(DF d, const Tin* x, const int64_t* ai, const float* aw, int64_t na,
                       int64_t inner, int64_t i) {
  if (na == 0) return hn::Zero(d);
  VF t = hn::Mul(hn::Set(d, aw[0]), load(d, x + ai[0] * inner + i));
  for (int64_t j = 1; j < na; ++j)
    t = hn::Add(t, hn::Mul(hn::Set(d, aw[j]), load(d, x + ai[j] * inner + i)));
  return t;
}
template <typename Tin>
HWY_INLINE float pair_tap_scalar(const Tin* x, const int64_t* ai, const float* aw, int64_t na,
                                 int64_t inner, int64_t i) {
  if (na == 0) return 0.0f;
  float t = aw[0] * load_as<float>(x + ai[0] * inner + i);
  for (int64_t j = 1; j < na; ++j) t = t + aw[j] * load_as<float>(x + ai[j] * inner + i);
  return t;
}

template <typename T>
void vertical_pair(const PassArgs<float>& a, const PassArgs<float>& b, const void* src_v,
                   void* dst_v, int64_t begin, int64_t end) {
  const DF d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  // Locals, not members: a vector store may alias any memory, and members would be reloaded.
  const int64_t a_rows = a.shape.rows, b_rows = b.shape.rows, b_inner = b.shape.inner;
  const int64_t b_src_len = b.shape.src_len;
  const int64_t* ta_offsets = a.table->table.offsets.data();
  const int64_t* ta_index = a.table->table.index.data();
  const float* ta_weight = a.table->table.weight.data();
  const int64_t* tb_offsets = b.table->table.offsets.data();
  const int64_t* tb_index = b.table->table.index.data();
  const float* tb_weight = b.table->table.weight.data();
  const T* src = static_cast<const T*>(src_v);
  T* dst = static_cast<T*>(dst_v);
  const int64_t inner = a.shape.inner;                    // elements of one tap of a
  const int64_t a_outer_elems = a.shape.src_len * inner;  // one source row of b's plane
  int64_t o = begin / b_rows, r = begin % b_rows;
  for (int64_t item = begin; item < end;) {
    const int64_t eb0 = tb_offsets[r], eb1 = tb_offsets[r + 1], nb = eb1 - eb0;
    // The next row of the same plane with the same source rows: computed alongside.
    bool two = item + 1 < end && r + 1 < b_rows && nb > 0 &&
               tb_offsets[r + 2] - tb_offsets[r + 1] == nb &&
               std::equal(tb_index + eb0, tb_index + eb1, tb_index + eb1);
    const float* wb = tb_weight + eb0;
    const float* wc = two ? tb_weight + eb1 : wb;
    const T* plane = src + o * b_src_len * a_outer_elems;
    T* out = dst + item * b_inner;
    T* out2 = out + b_inner;
    if (nb == 0) {
      for (int64_t e = 0; e < b_inner; ++e) store_result(out + e, 0.0f);
    } else {
      const T* x0 = plane + tb_index[eb0] * a_outer_elems;
      const T* x1 = nb > 1 ? plane + tb_index[eb0 + 1] * a_outer_elems : x0;
      for (int64_t q = 0; q < a_rows; ++q) {
        const int64_t ea0 = ta_offsets[q], na = ta_offsets[q + 1] - ea0;
        const int64_t* ai = ta_index + ea0;
        const float* aw = ta_weight + ea0;
        T* y = out + q * inner;
        T* y2 = out2 + q * inner;
        int64_t i = 0;
        if (na == 2 && nb == 2) {  // bilinear: both passes of two taps, pointers hoisted
          const T *p00 = x0 + ai[0] * inner, *p01 = x0 + ai[1] * inner;
          const T *p10 = x1 + ai[0] * inner, *p11 = x1 + ai[1] * inner;
          const VF wa0 = hn::Set(d, aw[0]), wa1 = hn::Set(d, aw[1]);
          const VF wb0 = hn::Set(d, wb[0]), wb1 = hn::Set(d, wb[1]);
          const VF wc0 = hn::Set(d, wc[0]), wc1 = hn::Set(d, wc[1]);
          for (; i + lanes <= inner; i += lanes) {
            const VF t0 = hn::Add(hn::Mul(wa0, load(d, p00 + i)), hn::Mul(wa1, load(d, p01 + i)));
            const VF t1 = hn::Add(hn::Mul(wa0, load(d, p10 + i)), hn::Mul(wa1, load(d, p11 + i)));
            store(hn::Add(hn::Mul(wb0, t0), hn::Mul(wb1, t1)), d, y + i);
            if (two) store(hn::Add(hn::Mul(wc0, t0), hn::Mul(wc1, t1)), d, y2 + i);
          }
        } else {
          for (; i + lanes <= inner; i += lanes) {
            VF acc = hn::Zero(d), acc2 = hn::Zero(d);
            for (int64_t k = 0; k < nb; ++k) {
              const T* x = plane + tb_index[eb0 + k] * a_outer_elems;
              const VF t = pair_tap(d, x, ai, aw, na, inner, i);
              const VF wt = hn::Mul(hn::Set(d, wb[k]), t), wt2 = hn::Mul(hn::Set(d, wc[k]), t);
              acc = k == 0 ? wt : hn::Add(acc, wt);
              acc2 = k == 0 ? wt2 : hn::Add(acc2, wt2);
            }
            store(acc, d, y + i);
            if (two) store(acc2, d, y2 + i);
          }
        }
        for (; i < inner; ++i) {
          float acc = 0.0f, acc2 = 0.0f;
          for (int64_t k = 0; k < nb; ++k) {
            const T* x = plane + tb_index[eb0 + k] * a_outer_elems;
            const float t = pair_tap_scalar(x, ai, aw, na, inner, i);
            acc = k == 0 ? wb[k] * t : acc + wb[k] * t;
            acc2 = k == 0 ? wc[k] * t : acc2 + wc[k] * t;
          }
          store_result(y + i, acc);
          if (two) store_result(y2 + i, acc2);
        }
      }
    }
    const int64_t step = two ? 2 : 1;
    item += step;
    r += step;
    if (r == b_rows) {
      r = 0;
      ++o;
    }
  }
}

// A source row shorter than one vector (PassTable::short_rows) is read through a copy padded
// with zeros to a whole vector, so the window loads stay inside the buffer; other rows are read
// in place. The padding is never picked by a tap. kSlots rows can be held at once.
template <typename T, int kSlots = 1>
class ShortRows {
 public:
  ShortRows(bool active, int64_t len) : active_(active), len_(len) {
    if (active_) std::memset(copy_, 0, sizeof(copy_));
  }
  const T* of(const T* row, int slot = 0) {
    if (!active_) return row;
    std::memcpy(copy_[slot], row, static_cast<size_t>(len_) * sizeof(T));
    return copy_[slot];
  }

 private:
  bool active_;
  int64_t len_;
  alignas(64) T copy_[kSlots][64];  // at least the float32 lanes of any target (kPadLanes)
};

// ---- horizontal: taps along the unit-stride axis; lanes are consecutive outputs of a row -----
// Per block of Lanes outputs, the taps are picked from 1 to 4 vectors loaded at the block's
// window base (permutes), or, for wider windows, the block's rows are computed one by one.
// The last block is computed whole (padding lanes use weight 0 on a valid element) and stored
// under a mask.

// The windowed form's arrays as local pointers: a vector store may alias any memory (the
// intrinsics' pointer types), so arrays reached through the PassTable would be reloaded after
// every store.
struct Windows {
  explicit Windows(const PassTable<float>& p)
      : kind(p.window_kind.data()),
        base(p.window_base.data()),
        rel(p.window_rel.data()),
        weight(p.padded_weight.data()),
        count(p.padded_count.data()),
        taps(p.block_taps.data()),
        uniform(p.block_uniform.data()),
        run(p.block_run.data()),
        phases(p.block_phases.data()),
        tail(p.phased_tail.data()),
        blocks(static_cast<int64_t>(p.phased_tail.size())),
        stride(p.padded_rows) {}
  const uint8_t* kind;
  const int32_t* base;
  const int32_t* rel;
  const float* weight;
  const int32_t* count;
  const int32_t* taps;
  const uint8_t* uniform;
  const int32_t* run;
  const uint8_t* phases;
  const uint8_t* tail;
  int64_t blocks;
  int64_t stride;  // of the tap-major arrays
};

// Uniform blocks (every row the same number of taps) are the common case; the hint keeps them
// on the fall-through path whatever else this file holds (without it GCC's block layout of this
// loop changed when copy_rows_4 joined the file).
template <class DI>
HWY_INLINE VF accumulate(DF d, DI di, const Windows& w_of, int64_t r, VF acc, VF tap, int64_t k,
                         bool uniform) {
  const auto w = hn::LoadU(d, w_of.weight + k * w_of.stride + r);
  if (k == 0) {
    const auto first = hn::Mul(w, tap);
    if (HWY_LIKELY(uniform)) return first;
    const auto count = hn::LoadU(di, w_of.count + r);
    return hn::IfThenElseZero(hn::RebindMask(d, hn::Gt(count, hn::Zero(di))), first);
  }
  const auto sum = hn::Add(acc, hn::Mul(w, tap));
  if (HWY_LIKELY(uniform)) return sum;
  const auto count = hn::LoadU(di, w_of.count + r);
  const auto live = hn::Gt(count, hn::Set(di, static_cast<int32_t>(k)));
  return hn::IfThenElse(hn::RebindMask(d, live), sum, acc);
}

// The `kind` vectors of the window at `window`; the unused ones repeat the first (window_tap
// never picks them).
template <typename Tin>
HWY_INLINE void load_window(DF d, const Tin* window, int kind, VF& v0, VF& v1, VF& v2, VF& v3) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  v0 = load(d, window);
  v1 = kind > 1 ? load(d, window + lanes) : v0;
  v2 = kind > 2 ? load(d, window + 2 * lanes) : v0;
  v3 = kind > 3 ? load(d, window + 3 * lanes) : v0;
}

// The tap of a window of `kind` vectors at offsets `rel` (index - base): lane = rel % lanes picks
// within a vector, rel / lanes picks the vector (lanes is a power of two). A one-vector window's
// offsets are lanes as they are.
template <class DI>
HWY_INLINE VF window_tap(DF d, DI di, int kind, hn::Vec<DI> rel, VF v0, VF v1, VF v2, VF v3) {
  if (kind == 1) return hn::TableLookupLanes(v0, hn::IndicesFromVec(d, rel));
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  // AVX-512's two-table permute (vpermt2ps) picks from a pair of vectors by the offset's low 5
  // bits; bit 5 then picks the pair. The same elements as the general form below.
  const VF lo{_mm512_permutex2var_ps(v0.raw, rel.raw, v1.raw)};
  if (kind == 2) return lo;
  const VF hi{_mm512_permutex2var_ps(v2.raw, rel.raw, v3.raw)};
  return hn::IfThenElse(hn::RebindMask(d, hn::TestBit(rel, hn::Set(di, 32))), hi, lo);
#endif
  const int32_t lanes = static_cast<int32_t>(hn::Lanes(d));
  const auto low_bits = hn::Set(di, lanes - 1);
  const auto lane = hn::IndicesFromVec(d, hn::And(rel, low_bits));
  const auto which = hn::AndNot(low_bits, rel);  // (rel / lanes) * lanes
  VF tap = hn::TableLookupLanes(v0, lane);
  auto pick = [&](VF v, int32_t q) HWY_ATTR __attribute__((always_inline)) {
    const auto here = hn::Eq(which, hn::Set(di, q * lanes));
    tap = hn::IfThenElse(hn::RebindMask(d, here), hn::TableLookupLanes(v, lane), tap);
  };
  pick(v1, 1);
  if (kind > 2) pick(v2, 2);
  if (kind > 3) pick(v3, 3);
  return tap;
}

#undef UPSAMPLE_BF16_WINDOWS
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3 && HWY_TARGET != HWY_SCALAR
#define UPSAMPLE_BF16_WINDOWS 1
// A bfloat16 window of `kind` float vectors as raw 16-bit elements, the bytes load_window reads:
// kinds 1 and 2 in lo (kind 1 loads its 16 elements only; its offsets never pick the others),
// kinds 3 and 4 in lo and hi.
HWY_INLINE void load_bf16_window(const BFloat16* window, int kind, __m512i& lo, __m512i& hi) {
  const __m256i* half = reinterpret_cast<const __m256i*>(window);
  lo = kind == 1 ? _mm512_castsi256_si512(_mm256_loadu_si256(half)) : _mm512_loadu_si512(window);
  hi = kind == 3   ? _mm512_castsi256_si512(_mm256_loadu_si256(half + 2))
       : kind == 4 ? _mm512_loadu_si512(window + 32)
                   : lo;
}

// The tap at `word` (each lane's offset index - base in its high 16 bits): every element moved
// into the high half of its float lane and the low half zeroed, which is its exact float32 value
// (load()'s widening), in one permute (AVX512BW: vpermw over 32 elements, vpermt2w over 64)
// instead of widening the window and permuting floats.
HWY_INLINE VF bf16_window_tap(int kind, __m512i word, __m512i lo, __m512i hi) {
  constexpr __mmask32 kHighHalves = 0xAAAAAAAAu;
  if (kind <= 2)
    return VF{_mm512_castsi512_ps(_mm512_maskz_permutexvar_epi16(kHighHalves, word, lo))};
  return VF{_mm512_castsi512_ps(_mm512_maskz_permutex2var_epi16(kHighHalves, lo, word, hi))};
}
#else
#define UPSAMPLE_BF16_WINDOWS 0
#endif

// The block's output vector (or its first rows - r lanes) into out + r. kStream (float32
// outputs): a whole vector at an aligned address goes out with a non-temporal store (the same
// bits as the ordinary store).
template <bool kStream = false, typename Tout>
HWY_INLINE void store_block(DF d, VF acc, Tout* out, int64_t r, int64_t rows) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  if constexpr (kStream && std::is_same_v<Tout, float>) {
    if (r + lanes <= rows && reinterpret_cast<uintptr_t>(out + r) % (lanes * sizeof(float)) == 0) {
      hn::Stream(canonical(acc, d), d, out + r);
      return;
    }
  }
  if (r + lanes <= rows) {
    store(acc, d, out + r);
  } else {
    store_first(acc, d, out + r, static_cast<size_t>(rows - r));
  }
}

// Rows of a horizontal pass run in chunks: per block of outputs, the chunk's rows one after the
// other, so that a block of at most 8 taps loads its offsets, weights and masks once per chunk
// (once per run of equal blocks, PassTable::block_run) and keeps them in registers. The
// per-element operations are those of one row at a time.
constexpr int kChunkRows = 8;
// A run of at least kRowByRowBlocks blocks (kernels.hpp) is walked row by row instead (each
// row's run of blocks, then the next row's): the taps stay in registers either way, and one
// source and one output stream at a time is what long rows need. Interleaving the chunk's 8 rows
// per block kept 8 read and 8 write streams in flight (on W11, 16x64x4096 -> 8192, sources 16 KiB
// and outputs 32 KiB apart): W11 took 0.7-1.1 ms that way on the Zen 5 host of
// docs/performance.md and 0.48-0.65 ms row by row. Short runs keep the interleaved order: W2
// (rows of 4 blocks, runs of 1-2) walked row by row took 0.79-1.12 ms against 0.63-0.78. The
// 2x upsampling of 64-element rows (W1, W17: rows of 8 blocks, an inner run of 6) is faster row
// by row: W1 0.28 ms against 0.33 (kRowByRowBlocks 6 against 8, alternating runs).

#if !HWY_HAVE_SCALABLE  // (arrays of vectors; sizeless vector types run the general path)
// The outputs of a held block from tap(k), the values of tap k of its rows: tap 0 times its
// weight, then each further tap's product added in order; a lane whose row has fewer taps keeps
// its sum (live[k]: the rows with more than k taps; uniform blocks have no such lanes). The
// windowed and the phased paths both sum through here, so their arithmetic is one.
template <int kTaps, class Tap>
HWY_INLINE VF sum_held_taps(const VF* w, const hn::Mask<DF>* live, bool uniform, const Tap& tap) {
  VF acc = hn::Mul(w[0], tap(0));
  if (!uniform) acc = hn::IfThenElseZero(live[0], acc);
  for (int k = 1; k < kTaps; ++k) {
    const VF sum = hn::Add(acc, hn::Mul(w[k], tap(k)));
    acc = uniform ? sum : hn::IfThenElse(live[k], sum, acc);
  }
  return acc;
}

// A phased run (PassTable::block_phases: rows kS elements apart, kS = 2..4) of `blocks` uniform
// blocks from output r of the rows x[0..n), whose taps are consecutive elements (tap k of lane l
// at window + kS * l + k, `window` the first block's first element; each later block kS * lanes
// further). Each block's kS vectors from its window on are split into kS phases (phase h: the
// elements window + kS * l + h, lane l); tap k is then phase k % kS shifted by k / kS lanes, which
// is the phase itself for the first kS taps and otherwise one permute of that phase of this
// block and the next. Those are the elements the windowed path permutes out of the block's
// window, summed the same way (sum_held_taps; uniform blocks: no masks). On AVX-512 a phase of 2
// vectors is one two-table permute (of 3 or 4: two and a blend) and a shifted tap one more,
// where a window of 3 or 4 vectors costs two permutes and a blend per tap. A run is walked row
// by row, whatever its length. Its last block may be one that ends it (PassTable::phased_tail),
// whose taps past the row's end are the row's last element: split_at reads them so.
template <int kTaps, int kS, bool kStream, typename Tout>
HWY_INLINE void phased_run(DF d, const VF* w, int64_t window, int64_t src_len, int64_t blocks,
                           int64_t r, const float* const* x, Tout* const* out, int n,
                           int64_t rows) {
  const hn::RebindToSigned<DF> di;
  using VI = hn::Vec<decltype(di)>;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  VI split[kS];  // phase h of kS vectors: their lanes kS * l + h
  for (int h = 0; h < kS; ++h) {
    split[h] = hn::Add(hn::Mul(hn::Iota(di, 0), hn::Set(di, kS)), hn::Set(di, h));
  }
  VI shift[kTaps];  // lanes t .. t + lanes - 1 of a phase of two blocks (t = k / kS)
  for (int k = 0; k < kTaps; ++k) shift[k] = hn::Add(hn::Iota(di, 0), hn::Set(di, k / kS));
  // The phases of the kS vectors at `at` into ph.
  auto split_at = [&](const float* xj, int64_t at, VF* ph) HWY_ATTR __attribute__((always_inline)) {
    VF v0, v1, v2, v3;
    if (HWY_LIKELY(at + kS * lanes <= src_len)) {
      load_window(d, xj + at, kS, v0, v1, v2, v3);
    } else {
      // Past the row's end: the elements there read as its last one (PassTable::phased_tail).
      // (at >= 0: a run's first window starts at a tap; a later one may start past the end.)
#if HWY_MEM_OPS_MIGHT_FAULT
      HWY_ALIGN float tail[kS * hn::MaxLanes(DF())];
      for (int64_t i = 0; i < kS * lanes; ++i) tail[i] = xj[std::min(at + i, src_len - 1)];
      load_window(d, tail, kS, v0, v1, v2, v3);
#else
      const VF last = hn::Set(d, xj[src_len - 1]);
      VF* v[4] = {&v0, &v1, &v2, &v3};
      for (int i = 0; i < kS; ++i) {
        const int64_t from = at + i * lanes;
        const int64_t have = std::clamp<int64_t>(src_len - from, 0, lanes);
        const auto inside = hn::FirstN(d, static_cast<size_t>(have));
        // (No lane past the row's end is read: masked loads do not touch those lanes here.)
        *v[i] =
            have == 0 ? last : hn::IfThenElse(inside, hn::MaskedLoad(inside, d, xj + from), last);
      }
      for (int i = kS; i < 4; ++i) *v[i] = v0;  // as load_window leaves them
#endif
    }
    for (int h = 0; h < kS; ++h) ph[h] = window_tap(d, di, kS, split[h], v0, v1, v2, v3);
  };
  for (int j = 0; j < n; ++j) {
    const float* xj = x[j];
    Tout* oj = out[j];
    VF here[kS], next[kS];
    // Taps past the first kS read the next block's phases; fewer taps never do.
    const VF* after = kTaps > kS ? next : here;
    split_at(xj, window, here);
    for (int64_t u = 0; u < blocks; ++u) {
      if constexpr (kTaps > kS) split_at(xj, window + (u + 1) * kS * lanes, next);
      auto tap = [&](int k) HWY_ATTR __attribute__((always_inline)) {
        if (k < kS) return here[k % kS];
        return window_tap(d, di, 2, shift[k], here[k % kS], after[k % kS], here[0], here[0]);
      };
      store_block<kStream>(d, sum_held_taps<kTaps>(w, nullptr, true, tap), oj, r + u * lanes, rows);
      if constexpr (kTaps > kS) {
        for (int h = 0; h < kS; ++h) here[h] = next[h];
      } else if (u + 1 < blocks) {
        split_at(xj, window + (u + 1) * kS * lanes, here);
      }
    }
  }
}

// A phased run (PassTable::block_phases) of `blocks` blocks from block b (outputs r .. r +
// blocks * lanes) of the n rows x[] into out[], float32 into float32: its weights into registers
// and phased_run for its s. held_block and horizontal_transposed (wide windows whose blocks are
// phased) both call it, each with its own inlined copy: out of line, W4 (whose runs go through
// held_block) took 0.280-0.288 ms against 0.257-0.260 (minima, docs/performance.md, "Wide phased
// blocks").
template <int kTaps, bool kStream = false>
HWY_INLINE void phased_block_run(DF d, const Windows& wv, int64_t b, int64_t blocks, int64_t r,
                                 const float* const* x, float* const* out, int n, int64_t rows,
                                 int64_t src_len) {
  VF w[kTaps];
  for (int k = 0; k < kTaps; ++k) w[k] = hn::LoadU(d, wv.weight + k * wv.stride + r);
  const int64_t window = int64_t{wv.base[b]} + wv.rel[r];  // tap 0 of the block's first row
  auto run = [&](auto s) HWY_ATTR __attribute__((always_inline)) {
    phased_run<kTaps, decltype(s)::value, kStream>(d, w, window, src_len, blocks, r, x, out, n,
                                                   rows);
  };
  if (wv.phases[b] == 2) return run(std::integral_constant<int, 2>{});
  if (wv.phases[b] == 3) return run(std::integral_constant<int, 3>{});
  run(std::integral_constant<int, 4>{});
}

// A block's taps held in registers (kTaps of them): offsets in its window, weights, the lanes
// whose rows have more than k taps, and for bfloat16 rows the offsets as 16-bit element indices in
// the high half of each lane (bf16_window_tap).
template <int kTaps, typename Tin>
struct HeldTaps {
  hn::Vec<hn::RebindToSigned<DF>> rel[kTaps];
  VF w[kTaps];
  hn::Mask<DF> live[kTaps];
#if UPSAMPLE_BF16_WINDOWS
  __m512i word[kTaps];
#endif

  // The taps of the block whose first output is r.
  HWY_INLINE HeldTaps(DF d, const Windows& wv, int64_t r, bool uniform) {
    const hn::RebindToSigned<DF> di;
    const auto count = uniform ? hn::Zero(di) : hn::LoadU(di, wv.count + r);
    for (int k = 0; k < kTaps; ++k) {
      rel[k] = hn::LoadU(di, wv.rel + k * wv.stride + r);
      w[k] = hn::LoadU(d, wv.weight + k * wv.stride + r);
      live[k] = hn::RebindMask(d, hn::Gt(count, hn::Set(di, k)));
#if UPSAMPLE_BF16_WINDOWS
      if constexpr (std::is_same_v<Tin, BFloat16>) word[k] = _mm512_slli_epi32(rel[k].raw, 16);
#endif
    }
  }
};

// One block through its held taps: the outputs rq .. of the row whose block window starts at
// `window`, into oj. `kind_c` and `uniform_c` are the block's kind and uniformity, as values or as
// constants (std::integral_constant).
template <bool kStream, int kTaps, typename Tin, typename Tout, class KindC, class UniformC>
HWY_INLINE void held_window_block(DF d, const HeldTaps<kTaps, Tin>& t, const Tin* window, Tout* oj,
                                  int64_t rq, int64_t rows, KindC kind_c, UniformC uniform_c) {
  const hn::RebindToSigned<DF> di;
  const int kd = kind_c;
  const bool un = uniform_c;
  auto sum_taps = [&](auto tap) HWY_ATTR __attribute__((always_inline)) {
    store_block<kStream>(d, sum_held_taps<kTaps>(t.w, t.live, un, tap), oj, rq, rows);
  };
#if UPSAMPLE_BF16_WINDOWS
  // bfloat16 rows: each tap permuted straight out of the raw window (bf16_window_tap).
  if constexpr (std::is_same_v<Tin, BFloat16>) {
    __m512i lo, hi;
    load_bf16_window(window, kd, lo, hi);
    sum_taps([&](int k) HWY_ATTR
             __attribute__((always_inline)) { return bf16_window_tap(kd, t.word[k], lo, hi); });
  } else  // (the widened window below is then not compiled for bfloat16 rows)
#endif
  {
    VF v0, v1, v2, v3;
    load_window(d, window, kd, v0, v1, v2, v3);
    sum_taps([&](int k) HWY_ATTR __attribute__((always_inline)) {
      return window_tap(d, di, kd, t.rel[k], v0, v1, v2, v3);
    });
  }
}

// `blocks` blocks from block b (outputs r .. r + blocks * lanes) of the chunk's n rows: a run of
// blocks that share b's taps (PassTable::block_run), held in registers for the whole run.
template <int kTaps, typename Tin, typename Tout, bool kStream = false>
HWY_INLINE void held_block(DF d, const Windows& wv, int64_t b, int64_t blocks, int64_t r, int kind,
                           bool uniform, const Tin* const* x, Tout* const* out, int n, int64_t rows,
                           int64_t src_len) {
  // Float32 rows into float32 (the backward passes it was measured on: W4, W12): phased runs.
  if constexpr (std::is_same_v<Tin, float> && std::is_same_v<Tout, float>) {
    if (wv.phases[b] != 0 && blocks >= kPhasedBlocks) {
      return phased_block_run<kTaps, kStream>(d, wv, b, blocks, r, x, out, n, rows, src_len);
    }
  }
  const HeldTaps<kTaps, Tin> taps(d, wv, r, uniform);
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int32_t* base = wv.base + b;
  // Block q of the run (outputs rq ..) of the row at xj into oj.
  auto block = [&](const Tin* xj, Tout* oj, int64_t q, int64_t rq, auto kind_c, auto uniform_c)
      HWY_ATTR __attribute__((always_inline)) {
    held_window_block<kStream>(d, taps, xj + base[q], oj, rq, rows, kind_c, uniform_c);
  };
  if (blocks >= kRowByRowBlocks) {
    auto row_by_row = [&](auto kind_c, auto uniform_c) HWY_ATTR __attribute__((always_inline)) {
      for (int j = 0; j < n; ++j) {
        const Tin* xj = x[j];  // (locals: a store may alias the arrays)
        Tout* oj = out[j];
        for (int64_t q = 0, rq = r; q < blocks; ++q, rq += lanes) {
          block(xj, oj, q, rq, kind_c, uniform_c);
        }
      }
    };
    // The long runs of 2x upsampling (linear: 2 taps, cubic: 4) are uniform windows of one or two
    // vectors: those loops carry no test of either (constants); other runs test them per block.
    // Only for rows of float32, float16 and bfloat16 into float32 (where it was measured: W1,
    // W17, W18): each such loop is one more copy of the block per tap count and type pair, and
    // this file is the build's longest compilation (about 13 minutes alone under clang's
    // ASan+UBSan on the Zen 5 host of docs/performance.md).
    using kOne = std::integral_constant<int, 1>;
    using kTwo = std::integral_constant<int, 2>;
    if constexpr (kTaps <= 4 && std::is_same_v<Tout, float> &&
                  (std::is_same_v<Tin, float> || std::is_same_v<Tin, BFloat16> ||
                   std::is_same_v<Tin, Half>)) {
      if (uniform && kind == 1) return row_by_row(kOne{}, std::true_type{});
      if (uniform && kind == 2) return row_by_row(kTwo{}, std::true_type{});
    }
    row_by_row(kind, uniform);
  } else {
    auto across = [&](auto kind_c, auto uniform_c) HWY_ATTR __attribute__((always_inline)) {
      for (int64_t q = 0, rq = r; q < blocks; ++q, rq += lanes) {
        for (int j = 0; j < n; ++j) block(x[j], out[j], q, rq, kind_c, uniform_c);
      }
    };
    // Short runs of float32 rows into float32 (the backward passes' border blocks: W2's rows of
    // 4 blocks are half border blocks, 3 to 5 taps over windows of 2 or 3 vectors; W10's
    // antialiased rows, blocks of one-vector windows in runs of one) with their kind and
    // uniformity as constants: tested per tap, they cost 5-7% of W2's time and 11-13% of W10's
    // (docs/performance.md, "Border blocks with constant kinds", "Long source rows prefetched
    // within the row").
    if constexpr (std::is_same_v<Tin, float> && std::is_same_v<Tout, float>) {
      using kOne = std::integral_constant<int, 1>;
      using kTwo = std::integral_constant<int, 2>;
      using kThree = std::integral_constant<int, 3>;
      if (kind == 1) {
        return uniform ? across(kOne{}, std::true_type{}) : across(kOne{}, std::false_type{});
      }
      if (kind == 2) {
        return uniform ? across(kTwo{}, std::true_type{}) : across(kTwo{}, std::false_type{});
      }
      if (kind == 3) {
        return uniform ? across(kThree{}, std::true_type{}) : across(kThree{}, std::false_type{});
      }
    }
    across(kind, uniform);
  }
}

// Rows framed by two border blocks: a first block, a run of blocks with the same taps from block 1
// to the last but one (PassTable::block_run), and a last block, each a uniform one-vector window
// of kTaps taps, not phased: 2x linear upsampling of short rows (W1, W17 and W18: 64 elements into
// 128, blocks 1 + 6 + 1; W13: 32 into 64, blocks 1 + 2 + 1). The three blocks' taps are held in
// registers at once and each row is walked whole, one row after the other, where held_block walks
// the chunk's rows once per run of blocks (runs shorter than kRowByRowBlocks block by block
// across the rows). Returns kTaps (1 or 2) where a pass's rows (of `rows` outputs, the blocks past
// them padding) are framed so, else 0.
template <typename Tin, typename Tout>
HWY_INLINE int framed_row_taps(const Windows& wv, bool windows, int64_t rows, int64_t lanes) {
  const int64_t blocks = (rows + lanes - 1) / lanes;
  if (!windows || blocks < 3) return 0;
  const int64_t last = blocks - 1;
  if (wv.run[1] < last - 1) return 0;
  const int taps = wv.taps[0];
  if (taps < 1 || taps > 2) return 0;
  for (const int64_t b : {int64_t{0}, int64_t{1}, last}) {
    if (wv.kind[b] != 1 || wv.uniform[b] == 0 || wv.taps[b] != taps) return 0;
    // (Phased blocks of float32 rows run from their phases: held_block.)
    if (std::is_same_v<Tin, float> && std::is_same_v<Tout, float> && wv.phases[b] != 0) return 0;
  }
  return taps;
}

template <int kTaps, typename Tin, typename Tout, bool kStream>
HWY_INLINE void framed_rows(DF d, const Windows& wv, const Tin* const* x, Tout* const* out, int n,
                            int64_t rows) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t last = (rows + lanes - 1) / lanes - 1;
  const HeldTaps<kTaps, Tin> first_taps(d, wv, 0, true), run_taps(d, wv, lanes, true),
      last_taps(d, wv, last * lanes, true);
  const int32_t* base = wv.base;
  const std::integral_constant<int, 1> kind;
  const std::true_type uniform;
  for (int j = 0; j < n; ++j) {
    const Tin* xj = x[j];  // (locals: a store may alias the arrays)
    Tout* oj = out[j];
    held_window_block<kStream>(d, first_taps, xj + base[0], oj, 0, rows, kind, uniform);
    for (int64_t q = 1, rq = lanes; q < last; ++q, rq += lanes) {
      held_window_block<kStream>(d, run_taps, xj + base[q], oj, rq, rows, kind, uniform);
    }
    held_window_block<kStream>(d, last_taps, xj + base[last], oj, last * lanes, rows, kind,
                               uniform);
  }
}
#endif

// kStream (float32 into float32, outputs much larger than the caches or of reducing passes:
// simd_horizontal_stream): whole aligned vectors go out with non-temporal stores, not fenced
// here (SimdKernels::flush_streams); same values.
template <typename Tin, typename Tout, bool kStream = false>
void horizontal(const PassArgs<float>& a, const void* src_v, void* dst_v, int64_t begin,
                int64_t end, void* /* scratch */) {
  const DF d;
  const hn::RebindToSigned<DF> di;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t src_len = a.shape.src_len, rows = a.shape.rows;
  const PassTable<float>& p = *a.table;
  const Tin* src = static_cast<const Tin*>(src_v);
  Tout* dst = static_cast<Tout*>(dst_v);
  const bool windows = p.window_lanes == lanes;
  const Windows wv(p);
  ShortRows<Tin, kChunkRows> short_rows(windows && p.short_rows, src_len);
  const Tin* x[kChunkRows];
  Tout* out[kChunkRows];
#if !HWY_HAVE_SCALABLE
  // Rows framed by border blocks (framed_rows): rows of float32, float16 and bfloat16 into
  // float32, where it was measured (W1, W13, W17, W18).
  int framed = 0;
  if constexpr (std::is_same_v<Tout, float> &&
                (std::is_same_v<Tin, float> || std::is_same_v<Tin, BFloat16> ||
                 std::is_same_v<Tin, Half>)) {
    framed = framed_row_taps<Tin, Tout>(wv, windows, rows, lanes);
  }
#endif
  for (int64_t o0 = begin; o0 < end; o0 += kChunkRows) {
    const int n = static_cast<int>(std::min<int64_t>(kChunkRows, end - o0));
    for (int j = 0; j < n; ++j) {
      x[j] = short_rows.of(src + (o0 + j) * src_len, j);
      out[j] = dst + (o0 + j) * rows;
    }
#if !HWY_HAVE_SCALABLE
    if (framed == 1) {
      framed_rows<1, Tin, Tout, kStream>(d, wv, x, out, n, rows);
      continue;
    }
    if (framed == 2) {
      framed_rows<2, Tin, Tout, kStream>(d, wv, x, out, n, rows);
      continue;
    }
#endif
    for (int64_t r = 0, b = 0, blocks = 1; r < rows; r += blocks * lanes, b += blocks) {
      blocks = 1;
      const int kind = windows ? wv.kind[b] : 0;
      if (kind == 0) {
        // Wide windows (many taps, strong downsampling): hardware gathers are slow on several
        // CPUs (AMD Zen), while independent scalar rows overlap well out of order. Same
        // arithmetic as the vector paths, so the choice never changes a bit.
        for (int j = 0; j < n; ++j) {
          for (int64_t q = r; q < std::min(r + lanes, rows); ++q) {
            store_result(out[j] + q, horizontal_output(p.table, q, x[j], p.consecutive_taps));
          }
        }
        continue;
      }
      // Taps past the block's longest row are masked out in every lane: not computed.
      const int64_t taps = wv.taps[b];
      const bool uniform = wv.uniform[b] != 0;
#if !HWY_HAVE_SCALABLE
      if (with_held_taps(taps, [&](auto held) {
            blocks = wv.run[b];
            // A phased run (float32 rows into float32) takes the block after it where that one
            // ends it (PassTable::phased_tail).
            if constexpr (std::is_same_v<Tin, float> && std::is_same_v<Tout, float>) {
              if (wv.phases[b] != 0 && b + blocks < wv.blocks && wv.tail[b + blocks] != 0) {
                ++blocks;
              }
            }
            held_block<decltype(held)::value, Tin, Tout, kStream>(
                d, wv, b, blocks, r, kind, uniform, x, out, n, rows, src_len);
          })) {
        continue;
      }
#endif
      for (int j = 0; j < n; ++j) {
        VF v0, v1, v2, v3;
        load_window(d, x[j] + wv.base[b], kind, v0, v1, v2, v3);
        VF acc = hn::Zero(d);
        for (int64_t k = 0; k < taps; ++k) {
          const auto rel = hn::LoadU(di, wv.rel + k * wv.stride + r);
          acc = accumulate(d, di, wv, r, acc, window_tap(d, di, kind, rel, v0, v1, v2, v3), k,
                           uniform);
        }
        store_block<kStream>(d, acc, out[j], r, rows);
      }
    }
  }
}

#if !HWY_HAVE_SCALABLE
#include "cpu/simd_transposed-inl.h"
#endif
#if !HWY_HAVE_SCALABLE && HWY_TARGET != HWY_SCALAR
#include "cpu/simd_alpha-inl.h"
#endif

// ---- unit-tap copies: each block of Lanes outputs of a row picks its elements out of 1 to 4
// vectors loaded at the block's window base (PassTable windows), with permutes only - no
// arithmetic, so every bit pattern (NaN payloads, signalling NaNs, signed zeros) is copied
// exactly. 4-byte elements (float32) move in float vectors as raw bits; blocks whose window is
// wider use a scalar gather.

// Row x through the table into each of the n_out rows outs[] (the same elements into each).
// kStream: full vectors at aligned addresses go out with non-temporal stores (the raw bits, as
// the ordinary stores write them).
template <bool kStream = false>
HWY_INLINE void copy_row_4(DF d, const PassTable<float>& p, const Windows& wv, bool windows,
                           const float* x, float* const* outs, int n_out, int64_t rows) {
  const hn::RebindToSigned<DF> di;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t* index = p.table.index.data();
  for (int64_t r = 0, b = 0; r < rows; r += lanes, ++b) {
    const int kind = windows ? wv.kind[b] : 0;
    const int64_t n = std::min(lanes, rows - r);
    if (kind == 0) {
      for (int j = 0; j < n_out; ++j) {
        for (int64_t q = r; q < r + n; ++q) std::memcpy(outs[j] + q, x + index[q], sizeof(float));
      }
      continue;
    }
    VF v0, v1, v2, v3;
    load_window(d, x + wv.base[b], kind, v0, v1, v2, v3);  // raw bits: a float load moves them
    const VF picked = window_tap(d, di, kind, hn::LoadU(di, wv.rel + r), v0, v1, v2, v3);
    for (int j = 0; j < n_out; ++j) {
      if (n == lanes) {
        if constexpr (kStream) {
          if (reinterpret_cast<uintptr_t>(outs[j] + r) % (lanes * sizeof(float)) == 0) {
            hn::Stream(picked, d, outs[j] + r);
            continue;
          }
        }
        hn::StoreU(picked, d, outs[j] + r);
      } else {
        hn::BlendedStore(picked, hn::FirstN(d, static_cast<size_t>(n)), d, outs[j] + r);
      }
    }
  }
}

void copy_rows_4(const PassArgs<float>& a, const void* src_v, void* dst_v, int64_t begin,
                 int64_t end, void* /* scratch */) {
  const DF d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t src_len = a.shape.src_len, rows = a.shape.rows;
  const PassTable<float>& p = *a.table;
  const float* src = static_cast<const float*>(src_v);  // raw 4-byte patterns
  float* dst = static_cast<float*>(dst_v);
  const bool windows = p.window_lanes == lanes;
  const Windows wv(p);
  ShortRows<float> short_row(windows && p.short_rows, src_len);
  for (int64_t o = begin; o < end; ++o) {
    float* out = dst + o * rows;
    copy_row_4(d, p, wv, windows, short_row.of(src + o * src_len), &out, 1, rows);
  }
}

// ---- a row copy and a copy of whole rows at once (PairFn): nearest forward ------------------
// Pass a copies elements within rows (copy_rows_4's table), pass b copies whole rows of a's
// output (a row gather, b's items (o, r)). Each output row of b is a's copy of its source row,
// written straight from registers, and the rows after it that b gives the same source row (an
// upsampling factor's repeats) get the same vectors: no intermediate, no row copies. The bits are
// the two passes': both move raw 4-byte patterns. kStream: copy_row_4's non-temporal stores.
template <bool kStream>
void copy_pair_4(const PassArgs<float>& a, const PassArgs<float>& b, const void* src_v, void* dst_v,
                 int64_t begin, int64_t end) {
  const DF d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t a_src_len = a.shape.src_len, row_len = a.shape.rows;  // = b's inner
  const int64_t b_rows = b.shape.rows, b_src_len = b.shape.src_len, bias = b.index_bias;
  const int64_t* b_index = b.table->table.index.data();
  const PassTable<float>& p = *a.table;
  const float* src = static_cast<const float*>(src_v);
  float* dst = static_cast<float*>(dst_v);
  const bool windows = p.window_lanes == lanes;
  const Windows wv(p);
  ShortRows<float> short_row(windows && p.short_rows, a_src_len);
  constexpr int kMaxRepeats = 16;  // output rows written from one copy
  float* outs[kMaxRepeats];
  int64_t o = begin / b_rows, r = begin % b_rows;
  for (int64_t item = begin; item < end;) {
    int n = 1;
    while (n < kMaxRepeats && item + n < end && r + n < b_rows && b_index[r + n] == b_index[r]) {
      ++n;
    }
    for (int j = 0; j < n; ++j) outs[j] = dst + (item + j) * row_len;
    const float* x = src + (o * b_src_len + b_index[r] - bias) * a_src_len;
    copy_row_4<kStream>(d, p, wv, windows, short_row.of(x), outs, n, row_len);
    item += n;
    r += n;
    if (r == b_rows) {
      r = 0;
      ++o;
    }
  }
}

// SimdKernels::flush_streams: the non-temporal stores of the kernels above, which do not fence
// them, made visible to other threads.
void flush_streams() { hwy::FlushStream(); }

// The kernel set of this target: every pair of StorageTypes<float> that kReachable admits (the
// pairs the scalar kernels take), so the two always cover the same pairs.
const SimdKernels* kernel_set() {
  static const SimdKernels kernels = [] {
    SimdKernels k;
    k.target = hwy::TargetName(HWY_TARGET);
    k.lanes = static_cast<int64_t>(hn::Lanes(DF()));
#if UPSAMPLE_BF16_CONVERT
    __builtin_cpu_init();
    bf16_convert = __builtin_cpu_supports("avx512bf16");
#endif
#if !HWY_HAVE_SCALABLE
    k.transposed_scratch_bytes = transposed_scratch_bytes();
#endif
    for_each_type(StorageTypes<float>{}, [&k](auto in_tag) {
      using Tin = decltype(in_tag);
      for_each_type(StorageTypes<float>{}, [&k](auto out_tag) {
        using Tout = decltype(out_tag);
        if constexpr (kReachable<float, Tin, Tout>) {
          const int in = static_cast<int>(dtype_of<Tin>());
          const int out = static_cast<int>(dtype_of<Tout>());
          k.vertical[in][out] = &vertical<Tin, Tout>;
          k.horizontal[in][out] = &horizontal<Tin, Tout>;
#if !HWY_HAVE_SCALABLE
          k.horizontal_transposed[in][out] = &horizontal_transposed<Tin, Tout>;
#endif
#if !HWY_HAVE_SCALABLE && HWY_TARGET != HWY_SCALAR
          k.vertical_alpha[0][in][out] = &vertical_alpha<Tin, Tout, 2>;
          k.vertical_alpha[1][in][out] = &vertical_alpha<Tin, Tout, 4>;
#endif
        }
      });
    });
    for_each_type(StorageTypes<float>{}, [&k](auto tag) {
      k.vertical_pair[static_cast<int>(dtype_of<decltype(tag)>())] = &vertical_pair<decltype(tag)>;
    });
    k.vertical_stream = &vertical<float, float, true>;
    k.horizontal_stream = &horizontal<float, float, true>;
    k.copy_rows_4 = &copy_rows_4;
    k.copy_pair_4 = &copy_pair_4<false>;
    k.copy_pair_4_stream = &copy_pair_4<true>;
    k.flush_streams = &flush_streams;
    return k;
  }();
  return &kernels;
}

#else
// This target's kernels are in the other copy of the file.
const SimdKernels* kernel_set();
#endif
}  // namespace upsample::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE && !UPSAMPLE_SIMD_AVX_COPY
namespace upsample::cpu {

HWY_EXPORT(kernel_set);

const SimdKernels& simd_kernels() { return *HWY_DYNAMIC_DISPATCH(kernel_set)(); }

}  // namespace upsample::cpu
#endif  // HWY_ONCE
