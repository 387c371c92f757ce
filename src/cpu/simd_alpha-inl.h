// Premultiplied alpha in the vertical kernel, for pixels of C = 2 (grey + alpha) or C = 4
// (RGBA) channels: a vector at a multiple of Lanes in a run of pixels holds whole pixels, so a
// pixel's alpha is broadcast to its lanes within the vector (DupOdd for C = 2, Broadcast<3> of
// each 128-bit block for C = 4). The arithmetic is the scalar kernel's (kernels.hpp:
// load_premultiplied, unpremultiplied): colour times alpha at each load, colour divided by the
// resampled alpha (0 where it is not positive) at the store.
//
// Included by simd.cpp inside its per-target namespace, after the load/store helpers.
// (No include guard: Highway compiles this once per target.)

template <size_t C>
HWY_INLINE VF pixel_alpha(VF v) {
  static_assert(C == 2 || C == 4, "grey + alpha or RGBA");
  if constexpr (C == 2) {
    return hn::DupOdd(v);
  } else {
    return hn::Broadcast<3>(v);
  }
}

// The lanes that hold alpha.
template <size_t C>
HWY_INLINE hn::Mask<DF> alpha_lanes(DF d) {
  const hn::RebindToSigned<DF> di;
  const auto last = hn::Set(di, static_cast<int32_t>(C - 1));
  return hn::RebindMask(d, hn::Eq(hn::And(hn::Iota(di, 0), last), last));
}

template <typename Tin, typename Tout, size_t C>
void vertical_alpha(const PassArgs<float>& a, const void* src_v, void* dst_v, int64_t begin,
                    int64_t end, void* /* scratch */) {
  const DF d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const PassShape& s = a.shape;
  const AxisTable<float>& t = a.table->table;
  const Tin* src = static_cast<const Tin*>(src_v);
  Tout* dst = static_cast<Tout*>(dst_v);
  const auto is_alpha = alpha_lanes<C>(d);
  auto load_run = [&](const Tin* run, int64_t i) {
    const VF v = load(d, run + i);
    return a.premultiply ? hn::IfThenElse(is_alpha, v, hn::Mul(v, pixel_alpha<C>(v))) : v;
  };
  int64_t o = begin / s.rows, r = begin % s.rows;
  for (int64_t item = begin; item < end; ++item, ++r) {
    if (r == s.rows) {
      r = 0;
      ++o;
    }
    const Tin* plane = src + o * s.src_len * s.inner;
    Tout* out = dst + item * s.inner;
    const int64_t e0 = t.offsets[r], e1 = t.offsets[r + 1];
    auto run_of = [&](int64_t e) { return plane + (t.index[e] - a.index_bias) * s.inner; };
    int64_t i = 0;
    for (; i + lanes <= s.inner; i += lanes) {
      VF acc = hn::Zero(d);
      if (e0 < e1) {
        acc = hn::Mul(hn::Set(d, t.weight[e0]), load_run(run_of(e0), i));
        for (int64_t e = e0 + 1; e < e1; ++e) {
          acc = hn::Add(acc, hn::Mul(hn::Set(d, t.weight[e]), load_run(run_of(e), i)));
        }
      }
      if (a.unpremultiply) {
        const VF alpha = pixel_alpha<C>(acc);
        const auto positive = hn::Gt(alpha, hn::Zero(d));
        // Not positive: divided by 1 and discarded (no division by zero on scalar targets).
        const VF divisor = hn::IfThenElse(positive, alpha, hn::Set(d, 1.0f));
        const VF colour = hn::IfThenElseZero(positive, hn::Div(acc, divisor));
        acc = hn::IfThenElse(is_alpha, acc, colour);
      }
      store(acc, d, out + i);
    }
    // The tail (fewer than Lanes elements, whole pixels): the scalar kernel's arithmetic.
    float tail[hn::MaxLanes(DF())];
    const int64_t n = s.inner - i;
    for (int64_t k = 0; k < n; ++k) {
      float acc = 0.0f;
      for (int64_t e = e0; e < e1; ++e) {
        const float v = a.premultiply ? load_premultiplied<float>(run_of(e), i + k, C)
                                      : load_as<float>(run_of(e) + i + k);
        acc = e == e0 ? t.weight[e] * v : acc + t.weight[e] * v;
      }
      tail[k] = acc;
    }
    for (int64_t k = 0; k < n; ++k) {
      const int64_t c = (i + k) % static_cast<int64_t>(C);
      float v = tail[k];
      if (a.unpremultiply && c != static_cast<int64_t>(C) - 1) {
        v = unpremultiplied(v, tail[k - c + static_cast<int64_t>(C) - 1]);
      }
      store_result(out + i + k, v);
    }
  }
}
