#include "core/geometry.hpp"

#include <algorithm>
#include <cmath>

#include "core/checked.hpp"

namespace upsample::geometry {

int64_t nearest_index(int64_t dst, int64_t in_len, int64_t out_len, double scale) {
  const float r = ratio<float>(in_len, out_len, /*align_corners=*/false, scale);
  const float x = static_cast<float>(dst) * r;
  return std::min(saturating_floor(x), in_len - 1);
}

int64_t nearest_exact_index(int64_t dst, int64_t in_len, int64_t out_len, double scale) {
  const float r = ratio<float>(in_len, out_len, /*align_corners=*/false, scale);
  const float x = static_cast<float>((static_cast<double>(dst) + 0.5) * static_cast<double>(r));
  return std::min(saturating_floor(x), in_len - 1);
}

double linear_source_index(double ratio, int64_t dst, bool align_corners) {
  if (align_corners) return ratio * static_cast<double>(dst);
  const double x = ratio * (static_cast<double>(dst) + 0.5) - 0.5;
  return x < 0.0 ? 0.0 : x;
}

double cubic_source_index(double ratio, int64_t dst, bool align_corners) {
  if (align_corners) return ratio * static_cast<double>(dst);
  return ratio * (static_cast<double>(dst) + 0.5) - 0.5;
}

// The integer products are formed in 128 bits (they may exceed int64 for axes of billions of
// elements, where PyTorch's int64 product would overflow) and rounded once to float.
int64_t area_start(int64_t dst, int64_t in_len, int64_t out_len) {
  const float q =
      static_cast<float>(static_cast<__int128>(dst) * in_len) / static_cast<float>(out_len);
  return std::clamp<int64_t>(saturating_floor(q), 0, in_len - 1);
}

int64_t area_end(int64_t dst, int64_t in_len, int64_t out_len) {
  const float q =
      static_cast<float>(static_cast<__int128>(dst + 1) * in_len) / static_cast<float>(out_len);
  return std::clamp<int64_t>(saturating_trunc(std::ceil(q)), 1, in_len);
}

int64_t cubic_tap(double x) { return saturating_floor(static_cast<float>(x)); }

}  // namespace upsample::geometry
