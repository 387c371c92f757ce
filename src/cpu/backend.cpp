// Compiling a core::Plan for the CPU: kernel-ready tables and a kernel per step (dispatch.cpp),
// fused step pairs, the execution strategy and the workspace layout.
#include "cpu/backend.hpp"

#include <algorithm>
#include <sstream>
#include <string_view>
#include <type_traits>
#include <utility>

#include "core/checked.hpp"
#include "cpu/program.hpp"
#include "cpu/threads.hpp"

namespace upsample::cpu {
namespace {

constexpr size_t kAlign = 64;
// Workspace arithmetic saturates at SIZE_MAX: such a workspace is refused (api/engine.cpp).
size_t add_sat(size_t a, size_t b) {
  size_t out;
  return checked_add(a, b, &out) ? out : SIZE_MAX;
}
size_t mul_sat(size_t a, size_t b) {
  size_t out;
  return checked_mul(a, b, &out) ? out : SIZE_MAX;
}
size_t align_up(size_t n) {
  return n > SIZE_MAX - kAlign ? SIZE_MAX : (n + kAlign - 1) / kAlign * kAlign;
}

// Intermediate rows a thread of a fused pair keeps: about half of a typical L2.
constexpr int64_t kFusedRowsBytes = int64_t{384} << 10;
// A row band's intermediate rows: written and read back at once, so they stay in L1 (8 KiB was
// faster than 16 and 64 KiB on W4 and W6 in docs/performance.md's runs; at least one row).
constexpr int64_t kRowBandBytes = int64_t{8} << 10;

template <typename T>
int64_t vector_bytes(const std::vector<T>& v) {
  return static_cast<int64_t>(v.capacity() * sizeof(T));
}

template <typename W>
int64_t bytes_held(const PassTable<W>& p) {
  return vector_bytes(p.table.offsets) + vector_bytes(p.table.index) +
         vector_bytes(p.table.weight) + vector_bytes(p.padded_index) +
         vector_bytes(p.padded_weight) + vector_bytes(p.padded_count) +
         vector_bytes(p.window_base) + vector_bytes(p.window_kind) + vector_bytes(p.window_rel) +
         vector_bytes(p.block_taps) + vector_bytes(p.block_uniform) + vector_bytes(p.block_run) +
         vector_bytes(p.block_phases) + vector_bytes(p.phased_tail);
}

template <typename W>
PassRequest<W> request_for(const core::Plan<W>& plan, const core::Step& step) {
  PassRequest<W> r;
  r.step = &step;
  r.axis = &plan.axes[step.axis];
  r.simd = &simd_kernels();
  return r;
}

bool is_region(core::Buffer b) {
  return b == core::Buffer::kRegion0 || b == core::Buffer::kRegion1;
}

}  // namespace

template <typename W>
Program<W>::Program(core::Plan<W>&& plan) : plan_(std::move(plan)) {
  const SimdKernels& simd = simd_kernels();
  target_ = simd.target;
  for (const core::Step& step : plan_.steps) steps_.push_back(compile_step(step, simd.lanes));
  layout_workspace();
}

template <typename W>
CompiledStep<W> Program<W>::compile_step(const core::Step& step, int64_t lanes) {
  CompiledStep<W> c;
  c.step = step;
  if (step.kind == core::Step::Kind::kCopy) {
    c.kernel = "strided_copy";
    c.fn = strided_copy<W>();
    c.args.copy = step.copy;
    c.items = copy_items(step.copy);
    c.work = saturating_mul(c.items, step.copy.sizes[step.copy.rank - 1]);
    return c;
  }
  const PassChoice<W> choice = choose_pass_kernel(request_for(plan_, step));
  core::Axis<W>& axis = plan_.axes[step.axis];
  c.kernel = choice.kernel;
  c.declined = choice.declined;
  c.fn = choice.fn;
  c.args.shape = choice.shape;
  c.args.axis = &axis;
  c.args.alpha_channels = step.alpha_channels;
  c.args.premultiply = step.premultiply;
  c.args.unpremultiply = step.unpremultiply;
  if (choice.needs_table) {
    AxisTable<W> table = std::move(axis.table);
    if (choice.interleave > 1) table = interleave(table, choice.interleave);
    tables_.push_back(std::make_unique<PassTable<W>>(std::move(table), choice.padded, lanes));
    c.args.table = tables_.back().get();
    held_bytes_ += bytes_held(*tables_.back());
  }
  c.items = choice.items(choice.shape);
  c.scratch_bytes = choice.scratch_bytes;
  if (choice.non_temporal) flush_streams_ = simd_kernels().flush_streams;
  const PassShape& s = step.shape;
  const int64_t in_size = static_cast<int64_t>(dtype_size(step.in_type));
  // (A pair run as one kernel does not prefetch: fuse_pair clears both fields.)
  if (choice.prefetches && step.in == core::Buffer::kSrc &&
      s.inner * in_size <= kPrefetchRowBytes) {
    c.args.prefetch_rows_ahead = std::max<int64_t>(1, kPrefetchBytesAhead / (s.inner * in_size));
  }
  if (choice.prefetches && step.in == core::Buffer::kSrc && step.in_type == DType::kFloat32 &&
      step.out_type == DType::kFloat32 && s.inner * in_size >= kPrefetchLongRowBytes) {
    c.args.prefetch_within_row = kPrefetchWithinRowBytes / in_size;
  }
  // (max_taps of a streamed transposed axis is its source length: the product may saturate.)
  c.work = saturating_mul(s.outer * s.rows * s.inner, std::max<int64_t>(1, axis.max_taps));
  const int64_t out_size = static_cast<int64_t>(dtype_size(step.out_type));
  c.in_slice_bytes = s.outer * s.src_len * s.inner / plan_.batch * in_size;
  c.out_slice_bytes = s.outer * s.rows * s.inner / plan_.batch * out_size;
  return c;
}

// The fused pair `f` over bands of b's output rows, a's rows in each thread's scratch.
template <typename W>
void Program<W>::fuse_in_bands(Fused* fp, const std::string& pair_why) {
  Fused& f = *fp;
  CompiledStep<W>& a = steps_[f.a];
  CompiledStep<W>& b = steps_[f.b];
  const PassShape& as = a.step.shape;
  const PassShape& bs = b.step.shape;
  f.planes = bs.outer;
  f.b_src_len = bs.src_len;
  f.row_bytes = as.rows * as.inner * static_cast<int64_t>(dtype_size(a.step.out_type));
  f.a_in_row_bytes = as.src_len * as.inner * static_cast<int64_t>(dtype_size(a.step.in_type));
  f.a_items_per_outer = a.items / a.args.shape.outer;
  f.b_out_plane_bytes = bs.rows * bs.inner * static_cast<int64_t>(dtype_size(b.step.out_type));
  // Bands of b's output rows whose intermediate rows fit the budget.
  const AxisTable<W>& t = b.args.table->table;
  const int64_t budget_rows =
      std::max<int64_t>(2, kFusedRowsBytes / std::max<int64_t>(1, f.row_bytes));
  int64_t band = std::clamp<int64_t>(
      (budget_rows - b.args.table->max_taps) * bs.rows / std::max<int64_t>(1, bs.src_len), 1,
      bs.rows);
  f.rows_monotone = rows_monotone(t);
  for (;;) {
    f.band_rows = band;
    f.bands = (bs.rows + band - 1) / band;
    f.rows_cap = 1;
    for (int64_t k = 0; k < f.bands; ++k) {
      int64_t lo, hi;
      band_rows_read(t, f.rows_monotone, k * band, std::min((k + 1) * band, bs.rows), &lo, &hi);
      if (hi >= lo) f.rows_cap = std::max(f.rows_cap, hi - lo + 1);
    }
    if (f.rows_cap <= 2 * budget_rows || band == 1) break;
    band = std::max<int64_t>(1, band / 2);
  }
  place_scratch(&f, f.rows_cap * f.row_bytes);
  std::ostringstream why;
  why << "fused with the next step: " << f.bands << " band(s) of " << f.band_rows
      << " rows per plane, up to " << f.rows_cap << " intermediate rows of " << f.row_bytes
      << " bytes in each thread's scratch";
  a.fusion = why.str() + " (not as one kernel: " + pair_why + ")";
  b.fusion = "runs in the bands of the step before";
}

// A fused pair's scratch, per thread: the intermediate rows, then a's and b's own; the pair's
// total goes through the head.
template <typename W>
void Program<W>::place_scratch(Fused* f, int64_t rows_bytes) {
  CompiledStep<W>& a = steps_[f->a];
  CompiledStep<W>& b = steps_[f->b];
  f->scratch_rows_offset = 0;
  f->scratch_a_offset = align_up(static_cast<size_t>(rows_bytes));
  f->scratch_b_offset = f->scratch_a_offset + align_up(static_cast<size_t>(a.scratch_bytes));
  const size_t bytes = f->scratch_b_offset + align_up(static_cast<size_t>(b.scratch_bytes));
  a.fused = static_cast<int>(fused_.size());
  a.scratch_bytes = static_cast<int64_t>(bytes);
  b.fused_tail = true;
}

// The fused pair `f` over bands of a's output rows (Fused::row_bands).
template <typename W>
void Program<W>::fuse_in_row_bands(Fused* fp) {
  Fused& f = *fp;
  CompiledStep<W>& a = steps_[f.a];
  CompiledStep<W>& b = steps_[f.b];
  const PassShape& as = a.step.shape;
  const PassShape& bs = b.step.shape;
  f.row_bands = true;
  f.planes = as.outer;
  f.a_rows = as.rows;
  f.row_bytes = as.inner * static_cast<int64_t>(dtype_size(a.step.out_type));
  // (The threads split the rows, not the bands: run_fused.)
  f.band_rows = std::clamp<int64_t>(kRowBandBytes / std::max<int64_t>(1, f.row_bytes), 1, as.rows);
  f.bands = (as.rows + f.band_rows - 1) / f.band_rows;
  f.rows_cap = f.band_rows;
  f.b_items_per_row = b.items / (as.outer * as.rows);
  f.b_item_out_bytes = saturating_mul(saturating_mul(saturating_mul(bs.outer, bs.rows), bs.inner),
                                      static_cast<int64_t>(dtype_size(b.step.out_type))) /
                       b.items;
  place_scratch(&f, f.band_rows * f.row_bytes);
  std::ostringstream why;
  why << "fused with the next step in row bands: " << f.bands << " band(s) of " << f.band_rows
      << " of its output rows per plane, " << f.row_bytes
      << " bytes each, in each thread's scratch; the next step reads each band at once";
  a.fusion = why.str();
  b.fusion = "runs in the row bands of the step before";
}

// Fuses steps a and b when b is a vertical kernel over a materialised table reading exactly the
// rows a writes (a's axis is the dim inside b's, so b's inner is one of a's rows): as one kernel
// where pair_declines allows, else in bands (unless `direct_only`). Otherwise, when a is a plain
// vertical kernel whose output rows each hold whole planes of b, in row bands (unless
// `direct_only`).
template <typename W>
bool Program<W>::fuse_pair(size_t ia, size_t ib, bool direct_only) {
  CompiledStep<W>& a = steps_[ia];
  CompiledStep<W>& b = steps_[ib];
  FusionRequest request;
  request.a_resample = a.step.kind == core::Step::Kind::kResample;
  request.b_resample = b.step.kind == core::Step::Kind::kResample;
  request.connected = is_region(a.step.out) && a.step.out == b.step.in;
  request.b_vertical_table =
      b.args.table != nullptr && b.args.shape.inner > 1 && b.items == vertical_items(b.args.shape);
  request.adjacent = request.a_resample && request.b_resample &&
                     b.step.shape.inner == a.step.shape.rows * a.step.shape.inner &&
                     a.step.shape.outer == b.step.shape.outer * b.step.shape.src_len;
  const std::string_view a_kernel(a.kernel);
  request.a_plain_vertical = request.a_resample && a.args.table != nullptr && !a.step.premultiply &&
                             !a.step.unpremultiply &&
                             (a_kernel == "simd_vertical" || a_kernel == "scalar_vertical");
  if (request.a_resample && request.b_resample) {
    const PassShape& as = a.step.shape;
    const PassShape& bs = b.step.shape;
    const int64_t a_rows = as.outer * as.rows;
    const int64_t b_plane = bs.src_len * bs.inner;
    const int64_t b_out = saturating_mul(saturating_mul(bs.outer, bs.rows), bs.inner);
    request.b_within_rows = a_rows > 0 && b_plane > 0 && b.items > 0 && as.inner % b_plane == 0 &&
                            bs.outer / a_rows == as.inner / b_plane && bs.outer % a_rows == 0 &&
                            b.items % a_rows == 0 && b_out % b.items == 0;
    request.a_row_bytes =
        saturating_mul(as.inner, static_cast<int64_t>(dtype_size(a.step.out_type)));
  }
  Fused f;
  f.a = ia;
  f.b = ib;
  if (std::string why = fusion_declines(request); !why.empty()) {
    const std::string row_why = row_fusion_declines(request);
    if (!row_why.empty() || direct_only) {
      a.fusion = "not fused with the next step: " + why;
      if (!row_why.empty() && row_why != why) {
        a.fusion += ", nor in row bands: " + row_why;
      } else if (row_why.empty()) {  // (direct_only)
        a.fusion += ", and not in row bands: " + fusion_not_tried_;
      }
      return false;
    }
    fuse_in_row_bands(&f);
    swap_regions_after(ia, ib);
    fused_.push_back(std::move(f));
    return true;
  }
  PairRequest pair;
  // (A pair run as one kernel stores its output as the ordinary vertical kernel does, whichever of
  // the two b was given.)
  pair.both_simd_vertical = std::string_view(a.kernel) == "simd_vertical" &&
                            (std::string_view(b.kernel) == "simd_vertical" ||
                             std::string_view(b.kernel) == "simd_vertical_stream");
  pair.copy_then_row_copy = std::string_view(a.kernel) == "simd_copy_rows" &&
                            std::string_view(b.kernel) == "copy_rows" && a.args.shape.inner == 1 &&
                            a.args.shape.rows == b.args.shape.inner;
  pair.alpha =
      a.step.premultiply || a.step.unpremultiply || b.step.premultiply || b.step.unpremultiply;
  pair.a_in = a.step.in_type;
  pair.a_out = a.step.out_type;
  pair.b_in = b.step.in_type;
  pair.b_out = b.step.out_type;
  pair.a_max_taps = a.args.table != nullptr ? a.args.table->max_taps : INT64_MAX;
  pair.b_max_taps = b.args.table->max_taps;
  pair.a_inner = a.args.shape.inner;
  pair.lanes = simd_kernels().lanes;
  pair.b_writes_dst = b.step.out == core::Buffer::kDst;
  pair.b_out_bytes = saturating_mul(
      saturating_mul(b.step.shape.outer, b.step.shape.rows),
      saturating_mul(b.step.shape.inner, static_cast<int64_t>(dtype_size(b.step.out_type))));
  const std::string pair_why = pair_declines(pair);
  const bool streams = pair_streams(pair);
  const char* pair_kernel = !pair.copy_then_row_copy ? "vertical_pair"
                            : streams                ? "copy_pair_4 with non-temporal stores"
                                                     : "copy_pair_4";
  if (pair_why.empty()) {
    if constexpr (std::is_same_v<W, float>) {
      const SimdKernels& k = simd_kernels();
      a.pair_fn = !pair.copy_then_row_copy ? k.vertical_pair[static_cast<int>(a.step.in_type)]
                  : streams                ? k.copy_pair_4_stream
                                           : k.copy_pair_4;
      if (pair.copy_then_row_copy && streams) flush_streams_ = k.flush_streams;
    }
  }
  f.direct = a.pair_fn != nullptr;
  if (!f.direct && direct_only) {
    a.fusion = "not fused with the next step: " + fusion_not_tried_ +
               ", and not as one kernel: " + pair_why;
    return false;
  }
  if (f.direct) {
    a.args.prefetch_rows_ahead = 0;  // the pair kernels do not prefetch
    a.args.prefetch_within_row = 0;
    a.fusion = std::string("fused with the next step as one kernel (") + pair_kernel +
               "): each output row of the second pass computes the first pass's rows it reads "
               "in registers; no intermediate in memory";
    a.fused = static_cast<int>(fused_.size());
    b.fused_tail = true;
    b.fusion = "runs in the kernel of the step before";
  } else {
    fuse_in_bands(&f, pair_why);
  }
  swap_regions_after(ia, ib);
  fused_.push_back(std::move(f));
  return true;
}

// A fused pair's b writes while its a still reads: when b's output region is a's input, b and
// every later step swap the two regions (a's output region is free: the intermediate is in the
// scratch or in registers).
template <typename W>
void Program<W>::swap_regions_after(size_t ia, size_t ib) {
  const CompiledStep<W>& a = steps_[ia];
  if (!is_region(a.step.in) || steps_[ib].step.out != a.step.in) return;
  auto other = [](core::Buffer x) {
    if (x == core::Buffer::kRegion0) return core::Buffer::kRegion1;
    if (x == core::Buffer::kRegion1) return core::Buffer::kRegion0;
    return x;
  };
  for (size_t k = ib; k < steps_.size(); ++k) {
    steps_[k].step.in = other(steps_[k].step.in);
    steps_[k].step.out = other(steps_[k].step.out);
  }
}

template <typename W>
void Program<W>::fuse_steps(bool direct_only) {
  for (size_t i = 0; i + 1 < steps_.size(); ++i) {
    if (steps_[i].fused_tail) continue;
    if (fuse_pair(i, i + 1, direct_only)) ++i;
  }
}

template <typename W>
void Program<W>::layout_workspace() {
  StrategyRequest request;
  request.batch = plan_.batch;
  for (const CompiledStep<W>& s : steps_) {
    if (s.step.kind == core::Step::Kind::kCopy) {
      request.has_copies = true;
    } else {
      ++request.passes;
    }
  }
  // One slice's share of each region: what the resample steps write there (a fused pair's head
  // writes none).
  int64_t slice_region[2] = {0, 0};
  const auto measure_slice_regions = [&] {
    slice_region[0] = slice_region[1] = 0;
    for (const CompiledStep<W>& s : steps_) {
      if (s.step.kind == core::Step::Kind::kCopy || s.fused >= 0 || !is_region(s.step.out)) {
        continue;
      }
      const int region = s.step.out == core::Buffer::kRegion1 ? 1 : 0;
      slice_region[region] = std::max(slice_region[region], s.out_slice_bytes);
    }
  };
  measure_slice_regions();
  request.slice_scratch = std::max(slice_region[0], slice_region[1]);
  strategy_ = choose_strategy(request);
  fusion_not_tried_ = fusion_not_tried(strategy_, request.passes);
  if (fusion_not_tried_.empty()) {
    fuse_steps(false);
    strategy_ = strategy_after_fusion(std::move(strategy_), !fused_.empty());
  } else {
    // Plane mode still runs pairs of vertical passes as one kernel: a slice's intermediate
    // between them is then never written (run_planes).
    fuse_steps(true);
    measure_slice_regions();
  }
  // The regions the unfused steps write (a fused pair's intermediate lives in the scratch).
  int64_t region_bytes[2] = {0, 0};
  for (const CompiledStep<W>& s : steps_) {
    if (s.fused >= 0 || !is_region(s.step.out)) continue;
    const PassShape& sh = s.step.shape;
    const int64_t elements = s.step.kind == core::Step::Kind::kCopy
                                 ? copy_items(s.step.copy) * s.step.copy.sizes[s.step.copy.rank - 1]
                                 : sh.outer * sh.rows * sh.inner;
    const int region = s.step.out == core::Buffer::kRegion1 ? 1 : 0;
    region_bytes[region] = std::max(region_bytes[region],
                                    elements * static_cast<int64_t>(dtype_size(s.step.out_type)));
  }
  region_offset_[0] = 0;
  region_offset_[1] = align_up(static_cast<size_t>(region_bytes[0]));
  workspace_bytes_ = add_sat(region_offset_[1], align_up(static_cast<size_t>(region_bytes[1])));
  if (strategy_.planes) {
    slot_region_offset_[0] = 0;
    slot_region_offset_[1] = align_up(
        mul_sat(static_cast<size_t>(slice_region[0]), static_cast<size_t>(strategy_.block)));
    slot_bytes_ =
        add_sat(slot_region_offset_[1], align_up(mul_sat(static_cast<size_t>(slice_region[1]),
                                                         static_cast<size_t>(strategy_.block))));
    // Tensor mode stays available (run() picks per call), so the workspace covers both.
    workspace_bytes_ =
        std::max(workspace_bytes_, mul_sat(slot_bytes_, static_cast<size_t>(strategy_.slots)));
  }
  // Each thread's kernel scratch, after everything else; it bounds the team size. The threads'
  // scratch areas lie one page more than their size apart: W1's fused bands hold 32 KiB of rows
  // per thread, and two such areas exactly 32 KiB apart made W1 and W17 slower on the Zen 5 host
  // of docs/performance.md (section "Zen 5 host" has the alternating runs).
  int64_t scratch = 0;
  for (const CompiledStep<W>& s : steps_) scratch = std::max(scratch, s.scratch_bytes);
  if (scratch > 0) {
    constexpr size_t kScratchSkewBytes = 4096;
    scratch_bytes_ = align_up(static_cast<size_t>(scratch)) + kScratchSkewBytes;
    scratch_slots_ = std::clamp(default_threads(), 1, 64);
    scratch_offset_ = workspace_bytes_;
    workspace_bytes_ =
        add_sat(workspace_bytes_, mul_sat(scratch_bytes_, static_cast<size_t>(scratch_slots_)));
  }
}

template <typename W>
std::string Program<W>::describe() const {
  std::ostringstream os;
  os << "backend cpu simd " << target_ << "\n  " << describe_strategy(strategy_) << "; workspace "
     << workspace_bytes_ << " bytes; tables " << held_bytes_ << " bytes";
  if (!fusion_not_tried_.empty()) os << "\n  " << fusion_not_tried_;
  for (size_t i = 0; i < steps_.size(); ++i) {
    const CompiledStep<W>& s = steps_[i];
    os << "\n  step " << i << ": " << core::describe_step(s.step);
    if (s.step.kind == core::Step::Kind::kResample) {
      const core::Axis<W>& axis = plan_.axes[s.step.axis];
      os << " dim " << axis.dim << (axis.transposed ? " transposed" : "")
         << " taps<=" << axis.max_taps << (axis.materialized ? "" : " streamed");
    }
    os << "\n    kernel " << s.kernel;
    if (!s.declined.empty()) os << " (declined: " << s.declined.text() << ")";
    if (s.args.prefetch_rows_ahead > 0) {
      os << "\n    prefetches the source rows of the output row " << s.args.prefetch_rows_ahead
         << " rows ahead (short rows read from memory)";
    }
    if (s.args.prefetch_within_row > 0) {
      os << "\n    prefetches within each output row the source rows it reads first, "
         << s.args.prefetch_within_row << " elements ahead (long rows read from memory)";
    }
    if (!s.fusion.empty()) os << "\n    " << s.fusion;
  }
  return os.str();
}

// The estimate makes the kernel choice compile() makes (choose_pass_kernel depends only on the
// step, its axis and the SIMD set, all known before the tables are built), so the two agree. It
// is the most compile() holds beyond the core tables at any moment: steps are compiled in order,
// and an interleaved table is built while the core table it replaces still lives.
template <typename W>
int64_t compiled_table_bytes(const core::Plan<W>& plan) {
  const int64_t lanes = simd_kernels().lanes;
  int64_t held = 0, peak = 0;
  for (const core::Step& step : plan.steps) {
    if (step.kind != core::Step::Kind::kResample) continue;
    const PassChoice<W> choice = choose_pass_kernel(request_for(plan, step));
    const core::Axis<W>& axis = plan.axes[step.axis];
    if (choice.needs_table && choice.interleave > 1) {
      peak =
          std::max(peak, saturating_add(held, table_bytes<W>(axis.rows * choice.interleave,
                                                             axis.total_taps * choice.interleave)));
    }
    held = saturating_add(held, kernel_table_bytes(choice, axis, lanes));
    peak = std::max(peak, held);
  }
  return peak;
}

template <typename W>
std::unique_ptr<core::Executable> compile(core::Plan<W>&& plan) {
  return std::make_unique<Program<W>>(std::move(plan));
}

bool backward_inner_first(const core::InnerFirstQuestion& q) {
  const AxisSpec& w = q.inner;
  if (q.spatial_rank != 2 || q.passes != 2 || w.antialias || w.align_corners) return false;
  if (w.mode != Mode::kLinear && w.mode != Mode::kCubic) return false;
  if (w.in_len < 128) return false;
  const int64_t factor = w.out_len / w.in_len;
  if (factor < 2 || factor > 4 || factor * w.in_len != w.out_len) return false;
  if (w.scale > 0.0 && w.scale != static_cast<double>(factor)) return false;
  return q.inner_taps / 8 >= q.inner_rows;  // an average of 8 taps or more, without 8 * rows
}

namespace {

class CpuBackend final : public core::Backend {
 public:
  const char* name() const override { return "cpu"; }
  bool backward_inner_first(const core::InnerFirstQuestion& question) const override {
    return cpu::backward_inner_first(question);
  }
  int64_t table_bytes(const core::Plan<float>& plan) const override {
    return compiled_table_bytes(plan);
  }
  int64_t table_bytes(const core::Plan<double>& plan) const override {
    return compiled_table_bytes(plan);
  }
  std::unique_ptr<core::Executable> compile(core::Plan<float>&& plan) const override {
    return cpu::compile(std::move(plan));
  }
  std::unique_ptr<core::Executable> compile(core::Plan<double>&& plan) const override {
    return cpu::compile(std::move(plan));
  }
};

}  // namespace

const core::Backend& backend() {
  static const CpuBackend instance;
  return instance;
}

template class Program<float>;
template class Program<double>;
template int64_t compiled_table_bytes<float>(const core::Plan<float>&);
template int64_t compiled_table_bytes<double>(const core::Plan<double>&);
template std::unique_ptr<core::Executable> compile<float>(core::Plan<float>&&);
template std::unique_ptr<core::Executable> compile<double>(core::Plan<double>&&);

}  // namespace upsample::cpu
