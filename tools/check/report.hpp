// The output of `upsample check`: tables (with the failures listed after them) or one JSON
// document with the same rows.
#pragma once

#include <vector>

#include "check/options.hpp"
#include "check/rows.hpp"

namespace upsample::cli {

void print_json(const Options& opts, const std::vector<CheckRow>& rows,
                const std::vector<AdjointRow>& adjoint, int passed, int failed);
void print_tables(const Options& opts, const std::vector<CheckRow>& rows,
                  const std::vector<AdjointRow>& adjoint, int passed, int failed);

}  // namespace upsample::cli
