// The seam between the planner and a backend: a Backend estimates the memory its form of a
// core::Plan will take and compiles the plan into an Executable, which runs it on concrete
// buffers. The CPU backend (src/cpu/backend.hpp) is one; a GPU backend implements the same
// interface for the same plans (docs/design.md).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/checked.hpp"
#include "core/plan.hpp"
#include "upsample/resample.hpp"

namespace upsample::core {

class Executable {
 public:
  virtual ~Executable() = default;
  // Bytes of workspace run() needs (the plan's intermediates plus the backend's scratch).
  virtual size_t workspace_bytes() const = 0;
  // Bytes the executable holds (tables in the backend's form): phase-1 memory.
  virtual int64_t held_bytes() const = 0;
  // Runs the plan. The buffers are the caller's; `workspace` holds workspace_bytes() bytes.
  // Bitwise identical results for any thread count.
  virtual Status run(const void* src, void* dst, void* workspace, const ExecContext& ctx) const = 0;
  // One line per step: what it does, the kernel chosen, and why the other candidates declined.
  virtual std::string describe() const = 0;
};

// A backend also advises the planner where the pass order is a question of its kernels' costs
// (OrderAdvisor, core/plan.hpp).
class Backend : public OrderAdvisor {
 public:
  virtual const char* name() const = 0;
  // The most bytes compile() holds beyond the plan's core tables at any moment (its kernel-ready
  // forms, and what it builds them from), known before anything is built: the backend's share
  // of phase-1 memory.
  virtual int64_t table_bytes(const Plan<float>& plan) const = 0;
  virtual int64_t table_bytes(const Plan<double>& plan) const = 0;
  // Takes over the plan (its materialised tables become the backend's).
  virtual std::unique_ptr<Executable> compile(Plan<float>&& plan) const = 0;
  virtual std::unique_ptr<Executable> compile(Plan<double>&& plan) const = 0;
};

// The most bytes phase 1 holds at once for `plan` (the limit of PlanOptions::max_bytes applies
// to it): the peak while the core tables are built, or the core tables plus the backend's
// kernel-ready forms once it compiles them.
template <typename W>
int64_t phase_one_bytes(const Plan<W>& plan, const Backend& backend) {
  return std::max(plan.table_peak_bytes,
                  saturating_add(plan.table_bytes, backend.table_bytes(plan)));
}

}  // namespace upsample::core
