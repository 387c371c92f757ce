// Running a compiled Program: the step list (each step, or fused pair, shared between OpenMP
// threads in contiguous shares that a thread done with its own helps to finish: WorkShares), or
// plane mode. Each output element is computed by one thread with the table's fixed summation
// order, so no choice here changes a bit. A thread that ran kernels with non-temporal stores
// fences them once at the end of its part (SimdKernels::flush_streams), before the region's
// barrier lets other threads and the caller read them.
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "core/checked.hpp"
#include "cpu/program.hpp"
#include "cpu/threads.hpp"
#include "cpu/work_shares.hpp"

namespace upsample::cpu {
namespace {

// Runs body(tid, team) on `team` threads; without a parallel region when team is 1 (its set-up
// dominates small steps).
template <typename Body>
void on_threads(int team, Body&& body) {
  if (team <= 1) return body(0, 1);
#pragma omp parallel num_threads(team)
  body(omp_get_thread_num(), omp_get_num_threads());
}

// Ranges of a step's items begin at multiples of kItemGrain from their share's start (kernels that
// take rows in groups of 32 then cut their groups where the static split did), and the smallest
// holds about kChunkWork of the step's work (outputs x taps) or more: a call's set-up stays small
// beside its work.
constexpr int64_t kItemGrain = 32;
constexpr int64_t kChunkWork = int64_t{1} << 16;

int64_t chunk_items(int64_t items, int64_t work) {
  if (work <= 0) return items;
  // (At most items, so the conversion is in range whatever the ratio of work to items.)
  const double chunk =
      std::min(static_cast<double>(items),
               static_cast<double>(items) * kChunkWork / static_cast<double>(work));
  return std::max<int64_t>(1, static_cast<int64_t>(chunk));
}

}  // namespace

template <typename W>
Status Program<W>::run(const void* src, void* dst, void* workspace, const ExecContext& ctx) const {
  const int threads = resolve_threads(ctx.num_threads);
  auto* ws = static_cast<unsigned char*>(workspace);
  if (planes_for_call(strategy_, plan_.batch, threads)) {
    run_planes(src, dst, ws, threads);
  } else {
    run_steps(src, dst, ws, threads);
  }
  return Status::Ok();
}

template <typename W>
void Program<W>::run_steps(const void* src, void* dst, unsigned char* ws, int threads) const {
  for (const CompiledStep<W>& s : steps_) {
    if (s.fused_tail) continue;
    const void* in = resolve(s.step.in, src, dst, ws);
    if (s.fused >= 0) {
      const Fused& f = fused_[static_cast<size_t>(s.fused)];
      const CompiledStep<W>& b = steps_[f.b];
      run_fused(f, in, const_cast<void*>(resolve(b.step.out, src, dst, ws)), ws, threads);
      continue;
    }
    run_step(s, in, const_cast<void*>(resolve(s.step.out, src, dst, ws)), ws, threads);
  }
}

template <typename W>
void Program<W>::run_step(const CompiledStep<W>& s, const void* in, void* out, unsigned char* ws,
                          int threads) const {
  const int64_t by_work = std::max<int64_t>(1, s.work / (1 << 14));
  const int team = static_cast<int>(std::min<int64_t>({threads, s.items, by_work, scratch_slots_}));
  WorkShares shares(s.items, team, chunk_items(s.items, s.work));
  on_threads(team, [&](int tid, int running) {
    void* thread_scratch = scratch(ws, tid);
    shares.run(tid, running, WorkShares::multiples_of(kItemGrain), [&](int64_t begin, int64_t end) {
      s.fn(s.args, in, out, begin, end, thread_scratch);
    });
    if (flush_streams_) flush_streams_();
  });
}

// A direct pair runs as one kernel over the second step's items. Otherwise each thread walks its
// share of the rows in pieces inside bands (below). A thread keeps the intermediate rows of its
// last piece: the next piece of the same plane reuses the rows both read (moved to the front),
// computes the rest.
template <typename W>
void Program<W>::run_fused(const Fused& f, const void* in, void* out, unsigned char* ws,
                           int threads) const {
  const CompiledStep<W>& a = steps_[f.a];
  const CompiledStep<W>& b = steps_[f.b];
  // (Each step's work saturates at INT64_MAX, a streamed transposed axis's can: so does the sum.)
  const int64_t work = saturating_add(a.work, b.work);
  const int64_t by_work = std::max<int64_t>(1, work / (1 << 14));
  if (f.direct) {  // one kernel over b's items (Fused::direct)
    const int team = static_cast<int>(std::min<int64_t>({threads, b.items, by_work}));
    WorkShares shares(b.items, team, chunk_items(b.items, work));
    on_threads(team, [&](int tid, int running) {
      shares.run(
          tid, running, WorkShares::multiples_of(kItemGrain),
          [&](int64_t begin, int64_t end) { a.pair_fn(a.args, b.args, in, out, begin, end); });
      if (flush_streams_) flush_streams_();
    });
    return;
  }
  // The rows the bands cut (b's output rows, or a's for Fused::row_bands), over all planes: each
  // thread takes the ranges of them WorkShares gives it, and walks each in pieces that end at a
  // band's end, a plane's end or the range's end. A piece lies inside one band, so its
  // intermediate rows fit the scratch sized for whole bands; a row's arithmetic does not depend on
  // its piece.
  // (Shares of whole bands left W9's 3 planes x 3 bands of 91, 91 and 42 rows at 315 and 357
  // rows a thread.)
  const int64_t plane_rows = f.row_bands ? f.a_rows : b.step.shape.rows;
  const int64_t total = f.planes * plane_rows;
  const int team = static_cast<int>(std::min<int64_t>({threads, total, by_work, scratch_slots_}));
  const auto* a_src = static_cast<const unsigned char*>(in);
  auto* b_dst = static_cast<unsigned char*>(out);
  // The end of the band that holds row r of a plane.
  const auto band_end = [&](int64_t r) {
    return std::min((r / f.band_rows + 1) * f.band_rows, plane_rows);
  };
  WorkShares shares(total, team);
  // A range of the rows other than a share's first begins at a band's start (a plane's start is
  // one), where a piece would begin anyway.
  const auto band_start = [&](int64_t g, int64_t) {
    const int64_t plane = g / plane_rows, r = g % plane_rows;
    return r % f.band_rows == 0 ? g : plane * plane_rows + band_end(r);
  };
  on_threads(team, [&](int tid, int running) {
    auto* thread_scratch = static_cast<unsigned char*>(scratch(ws, tid));
    unsigned char* rows = thread_scratch + f.scratch_rows_offset;
    void* a_scratch = thread_scratch + f.scratch_a_offset;
    void* b_scratch = thread_scratch + f.scratch_b_offset;
    // Calls piece(plane, r0, r1) for each piece of the thread's ranges, in order.
    const auto for_each_piece = [&](const auto& piece) {
      shares.run(tid, running, band_start, [&](int64_t begin, int64_t end) {
        for (int64_t g = begin; g < end;) {
          const int64_t plane = g / plane_rows, r0 = g % plane_rows;
          const int64_t r1 = std::min(band_end(r0), r0 + (end - g));
          piece(plane, r0, r1);
          g += r1 - r0;
        }
      });
    };
    if (f.row_bands) {
      PassArgs<W> a_args = a.args;
      for_each_piece([&](int64_t plane, int64_t r0, int64_t r1) {
        const int64_t first = plane * f.a_rows + r0;  // a's item, and the row b's items read
        a_args.dst_item_bias = first;
        a.fn(a_args, in, rows, first, first + (r1 - r0), a_scratch);
        b.fn(b.args, rows, b_dst + first * f.b_items_per_row * f.b_item_out_bytes, 0,
             (r1 - r0) * f.b_items_per_row, b_scratch);
      });
      if (flush_streams_) flush_streams_();
      return;
    }
    int64_t cached_plane = -1, cached_lo = 0, cached_hi = -1;
    PassArgs<W> b_args = b.args;
    for_each_piece([&](int64_t plane, int64_t r0, int64_t r1) {
      int64_t lo, hi;
      band_rows_read(b.args.table->table, f.rows_monotone, r0, r1, &lo, &hi);
      if (hi >= lo) {
        int64_t first_new = lo;
        if (plane == cached_plane && cached_lo <= lo && lo <= cached_hi) {
          const int64_t keep_last = std::min(cached_hi, hi);
          std::memmove(rows, rows + (lo - cached_lo) * f.row_bytes,
                       static_cast<size_t>((keep_last - lo + 1) * f.row_bytes));
          first_new = keep_last + 1;
        }
        if (first_new <= hi) {
          a.fn(a.args, a_src + (plane * f.b_src_len + first_new) * f.a_in_row_bytes,
               rows + (first_new - lo) * f.row_bytes, 0, (hi - first_new + 1) * f.a_items_per_outer,
               a_scratch);
        }
        cached_plane = plane;
        cached_lo = lo;
        cached_hi = hi;
      }
      b_args.index_bias = hi >= lo ? lo : 0;
      b.fn(b_args, rows, b_dst + plane * f.b_out_plane_bytes, r0, r1, b_scratch);
    });
    if (flush_streams_) flush_streams_();
  });
}

// Plane mode: each thread takes the ranges of slices WorkShares gives it and runs every step on
// blocks of them. A slice's result does not depend on how slices are grouped into blocks or
// threads.
template <typename W>
void Program<W>::run_planes(const void* src, void* dst, unsigned char* ws, int threads) const {
  const int64_t batch = plan_.batch;
  const int64_t by_work = std::max<int64_t>(1, plan_.dst.numel() / (1 << 14));
  const int team = static_cast<int>(
      std::min<int64_t>({threads, strategy_.slots, batch, by_work, scratch_slots_}));
  WorkShares shares(batch, team);
  on_threads(team, [&](int tid, int running) {
    unsigned char* slot = ws + static_cast<size_t>(tid) * slot_bytes_;
    shares.run(
        tid, running, WorkShares::multiples_of(strategy_.block), [&](int64_t first, int64_t end) {
          for (int64_t b0 = first; b0 < end; b0 += strategy_.block) {
            const int64_t nb = std::min(strategy_.block, end - b0);
            for (const CompiledStep<W>& s : steps_) {
              if (s.fused_tail) continue;
              // A pair run as one kernel (the only fusion plane mode has) writes its tail's output.
              const CompiledStep<W>& last = s.fused >= 0 ? steps_[fused_[s.fused].b] : s;
              const void* in = s.step.in == core::Buffer::kSrc
                                   ? static_cast<const unsigned char*>(src) + b0 * s.in_slice_bytes
                                   : static_cast<const void*>(slot + slot_offset(s.step.in));
              void* out = last.step.out == core::Buffer::kDst
                              ? static_cast<unsigned char*>(dst) + b0 * last.out_slice_bytes
                              : static_cast<void*>(slot + slot_offset(last.step.out));
              if (s.fused >= 0) {
                s.pair_fn(s.args, last.args, in, out, 0, last.items / batch * nb);
              } else {
                s.fn(s.args, in, out, 0, s.items / batch * nb, scratch(ws, tid));
              }
            }
          }
        });
    if (flush_streams_) flush_streams_();
  });
}

template <typename W>
void* Program<W>::scratch(unsigned char* ws, int tid) const {
  return scratch_bytes_ == 0 ? nullptr : ws + scratch_offset_ + tid * scratch_bytes_;
}

template <typename W>
const void* Program<W>::resolve(core::Buffer b, const void* src, void* dst,
                                unsigned char* ws) const {
  switch (b) {
    case core::Buffer::kSrc:
      return src;
    case core::Buffer::kDst:
      return dst;
    case core::Buffer::kRegion0:
      return ws + region_offset_[0];
    case core::Buffer::kRegion1:
      return ws + region_offset_[1];
  }
  return nullptr;
}

template <typename W>
size_t Program<W>::slot_offset(core::Buffer b) const {
  return b == core::Buffer::kRegion1 ? slot_region_offset_[1] : slot_region_offset_[0];
}

// The members defined here (the class is instantiated in backend.cpp, with the others).
#define UPSAMPLE_INSTANTIATE(W)                                                                  \
  template Status Program<W>::run(const void*, void*, void*, const ExecContext&) const;          \
  template void Program<W>::run_steps(const void*, void*, unsigned char*, int) const;            \
  template void Program<W>::run_step(const CompiledStep<W>&, const void*, void*, unsigned char*, \
                                     int) const;                                                 \
  template void Program<W>::run_fused(const Fused&, const void*, void*, unsigned char*, int)     \
      const;                                                                                     \
  template void Program<W>::run_planes(const void*, void*, unsigned char*, int) const;           \
  template void* Program<W>::scratch(unsigned char*, int) const;                                 \
  template const void* Program<W>::resolve(core::Buffer, const void*, void*, unsigned char*)     \
      const;                                                                                     \
  template size_t Program<W>::slot_offset(core::Buffer) const;
UPSAMPLE_INSTANTIATE(float)
UPSAMPLE_INSTANTIATE(double)
#undef UPSAMPLE_INSTANTIATE

}  // namespace upsample::cpu
