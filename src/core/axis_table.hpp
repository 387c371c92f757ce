// AxisTable: the per-axis weight table every mode reduces to, and its transpose.
//
// Row r of a forward table lists the taps (source index, weight) that produce output r; row s of
// the transposed table lists the outputs (index, weight) that input s contributed to, so the
// backward pass is a gather too: deterministic, no atomics, no zero-initialisation pass.
// The table is CSR: rows of different lengths (antialias, transposed rows) cost no padding.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "upsample/resample.hpp"

namespace upsample {

struct AxisSpec {
  Mode mode = Mode::kLinear;
  bool antialias = false;
  bool align_corners = false;
  int64_t in_len = 1;
  int64_t out_len = 1;
  double scale = 0.0;  // user scale (out/in); <= 0: not given
  // The table will be transposed for a backward pass. Only bicubic cares: PyTorch 1.13 rounds
  // its coordinate differently in forward and backward (Note [cubic source index]).
  bool for_backward = false;
};

template <typename W>
struct AxisTable {
  int64_t rows = 0;              // out_len for a forward table, in_len for a transposed one
  int64_t src_len = 0;           // length of the axis the taps index into
  std::vector<int64_t> offsets;  // rows + 1 entries; row r is [offsets[r], offsets[r + 1])
  std::vector<int64_t> index;    // source index of each tap, nondecreasing within a row
  std::vector<W> weight;
  // Every row r is exactly one tap (r, 1): the pass is a copy and is skipped.
  bool identity = false;
  // Every row is one tap of weight 1: the pass moves values without arithmetic (nearest).
  bool unit_taps = false;

  int64_t taps(int64_t row) const { return offsets[row + 1] - offsets[row]; }
  int64_t max_taps() const;
  bool uniform_taps() const;  // every row has max_taps() taps
};

// Builds the forward table of one axis. W is the precision the weights are computed and
// stored in: float for float32/float16/bfloat16/uint8 data, double for float64 data.
template <typename W>
AxisTable<W> build_axis_table(const AxisSpec& spec);

template <typename W>
AxisTable<W> transpose(const AxisTable<W>& table);

// The same resampling seen over a row of `group`-element groups flattened into one axis (a
// channels-last row of C channels): row r * group + c has the taps (index * group + c, weight) of
// row r. Same taps, same order, same weights: a pass with it computes the same bits, but as one
// long unit-stride row that vector kernels handle well.
template <typename W>
AxisTable<W> interleave(const AxisTable<W>& table, int64_t group);

// Empty when the table is well formed: offsets monotone, indices in bounds and nondecreasing
// within each row, flags consistent with the data. Otherwise a description of the first defect.
template <typename W>
std::string check_invariants(const AxisTable<W>& table);

}  // namespace upsample
