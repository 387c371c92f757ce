// The benchmark runner, shared by build/upsample_bench (bench/bench_workloads.cpp) and
// `upsample bench` (tools/bench.cpp), which are thin front ends over run_command(): one table
// of workloads (W1-W19 and W5e, and the call-cost rows C1-C4), one timing loop, one floor
// kernel (bench/floor.hpp), one result record, one text table and one JSON document.
// bench/README.md describes the workloads and the method.
//
// Timing of one workload (run_workload): the call is prepared once (a plan, or an aclnn
// executor and stream; src, dst and workspace allocated once, src filled with uniform random
// values in [-1, 1]); 3 warm-up calls (with adaptive repetitions, more until ~30 ms are spent,
// at most 50, whose median sizes R); then R timed calls (std::chrono::steady_clock around each);
// then the floor on the same src and dst buffers with the same thread count: 3 warm-up and R
// timed runs with ordinary stores, then the same with non-temporal stores. R is adaptive by
// default (enough calls for RunOptions::target_ms, at least 20, at most 5000); RunOptions::reps
// fixes it. Reported: median and min of the R calls, both floor variants' median and min, the
// floor (the variant with the lower median), and GB/s = (src bytes + dst bytes) / median.
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

// How the timed call of a workload is made.
enum class CallKind {
  kNative,    // upsample::execute() on a plan made once (the W rows and custom shapes)
  kCannCall,  // one aclnn call as CANN's examples make it: aclnnUpsampleBilinear2dGetWorkspaceSize,
              // aclrtMalloc of the workspace, aclnnUpsampleBilinear2d on a stream created once,
              // aclrtSynchronizeStream, aclrtFree
  kPhase2,    // aclnnUpsampleBilinear2d + aclrtSynchronizeStream alone: a repeatable executor
              // and a workspace made once
};

// "native", "cann-call" or "phase2".
const char* call_kind_name(CallKind kind);

struct Workload {
  std::string name;  // "W1" ..., "C1" ..., or "S1" ... for custom shapes
  std::string what;  // "bilinear2d fwd"
  Mode mode = Mode::kLinear;
  Direction dir = Direction::kForward;
  bool antialias = false;
  DType dtype = DType::kFloat32;
  bool channels_last = false;
  std::vector<int64_t> in;   // forward input sizes  N, C, spatial...
  std::vector<int64_t> out;  // forward output sizes N, C, spatial...
  bool align_corners = false;
  CallKind call = CallKind::kNative;  // kCannCall and kPhase2: bilinear2d fwd float32 NCHW only
};

// W1-W19 and W5e, then C1-C4, in table order.
const std::vector<Workload>& standard_workloads();
// Case-insensitive lookup in standard_workloads(); nullptr when unknown.
const Workload* find_workload(const std::string& name);

// Parses a custom shape "NxCxHxW:HOxWO" (input sizes N, C, spatial..., then the output's
// spatial sizes; 1 to 3 spatial dims) into forward input and output sizes. Returns "" or an
// error text.
std::string parse_shape(const std::string& text, std::vector<int64_t>* in,
                        std::vector<int64_t>* out);
// "bilinear2d fwd" style label of an operator.
std::string operator_label(Mode mode, bool antialias, int spatial_rank, Direction dir, DType dtype,
                           bool channels_last);
// "1x3x512x512->1024x1024"
std::string shape_label(const std::vector<int64_t>& in, const std::vector<int64_t>& out);

// The native-API call of a workload: its operator, and its src and dst tensors (src the forward
// input, or for a backward row the gradient of the output).
struct NativeCall {
  OpDesc op;
  TensorDesc src, dst;
};
NativeCall native_call(const Workload& w);

// Fills `n` elements of `dtype` at `data` with values drawn uniformly from [-1, 1] (integers
// from [0, 255] for uint8, [0, 65535] for uint16), stored through the library's codec
// (src/core/dtype.hpp): float16 and bfloat16 are rounded as the kernels round, subnormals kept.
void fill_random(void* data, int64_t n, DType dtype, uint32_t seed);

// A minimal persistent thread pool for the floor kernel: worker t runs task(t) for t in
// 1..n-1, the caller runs task(0). Waiting threads spin briefly, then yield their core; a worker
// sleeps before its first task and from 5 ms after its last (Pool::loop).
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

// Progress of one workload: `phase` is "planning", "warm-up", "library" or "floor"; done of
// total runs (total 0: unknown).
struct Progress {
  const char* phase;
  int done;
  int total;
};

struct RunOptions {
  int threads = 2;           // the library's threads and the floor's
  int reps = 0;              // 0: adaptive
  double target_ms = 500.0;  // adaptive: about this much timed library time
  // Called between timed runs (never inside one); may be empty.
  std::function<void(const Progress&)> progress;
};

// Median and minimum of a set of single-run times, in ms.
struct Timing {
  double median = 0, min = 0;
};
Timing timing_of(std::vector<double> ms);

struct Result {
  std::string name, what, shape, error, describe;
  CallKind call = CallKind::kNative;
  int reps = 0;
  double ms_median = 0, ms_min = 0;
  Timing floor_normal, floor_streaming;  // the two floor variants
  bool floor_streaming_wins = false;     // the floor is the non-temporal variant
  double floor_ms = 0, floor_min = 0;    // the floor: median and min of the faster variant
  int64_t src_bytes = 0, dst_bytes = 0;
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

// The text table; `what_width` is the operator column's.
void print_table_header(std::FILE* out, int what_width = 22);
void print_table_row(std::FILE* out, const Result& r, bool describe, int what_width = 22);
// The JSON document of `--json` (read by bench/compare.py):
// {"simd", "threads", "floor_target", "floor_vector_bytes", "results": [{workload, operator,
// call, shape, reps, ms_median, ms_min, floor_ms, floor_min_ms, floor_variant, floor_normal_ms,
// floor_normal_min_ms, floor_streaming_ms, floor_streaming_min_ms, gb_per_s, x_floor,
// src_bytes, dst_bytes, bytes, plan[, error]}]}.
void print_json(std::FILE* out, const std::string& simd, int threads,
                const std::vector<Result>& results);

// The command line of both front ends: `program` ("upsample bench", "upsample_bench") names
// them in help and error texts; `default_threads` is used without --threads. Returns the exit
// status: 0 every workload ran, 1 one failed (its row says why), 2 usage error.
int run_command(const std::string& program, int default_threads,
                const std::vector<std::string>& args);

}  // namespace upsample::bench
