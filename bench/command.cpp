// The command line of both benchmark front ends (run_command in bench/workloads.hpp):
// `upsample bench` (tools/bench.cpp) and build/upsample_bench (bench/bench_workloads.cpp).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "floor.hpp"
#include "tools/args.hpp"
#include "workloads.hpp"

namespace upsample::bench {
namespace {

void print_help(const std::string& program, int default_threads) {
  std::printf(
      "Usage: %s [--workload LIST] [--shape SPEC ...] [options]\n"
      "\n"
      "Times resampling: the standard workloads W1-W19 (and W5e) of the project's benchmark\n"
      "through the native API, the call-cost rows C1-C4 through the aclnn C API, or custom\n"
      "shapes. For each: the call is prepared once (buffers allocated once, filled with random\n"
      "values), warm-up calls, then R timed calls (R adaptive: about --time-ms of calls, at\n"
      "least 20, at most 5000). Then the floor runs R times with ordinary stores and R times\n"
      "with non-temporal stores, same threads, same buffers: it reads every input byte once\n"
      "and writes every output byte once with full-width vector loads and stores, the limit\n"
      "of a memory-bound operator on this machine. The floor is the faster variant.\n"
      "\n"
      "Columns: median and min ms of the R calls, GB/s = (input + output bytes) / median, the\n"
      "floor's median ms, x floor = median / floor (1 would be ideal), and the medians of both\n"
      "floor variants ((NT): the non-temporal one is the floor).\n"
      "\n"
      "Selection (default: every standard workload):\n"
      "  --workload LIST   comma-separated workload names, e.g. W1,W3,C3 (case-insensitive):\n"
      "                    C1 a CANN-style aclnn call on W1 (GetWorkspaceSize, aclrtMalloc,\n"
      "                    launch, synchronize, aclrtFree), C2 phase 2 + synchronize alone on\n"
      "                    W1 (repeatable executor, workspace reused), C3 and C4 the same at\n"
      "                    1x3x32x32->64x64 and 1x16x8x8->16x16\n"
      "  --shape SPEC      a custom workload NxCxHxW:HOxWO (input N, C and 1-3 spatial sizes,\n"
      "                    then the output's spatial sizes), e.g. 1x3x512x512:1024x1024;\n"
      "                    repeatable; these options describe every --shape:\n"
      "    --mode MODE       nearest, nearest-exact, linear (1-3 spatial dims: linear,\n"
      "                      bilinear, trilinear; 'bilinear' is accepted), bicubic or area\n"
      "                      (default linear)\n"
      "    --antialias       anti-aliased linear / bicubic\n"
      "    --align-corners   align_corners=True\n"
      "    --backward        time the backward pass (src = grad of the output)\n"
      "    --dtype DTYPE     float32 (default), float16, bfloat16, float64, uint8, uint16\n"
      "    --channels-last   NHWC (NLC, NDHWC) memory instead of NCHW\n"
      "  --list            list the standard workloads and exit\n"
      "\n"
      "Options:\n"
      "  --threads N       library and floor threads (default %d%s)\n"
      "  --reps N          timed runs per workload (default: adaptive)\n"
      "  --time-ms T       adaptive target of timed library time per workload (default 500)\n"
      "  --json            one JSON document on stdout: {simd, threads, floor_target,\n"
      "                    floor_vector_bytes, results: [{workload, operator, call, shape,\n"
      "                    reps, ms_median, ms_min, floor_ms, floor_min_ms, floor_variant,\n"
      "                    floor_normal_ms, floor_normal_min_ms, floor_streaming_ms,\n"
      "                    floor_streaming_min_ms, gb_per_s, x_floor, src_bytes, dst_bytes,\n"
      "                    bytes, plan[, error]}]}\n"
      "  --describe        print each plan's describe() under its row\n"
      "  -h, --help        print this help\n"
      "\n"
      "On a terminal, a progress line on stderr shows the run once it has taken a second.\n"
      "\n"
      "Exit status: 0 every workload ran, 1 one failed (its row says why), 2 usage error.\n",
      program.c_str(), default_threads,
      program == "upsample_bench" ? "; the published tables use 2"
                                  : ": UPSAMPLE_NUM_THREADS or every core; the published "
                                    "tables use 2");
}

// A progress line on stderr, shown only on a terminal and only once the run has taken a
// second; refreshed at most every 100 ms; cleared before each result row is printed.
class ProgressLine {
 public:
  explicit ProgressLine(size_t total)
      : enabled_(isatty(fileno(stderr)) != 0), total_(total), start_(Clock::now()) {}
  void update(size_t index, const Workload& w, const Progress& p) {
    if (!enabled_) return;
    const auto now = Clock::now();
    if (now - start_ < std::chrono::seconds(1)) return;
    if (shown_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    shown_ = true;
    char counts[64] = "";
    if (p.total > 0) std::snprintf(counts, sizeof counts, " %d/%d", p.done, p.total);
    std::fprintf(stderr, "\r\033[K[%zu/%zu] %s %s: %s%s, %.0f s", index + 1, total_, w.name.c_str(),
                 w.what.c_str(), p.phase, counts,
                 std::chrono::duration<double>(now - start_).count());
    std::fflush(stderr);
  }
  void clear() {
    if (!shown_) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  size_t total_;
  Clock::time_point start_, last_;
  bool shown_ = false;
};

// What the command line asks for.
struct Request {
  std::vector<std::string> names, shapes;
  std::string mode_text = "linear", dtype_text = "float32";
  bool antialias = false, align_corners = false, backward = false, channels_last = false;
  bool json = false, describe = false, list = false, help = false;
  bool shape_options = false;  // one of the options that describe --shape workloads
  RunOptions run;
};

// The flags: their field of Request, and whether they describe --shape workloads.
struct Flag {
  const char* name;
  bool Request::*field;
  bool shape_option;
};
constexpr Flag kFlags[] = {
    {"--antialias", &Request::antialias, true}, {"--align-corners", &Request::align_corners, true},
    {"--backward", &Request::backward, true},   {"--channels-last", &Request::channels_last, true},
    {"--json", &Request::json, false},          {"--describe", &Request::describe, false},
    {"--list", &Request::list, false},
};

bool takes_value(const std::string& a) {
  return a == "--workload" || a == "--workloads" || a == "--shape" || a == "--mode" ||
         a == "--dtype" || a == "--threads" || a == "--reps" || a == "--time-ms";
}

// An option that takes a value (takes_value). Returns "" or the usage error.
std::string parse_value_option(cli::ArgReader& args, Request* req) {
  const std::string& a = args.name();
  if (a == "--threads") return args.int_value(1, 4096, &req->run.threads);
  if (a == "--reps") return args.int_value(1, 1000000, &req->run.reps);
  if (a == "--time-ms") {
    int ms = 0;
    std::string err = args.int_value(1, 600000, &ms);
    if (err.empty()) req->run.target_ms = ms;
    return err;
  }
  std::string v;
  if (std::string err = args.string_value(&v); !err.empty()) return err;
  if (a == "--workload" || a == "--workloads") {
    const std::vector<std::string> names = split_commas(v);
    if (names.empty()) return a + " needs a workload name";
    req->names.insert(req->names.end(), names.begin(), names.end());
  } else if (a == "--shape") {
    req->shapes.push_back(v);
  } else {
    (a == "--mode" ? req->mode_text : req->dtype_text) = v;
    req->shape_options = true;
  }
  return "";
}

// Parses `args` into *req; returns "" or the usage error.
std::string parse_args(const std::vector<std::string>& arg_list, Request* req) {
  cli::ArgReader args(arg_list);
  while (args.next()) {
    const std::string& a = args.name();
    if (a == "-h" || a == "--help") {
      req->help = true;
      return "";
    }
    std::string err;
    if (takes_value(a)) {
      err = parse_value_option(args, req);
    } else if (const Flag* f = std::find_if(std::begin(kFlags), std::end(kFlags),
                                            [&a](const Flag& f) { return a == f.name; });
               f != std::end(kFlags)) {
      err = args.flag(&(req->*(f->field)));
      req->shape_options = req->shape_options || f->shape_option;
    } else if (a.rfind("-", 0) == 0) {
      err = "unknown option '" + a + "'";
    } else {
      err = "unexpected argument '" + a + "'";
    }
    if (!err.empty()) return err;
  }
  return "";
}

// The workloads `req` selects, in order; returns "" or the usage error.
std::string select_workloads(const std::string& program, const Request& req,
                             std::vector<Workload>* selected) {
  for (const std::string& name : req.names) {
    const Workload* w = find_workload(name);
    if (w == nullptr) return "unknown workload '" + name + "' (see '" + program + " --list')";
    selected->push_back(*w);
  }
  const std::optional<Mode> mode = cli::parse_mode(req.mode_text, true);
  if (!mode) {
    return "unknown --mode '" + req.mode_text +
           "' (expected nearest, nearest-exact, linear, bilinear, bicubic or area)";
  }
  const std::optional<DType> dtype = cli::parse_dtype(req.dtype_text);
  if (!dtype) {
    return "unknown --dtype '" + req.dtype_text +
           "' (expected float32, float16, bfloat16, float64, uint8 or uint16)";
  }
  for (size_t k = 0; k < req.shapes.size(); ++k) {
    Workload w;
    if (const std::string err = parse_shape(req.shapes[k], &w.in, &w.out); !err.empty()) {
      return "--shape " + err;
    }
    w.name = std::string("S").append(std::to_string(k + 1));
    w.mode = *mode;
    w.dir = req.backward ? Direction::kBackward : Direction::kForward;
    w.antialias = req.antialias;
    w.align_corners = req.align_corners;
    w.dtype = *dtype;
    w.channels_last = req.channels_last;
    const int rank = static_cast<int>(w.in.size()) - 2;
    w.what = operator_label(w.mode, w.antialias, rank, w.dir, w.dtype, w.channels_last) + " " +
             shape_label(w.in, w.out);
    selected->push_back(w);
  }
  if (req.shapes.empty() && req.shape_options) {
    return "--mode, --antialias, --align-corners, --backward, --dtype and --channels-last "
           "describe --shape workloads; give a --shape";
  }
  if (selected->empty()) *selected = standard_workloads();
  return "";
}

}  // namespace

int run_command(const std::string& program, int default_threads,
                const std::vector<std::string>& args) {
  Request req;
  req.run.threads = default_threads;
  if (const std::string err = parse_args(args, &req); !err.empty()) {
    return cli::usage_error(program, err);
  }
  if (req.help) {
    print_help(program, default_threads);
    return 0;
  }
  if (req.list) {
    for (const Workload& w : standard_workloads()) {
      std::printf("%-4s %-25s %-10s %s\n", w.name.c_str(), w.what.c_str(), call_kind_name(w.call),
                  shape_label(w.in, w.out).c_str());
    }
    return 0;
  }
  std::vector<Workload> selected;
  if (const std::string err = select_workloads(program, req, &selected); !err.empty()) {
    return cli::usage_error(program, err);
  }
  int what_width = 22;
  for (const Workload& w : selected) {
    what_width = std::max(what_width, static_cast<int>(w.what.size()));
  }

  Pool pool(req.run.threads);
  ProgressLine progress(selected.size());
  std::vector<Result> results;
  std::string simd;
  if (!req.json) print_table_header(stdout, what_width);
  bool failed = false;
  for (size_t k = 0; k < selected.size(); ++k) {
    const Workload& w = selected[k];
    RunOptions opts = req.run;
    opts.progress = [&](const Progress& p) { progress.update(k, w, p); };
    progress.update(k, w, Progress{"planning", 0, 0});
    Result r = run_workload(w, opts, pool);
    progress.clear();
    if (simd.empty()) simd = simd_from_describe(r.describe);
    if (!r.ok()) failed = true;
    if (!req.json) print_table_row(stdout, r, req.describe, what_width);
    results.push_back(std::move(r));
  }
  if (req.json) {
    print_json(stdout, simd, req.run.threads, results);
  } else {
    std::printf(
        "\nsimd %s, %d threads; floor = read every input byte once and write every "
        "output byte once, same threads, same run, %zu-byte vectors (%s), the faster "
        "of ordinary and non-temporal stores\n",
        simd.empty() ? "?" : simd.c_str(), req.run.threads, floor_vector_bytes(), floor_target());
  }
  return failed ? 1 : 0;
}

}  // namespace upsample::bench
