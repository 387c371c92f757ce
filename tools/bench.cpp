// `upsample bench`: the benchmark runner of bench/workloads.hpp (the same code as
// build/upsample_bench), with the library's default thread count.
#include <string>
#include <vector>

#include "commands.hpp"
#include "upsample/resample.hpp"
#include "workloads.hpp"

namespace upsample::cli {

int run_bench(const std::vector<std::string>& args) {
  return upsample::bench::run_command("upsample bench", upsample::default_num_threads(), args);
}

}  // namespace upsample::cli
