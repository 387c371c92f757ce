// `upsample bench`: the standard workloads (bench/workloads.hpp, the same code as
// build/upsample_bench) or custom shapes, timed next to the read-once/write-once floor kernel.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "workloads.hpp"

namespace upsample::cli {
namespace {

namespace wl = upsample::bench;

void print_help() {
  std::printf(
      "Usage: upsample bench [--workload LIST] [--shape SPEC ...] [options]\n"
      "\n"
      "Times resampling through the native API: the standard workloads W1-W19 (and W5e) of\n"
      "the project's benchmark, or custom shapes. For each: make_plan once, buffers allocated\n"
      "once and filled with random values, warm-up runs, then R timed execute() calls (R\n"
      "adaptive: about --time-ms of runs, at least 20, at most 5000). Then the floor kernel\n"
      "runs R times with the same threads: it reads every input byte once and writes every\n"
      "output byte once, the limit of a memory-bound operator on this machine, measured in\n"
      "the same run.\n"
      "\n"
      "Columns: median and min ms of the R runs, GB/s = (input + output bytes) / median, the\n"
      "floor's median ms, and x floor = median / floor median (1 would be ideal).\n"
      "\n"
      "Selection (default: every standard workload):\n"
      "  --workload LIST   comma-separated workload names, e.g. W1,W3,W7 (case-insensitive)\n"
      "  --shape SPEC      a custom workload NxCxHxW:HOxWO (input N, C and 1-3 spatial sizes,\n"
      "                    then the output's spatial sizes), e.g. 1x3x512x512:1024x1024;\n"
      "                    repeatable; these options describe every --shape:\n"
      "    --mode MODE       nearest, nearest-exact, linear (1-3 spatial dims: linear,\n"
      "                      bilinear, trilinear; 'bilinear' is accepted) or bicubic\n"
      "                      (default linear)\n"
      "    --antialias       anti-aliased linear / bicubic\n"
      "    --align-corners   align_corners=True\n"
      "    --backward        time the backward pass (src = grad of the output)\n"
      "    --dtype DTYPE     float32 (default), float16, bfloat16, float64, uint8\n"
      "    --channels-last   NHWC (NLC, NDHWC) memory instead of NCHW\n"
      "  --list            list the standard workloads and exit\n"
      "\n"
      "Options:\n"
      "  --threads N       library and floor threads (default: UPSAMPLE_NUM_THREADS or every\n"
      "                    core; the published tables use 2)\n"
      "  --reps N          timed runs per workload (default: adaptive)\n"
      "  --time-ms T       adaptive target of timed library time per workload (default 500)\n"
      "  --json            one JSON document on stdout: {simd, threads, results: [{workload,\n"
      "                    operator, reps, ms_median, ms_min, floor_ms, floor_min_ms,\n"
      "                    gb_per_s, x_floor, bytes, plan[, error]}]}\n"
      "  --describe        print each plan's describe() under its row\n"
      "  -h, --help        print this help\n"
      "\n"
      "On a terminal, a progress line on stderr shows the run once it has taken a second.\n"
      "\n"
      "Exit status: 0 every workload ran, 1 the library refused one (its row says why),\n"
      "2 usage error.\n");
}

int usage_error(const std::string& what) {
  std::fprintf(stderr, "upsample bench: %s (see 'upsample bench --help')\n", what.c_str());
  return 2;
}

bool parse_int(const std::string& text, int lo, int hi, int* value) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  const int v = std::atoi(text.c_str());
  if (v < lo || v > hi) return false;
  *value = v;
  return true;
}

// A progress line on stderr, shown only on a terminal and only once the run has taken a
// second; refreshed at most every 100 ms; cleared before each result row is printed.
class ProgressLine {
 public:
  explicit ProgressLine(size_t total)
      : enabled_(isatty(fileno(stderr)) != 0), total_(total), start_(Clock::now()) {}
  void update(size_t index, const wl::Workload& w, const wl::Progress& p) {
    if (!enabled_) return;
    const auto now = Clock::now();
    if (now - start_ < std::chrono::seconds(1)) return;
    if (shown_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    shown_ = true;
    char counts[64] = "";
    if (p.total > 0) std::snprintf(counts, sizeof counts, " %d/%d", p.done, p.total);
    std::fprintf(stderr, "\r\033[K[%zu/%zu] %s %s: %s%s, %.0f s", index + 1, total_,
                 w.name.c_str(), w.what.c_str(), p.phase, counts,
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

std::optional<Mode> parse_mode(const std::string& text) {
  if (text == "nearest") return Mode::kNearest;
  if (text == "nearest-exact") return Mode::kNearestExact;
  if (text == "linear" || text == "bilinear" || text == "trilinear") return Mode::kLinear;
  if (text == "bicubic" || text == "cubic") return Mode::kCubic;
  return {};
}

std::optional<DType> parse_dtype(const std::string& text) {
  if (text == "float32") return DType::kFloat32;
  if (text == "float16") return DType::kFloat16;
  if (text == "bfloat16") return DType::kBFloat16;
  if (text == "float64") return DType::kFloat64;
  if (text == "uint8") return DType::kUInt8;
  return {};
}

}  // namespace

int run_bench(const std::vector<std::string>& args) {
  std::vector<std::string> names, shapes;
  std::string mode_text = "linear", dtype_text = "float32";
  bool antialias = false, align_corners = false, backward = false, channels_last = false;
  bool json = false, describe = false, list = false;
  bool shape_options = false;  // one of the options that describe --shape workloads
  wl::RunOptions run;
  run.threads = upsample::default_num_threads();
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    std::optional<std::string> inline_value;
    if (const size_t eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value = a.substr(eq + 1);
      a = a.substr(0, eq);
    }
    std::string v;
    auto value = [&]() -> bool {
      if (inline_value) {
        v = *inline_value;
        return true;
      }
      if (i + 1 >= args.size()) return false;
      v = args[++i];
      return true;
    };
    auto flag = [&](bool* dst) -> std::string {
      if (inline_value) return a + " takes no value";
      *dst = true;
      return "";
    };
    std::string err;
    if (a == "-h" || a == "--help") {
      print_help();
      return 0;
    } else if (a == "--workload" || a == "--workloads" || a == "--shape" || a == "--mode" ||
               a == "--dtype" || a == "--threads" || a == "--reps" || a == "--time-ms") {
      if (!value()) return usage_error(a + " needs a value");
      if (a == "--workload" || a == "--workloads") {
        for (const std::string& s : wl::split_commas(v)) names.push_back(s);
        if (wl::split_commas(v).empty()) return usage_error(a + " needs a workload name");
      } else if (a == "--shape") {
        shapes.push_back(v);
      } else if (a == "--mode") {
        mode_text = v;
        shape_options = true;
      } else if (a == "--dtype") {
        dtype_text = v;
        shape_options = true;
      } else if (a == "--threads") {
        if (!parse_int(v, 1, 4096, &run.threads)) {
          return usage_error("--threads must be a whole number from 1 to 4096, got '" + v + "'");
        }
      } else if (a == "--reps") {
        if (!parse_int(v, 1, 1000000, &run.reps)) {
          return usage_error("--reps must be a whole number from 1 to 1000000, got '" + v + "'");
        }
      } else {
        int ms = 0;
        if (!parse_int(v, 1, 600000, &ms)) {
          return usage_error("--time-ms must be a whole number from 1 to 600000, got '" + v +
                             "'");
        }
        run.target_ms = ms;
      }
    } else if (a == "--antialias") {
      err = flag(&antialias);
      shape_options = true;
    } else if (a == "--align-corners") {
      err = flag(&align_corners);
      shape_options = true;
    } else if (a == "--backward") {
      err = flag(&backward);
      shape_options = true;
    } else if (a == "--channels-last") {
      err = flag(&channels_last);
      shape_options = true;
    } else if (a == "--json") {
      err = flag(&json);
    } else if (a == "--describe") {
      err = flag(&describe);
    } else if (a == "--list") {
      err = flag(&list);
    } else if (a.rfind("-", 0) == 0) {
      err = "unknown option '" + a + "'";
    } else {
      err = "unexpected argument '" + a + "'";
    }
    if (!err.empty()) return usage_error(err);
  }

  if (list) {
    for (const wl::Workload& w : wl::standard_workloads()) {
      std::printf("%-4s %-22s %s\n", w.name.c_str(), w.what.c_str(),
                  wl::shape_label(w.in, w.out).c_str());
    }
    return 0;
  }

  std::vector<wl::Workload> selected;
  for (const std::string& name : names) {
    const wl::Workload* w = wl::find_workload(name);
    if (w == nullptr) {
      return usage_error("unknown workload '" + name + "' (see 'upsample bench --list')");
    }
    selected.push_back(*w);
  }
  const std::optional<Mode> mode = parse_mode(mode_text);
  if (!mode) {
    return usage_error("unknown --mode '" + mode_text +
                       "' (expected nearest, nearest-exact, linear, bilinear or bicubic)");
  }
  const std::optional<DType> dtype = parse_dtype(dtype_text);
  if (!dtype) {
    return usage_error("unknown --dtype '" + dtype_text +
                       "' (expected float32, float16, bfloat16, float64 or uint8)");
  }
  for (size_t k = 0; k < shapes.size(); ++k) {
    wl::Workload w;
    if (const std::string err = wl::parse_shape(shapes[k], &w.in, &w.out); !err.empty()) {
      return usage_error("--shape " + err);
    }
    w.name = std::string("S").append(std::to_string(k + 1));
    w.mode = *mode;
    w.dir = backward ? Direction::kBackward : Direction::kForward;
    w.antialias = antialias;
    w.align_corners = align_corners;
    w.dtype = *dtype;
    w.channels_last = channels_last;
    const int rank = static_cast<int>(w.in.size()) - 2;
    w.what = wl::operator_label(w.mode, antialias, rank, w.dir, w.dtype, channels_last) + " " +
             wl::shape_label(w.in, w.out);
    selected.push_back(w);
  }
  if (shapes.empty() && shape_options) {
    return usage_error("--mode, --antialias, --align-corners, --backward, --dtype and "
                       "--channels-last describe --shape workloads; give a --shape");
  }
  if (selected.empty()) selected = wl::standard_workloads();
  int what_width = 22;
  for (const wl::Workload& w : selected) {
    what_width = std::max(what_width, static_cast<int>(w.what.size()));
  }

  wl::Pool pool(run.threads);
  ProgressLine progress(selected.size());
  std::vector<wl::Result> results;
  std::string simd;
  if (!json) wl::print_table_header(stdout, what_width);
  bool failed = false;
  for (size_t k = 0; k < selected.size(); ++k) {
    const wl::Workload& w = selected[k];
    wl::RunOptions opts = run;
    opts.progress = [&](const wl::Progress& p) { progress.update(k, w, p); };
    progress.update(k, w, wl::Progress{"planning", 0, 0});
    wl::Result r = wl::run_workload(w, opts, pool);
    progress.clear();
    if (simd.empty()) simd = wl::simd_from_describe(r.describe);
    if (!r.ok()) failed = true;
    if (!json) wl::print_table_row(stdout, r, describe, what_width);
    results.push_back(std::move(r));
  }
  if (json) {
    wl::print_json(stdout, simd, run.threads, results);
  } else {
    std::printf("\nsimd %s, %d threads; floor = read every input byte once and write every "
                "output byte once, same threads, same run\n",
                simd.empty() ? "?" : simd.c_str(), run.threads);
  }
  return failed ? 1 : 0;
}

}  // namespace upsample::cli
