// PlanCache (include/upsample/plan_cache.hpp): a least-recently-used list of plans with a hash
// index, bounded in plans and in table bytes, and fork handlers shared by every live cache.
#include "upsample/plan_cache.hpp"

#include <pthread.h>

#include <array>
#include <bit>
#include <list>
#include <mutex>
#include <new>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "api/limits.hpp"
#include "cpu/dispatch.hpp"

namespace upsample {
namespace {

// Everything make_plan() reads, as words: the OpDesc, both TensorDescs, the PlanOptions, the
// memory limit they resolve to and the kernel policy (a test hook).
constexpr int kTensorWords = 2 + 2 * kMaxRank;
constexpr int kKeyWords = 9 + 2 * kTensorWords + 4;
using Key = std::array<int64_t, kKeyWords>;

Key make_key(const OpDesc& op, const TensorDesc& src, const TensorDesc& dst,
             const PlanOptions& options) {
  Key k{};
  int i = 0;
  k[i++] = static_cast<int64_t>(op.mode);
  k[i++] = static_cast<int64_t>(op.direction);
  k[i++] = op.align_corners;
  k[i++] = op.antialias;
  k[i++] = op.spatial_rank;
  k[i++] = op.premultiplied_alpha;
  for (double s : op.scales) k[i++] = std::bit_cast<int64_t>(s);
  for (const TensorDesc* t : {&src, &dst}) {
    k[i++] = static_cast<int64_t>(t->dtype);
    k[i++] = t->rank;
    for (int d = 0; d < kMaxRank; ++d) {
      // Only the dims a descriptor has are its value (rank is range-checked by make_plan).
      const bool used = d < t->rank;
      k[i++] = used ? t->sizes[d] : 0;
      k[i++] = used ? t->strides[d] : 0;
    }
  }
  k[i++] = static_cast<int64_t>(options.max_bytes);
  k[i++] = static_cast<int64_t>(options.table_budget);
  k[i++] = static_cast<int64_t>(api::resolved_max_bytes(options));
  k[i++] = static_cast<int64_t>(cpu::kernel_policy());
  return k;
}

struct KeyHash {
  size_t operator()(const Key& k) const {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int64_t w : k) {
      h ^= static_cast<uint64_t>(w) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    }
    return static_cast<size_t>(h);
  }
};

}  // namespace

struct PlanCache::Impl {
  struct Entry {
    Key key;
    Plan plan;
    size_t bytes;
  };

  Impl(size_t capacity, size_t max_held_bytes)
      : capacity(capacity), max_held_bytes(max_held_bytes) {}

  // Drops least recently used plans until the bounds hold. Called with `mutex` held.
  void evict() {
    while (!entries.empty() && (entries.size() > capacity || held_bytes > max_held_bytes)) {
      held_bytes -= entries.back().bytes;
      index.erase(entries.back().key);
      entries.pop_back();
    }
  }

  const size_t capacity;
  const size_t max_held_bytes;
  mutable std::mutex mutex;
  std::list<Entry> entries;  // most recently used first
  std::unordered_map<Key, std::list<Entry>::iterator, KeyHash> index;
  size_t held_bytes = 0;
  int64_t hits = 0;
  int64_t misses = 0;
};

namespace {

// Live caches, for the fork handlers: before fork() every cache's mutex is taken (after the
// registry's; get() never holds both), so that no child inherits one locked by a thread that
// does not exist there; both processes then release them.
struct Registry {
  std::mutex mutex;
  std::unordered_set<PlanCache::Impl*> caches;
};

Registry& registry() {
  static Registry* const r = new Registry;  // used until the process exits
  return *r;
}

void lock_all() {
  registry().mutex.lock();
  for (PlanCache::Impl* c : registry().caches) c->mutex.lock();
}

void unlock_all() {
  for (PlanCache::Impl* c : registry().caches) c->mutex.unlock();
  registry().mutex.unlock();
}

const bool g_fork_handlers = [] {
  registry();
  return pthread_atfork(lock_all, unlock_all, unlock_all) == 0;
}();

}  // namespace

PlanCache::PlanCache(size_t capacity, size_t max_held_bytes)
    : impl_(std::make_unique<Impl>(capacity, max_held_bytes)) {
  (void)g_fork_handlers;
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().caches.insert(impl_.get());
}

PlanCache::~PlanCache() {
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().caches.erase(impl_.get());
}

Status PlanCache::get(const OpDesc& op, const TensorDesc& src, const TensorDesc& dst, Plan* plan,
                      const PlanOptions& options) {
  if (plan == nullptr) return Status::NullPointer("PlanCache::get: plan is null");
  Impl& c = *impl_;
  const Key key = make_key(op, src, dst, options);
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    if (auto it = c.index.find(key); it != c.index.end()) {
      ++c.hits;
      c.entries.splice(c.entries.begin(), c.entries, it->second);
      *plan = it->second->plan;
      return Status::Ok();
    }
    ++c.misses;
  }
  Plan made;
  if (Status st = make_plan(op, src, dst, &made, options); !st.ok()) return st;
  *plan = made;
  const size_t bytes = made.held_bytes();
  if (c.capacity == 0 || bytes > c.max_held_bytes) return Status::Ok();
  std::lock_guard<std::mutex> lock(c.mutex);
  if (c.index.find(key) != c.index.end()) return Status::Ok();  // kept by another thread meanwhile
  try {
    c.entries.push_front(Impl::Entry{key, std::move(made), bytes});
  } catch (const std::bad_alloc&) {
    return Status::Ok();  // the plan is made; it is only not kept
  }
  try {
    c.index.emplace(key, c.entries.begin());
  } catch (const std::bad_alloc&) {
    c.entries.pop_front();
    return Status::Ok();
  }
  c.held_bytes += bytes;
  c.evict();
  return Status::Ok();
}

PlanCache::Stats PlanCache::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  Stats s;
  s.size = static_cast<int64_t>(impl_->entries.size());
  s.capacity = static_cast<int64_t>(impl_->capacity);
  s.hits = impl_->hits;
  s.misses = impl_->misses;
  s.held_bytes = impl_->held_bytes;
  s.max_held_bytes = impl_->max_held_bytes;
  return s;
}

void PlanCache::clear() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  // Swapped with empty containers, so that the buckets are released too.
  decltype(impl_->index)().swap(impl_->index);
  decltype(impl_->entries)().swap(impl_->entries);
  impl_->held_bytes = 0;
}

}  // namespace upsample
