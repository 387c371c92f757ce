// make_plan / execute: validation, layout canonicalisation, pass list and workspace layout.
//
// Layout: every tensor that is dense in some dimension order (NCHW, NHWC, NDHWC, any
// permutation) is viewed, for the pass on one axis, as [outer, len, inner] with inner = the
// axis stride. Passes run in the source's dimension order straight on the user's buffers;
// a view that is not dense is first gathered into the workspace (and the result scattered into
// a non-dense destination), as CANN does with Contiguous/ViewCopy.
// Pass order: the last spatial axis first (W, then H, then D), as PyTorch's separable kernels
// and its tensor-product interpolation accumulate; identity axes are skipped.
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <sstream>

#include "core/axis_table.hpp"
#include "core/plan_impl.hpp"
#include "cpu/kernels.hpp"

namespace upsample {
namespace {

constexpr size_t kAlign = 64;
constexpr int64_t kMaxInterleave = 8;
size_t align_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

std::string sizes_string(const TensorDesc& t) {
  std::ostringstream os;
  os << "[";
  for (int d = 0; d < t.rank; ++d) os << (d ? "," : "") << t.sizes[d];
  os << "]";
  return os.str();
}

// Dimensions ordered from the largest stride to the smallest (ties: logical order).
std::vector<int> stride_order(const TensorDesc& t) {
  std::vector<int> order(t.rank);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const int64_t sa = t.sizes[a] == 1 ? 0 : t.strides[a];
    const int64_t sb = t.sizes[b] == 1 ? 0 : t.strides[b];
    if (t.sizes[a] == 1 || t.sizes[b] == 1) return false;  // size-1 dims keep their place
    return sa > sb;
  });
  return order;
}

bool dense_in_order(const TensorDesc& t, const std::vector<int>& order) {
  int64_t expected = 1;
  for (int i = t.rank - 1; i >= 0; --i) {
    const int d = order[i];
    if (t.sizes[d] != 1 && t.strides[d] != expected) return false;
    expected *= t.sizes[d];
  }
  return true;
}

// Highest element offset reachable from element 0 minus the lowest: used to reject a
// destination whose elements overlap (two outputs at one address would race).
bool overlapping(const TensorDesc& t) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (|stride|, size)
  for (int d = 0; d < t.rank; ++d) {
    if (t.sizes[d] > 1) dims.emplace_back(std::llabs(t.strides[d]), t.sizes[d]);
  }
  std::sort(dims.begin(), dims.end());
  int64_t extent = 1;  // elements spanned by the dims seen so far
  for (auto [stride, size] : dims) {
    if (stride < extent) return true;
    extent = stride * (size - 1) + extent;
  }
  return false;
}

Status validate(const OpDesc& op, const TensorDesc& src, const TensorDesc& dst) {
  std::ostringstream why;
  if (op.spatial_rank < 1 || op.spatial_rank > 3) {
    why << "spatial_rank must be 1, 2 or 3, got " << op.spatial_rank;
    return Status::Invalid(why.str());
  }
  const int rank = op.spatial_rank + 2;
  if (src.rank != rank || dst.rank != rank) {
    why << "src and dst must have rank " << rank << " (N, C and " << op.spatial_rank
        << " spatial dims), got src rank " << src.rank << " and dst rank " << dst.rank;
    return Status::Invalid(why.str());
  }
  if (src.dtype != dst.dtype) {
    why << "src dtype " << dtype_name(src.dtype) << " differs from dst dtype "
        << dtype_name(dst.dtype);
    return Status::Invalid(why.str());
  }
  if (static_cast<int>(src.dtype) < 0 || static_cast<int>(src.dtype) > 5) {
    why << "unknown dtype " << static_cast<int>(src.dtype);
    return Status::Invalid(why.str());
  }
  if ((src.dtype == DType::kUInt8 || src.dtype == DType::kUInt16) &&
      op.direction == Direction::kBackward) {
    why << dtype_name(src.dtype) << " is supported for forward resampling only";
    return Status::Invalid(why.str());
  }
  if (static_cast<int>(op.mode) < 0 || static_cast<int>(op.mode) > 4) {
    why << "unknown mode " << static_cast<int>(op.mode);
    return Status::Invalid(why.str());
  }
  if (op.mode == Mode::kArea) {
    for (int a = 0; a < op.spatial_rank; ++a) {
      if (op.scales[a] != 0.0) {
        why << "area mode takes its ratio from the sizes: scales must be 0, got "
            << op.scales[a] << " for spatial axis " << a;
        return Status::Invalid(why.str());
      }
    }
  }
  const bool nearest = op.mode == Mode::kNearest || op.mode == Mode::kNearestExact ||
                       op.mode == Mode::kArea;
  if (nearest && op.align_corners) {
    return Status::Invalid(std::string("align_corners is only defined for linear and cubic ") +
                           "modes, not for " + mode_name(op.mode));
  }
  if (nearest && op.antialias) {
    return Status::Invalid(std::string("antialias is only defined for linear and cubic modes, "
                                       "not for ") +
                           mode_name(op.mode));
  }
  if (src.sizes[0] != dst.sizes[0] || src.sizes[1] != dst.sizes[1]) {
    why << "N and C of src " << sizes_string(src) << " and dst " << sizes_string(dst)
        << " must match";
    return Status::Invalid(why.str());
  }
  for (const TensorDesc* t : {&src, &dst}) {
    const char* name = t == &src ? "src" : "dst";
    for (int d = 0; d < rank; ++d) {
      const bool may_be_zero = d == 0;  // an empty batch is allowed; other dims are not
      if (t->sizes[d] < 0 || (t->sizes[d] == 0 && !may_be_zero)) {
        why << name << " dim " << d << " must be > 0" << (may_be_zero ? " or = 0" : "") << ", got "
            << name << " sizes " << sizes_string(*t);
        return Status::Invalid(why.str());
      }
    }
    int64_t numel = 1;
    for (int d = 0; d < rank; ++d) {
      if (t->sizes[d] != 0 && numel > INT64_MAX / t->sizes[d]) {
        why << name << " sizes " << sizes_string(*t) << " overflow int64 elements";
        return Status::Invalid(why.str());
      }
      numel *= t->sizes[d];
    }
  }
  for (int a = 0; a < op.spatial_rank; ++a) {
    if (std::isnan(op.scales[a]) || std::isinf(op.scales[a])) {
      why << "scale of spatial axis " << a << " must be finite, got " << op.scales[a];
      return Status::Invalid(why.str());
    }
  }
  if (dst.numel() > 1 && overlapping(dst)) {
    why << "dst strides make elements overlap: " << dst.to_string();
    return Status::Invalid(why.str());
  }
  return Status::Ok();
}

// Plane mode pays when there are several passes (so intermediates exist), the steps touch only
// dense user buffers, and one slice's intermediates are small enough to stay in cache.
void choose_plane_mode(const std::vector<int>& order, const std::vector<int>& pass_axes,
                       Plan::Impl* impl) {
  constexpr int64_t kMaxSliceScratch = 2 << 20;  // per region, one slice
  constexpr int64_t kBlockScratch = 256 << 10;   // target per region, one block
  if (pass_axes.size() < 2) return;
  int64_t batch = 1;
  for (int dim : order) {
    if (std::find(pass_axes.begin(), pass_axes.end(), dim) != pass_axes.end()) break;
    batch *= impl->src.sizes[dim];
  }
  if (batch < 2) return;
  int64_t region_bytes[2] = {0, 0};
  for (PlanStep& step : impl->steps) {
    if (step.kind == PlanStep::Kind::kStridedCopy) return;
    const int64_t in_bytes = step.shape.outer * step.shape.src_len * step.shape.inner *
                             static_cast<int64_t>(dtype_size(step.in_type));
    const int64_t out_bytes = step.shape.outer * step.shape.rows * step.shape.inner *
                              static_cast<int64_t>(dtype_size(step.out_type));
    step.in_batch_bytes = in_bytes / batch;
    step.out_batch_bytes = out_bytes / batch;
    if (step.out.kind == BufferRef::kRegion) {
      region_bytes[step.out.region] = std::max(region_bytes[step.out.region], step.out_batch_bytes);
    }
  }
  const int64_t slice = std::max(region_bytes[0], region_bytes[1]);
  if (slice > kMaxSliceScratch) return;
  impl->plane_mode = true;
  impl->batch = batch;
  impl->block = std::clamp<int64_t>(kBlockScratch / std::max<int64_t>(slice, 1), 1, batch);
  impl->slots = std::clamp(default_num_threads(), 1, 64);
  impl->slot_region_offset[0] = 0;
  impl->slot_region_offset[1] = align_up(static_cast<size_t>(region_bytes[0] * impl->block));
  impl->slot_bytes =
      impl->slot_region_offset[1] + align_up(static_cast<size_t>(region_bytes[1] * impl->block));
  // Tensor mode stays available (execute() picks per call), so the workspace covers both.
  impl->workspace_bytes =
      std::max(impl->workspace_bytes, impl->slot_bytes * static_cast<size_t>(impl->slots));
}

// Runs items [begin, end) of one step with the given buffer addresses.
void run_step(const Plan::Impl& p, const PlanStep& step, const void* in, void* out, int64_t begin,
              int64_t end) {
  switch (step.kind) {
    case PlanStep::Kind::kStridedCopy:
      cpu::run_strided_copy(step.copy, in, out, begin, end);
      break;
    case PlanStep::Kind::kConvert:
      cpu::run_convert(step.in_type, in, step.out_type, out, begin, end);
      break;
    case PlanStep::Kind::kGatherCopy:
      if (p.acc_type == DType::kFloat64) {
        cpu::run_gather_copy(step.shape, p.tables_f64[step.table].table.index.data(),
                             dtype_size(step.in_type), in, out, begin, end);
      } else {
        cpu::run_gather_copy(step.shape, p.tables_f32[step.table].table.index.data(),
                             dtype_size(step.in_type), in, out, begin, end);
      }
      break;
    case PlanStep::Kind::kPass:
      if (p.acc_type == DType::kFloat64) {
        cpu::run_pass(step.shape, p.tables_f64[step.table], step.in_type, in, step.out_type, out,
                      begin, end);
      } else {
        cpu::run_pass(step.shape, p.tables_f32[step.table], step.in_type, in, step.out_type, out,
                      begin, end);
      }
      break;
  }
}

// Plane mode: each thread takes a contiguous range of slices and runs every step on blocks of
// them. A slice's result does not depend on how slices are grouped into blocks or threads.
void execute_planes(const Plan::Impl& p, const void* src, void* dst, unsigned char* ws,
                    int threads) {
  const int64_t by_work = std::max<int64_t>(1, p.dst.numel() / (1 << 14));
  const int team = static_cast<int>(std::min<int64_t>({threads, p.slots, p.batch, by_work}));
#pragma omp parallel num_threads(team) if (team > 1)
  {
    const int nt = omp_get_num_threads();
    const int tid = omp_get_thread_num();
    unsigned char* slot = ws + static_cast<size_t>(tid) * p.slot_bytes;
    const int64_t first = p.batch * tid / nt;
    const int64_t last = p.batch * (tid + 1) / nt;
    for (int64_t b0 = first; b0 < last; b0 += p.block) {
      const int64_t nb = std::min(p.block, last - b0);
      for (const PlanStep& step : p.steps) {
        const void* in =
            step.in.kind == BufferRef::kUserSrc
                ? static_cast<const unsigned char*>(src) + b0 * step.in_batch_bytes
                : static_cast<const void*>(slot + p.slot_region_offset[step.in.region]);
        void* out = step.out.kind == BufferRef::kUserDst
                        ? static_cast<unsigned char*>(dst) + b0 * step.out_batch_bytes
                        : static_cast<void*>(slot + p.slot_region_offset[step.out.region]);
        run_step(p, step, in, out, 0, cpu::pass_items(step.shape) / p.batch * nb);
      }
    }
  }
}

}  // namespace

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::kNearest:
      return "nearest";
    case Mode::kNearestExact:
      return "nearest-exact";
    case Mode::kLinear:
      return "linear";
    case Mode::kCubic:
      return "cubic";
    case Mode::kArea:
      return "area";
  }
  return "?";
}

int default_num_threads() {
  if (const char* env = std::getenv("UPSAMPLE_NUM_THREADS")) {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && n > 0) return static_cast<int>(std::min(n, 1024L));
  }
  return std::max(1, omp_get_num_procs());
}

Plan::Plan() = default;
Plan::~Plan() = default;
Plan::Plan(const Plan&) = default;
Plan& Plan::operator=(const Plan&) = default;
Plan::Plan(Plan&&) noexcept = default;
Plan& Plan::operator=(Plan&&) noexcept = default;

size_t Plan::workspace_bytes() const { return impl_ ? impl_->workspace_bytes : 0; }
bool Plan::empty() const { return impl_ == nullptr || impl_->empty; }

std::string Plan::describe() const {
  if (!impl_) return "invalid plan";
  const Impl& p = *impl_;
  std::ostringstream os;
  os << mode_name(p.op.mode) << (p.op.antialias ? "+aa" : "")
     << (p.op.direction == Direction::kForward ? " forward " : " backward ") << p.src.to_string()
     << " -> " << p.dst.to_string() << " acc " << dtype_name(p.acc_type) << " workspace "
     << p.workspace_bytes << "B simd " << cpu::simd_target_name();
  for (const auto& s : p.steps) {
    os << "\n  ";
    switch (s.kind) {
      case PlanStep::Kind::kPass:
      case PlanStep::Kind::kGatherCopy:
        os << (s.kind == PlanStep::Kind::kPass ? "pass" : "gather") << " axis " << s.axis
           << (s.shape.inner == 1 ? " horizontal" : " vertical") << " outer " << s.shape.outer
           << " len " << s.shape.src_len << "->" << s.shape.rows << " inner " << s.shape.inner
           << " taps<=" << s.max_taps << " " << dtype_name(s.in_type) << "->"
           << dtype_name(s.out_type);
        break;
      case PlanStep::Kind::kStridedCopy:
        os << "strided copy " << dtype_name(s.in_type);
        break;
      case PlanStep::Kind::kConvert:
        os << "convert " << s.shape.outer << " elements " << dtype_name(s.in_type) << "->"
           << dtype_name(s.out_type);
        break;
    }
    os << " [" << (s.in.kind == BufferRef::kUserSrc ? "src" : "ws") << " -> "
       << (s.out.kind == BufferRef::kUserDst ? "dst" : "ws") << "]";
  }
  return os.str();
}

Status build_plan(const OpDesc& op, const TensorDesc& src, const TensorDesc& dst,
                  std::shared_ptr<Plan::Impl>* plan);

namespace {

// Tables cost O(out_len * taps) per axis. An axis of billions of elements (legal, and int64-safe
// everywhere) can need more memory than the machine has: refuse with a clear message rather than
// let the allocation fail or the process be killed.
Status check_table_memory(const OpDesc& op, const TensorDesc& src, const TensorDesc& dst) {
  const bool forward = op.direction == Direction::kForward;
  const TensorDesc& input = forward ? src : dst;
  const TensorDesc& output = forward ? dst : src;
  double bytes = 0;
  for (int a = 0; a < op.spatial_rank; ++a) {
    const double in_len = static_cast<double>(input.sizes[2 + a]);
    const double out_len = static_cast<double>(output.sizes[2 + a]);
    double taps = op.mode == Mode::kCubic ? 4 : op.mode == Mode::kLinear ? 2 : 1;
    if (op.mode == Mode::kArea) taps = std::ceil(in_len / out_len) + 1;
    if (op.antialias) taps = 2 * std::ceil(taps / 2 * std::max(1.0, in_len / out_len)) + 1;
    // Index (8 B) + weight (<= 8 B) per entry; a transposed copy for backward; padded copies.
    bytes += out_len * taps * 16 * (forward ? 1.5 : 2.5) + (in_len + out_len) * 8;
  }
  const double physical =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  if (physical > 0 && bytes > physical / 2) {
    std::ostringstream why;
    why << "the weight tables for " << input.to_string() << " -> " << output.to_string()
        << " would need about " << bytes / (1 << 30) << " GiB, more than half of this machine's "
        << physical / (1 << 30) << " GiB";
    return Status::Invalid(why.str());
  }
  return Status::Ok();
}

}  // namespace

Status make_plan(const OpDesc& op, const TensorDesc& src, const TensorDesc& dst, Plan* plan) {
  if (plan == nullptr) return Status::NullPointer("make_plan: plan is null");
  if (Status st = validate(op, src, dst); !st.ok()) return st;
  if (Status st = check_table_memory(op, src, dst); !st.ok()) return st;
  try {
    std::shared_ptr<Plan::Impl> impl;
    Status st = build_plan(op, src, dst, &impl);
    if (st.ok()) plan->impl_ = std::move(impl);
    return st;
  } catch (const std::bad_alloc&) {
    return Status::Internal("out of memory while building the plan for " + src.to_string() +
                            " -> " + dst.to_string());
  }
}

Status build_plan(const OpDesc& op, const TensorDesc& src, const TensorDesc& dst,
                  std::shared_ptr<Plan::Impl>* plan) {
  auto impl = std::make_shared<Plan::Impl>();
  impl->op = op;
  impl->src = src;
  impl->dst = dst;
  impl->acc_type = src.dtype == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
  impl->empty = dst.numel() == 0;
  if (impl->empty) {
    *plan = std::move(impl);
    return Status::Ok();
  }

  const int rank = src.rank;
  const bool forward = op.direction == Direction::kForward;
  // The geometry is defined on (input, output) = forward (src, dst) or backward (dst, src).
  const TensorDesc& input = forward ? src : dst;
  const TensorDesc& output = forward ? dst : src;

  std::vector<int> order = stride_order(src);
  if (!dense_in_order(src, order)) {
    order = stride_order(dst);
    if (!dense_in_order(dst, order)) {
      order.resize(rank);
      std::iota(order.begin(), order.end(), 0);
    }
  }
  const bool src_dense = dense_in_order(src, order);
  const bool dst_dense = dense_in_order(dst, order);

  std::array<int64_t, kMaxRank> cur = src.sizes;
  BufferRef cur_ref{BufferRef::kUserSrc, -1};
  DType cur_type = src.dtype;
  int next_region = 0;
  int64_t region_elems_bytes[2] = {0, 0};
  auto new_region = [&](DType type, const std::array<int64_t, kMaxRank>& sizes) {
    const int region = next_region;
    next_region ^= 1;
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= sizes[d];
    region_elems_bytes[region] =
        std::max<int64_t>(region_elems_bytes[region], n * static_cast<int64_t>(dtype_size(type)));
    return BufferRef{BufferRef::kRegion, region};
  };
  auto dense_copy = [&](const std::array<int64_t, kMaxRank>& sizes, const int64_t* from_strides,
                        const int64_t* to_strides, DType type) {
    PlanStep step;
    step.kind = PlanStep::Kind::kStridedCopy;
    step.in_type = step.out_type = type;
    step.copy.rank = rank;
    step.copy.elem_size = dtype_size(type);
    for (int i = 0; i < rank; ++i) {  // in `order`, so the innermost loop is the dense one
      step.copy.sizes[i] = sizes[order[i]];
      step.copy.src_strides[i] = from_strides[order[i]];
      step.copy.dst_strides[i] = to_strides[order[i]];
    }
    return step;
  };
  auto dense_strides = [&](const std::array<int64_t, kMaxRank>& sizes) {
    std::array<int64_t, kMaxRank> strides{};
    int64_t s = 1;
    for (int i = rank - 1; i >= 0; --i) {
      strides[order[i]] = s;
      s *= sizes[order[i]];
    }
    return strides;
  };

  auto needs_float32_copy = [](DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; };
  auto convert_step = [&](BufferRef in, DType from, BufferRef out, DType to,
                          const std::array<int64_t, kMaxRank>& sizes) {
    PlanStep step;
    step.kind = PlanStep::Kind::kConvert;
    step.in = in;
    step.out = out;
    step.in_type = from;
    step.out_type = to;
    step.shape.outer = 1;  // elementwise: one row of numel elements
    for (int d = 0; d < rank; ++d) step.shape.outer *= sizes[d];
    return step;
  };

  // Tables, one per spatial axis (transposed for backward).
  std::vector<int> pass_axes;
  // Built here, turned into kernel-ready PassTables once each pass's shape is known.
  const bool f64 = impl->acc_type == DType::kFloat64;
  std::vector<AxisTable<float>> tables_f32(rank);
  std::vector<AxisTable<double>> tables_f64(rank);
  for (int a = op.spatial_rank - 1; a >= 0; --a) {
    const int dim = 2 + a;
    const AxisSpec spec{op.mode,           op.antialias, op.align_corners, input.sizes[dim],
                        output.sizes[dim], op.scales[a], !forward};
    bool identity = false;
    if (f64) {
      AxisTable<double>& t = tables_f64[dim] = build_axis_table<double>(spec);
      if (!forward) t = transpose(t);
      identity = t.identity;
    } else {
      AxisTable<float>& t = tables_f32[dim] = build_axis_table<float>(spec);
      if (!forward) t = transpose(t);
      identity = t.identity;
    }
    if (!identity) pass_axes.push_back(dim);
  }
  // Pass order: W, then H, then D - the order in which PyTorch accumulates (its tensor-product
  // interpolation nests W innermost; its separable antialias resamples W first), so float32
  // intermediates round as PyTorch's do. Doing a shrinking axis first would be cheaper for
  // downsampling, but changes that rounding (measurably, under cancellation).

  if (pass_axes.empty()) {
    // Every axis is the identity: one strided copy (handles any layout on both sides).
    PlanStep step = dense_copy(cur, src.strides.data(), dst.strides.data(), src.dtype);
    step.in = {BufferRef::kUserSrc, -1};
    step.out = {BufferRef::kUserDst, -1};
    impl->steps.push_back(step);
  } else {
    if (!src_dense) {
      const BufferRef region = new_region(src.dtype, cur);
      PlanStep step = dense_copy(cur, src.strides.data(), dense_strides(cur).data(), src.dtype);
      step.in = cur_ref;
      step.out = region;
      impl->steps.push_back(step);
      cur_ref = region;
    }
    for (size_t p = 0; p < pass_axes.size(); ++p) {
      const int dim = pass_axes[p];
      const bool last = p + 1 == pass_axes.size();
      const int64_t rows = f64 ? tables_f64[dim].rows : tables_f32[dim].rows;
      const bool unit = f64 ? tables_f64[dim].unit_taps : tables_f32[dim].unit_taps;
      PlanStep step;
      step.axis = dim;
      step.max_taps = f64 ? tables_f64[dim].max_taps() : tables_f32[dim].max_taps();
      const auto pos = std::find(order.begin(), order.end(), dim) - order.begin();
      step.shape.outer = 1;
      step.shape.inner = 1;
      for (int i = 0; i < rank; ++i) {
        if (i < pos) step.shape.outer *= cur[order[i]];
        if (i > pos) step.shape.inner *= cur[order[i]];
      }
      step.shape.src_len = cur[dim];
      step.shape.rows = rows;
      // Few contiguous elements per tap (channels-last rows of 2-8 channels): run the pass as
      // one unit-stride row over the flattened (position, channel) pairs, which the vector
      // horizontal kernel handles; the interleaved table gives the same bits.
      if (!f64 && step.shape.inner > 1 && step.shape.inner <= kMaxInterleave) {
        tables_f32[dim] = interleave(tables_f32[dim], step.shape.inner);
        step.shape.src_len *= step.shape.inner;
        step.shape.rows *= step.shape.inner;
        step.shape.inner = 1;
      }
      if (f64) {
        step.table = static_cast<int>(impl->tables_f64.size());
        impl->tables_f64.emplace_back(std::move(tables_f64[dim]));
      } else {
        step.table = static_cast<int>(impl->tables_f32.size());
        impl->tables_f32.emplace_back(std::move(tables_f32[dim]));
      }
      std::array<int64_t, kMaxRank> next = cur;
      next[dim] = rows;
      // A unit-tap pass (nearest forward) moves values, so it keeps the storage type exactly.
      const DType out_type = last ? dst.dtype : (unit ? cur_type : impl->acc_type);
      step.kind =
          unit && cur_type == out_type ? PlanStep::Kind::kGatherCopy : PlanStep::Kind::kPass;
      // float16 / bfloat16 arithmetic passes run on float32 copies (vectorised conversions on
      // both sides): the same values as converting per element, at SIMD speed.
      if (step.kind == PlanStep::Kind::kPass && needs_float32_copy(cur_type)) {
        const BufferRef region = new_region(DType::kFloat32, cur);
        impl->steps.push_back(convert_step(cur_ref, cur_type, region, DType::kFloat32, cur));
        cur_ref = region;
        cur_type = DType::kFloat32;
      }
      const bool convert_out = step.kind == PlanStep::Kind::kPass && needs_float32_copy(out_type);
      step.in_type = cur_type;
      step.out_type = convert_out ? DType::kFloat32 : out_type;
      step.in = cur_ref;
      step.out = last && dst_dense && !convert_out ? BufferRef{BufferRef::kUserDst, -1}
                                                   : new_region(step.out_type, next);
      impl->steps.push_back(step);
      cur_ref = step.out;
      cur_type = step.out_type;
      cur = next;
      if (convert_out) {
        const BufferRef target =
            last && dst_dense ? BufferRef{BufferRef::kUserDst, -1} : new_region(out_type, next);
        impl->steps.push_back(convert_step(cur_ref, cur_type, target, out_type, cur));
        cur_ref = target;
        cur_type = out_type;
      }
    }
    if (!dst_dense) {
      PlanStep step = dense_copy(cur, dense_strides(cur).data(), dst.strides.data(), dst.dtype);
      step.in = cur_ref;
      step.out = {BufferRef::kUserDst, -1};
      impl->steps.push_back(step);
    }
  }
  impl->region_offset[0] = 0;
  impl->region_offset[1] = align_up(static_cast<size_t>(region_elems_bytes[0]));
  impl->workspace_bytes =
      impl->region_offset[1] + align_up(static_cast<size_t>(region_elems_bytes[1]));
  choose_plane_mode(order, pass_axes, impl.get());
  *plan = std::move(impl);
  return Status::Ok();
}

Status execute(const Plan& plan, const void* src, void* dst, void* workspace,
               size_t workspace_bytes, const ExecContext& ctx) {
  const Plan::Impl* p = plan.impl();
  if (p == nullptr) return Status::Invalid("execute: the plan is not valid (make_plan failed?)");
  if (p->empty) return Status::Ok();
  if (src == nullptr) return Status::NullPointer("execute: src is null");
  if (dst == nullptr) return Status::NullPointer("execute: dst is null");
  if (p->workspace_bytes > 0 && (workspace == nullptr || workspace_bytes < p->workspace_bytes)) {
    std::ostringstream why;
    why << "execute: the plan needs a workspace of " << p->workspace_bytes << " bytes, got "
        << (workspace == nullptr ? 0 : workspace_bytes) << (workspace == nullptr ? " (null)" : "");
    return Status::Invalid(why.str());
  }
  const int threads = ctx.num_threads > 0 ? ctx.num_threads : default_num_threads();
  auto* ws = static_cast<unsigned char*>(workspace);
  // Plane mode unless the slices would split unevenly between threads (e.g. 3 slices on 2
  // threads): then every pass is split by rows instead. Both give the same bits.
  if (p->plane_mode) {
    const int64_t team = std::min<int64_t>({threads, p->slots, p->batch});
    if (p->batch % team == 0 || p->batch >= 4 * team) {
      execute_planes(*p, src, dst, ws, threads);
      return Status::Ok();
    }
  }
  auto resolve_in = [&](const BufferRef& r) -> const void* {
    if (r.kind == BufferRef::kUserSrc) return src;
    return ws + p->region_offset[r.region];
  };
  auto resolve_out = [&](const BufferRef& r) -> void* {
    if (r.kind == BufferRef::kUserDst) return dst;
    return ws + p->region_offset[r.region];
  };
  for (const PlanStep& step : p->steps) {
    const void* in = resolve_in(step.in);
    void* out = resolve_out(step.out);
    int64_t items = 0;
    int64_t work = 0;  // elements written, to keep small steps on one thread
    if (step.kind == PlanStep::Kind::kStridedCopy) {
      items = cpu::strided_copy_items(step.copy);
      work = items * step.copy.sizes[step.copy.rank - 1];
    } else {
      items = cpu::pass_items(step.shape);
      work = step.shape.outer * step.shape.rows * step.shape.inner *
             std::max<int64_t>(1, step.max_taps);
    }
    const int64_t by_work = std::max<int64_t>(1, work / (1 << 14));
    const int team = static_cast<int>(std::min<int64_t>({threads, items, by_work}));
    // Static contiguous chunks; each item is computed entirely by one thread with the table's
    // fixed summation order, so the result does not depend on `team`.
#pragma omp parallel num_threads(team) if (team > 1)
    {
      const int nt = omp_get_num_threads();
      const int tid = omp_get_thread_num();
      const int64_t begin = items * tid / nt;
      const int64_t end = items * (tid + 1) / nt;
      if (begin < end) run_step(*p, step, in, out, begin, end);
    }
  }
  return Status::Ok();
}

}  // namespace upsample
