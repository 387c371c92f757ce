// The bridge between PyTorch tensors and the native API (include/upsample/resample.hpp): dtype
// and layout descriptions, one cache of plans, the per-thread workspace and the thread count.
// Everything in python/src goes through run(); nothing here knows about Python.
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "upsample/resample.hpp"

namespace upsample::torch_ext {

// One resampling request in the engine's terms (no sizes: those come from the tensors).
struct Request {
  Mode mode = Mode::kNearest;
  bool align_corners = false;
  bool antialias = false;
  int rank = 2;  // spatial dims: 1, 2 or 3
  // Per spatial axis (D, H, W order of the axes present), F.interpolate's scale_factor when it
  // reaches the kernel; <= 0: not given (the ratio comes from the sizes).
  std::array<double, 3> scales{0.0, 0.0, 0.0};

  OpDesc op(Direction direction) const;
};

// The engine's dtype for a torch dtype, or nullopt when the engine has none.
std::optional<DType> engine_dtype(at::ScalarType type);

// "float32, float64, float16, bfloat16 (uint8 forward only)": for error messages.
const char* supported_dtypes_text();

// A TensorDesc for sizes and element strides (any values, views included).
TensorDesc describe(DType dtype, at::IntArrayRef sizes, at::IntArrayRef strides);

// Runs `op` from src to dst (raw memory described by the descriptors): the plan comes from a
// process-wide cache (plans hold no pointers), the workspace is per thread, the thread count
// is num_threads(). `what` names the caller in error messages. Throws c10::Error (RuntimeError
// in Python) with the engine's message when the engine refuses the call.
void run(const char* what, const OpDesc& op, const TensorDesc& src, const void* src_data,
         const TensorDesc& dst, void* dst_data);

// Threads used by run(): the value given to set_num_threads() if any, else
// torch.get_num_threads(). In a child process created by fork() the setting of the parent is
// dropped and 1 thread is used unless set_num_threads(n > 0) is called in the child: GNU
// OpenMP's thread pool does not survive fork, and a parallel region in the child would wait
// forever for the parent's threads (torch's own kernels hang there too; DataLoader workers set
// torch's thread count to 1 for this reason).
int num_threads();
// n > 0: use n threads; n == 0: back to the default (torch.get_num_threads(), 1 after fork).
void set_num_threads(int n);
// The value set by set_num_threads() (0 when following torch).
int explicit_num_threads();

// Number of plans in the cache, and how many lookups hit / missed since the process started.
struct PlanCacheStats {
  int64_t size = 0;
  int64_t capacity = 0;
  int64_t hits = 0;
  int64_t misses = 0;
};
PlanCacheStats plan_cache_stats();
void clear_plan_cache();

}  // namespace upsample::torch_ext
