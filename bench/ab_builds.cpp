// upsample_ab: two builds of libupsample timed against each other in one process.
//
//   upsample_ab A.so B.so [--pairs N] [--threads N] [--expect-same-bits] WORKLOAD...
//
// Both libraries are loaded with dlopen (RTLD_LOCAL | RTLD_DEEPBIND, so each build's calls into
// itself stay inside it) and each plans every named standard workload (bench/workloads.hpp, the
// native-API rows). They read the same input (fill_random, the runner's seed) and write the
// same 64-byte aligned output through the same workspace (sized for the larger of the two): with
// buffers of their own, two copies of one build differed by up to 7% on some workloads (W17,
// W19; bench/README.md, "Two builds against each other"). After warm-up calls of both, N pairs of
// calls run in ABBA order (A then B, then B then A, ...), each call timed alone. Printed per
// workload: the median and minimum of each side's calls in microseconds, the median of the
// per-pair ratios B/A (below 1: B is faster), and whether the two outputs are bitwise identical
// (A's output is copied aside after one more call of each; with --expect-same-bits, outputs that
// differ make the exit status 1: a restructuring must not change a bit). Exit status: 0, 1 when a
// workload failed (or differed), 2 on a usage error.
//
// Why a separate tool: the host's speed drifts by tens of percent within minutes
// (docs/performance.md), so two builds run one after the other measure the drift more than the
// change; alternating calls in one process see the same drift. Both builds must share the
// public headers' ABI (OpDesc, TensorDesc, Plan, Status), as any two builds of one version do.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "upsample/resample.hpp"
#include "workloads.hpp"

namespace {

using upsample::ExecContext;
using upsample::OpDesc;
using upsample::Plan;
using upsample::PlanOptions;
using upsample::Status;
using upsample::TensorDesc;

// The entry points of one build, by their C++ symbols.
struct Build {
  std::string path;
  void* handle = nullptr;
  Status (*make_plan)(const OpDesc&, const TensorDesc&, const TensorDesc&, Plan*,
                      const PlanOptions&) = nullptr;
  Status (*execute)(const Plan&, const void*, void*, void*, size_t, const ExecContext&) = nullptr;
  void (*plan_construct)(Plan*) = nullptr;
  void (*plan_destroy)(Plan*) = nullptr;
  size_t (*workspace_bytes)(const Plan*) = nullptr;
};

template <typename Fn>
bool find(void* handle, const char* symbol, Fn* fn, std::string* error) {
  void* p = dlsym(handle, symbol);
  if (p == nullptr) {
    *error = std::string("symbol ") + symbol + " not found";
    return false;
  }
  *fn = reinterpret_cast<Fn>(p);
  return true;
}

bool load(const std::string& path, Build* b, std::string* error) {
  b->path = path;
  b->handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (b->handle == nullptr) {
    *error = dlerror();
    return false;
  }
  return find(b->handle,
              "_ZN8upsample9make_planERKNS_6OpDescERKNS_10TensorDescES5_PNS_4PlanERKNS_"
              "11PlanOptionsE",
              &b->make_plan, error) &&
         find(b->handle, "_ZN8upsample7executeERKNS_4PlanEPKvPvS5_mRKNS_11ExecContextE",
              &b->execute, error) &&
         find(b->handle, "_ZN8upsample4PlanC1Ev", &b->plan_construct, error) &&
         find(b->handle, "_ZN8upsample4PlanD1Ev", &b->plan_destroy, error) &&
         find(b->handle, "_ZNK8upsample4Plan15workspace_bytesEv", &b->workspace_bytes, error);
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<unsigned char, FreeDeleter>;

Buffer aligned_buffer(size_t bytes) {
  const size_t rounded = std::max<size_t>(64, (bytes + 63) / 64 * 64);
  Buffer b(static_cast<unsigned char*>(std::aligned_alloc(64, rounded)));
  if (b) std::memset(b.get(), 0, rounded);
  return b;
}

// One build's plan of a workload, constructed and destroyed through that build.
class Side {
 public:
  explicit Side(const Build& b) : b_(b) { b_.plan_construct(plan()); }
  ~Side() { b_.plan_destroy(plan()); }
  Side(const Side&) = delete;
  Side& operator=(const Side&) = delete;
  Plan* plan() { return reinterpret_cast<Plan*>(storage_); }
  const Build& build() const { return b_; }

 private:
  const Build& b_;
  alignas(Plan) unsigned char storage_[sizeof(Plan)];
};

// Times one workload; returns false (after printing why) when either build cannot run it, or
// when their outputs differ and expect_same_bits is set.
bool compare(const upsample::bench::Workload& w, const Build& a, const Build& b, int pairs,
             int threads, bool expect_same_bits) {
  const upsample::bench::NativeCall call = upsample::bench::native_call(w);
  const TensorDesc& src_desc = call.src;
  const TensorDesc& dst_desc = call.dst;
  const size_t esize = upsample::dtype_size(w.dtype);
  const size_t src_bytes = static_cast<size_t>(src_desc.numel()) * esize;
  const size_t dst_bytes = static_cast<size_t>(dst_desc.numel()) * esize;
  Buffer src = aligned_buffer(src_bytes);
  if (!src) {
    std::printf("%-4s error: out of memory\n", w.name.c_str());
    return false;
  }
  upsample::bench::fill_random(src.get(), src_desc.numel(), w.dtype, 12345u);
  Side sides[2] = {Side(a), Side(b)};
  size_t workspace_bytes = 0;
  for (Side& s : sides) {
    const Status st = s.build().make_plan(call.op, src_desc, dst_desc, s.plan(), PlanOptions{});
    if (!st.ok()) {
      std::printf("%-4s error: %s: make_plan: %s\n", w.name.c_str(), s.build().path.c_str(),
                  st.message.c_str());
      return false;
    }
    workspace_bytes = std::max(workspace_bytes, s.build().workspace_bytes(s.plan()));
  }
  Buffer dst = aligned_buffer(dst_bytes), a_dst = aligned_buffer(dst_bytes);
  Buffer workspace = aligned_buffer(workspace_bytes);
  if (!dst || !a_dst || !workspace) {
    std::printf("%-4s error: out of memory\n", w.name.c_str());
    return false;
  }
  ExecContext ctx;
  ctx.num_threads = threads;
  bool failed = false;
  const auto run = [&](int k) {
    Side& s = sides[k];
    const auto t0 = std::chrono::steady_clock::now();
    const Status st =
        s.build().execute(*s.plan(), src.get(), dst.get(), workspace.get(), workspace_bytes, ctx);
    const auto t1 = std::chrono::steady_clock::now();
    if (!st.ok() && !failed) {
      std::printf("%-4s error: %s: execute: %s\n", w.name.c_str(), s.build().path.c_str(),
                  st.message.c_str());
      failed = true;
    }
    return std::chrono::duration<double, std::micro>(t1 - t0).count();
  };
  for (int i = 0; i < 5; ++i) {
    run(0);
    run(1);
  }
  std::vector<double> ta, tb, ratio;
  for (int p = 0; p < pairs && !failed; ++p) {
    double x, y;
    if (p % 2 == 0) {
      x = run(0);
      y = run(1);
    } else {
      y = run(1);
      x = run(0);
    }
    ta.push_back(x);
    tb.push_back(y);
    ratio.push_back(y / x);
  }
  if (failed) return false;
  run(0);
  std::memcpy(a_dst.get(), dst.get(), dst_bytes);
  std::memset(dst.get(), 0, dst_bytes);  // (so that B's output is B's own)
  run(1);
  if (failed) return false;
  const bool same = std::memcmp(a_dst.get(), dst.get(), dst_bytes) == 0;
  // (timing_of: the runner's median and minimum, of microseconds here.)
  const upsample::bench::Timing at = upsample::bench::timing_of(ta);
  const upsample::bench::Timing bt = upsample::bench::timing_of(tb);
  std::printf(
      "%-4s A median %9.1f min %9.1f | B median %9.1f min %9.1f | B/A %.3f | same bits %s\n",
      w.name.c_str(), at.median, at.min, bt.median, bt.min,
      upsample::bench::timing_of(ratio).median, same ? "yes" : "no");
  std::fflush(stdout);
  return same || !expect_same_bits;
}

int usage() {
  std::fprintf(stderr,
               "usage: upsample_ab A.so B.so [--pairs N] [--threads N] [--expect-same-bits]\n"
               "                   WORKLOAD...\n"
               "  times two builds of libupsample in one process, calls in ABBA order;\n"
               "  WORKLOAD: W1-W19, W5e (the native-API rows of bench/README.md)\n"
               "  --pairs N    timed pairs per workload (default 200)\n"
               "  --threads N  the library's threads (default 2)\n"
               "  --expect-same-bits  exit status 1 when the builds' outputs differ\n");
  return 2;
}

bool parse_count(const char* text, int* value) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < 1 || v > 1000000) return false;
  *value = static_cast<int>(v);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> libs;
  std::vector<const upsample::bench::Workload*> workloads;
  int pairs = 200, threads = 2;
  bool expect_same_bits = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--expect-same-bits") {
      expect_same_bits = true;
    } else if (arg == "--pairs" || arg == "--threads") {
      if (i + 1 == argc || !parse_count(argv[i + 1], arg == "--pairs" ? &pairs : &threads)) {
        std::fprintf(stderr, "upsample_ab: %s needs a count from 1 to 1000000\n", arg.c_str());
        return usage();
      }
      ++i;
    } else if (libs.size() < 2) {
      libs.push_back(arg);
    } else {
      const upsample::bench::Workload* w = upsample::bench::find_workload(arg);
      if (w == nullptr || w->call != upsample::bench::CallKind::kNative) {
        std::fprintf(stderr, "upsample_ab: %s is not a native-API workload\n", arg.c_str());
        return usage();
      }
      workloads.push_back(w);
    }
  }
  if (libs.size() < 2 || workloads.empty()) return usage();
  Build a, b;
  std::string error;
  if (!load(libs[0], &a, &error) || !load(libs[1], &b, &error)) {
    std::fprintf(stderr, "upsample_ab: %s\n", error.c_str());
    return 1;
  }
  std::printf("A %s\nB %s\n%d pairs per workload, %d threads, microseconds\n", a.path.c_str(),
              b.path.c_str(), pairs, threads);
  bool ok = true;
  for (const upsample::bench::Workload* w : workloads) {
    ok = compare(*w, a, b, pairs, threads, expect_same_bits) && ok;
  }
  return ok ? 0 : 1;
}
