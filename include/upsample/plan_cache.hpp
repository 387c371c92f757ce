// PlanCache: make_plan() for repeated descriptors at the cost of a lookup.
//
//   upsample::PlanCache cache;               // or one per model, per thread pool, ...
//   upsample::Plan plan;
//   upsample::Status st = cache.get(op, src_desc, dst_desc, &plan);
//
// Plans hold no data pointers and never change once made, so one plan serves every call with the
// same descriptors, from any thread (resample.hpp). The cache is keyed by everything make_plan()
// reads: the OpDesc, both TensorDescs (dtype, sizes, strides), the PlanOptions and the memory
// limit they resolve to (UPSAMPLE_MAX_BYTES included), and the default thread count
// (UPSAMPLE_NUM_THREADS, else the cores the calling thread may run on), which sizes a plan's
// workspace. The aclnn layer plans its GetWorkspaceSize calls through one process-wide cache;
// the Python package through another.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "upsample/export.hpp"
#include "upsample/resample.hpp"
#include "upsample/status.hpp"
#include "upsample/tensor_desc.hpp"

namespace upsample {

// Thread-safe and bounded: beyond `capacity` plans, or `max_held_bytes` bytes of weight tables
// (Plan::held_bytes()), the least recently used plans are dropped (a dropped plan lives on in the
// callers that still hold it). A plan that alone holds more than `max_held_bytes` is returned
// without being kept; capacity 0 keeps nothing. Failures are returned and never kept. A process
// forked while another thread uses the cache gets it unlocked in the child. Nothing here
// throws: a cache that cannot allocate its own state keeps nothing (stats().capacity is 0).
class UPSAMPLE_API PlanCache {
 public:
  struct Stats {
    int64_t size = 0;      // plans kept
    int64_t capacity = 0;  // at most this many
    int64_t hits = 0;      // get() calls answered from the cache, since construction
    int64_t misses = 0;    // get() calls that ran make_plan()
    size_t held_bytes = 0;
    size_t max_held_bytes = 0;
  };

  static constexpr size_t kDefaultCapacity = 256;
  static constexpr size_t kDefaultMaxHeldBytes = size_t{64} << 20;

  explicit PlanCache(size_t capacity = kDefaultCapacity,
                     size_t max_held_bytes = kDefaultMaxHeldBytes);
  ~PlanCache();
  PlanCache(const PlanCache&) = delete;
  PlanCache& operator=(const PlanCache&) = delete;

  // The plan make_plan(op, src, dst, plan, options) would make: the kept one when the same
  // arguments were planned before, else make_plan()'s (then kept). make_plan() runs outside the
  // cache's lock, so a slow plan never holds up lookups of others.
  Status get(const OpDesc& op, const TensorDesc& src, const TensorDesc& dst, Plan* plan,
             const PlanOptions& options = {});

  Stats stats() const;
  // Drops every kept plan (the counters stay).
  void clear();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace upsample
