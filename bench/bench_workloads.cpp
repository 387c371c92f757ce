// upsample_bench: times the standard workloads W1-W19 (see /work/shared/bench/workloads.md)
// through the native C++ API, next to a "floor" kernel that only reads the input bytes once and
// writes the output bytes once with the same number of threads.
//
//   upsample_bench [--workload W1,W2,...] [--threads N] [--reps N] [--json] [--describe]
//
// The workload table, the timing loop and the floor kernel live in bench/workloads.{hpp,cpp},
// shared with `upsample bench`; this file is only the command line of the standalone binary
// (its flags and JSON output are what bench/compare.py drives).
//
// For each workload: make_plan once; src, dst and workspace allocated once (64-byte aligned);
// src filled with random data; 3 warm-up runs; then R timed runs (std::chrono::steady_clock per
// run). R is adaptive by default (at least 20, enough for ~0.5 s of timed runs of the library, at
// most 5000); --reps N fixes it. The library's R runs come first, then 3 warm-up runs and R timed
// runs of the floor. Reported: median and min of the R runs in ms, GB/s = (src bytes + dst
// bytes) / median, and the floor kernel's median over the same R.
//
// Forward rows: src = input [N, C, in...], dst = output [N, C, out...].
// Backward rows ("bwd"): src = grad of the output (shaped like the forward output), dst = grad
// of the input (shaped like the forward input).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "workloads.hpp"

namespace {

using upsample::bench::Workload;

void usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--workload W1,W2,...] [--threads N] [--reps N] [--json] "
               "[--describe] [--list]\n"
               "  --workload  comma-separated workload names (default: all)\n"
               "  --threads   ExecContext::num_threads and floor threads (default 2)\n"
               "  --reps      timed repetitions (default: adaptive, >= 20, ~0.5 s per workload)\n"
               "  --json      machine-readable output on stdout\n"
               "  --describe  print each plan's describe() (text mode)\n"
               "  --list      list the workloads and exit\n",
               argv0);
}

}  // namespace

int main(int argc, char** argv) {
  namespace bench = upsample::bench;
  std::vector<std::string> names;
  bench::RunOptions run;
  bool json = false, describe = false, list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* flag) -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", flag);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--workload" || a == "--workloads") {
      for (auto& s : bench::split_commas(value("--workload"))) names.push_back(s);
    } else if (a.rfind("--workload=", 0) == 0) {
      for (auto& s : bench::split_commas(a.substr(11))) names.push_back(s);
    } else if (a == "--threads") {
      run.threads = std::atoi(value("--threads").c_str());
    } else if (a == "--reps") {
      run.reps = std::atoi(value("--reps").c_str());
    } else if (a == "--json") {
      json = true;
    } else if (a == "--describe") {
      describe = true;
    } else if (a == "--list") {
      list = true;
    } else if (a == "-h" || a == "--help") {
      usage(argv[0]);
      return 0;
    } else {
      std::fprintf(stderr, "unknown argument: %s\n", a.c_str());
      usage(argv[0]);
      return 2;
    }
  }
  if (run.threads < 1) run.threads = 1;

  if (list) {
    for (const Workload& w : bench::standard_workloads()) {
      std::printf("%-4s %s\n", w.name.c_str(), w.what.c_str());
    }
    return 0;
  }
  std::vector<const Workload*> selected;
  if (names.empty()) {
    for (const Workload& w : bench::standard_workloads()) selected.push_back(&w);
  } else {
    for (const std::string& name : names) {
      const Workload* found = bench::find_workload(name);
      if (!found) {
        std::fprintf(stderr, "unknown workload: %s (try --list)\n", name.c_str());
        return 2;
      }
      selected.push_back(found);
    }
  }

  bench::Pool pool(run.threads);
  std::vector<bench::Result> results;
  std::string simd;
  if (!json) bench::print_table_header(stdout);
  for (const Workload* w : selected) {
    bench::Result r = bench::run_workload(*w, run, pool);
    if (simd.empty()) simd = bench::simd_from_describe(r.describe);
    if (!json) bench::print_table_row(stdout, r, describe);
    results.push_back(std::move(r));
  }

  if (json) {
    bench::print_json(stdout, simd, run.threads, results);
  } else if (!simd.empty()) {
    std::printf("simd %s, %d threads\n", simd.c_str(), run.threads);
  }
  return 0;
}
