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

// Whether a 2-D backward (both H and W resampled) whose pass orders tie on their largest
// intermediate runs W first (core::OrderAdvisor): when W is the gradient of an integer
// upsampling by 2 to 4 (linear or cubic, no antialias, no align_corners, a user scale if any
// equal to the factor: every block of W's transposed table is alike), its rows average at least 8
// taps (cubic 2x to 4x, linear 4x) and grad_input's rows hold at least 128 elements. Then, in
// NCHW, the first pass reads the gradient row by row with the horizontal kernel, where an H pass
// first would read 8 or more long gradient rows for every row it writes. Measured in NCHW, both
// orders side by side (docs/performance.md, "Backward pass order"): W4 (bicubic 2x, 1024 -> 512)
// 0.42 -> 0.27 ms, bilinear 4x 1024 -> 256 0.85 -> 0.35 ms; and where W first loses, left as it
// was: bilinear 2x (4 taps) 3-10%, bicubic 128 -> 64 30%, bilinear 3x (1024 -> 340, blocks not
// alike) 15%, a 3-D trilinear 4x 18%. The answer depends on logical facts only, so NHWC gets the
// same order (not measured there).
bool backward_inner_first(const core::InnerFirstQuestion& question);

// compiled_table_bytes and compile as the planner's core::Backend, which also answers
// backward_inner_first.
const core::Backend& backend();

}  // namespace upsample::cpu
