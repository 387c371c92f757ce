// The CPU backend's choices, in one place (dispatch.cpp). For every resample step the candidate
// kernels are asked in order; the first that accepts runs the step, and each one before it
// records why it declined. The execution strategy is decided here too: plane mode or tensor
// mode, whether consecutive steps are fused, and, per call, whether plane mode still applies to
// the call's thread count. Every decision comes with its reason, which Plan::describe() prints.
// The backend (backend.cpp) only gathers the facts these functions decide on, and builds and
// lays out what they chose.
#pragma once

#include <string>

#include "cpu/kernels.hpp"

namespace upsample::cpu {

// Tests compare every compiled SIMD target with the portable scalar kernels.
enum class KernelPolicy { kBest, kScalarOnly };
void set_kernel_policy_for_testing(KernelPolicy policy);
// The policy in force (part of a cached plan's key: api/plan_cache.cpp).
KernelPolicy kernel_policy();

template <typename W>
struct PassRequest {
  const core::Step* step = nullptr;
  const core::Axis<W>* axis = nullptr;
  const SimdKernels* simd = nullptr;
};

// Why the candidates tried before the chosen one declined, as (candidate, reason) string
// literals: kept without allocating, joined into text only for Plan::describe().
struct Declines {
  static constexpr int kMax = 16;  // at least the number of candidates (dispatch.cpp)
  struct Item {
    const char* candidate;
    const char* reason;
  };
  int count = 0;
  Item items[kMax] = {};
  void add(const char* candidate, const char* reason) {
    if (count < kMax) items[count++] = {candidate, reason};
  }
  bool empty() const { return count == 0; }
  std::string text() const;  // "candidate: reason; ..."
};

template <typename W>
struct PassChoice {
  const char* kernel = "";
  PassFn<W> fn = nullptr;
  int64_t (*items)(const PassShape&) = nullptr;
  PassShape shape;            // as the kernel sees it (interleaving flattens channels into rows)
  int64_t interleave = 1;     // the table is interleaved over groups of this many elements
  bool needs_table = false;   // the kernel reads a materialised PassTable
  bool padded = false;        // ... with its padded and windowed forms
  int64_t scratch_bytes = 0;  // private scratch each thread needs (workspace)
  bool prefetches = false;    // the kernel reads PassArgs::prefetch_rows_ahead
  // The kernel writes with non-temporal stores, which it does not fence: the executor makes them
  // visible to other threads once per thread and call (SimdKernels::flush_streams).
  bool non_temporal = false;
  Declines declined;  // the candidates tried before
};

template <typename W>
PassChoice<W> choose_pass_kernel(const PassRequest<W>& request);

// Bytes the kernel-ready form of a choice adds to the core table it takes over (an interleaved
// table replaces the core one; padded and windowed forms come on top).
template <typename W>
int64_t kernel_table_bytes(const PassChoice<W>& choice, const core::Axis<W>& axis, int64_t lanes);

// Whether two consecutive steps run fused (program.hpp, Fused).
struct FusionRequest {
  bool a_resample = false;
  bool b_resample = false;
  bool connected = false;         // a writes a workspace region that b reads
  bool b_vertical_table = false;  // b runs a vertical kernel over a materialised table
  bool adjacent = false;          // b's inner is exactly one of a's output rows
  // For fusion in row bands (program.hpp, Fused::row_bands): a runs a plain vertical kernel
  // (simd_vertical or scalar_vertical, which honour PassArgs::dst_item_bias) over a materialised
  // table, and each of a's output rows holds whole planes of b, the same number of b's items each.
  bool a_plain_vertical = false;
  bool b_within_rows = false;
  int64_t a_row_bytes = 0;  // one of a's output rows: a band holds at least one
};
// The longest row of a's output a row band takes (a thread's scratch holds at least one).
inline constexpr int64_t kMaxRowBandRowBytes = int64_t{384} << 10;
// "" when the pair fuses in bands of b's output rows, else why not.
std::string fusion_declines(const FusionRequest& request);
// "" when the pair fuses in bands of a's output rows, each handed on to b, else why not.
std::string row_fusion_declines(const FusionRequest& request);

// A fused pair of two vertical passes (a then b) that may run as one kernel keeping a's rows in
// registers (SimdKernels::vertical_pair): both on the vector vertical kernel, storage type T ->
// float32 -> T, few taps (a's rows are recomputed for every row of b that reads them: cheap
// when both passes have at most two taps, as bilinear has), a's taps at least one vector long.
struct PairRequest {
  bool both_simd_vertical = false;
  // a on simd_copy_rows (elements within rows), b on copy_rows (whole rows): as one kernel
  // (SimdKernels::copy_pair_4), a's copy of each source row written to every row of b that
  // repeats it.
  bool copy_then_row_copy = false;
  bool alpha = false;  // premultiplied alpha in either step
  DType a_in = DType::kFloat32, a_out = DType::kFloat32;
  DType b_in = DType::kFloat32, b_out = DType::kFloat32;
  int64_t a_max_taps = 0, b_max_taps = 0;
  int64_t a_inner = 0;  // elements of one tap of a
  int64_t lanes = 1;    // float32 lanes of the SIMD set
  bool b_writes_dst = false;
  int64_t b_out_bytes = 0;  // of b's whole output
};
constexpr int64_t kMaxPairTaps = 2;
// "" when the pair runs as one kernel, else why not.
std::string pair_declines(const PairRequest& request);
// Whether a pair that runs as one kernel writes with non-temporal stores
// (SimdKernels::copy_pair_4_stream): a row copy then a row gather whose output is the call's and
// at least copy_stream_bytes(). Below that the ordinary stores win.
bool pair_streams(const PairRequest& request);
// The smallest output copy_pair_4 streams, for this CPU (read once): copy_stream_bytes_for() of
// its CPUID vendor, family and L3 per core complex.
int64_t copy_stream_bytes();
// 16 MiB, where W5's 16 MiB written with ordinary stores paid for reading each line first (the
// Intel Xeon host of docs/performance.md, "Nearest written past the caches"). On AMD, whose
// core complexes each have an L3 of their own: three quarters of it when CPUID reports it
// (`l3_bytes`, leaf 0x8000001D; 0 when it does not, as in some VMs), so that the output and its
// input stay there; else 24 MiB for family 0x19 and later (Zen 3 to 5: 32 MiB per complex on
// the desktop and server parts): on the Zen 5 host ("Backward passes in row bands") ordinary
// stores were faster for W5's 16 MiB, non-temporal ones for 24 and 32 MiB.
int64_t copy_stream_bytes_for(bool amd, unsigned family, int64_t l3_bytes);
// The x86 family of a CPUID leaf 1 signature (eax): the base family, plus the extended family
// when the base is 0xF.
unsigned x86_family(uint32_t signature);

struct StrategyRequest {
  int passes = 0;             // resample steps
  bool has_copies = false;    // layout copy steps (strided, not sliceable)
  int64_t batch = 1;          // independent slices
  int64_t slice_scratch = 0;  // bytes of the largest intermediate of one slice
};

struct Strategy {
  // Plane mode: each thread runs every step on blocks of `block` slices with a private,
  // cache-sized scratch slot, so intermediates never leave the cache.
  bool planes = false;
  int64_t block = 1;
  int slots = 1;
  std::string why;
};

// Plane mode when the leading dims are independent slices whose intermediates fit in cache.
Strategy choose_strategy(const StrategyRequest& request);

// Fusion is tried unless plane mode keeps the intermediates of three or more passes in cache (a
// fused pair keeps one): "" when fusion is tried, else why not.
std::string fusion_not_tried(const Strategy& strategy, int passes);

// The strategy once fusion has been tried: fused pairs run in tensor mode, so plane mode yields
// to them (its reason stays in the description).
Strategy strategy_after_fusion(Strategy strategy, bool any_fused);

// Per call: plane mode runs unless the slices would split unevenly between the call's threads
// (e.g. 3 slices on 2 threads); then every step is split by rows instead. Both give the same bits.
bool planes_for_call(const Strategy& strategy, int64_t batch, int threads);

// The strategy's reasons, with the per-call rule when it is plane mode.
std::string describe_strategy(const Strategy& strategy);

}  // namespace upsample::cpu
