// upsample_bench: the benchmark runner of bench/workloads.hpp as a standalone program (the same
// command line as `upsample bench`, with 2 threads by default, the thread count of the published
// tables). bench/compare.py drives it with --workload W --json.
#include <string>
#include <vector>

#include "workloads.hpp"

int main(int argc, char** argv) {
  return upsample::bench::run_command("upsample_bench", 2,
                                      std::vector<std::string>(argv + 1, argv + argc));
}
