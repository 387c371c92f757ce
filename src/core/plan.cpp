// build_plan's steps: choose_order -> build_axes -> order_backward_passes -> emit_steps ->
// layout_workspace (validation
// is core/validate.cpp; the tables themselves are built by build_tables once the caller has
// checked the memory they need).
//
// Layout: every tensor that is dense in some dimension order (NCHW, NHWC, NDHWC, any
// permutation) is viewed, for the pass on one axis, as [outer, len, inner] with inner = the
// axis stride. Passes run in the source's dimension order straight on the caller's buffers; a
// view that is not dense is first gathered into the workspace (and the result scattered into a
// non-dense destination), as CANN does with Contiguous/ViewCopy.
#include "core/plan.hpp"

#include <algorithm>
#include <numeric>
#include <sstream>

#include "core/checked.hpp"

namespace upsample::core {
namespace {

constexpr int64_t kAlign = 64;

// The memory order every step works in: the source's when it is dense, else the
// destination's, else the logical order.
DimOrder choose_order(const TensorDesc& src, const TensorDesc& dst) {
  DimOrder order = stride_order(src);
  if (dense_in_order(src, order)) return order;
  order = stride_order(dst);
  if (dense_in_order(dst, order)) return order;
  std::iota(order.begin(), order.begin() + src.rank, 0);
  return order;
}

// Exact length of the longest row of the transposed table (a histogram of the forward taps).
template <typename W>
int64_t transposed_max_taps(const AxisWeights<W>& weights) {
  std::vector<int64_t> count(static_cast<size_t>(weights.src_len()), 0);
  int64_t longest = 0;
  for (int64_t r = 0; r < weights.rows(); ++r) {
    weights.row(r, [&](int64_t index, W) { longest = std::max(longest, ++count[index]); });
  }
  return longest;
}

template <typename W>
int64_t forward_max_taps(const AxisWeights<W>& weights) {
  int64_t longest = 0;
  for (int64_t r = 0; r < weights.rows(); ++r) {
    int64_t first, last, count;
    weights.row_bounds(r, &first, &last, &count);
    longest = std::max(longest, count);
  }
  return longest;
}

// One Axis per spatial axis whose table is not the identity, in pass order: W, then H, then D -
// the order in which PyTorch accumulates (its tensor-product interpolation nests W innermost;
// its separable antialias resamples W first), so float32 intermediates round as PyTorch's do.
// Doing a shrinking axis first would be cheaper for downsampling, but changes that rounding.
template <typename W>
Status build_axes(const PlanLimits& limits, Plan<W>* p) {
  const OpDesc& op = p->op;
  const bool forward = op.direction == Direction::kForward;
  // The geometry is defined on (input, output) = forward (src, dst) or backward (dst, src).
  const TensorDesc& input = forward ? p->src : p->dst;
  const TensorDesc& output = forward ? p->dst : p->src;
  for (int a = op.spatial_rank - 1; a >= 0; --a) {
    const int dim = 2 + a;
    const AxisSpec spec{op.mode,           op.antialias, op.align_corners, input.sizes[dim],
                        output.sizes[dim], op.scales[a], !forward};
    Axis<W> axis(spec);
    if (axis.weights.rows_are_identity()) continue;  // Note [identity axes]
    axis.dim = dim;
    axis.transposed = !forward;
    axis.rows = forward ? spec.out_len : spec.in_len;
    axis.src_len = forward ? spec.in_len : spec.out_len;
    axis.total_taps = axis.weights.total_taps();
    // (A transposed table of single unit taps would be a bijection, i.e. the identity.)
    axis.unit_taps = forward && axis.weights.rows_are_unit();
    // Bytes of the materialised table; a backward table is built forward, then transposed
    // (with a cursor per row), and only the transpose is kept.
    const CheckedInt64 kept =
        CheckedInt64(table_bytes<W>(axis.rows, 0)) +
        CheckedInt64(axis.total_taps) * static_cast<int64_t>(sizeof(int64_t) + sizeof(W));
    CheckedInt64 peak = kept;
    if (!forward) peak = peak * 2 + CheckedInt64(axis.rows) * static_cast<int64_t>(sizeof(int64_t));
    axis.materialized = peak.ok() && peak.value() <= limits.table_budget;
    if (axis.materialized) {
      axis.max_taps = forward ? forward_max_taps(axis.weights) : transposed_max_taps(axis.weights);
      p->table_bytes += kept.value();
      p->table_peak_bytes =
          std::max(p->table_peak_bytes, p->table_bytes + peak.value() - kept.value());
    } else {
      axis.max_taps = forward ? axis.weights.max_taps_bound() : axis.src_len;
    }
    p->axes.push_back(std::move(axis));
  }
  return Status::Ok();
}

// Backward passes in the order whose largest intermediate is smallest (ties keep W, H, D).
// PyTorch's backward kernels add products w_y * w_x * g straight into grad_input, so no pass
// order reproduces their rounding; the order only decides the workspace - for a gradient of
// 2^31 rows flowing into 2, H first keeps a 2-row intermediate instead of a 2^31-row one.
template <typename W>
void order_backward_passes(Plan<W>* p) {
  if (p->op.direction != Direction::kBackward || p->axes.size() < 2) return;
  std::vector<size_t> order(p->axes.size()), best;
  std::iota(order.begin(), order.end(), size_t{0});
  double best_peak = -1.0;
  do {
    std::array<double, kMaxRank> sizes{};
    for (int d = 0; d < p->src.rank; ++d) sizes[d] = static_cast<double>(p->src.sizes[d]);
    double peak = 0.0;
    for (size_t i = 0; i + 1 < order.size(); ++i) {
      const Axis<W>& axis = p->axes[order[i]];
      sizes[axis.dim] = static_cast<double>(axis.rows);
      double elements = 1.0;
      for (int d = 0; d < p->src.rank; ++d) elements *= sizes[d];
      peak = std::max(peak, elements);
    }
    if (best_peak < 0.0 || peak < best_peak) {
      best_peak = peak;
      best = order;
    }
  } while (std::next_permutation(order.begin(), order.end()));
  std::vector<Axis<W>> reordered;
  for (size_t i : best) reordered.push_back(std::move(p->axes[i]));
  p->axes = std::move(reordered);
}

CopyShape copy_shape(int rank, const DimOrder& order, const std::array<int64_t, kMaxRank>& sizes,
                     const int64_t* from_strides, const int64_t* to_strides, DType type) {
  CopyShape c;
  c.rank = rank;
  c.elem_size = dtype_size(type);
  for (int i = 0; i < rank; ++i) {  // in `order`, so the innermost loop is the dense one
    c.sizes[i] = sizes[order[i]];
    c.src_strides[i] = from_strides[order[i]];
    c.dst_strides[i] = to_strides[order[i]];
  }
  return c;
}

// The steps, their buffers and the bytes each workspace region must hold.
template <typename W>
Status emit_steps(Plan<W>* p) {
  const int rank = p->src.rank;
  const TensorDesc& src = p->src;
  const TensorDesc& dst = p->dst;
  const bool src_dense = dense_in_order(src, p->order);
  const bool dst_dense = dense_in_order(dst, p->order);
  std::array<int64_t, kMaxRank> cur = src.sizes;
  Buffer cur_buf = Buffer::kSrc;
  DType cur_type = src.dtype;
  int next_region = 0;
  Status overflow = Status::Ok();
  auto new_region = [&](DType type, const std::array<int64_t, kMaxRank>& sizes) {
    const int region = next_region;
    next_region ^= 1;
    CheckedInt64 bytes = static_cast<int64_t>(dtype_size(type));
    for (int d = 0; d < rank; ++d) bytes *= sizes[d];
    bytes = (bytes + (kAlign - 1));
    if (!bytes.ok()) {
      std::ostringstream why;
      why << "an intermediate tensor of " << src.to_string() << " -> " << dst.to_string()
          << " would hold more bytes than int64 can count";
      overflow = Status::Invalid(why.str());
    } else {
      p->region_bytes[region] = std::max(p->region_bytes[region], bytes.value() / kAlign * kAlign);
    }
    return region == 0 ? Buffer::kRegion0 : Buffer::kRegion1;
  };

  if (p->axes.empty()) {  // every axis is the identity: one strided copy, any layouts
    Step step;
    step.kind = Step::Kind::kCopy;
    step.copy = copy_shape(rank, p->order, cur, src.strides.data(), dst.strides.data(), src.dtype);
    step.in_type = step.out_type = src.dtype;
    p->steps.push_back(step);
    return Status::Ok();
  }
  if (!src_dense) {
    Step step;
    step.kind = Step::Kind::kCopy;
    step.copy = copy_shape(rank, p->order, cur, src.strides.data(),
                           dense_strides(cur, rank, p->order).data(), src.dtype);
    step.in_type = step.out_type = src.dtype;
    step.in = cur_buf;
    step.out = cur_buf = new_region(src.dtype, cur);
    p->steps.push_back(step);
  }
  for (size_t i = 0; i < p->axes.size(); ++i) {
    const Axis<W>& axis = p->axes[i];
    const bool last = i + 1 == p->axes.size();
    Step step;
    step.kind = Step::Kind::kResample;
    step.axis = static_cast<int>(i);
    const auto pos =
        std::find(p->order.begin(), p->order.begin() + rank, axis.dim) - p->order.begin();
    for (int k = 0; k < rank; ++k) {
      if (k < pos) step.shape.outer *= cur[p->order[k]];
      if (k > pos) step.shape.inner *= cur[p->order[k]];
    }
    step.shape.src_len = cur[axis.dim];
    step.shape.rows = axis.rows;
    std::array<int64_t, kMaxRank> next = cur;
    next[axis.dim] = axis.rows;
    // A unit-tap pass (nearest forward) moves values, so it keeps the storage type exactly;
    // other intermediates are in the accumulation type.
    step.in_type = cur_type;
    step.out_type = last ? dst.dtype : (axis.unit_taps ? cur_type : p->acc_type);
    step.in = cur_buf;
    step.out = last && dst_dense ? Buffer::kDst : new_region(step.out_type, next);
    p->steps.push_back(step);
    cur_buf = step.out;
    cur_type = step.out_type;
    cur = next;
  }
  if (!dst_dense) {
    Step step;
    step.kind = Step::Kind::kCopy;
    step.copy = copy_shape(rank, p->order, cur, dense_strides(cur, rank, p->order).data(),
                           dst.strides.data(), dst.dtype);
    step.in_type = step.out_type = dst.dtype;
    step.in = cur_buf;
    step.out = Buffer::kDst;
    p->steps.push_back(step);
  }
  return overflow;
}

// The leading dims in memory order before the first resampled one: independent slices.
template <typename W>
void layout_workspace(Plan<W>* p) {
  p->batch = 1;
  for (int k = 0; k < p->src.rank; ++k) {
    const int dim = p->order[k];
    const bool resampled = std::any_of(p->axes.begin(), p->axes.end(),
                                       [dim](const Axis<W>& a) { return a.dim == dim; });
    if (resampled) break;
    p->batch *= p->src.sizes[dim];
  }
}

}  // namespace

template <typename W>
Status plan_structure(const OpDesc& op, const TensorDesc& src, const TensorDesc& dst,
                      const PlanLimits& limits, Plan<W>* p) {
  p->op = op;
  p->src = src;
  p->dst = dst;
  p->acc_type = std::is_same_v<W, double> ? DType::kFloat64 : DType::kFloat32;
  p->empty = dst.numel() == 0;
  if (p->empty) return Status::Ok();
  p->order = choose_order(src, dst);
  if (Status st = build_axes(limits, p); !st.ok()) return st;
  order_backward_passes(p);
  if (Status st = emit_steps(p); !st.ok()) return st;
  layout_workspace(p);
  return Status::Ok();
}

template <typename W>
void build_tables(Plan<W>* p) {
  for (Axis<W>& axis : p->axes) {
    if (!axis.materialized) continue;
    axis.table = build_axis_table(axis.weights);
    if (axis.transposed) axis.table = transpose(axis.table);
  }
}

template Status plan_structure<float>(const OpDesc&, const TensorDesc&, const TensorDesc&,
                                      const PlanLimits&, Plan<float>*);
template Status plan_structure<double>(const OpDesc&, const TensorDesc&, const TensorDesc&,
                                       const PlanLimits&, Plan<double>*);
template void build_tables<float>(Plan<float>*);
template void build_tables<double>(Plan<double>*);

const char* buffer_name(Buffer b) {
  switch (b) {
    case Buffer::kSrc:
      return "src";
    case Buffer::kDst:
      return "dst";
    case Buffer::kRegion0:
      return "ws0";
    case Buffer::kRegion1:
      return "ws1";
  }
  return "?";
}

std::string describe_step(const Step& s) {
  std::ostringstream os;
  if (s.kind == Step::Kind::kCopy) {
    os << "copy " << dtype_name(s.in_type) << " [";
    for (int i = 0; i < s.copy.rank; ++i) os << (i ? "," : "") << s.copy.sizes[i];
    os << "]";
  } else {
    os << "resample outer " << s.shape.outer << " len " << s.shape.src_len << "->" << s.shape.rows
       << " inner " << s.shape.inner << " " << dtype_name(s.in_type) << "->"
       << dtype_name(s.out_type);
  }
  os << " [" << buffer_name(s.in) << " -> " << buffer_name(s.out) << "]";
  return os.str();
}

}  // namespace upsample::core
