// The native C++ API of upsample: describe -> plan -> execute.
//
//   upsample::OpDesc op;                 // mode, direction, align_corners, antialias, scales
//   upsample::Plan plan;
//   upsample::Status st = upsample::make_plan(op, src_desc, dst_desc, &plan);
//   std::vector<std::byte> ws(plan.workspace_bytes());
//   st = upsample::execute(plan, src, dst, ws.data(), ws.size());
//
// Forward:  src = input  [N, C, in...],   dst = output      [N, C, out...].
// Backward: src = grad of the output [N, C, out...], dst = grad of the input [N, C, in...].
// A plan holds no data pointers: it can be executed any number of times, from any thread, on
// new addresses. execute() allocates nothing and gives bitwise identical results for any
// thread count.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>

#include "upsample/export.hpp"
#include "upsample/status.hpp"
#include "upsample/tensor_desc.hpp"

namespace upsample {

enum class Mode {
  kNearest,       // PyTorch "nearest" (legacy, OpenCV INTER_NEAREST)
  kNearestExact,  // PyTorch "nearest-exact" (Pillow, scikit-image)
  kLinear,        // linear / bilinear / trilinear
  kCubic,         // bicubic (Keys a = -0.75; a = -0.5 with antialias)
  kArea,          // PyTorch "area": adaptive average pooling (the ratio comes from the sizes)
};

enum class Direction { kForward, kBackward };

UPSAMPLE_API const char* mode_name(Mode mode);

struct OpDesc {
  Mode mode = Mode::kLinear;
  Direction direction = Direction::kForward;
  bool align_corners = false;  // linear and cubic only
  bool antialias = false;      // linear and cubic only
  int spatial_rank = 2;        // 1, 2 or 3: the last spatial_rank dims are resampled
  // User scale per spatial axis (D, H, W order for the axes present), as in F.interpolate's
  // scale_factor: a multiplier out/in. A value <= 0 means "not given": the ratio comes from
  // the sizes. Only the coordinate mapping uses it; the output size comes from dst.
  std::array<double, 3> scales{0.0, 0.0, 0.0};
  // Forward only, channels-last (C innermost) dense tensors of C >= 2 channels: the last channel
  // is alpha, and the others are resampled premultiplied by it (docs/numerics.md, "Premultiplied
  // alpha"): each colour sample is multiplied by its pixel's alpha as the first pass loads it,
  // and the last pass divides the resampled colour by the resampled alpha (0 where that alpha is
  // not positive) before its store. Nearest modes move values unchanged, so it changes nothing
  // there.
  bool premultiplied_alpha = false;
};

struct ExecContext {
  // 0: UPSAMPLE_NUM_THREADS if set, else every core. A process forked from another runs
  // single-threaded whatever is asked (GNU OpenMP cannot start threads in a forked child).
  int num_threads = 0;
};

// Limits on the memory a plan may take (phase-1 memory: the weight tables; and its workspace).
struct PlanOptions {
  // make_plan() refuses (kInvalidArgument) a plan whose tables or workspace would take more
  // bytes.
  // 0: UPSAMPLE_MAX_BYTES if set (bytes, optionally with a K/M/G suffix), else half the
  // physical memory.
  size_t max_bytes = 0;
  // A table larger than this is not materialised: the kernels generate its rows as they go
  // (slower, but memory stays proportional to the short axes). 0: 64 MiB.
  size_t table_budget = 0;
};

class UPSAMPLE_API Plan {
 public:
  Plan();
  ~Plan();
  Plan(const Plan&);
  Plan& operator=(const Plan&);
  Plan(Plan&&) noexcept;
  Plan& operator=(Plan&&) noexcept;

  bool valid() const { return impl_ != nullptr; }
  size_t workspace_bytes() const;
  // True when dst has no elements: execute() does nothing.
  bool empty() const;
  // Bytes the plan holds (its weight tables, in the kernels' form).
  size_t held_bytes() const;
  // A human-readable summary: the steps, the kernel chosen for each and why the other candidates
  // declined, the execution strategy, the workspace.
  std::string describe() const;

  struct Impl;
  const Impl* impl() const { return impl_.get(); }

 private:
  std::shared_ptr<const Impl> impl_;
  friend Status make_plan(const OpDesc&, const TensorDesc&, const TensorDesc&, Plan*,
                          const PlanOptions&);
};

// Validates the descriptors, resolves the geometry, builds the weight tables and passes.
UPSAMPLE_API Status make_plan(const OpDesc& op, const TensorDesc& src, const TensorDesc& dst,
                              Plan* plan, const PlanOptions& options = {});

// Runs a plan. `workspace` must hold plan.workspace_bytes() bytes (may be null when that is 0).
// src and dst must not overlap (an overlap is reported as kInvalidArgument).
UPSAMPLE_API Status execute(const Plan& plan, const void* src, void* dst, void* workspace,
                            size_t workspace_bytes, const ExecContext& ctx = {});

// Threads used when ExecContext::num_threads is 0.
UPSAMPLE_API int default_num_threads();

}  // namespace upsample
