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

#include "core/axis_weights.hpp"
#include "core/checked.hpp"

namespace upsample {

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

// Materialises every row of an axis' forward table (AxisWeights::row, in order).
template <typename W>
AxisTable<W> build_axis_table(const AxisWeights<W>& weights);
template <typename W>
AxisTable<W> build_axis_table(const AxisSpec& spec) {
  return build_axis_table(AxisWeights<W>(spec));
}

// Bytes a materialised table of `taps` taps over `rows` rows occupies (its three arrays);
// saturated at INT64_MAX (above every memory limit) for absurd counts.
template <typename W>
constexpr int64_t table_bytes(int64_t rows, int64_t taps) {
  return saturating_add(
      saturating_mul(saturating_add(rows, 1), static_cast<int64_t>(sizeof(int64_t))),
      saturating_mul(taps, static_cast<int64_t>(sizeof(int64_t) + sizeof(W))));
}

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
