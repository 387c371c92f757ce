// The benchmark workloads and the machinery that times them, shared by build/upsample_bench
// (bench/bench_workloads.cpp) and `upsample bench` (tools/bench.cpp): one table of workloads
// (W1-W19 of /work/shared/bench/workloads.md, plus W5e), one timing loop, one floor kernel.
//
// Timing of one workload (run_workload): make_plan once; src, dst and workspace allocated once,
// 64-byte aligned; src filled with uniform random values in [-1, 1]; 3 warm-up runs (with
// adaptive repetitions, more until ~30 ms are spent, at most 50, whose median sizes R); then R
// timed runs of the library (std::chrono::steady_clock around each execute()); then 3 warm-up
// runs and R timed runs of the floor kernel with the same thread count. R is adaptive by default
// (enough runs for RunOptions::target_ms of the library's time, at least 20, at most 5000);
// RunOptions::reps fixes it. Reported: median and min of the R runs, the floor's median and min,
// and GB/s = (src bytes + dst bytes) / median.
//
// The floor kernel reads every input byte once and writes every output byte once with the same
// number of threads (see floor_range in workloads.cpp): the physical limit of a memory-bound
// operator on the machine, measured in the same run.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "upsample/resample.hpp"

namespace upsample::bench {

struct Workload {
  std::string name;  // "W1" ... or "S1" ... for custom shapes
  std::string what;  // "bilinear2d fwd"
  Mode mode = Mode::kLinear;
  Direction dir = Direction::kForward;
  bool antialias = false;
  DType dtype = DType::kFloat32;
  bool channels_last = false;
  std::vector<int64_t> in;   // forward input sizes  N, C, spatial...
  std::vector<int64_t> out;  // forward output sizes N, C, spatial...
  bool align_corners = false;
};

// W1-W19 and W5e, in table order.
const std::vector<Workload>& standard_workloads();
// Case-insensitive lookup in standard_workloads(); nullptr when unknown.
const Workload* find_workload(const std::string& name);

// Parses a custom shape "NxCxHxW:HOxWO" (input sizes N, C, spatial..., then the output's
// spatial sizes; 1 to 3 spatial dims) into forward input and output sizes. Returns "" or an
// error text.
std::string parse_shape(const std::string& text, std::vector<int64_t>* in,
                        std::vector<int64_t>* out);
// "bilinear2d fwd" style label of an operator.
std::string operator_label(Mode mode, bool antialias, int spatial_rank, Direction dir,
                           DType dtype, bool channels_last);
// "1x3x512x512->1024x1024"
std::string shape_label(const std::vector<int64_t>& in, const std::vector<int64_t>& out);

// A minimal persistent thread pool for the floor kernel: worker t runs task(t) for t in
// 1..n-1, the caller runs task(0). Workers spin for a while after each job, then sleep.
class Pool {
 public:
  explicit Pool(int n);
  ~Pool();
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;
  int size() const { return n_; }
  void run(const std::function<void(int)>& task);

 private:
  void loop(int t);
  int n_;
  std::vector<std::thread> workers_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
  const std::function<void(int)>* task_ = nullptr;
};

// Progress of one workload: `phase` is "warm-up", "library" or "floor"; done of total runs.
struct Progress {
  const char* phase;
  int done;
  int total;
};

struct RunOptions {
  int threads = 2;           // ExecContext::num_threads and the floor's threads
  int reps = 0;              // 0: adaptive
  double target_ms = 500.0;  // adaptive: about this much timed library time
  // Called between timed runs (never inside one); may be empty.
  std::function<void(const Progress&)> progress;
};

struct Result {
  std::string name, what, error, describe;
  int reps = 0;
  double ms_median = 0, ms_min = 0, floor_ms = 0, floor_min = 0;
  int64_t bytes = 0;  // src bytes + dst bytes
  bool ok() const { return error.empty(); }
  double gbps() const { return ms_median > 0 ? bytes / (ms_median * 1e-3) / 1e9 : 0.0; }
  double x_floor() const { return floor_ms > 0 ? ms_median / floor_ms : 0.0; }
};

// Times one workload with `pool` (whose size should be options.threads) for the floor.
Result run_workload(const Workload& w, const RunOptions& options, Pool& pool);

// "... simd AVX2\n  pass ..." -> "AVX2" ("" when absent).
std::string simd_from_describe(const std::string& describe);
std::string json_escape(const std::string& s);
std::vector<std::string> split_commas(const std::string& s);

// The text table of upsample_bench and `upsample bench`; `what_width` is the operator column's.
void print_table_header(std::FILE* out, int what_width = 22);
void print_table_row(std::FILE* out, const Result& r, bool describe, int what_width = 22);
// The JSON document of `upsample_bench --json` (read by bench/compare.py):
// {"simd", "threads", "results": [{workload, operator, reps, ms_median, ms_min, floor_ms,
// floor_min_ms, gb_per_s, x_floor, bytes, plan[, error]}]}.
void print_json(std::FILE* out, const std::string& simd, int threads,
                const std::vector<Result>& results);

}  // namespace upsample::bench
