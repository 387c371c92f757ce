// upsample_bench: times the standard workloads W1-W19 (see /work/shared/bench/workloads.md)
// through the native C++ API, next to a "floor" kernel that only reads the input bytes once and
// writes the output bytes once with the same number of threads.
//
//   upsample_bench [--workload W1,W2,...] [--threads N] [--reps N] [--json] [--describe]
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
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "upsample/resample.hpp"

namespace {

using upsample::Direction;
using upsample::DType;
using upsample::Mode;
using upsample::TensorDesc;

// ---------------------------------------------------------------------------------------------
// Workloads.

struct Workload {
  const char* name;
  const char* what;
  Mode mode;
  Direction dir;
  bool antialias;
  DType dtype;
  bool channels_last;
  std::vector<int64_t> in;   // forward input sizes  N, C, spatial...
  std::vector<int64_t> out;  // forward output sizes N, C, spatial...
};

std::vector<Workload> all_workloads() {
  const auto F = Direction::kForward;
  const auto B = Direction::kBackward;
  const auto f32 = DType::kFloat32;
  const std::vector<int64_t> w1_in{8, 32, 64, 64}, w1_out{8, 32, 128, 128};
  const std::vector<int64_t> w3_in{1, 3, 512, 512}, w3_out{1, 3, 1024, 1024};
  const std::vector<int64_t> w7_in{1, 3, 1024, 1024}, w7_out{1, 3, 256, 256};
  const std::vector<int64_t> w9_out{1, 3, 224, 224};
  const std::vector<int64_t> w11_in{16, 64, 4096}, w11_out{16, 64, 8192};
  const std::vector<int64_t> w13_in{2, 16, 32, 32, 32}, w13_out{2, 16, 64, 64, 64};
  const std::vector<int64_t> w19_in{1, 3, 2048, 2048}, w19_out{1, 3, 4096, 4096};
  return {
      {"W1", "bilinear2d fwd", Mode::kLinear, F, false, f32, false, w1_in, w1_out},
      {"W2", "bilinear2d bwd", Mode::kLinear, B, false, f32, false, w1_in, w1_out},
      {"W3", "bicubic2d fwd", Mode::kCubic, F, false, f32, false, w3_in, w3_out},
      {"W4", "bicubic2d bwd", Mode::kCubic, B, false, f32, false, w3_in, w3_out},
      {"W5", "nearest2d fwd", Mode::kNearest, F, false, f32, false, w1_in, w1_out},
      {"W5e", "nearest-exact2d fwd", Mode::kNearestExact, F, false, f32, false, w1_in, w1_out},
      {"W6", "nearest2d bwd", Mode::kNearest, B, false, f32, false, w1_in, w1_out},
      {"W7", "bilinear AA fwd", Mode::kLinear, F, true, f32, false, w7_in, w7_out},
      {"W8", "bilinear AA bwd", Mode::kLinear, B, true, f32, false, w7_in, w7_out},
      {"W9", "bicubic AA fwd", Mode::kCubic, F, true, f32, false, w7_in, w9_out},
      {"W10", "bicubic AA bwd", Mode::kCubic, B, true, f32, false, w7_in, w9_out},
      {"W11", "linear1d fwd", Mode::kLinear, F, false, f32, false, w11_in, w11_out},
      {"W12", "linear1d bwd", Mode::kLinear, B, false, f32, false, w11_in, w11_out},
      {"W13", "trilinear3d fwd", Mode::kLinear, F, false, f32, false, w13_in, w13_out},
      {"W14", "trilinear3d bwd", Mode::kLinear, B, false, f32, false, w13_in, w13_out},
      {"W15", "bilinear2d fwd NHWC", Mode::kLinear, F, false, f32, true, w1_in, w1_out},
      {"W16", "bilinear2d bwd NHWC", Mode::kLinear, B, false, f32, true, w1_in, w1_out},
      {"W17", "bilinear2d fwd bf16", Mode::kLinear, F, false, DType::kBFloat16, false, w1_in,
       w1_out},
      {"W18", "bilinear2d fwd fp16", Mode::kLinear, F, false, DType::kFloat16, false, w1_in,
       w1_out},
      {"W19", "bilinear2d fwd large", Mode::kLinear, F, false, f32, false, w19_in, w19_out},
  };
}

TensorDesc make_desc(DType dtype, bool channels_last, const std::vector<int64_t>& sizes) {
  // TensorDesc::contiguous / channels_last take an initializer_list; build it by rank.
  auto build = [&](std::initializer_list<int64_t> s) {
    return channels_last ? TensorDesc::channels_last(dtype, s) : TensorDesc::contiguous(dtype, s);
  };
  switch (sizes.size()) {
    case 3: return build({sizes[0], sizes[1], sizes[2]});
    case 4: return build({sizes[0], sizes[1], sizes[2], sizes[3]});
    default: return build({sizes[0], sizes[1], sizes[2], sizes[3], sizes[4]});
  }
}

int64_t numel(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// ---------------------------------------------------------------------------------------------
// Memory.

struct AlignedBuffer {
  void* ptr = nullptr;
  size_t bytes = 0;
  explicit AlignedBuffer(size_t n) : bytes(n) {
    const size_t rounded = ((std::max<size_t>(n, 1) + 63) / 64) * 64;
    ptr = ::operator new(rounded, std::align_val_t(64));
  }
  ~AlignedBuffer() { ::operator delete(ptr, std::align_val_t(64)); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
};

uint16_t float_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7FFFu + ((u >> 16) & 1u);  // round to nearest even (inputs are finite)
  return static_cast<uint16_t>(u >> 16);
}

uint16_t float_to_fp16(float f) {  // for |f| <= 1: normal or zero-ish halfs, round to nearest
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const int exp = static_cast<int>((u >> 23) & 0xFF) - 127 + 15;
  uint32_t mant = u & 0x7FFFFFu;
  if (exp <= 0) return static_cast<uint16_t>(sign);  // tiny: flush to signed zero
  uint32_t h = (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  const uint32_t rest = mant & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

void fill_random(void* data, int64_t n, DType dtype, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  switch (dtype) {
    case DType::kFloat32: {
      auto* p = static_cast<float*>(data);
      for (int64_t i = 0; i < n; ++i) p[i] = dist(rng);
      break;
    }
    case DType::kBFloat16: {
      auto* p = static_cast<uint16_t*>(data);
      for (int64_t i = 0; i < n; ++i) p[i] = float_to_bf16(dist(rng));
      break;
    }
    case DType::kFloat16: {
      auto* p = static_cast<uint16_t*>(data);
      for (int64_t i = 0; i < n; ++i) p[i] = float_to_fp16(dist(rng));
      break;
    }
    default:
      std::memset(data, 0, static_cast<size_t>(n) * upsample::dtype_size(dtype));
  }
}

// ---------------------------------------------------------------------------------------------
// The floor kernel: every input byte read once, every output byte written once.
//
// Both buffers are treated as arrays of 32-bit words (every workload's byte counts are multiples
// of 4). The output is cut into blocks of kBlock words; block b owns the proportional slice of
// the input [b*in_n/out_n, (b+1)*in_n/out_n) rounded to words, so the slices tile the input
// exactly. Within a block:
//   * slice shorter than the block (upsampling): the slice is copied repeatedly into the block
//     (out[k] = in[k % len], the slice stays in L1, so memory sees it once);
//   * slice longer than the block (downsampling): the slice is folded onto the block with XOR
//     (out[k] = in[k] ^ in[k + kBlock] ^ ...), the block stays in L1 and goes to memory once.
// Memory traffic is therefore input bytes + output bytes, with no arithmetic to speak of. Blocks
// are split into contiguous ranges over the threads of a persistent pool (std::thread).

constexpr int64_t kBlock = 2048;  // words (8 KiB)

void floor_range(const uint32_t* in, int64_t in_n, uint32_t* out, int64_t out_n,
                 int64_t block_begin, int64_t block_end) {
  for (int64_t b = block_begin; b < block_end; ++b) {
    const int64_t o0 = b * kBlock;
    const int64_t o1 = std::min(out_n, o0 + kBlock);
    const int64_t blen = o1 - o0;
    // Proportional input slice (128-bit intermediate: o0 * in_n may exceed 2^63 in principle).
    const int64_t i0 = static_cast<int64_t>((static_cast<__int128>(o0) * in_n) / out_n);
    const int64_t i1 = static_cast<int64_t>((static_cast<__int128>(o1) * in_n) / out_n);
    const int64_t len = i1 - i0;
    const uint32_t* __restrict src = in + i0;
    uint32_t* __restrict dst = out + o0;
    if (len == 0) {
      for (int64_t k = 0; k < blen; ++k) dst[k] = 0;
    } else if (len <= blen) {
      for (int64_t k = 0; k < blen; k += len) {
        const int64_t n = std::min(len, blen - k);
        for (int64_t j = 0; j < n; ++j) dst[k + j] = src[j];
      }
    } else {
      for (int64_t k = 0; k < blen; ++k) dst[k] = src[k];
      for (int64_t m = blen; m < len; m += blen) {
        const int64_t n = std::min(blen, len - m);
        for (int64_t k = 0; k < n; ++k) dst[k] ^= src[m + k];
      }
    }
  }
}

// A minimal persistent pool: worker t runs task(t) for t in 1..n-1, the caller runs task(0).
// Workers spin for a while after each job, then sleep on the atomic (C++20 wait/notify).
class Pool {
 public:
  explicit Pool(int n) : n_(std::max(1, n)) {
    for (int t = 1; t < n_; ++t) workers_.emplace_back([this, t] { loop(t); });
  }
  ~Pool() {
    stop_.store(true);
    generation_.fetch_add(1);
    generation_.notify_all();
    for (auto& w : workers_) w.join();
  }
  int size() const { return n_; }
  void run(const std::function<void(int)>& task) {
    task_ = &task;
    pending_.store(n_ - 1, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
    generation_.notify_all();
    task(0);
    while (pending_.load(std::memory_order_acquire) != 0) {
    }
  }

 private:
  void loop(int t) {
    uint64_t seen = 0;
    for (;;) {
      uint64_t g = generation_.load(std::memory_order_acquire);
      for (int spin = 0; g == seen && spin < 200000; ++spin) {
        g = generation_.load(std::memory_order_acquire);
      }
      while (g == seen) {
        generation_.wait(seen, std::memory_order_acquire);
        g = generation_.load(std::memory_order_acquire);
      }
      seen = g;
      if (stop_.load()) return;
      (*task_)(t);
      pending_.fetch_sub(1, std::memory_order_acq_rel);
    }
  }
  int n_;
  std::vector<std::thread> workers_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
  const std::function<void(int)>* task_ = nullptr;
};

// ---------------------------------------------------------------------------------------------
// Timing.

using Clock = std::chrono::steady_clock;

double time_once_ms(const std::function<void()>& fn) {
  const auto t0 = Clock::now();
  fn();
  const auto t1 = Clock::now();
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

struct Stats {
  double median = 0, min = 0;
};

Stats stats_of(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.min = v.front();
  return s;
}

double sum_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

struct Result {
  std::string name, what, error, describe;
  int reps = 0;
  double ms_median = 0, ms_min = 0, floor_ms = 0, floor_min = 0;
  int64_t bytes = 0;
};

struct Options {
  std::vector<std::string> workloads;
  int threads = 2;
  int reps = 0;  // 0: adaptive
  bool json = false;
  bool describe = false;
};

Result run_workload(const Workload& w, const Options& opt, Pool& pool) {
  Result r;
  r.name = w.name;
  r.what = w.what;
  upsample::OpDesc op;
  op.mode = w.mode;
  op.direction = w.dir;
  op.align_corners = false;
  op.antialias = w.antialias;
  op.spatial_rank = static_cast<int>(w.in.size()) - 2;
  const bool fwd = w.dir == Direction::kForward;
  const std::vector<int64_t>& src_sizes = fwd ? w.in : w.out;
  const std::vector<int64_t>& dst_sizes = fwd ? w.out : w.in;
  const TensorDesc src_desc = make_desc(w.dtype, w.channels_last, src_sizes);
  const TensorDesc dst_desc = make_desc(w.dtype, w.channels_last, dst_sizes);
  const size_t esize = upsample::dtype_size(w.dtype);
  const int64_t src_n = numel(src_sizes), dst_n = numel(dst_sizes);
  const size_t src_bytes = static_cast<size_t>(src_n) * esize;
  const size_t dst_bytes = static_cast<size_t>(dst_n) * esize;
  r.bytes = static_cast<int64_t>(src_bytes + dst_bytes);

  upsample::Plan plan;
  upsample::Status st = upsample::make_plan(op, src_desc, dst_desc, &plan);
  if (!st.ok()) {
    r.error = "make_plan: " + st.message;
    return r;
  }
  r.describe = plan.describe();

  AlignedBuffer src(src_bytes), dst(dst_bytes), ws(plan.workspace_bytes());
  fill_random(src.ptr, src_n, w.dtype, 12345u);
  std::memset(dst.ptr, 0, dst_bytes);
  upsample::ExecContext ctx;
  ctx.num_threads = opt.threads;

  auto ours = [&] {
    st = upsample::execute(plan, src.ptr, dst.ptr, ws.ptr, plan.workspace_bytes(), ctx);
  };
  const auto* fin = static_cast<const uint32_t*>(src.ptr);
  auto* fout = static_cast<uint32_t*>(dst.ptr);
  const int64_t in_words = static_cast<int64_t>(src_bytes / 4);
  const int64_t out_words = static_cast<int64_t>(dst_bytes / 4);
  const int64_t blocks = (out_words + kBlock - 1) / kBlock;
  const std::function<void(int)> floor_task = [&](int t) {
    const int n = pool.size();
    floor_range(fin, in_words, fout, out_words, blocks * t / n, blocks * (t + 1) / n);
  };
  auto floor_fn = [&] { pool.run(floor_task); };

  // Warm up: 3 runs. With adaptive repetitions, a few more runs (until ~30 ms are spent, at
  // most 50 runs) estimate the time of one run; their median sizes R.
  std::vector<double> warm;
  for (int i = 0; i < 3 || (opt.reps <= 0 && i < 50 && sum_of(warm) < 30.0); ++i) {
    warm.push_back(time_once_ms(ours));
    if (!st.ok()) {
      r.error = "execute: " + st.message;
      return r;
    }
  }
  int reps = opt.reps;
  if (reps <= 0) {
    const double target_ms = 500.0;
    const double one_ms = stats_of(warm).median;
    reps = static_cast<int>(std::ceil(target_ms / std::max(one_ms, 1e-3)));
    reps = std::clamp(reps, 20, 5000);
  }
  r.reps = reps;

  std::vector<double> t_ours, t_floor;
  t_ours.reserve(reps);
  t_floor.reserve(reps);
  for (int i = 0; i < reps; ++i) t_ours.push_back(time_once_ms(ours));
  const upsample::Status ours_status = st;
  for (int i = 0; i < 3; ++i) time_once_ms(floor_fn);  // floor warm-up, right before its runs
  for (int i = 0; i < reps; ++i) t_floor.push_back(time_once_ms(floor_fn));
  if (!ours_status.ok()) {
    r.error = "execute: " + ours_status.message;
    return r;
  }
  const Stats so = stats_of(t_ours), sf = stats_of(t_floor);
  r.ms_median = so.median;
  r.ms_min = so.min;
  r.floor_ms = sf.median;
  r.floor_min = sf.min;
  return r;
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
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

// "... simd AVX2\n  pass ..." -> "AVX2"
std::string simd_from_describe(const std::string& d) {
  const size_t at = d.find(" simd ");
  if (at == std::string::npos) return "";
  const size_t b = at + 6;
  size_t e = b;
  while (e < d.size() && d[e] != '\n' && d[e] != ' ') ++e;
  return d.substr(b, e - b);
}

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

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = s.find(',', start);
    const std::string item = s.substr(start, comma == std::string::npos ? std::string::npos
                                                                         : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

bool iequals(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  bool list = false;
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
      for (auto& s : split_commas(value("--workload"))) opt.workloads.push_back(s);
    } else if (a.rfind("--workload=", 0) == 0) {
      for (auto& s : split_commas(a.substr(11))) opt.workloads.push_back(s);
    } else if (a == "--threads") {
      opt.threads = std::atoi(value("--threads").c_str());
    } else if (a == "--reps") {
      opt.reps = std::atoi(value("--reps").c_str());
    } else if (a == "--json") {
      opt.json = true;
    } else if (a == "--describe") {
      opt.describe = true;
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
  if (opt.threads < 1) opt.threads = 1;

  const std::vector<Workload> all = all_workloads();
  if (list) {
    for (const auto& w : all) std::printf("%-4s %s\n", w.name, w.what);
    return 0;
  }
  std::vector<const Workload*> selected;
  if (opt.workloads.empty()) {
    for (const auto& w : all) selected.push_back(&w);
  } else {
    for (const auto& name : opt.workloads) {
      const Workload* found = nullptr;
      for (const auto& w : all) {
        if (iequals(name, w.name)) found = &w;
      }
      if (!found) {
        std::fprintf(stderr, "unknown workload: %s (try --list)\n", name.c_str());
        return 2;
      }
      selected.push_back(found);
    }
  }

  Pool pool(opt.threads);
  std::vector<Result> results;
  std::string simd;
  if (!opt.json) {
    std::printf("%-4s %-22s %6s %10s %10s %8s %10s %8s\n", "W", "operator", "reps", "median ms",
                "min ms", "GB/s", "floor ms", "x floor");
  }
  for (const Workload* w : selected) {
    Result r = run_workload(*w, opt, pool);
    if (simd.empty()) simd = simd_from_describe(r.describe);
    if (!opt.json) {
      if (!r.error.empty()) {
        std::printf("%-4s %-22s error: %s\n", r.name.c_str(), r.what.c_str(), r.error.c_str());
      } else {
        const double gbs = r.bytes / (r.ms_median * 1e-3) / 1e9;
        std::printf("%-4s %-22s %6d %10.4f %10.4f %8.2f %10.4f %8.2f\n", r.name.c_str(),
                    r.what.c_str(), r.reps, r.ms_median, r.ms_min, gbs, r.floor_ms,
                    r.ms_median / r.floor_ms);
      }
      if (opt.describe && !r.describe.empty()) std::printf("     %s\n", r.describe.c_str());
      std::fflush(stdout);
    }
    results.push_back(std::move(r));
  }

  if (opt.json) {
    std::printf("{\n  \"simd\": \"%s\",\n  \"threads\": %d,\n  \"results\": [",
                json_escape(simd).c_str(), opt.threads);
    for (size_t i = 0; i < results.size(); ++i) {
      const Result& r = results[i];
      std::printf("%s\n    {\"workload\": \"%s\", \"operator\": \"%s\", \"reps\": %d, ",
                  i ? "," : "", r.name.c_str(), json_escape(r.what).c_str(), r.reps);
      if (r.error.empty()) {
        std::printf("\"ms_median\": %.6f, \"ms_min\": %.6f, \"floor_ms\": %.6f, "
                    "\"floor_min_ms\": %.6f, ",
                    r.ms_median, r.ms_min, r.floor_ms, r.floor_min);
      } else {
        std::printf("\"ms_median\": null, \"ms_min\": null, \"floor_ms\": null, "
                    "\"floor_min_ms\": null, \"error\": \"%s\", ",
                    json_escape(r.error).c_str());
      }
      std::printf("\"bytes\": %lld, \"plan\": \"%s\"}", static_cast<long long>(r.bytes),
                  json_escape(r.describe).c_str());
    }
    std::printf("\n  ]\n}\n");
  } else if (!simd.empty()) {
    std::printf("simd %s, %d threads\n", simd.c_str(), opt.threads);
  }
  return 0;
}
