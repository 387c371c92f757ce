// The workload table, the labels and custom shapes of bench/workloads.hpp, the random input
// data, and the floor kernel's thread pool.
#include "workloads.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <random>
#include <type_traits>

#include "core/dtype.hpp"

namespace upsample::bench {
namespace {

TensorDesc make_desc(DType dtype, bool channels_last, const std::vector<int64_t>& sizes) {
  // TensorDesc::contiguous / channels_last take an initializer_list; build it by rank.
  auto build = [&](std::initializer_list<int64_t> s) {
    return channels_last ? TensorDesc::channels_last(dtype, s) : TensorDesc::contiguous(dtype, s);
  };
  switch (sizes.size()) {
    case 3:
      return build({sizes[0], sizes[1], sizes[2]});
    case 4:
      return build({sizes[0], sizes[1], sizes[2], sizes[3]});
    default:
      return build({sizes[0], sizes[1], sizes[2], sizes[3], sizes[4]});
  }
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
    const std::string item =
        text.substr(start, x == std::string::npos ? std::string::npos : x - start);
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

const char* call_kind_name(CallKind kind) {
  switch (kind) {
    case CallKind::kCannCall:
      return "cann-call";
    case CallKind::kPhase2:
      return "phase2";
    case CallKind::kNative:
      break;
  }
  return "native";
}

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
        // The cost of a call through the aclnn C API (bilinear2d fwd, float32 NCHW).
        {"C1", "bilinear2d aclnn call", Mode::kLinear, F, false, f32, false, w1_in, w1_out, false,
         CallKind::kCannCall},
        {"C2", "bilinear2d aclnn phase 2", Mode::kLinear, F, false, f32, false, w1_in, w1_out,
         false, CallKind::kPhase2},
        {"C3",
         "bilinear2d aclnn phase 2",
         Mode::kLinear,
         F,
         false,
         f32,
         false,
         {1, 3, 32, 32},
         {1, 3, 64, 64},
         false,
         CallKind::kPhase2},
        {"C4",
         "bilinear2d aclnn phase 2",
         Mode::kLinear,
         F,
         false,
         f32,
         false,
         {1, 16, 8, 8},
         {1, 16, 16, 16},
         false,
         CallKind::kPhase2},
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

std::string operator_label(Mode mode, bool antialias, int spatial_rank, Direction dir, DType dtype,
                           bool channels_last) {
  std::string s;
  switch (mode) {
    case Mode::kNearest:
      s = "nearest";
      break;
    case Mode::kNearestExact:
      s = "nearest-exact";
      break;
    case Mode::kLinear:
      s = spatial_rank == 1 ? "linear" : spatial_rank == 2 ? "bilinear" : "trilinear";
      break;
    case Mode::kCubic:
      s = "bicubic";
      break;
    case Mode::kArea:
      s = "area";
      break;
  }
  if (mode != Mode::kLinear || spatial_rank != 3) s += std::to_string(spatial_rank) + "d";
  if (antialias) s += " AA";
  s += dir == Direction::kForward ? " fwd" : " bwd";
  if (channels_last) s += spatial_rank == 3 ? " NDHWC" : spatial_rank == 2 ? " NHWC" : " NLC";
  switch (dtype) {
    case DType::kFloat16:
      s += " fp16";
      break;
    case DType::kBFloat16:
      s += " bf16";
      break;
    case DType::kFloat64:
      s += " fp64";
      break;
    case DType::kUInt8:
      s += " u8";
      break;
    case DType::kUInt16:
      s += " u16";
      break;
    default:
      break;
  }
  return s;
}

std::string shape_label(const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  return join_dims(in, 0) + "->" + join_dims(out, 2);
}

NativeCall native_call(const Workload& w) {
  NativeCall call;
  call.op.mode = w.mode;
  call.op.direction = w.dir;
  call.op.align_corners = w.align_corners;
  call.op.antialias = w.antialias;
  call.op.spatial_rank = static_cast<int>(w.in.size()) - 2;
  const bool forward = w.dir == Direction::kForward;
  call.src = make_desc(w.dtype, w.channels_last, forward ? w.in : w.out);
  call.dst = make_desc(w.dtype, w.channels_last, forward ? w.out : w.in);
  return call;
}

void fill_random(void* data, int64_t n, DType dtype, uint32_t seed) {
  std::mt19937 rng(seed);
  visit_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(data);
    if constexpr (std::is_integral_v<T>) {
      std::uniform_int_distribution<int> dist(0, std::is_same_v<T, uint8_t> ? 255 : 65535);
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(dist(rng));
    } else {
      std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
      for (int64_t i = 0; i < n; ++i) store_from(&p[i], dist(rng));
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Pool.

namespace {
constexpr int kSpinsBeforeYield = 2000;
}  // namespace

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
  // Spin, then yield: on a loaded machine the core may be needed by the worker we wait for.
  for (int spin = 0; pending_.load(std::memory_order_acquire) != 0; ++spin) {
    if (spin >= kSpinsBeforeYield) std::this_thread::yield();
  }
}

// A worker spins (then yields) for its next task only within kSpinWindow of its last one, so that
// the floor's back-to-back runs start at once; otherwise it sleeps. It does not spin before its
// first task: a worker spinning while the library's calls are timed would take a core from the
// library's threads (docs/performance.md, "The floor measured while the library's threads spun").
void Pool::loop(int t) {
  using Clock = std::chrono::steady_clock;
  constexpr auto kSpinWindow = std::chrono::milliseconds(5);
  uint64_t seen = 0;
  bool ran = false;
  Clock::time_point last_end;
  for (;;) {
    uint64_t g = generation_.load(std::memory_order_acquire);
    for (int spin = 0; ran && g == seen; ++spin) {
      if (spin >= kSpinsBeforeYield) {
        if (Clock::now() - last_end > kSpinWindow) break;
        std::this_thread::yield();
      }
      g = generation_.load(std::memory_order_acquire);
    }
    while (g == seen) {
      generation_.wait(seen, std::memory_order_acquire);
      g = generation_.load(std::memory_order_acquire);
    }
    seen = g;
    if (stop_.load()) return;
    (*task_)(t);
    ran = true;
    last_end = Clock::now();
    pending_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

}  // namespace upsample::bench
