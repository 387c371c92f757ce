// The backend-neutral plan: what to compute, in which order, through which buffers.
//
// plan_structure() turns (OpDesc, src, dst) into:
//   - the memory order in which every tensor is seen as [outer, len, inner] per pass,
//   - per resampled axis, its weights: a materialised AxisTable (transposed for backward) or, for
//     an axis too long to materialise, the row generator (AxisWeights) the kernels stream from,
//   - the step list: layout copies (a non-dense view gathered into the workspace or scattered out
//     of it) and resample passes (axis, shape, storage types in and out),
//   - the workspace regions the intermediates need.
// It knows no backend: a backend (src/cpu) turns the steps into kernels and runs them
// (core/executable.hpp). Its steps are named after what they do (plan.cpp): choose_order ->
// build_axes -> order_backward_passes -> count_table_memory -> StepEmitter -> find_batch;
// build_tables() then materialises the tables once the caller has accepted their memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/axis_table.hpp"
#include "core/axis_weights.hpp"
#include "core/layout.hpp"
#include "upsample/resample.hpp"

namespace upsample::core {

// The buffers a step reads and writes: the caller's tensors or one of two workspace regions
// (intermediates alternate between them).
enum class Buffer : uint8_t { kSrc, kDst, kRegion0, kRegion1 };

// A dense tensor seen by one pass: [outer, src_len, inner] in, [outer, rows, inner] out.
struct PassShape {
  int64_t outer = 1;
  int64_t src_len = 1;
  int64_t rows = 1;
  int64_t inner = 1;
};

// An element-wise strided copy over `rank` dims (innermost last).
struct CopyShape {
  int rank = 0;
  int64_t sizes[kMaxRank] = {1, 1, 1, 1, 1};
  int64_t src_strides[kMaxRank] = {0, 0, 0, 0, 0};  // elements
  int64_t dst_strides[kMaxRank] = {0, 0, 0, 0, 0};
  size_t elem_size = 4;
};

// The weights of one resampled axis.
template <typename W>
struct Axis {
  int dim = -1;                  // logical dim of the tensors
  AxisWeights<W> weights;        // the forward rows, generated on demand
  bool transposed = false;       // backward: rows are input indices, taps the outputs
  bool materialized = false;     // `table` holds every row (else kernels stream `weights`)
  AxisTable<W> table;            // when materialized; already transposed for backward
  int64_t rows = 0;              // rows of the (transposed) table
  int64_t src_len = 0;           // the axis length the taps index into
  int64_t total_taps = 0;        // exact when materialized, else an upper bound
  int64_t max_taps = 0;          // the longest row (exact when materialized, else an upper bound)
  int64_t kept_bytes = 0;        // the materialised (transposed) table
  int64_t build_peak_bytes = 0;  // the most bytes live while building it
  bool unit_taps = false;        // every row one tap of weight 1: values move, no arithmetic

  explicit Axis(const AxisSpec& spec) : weights(spec) {}
};

// The most channels a pixel with premultiplied alpha may have (kernels keep one pixel's
// outputs in registers or on the stack).
inline constexpr int64_t kMaxAlphaChannels = 64;

struct Step {
  enum class Kind { kResample, kCopy };
  Kind kind = Kind::kResample;
  int axis = -1;    // kResample: index into Plan::axes
  PassShape shape;  // kResample
  CopyShape copy;   // kCopy
  DType in_type = DType::kFloat32;
  DType out_type = DType::kFloat32;
  Buffer in = Buffer::kSrc;
  Buffer out = Buffer::kDst;
  // Premultiplied alpha (OpDesc::premultiplied_alpha): the elements of each contiguous run of
  // the step (a pass's inner run, or its rows when inner is 1) are pixels of `alpha_channels`
  // channels, alpha last. `premultiply`: colour elements are multiplied by their pixel's alpha
  // as they are loaded; `unpremultiply`: colour outputs are divided by their pixel's alpha
  // output before they are stored.
  int64_t alpha_channels = 0;
  bool premultiply = false;
  bool unpremultiply = false;
};

template <typename W>
struct Plan {
  OpDesc op;
  TensorDesc src;
  TensorDesc dst;
  bool empty = false;  // dst has no elements: nothing to do
  DType acc_type = DType::kFloat32;
  DimOrder order{};           // memory order of the passes, outermost dim first
  std::vector<Axis<W>> axes;  // resampled axes, in pass order (W, then H, then D)
  std::vector<Step> steps;
  // Bytes each workspace region needs when every step runs on its own (a backend that fuses
  // steps, keeping an intermediate in cache, may need less and lays out its own workspace).
  int64_t region_bytes[2] = {0, 0};
  // The leading dims in memory order that no pass resamples form `batch` independent slices
  // (N*C for NCHW, N for NHWC); every step's buffers split into equal per-slice parts.
  int64_t batch = 1;
  // Phase-1 memory: the materialised tables (retained) and the peak while building them.
  int64_t table_bytes = 0;
  int64_t table_peak_bytes = 0;
};

struct PlanLimits {
  // A table whose materialised form (with its transient transpose) would exceed this many bytes
  // is streamed instead: phase-1 memory is O(rows of the short axes), not O(axis length).
  int64_t table_budget = int64_t{64} << 20;
};

// What the planner asks the backend when a backward's pass orders keep the same largest
// intermediate (plan.cpp, order_backward_passes): should the pass over the innermost logical
// axis (W) run first? Which order is cheaper depends on the backend's kernels. The question
// holds logical facts only, never strides, so every layout of a problem gets the same order
// (and the same bits).
struct InnerFirstQuestion {
  int spatial_rank = 0;    // OpDesc::spatial_rank
  int passes = 0;          // resampled axes (those whose table is not the identity)
  AxisSpec inner;          // W's geometry (forward: in_len -> out_len)
  int64_t inner_rows = 0;  // rows of W's transposed table (grad_input's W length)
  int64_t inner_taps = 0;  // taps of that table (an upper bound when its taps were not counted)
};

class OrderAdvisor {
 public:
  virtual ~OrderAdvisor() = default;
  virtual bool backward_inner_first(const InnerFirstQuestion& question) const = 0;
};

// Everything but the tables: order, axes (with their tap counts and the materialise decision),
// steps and workspace regions. Cheap: no allocation proportional to an axis.
// `advisor` (the backend, or none) settles the backward pass order where the largest
// intermediate does not.
template <typename W>
Status plan_structure(const OpDesc& op, const TensorDesc& src, const TensorDesc& dst,
                      const PlanLimits& limits, Plan<W>* plan,
                      const OrderAdvisor* advisor = nullptr);

// Materialises the tables plan_structure() decided to keep (plan->table_bytes of them).
template <typename W>
void build_tables(Plan<W>* plan);

const char* buffer_name(Buffer b);
std::string describe_step(const Step& step);

}  // namespace upsample::core
