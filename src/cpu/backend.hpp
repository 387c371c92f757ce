// The CPU backend: compiles a core::Plan into kernel-ready tables, one chosen kernel per step
// (dispatch.cpp), an execution strategy and a workspace layout, and runs it with OpenMP.
#pragma once

#include <cstdint>
#include <memory>

#include "core/executable.hpp"
#include "core/plan.hpp"

namespace upsample::cpu {

// The most bytes compile() holds for the plan's kernel-ready tables beyond the core tables it
// takes over, at any moment: the backend's share of phase-1 memory, known before anything is
// built.
template <typename W>
int64_t compiled_table_bytes(const core::Plan<W>& plan);

// Takes over the plan (its tables become the kernels' tables).
template <typename W>
std::unique_ptr<core::Executable> compile(core::Plan<W>&& plan);

// The two functions above as the planner's core::Backend.
const core::Backend& backend();

}  // namespace upsample::cpu
