// The timing loop of bench/workloads.hpp (run_workload), the native-API subject, and the text
// and JSON output.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <thread>

#include "floor.hpp"
#include "subject.hpp"
#include "workloads.hpp"

namespace upsample::bench {
namespace {

class NativeSubject final : public Subject {
 public:
  NativeSubject(Plan plan, size_t src_size, size_t dst_size, int threads)
      : plan_(std::move(plan)), src_(src_size), dst_(dst_size), ws_(plan_.workspace_bytes()) {
    src = src_.ptr;
    dst = dst_.ptr;
    src_bytes = src_size;
    dst_bytes = dst_size;
    describe = plan_.describe();
    ctx_.num_threads = threads;
  }
  bool call(std::string* error) override {
    const Status st =
        upsample::execute(plan_, src_.ptr, dst_.ptr, ws_.ptr, plan_.workspace_bytes(), ctx_);
    if (st.ok()) return true;
    *error = "execute: " + st.message;
    return false;
  }

 private:
  Plan plan_;
  AlignedBuffer src_, dst_, ws_;
  ExecContext ctx_;
};

using Clock = std::chrono::steady_clock;

template <class F>
double time_once_ms(F&& fn) {
  const auto t0 = Clock::now();
  fn();
  const auto t1 = Clock::now();
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

double sum_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

// Returns once the process has used less than 0.5 ms of CPU time over a 5 ms step (at most about
// 1 s, then with a warning on stderr), so that the floor does not share the cores with the
// library's idle threads: GNU OpenMP's workers spin for a while after a parallel region
// (docs/performance.md, "The floor measured while the library's threads spun").
void wait_until_idle() {
  const auto cpu_ms = [] {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
  };
  for (int step = 0; step < 200; ++step) {
    const double before = cpu_ms();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (cpu_ms() - before < 0.5) return;
  }
  std::fprintf(stderr, "upsample_bench: threads still busy after 1 s; the floor may be slow\n");
}

// 3 warm-up runs and `reps` timed runs of the floor with `stores`.
Timing time_floor(const Subject& s, int reps, Pool& pool, FloorStores stores,
                  const std::function<void(int)>& progress) {
  const std::function<void(int)> task = [&](int t) {
    floor_share(s.src, s.src_bytes, s.dst, s.dst_bytes, t, pool.size(), stores);
  };
  for (int i = 0; i < 3; ++i) pool.run(task);
  std::vector<double> ms;
  ms.reserve(reps);
  for (int i = 0; i < reps; ++i) {
    ms.push_back(time_once_ms([&] { pool.run(task); }));
    progress(i + 1);
  }
  return timing_of(std::move(ms));
}

}  // namespace

int64_t numel(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

std::unique_ptr<Subject> make_native_subject(const Workload& w, int threads, std::string* error) {
  const NativeCall call = native_call(w);
  Plan plan;
  const Status st = make_plan(call.op, call.src, call.dst, &plan);
  if (!st.ok()) {
    *error = "make_plan: " + st.message;
    return nullptr;
  }
  const size_t esize = dtype_size(w.dtype);
  auto s = std::make_unique<NativeSubject>(std::move(plan),
                                           static_cast<size_t>(call.src.numel()) * esize,
                                           static_cast<size_t>(call.dst.numel()) * esize, threads);
  fill_random(s->src, call.src.numel(), w.dtype, 12345u);
  std::memset(s->dst, 0, s->dst_bytes);
  return s;
}

Timing timing_of(std::vector<double> v) {
  Timing t;
  if (v.empty()) return t;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  t.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  t.min = v.front();
  return t;
}

Result run_workload(const Workload& w, const RunOptions& opt, Pool& pool) {
  Result r;
  r.name = w.name;
  r.what = w.what;
  r.call = w.call;
  r.shape = shape_label(w.in, w.out);
  const bool fwd = w.dir == Direction::kForward;
  const size_t esize = dtype_size(w.dtype);
  r.src_bytes = numel(fwd ? w.in : w.out) * static_cast<int64_t>(esize);
  r.dst_bytes = numel(fwd ? w.out : w.in) * static_cast<int64_t>(esize);
  r.bytes = r.src_bytes + r.dst_bytes;
  auto progress = [&](const char* phase, int done, int total) {
    if (opt.progress) opt.progress(Progress{phase, done, total});
  };

  std::unique_ptr<Subject> subject = w.call == CallKind::kNative
                                         ? make_native_subject(w, opt.threads, &r.error)
                                         : make_acl_subject(w, opt.threads, &r.error);
  if (!subject) return r;
  r.describe = subject->describe;

  // Warm up: 3 runs. With adaptive repetitions, a few more runs (until ~30 ms are spent, at
  // most 50 runs) estimate the time of one run; their median sizes R.
  std::vector<double> warm;
  bool ok = true;
  for (int i = 0; i < 3 || (opt.reps <= 0 && i < 50 && sum_of(warm) < 30.0); ++i) {
    warm.push_back(time_once_ms([&] { ok = subject->call(&r.error); }));
    if (!ok) return r;
    progress("warm-up", i + 1, 0);
  }
  int reps = opt.reps;
  if (reps <= 0) {
    const double one_ms = timing_of(warm).median;
    reps = static_cast<int>(std::ceil(opt.target_ms / std::max(one_ms, 1e-3)));
    reps = std::clamp(reps, 20, 5000);
  }
  r.reps = reps;

  std::vector<double> t_ours;
  t_ours.reserve(reps);
  for (int i = 0; i < reps && ok; ++i) {
    t_ours.push_back(time_once_ms([&] { ok = subject->call(&r.error); }));
    progress("library", i + 1, reps);
  }
  if (!ok) return r;
  const Timing ours = timing_of(std::move(t_ours));
  r.ms_median = ours.median;
  r.ms_min = ours.min;

  auto floor_progress = [&](int base) {
    return [&progress, base, reps](int done) { progress("floor", base + done, 2 * reps); };
  };
  wait_until_idle();
  r.floor_normal = time_floor(*subject, reps, pool, FloorStores::kNormal, floor_progress(0));
  r.floor_streaming =
      time_floor(*subject, reps, pool, FloorStores::kStreaming, floor_progress(reps));
  r.floor_streaming_wins = r.floor_streaming.median < r.floor_normal.median;
  const Timing& best = r.floor_streaming_wins ? r.floor_streaming : r.floor_normal;
  r.floor_ms = best.median;
  r.floor_min = best.min;
  return r;
}

// ---------------------------------------------------------------------------------------------
// Output.

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '"':
        o += "\\\"";
        break;
      case '\\':
        o += "\\\\";
        break;
      case '\n':
        o += "\\n";
        break;
      case '\t':
        o += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          o += buf;
        } else {
          o += c;
        }
    }
  }
  return o;
}

std::string simd_from_describe(const std::string& d) {
  const size_t at = d.find(" simd ");
  if (at == std::string::npos) return "";
  const size_t b = at + 6;
  size_t e = b;
  while (e < d.size() && d[e] != '\n' && d[e] != ' ') ++e;
  return d.substr(b, e - b);
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = s.find(',', start);
    const std::string item =
        s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

void print_table_header(std::FILE* out, int what_width) {
  std::fprintf(out, "%-4s %-*s %6s %10s %10s %8s %10s %8s  %s\n", "W", what_width, "operator",
               "reps", "median ms", "min ms", "GB/s", "floor ms", "x floor", "floor normal/NT ms");
}

void print_table_row(std::FILE* out, const Result& r, bool describe, int what_width) {
  if (!r.ok()) {
    std::fprintf(out, "%-4s %-*s error: %s\n", r.name.c_str(), what_width, r.what.c_str(),
                 r.error.c_str());
  } else {
    std::fprintf(out, "%-4s %-*s %6d %10.4f %10.4f %8.2f %10.4f %8.2f  %.4f/%.4f%s\n",
                 r.name.c_str(), what_width, r.what.c_str(), r.reps, r.ms_median, r.ms_min,
                 r.gbps(), r.floor_ms, r.x_floor(), r.floor_normal.median, r.floor_streaming.median,
                 r.floor_streaming_wins ? " (NT)" : "");
  }
  if (describe && !r.describe.empty()) std::fprintf(out, "     %s\n", r.describe.c_str());
  std::fflush(out);
}

void print_json(std::FILE* out, const std::string& simd, int threads,
                const std::vector<Result>& results) {
  std::fprintf(out,
               "{\n  \"simd\": \"%s\",\n  \"threads\": %d,\n  \"floor_target\": \"%s\",\n"
               "  \"floor_vector_bytes\": %zu,\n  \"results\": [",
               json_escape(simd).c_str(), threads, floor_target(), floor_vector_bytes());
  for (size_t i = 0; i < results.size(); ++i) {
    const Result& r = results[i];
    std::fprintf(out,
                 "%s\n    {\"workload\": \"%s\", \"operator\": \"%s\", \"call\": \"%s\", "
                 "\"shape\": \"%s\", \"reps\": %d, ",
                 i ? "," : "", json_escape(r.name).c_str(), json_escape(r.what).c_str(),
                 call_kind_name(r.call), json_escape(r.shape).c_str(), r.reps);
    if (r.ok()) {
      std::fprintf(out,
                   "\"ms_median\": %.6f, \"ms_min\": %.6f, \"floor_ms\": %.6f, "
                   "\"floor_min_ms\": %.6f, \"floor_variant\": \"%s\", "
                   "\"floor_normal_ms\": %.6f, \"floor_normal_min_ms\": %.6f, "
                   "\"floor_streaming_ms\": %.6f, \"floor_streaming_min_ms\": %.6f, "
                   "\"gb_per_s\": %.4f, \"x_floor\": %.4f, ",
                   r.ms_median, r.ms_min, r.floor_ms, r.floor_min,
                   r.floor_streaming_wins ? "non-temporal" : "normal", r.floor_normal.median,
                   r.floor_normal.min, r.floor_streaming.median, r.floor_streaming.min, r.gbps(),
                   r.x_floor());
    } else {
      std::fprintf(out,
                   "\"ms_median\": null, \"ms_min\": null, \"floor_ms\": null, "
                   "\"floor_min_ms\": null, \"floor_variant\": null, \"floor_normal_ms\": null, "
                   "\"floor_normal_min_ms\": null, \"floor_streaming_ms\": null, "
                   "\"floor_streaming_min_ms\": null, \"gb_per_s\": null, \"x_floor\": null, "
                   "\"error\": \"%s\", ",
                   json_escape(r.error).c_str());
    }
    std::fprintf(out,
                 "\"src_bytes\": %lld, \"dst_bytes\": %lld, \"bytes\": %lld, \"plan\": \"%s\"}",
                 static_cast<long long>(r.src_bytes), static_cast<long long>(r.dst_bytes),
                 static_cast<long long>(r.bytes), json_escape(r.describe).c_str());
  }
  std::fprintf(out, "\n  ]\n}\n");
}

}  // namespace upsample::bench
