// Data for the kernel tests that compare SIMD targets with the scalar kernels: random elements of
// any storage type (with some infinities and NaNs for the floating types) and an element
// comparison under which a NaN equals any NaN (which operand's payload an addition keeps is not
// specified), and the loop over SIMD targets.
#pragma once

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/dtype.hpp"
#include "cpu/kernels.hpp"
#include "hwy/targets.h"

namespace upsample::cpu {

// The SIMD targets compiled in that this CPU runs, one at a time (use()); the library's own
// target choice is restored when the object goes, also when an assertion ends the test early.
class ForEachTarget {
 public:
  ~ForEachTarget() { hwy::SetSupportedTargetsForTest(0); }
  std::vector<int64_t> targets() const { return hwy::SupportedAndGeneratedTargets(); }
  const SimdKernels& use(int64_t target) const {
    hwy::SetSupportedTargetsForTest(target);
    return simd_kernels();
  }
};

inline std::vector<unsigned char> random_bytes(DType type, int64_t n, std::mt19937* rng) {
  std::vector<unsigned char> bytes(static_cast<size_t>(n) * dtype_size(type));
  std::normal_distribution<float> normal(0.0f, 100.0f);
  for (int64_t i = 0; i < n; ++i) {
    double v = normal(*rng);
    if (type == DType::kUInt8) v = static_cast<double>((*rng)() % 256);
    if (type == DType::kUInt16) v = static_cast<double>((*rng)() % 65536);
    if ((*rng)() % 97 == 0 && type != DType::kUInt8 && type != DType::kUInt16) {
      v = (*rng)() % 2 ? INFINITY : NAN;
    }
    store_element(type, bytes.data() + i * dtype_size(type), v);
  }
  return bytes;
}

inline bool same_element(DType type, const unsigned char* a, const unsigned char* b) {
  const double x = load_element(type, a), y = load_element(type, b);
  if (std::isnan(x) && std::isnan(y)) return true;
  return std::memcmp(a, b, dtype_size(type)) == 0;
}

}  // namespace upsample::cpu
