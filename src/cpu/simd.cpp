// Vectorised float32 pass bodies, written once against a Highway descriptor and compiled for
// every target; hwy picks the best target of this CPU once per process (HWY_DYNAMIC_DISPATCH).
// The arithmetic follows the contract of kernels.hpp (Mul then Add, table order, no FMA), so
// results equal the scalar kernels' bit for bit.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "cpu/kernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace upsample::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Taps along a strided axis: each tap is a contiguous run of `inner` floats.
void VerticalF32(const PassShape& s, const AxisTable<float>& t, const float* src, float* dst,
                 int64_t begin, int64_t end) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t item = begin; item < end; ++item) {
    const int64_t o = item / s.rows;
    const int64_t r = item % s.rows;
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

// Taps along the unit-stride axis: lanes are consecutive outputs of one row, taps are gathered
// through the tap-major padded table. The last block is computed whole (padding lanes read
// element 0 with weight 0) and stored under a mask.
void HorizontalF32(const PassShape& s, const PassTable<float>& p, const float* src, float* dst,
                   int64_t begin, int64_t end) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t stride = p.padded_rows;
  for (int64_t o = begin; o < end; ++o) {
    const float* x = src + o * s.src_len;
    float* out = dst + o * s.rows;
    for (int64_t r = 0; r < s.rows; r += lanes) {
      const int32_t* idx = p.padded_index.data() + r;
      const float* w = p.padded_weight.data() + r;
      hn::Vec<decltype(d)> acc;
      if (p.uniform) {
        acc = hn::Mul(hn::LoadU(d, w), hn::GatherIndex(d, x, hn::LoadU(di, idx)));
        for (int64_t k = 1; k < p.padded_taps; ++k) {
          const auto v = hn::GatherIndex(d, x, hn::LoadU(di, idx + k * stride));
          acc = hn::Add(acc, hn::Mul(hn::LoadU(d, w + k * stride), v));
        }
      } else {
        const auto count = hn::LoadU(di, p.padded_count.data() + r);
        const auto first = hn::Mul(hn::LoadU(d, w), hn::GatherIndex(d, x, hn::LoadU(di, idx)));
        acc = hn::IfThenElseZero(hn::RebindMask(d, hn::Gt(count, hn::Zero(di))), first);
        for (int64_t k = 1; k < p.padded_taps; ++k) {
          const auto v = hn::GatherIndex(d, x, hn::LoadU(di, idx + k * stride));
          const auto sum = hn::Add(acc, hn::Mul(hn::LoadU(d, w + k * stride), v));
          const auto live = hn::Gt(count, hn::Set(di, static_cast<int32_t>(k)));
          acc = hn::IfThenElse(hn::RebindMask(d, live), sum, acc);
        }
      }
      if (r + lanes <= s.rows) {
        hn::StoreU(acc, d, out + r);
      } else {
        hn::BlendedStore(acc, hn::FirstN(d, static_cast<size_t>(s.rows - r)), d, out + r);
      }
    }
  }
}

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace upsample::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace upsample::cpu {

HWY_EXPORT(VerticalF32);
HWY_EXPORT(HorizontalF32);
HWY_EXPORT(TargetName);

void vertical_f32(const PassShape& shape, const AxisTable<float>& table, const float* src,
                  float* dst, int64_t begin, int64_t end) {
  HWY_DYNAMIC_DISPATCH(VerticalF32)(shape, table, src, dst, begin, end);
}

void horizontal_f32(const PassShape& shape, const PassTable<float>& table, const float* src,
                    float* dst, int64_t begin, int64_t end) {
  HWY_DYNAMIC_DISPATCH(HorizontalF32)(shape, table, src, dst, begin, end);
}

const char* simd_target_name() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

}  // namespace upsample::cpu
#endif  // HWY_ONCE
