#include "bridge.hpp"

#include <ATen/Parallel.h>
#include <c10/util/Exception.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>

#include "upsample/plan_cache.hpp"

namespace upsample::torch_ext {

OpDesc Request::op(Direction direction) const {
  OpDesc d;
  d.mode = mode;
  d.direction = direction;
  d.align_corners = align_corners;
  d.antialias = antialias;
  d.spatial_rank = rank;
  d.scales = scales;
  return d;
}

std::optional<DType> engine_dtype(at::ScalarType type) {
  switch (type) {
    case at::kFloat:
      return DType::kFloat32;
    case at::kDouble:
      return DType::kFloat64;
    case at::kHalf:
      return DType::kFloat16;
    case at::kBFloat16:
      return DType::kBFloat16;
    case at::kByte:
      return DType::kUInt8;
    default:
      return std::nullopt;
  }
}

const char* supported_dtypes_text() {
  return "float32, float64, float16, bfloat16, and uint8 for the forward direction";
}

TensorDesc describe(DType dtype, at::IntArrayRef sizes, at::IntArrayRef strides) {
  TORCH_CHECK(sizes.size() == strides.size() && sizes.size() <= static_cast<size_t>(kMaxRank),
              "upsample: cannot describe a tensor of ", sizes.size(), " dims with ", strides.size(),
              " strides");
  TensorDesc t;
  t.dtype = dtype;
  t.rank = static_cast<int>(sizes.size());
  for (int d = 0; d < t.rank; ++d) {
    t.sizes[d] = sizes[d];
    t.strides[d] = strides[d];
  }
  return t;
}

namespace {

// ---------------------------------------------------------------------------------------------
// Threads.

std::atomic<int> g_explicit_threads{0};
std::atomic<bool> g_forked_child{false};

// ---------------------------------------------------------------------------------------------
// Plan cache: plans hold no data pointers, so one plan serves every call with the same
// descriptors (the library's PlanCache, include/upsample/plan_cache.hpp).

PlanCache& plan_cache() {
  static PlanCache* const cache = new PlanCache();  // never destroyed: used until the process exits
  return *cache;
}

// ---------------------------------------------------------------------------------------------
// Fork: the child follows torch's thread count no more (see num_threads()); the plan cache
// handles fork itself.

void after_fork_in_child() {
  g_explicit_threads.store(0, std::memory_order_relaxed);
  g_forked_child.store(true, std::memory_order_relaxed);
}

const bool g_fork_handlers_registered = [] {
  return pthread_atfork(nullptr, nullptr, after_fork_in_child) == 0;
}();

// ---------------------------------------------------------------------------------------------
// Workspace: one 64-byte aligned buffer per thread, grown on demand and kept while it is at
// most kKeptWorkspaceBytes (a fresh allocation of that size would cost a page fault per 4 KiB
// on every call); larger workspaces are allocated for the call and freed after it.

constexpr size_t kKeptWorkspaceBytes = size_t{256} << 20;
constexpr size_t kAlign = 64;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<void, FreeDeleter>;

Buffer allocate(size_t bytes) {
  const size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
  void* p = std::aligned_alloc(kAlign, rounded);
  TORCH_CHECK(p != nullptr, "upsample: cannot allocate a workspace of ", bytes, " bytes");
  return Buffer(p);
}

struct ThreadWorkspace {
  Buffer buffer;
  size_t bytes = 0;
};

thread_local ThreadWorkspace t_workspace;

}  // namespace

void run(const char* what, const OpDesc& op, const TensorDesc& src, const void* src_data,
         const TensorDesc& dst, void* dst_data) {
  if (dst.numel() == 0) return;
  TORCH_CHECK(g_fork_handlers_registered, "upsample: pthread_atfork failed");
  Plan plan;
  const Status planned = plan_cache().get(op, src, dst, &plan);
  TORCH_CHECK(planned.ok(), what, ": ", planned.message);
  const size_t need = plan.workspace_bytes();
  void* ws = nullptr;
  Buffer temporary;
  if (need > 0) {
    if (need > kKeptWorkspaceBytes) {
      temporary = allocate(need);
      ws = temporary.get();
    } else {
      if (t_workspace.bytes < need) {
        t_workspace.buffer.reset();
        t_workspace.buffer = allocate(need);
        t_workspace.bytes = need;
      }
      ws = t_workspace.buffer.get();
    }
  }
  ExecContext ctx;
  ctx.num_threads = num_threads();
  const Status st = execute(plan, src_data, dst_data, ws, need, ctx);
  TORCH_CHECK(st.ok(), what, ": ", st.message);
}

int num_threads() {
  const int n = g_explicit_threads.load(std::memory_order_relaxed);
  if (n > 0) return n;
  if (g_forked_child.load(std::memory_order_relaxed)) return 1;
  return std::max(1, at::get_num_threads());
}

void set_num_threads(int n) {
  TORCH_CHECK_VALUE(n >= 0, "upsample.set_num_threads: n must be >= 0 (0 follows ",
                    "torch.get_num_threads()), got ", n);
  g_explicit_threads.store(n, std::memory_order_relaxed);
}

int explicit_num_threads() { return g_explicit_threads.load(std::memory_order_relaxed); }

PlanCacheStats plan_cache_stats() {
  const PlanCache::Stats s = plan_cache().stats();
  return {s.size, s.capacity, s.hits, s.misses};
}

void clear_plan_cache() { plan_cache().clear(); }

}  // namespace upsample::torch_ext
