#include "workloads.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <new>
#include <random>

namespace upsample::bench {
namespace {

// ---------------------------------------------------------------------------------------------
// Descriptors.

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
    case DType::kFloat64: {
      auto* p = static_cast<double*>(data);
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
    case DType::kUInt8: {
      auto* p = static_cast<uint8_t*>(data);
      std::uniform_int_distribution<int> bytes(0, 255);
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(bytes(rng));
      break;
    }
    default:
      std::memset(data, 0, static_cast<size_t>(n) * upsample::dtype_size(dtype));
  }
}

// ---------------------------------------------------------------------------------------------
// The floor kernel: every input byte read once, every output byte written once.
//
// Both buffers are treated as arrays of 32-bit words (a trailing 1-3 bytes, possible only for
// 8- and 16-bit custom shapes, are left out). The output is cut into blocks of kBlock words;
// block b owns the proportional slice of the input [b*in_n/out_n, (b+1)*in_n/out_n) rounded to
// words, so the slices tile the input exactly. Within a block:
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

bool iequals(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

// Parses "AxBxC" into positive integers; false on any other text.
bool parse_dims(const std::string& text, std::vector<int64_t>* dims) {
  dims->clear();
  size_t start = 0;
  while (true) {
    const size_t x = text.find('x', start);
    const std::string item = text.substr(start, x == std::string::npos ? std::string::npos
                                                                       : x - start);
    if (item.empty() || item.size() > 12 ||
        item.find_first_not_of("0123456789") != std::string::npos) {
      return false;
    }
    const int64_t v = std::stoll(item);
    if (v <= 0) return false;
    dims->push_back(v);
    if (x == std::string::npos) return true;
    start = x + 1;
  }
}

std::string join_dims(const std::vector<int64_t>& dims, size_t from) {
  std::string s;
  for (size_t i = from; i < dims.size(); ++i) {
    if (i > from) s += 'x';
    s += std::to_string(dims[i]);
  }
  return s;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Workloads.

const std::vector<Workload>& standard_workloads() {
  static const std::vector<Workload> table = [] {
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
    return std::vector<Workload>{
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
  }();
  return table;
}

const Workload* find_workload(const std::string& name) {
  for (const Workload& w : standard_workloads()) {
    if (iequals(name, w.name)) return &w;
  }
  return nullptr;
}

std::string parse_shape(const std::string& text, std::vector<int64_t>* in,
                        std::vector<int64_t>* out) {
  const std::string expected =
      "expected NxCxHxW:HOxWO (input N, C and 1-3 spatial sizes, then the output's spatial "
      "sizes), e.g. 1x3x512x512:1024x1024";
  const size_t colon = text.find(':');
  if (colon == std::string::npos) return "'" + text + "' has no ':'; " + expected;
  std::vector<int64_t> src, dst;
  if (!parse_dims(text.substr(0, colon), &src) || !parse_dims(text.substr(colon + 1), &dst)) {
    return "'" + text + "': sizes must be positive integers separated by 'x'; " + expected;
  }
  if (src.size() < 3 || src.size() > 5) {
    return "'" + text + "': the input needs N, C and 1 to 3 spatial sizes; " + expected;
  }
  if (dst.size() != src.size() - 2) {
    return "'" + text + "': the input has " + std::to_string(src.size() - 2) +
           " spatial sizes but the output " + std::to_string(dst.size()) + "; " + expected;
  }
  *in = src;
  *out = {src[0], src[1]};
  out->insert(out->end(), dst.begin(), dst.end());
  return "";
}

std::string operator_label(Mode mode, bool antialias, int spatial_rank, Direction dir,
                           DType dtype, bool channels_last) {
  std::string s;
  switch (mode) {
    case Mode::kNearest: s = "nearest"; break;
    case Mode::kNearestExact: s = "nearest-exact"; break;
    case Mode::kLinear:
      s = spatial_rank == 1 ? "linear" : spatial_rank == 2 ? "bilinear" : "trilinear";
      break;
    case Mode::kCubic: s = "bicubic"; break;
    case Mode::kArea: s = "area"; break;
  }
  if (mode != Mode::kLinear || spatial_rank != 3) s += std::to_string(spatial_rank) + "d";
  if (antialias) s += " AA";
  s += dir == Direction::kForward ? " fwd" : " bwd";
  if (channels_last) s += spatial_rank == 3 ? " NDHWC" : spatial_rank == 2 ? " NHWC" : " NLC";
  switch (dtype) {
    case DType::kFloat16: s += " fp16"; break;
    case DType::kBFloat16: s += " bf16"; break;
    case DType::kFloat64: s += " fp64"; break;
    case DType::kUInt8: s += " u8"; break;
    case DType::kUInt16: s += " u16"; break;
    default: break;
  }
  return s;
}

std::string shape_label(const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  return join_dims(in, 0) + "->" + join_dims(out, 2);
}

// ---------------------------------------------------------------------------------------------
// Pool.

Pool::Pool(int n) : n_(std::max(1, n)) {
  for (int t = 1; t < n_; ++t) workers_.emplace_back([this, t] { loop(t); });
}

Pool::~Pool() {
  stop_.store(true);
  generation_.fetch_add(1);
  generation_.notify_all();
  for (auto& w : workers_) w.join();
}

void Pool::run(const std::function<void(int)>& task) {
  task_ = &task;
  pending_.store(n_ - 1, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  task(0);
  while (pending_.load(std::memory_order_acquire) != 0) {
  }
}

void Pool::loop(int t) {
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

// ---------------------------------------------------------------------------------------------
// One workload.

Result run_workload(const Workload& w, const RunOptions& opt, Pool& pool) {
  Result r;
  r.name = w.name;
  r.what = w.what;
  upsample::OpDesc op;
  op.mode = w.mode;
  op.direction = w.dir;
  op.align_corners = w.align_corners;
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
    if (out_words > 0) {
      floor_range(fin, in_words, fout, out_words, blocks * t / n, blocks * (t + 1) / n);
    }
  };
  auto floor_fn = [&] { pool.run(floor_task); };
  auto progress = [&](const char* phase, int done, int total) {
    if (opt.progress) opt.progress(Progress{phase, done, total});
  };

  // Warm up: 3 runs. With adaptive repetitions, a few more runs (until ~30 ms are spent, at
  // most 50 runs) estimate the time of one run; their median sizes R.
  std::vector<double> warm;
  for (int i = 0; i < 3 || (opt.reps <= 0 && i < 50 && sum_of(warm) < 30.0); ++i) {
    warm.push_back(time_once_ms(ours));
    if (!st.ok()) {
      r.error = "execute: " + st.message;
      return r;
    }
    progress("warm-up", i + 1, 0);
  }
  int reps = opt.reps;
  if (reps <= 0) {
    const double one_ms = stats_of(warm).median;
    reps = static_cast<int>(std::ceil(opt.target_ms / std::max(one_ms, 1e-3)));
    reps = std::clamp(reps, 20, 5000);
  }
  r.reps = reps;

  std::vector<double> t_ours, t_floor;
  t_ours.reserve(reps);
  t_floor.reserve(reps);
  for (int i = 0; i < reps; ++i) {
    t_ours.push_back(time_once_ms(ours));
    progress("library", i + 1, reps);
  }
  const upsample::Status ours_status = st;
  for (int i = 0; i < 3; ++i) time_once_ms(floor_fn);  // floor warm-up, right before its runs
  for (int i = 0; i < reps; ++i) {
    t_floor.push_back(time_once_ms(floor_fn));
    progress("floor", i + 1, reps);
  }
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

// ---------------------------------------------------------------------------------------------
// Output.

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
    const std::string item = s.substr(start, comma == std::string::npos ? std::string::npos
                                                                         : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

void print_table_header(std::FILE* out, int what_width) {
  std::fprintf(out, "%-4s %-*s %6s %10s %10s %8s %10s %8s\n", "W", what_width, "operator",
               "reps", "median ms", "min ms", "GB/s", "floor ms", "x floor");
}

void print_table_row(std::FILE* out, const Result& r, bool describe, int what_width) {
  if (!r.ok()) {
    std::fprintf(out, "%-4s %-*s error: %s\n", r.name.c_str(), what_width, r.what.c_str(),
                 r.error.c_str());
  } else {
    std::fprintf(out, "%-4s %-*s %6d %10.4f %10.4f %8.2f %10.4f %8.2f\n", r.name.c_str(),
                 what_width, r.what.c_str(), r.reps, r.ms_median, r.ms_min, r.gbps(), r.floor_ms,
                 r.x_floor());
  }
  if (describe && !r.describe.empty()) std::fprintf(out, "     %s\n", r.describe.c_str());
  std::fflush(out);
}

void print_json(std::FILE* out, const std::string& simd, int threads,
                const std::vector<Result>& results) {
  std::fprintf(out, "{\n  \"simd\": \"%s\",\n  \"threads\": %d,\n  \"results\": [",
               json_escape(simd).c_str(), threads);
  for (size_t i = 0; i < results.size(); ++i) {
    const Result& r = results[i];
    std::fprintf(out, "%s\n    {\"workload\": \"%s\", \"operator\": \"%s\", \"reps\": %d, ",
                 i ? "," : "", json_escape(r.name).c_str(), json_escape(r.what).c_str(), r.reps);
    if (r.ok()) {
      std::fprintf(out,
                   "\"ms_median\": %.6f, \"ms_min\": %.6f, \"floor_ms\": %.6f, "
                   "\"floor_min_ms\": %.6f, \"gb_per_s\": %.4f, \"x_floor\": %.4f, ",
                   r.ms_median, r.ms_min, r.floor_ms, r.floor_min, r.gbps(), r.x_floor());
    } else {
      std::fprintf(out,
                   "\"ms_median\": null, \"ms_min\": null, \"floor_ms\": null, "
                   "\"floor_min_ms\": null, \"gb_per_s\": null, \"x_floor\": null, "
                   "\"error\": \"%s\", ",
                   json_escape(r.error).c_str());
    }
    std::fprintf(out, "\"bytes\": %lld, \"plan\": \"%s\"}", static_cast<long long>(r.bytes),
                 json_escape(r.describe).c_str());
  }
  std::fprintf(out, "\n  ]\n}\n");
}

}  // namespace upsample::bench
