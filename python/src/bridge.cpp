#include "bridge.hpp"

#include <ATen/Parallel.h>
#include <c10/util/Exception.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

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
// descriptors. Least recently used plans are dropped beyond kPlanCacheCapacity.

constexpr size_t kPlanCacheCapacity = 256;
constexpr int kKeyWords = 5 + 3 + 2 * (2 + 2 * kMaxRank);
using PlanKey = std::array<int64_t, kKeyWords>;

PlanKey make_key(const OpDesc& op, const TensorDesc& src, const TensorDesc& dst) {
  PlanKey k{};
  int i = 0;
  k[i++] = static_cast<int64_t>(op.mode);
  k[i++] = static_cast<int64_t>(op.direction);
  k[i++] = op.align_corners;
  k[i++] = op.antialias;
  k[i++] = op.spatial_rank;
  for (double s : op.scales) k[i++] = std::bit_cast<int64_t>(s);
  for (const TensorDesc* t : {&src, &dst}) {
    k[i++] = static_cast<int64_t>(t->dtype);
    k[i++] = t->rank;
    for (int d = 0; d < kMaxRank; ++d) {
      k[i++] = d < t->rank ? t->sizes[d] : 0;
      k[i++] = d < t->rank ? t->strides[d] : 0;
    }
  }
  return k;
}

struct PlanKeyHash {
  size_t operator()(const PlanKey& k) const {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int64_t w : k) {
      h ^= static_cast<uint64_t>(w) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    }
    return static_cast<size_t>(h);
  }
};

class PlanCache {
 public:
  // The cached plan for the descriptors, made (outside the lock) when absent.
  Plan get(const char* what, const OpDesc& op, const TensorDesc& src, const TensorDesc& dst) {
    const PlanKey key = make_key(op, src, dst);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = index_.find(key);
      if (it != index_.end()) {
        ++hits_;
        entries_.splice(entries_.begin(), entries_, it->second);
        return it->second->second;
      }
      ++misses_;
    }
    Plan plan;
    Status st = make_plan(op, src, dst, &plan);
    TORCH_CHECK(st.ok(), what, ": ", st.message);
    std::lock_guard<std::mutex> lock(mutex_);
    if (index_.find(key) == index_.end()) {
      entries_.emplace_front(key, plan);
      index_.emplace(key, entries_.begin());
      if (entries_.size() > kPlanCacheCapacity) {
        index_.erase(entries_.back().first);
        entries_.pop_back();
      }
    }
    return plan;
  }

  PlanCacheStats stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    return {static_cast<int64_t>(entries_.size()), static_cast<int64_t>(kPlanCacheCapacity), hits_,
            misses_};
  }

  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    index_.clear();
    entries_.clear();
  }

  // fork() handlers: the mutex is held across fork so that the child never inherits it locked
  // by a thread that does not exist there.
  void lock() { mutex_.lock(); }
  void unlock() { mutex_.unlock(); }

 private:
  std::mutex mutex_;
  std::list<std::pair<PlanKey, Plan>> entries_;  // most recently used first
  std::unordered_map<PlanKey, std::list<std::pair<PlanKey, Plan>>::iterator, PlanKeyHash> index_;
  int64_t hits_ = 0;
  int64_t misses_ = 0;
};

PlanCache& plan_cache() {
  static PlanCache* cache = new PlanCache();  // never destroyed: used until the process exits
  return *cache;
}

void before_fork() { plan_cache().lock(); }
void after_fork_in_parent() { plan_cache().unlock(); }
void after_fork_in_child() {
  plan_cache().unlock();
  g_explicit_threads.store(0, std::memory_order_relaxed);
  g_forked_child.store(true, std::memory_order_relaxed);
}

const bool g_fork_handlers_registered = [] {
  plan_cache();
  return pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child) == 0;
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
  const Plan plan = plan_cache().get(what, op, src, dst);
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

PlanCacheStats plan_cache_stats() { return plan_cache().stats(); }

void clear_plan_cache() { plan_cache().clear(); }

}  // namespace upsample::torch_ext
