// The CPU backend's compiled form of a core::Plan (backend.cpp builds it, execute.cpp runs it).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/executable.hpp"
#include "core/plan.hpp"
#include "cpu/dispatch.hpp"
#include "cpu/kernels.hpp"

namespace upsample::cpu {

template <typename W>
struct CompiledStep {
  core::Step step;  // as planned
  const char* kernel = "";
  Declines declined;
  PassFn<W> fn = nullptr;
  PassArgs<W> args;
  int64_t items = 0;
  int64_t work = 0;           // elements written times taps: keeps small steps on one thread
  int64_t scratch_bytes = 0;  // the kernel's own, per thread
  // Bytes of the step's input and output per slice (plane mode).
  int64_t in_slice_bytes = 0;
  int64_t out_slice_bytes = 0;
  // Fusion: the head of a fused pair runs both steps (see Fused); the tail is skipped.
  int fused = -1;
  bool fused_tail = false;
  std::string fusion;  // how it runs fused with the next step, or why it does not
  // The head of a fused pair of vertical passes run as one kernel (Fused::direct).
  PairFn<W> pair_fn = nullptr;
};

// Whether the first and the last index of the rows with taps never decrease from one such row
// to the next (every table of the kernel tests' specs, forward and transposed; checked per plan,
// not assumed: a table that fails is walked).
template <typename W>
inline bool rows_monotone(const AxisTable<W>& t) {
  int64_t first = INT64_MIN, last = INT64_MIN;
  for (int64_t r = 0; r < t.rows; ++r) {
    if (t.offsets[r] == t.offsets[r + 1]) continue;
    const int64_t f = t.index[t.offsets[r]], l = t.index[t.offsets[r + 1] - 1];
    if (f < first || l < last) return false;
    first = f;
    last = l;
  }
  return true;
}

// The first and last intermediate row output rows [r0, r1) of a fused pair read (hi < lo: none).
// `monotone` (rows_monotone(t)): the first index of the band's first row with taps and the last
// of its last one, without walking the rows between.
template <typename W>
inline void band_rows_read(const AxisTable<W>& t, bool monotone, int64_t r0, int64_t r1,
                           int64_t* lo, int64_t* hi) {
  *lo = INT64_MAX;
  *hi = -1;
  if (monotone) {
    int64_t first = r0, last = r1 - 1;
    while (first < r1 && t.offsets[first] == t.offsets[first + 1]) ++first;
    if (first == r1) return;
    while (t.offsets[last] == t.offsets[last + 1]) --last;
    *lo = t.index[t.offsets[first]];
    *hi = t.index[t.offsets[last + 1] - 1];
    return;
  }
  for (int64_t r = r0; r < r1; ++r) {
    if (t.offsets[r] == t.offsets[r + 1]) continue;
    *lo = std::min(*lo, t.index[t.offsets[r]]);
    *hi = std::max(*hi, t.index[t.offsets[r + 1] - 1]);
  }
}

// Two resample steps run together over bands of output rows: step `b` (a vertical kernel)
// reads the rows of step `a`'s output that a band needs; `a` computes them into the thread's
// scratch just before, so the intermediate never leaves the cache. Bands are fixed at plan time
// (not by thread count), every intermediate row is computed by the same kernel with the same
// arithmetic, so the result is that of the two steps run one after the other, bit for bit.
//
// `direct`: the pair runs as one kernel instead (the head's pair_fn, over b's items), a's rows
// computed in registers where b uses them (kernels.hpp, PairFn); no bands, no scratch.
//
// `row_bands`: the other way round, for a vertical step `a` whose output rows each hold whole
// planes of `b` (a backward pass over H, then W): a computes a band of its own output rows into
// the thread's scratch, and b at once computes every item that reads them. Each intermediate row
// is computed once and read by one band, so bands do not overlap.
struct Fused {
  size_t a = 0, b = 0;  // step indices
  bool direct = false;
  bool row_bands = false;
  int64_t planes = 1;          // b's outer (row_bands: a's)
  int64_t band_rows = 1;       // b's output rows per band (row_bands: a's)
  int64_t bands = 1;           // per plane
  int64_t rows_cap = 0;        // the most intermediate rows a band reads
  bool rows_monotone = false;  // of b's table (band_rows_read)
  int64_t row_bytes = 0;       // one intermediate row (a's output per a-outer)
  int64_t a_in_row_bytes = 0;  // a's input per a-outer
  int64_t a_items_per_outer = 1;
  int64_t b_src_len = 1;           // intermediate rows per plane
  int64_t b_out_plane_bytes = 0;   // b's output per plane
  int64_t a_rows = 1;              // row_bands: a's output rows per plane
  int64_t b_items_per_row = 1;     // row_bands: b's items that read one of a's rows
  int64_t b_item_out_bytes = 0;    // row_bands: b's output per item
  size_t scratch_rows_offset = 0;  // inside the thread scratch: rows, then a's and b's own
  size_t scratch_a_offset = 0;
  size_t scratch_b_offset = 0;
};

template <typename W>
class Program final : public core::Executable {
 public:
  explicit Program(core::Plan<W>&& plan);

  size_t workspace_bytes() const override { return workspace_bytes_; }
  int64_t held_bytes() const override { return held_bytes_; }
  Status run(const void* src, void* dst, void* workspace, const ExecContext& ctx) const override;
  std::string describe() const override;

 private:
  CompiledStep<W> compile_step(const core::Step& step, int64_t lanes);
  void fuse_steps(bool direct_only);
  bool fuse_pair(size_t a, size_t b, bool direct_only);
  void fuse_in_bands(Fused* f, const std::string& pair_why);
  void fuse_in_row_bands(Fused* f);
  void place_scratch(Fused* f, int64_t rows_bytes);
  void swap_regions_after(size_t a, size_t b);
  void layout_workspace();

  void run_steps(const void* src, void* dst, unsigned char* ws, int threads) const;
  void run_step(const CompiledStep<W>& s, const void* in, void* out, unsigned char* ws,
                int threads) const;
  void run_fused(const Fused& f, const void* in, void* out, unsigned char* ws, int threads) const;
  void run_planes(const void* src, void* dst, unsigned char* ws, int threads) const;
  void* scratch(unsigned char* ws, int tid) const;
  const void* resolve(core::Buffer b, const void* src, void* dst, unsigned char* ws) const;
  size_t slot_offset(core::Buffer b) const;

  core::Plan<W> plan_;
  std::vector<std::unique_ptr<PassTable<W>>> tables_;
  std::vector<CompiledStep<W>> steps_;
  std::vector<Fused> fused_;
  Strategy strategy_;
  std::string fusion_not_tried_;  // "" when fusion was tried
  std::string target_;
  size_t region_offset_[2] = {0, 0};
  size_t workspace_bytes_ = 0;
  size_t slot_bytes_ = 0;
  size_t slot_region_offset_[2] = {0, 0};
  size_t scratch_offset_ = 0;
  size_t scratch_bytes_ = 0;
  int64_t scratch_slots_ = INT64_MAX;  // no scratch: no bound on the team
  int64_t held_bytes_ = 0;
  // SimdKernels::flush_streams where a step's kernel or pair kernel writes with non-temporal
  // stores (PassChoice::non_temporal, the streaming copy pair), else null: each thread calls it
  // once at the end of its part of a call (run_step, run_fused, run_planes), where the kernels
  // do not.
  void (*flush_streams_)() = nullptr;
};

}  // namespace upsample::cpu
