// PassTable: a materialised table plus the padded and windowed forms the vector kernels read.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cpu/kernels.hpp"

namespace upsample::cpu {
namespace {

constexpr int64_t kPadLanes = 64;  // >= float32 lanes of any Highway target (SVE: up to 64)

int64_t padded_rows_for(int64_t rows) { return (rows + kPadLanes - 1) / kPadLanes * kPadLanes; }

}  // namespace

template <typename W>
bool PassTable<W>::padding_is_compact(int64_t rows, int64_t max_taps, int64_t total_taps,
                                      int64_t src_len) {
  // The vector kernels index with int32.
  if (src_len > INT32_MAX || max_taps <= 0) return false;
  const int64_t padded = padded_rows_for(rows);
  return padded * max_taps <= 2 * total_taps + 4 * padded;
}

template <typename W>
int64_t PassTable<W>::padded_bytes(int64_t rows, int64_t max_taps, int64_t lanes) {
  const int64_t padded = padded_rows_for(rows);
  const int64_t entries = padded * max_taps;
  int64_t bytes = entries * static_cast<int64_t>(sizeof(int32_t) + sizeof(W)) +
                  padded * static_cast<int64_t>(sizeof(int32_t));
  if (lanes > 1 && padded % lanes == 0) {  // windows
    const int64_t blocks = padded / lanes;
    bytes += blocks * static_cast<int64_t>(3 * sizeof(int32_t) + 4 * sizeof(uint8_t)) +
             entries * static_cast<int64_t>(sizeof(int32_t));
  }
  return bytes;
}

template <typename W>
PassTable<W>::PassTable(AxisTable<W> t, bool padded, int64_t lanes) : table(std::move(t)) {
  max_taps = table.max_taps();
  consecutive_taps = true;
  for (int64_t r = 0; r < table.rows && consecutive_taps; ++r) {
    for (int64_t e = table.offsets[r] + 1; e < table.offsets[r + 1]; ++e) {
      if (table.index[e] != table.index[e - 1] + 1) {
        consecutive_taps = false;
        break;
      }
    }
  }
  if (!padded) return;
  const int64_t taps = max_taps;
  const int64_t rows = padded_rows_for(table.rows);
  padded_rows = rows;
  padded_taps = taps;
  padded_index.assign(static_cast<size_t>(rows * taps), 0);
  padded_weight.assign(static_cast<size_t>(rows * taps), W(0));
  padded_count.assign(static_cast<size_t>(rows), 0);
  for (int64_t r = 0; r < table.rows; ++r) {
    padded_count[r] = static_cast<int32_t>(table.taps(r));
    for (int64_t k = 0; k < table.taps(r); ++k) {
      padded_index[k * rows + r] = static_cast<int32_t>(table.index[table.offsets[r] + k]);
      padded_weight[k * rows + r] = table.weight[table.offsets[r] + k];
    }
  }
  build_windows(lanes);
}

template <typename W>
void PassTable<W>::build_windows(int64_t lanes) {
  if (lanes <= 1 || padded_rows % lanes != 0) return;
  const int64_t blocks = padded_rows / lanes;
  window_lanes = lanes;
  short_rows = table.src_len < lanes;
  window_base.assign(static_cast<size_t>(blocks), 0);
  window_kind.assign(static_cast<size_t>(blocks), 0);
  window_rel.assign(padded_index.size(), 0);
  block_taps.assign(static_cast<size_t>(blocks), 0);
  block_uniform.assign(static_cast<size_t>(blocks), 0);
  for (int64_t b = 0; b < blocks; ++b) {
    int64_t lo = INT64_MAX, hi = -1;
    // Rows past table.rows are padding: their lanes are computed but never stored.
    const int64_t first = b * lanes, last = std::min((b + 1) * lanes, table.rows);
    int32_t fewest = INT32_MAX;
    for (int64_t r = first; r < last; ++r) {
      block_taps[b] = std::max(block_taps[b], padded_count[r]);
      fewest = std::min(fewest, padded_count[r]);
    }
    block_uniform[b] = first >= last || fewest == block_taps[b];
    for (int64_t r = first; r < last; ++r) {
      for (int64_t k = 0; k < padded_count[r]; ++k) {
        lo = std::min<int64_t>(lo, padded_index[k * padded_rows + r]);
        hi = std::max<int64_t>(hi, padded_index[k * padded_rows + r]);
      }
    }
    if (hi < 0) lo = hi = 0;  // a block of empty rows reads element 0 with weight 0
    for (int kind = 1; kind <= 4; ++kind) {
      const int64_t span = kind * lanes;
      if (hi - lo >= span || (table.src_len < span && !short_rows)) continue;
      // The window stays in the row (a short row's is the whole row, read from a padded copy).
      const int64_t base = short_rows ? 0 : std::min(lo, table.src_len - span);
      window_base[b] = static_cast<int32_t>(base);
      window_kind[b] = static_cast<uint8_t>(kind);
      for (int64_t r = b * lanes; r < (b + 1) * lanes; ++r) {
        for (int64_t k = 0; k < padded_taps; ++k) {
          const int64_t rel =
              r < table.rows && k < padded_count[r] ? padded_index[k * padded_rows + r] - base : 0;
          window_rel[k * padded_rows + r] = static_cast<int32_t>(rel);
        }
      }
      break;
    }
  }
  // Each block's phase stride alone (phase_stride) first: a wide block (kind 0) that has one gets
  // the window offsets of its taps from its first tap (window_rel never reaches a permute for
  // it: its kind stays 0), so that it can join a run of blocks like it.
  block_phases.assign(static_cast<size_t>(blocks), 0);
  for (int64_t b = 0; b < blocks; ++b) {
    block_phases[b] = static_cast<uint8_t>(phase_stride(b));
    if (window_kind[b] != 0 || block_phases[b] == 0) continue;
    const int64_t base = padded_index[b * lanes];
    window_base[b] = static_cast<int32_t>(base);
    for (int64_t r = b * lanes; r < (b + 1) * lanes; ++r) {
      for (int64_t k = 0; k < padded_taps; ++k) {
        const int64_t rel = k < padded_count[r] ? padded_index[k * padded_rows + r] - base : 0;
        window_rel[k * padded_rows + r] = static_cast<int32_t>(rel);
      }
    }
  }
  // A run stops at INT32_MAX blocks (the block before it starts a run of its own).
  block_run.assign(static_cast<size_t>(blocks), 1);
  for (int64_t b = blocks - 2; b >= 0; --b) {
    if (block_run[b + 1] < INT32_MAX && same_block(b, b + 1)) block_run[b] = block_run[b + 1] + 1;
  }
  // Then the phases each block keeps: its own stride where every later block of its run has it.
  for (int64_t b = blocks - 1; b >= 0; --b) {
    const int64_t s = block_phases[b];
    block_phases[b] = 0;
    if (s == 0) continue;
    // The rest of the run must be phased the same way, each block s * lanes elements on.
    if (block_run[b] > 1 &&
        (block_phases[b + 1] != s ||
         int64_t{padded_index[(b + 1) * lanes]} - padded_index[b * lanes] != s * lanes)) {
      continue;
    }
    block_phases[b] = static_cast<uint8_t>(s);
  }
  phased_tail.assign(static_cast<size_t>(blocks), 0);
  for (int64_t b = 1; b < blocks; ++b) phased_tail[b] = ends_phased_run(b) ? 1 : 0;
}

template <typename W>
bool PassTable<W>::ends_phased_run(int64_t b) const {
  const int64_t lanes = window_lanes, s = block_phases[b - 1];
  const int64_t first = b * lanes, last = std::min(first + lanes, table.rows);
  if (s == 0 || block_run[b - 1] != 1 || first >= last) return false;
  const int64_t taps = block_taps[b - 1];
  const int64_t start = int64_t{padded_index[first - lanes]} + s * lanes;
  for (int64_t r = first; r < last; ++r) {
    if (padded_count[r] != taps) return false;
    for (int64_t k = 0; k < taps; ++k) {
      const int64_t at = k * padded_rows;
      const int64_t element = std::min(start + s * (r - first) + k, table.src_len - 1);
      if (padded_index[at + r] != element ||
          std::memcmp(&padded_weight[at + r], &padded_weight[at + r - lanes], sizeof(W)) != 0) {
        return false;
      }
    }
  }
  return true;
}

template <typename W>
int64_t PassTable<W>::phase_stride(int64_t b) const {
  const int64_t lanes = window_lanes, first = b * lanes;
  // A wide block (kind 0) is phased when the kernels hold its taps (kMaxPhasedTaps).
  if ((window_kind[b] == 0 && block_taps[b] > kMaxPhasedTaps) || !block_uniform[b] ||
      first + lanes > table.rows || block_taps[b] == 0) {
    return 0;
  }
  const int32_t* index =
      padded_index.data() + first;  // tap k of lane l: index[k * padded_rows + l]
  const int64_t s = int64_t{index[1]} - index[0];
  if (s < 2 || s > 4) return 0;
  for (int64_t k = 0; k < block_taps[b]; ++k) {
    for (int64_t l = 0; l < lanes; ++l) {
      if (int64_t{index[k * padded_rows + l]} != index[0] + s * l + k) return 0;
    }
  }
  return s;
}

template <typename W>
bool PassTable<W>::same_block(int64_t a, int64_t b) const {
  // Wide blocks (kind 0) only with the same phase stride alone (their window_rel is set).
  const bool wide_phased = window_kind[a] == 0 && block_phases[a] != 0;
  if ((window_kind[a] == 0 && !wide_phased) || window_kind[a] != window_kind[b] ||
      (wide_phased && block_phases[b] != block_phases[a]) || block_taps[a] != block_taps[b] ||
      block_uniform[a] != block_uniform[b]) {
    return false;
  }
  const int64_t lanes = window_lanes;
  const auto same = [&](const auto& v, int64_t at_a, int64_t at_b) {
    return std::memcmp(v.data() + at_a, v.data() + at_b, lanes * sizeof(v[0])) == 0;
  };
  if (!same(padded_count, a * lanes, b * lanes)) return false;
  for (int64_t k = 0; k < padded_taps; ++k) {
    const int64_t at = k * padded_rows;
    if (!same(window_rel, at + a * lanes, at + b * lanes) ||
        !same(padded_weight, at + a * lanes, at + b * lanes)) {
      return false;
    }
  }
  return true;
}

template struct PassTable<float>;
template struct PassTable<double>;

}  // namespace upsample::cpu
