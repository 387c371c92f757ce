// The floor kernel of bench/floor.hpp, written once against a Highway descriptor and compiled for
// every target; Highway picks the best target of this CPU at the first call
// (HWY_DYNAMIC_DISPATCH).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "bench/floor.cpp"
#include "floor.hpp"

#include <algorithm>
#include <cstdint>

#include "hwy/cache_control.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "workloads.hpp"

HWY_BEFORE_NAMESPACE();
namespace upsample::bench::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <bool kStreaming, class D, class V>
HWY_INLINE void put(D d, V v, uint8_t* HWY_RESTRICT p) {
  if constexpr (kStreaming) {
    hn::Stream(v, d, p);
  } else {
    hn::Store(v, d, p);
  }
}

// One thread's walk over `ni` input vectors and `no` output vectors (see floor.hpp).
template <bool kStreaming>
void walk(const uint8_t* HWY_RESTRICT in, size_t ni, uint8_t* HWY_RESTRICT out, size_t no) {
  const hn::ScalableTag<uint8_t> d;
  const size_t lanes = hn::Lanes(d);
  if (ni == 0) {
    const auto zero = hn::Zero(d);
    for (size_t k = 0; k < no; ++k) put<kStreaming>(d, zero, out + k * lanes);
    return;
  }
  if (no >= ni) {
    const size_t q = no / ni, r = no % ni;
    size_t err = 0;
    uint8_t* o = out;
    for (size_t j = 0; j < ni; ++j) {
      const auto v = hn::Load(d, in + j * lanes);
      size_t n = q;
      err += r;
      if (err >= ni) {
        err -= ni;
        ++n;
      }
      for (size_t m = 0; m < n; ++m, o += lanes) put<kStreaming>(d, v, o);
    }
    return;
  }
  const size_t q = ni / no, r = ni % no;
  size_t err = 0;
  const uint8_t* i = in;
  for (size_t k = 0; k < no; ++k) {
    size_t n = q;
    err += r;
    if (err >= no) {
      err -= no;
      ++n;
    }
    // Two accumulators halve the XOR dependency chain.
    auto a = hn::Load(d, i);
    auto b = hn::Zero(d);
    size_t m = 1;
    for (; m + 1 < n; m += 2) {
      a = hn::Xor(a, hn::Load(d, i + m * lanes));
      b = hn::Xor(b, hn::Load(d, i + (m + 1) * lanes));
    }
    if (m < n) a = hn::Xor(a, hn::Load(d, i + m * lanes));
    i += n * lanes;
    put<kStreaming>(d, hn::Xor(a, b), out + k * lanes);
  }
}

void floor_share_on_target(const uint8_t* in, size_t in_bytes, uint8_t* out, size_t out_bytes,
                           int t, int n, bool streaming) {
  const hn::ScalableTag<uint8_t> d;
  const size_t lanes = hn::Lanes(d);
  const size_t out_vecs = out_bytes / lanes;
  // Without a whole output vector, the whole input is a tail.
  const size_t in_vecs = out_vecs > 0 ? in_bytes / lanes : 0;
  // Every active thread gets at least one vector of each buffer; tiny buffers use fewer threads.
  size_t active = static_cast<size_t>(std::max(n, 1));
  if (in_vecs > 0 && out_vecs > 0) {
    active = std::min({active, in_vecs, out_vecs});
  } else {
    active = 1;
  }
  const size_t tt = static_cast<size_t>(t);
  if (tt >= active) return;
  const size_t i0 = in_vecs * tt / active, i1 = in_vecs * (tt + 1) / active;
  const size_t o0 = out_vecs * tt / active, o1 = out_vecs * (tt + 1) / active;
  if (streaming) {
    walk<true>(in + i0 * lanes, i1 - i0, out + o0 * lanes, o1 - o0);
    hwy::FlushStream();
  } else {
    walk<false>(in + i0 * lanes, i1 - i0, out + o0 * lanes, o1 - o0);
  }
  if (tt + 1 != active) return;
  // The tails (bytes after the last whole vector).
  uint8_t x = 0;
  for (size_t b = in_vecs * lanes; b < in_bytes; ++b) x ^= in[b];
  const size_t out_tail = out_vecs * lanes;
  if (out_tail < out_bytes) {
    for (size_t b = out_tail; b < out_bytes; ++b) {
      out[b] = static_cast<uint8_t>(x ^ static_cast<uint8_t>(b - out_tail));
    }
  } else if (out_bytes > 0) {
    out[out_bytes - 1] ^= x;
  }
}

size_t vector_bytes() { return hn::Lanes(hn::ScalableTag<uint8_t>()); }
const char* target_name() { return hwy::TargetName(HWY_TARGET); }

}  // namespace upsample::bench::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace upsample::bench {

HWY_EXPORT(floor_share_on_target);
HWY_EXPORT(vector_bytes);
HWY_EXPORT(target_name);

size_t floor_vector_bytes() { return HWY_DYNAMIC_DISPATCH(vector_bytes)(); }
const char* floor_target() { return HWY_DYNAMIC_DISPATCH(target_name)(); }

void floor_share(const void* in, size_t in_bytes, void* out, size_t out_bytes, int t, int n,
                 FloorStores stores) {
  HWY_DYNAMIC_DISPATCH(floor_share_on_target)
  (static_cast<const uint8_t*>(in), in_bytes, static_cast<uint8_t*>(out), out_bytes, t, n,
   stores == FloorStores::kStreaming);
}

void run_floor(const void* in, size_t in_bytes, void* out, size_t out_bytes, Pool& pool,
               FloorStores stores) {
  const std::function<void(int)> task = [&](int t) {
    floor_share(in, in_bytes, out, out_bytes, t, pool.size(), stores);
  };
  pool.run(task);
}

}  // namespace upsample::bench
#endif  // HWY_ONCE
