// PlanCache (include/upsample/plan_cache.hpp): a least-recently-used list of plans with a hash
// index, bounded in plans and in table bytes, and fork handlers shared by every live cache.
#include "upsample/plan_cache.hpp"

#include <pthread.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <iterator>
#include <list>
#include <mutex>
#include <new>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "api/limits.hpp"
#include "cpu/dispatch.hpp"
#include "cpu/kernels.hpp"
#include "cpu/threads.hpp"

namespace upsample {
namespace {

// Everything make_plan() reads, as words: the OpDesc, both TensorDescs, the PlanOptions with the
// memory limit they resolve to, and the process state the CPU backend compiles against: the
// default thread count (UPSAMPLE_NUM_THREADS, else the cores this thread may run on: it sizes
// the plan's scratch slots and so its workspace), the SIMD target's kernel set (tests switch
// targets) and the kernel policy (a test hook).
constexpr int kTensorWords = 2 + 2 * kMaxRank;
constexpr int kKeyWords = 9 + 2 * kTensorWords + 5;
using Key = std::array<int64_t, kKeyWords>;

// `options` has max_bytes resolved (PlanCache::get): the key and make_plan() see one limit even
// if UPSAMPLE_MAX_BYTES changes meanwhile.
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
  k[i++] = cpu::default_threads();
  k[i++] = static_cast<int64_t>(reinterpret_cast<uintptr_t>(&cpu::simd_kernels()));
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

  // Moves least recently used plans into `dropped` until the bounds hold; the caller destroys
  // them after releasing `mutex`. Called with `mutex` held.
  void evict(std::list<Entry>* dropped) {
    while (!entries.empty() && (entries.size() > capacity || held_bytes > max_held_bytes)) {
      held_bytes -= entries.back().bytes;
      index.erase(entries.back().key);
      dropped->splice(dropped->begin(), entries, std::prev(entries.end()));
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

PlanCache::PlanCache(size_t capacity, size_t max_held_bytes) {
  (void)g_fork_handlers;
  // Never throws: without memory for its own state the cache keeps nothing (get() then plans
  // every call, and stats() says capacity 0).
  std::unique_ptr<Impl> impl(new (std::nothrow) Impl(capacity, max_held_bytes));
  if (impl == nullptr) return;
  std::lock_guard<std::mutex> lock(registry().mutex);
  try {
    registry().caches.insert(impl.get());
  } catch (const std::bad_alloc&) {
    return;  // unregistered, a cache would not be released across fork(): keep nothing
  }
  impl_ = std::move(impl);
}

PlanCache::~PlanCache() {
  if (impl_ == nullptr) return;
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().caches.erase(impl_.get());
}

Status PlanCache::get(const OpDesc& op, const TensorDesc& src, const TensorDesc& dst, Plan* plan,
                      const PlanOptions& options) {
  if (plan == nullptr) return Status::NullPointer("PlanCache::get: plan is null");
  PlanOptions resolved = options;
  resolved.max_bytes = api::resolved_max_bytes(options);
  if (impl_ == nullptr) return make_plan(op, src, dst, plan, resolved);
  Impl& c = *impl_;
  const Key key = make_key(op, src, dst, resolved);
  Plan found;  // (assigned to *plan after the lock: *plan's old plan is destroyed outside it)
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    if (auto it = c.index.find(key); it != c.index.end()) {
      ++c.hits;
      c.entries.splice(c.entries.begin(), c.entries, it->second);
      found = it->second->plan;
    } else {
      ++c.misses;
    }
  }
  if (found.valid()) {
    *plan = std::move(found);
    return Status::Ok();
  }
  Plan made;
  if (Status st = make_plan(op, src, dst, &made, resolved); !st.ok()) return st;
  *plan = made;
  const size_t bytes = made.held_bytes();
  if (c.capacity == 0 || bytes > c.max_held_bytes) return Status::Ok();
  std::list<Impl::Entry> dropped;  // destroyed after the lock is released
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
    dropped.splice(dropped.begin(), c.entries, c.entries.begin());
    return Status::Ok();
  }
  c.held_bytes += bytes;
  c.evict(&dropped);
  return Status::Ok();
}

PlanCache::Stats PlanCache::stats() const {
  Stats s;
  if (impl_ == nullptr) return s;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  s.size = static_cast<int64_t>(impl_->entries.size());
  s.capacity = static_cast<int64_t>(std::min<size_t>(impl_->capacity, INT64_MAX));
  s.hits = impl_->hits;
  s.misses = impl_->misses;
  s.held_bytes = impl_->held_bytes;
  s.max_held_bytes = impl_->max_held_bytes;
  return s;
}

void PlanCache::clear() {
  if (impl_ == nullptr) return;
  // Swapped with empty containers under the lock (the buckets are released too); the plans are
  // destroyed after it.
  decltype(impl_->index) index;
  decltype(impl_->entries) entries;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  index.swap(impl_->index);
  entries.swap(impl_->entries);
  impl_->held_bytes = 0;
}

}  // namespace upsample
