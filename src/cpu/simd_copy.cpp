// Vectorised element moves for unit-tap tables (nearest and nearest-exact forward): each block of
// Lanes outputs of a row picks its elements out of 1 to 4 vectors loaded at the block's window
// base (PassTable windows), with permutes only - no arithmetic, so every bit pattern (NaN
// payloads, signalling NaNs, signed zeros) is copied exactly. 4-byte elements (float32) move in
// float vectors as raw bits; blocks whose window is wider use a scalar gather.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd_copy.cpp"
#include <algorithm>
#include <cstring>

#include "cpu/kernels.hpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace upsample::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;

void copy_rows_4(const PassArgs<float>& a, const void* src_v, void* dst_v, int64_t begin,
                 int64_t end, void* /* scratch */) {
  const DF d;
  const hn::RebindToSigned<DF> di;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const PassShape& s = a.shape;
  const PassTable<float>& p = *a.table;
  const float* src = static_cast<const float*>(src_v);  // raw 4-byte patterns
  float* dst = static_cast<float*>(dst_v);
  const int64_t* index = p.table.index.data();
  const bool windows = p.window_lanes == lanes;
  const auto low_bits = hn::Set(di, static_cast<int32_t>(lanes - 1));
  for (int64_t o = begin; o < end; ++o) {
    const float* x = src + o * s.src_len;
    float* out = dst + o * s.rows;
    for (int64_t r = 0; r < s.rows; r += lanes) {
      const int kind = windows ? p.window_kind[r / lanes] : 0;
      const int64_t n = std::min(lanes, s.rows - r);
      if (kind == 0) {
        for (int64_t j = r; j < r + n; ++j) std::memcpy(out + j, x + index[j], sizeof(float));
        continue;
      }
      const float* window = x + p.window_base[r / lanes];
      const auto rel = hn::LoadU(di, p.window_rel.data() + r);
      const auto lane = hn::IndicesFromVec(d, hn::And(rel, low_bits));
      auto picked = hn::TableLookupLanes(hn::LoadU(d, window), lane);
      if (kind > 1) {
        const auto which = hn::AndNot(low_bits, rel);  // (rel / lanes) * lanes
        for (int q = 1; q < kind; ++q) {
          const auto here = hn::Eq(which, hn::Set(di, static_cast<int32_t>(q * lanes)));
          const auto v = hn::TableLookupLanes(hn::LoadU(d, window + q * lanes), lane);
          picked = hn::IfThenElse(hn::RebindMask(d, here), v, picked);
        }
      }
      if (n == lanes) {
        hn::StoreU(picked, d, out + r);
      } else {
        hn::BlendedStore(picked, hn::FirstN(d, static_cast<size_t>(n)), d, out + r);
      }
    }
  }
}

PassFn<float> CopyRows4() { return &copy_rows_4; }

}  // namespace upsample::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace upsample::cpu {

HWY_EXPORT(CopyRows4);

PassFn<float> simd_copy_rows_4() { return HWY_DYNAMIC_DISPATCH(CopyRows4)(); }

}  // namespace upsample::cpu
#endif  // HWY_ONCE
