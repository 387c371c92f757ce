// Vectorised float32 pass bodies, written once against a Highway descriptor and compiled for
// every target; hwy picks the best target of this CPU once per process (HWY_DYNAMIC_DISPATCH).
// The arithmetic follows the contract of kernels.hpp (Mul then Add, table order, no FMA), so
// results equal the scalar kernels' bit for bit.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd.cpp"
#include <algorithm>

#include "core/dtype.hpp"
#include "cpu/kernels.hpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace upsample::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Taps along a strided axis: each tap is a contiguous run of `inner` floats.
void VerticalF32(const PassShape& s, const AxisTable<float>& t, const float* src, float* dst,
                 int64_t begin, int64_t end) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  // Items are (o, r) pairs in row-major order; no division per item (it dominated small rows).
  int64_t o = begin / s.rows, r = begin % s.rows;
  for (int64_t item = begin; item < end; ++item, ++r) {
    if (r == s.rows) {
      r = 0;
      ++o;
    }
    const float* plane = src + o * s.src_len * s.inner;
    float* out = dst + item * s.inner;
    const int64_t e0 = t.offsets[r], e1 = t.offsets[r + 1];
    if (e0 == e1) {
      for (int64_t i = 0; i < s.inner; ++i) out[i] = 0.0f;
      continue;
    }
    const float* x0 = plane + t.index[e0] * s.inner;
    const float w0 = t.weight[e0];
    int64_t i = 0;
    for (; i + lanes <= s.inner; i += lanes) {
      auto acc = hn::Mul(hn::Set(d, w0), hn::LoadU(d, x0 + i));
      for (int64_t e = e0 + 1; e < e1; ++e) {
        const float* x = plane + t.index[e] * s.inner;
        acc = hn::Add(acc, hn::Mul(hn::Set(d, t.weight[e]), hn::LoadU(d, x + i)));
      }
      hn::StoreU(acc, d, out + i);
    }
    for (; i < s.inner; ++i) {
      float acc = w0 * x0[i];
      for (int64_t e = e0 + 1; e < e1; ++e) {
        acc = acc + t.weight[e] * plane[t.index[e] * s.inner + i];
      }
      out[i] = acc;
    }
  }
}

// Taps along the unit-stride axis: lanes are consecutive outputs of one row. Per block, the
// taps are either picked from 1 or 2 vectors loaded at the block's window base (permutes), or
// gathered through the tap-major padded table. The last block is computed whole (padding lanes
// use weight 0 on a valid element) and stored under a mask.
template <class D, class DI, class V>
HWY_INLINE V Accumulate(D d, DI di, const PassTable<float>& p, int64_t r, V acc, V tap, int64_t k) {
  const auto w = hn::LoadU(d, p.padded_weight.data() + k * p.padded_rows + r);
  if (k == 0) {
    const auto first = hn::Mul(w, tap);
    if (p.uniform) return first;
    const auto count = hn::LoadU(di, p.padded_count.data() + r);
    return hn::IfThenElseZero(hn::RebindMask(d, hn::Gt(count, hn::Zero(di))), first);
  }
  const auto sum = hn::Add(acc, hn::Mul(w, tap));
  if (p.uniform) return sum;
  const auto count = hn::LoadU(di, p.padded_count.data() + r);
  const auto live = hn::Gt(count, hn::Set(di, static_cast<int32_t>(k)));
  return hn::IfThenElse(hn::RebindMask(d, live), sum, acc);
}

void HorizontalF32(const PassShape& s, const PassTable<float>& p, const float* src, float* dst,
                   int64_t begin, int64_t end) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const bool windows = p.window_lanes == lanes;
  const int64_t stride = p.padded_rows;
  for (int64_t o = begin; o < end; ++o) {
    const float* x = src + o * s.src_len;
    float* out = dst + o * s.rows;
    for (int64_t r = 0; r < s.rows; r += lanes) {
      const int kind = windows ? p.window_kind[r / lanes] : 0;
      auto acc = hn::Zero(d);
      if (kind > 0) {
        // Window of `kind` vectors: lane = rel % lanes picks within a vector, rel / lanes picks
        // the vector (lanes is a power of two).
        const float* window = x + p.window_base[r / lanes];
        const auto v0 = hn::LoadU(d, window);
        const auto v1 = kind > 1 ? hn::LoadU(d, window + lanes) : v0;
        const auto v2 = kind > 2 ? hn::LoadU(d, window + 2 * lanes) : v0;
        const auto v3 = kind > 3 ? hn::LoadU(d, window + 3 * lanes) : v0;
        const auto low_bits = hn::Set(di, static_cast<int32_t>(lanes - 1));
        for (int64_t k = 0; k < p.padded_taps; ++k) {
          const auto rel = hn::LoadU(di, p.window_rel.data() + k * stride + r);
          const auto lane = hn::IndicesFromVec(d, hn::And(rel, low_bits));
          auto tap = hn::TableLookupLanes(v0, lane);
          if (kind > 1) {
            const auto which = hn::AndNot(low_bits, rel);  // (rel / lanes) * lanes
            auto pick = [&](auto v, int q) {
              const auto here = hn::Eq(which, hn::Set(di, static_cast<int32_t>(q * lanes)));
              tap = hn::IfThenElse(hn::RebindMask(d, here), hn::TableLookupLanes(v, lane), tap);
            };
            pick(v1, 1);
            if (kind > 2) pick(v2, 2);
            if (kind > 3) pick(v3, 3);
          }
          acc = Accumulate(d, di, p, r, acc, tap, k);
        }
      } else {
        // Wide windows (many taps, strong downsampling): hardware gathers are slow on several
        // CPUs (AMD Zen), while independent scalar rows overlap well out of order. Same
        // arithmetic as the vector paths, so the choice never changes a bit.
        for (int64_t j = r; j < std::min(r + lanes, s.rows); ++j) {
          out[j] = horizontal_output(p.table, j, x, p.consecutive_taps);
        }
        continue;
      }
      if (r + lanes <= s.rows) {
        hn::StoreU(acc, d, out + r);
      } else {
        hn::BlendedStore(acc, hn::FirstN(d, static_cast<size_t>(s.rows - r)), d, out + r);
      }
    }
  }
}

// float16 / bfloat16 <-> float32, rounding to nearest even. bfloat16 uses integer arithmetic
// (Highway 1.0's DemoteTo truncates); float16 uses the x86 F16C instructions (round to nearest
// even in hardware) and the scalar conversions elsewhere, whose NaN handling matches F16C's.
void ToF32(DType from, const void* src, float* dst, int64_t n) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<uint16_t, decltype(df)> du16;
  const hn::Rebind<uint32_t, decltype(df)> du32;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  const auto* in = static_cast<const uint16_t*>(src);
  int64_t i = 0;
  if (from == DType::kBFloat16) {
    for (; i + lanes <= n; i += lanes) {
      const auto wide = hn::PromoteTo(du32, hn::LoadU(du16, in + i));
      hn::StoreU(hn::BitCast(df, hn::ShiftLeft<16>(wide)), df, dst + i);
    }
    for (; i < n; ++i) dst[i] = bf16_to_float(in[i]);
    return;
  }
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)
  const hn::Rebind<hwy::float16_t, decltype(df)> df16;
  const auto* in16 = reinterpret_cast<const hwy::float16_t*>(in);
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(hn::PromoteTo(df, hn::LoadU(df16, in16 + i)), df, dst + i);
#endif
  for (; i < n; ++i) dst[i] = half_to_float(in[i]);
}

void FromF32(DType to, const float* src, void* dst, int64_t n) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<uint16_t, decltype(df)> du16;
  const hn::Rebind<uint32_t, decltype(df)> du32;
  const hn::Rebind<int32_t, decltype(df)> di32;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  auto* out = static_cast<uint16_t*>(dst);
  int64_t i = 0;
  if (to == DType::kBFloat16) {
    for (; i + lanes <= n; i += lanes) {
      const auto u = hn::BitCast(du32, hn::LoadU(df, src + i));
      const auto lsb = hn::And(hn::ShiftRight<16>(u), hn::Set(du32, 1u));
      const auto rounded = hn::ShiftRight<16>(hn::Add(u, hn::Add(hn::Set(du32, 0x7fffu), lsb)));
      const auto quiet = hn::Or(hn::ShiftRight<16>(u), hn::Set(du32, 0x40u));
      const auto magnitude = hn::BitCast(di32, hn::And(u, hn::Set(du32, 0x7fffffffu)));
      const auto is_nan = hn::Gt(magnitude, hn::Set(di32, 0x7f800000));
      const auto bits = hn::IfThenElse(hn::RebindMask(du32, is_nan), quiet, rounded);
      hn::StoreU(hn::DemoteTo(du16, hn::BitCast(di32, bits)), du16, out + i);
    }
    for (; i < n; ++i) out[i] = float_to_bf16(src[i]);
    return;
  }
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)
  const hn::Rebind<hwy::float16_t, decltype(df)> df16;
  auto* out16 = reinterpret_cast<hwy::float16_t*>(out);
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(hn::DemoteTo(df16, hn::LoadU(df, src + i)), df16, out16 + i);
#endif
  for (; i < n; ++i) out[i] = float_to_half(src[i]);
}

int64_t LanesF32() { return static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>())); }

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace upsample::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace upsample::cpu {

HWY_EXPORT(VerticalF32);
HWY_EXPORT(HorizontalF32);
HWY_EXPORT(TargetName);
HWY_EXPORT(LanesF32);
HWY_EXPORT(ToF32);
HWY_EXPORT(FromF32);

void vertical_f32(const PassShape& shape, const AxisTable<float>& table, const float* src,
                  float* dst, int64_t begin, int64_t end) {
  HWY_DYNAMIC_DISPATCH(VerticalF32)(shape, table, src, dst, begin, end);
}

void horizontal_f32(const PassShape& shape, const PassTable<float>& table, const float* src,
                    float* dst, int64_t begin, int64_t end) {
  HWY_DYNAMIC_DISPATCH(HorizontalF32)(shape, table, src, dst, begin, end);
}

const char* simd_target_name() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

int64_t simd_lanes_f32() { return HWY_DYNAMIC_DISPATCH(LanesF32)(); }

void run_convert(DType from, const void* src, DType to, void* dst, int64_t begin, int64_t end) {
  if (to == DType::kFloat32) {
    HWY_DYNAMIC_DISPATCH(ToF32)
    (from, static_cast<const uint16_t*>(src) + begin, static_cast<float*>(dst) + begin,
     end - begin);
  } else {
    HWY_DYNAMIC_DISPATCH(FromF32)
    (to, static_cast<const float*>(src) + begin, static_cast<uint16_t*>(dst) + begin, end - begin);
  }
}

}  // namespace upsample::cpu
#endif  // HWY_ONCE
