#include "cpu/backend.hpp"

#include <omp.h>

#include <algorithm>
#include <sstream>
#include <utility>
#include <vector>

#include "cpu/dispatch.hpp"
#include "cpu/kernels.hpp"
#include "cpu/threads.hpp"

namespace upsample::cpu {
namespace {

constexpr size_t kAlign = 64;
size_t align_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

template <typename T>
int64_t vector_bytes(const std::vector<T>& v) {
  return static_cast<int64_t>(v.capacity() * sizeof(T));
}

template <typename W>
int64_t bytes_held(const PassTable<W>& p) {
  return vector_bytes(p.table.offsets) + vector_bytes(p.table.index) +
         vector_bytes(p.table.weight) + vector_bytes(p.padded_index) +
         vector_bytes(p.padded_weight) + vector_bytes(p.padded_count) +
         vector_bytes(p.window_base) + vector_bytes(p.window_kind) + vector_bytes(p.window_rel);
}

template <typename W>
struct CompiledStep {
  core::Step step;  // as planned
  const char* kernel = "";
  std::string declined;
  PassFn<W> fn = nullptr;
  PassArgs<W> args;
  int64_t items = 0;
  int64_t work = 0;           // elements written times taps: keeps small steps on one thread
  int64_t scratch_bytes = 0;  // per thread
  // Bytes of the step's input and output per slice (plane mode).
  int64_t in_slice_bytes = 0;
  int64_t out_slice_bytes = 0;
};

template <typename W>
PassRequest<W> request_for(const core::Plan<W>& plan, const core::Step& step) {
  PassRequest<W> r;
  r.step = &step;
  r.axis = &plan.axes[step.axis];
  r.simd = &simd_kernels();
  return r;
}

template <typename W>
class Program final : public core::Executable {
 public:
  explicit Program(core::Plan<W>&& plan) : plan_(std::move(plan)) {
    const SimdKernels& simd = simd_kernels();
    target_ = simd.target;
    for (const core::Step& step : plan_.steps) steps_.push_back(compile_step(step, simd.lanes));
    layout_workspace();
  }

  size_t workspace_bytes() const override { return workspace_bytes_; }
  int64_t held_bytes() const override { return held_bytes_; }

  Status run(const void* src, void* dst, void* workspace, const ExecContext& ctx) const override {
    const int threads = resolve_threads(ctx.num_threads);
    auto* ws = static_cast<unsigned char*>(workspace);
    // Plane mode unless the slices would split unevenly between threads (e.g. 3 slices on 2
    // threads): then every step is split by rows instead. Both give the same bits.
    if (strategy_.planes) {
      const int64_t team = std::min<int64_t>({threads, strategy_.slots, plan_.batch});
      if (plan_.batch % team == 0 || plan_.batch >= 4 * team) {
        run_planes(src, dst, ws, threads);
        return Status::Ok();
      }
    }
    for (const CompiledStep<W>& s : steps_) {
      const void* in = resolve(s.step.in, src, dst, ws);
      void* out = const_cast<void*>(resolve(s.step.out, src, dst, ws));
      const int64_t by_work = std::max<int64_t>(1, s.work / (1 << 14));
      const int team =
          static_cast<int>(std::min<int64_t>({threads, s.items, by_work, scratch_slots_}));
      // Static contiguous chunks; each item is computed entirely by one thread with the table's
      // fixed summation order, so the result does not depend on `team`.
      if (team <= 1) {  // no parallel region at all: its set-up dominates small steps
        s.fn(s.args, in, out, 0, s.items, scratch(ws, 0));
        continue;
      }
#pragma omp parallel num_threads(team)
      {
        const int nt = omp_get_num_threads();
        const int tid = omp_get_thread_num();
        const int64_t begin = s.items * tid / nt;
        const int64_t end = s.items * (tid + 1) / nt;
        if (begin < end) s.fn(s.args, in, out, begin, end, scratch(ws, tid));
      }
    }
    return Status::Ok();
  }

  std::string describe() const override {
    std::ostringstream os;
    os << "backend cpu simd " << target_ << "\n  " << strategy_.why << "; workspace "
       << workspace_bytes_ << " bytes; tables " << held_bytes_ << " bytes";
    for (size_t i = 0; i < steps_.size(); ++i) {
      const CompiledStep<W>& s = steps_[i];
      os << "\n  step " << i << ": " << core::describe_step(s.step);
      if (s.step.kind == core::Step::Kind::kResample) {
        const core::Axis<W>& axis = plan_.axes[s.step.axis];
        os << " dim " << axis.dim << (axis.transposed ? " transposed" : "")
           << " taps<=" << axis.max_taps << (axis.materialized ? "" : " streamed");
      }
      os << "\n    kernel " << s.kernel;
      if (!s.declined.empty()) os << " (declined: " << s.declined << ")";
    }
    return os.str();
  }

 private:
  CompiledStep<W> compile_step(const core::Step& step, int64_t lanes) {
    CompiledStep<W> c;
    c.step = step;
    if (step.kind == core::Step::Kind::kCopy) {
      c.kernel = "strided_copy";
      c.fn = strided_copy<W>();
      c.args.copy = step.copy;
      c.items = copy_items(step.copy);
      c.work = c.items * step.copy.sizes[step.copy.rank - 1];
      return c;
    }
    const PassChoice<W> choice = choose_pass_kernel(request_for(plan_, step));
    core::Axis<W>& axis = plan_.axes[step.axis];
    c.kernel = choice.kernel;
    c.declined = choice.declined;
    c.fn = choice.fn;
    c.args.shape = choice.shape;
    c.args.axis = &axis;
    if (choice.needs_table) {
      AxisTable<W> table = std::move(axis.table);
      if (choice.interleave > 1) table = interleave(table, choice.interleave);
      tables_.push_back(std::make_unique<PassTable<W>>(std::move(table), choice.padded, lanes));
      c.args.table = tables_.back().get();
      held_bytes_ += bytes_held(*tables_.back());
    }
    c.items = choice.items(choice.shape);
    c.scratch_bytes = choice.scratch_bytes;
    const PassShape& s = step.shape;
    c.work = s.outer * s.rows * s.inner * std::max<int64_t>(1, axis.max_taps);
    const int64_t in_size = static_cast<int64_t>(dtype_size(step.in_type));
    const int64_t out_size = static_cast<int64_t>(dtype_size(step.out_type));
    c.in_slice_bytes = s.outer * s.src_len * s.inner / plan_.batch * in_size;
    c.out_slice_bytes = s.outer * s.rows * s.inner / plan_.batch * out_size;
    return c;
  }

  void layout_workspace() {
    region_offset_[0] = 0;
    region_offset_[1] = align_up(static_cast<size_t>(plan_.region_bytes[0]));
    workspace_bytes_ = region_offset_[1] + align_up(static_cast<size_t>(plan_.region_bytes[1]));
    StrategyRequest request;
    request.batch = plan_.batch;
    int64_t slice_region[2] = {0, 0};
    for (const CompiledStep<W>& s : steps_) {
      if (s.step.kind == core::Step::Kind::kCopy) {
        request.has_copies = true;
        continue;
      }
      ++request.passes;
      const int region = s.step.out == core::Buffer::kRegion1 ? 1 : 0;
      if (s.step.out == core::Buffer::kRegion0 || s.step.out == core::Buffer::kRegion1) {
        slice_region[region] = std::max(slice_region[region], s.out_slice_bytes);
      }
    }
    request.slice_scratch = std::max(slice_region[0], slice_region[1]);
    strategy_ = choose_strategy(request);
    if (strategy_.planes) {
      slot_region_offset_[0] = 0;
      slot_region_offset_[1] = align_up(static_cast<size_t>(slice_region[0] * strategy_.block));
      slot_bytes_ =
          slot_region_offset_[1] + align_up(static_cast<size_t>(slice_region[1] * strategy_.block));
      // Tensor mode stays available (run() picks per call), so the workspace covers both.
      workspace_bytes_ =
          std::max(workspace_bytes_, slot_bytes_ * static_cast<size_t>(strategy_.slots));
    }
    // Each thread's kernel scratch, after everything else; it bounds the team size.
    int64_t scratch = 0;
    for (const CompiledStep<W>& s : steps_) scratch = std::max(scratch, s.scratch_bytes);
    if (scratch > 0) {
      scratch_bytes_ = align_up(static_cast<size_t>(scratch));
      scratch_slots_ = std::clamp(default_threads(), 1, 64);
      scratch_offset_ = workspace_bytes_;
      workspace_bytes_ += scratch_bytes_ * static_cast<size_t>(scratch_slots_);
    }
  }

  void* scratch(unsigned char* ws, int tid) const {
    return scratch_bytes_ == 0 ? nullptr : ws + scratch_offset_ + tid * scratch_bytes_;
  }

  const void* resolve(core::Buffer b, const void* src, void* dst, unsigned char* ws) const {
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

  // Plane mode: each thread takes a contiguous range of slices and runs every step on blocks of
  // them. A slice's result does not depend on how slices are grouped into blocks or threads.
  void run_planes(const void* src, void* dst, unsigned char* ws, int threads) const {
    const int64_t batch = plan_.batch;
    const int64_t by_work = std::max<int64_t>(1, plan_.dst.numel() / (1 << 14));
    const int team = static_cast<int>(
        std::min<int64_t>({threads, strategy_.slots, batch, by_work, scratch_slots_}));
    auto slices = [&](int tid, int nt) {
      unsigned char* slot = ws + static_cast<size_t>(tid) * slot_bytes_;
      const int64_t first = batch * tid / nt;
      const int64_t last = batch * (tid + 1) / nt;
      for (int64_t b0 = first; b0 < last; b0 += strategy_.block) {
        const int64_t nb = std::min(strategy_.block, last - b0);
        for (const CompiledStep<W>& s : steps_) {
          const void* in = s.step.in == core::Buffer::kSrc
                               ? static_cast<const unsigned char*>(src) + b0 * s.in_slice_bytes
                               : static_cast<const void*>(slot + slot_offset(s.step.in));
          void* out = s.step.out == core::Buffer::kDst
                          ? static_cast<unsigned char*>(dst) + b0 * s.out_slice_bytes
                          : static_cast<void*>(slot + slot_offset(s.step.out));
          s.fn(s.args, in, out, 0, s.items / batch * nb, scratch(ws, tid));
        }
      }
    };
    if (team <= 1) return slices(0, 1);
#pragma omp parallel num_threads(team)
    slices(omp_get_thread_num(), omp_get_num_threads());
  }

  size_t slot_offset(core::Buffer b) const {
    return b == core::Buffer::kRegion1 ? slot_region_offset_[1] : slot_region_offset_[0];
  }

  core::Plan<W> plan_;
  std::vector<std::unique_ptr<PassTable<W>>> tables_;
  std::vector<CompiledStep<W>> steps_;
  Strategy strategy_;
  std::string target_;
  size_t region_offset_[2] = {0, 0};
  size_t workspace_bytes_ = 0;
  size_t slot_bytes_ = 0;
  size_t slot_region_offset_[2] = {0, 0};
  size_t scratch_offset_ = 0;
  size_t scratch_bytes_ = 0;
  int64_t scratch_slots_ = INT64_MAX;  // no scratch: no bound on the team
  int64_t held_bytes_ = 0;
};

}  // namespace

template <typename W>
int64_t compiled_table_bytes(const core::Plan<W>& plan) {
  const int64_t lanes = simd_kernels().lanes;
  int64_t bytes = 0;
  for (const core::Step& step : plan.steps) {
    if (step.kind != core::Step::Kind::kResample) continue;
    const PassChoice<W> choice = choose_pass_kernel(request_for(plan, step));
    bytes += kernel_table_bytes(choice, plan.axes[step.axis], lanes);
  }
  return bytes;
}

template <typename W>
std::unique_ptr<core::Executable> compile(core::Plan<W>&& plan) {
  return std::make_unique<Program<W>>(std::move(plan));
}

template int64_t compiled_table_bytes<float>(const core::Plan<float>&);
template int64_t compiled_table_bytes<double>(const core::Plan<double>&);
template std::unique_ptr<core::Executable> compile<float>(core::Plan<float>&&);
template std::unique_ptr<core::Executable> compile<double>(core::Plan<double>&&);

}  // namespace upsample::cpu
