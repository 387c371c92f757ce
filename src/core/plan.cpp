// plan_structure()'s steps: choose_order -> build_axes -> order_backward_passes ->
// count_table_memory -> StepEmitter (steps and workspace regions) -> find_batch. Validation is
// core/validate.cpp; the tables themselves are built by build_tables() once the caller has
// checked the memory they need.
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
// destination's, else the logical order; with premultiplied alpha the channels-last order
// (N, spatial..., C), whatever the strides of size-1 dims say.
DimOrder choose_order(const OpDesc& op, const TensorDesc& src, const TensorDesc& dst) {
  DimOrder order{};
  if (op.premultiplied_alpha) {
    order[0] = 0;
    for (int d = 2; d < src.rank; ++d) order[d - 1] = d;
    order[src.rank - 1] = 1;
    return order;
  }
  order = stride_order(src);
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
void build_axes(const PlanLimits& limits, Plan<W>* p) {
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
    bool counted = false;
    axis.total_taps = axis.weights.total_taps(&counted);
    // (A transposed table of single unit taps would be a bijection, i.e. the identity.)
    axis.unit_taps = forward && axis.weights.rows_are_unit();
    // The table is built forward (weights.rows() rows); a backward table is then transposed
    // (the transpose and a cursor per row are allocated while the forward table lives) and only
    // the transpose is kept. A table whose taps were not counted (more rows than phase 1 visits:
    // over 128 MiB of row offsets alone) is streamed.
    const int64_t built = table_bytes<W>(axis.weights.rows(), axis.total_taps);
    axis.kept_bytes = table_bytes<W>(axis.rows, axis.total_taps);
    axis.build_peak_bytes =
        forward ? built
                : saturating_add(saturating_add(built, axis.kept_bytes),
                                 saturating_mul(axis.rows, int64_t{sizeof(int64_t)}));
    axis.materialized = counted && axis.build_peak_bytes <= limits.table_budget;
    if (axis.materialized) {
      axis.max_taps = forward ? forward_max_taps(axis.weights) : transposed_max_taps(axis.weights);
    } else {
      axis.max_taps = forward ? axis.weights.max_taps_bound() : axis.src_len;
    }
    p->axes.push_back(std::move(axis));
  }
}

// Phase-1 memory of the materialised tables, in the order build_tables() builds them: what is
// kept, and the peak while building (earlier tables kept, plus one table's build peak).
template <typename W>
void count_table_memory(Plan<W>* p) {
  p->table_bytes = 0;
  p->table_peak_bytes = 0;
  for (const Axis<W>& axis : p->axes) {
    if (!axis.materialized) continue;
    p->table_peak_bytes =
        std::max(p->table_peak_bytes, saturating_add(p->table_bytes, axis.build_peak_bytes));
    p->table_bytes = saturating_add(p->table_bytes, axis.kept_bytes);
  }
}

// Backward passes in the order whose largest intermediate is smallest; among those:
//   - W first when the advisor (the backend) says so for W's axis (InnerFirstQuestion);
//   - else the one whose pass over the innermost logical axis (W) writes the fewest elements
//     (that pass is the horizontal kernel in the default dense layout, costlier per element than
//     a vertical one for few taps: W2's gradient shrinks in H first, then W runs on half the
//     rows);
//   - then W, H, D.
// PyTorch's backward kernels add products w_y * w_x * g straight into grad_input, so no pass
// order reproduces their rounding; the order decides the work and the workspace - for a gradient
// of 2^31 rows flowing into 2, H first keeps a 2-row intermediate instead of a 2^31-row one. The
// order depends on the logical sizes and tables alone, never on strides, so every layout rounds
// alike.
template <typename W>
void order_backward_passes(const OrderAdvisor* advisor, Plan<W>* p) {
  if (p->op.direction != Direction::kBackward || p->axes.size() < 2) return;
  std::vector<size_t> order(p->axes.size()), best;
  std::iota(order.begin(), order.end(), size_t{0});
  const int innermost = p->src.rank - 1;
  bool inner_first = false;
  for (const Axis<W>& axis : p->axes) {
    if (advisor == nullptr) break;
    if (axis.dim != innermost) continue;
    InnerFirstQuestion question;
    question.spatial_rank = p->op.spatial_rank;
    question.passes = static_cast<int>(p->axes.size());
    question.inner = axis.weights.spec();
    question.inner_rows = axis.rows;
    question.inner_taps = axis.total_taps;
    inner_first = advisor->backward_inner_first(question);
    break;
  }
  double best_peak = -1.0, best_inner_pass = 0.0;
  int best_rank = 0;  // 1: W is not first although the advisor asked for it
  do {
    std::array<double, kMaxRank> sizes{};
    for (int d = 0; d < p->src.rank; ++d) sizes[d] = static_cast<double>(p->src.sizes[d]);
    double peak = 0.0, inner_pass = 0.0;
    for (size_t i = 0; i < order.size(); ++i) {
      const Axis<W>& axis = p->axes[order[i]];
      sizes[axis.dim] = static_cast<double>(axis.rows);
      double elements = 1.0;
      for (int d = 0; d < p->src.rank; ++d) elements *= sizes[d];
      if (i + 1 < order.size()) peak = std::max(peak, elements);
      if (axis.dim == innermost) inner_pass = elements;
    }
    const int rank = inner_first && p->axes[order[0]].dim != innermost ? 1 : 0;
    if (best_peak < 0.0 || peak < best_peak ||
        (peak == best_peak &&
         (rank < best_rank || (rank == best_rank && inner_pass < best_inner_pass)))) {
      best_peak = peak;
      best_rank = rank;
      best_inner_pass = inner_pass;
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

// The steps and their buffers: a gather of a non-dense src into the workspace, one resample step
// per axis, a scatter into a non-dense dst. Intermediates alternate between the two workspace
// regions; every element count and byte count is checked, and the first that does not fit int64
// ends the plan with a message.
template <typename W>
class StepEmitter {
 public:
  explicit StepEmitter(Plan<W>* p)
      : p_(p), cur_(p->src.sizes), cur_type_(p->src.dtype), rank_(p->src.rank) {}

  Status emit() {
    const TensorDesc& src = p_->src;
    const TensorDesc& dst = p_->dst;
    if (p_->axes.empty()) {  // every axis is the identity: one strided copy, any layouts
      p_->steps.push_back(copy_step(src.strides.data(), dst.strides.data(), src.dtype));
      return Status::Ok();
    }
    if (!dense_in_order(src, p_->order)) {
      Step step =
          copy_step(src.strides.data(), dense_strides(cur_, rank_, p_->order).data(), src.dtype);
      step.in = cur_buf_;
      if (Status st = new_region(src.dtype, cur_, &step.out); !st.ok()) return st;
      cur_buf_ = step.out;
      p_->steps.push_back(step);
    }
    const bool dst_dense = dense_in_order(dst, p_->order);
    for (size_t i = 0; i < p_->axes.size(); ++i) {
      if (Status st = emit_resample(i, i + 1 == p_->axes.size() && dst_dense); !st.ok()) return st;
    }
    if (!dst_dense) {
      Step step =
          copy_step(dense_strides(cur_, rank_, p_->order).data(), dst.strides.data(), dst.dtype);
      step.in = cur_buf_;
      step.out = Buffer::kDst;
      p_->steps.push_back(step);
    }
    return p_->op.premultiplied_alpha ? mark_alpha_steps() : Status::Ok();
  }

 private:
  using Sizes = std::array<int64_t, kMaxRank>;

  Step copy_step(const int64_t* from_strides, const int64_t* to_strides, DType type) const {
    Step step;
    step.kind = Step::Kind::kCopy;
    step.copy = copy_shape(rank_, p_->order, cur_, from_strides, to_strides, type);
    step.in_type = step.out_type = type;
    return step;
  }

  // The resample step of axis i, from the current tensor into the next one (`into_dst`: the last
  // step writes the caller's dst directly).
  Status emit_resample(size_t i, bool into_dst) {
    const Axis<W>& axis = p_->axes[i];
    const bool last = i + 1 == p_->axes.size();
    Sizes next = cur_;
    next[axis.dim] = axis.rows;
    Step step;
    step.kind = Step::Kind::kResample;
    step.axis = static_cast<int>(i);
    // A unit-tap pass (nearest forward) moves values, so it keeps the storage type exactly;
    // other intermediates are in the accumulation type.
    step.in_type = cur_type_;
    step.out_type = last ? p_->dst.dtype : (axis.unit_taps ? cur_type_ : p_->acc_type);
    step.in = cur_buf_;
    if (into_dst) {
      step.out = Buffer::kDst;
    } else if (Status st = new_region(step.out_type, next, &step.out); !st.ok()) {
      return st;
    }
    // Both tensors' element counts fit int64 (src and dst validated, intermediates checked by
    // new_region), so these partial products do too.
    const auto pos =
        std::find(p_->order.begin(), p_->order.begin() + rank_, axis.dim) - p_->order.begin();
    for (int k = 0; k < rank_; ++k) {
      if (k < pos) step.shape.outer *= cur_[p_->order[k]];
      if (k > pos) step.shape.inner *= cur_[p_->order[k]];
    }
    step.shape.src_len = cur_[axis.dim];
    step.shape.rows = axis.rows;
    p_->steps.push_back(step);
    cur_buf_ = step.out;
    cur_type_ = step.out_type;
    cur_ = next;
    return Status::Ok();
  }

  // Premultiplied alpha: the first step with arithmetic multiplies colour by alpha at its
  // loads, the last divides by the resampled alpha at its stores (unit-tap steps move the values
  // in between unchanged). Every step must see pixels as runs of C elements: dense tensors
  // with the channel dim innermost, no layout copies.
  Status mark_alpha_steps() {
    const int64_t channels = p_->src.sizes[1];
    const bool channel_inner = p_->order[rank_ - 1] == 1;
    for (const Step& step : p_->steps) {
      if (step.kind == Step::Kind::kCopy || !channel_inner) {
        std::ostringstream why;
        why << "premultiplied_alpha needs src and dst dense in one channels-last order, got src "
            << p_->src.to_string() << " and dst " << p_->dst.to_string();
        return Status::Invalid(why.str());
      }
    }
    Step* first = nullptr;
    Step* last = nullptr;
    for (Step& step : p_->steps) {
      if (p_->axes[step.axis].unit_taps) continue;
      if (first == nullptr) first = &step;
      last = &step;
    }
    if (first == nullptr) return Status::Ok();  // only moved values: nothing to weigh
    first->premultiply = true;
    last->unpremultiply = true;
    for (Step* step : {first, last}) step->alpha_channels = channels;
    return Status::Ok();
  }

  // The next workspace region, grown to hold a dense tensor of `sizes`.
  Status new_region(DType type, const Sizes& sizes, Buffer* buffer) {
    const int region = next_region_;
    next_region_ ^= 1;
    CheckedInt64 bytes = static_cast<int64_t>(dtype_size(type));
    for (int d = 0; d < rank_; ++d) bytes *= sizes[d];
    bytes += kAlign - 1;
    if (!bytes.ok()) {
      std::ostringstream why;
      why << "an intermediate tensor of " << p_->src.to_string() << " -> " << p_->dst.to_string()
          << " would hold more bytes than int64 can count";
      return Status::Invalid(why.str());
    }
    p_->region_bytes[region] = std::max(p_->region_bytes[region], bytes.value() / kAlign * kAlign);
    *buffer = region == 0 ? Buffer::kRegion0 : Buffer::kRegion1;
    return Status::Ok();
  }

  Plan<W>* p_;
  Sizes cur_;
  Buffer cur_buf_ = Buffer::kSrc;
  DType cur_type_;
  int rank_;
  int next_region_ = 0;
};

// The leading dims in memory order before the first resampled one: independent slices.
template <typename W>
void find_batch(Plan<W>* p) {
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
                      const PlanLimits& limits, Plan<W>* p, const OrderAdvisor* advisor) {
  p->op = op;
  p->src = src;
  p->dst = dst;
  p->acc_type = std::is_same_v<W, double> ? DType::kFloat64 : DType::kFloat32;
  p->empty = dst.numel() == 0;
  if (p->empty) return Status::Ok();
  p->order = choose_order(op, src, dst);
  build_axes(limits, p);
  order_backward_passes(advisor, p);
  count_table_memory(p);
  if (Status st = StepEmitter<W>(p).emit(); !st.ok()) return st;
  find_batch(p);
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
                                      const PlanLimits&, Plan<float>*, const OrderAdvisor*);
template Status plan_structure<double>(const OpDesc&, const TensorDesc&, const TensorDesc&,
                                       const PlanLimits&, Plan<double>*, const OrderAdvisor*);
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
    if (s.premultiply) os << " premultiply(alpha of " << s.alpha_channels << ")";
    if (s.unpremultiply) os << " unpremultiply(alpha of " << s.alpha_channels << ")";
  }
  os << " [" << buffer_name(s.in) << " -> " << buffer_name(s.out) << "]";
  return os.str();
}

}  // namespace upsample::core
