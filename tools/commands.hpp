// The image and benchmark subcommands of `upsample` (the rows of tools/main.cpp's kCommands
// next to `check`). Each takes the arguments after its name and returns the exit status:
// 0 success, 1 runtime failure (unreadable or corrupt file, library error, a failed check),
// 2 usage error.
#pragma once

#include <string>
#include <vector>

namespace upsample::cli {

// `upsample resize IN OUT (--size WxH | --scale S[,S]) --mode M [...]`, or `IN... -o OUTDIR`
// (tools/resize.cpp, tools/resize_batch.cpp).
int run_resize(const std::vector<std::string>& args);
// `upsample bench [--workload W1,...] [--shape ...] [--threads N] [...]` (tools/bench.cpp).
int run_bench(const std::vector<std::string>& args);
// `upsample demo [--out DIR]` (tools/demo.cpp).
int run_demo(const std::vector<std::string>& args);

}  // namespace upsample::cli
