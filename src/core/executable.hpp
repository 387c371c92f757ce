// The seam between the planner and a backend: a backend compiles a core::Plan into an
// Executable, which runs it on concrete buffers. The CPU backend (src/cpu/backend.hpp) is one;
// a GPU backend provides another compile() for the same plans.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

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

}  // namespace upsample::core
