// The memory limit make_plan() applies (engine.cpp), shared with the plan cache's key.
#pragma once

#include <cstddef>

#include "upsample/resample.hpp"

namespace upsample::api {

// options.max_bytes when set, else UPSAMPLE_MAX_BYTES when set and well formed, else half the
// physical memory (read once per process).
size_t resolved_max_bytes(const PlanOptions& options);

}  // namespace upsample::api
