// An independent float64 reference for every resampling mode, forward and backward.
//
// It evaluates PyTorch's formulas directly, per output element (forward) and by scattering
// (backward), and shares no code with the engine's weight tables, so that comparing the two
// tests the tables, their transposition and the kernels at once.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace upsample::reference {

enum class Mode { kNearest, kNearestExact, kLinear, kCubic, kArea };

struct Problem {
  // The tensors: [n, c, in_sizes...] resampled to [n, c, out_sizes...].
  int64_t n = 1;
  int64_t c = 1;
  int spatial_rank = 2;                      // 1, 2 or 3
  std::array<int64_t, 3> in_sizes{1, 1, 1};  // first spatial_rank entries used (D,H,W order)
  std::array<int64_t, 3> out_sizes{1, 1, 1};
  // How: the mode and its options, and the user scale per axis (an out/in multiplier; <= 0:
  // not given).
  Mode mode = Mode::kLinear;
  bool antialias = false;
  bool align_corners = false;
  std::array<double, 3> scales{0, 0, 0};
};

int64_t input_numel(const Problem& p);
int64_t output_numel(const Problem& p);

// x: contiguous [n, c, in_sizes...]; returns contiguous [n, c, out_sizes...].
std::vector<double> forward(const Problem& p, const std::vector<double>& x);
// grad_out: contiguous [n, c, out_sizes...]; returns contiguous [n, c, in_sizes...].
std::vector<double> backward(const Problem& p, const std::vector<double>& grad_out);

}  // namespace upsample::reference
