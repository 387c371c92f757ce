#include "png_filters.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace upsample::cli {
namespace {

// Paeth's predictor of a byte from the bytes on its left (a), above (b) and above-left (c).
inline int paeth_predictor(int a, int b, int c) {
  const int pa = std::abs(b - c), pb = std::abs(a - c), pc = std::abs(a + b - 2 * c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

// The sum of the bytes as signed distances from zero (0..128 each).
uint64_t distance(const uint8_t* v, size_t n) {
  uint64_t sum = 0;
  for (size_t i = 0; i < n; ++i) sum += std::min<uint8_t>(v[i], static_cast<uint8_t>(-v[i]));
  return sum;
}

// Each filter over a whole row, in loops that the compiler vectorises (every byte depends only
// on the unfiltered rows). The first bpp bytes have no left neighbour (zero).
void filter_sub(const uint8_t* cur, size_t n, size_t bpp, uint8_t* out) {
  std::memcpy(out, cur, bpp);
  for (size_t i = bpp; i < n; ++i) out[i] = static_cast<uint8_t>(cur[i] - cur[i - bpp]);
}

void filter_up(const uint8_t* cur, const uint8_t* prev, size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(cur[i] - prev[i]);
}

void filter_average(const uint8_t* cur, const uint8_t* prev, size_t n, size_t bpp, uint8_t* out) {
  for (size_t i = 0; i < bpp; ++i) out[i] = static_cast<uint8_t>(cur[i] - (prev[i] >> 1));
  for (size_t i = bpp; i < n; ++i) {
    out[i] = static_cast<uint8_t>(cur[i] - ((cur[i - bpp] + prev[i]) >> 1));
  }
}

void filter_paeth(const uint8_t* cur, const uint8_t* prev, size_t n, size_t bpp, uint8_t* out) {
  for (size_t i = 0; i < bpp; ++i) out[i] = static_cast<uint8_t>(cur[i] - prev[i]);
  for (size_t i = bpp; i < n; ++i) {
    out[i] = static_cast<uint8_t>(cur[i] - paeth_predictor(cur[i - bpp], prev[i], prev[i - bpp]));
  }
}

// Undoing them: each byte depends on the unfiltered byte on its left, so the loops that read it
// are sequential; kBpp as a constant lets the compiler keep the bpp chains in registers.
template <size_t kBpp>
void unfilter_left(uint8_t type, const uint8_t* f, const uint8_t* prev, size_t n, uint8_t* out) {
  switch (type) {
    case kPngFilterSub:
      std::memcpy(out, f, kBpp);
      for (size_t i = kBpp; i < n; ++i) out[i] = static_cast<uint8_t>(f[i] + out[i - kBpp]);
      return;
    case kPngFilterAverage:
      for (size_t i = 0; i < kBpp; ++i) out[i] = static_cast<uint8_t>(f[i] + (prev[i] >> 1));
      for (size_t i = kBpp; i < n; ++i) {
        out[i] = static_cast<uint8_t>(f[i] + ((out[i - kBpp] + prev[i]) >> 1));
      }
      return;
    default:  // paeth
      for (size_t i = 0; i < kBpp; ++i) out[i] = static_cast<uint8_t>(f[i] + prev[i]);
      for (size_t i = kBpp; i < n; ++i) {
        out[i] =
            static_cast<uint8_t>(f[i] + paeth_predictor(out[i - kBpp], prev[i], prev[i - kBpp]));
      }
      return;
  }
}

}  // namespace

void filter_row(PngFilterChoice choice, const uint8_t* cur, const uint8_t* prev, size_t n,
                size_t bpp, uint8_t* scratch, uint8_t* out) {
  static constexpr uint8_t kAllFive[] = {kPngFilterSub, kPngFilterUp, kPngFilterAverage,
                                         kPngFilterPaeth};
  static constexpr uint8_t kPillow[] = {kPngFilterUp, kPngFilterSub, kPngFilterPaeth};
  const uint8_t* order = choice == PngFilterChoice::kAllFive ? kAllFive : kPillow;
  const size_t count = choice == PngFilterChoice::kAllFive ? 4 : 3;
  const uint8_t* best = cur;  // none
  uint8_t best_type = kPngFilterNone;
  uint64_t best_sum = distance(cur, n);
  for (size_t k = 0; k < count && best_sum > 0; ++k) {
    uint8_t* candidate = scratch + k * n;
    switch (order[k]) {
      case kPngFilterSub:
        filter_sub(cur, n, bpp, candidate);
        break;
      case kPngFilterUp:
        filter_up(cur, prev, n, candidate);
        break;
      case kPngFilterAverage:
        filter_average(cur, prev, n, bpp, candidate);
        break;
      default:
        filter_paeth(cur, prev, n, bpp, candidate);
        break;
    }
    if (const uint64_t sum = distance(candidate, n); sum < best_sum) {
      best = candidate;
      best_type = order[k];
      best_sum = sum;
    }
  }
  out[0] = best_type;
  std::memcpy(out + 1, best, n);
}

bool unfilter_row(uint8_t type, const uint8_t* filtered, const uint8_t* prev, size_t n, size_t bpp,
                  uint8_t* out) {
  switch (type) {
    case kPngFilterNone:
      std::memcpy(out, filtered, n);
      return true;
    case kPngFilterUp:
      for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(filtered[i] + prev[i]);
      return true;
    case kPngFilterSub:
    case kPngFilterAverage:
    case kPngFilterPaeth:
      break;
    default:
      return false;
  }
  switch (bpp) {
    case 1:
      unfilter_left<1>(type, filtered, prev, n, out);
      break;
    case 2:
      unfilter_left<2>(type, filtered, prev, n, out);
      break;
    case 3:
      unfilter_left<3>(type, filtered, prev, n, out);
      break;
    case 4:
      unfilter_left<4>(type, filtered, prev, n, out);
      break;
    case 6:
      unfilter_left<6>(type, filtered, prev, n, out);
      break;
    default:
      unfilter_left<8>(type, filtered, prev, n, out);
      break;
  }
  return true;
}

}  // namespace upsample::cli
