#include "cpu/dispatch.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <atomic>
#include <iterator>
#include <sstream>
#include <string>
#include <type_traits>

#include "core/checked.hpp"
#include "core/geometry.hpp"
#include "cpu/threads.hpp"

namespace upsample::cpu {
namespace {

std::atomic<KernelPolicy> g_policy{KernelPolicy::kBest};

// Channels-last rows of few channels: a pass whose taps are runs of 2..8 elements runs as one
// unit-stride row over the interleaved (position, channel) pairs, which the vector horizontal
// kernel handles; the interleaved table gives the same bits.
constexpr int64_t kMaxInterleave = 8;

// Reasons are string literals: choosing a kernel allocates nothing (phase 1 of every call that
// misses the plan cache goes through here once per step).
template <typename W>
using TryFn = const char* (*)(const PassRequest<W>&, PassChoice<W>*);

template <typename W>
struct Candidate {
  const char* name;
  TryFn<W> try_pass;  // nullptr and a filled choice when it runs the pass, else why it declines
};

template <typename W>
const core::Step& step_of(const PassRequest<W>& r) {
  return *r.step;
}

template <typename W>
const char* simd_declines(const PassRequest<W>& r) {
  if (!std::is_same_v<W, float>) return "float64 accumulation has no vector kernels";
  if (g_policy.load() == KernelPolicy::kScalarOnly) return "scalar kernels forced (test policy)";
  if (!r.axis->materialized) return "the table is streamed";
  return nullptr;
}

template <typename W>
bool compact(const core::Axis<W>& axis, int64_t group) {
  return PassTable<W>::padding_is_compact(axis.rows * group, axis.max_taps, axis.total_taps * group,
                                          axis.src_len * group);
}

// Steps with premultiplied alpha run only on the kernels that implement it.
bool has_alpha(const core::Step& s) { return s.premultiply || s.unpremultiply; }
constexpr const char* kNoAlpha = "no premultiplied alpha in this kernel";

// What a kernel reads besides its buffers.
enum class Table { kNone, kPlain, kPadded };  // streamed rows, a PassTable, + its padded form

// A candidate that runs the pass: its kernel, work items and table.
template <typename W>
const char* accept(PassChoice<W>* c, PassFn<W> fn, int64_t (*items)(const PassShape&),
                   Table table) {
  c->fn = fn;
  c->items = items;
  c->needs_table = table != Table::kNone;
  c->padded = table == Table::kPadded;
  return nullptr;
}

// The pass runs as one unit-stride row over interleaved (position, channel) pairs of `group`
// channels (the interleaved table gives the same taps, so the same bits).
template <typename W>
void interleave_channels(PassChoice<W>* c, int64_t group) {
  c->interleave = group;
  c->shape.src_len *= group;
  c->shape.rows *= group;
  c->shape.inner = 1;
}

// The best target's float-weight kernel of a (in, out) set for the step's types; none for W =
// double (simd_declines turns those away first).
template <typename W>
PassFn<W> simd_pair(const PassFn<float> (&set)[kDTypes][kDTypes], const core::Step& s) {
  if constexpr (std::is_same_v<W, float>) {
    return set[static_cast<int>(s.in_type)][static_cast<int>(s.out_type)];
  } else {
    return nullptr;
  }
}
template <typename W>
PassFn<W> simd_one(PassFn<float> fn) {
  if constexpr (std::is_same_v<W, float>) {
    return fn;
  } else {
    return nullptr;
  }
}

// Unit-tap rows of 4-byte elements: windows of 1-4 vectors permuted into place, interleaving
// channels-last rows of 2..8 channels as the arithmetic kernels do.
template <typename W>
const char* try_simd_copy_rows(const PassRequest<W>& r, PassChoice<W>* c) {
  const core::Step& s = step_of(r);
  if (!r.axis->unit_taps) return "taps carry weights";
  if (s.in_type != s.out_type) return "the dtype changes";
  if (dtype_size(s.in_type) != 4) return "elements are not 4 bytes";
  if (const char* why = simd_declines(r)) return why;
  if (s.shape.inner > kMaxInterleave) return "inner is more than 8";
  interleave_channels(c, s.shape.inner);
  return accept(c, simd_one<W>(r.simd->copy_rows_4), &horizontal_items, Table::kPadded);
}

template <typename W>
const char* try_copy_rows(const PassRequest<W>& r, PassChoice<W>* c) {
  const core::Step& s = step_of(r);
  if (!r.axis->unit_taps) return "taps carry weights";
  if (s.in_type != s.out_type) return "the dtype changes";
  if (!r.axis->materialized) return "the table is streamed";
  const bool horizontal = s.shape.inner == 1;
  return accept(c, gather_copy<W>(dtype_size(s.in_type), horizontal),
                horizontal ? &horizontal_items : &vertical_items, Table::kPlain);
}

template <typename W>
const char* try_stream_copy(const PassRequest<W>& r, PassChoice<W>* c) {
  const core::Step& s = step_of(r);
  if (r.axis->materialized) return "the table is materialised";
  if (!r.axis->unit_taps || s.in_type != s.out_type) return "not a unit-tap copy";
  return accept(c, streamed_gather_copy<W>(dtype_size(s.in_type)), &vertical_items, Table::kNone);
}

template <typename W>
const char* try_stream_rows(const PassRequest<W>& r, PassChoice<W>* c) {
  const core::Step& s = step_of(r);
  if (r.axis->materialized) return "the table is materialised";
  return accept(c, scalar_streamed<W>(s.in_type, s.out_type), &vertical_items, Table::kNone);
}

template <typename W>
const char* try_simd_interleaved(const PassRequest<W>& r, PassChoice<W>* c) {
  const core::Step& s = step_of(r);
  if (has_alpha(s)) return kNoAlpha;
  if (const char* why = simd_declines(r)) return why;
  if (s.shape.inner < 2 || s.shape.inner > kMaxInterleave) return "inner is not 2..8";
  if (!compact(*r.axis, s.shape.inner)) return "padding the interleaved table would waste memory";
  interleave_channels(c, s.shape.inner);
  return accept(c, simd_pair<W>(r.simd->horizontal, s), &horizontal_items, Table::kPadded);
}

// Whether a block of `lanes` consecutive outputs of a horizontal pass (over rows of `group`-
// element groups) reads more than four vectors of input: the windowed permutes of
// simd_horizontal cannot pick its taps. Estimated from the ratio and the longest row, so that the
// choice is the same before the tables exist (phase-1 memory) and after.
template <typename W>
bool wide_windows(const core::Axis<W>& axis, int64_t group, int64_t lanes) {
  const double ratio =
      static_cast<double>(axis.src_len) / static_cast<double>(std::max<int64_t>(axis.rows, 1));
  const double span =
      static_cast<double>(lanes - 1) * ratio + static_cast<double>(axis.max_taps * group);
  return span > static_cast<double>(4 * lanes);
}

// Whether a wide-window pass is downsampling by exactly 2, 3 or 4 with at most kMaxPhasedTaps
// taps, float32 rows into float32 (antialiased linear 4:1 on AVX-512: W7): its inner blocks are
// then phased (PassTable::block_phases), which the transposed kernel takes from their phases
// given the padded table.
template <typename W>
bool phased_downsampling(const core::Axis<W>& axis, const core::Step& s) {
  if (axis.transposed || s.shape.inner != 1 || has_alpha(s) || s.in_type != DType::kFloat32 ||
      s.out_type != DType::kFloat32 || axis.max_taps > kMaxPhasedTaps || !compact(axis, 1)) {
    return false;
  }
  const AxisSpec& spec = axis.weights.spec();
  const W ratio = geometry::ratio<W>(spec.in_len, spec.out_len, spec.align_corners, spec.scale);
  return ratio == W(2) || ratio == W(3) || ratio == W(4);
}

// Horizontal passes whose windows are wide: vectorised across rows through transposed tiles.
template <typename W>
const char* try_simd_transposed(const PassRequest<W>& r, PassChoice<W>* c) {
  const core::Step& s = step_of(r);
  if (const char* why = simd_declines(r)) return why;
  if (s.shape.inner > kMaxInterleave) return "inner is more than 8";
  if (!has_alpha(s) && !wide_windows(*r.axis, s.shape.inner, r.simd->lanes)) {
    return "the windows of a vector of outputs fit four vectors";
  }
  const bool phased = phased_downsampling(*r.axis, s);
  interleave_channels(c, s.shape.inner);
  c->scratch_bytes = r.simd->transposed_scratch_bytes;
  return accept(c, simd_pair<W>(r.simd->horizontal_transposed, s), &horizontal_items,
                phased ? Table::kPadded : Table::kPlain);
}

// The last step's float32 output much larger than the caches: streamed past them.
constexpr int64_t kStreamBytes = int64_t{64} << 20;

// The last step's float32 output is also streamed past the caches (non-temporal stores) where
// its pass reduces (fewer outputs than inputs along its axis: the backward of an upsampling, a
// downsampling) and writes at least kReducingStreamBytes, in rows of whole 64-byte lines
// (`row_elems` float32 elements: a vertical pass's inner, a horizontal pass's outputs per row).
// Such a call reads more than it writes, and its stores then go to memory beside the reads
// instead of taking their lines into the caches first and evicting dirty lines from them. The
// floor's non-temporal stores are the faster ones on exactly these workloads (W2, W4, W6, W7,
// W9, W12, W14, W16), and on the Zen 5 host of docs/performance.md ("Reducing passes streamed
// past the caches", separate processes, 8 rounds) W2 took 0.85, W6 0.83, W12 0.56, W14 and W16
// 0.92 of their times. W7's and W9's 0.6 MiB outputs stay under the threshold, as does an output
// a consumer may still find in the caches.
constexpr int64_t kReducingStreamBytes = int64_t{2} << 20;

// Why a reducing pass's output (out_bytes, in rows of row_elems elements) is not streamed, or
// nullptr.
const char* reduced_stream_declines(const core::Step& s, int64_t out_bytes, int64_t row_elems) {
  if (s.shape.rows >= s.shape.src_len) {
    return "the output fits the caches and the pass does not reduce";
  }
  if (out_bytes < kReducingStreamBytes) return "a reducing pass's output under 2 MiB";
  if (row_elems % 16 != 0) return "rows not of whole 64-byte lines";
  return nullptr;
}

template <typename W>
const char* try_simd_vertical_stream(const PassRequest<W>& r, PassChoice<W>* c) {
  const core::Step& s = step_of(r);
  if (has_alpha(s)) return kNoAlpha;
  if (const char* why = simd_declines(r)) return why;
  if (s.shape.inner == 1) return "inner is 1 (taps along the unit-stride axis)";
  if (s.out != core::Buffer::kDst || s.out_type != DType::kFloat32) {
    return "not the float32 output";
  }
  if (s.in_type != DType::kFloat32) return "the input is not float32";
  const int64_t out_bytes = s.shape.outer * s.shape.rows * s.shape.inner * 4;
  if (out_bytes < kStreamBytes || s.shape.inner < 64) {
    if (const char* why = reduced_stream_declines(s, out_bytes, s.shape.inner)) {
      return out_bytes >= kStreamBytes ? "rows shorter than 64 elements" : why;
    }
  }
  c->prefetches = true;
  c->non_temporal = true;
  return accept(c, simd_one<W>(r.simd->vertical_stream), &vertical_items, Table::kPlain);
}

template <typename W>
const char* try_simd_vertical(const PassRequest<W>& r, PassChoice<W>* c) {
  const core::Step& s = step_of(r);
  if (const char* why = simd_declines(r)) return why;
  if (s.shape.inner == 1) return "inner is 1 (taps along the unit-stride axis)";
  if (has_alpha(s)) {
    if (s.alpha_channels != 2 && s.alpha_channels != 4) return "alpha pixels are not of 2 or 4";
    if (r.simd->lanes % s.alpha_channels != 0) return "a vector does not hold whole pixels";
    return accept(c, simd_pair<W>(r.simd->vertical_alpha[s.alpha_channels == 4 ? 1 : 0], s),
                  &vertical_items, Table::kPlain);
  }
  c->prefetches = true;  // (the alpha kernels above do not)
  return accept(c, simd_pair<W>(r.simd->vertical, s), &vertical_items, Table::kPlain);
}

// Why the windowed horizontal kernel (ordinary or streaming) cannot run a pass, or nullptr.
template <typename W>
const char* horizontal_declines(const PassRequest<W>& r) {
  const core::Step& s = step_of(r);
  if (const char* why = simd_declines(r)) return why;
  if (has_alpha(s)) return kNoAlpha;
  if (s.shape.inner != 1) return "inner is not 1";
  if (!compact(*r.axis, 1)) return "padding the table to its longest row would waste memory";
  return nullptr;
}

// A horizontal pass's float32 output of at least this many bytes: streamed past the caches (and
// smaller ones of reducing passes: kReducingStreamBytes). On
// the Zen 5 host of docs/performance.md the floor's non-temporal stores beat ordinary ones at
// W11's 32 MiB of output (0.45 against 0.49 ms) and lose at W1's 16 MiB (0.23 against 0.13).
constexpr int64_t kHorizontalStreamBytes = int64_t{32} << 20;

template <typename W>
const char* try_simd_horizontal_stream(const PassRequest<W>& r, PassChoice<W>* c) {
  const core::Step& s = step_of(r);
  if (const char* why = horizontal_declines(r)) return why;
  if (s.out != core::Buffer::kDst || s.out_type != DType::kFloat32 ||
      s.in_type != DType::kFloat32) {
    return "not float32 into the float32 output";
  }
  const int64_t out_bytes = s.shape.outer * s.shape.rows * 4;
  if (out_bytes < kHorizontalStreamBytes) {
    if (const char* why = reduced_stream_declines(s, out_bytes, s.shape.rows)) return why;
  }
  c->non_temporal = true;
  return accept(c, simd_one<W>(r.simd->horizontal_stream), &horizontal_items, Table::kPadded);
}

template <typename W>
const char* try_simd_horizontal(const PassRequest<W>& r, PassChoice<W>* c) {
  if (const char* why = horizontal_declines(r)) return why;
  return accept(c, simd_pair<W>(r.simd->horizontal, step_of(r)), &horizontal_items, Table::kPadded);
}

template <typename W>
const char* try_scalar_vertical(const PassRequest<W>& r, PassChoice<W>* c) {
  const core::Step& s = step_of(r);
  if (s.shape.inner == 1) return "inner is 1";
  if (has_alpha(s)) {
    return accept(c, scalar_vertical_alpha<W>(s.in_type, s.out_type), &vertical_items,
                  Table::kPlain);
  }
  return accept(c, scalar_vertical<W>(s.in_type, s.out_type), &vertical_items, Table::kPlain);
}

template <typename W>
const char* try_scalar_horizontal(const PassRequest<W>& r, PassChoice<W>* c) {
  const core::Step& s = step_of(r);
  if (has_alpha(s)) return kNoAlpha;
  return accept(c, scalar_horizontal<W>(s.in_type, s.out_type), &horizontal_items, Table::kPlain);
}

template <typename W>
constexpr Candidate<W> kCandidates[] = {
    {"simd_copy_rows", &try_simd_copy_rows<W>},
    {"copy_rows", &try_copy_rows<W>},
    {"stream_copy", &try_stream_copy<W>},
    {"stream_rows", &try_stream_rows<W>},
    {"simd_horizontal_transposed", &try_simd_transposed<W>},
    {"simd_horizontal_interleaved", &try_simd_interleaved<W>},
    {"simd_vertical_stream", &try_simd_vertical_stream<W>},
    {"simd_vertical", &try_simd_vertical<W>},
    {"simd_horizontal_stream", &try_simd_horizontal_stream<W>},
    {"simd_horizontal", &try_simd_horizontal<W>},
    {"scalar_vertical", &try_scalar_vertical<W>},
    {"scalar_horizontal", &try_scalar_horizontal<W>},
};
static_assert(std::size(kCandidates<float>) <= Declines::kMax);

}  // namespace

void set_kernel_policy_for_testing(KernelPolicy policy) { g_policy.store(policy); }
KernelPolicy kernel_policy() { return g_policy.load(); }

template <typename W>
PassChoice<W> choose_pass_kernel(const PassRequest<W>& request) {
  Declines declined;
  for (const Candidate<W>& candidate : kCandidates<W>) {
    PassChoice<W> choice;
    choice.shape = request.step->shape;
    const char* why = candidate.try_pass(request, &choice);
    if (why == nullptr && choice.fn != nullptr) {
      choice.kernel = candidate.name;
      choice.declined = declined;
      return choice;
    }
    declined.add(candidate.name, why == nullptr ? "no kernel for these dtypes" : why);
  }
  PassChoice<W> none;  // unreachable: scalar_horizontal takes every reachable pair
  none.declined = declined;
  return none;
}

std::string Declines::text() const {
  std::string t;
  for (int i = 0; i < count; ++i) {
    t += (i == 0 ? "" : "; ") + std::string(items[i].candidate) + ": " + items[i].reason;
  }
  return t;
}

template <typename W>
int64_t kernel_table_bytes(const PassChoice<W>& c, const core::Axis<W>& axis, int64_t lanes) {
  if (!c.needs_table) return 0;
  int64_t bytes = 0;
  if (c.interleave > 1) {  // an interleaved table replaces the core one
    bytes += table_bytes<W>(axis.rows * c.interleave, axis.total_taps * c.interleave) -
             table_bytes<W>(axis.rows, axis.total_taps);
  }
  if (c.padded) bytes += PassTable<W>::padded_bytes(axis.rows * c.interleave, axis.max_taps, lanes);
  return bytes;
}

template PassChoice<float> choose_pass_kernel<float>(const PassRequest<float>&);
template PassChoice<double> choose_pass_kernel<double>(const PassRequest<double>&);
template int64_t kernel_table_bytes<float>(const PassChoice<float>&, const core::Axis<float>&,
                                           int64_t);
template int64_t kernel_table_bytes<double>(const PassChoice<double>&, const core::Axis<double>&,
                                            int64_t);

std::string fusion_declines(const FusionRequest& r) {
  if (!r.a_resample || !r.b_resample) return "not two resample steps";
  if (!r.connected) return "the second step does not read the first one's workspace output";
  if (!r.b_vertical_table) return "the second step is not a vertical kernel over a table";
  if (!r.adjacent) return "the second step's rows are not the first one's output rows";
  return "";
}

std::string row_fusion_declines(const FusionRequest& r) {
  if (!r.a_resample || !r.b_resample) return "not two resample steps";
  if (!r.connected) return "the second step does not read the first one's workspace output";
  if (!r.a_plain_vertical) return "the first step is not a plain vertical kernel over a table";
  if (!r.b_within_rows) return "the second step's planes are not inside the first one's rows";
  if (r.a_row_bytes > kMaxRowBandRowBytes) {
    return "the first step's rows are longer than " + std::to_string(kMaxRowBandRowBytes) +
           " bytes";
  }
  return "";
}

std::string pair_declines(const PairRequest& r) {
  if (r.copy_then_row_copy) return "";
  if (!r.both_simd_vertical)
    return "not two vector vertical kernels and not a row copy then a row gather";
  if (r.alpha) return kNoAlpha;
  if (r.a_out != DType::kFloat32 || r.b_in != DType::kFloat32 || r.a_in != r.b_out) {
    return "not T -> float32 -> T";
  }
  if (r.a_max_taps > kMaxPairTaps || r.b_max_taps > kMaxPairTaps) {
    return "more than " + std::to_string(kMaxPairTaps) + " taps (the first pass's rows would be " +
           "recomputed too often)";
  }
  if (r.a_inner < r.lanes) return "the first pass's taps are shorter than a vector";
  return "";
}

bool pair_streams(const PairRequest& r) {
  return r.copy_then_row_copy && r.b_writes_dst && r.b_out_bytes >= copy_stream_bytes();
}

unsigned x86_family(uint32_t signature) {
  const unsigned base = (signature >> 8) & 0xf, extended = (signature >> 20) & 0xff;
  return base == 0xf ? base + extended : base;
}

int64_t copy_stream_bytes_for(bool amd, unsigned family, int64_t l3_bytes) {
  constexpr int64_t kDefault = int64_t{16} << 20;
  if (!amd) return kDefault;
  if (l3_bytes > 0) return l3_bytes / 4 * 3;
  return family >= 0x19 ? int64_t{24} << 20 : kDefault;
}

int64_t copy_stream_bytes() {
  static const int64_t bytes = [] {
    bool amd = false;
    unsigned family = 0;
    int64_t l3_bytes = 0;
#if defined(__x86_64__) || defined(__i386__)
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    // "AuthenticAMD" in ebx, edx, ecx.
    amd = __get_cpuid(0, &eax, &ebx, &ecx, &edx) != 0 && ebx == 0x68747541u && edx == 0x69746e65u &&
          ecx == 0x444d4163u;
    if (amd && __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0) family = x86_family(eax);
    // Leaf 0x8000001D (with the topology extensions): one subleaf per cache, until type 0.
    if (amd && __get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) != 0 && eax >= 0x8000001Du &&
        __get_cpuid(0x80000001u, &eax, &ebx, &ecx, &edx) != 0 && (ecx >> 22 & 1) != 0) {
      for (unsigned sub = 0; sub < 8; ++sub) {
        __cpuid_count(0x8000001Du, sub, eax, ebx, ecx, edx);
        if ((eax & 0x1f) == 0) break;
        if ((eax >> 5 & 7) == 3) {
          // ways * partitions * line size * sets; saturated (a hypervisor may report anything).
          l3_bytes = saturating_mul(
              int64_t{(ebx >> 22 & 0x3ff) + 1} * ((ebx >> 12 & 0x3ff) + 1) * ((ebx & 0xfff) + 1),
              int64_t{ecx} + 1);
        }
      }
    }
#endif
    return copy_stream_bytes_for(amd, family, l3_bytes);
  }();
  return bytes;
}

Strategy choose_strategy(const StrategyRequest& r) {
  constexpr int64_t kMaxSliceScratch = 2 << 20;  // per region, one slice
  constexpr int64_t kBlockScratch = 256 << 10;   // target per region, one block
  Strategy s;
  std::ostringstream why;
  if (r.passes < 2) {
    why << "tensor mode: one pass has no intermediate to keep in cache";
  } else if (r.batch < 2) {
    why << "tensor mode: no independent slices (batch " << r.batch << ")";
  } else if (r.has_copies) {
    why << "tensor mode: layout copies of strided views do not split into slices";
  } else if (r.slice_scratch > kMaxSliceScratch) {
    why << "tensor mode: a slice's intermediate (" << r.slice_scratch << " bytes) exceeds "
        << kMaxSliceScratch;
  } else {
    s.planes = true;
    s.block =
        std::clamp<int64_t>(kBlockScratch / std::max<int64_t>(r.slice_scratch, 1), 1, r.batch);
    s.slots = std::clamp(default_threads(), 1, 64);
    why << "plane mode: " << r.batch << " slices in blocks of " << s.block << ", " << s.slots
        << " scratch slots";
  }
  s.why = why.str();
  return s;
}

std::string fusion_not_tried(const Strategy& s, int passes) {
  if (!s.planes || passes < 3) return "";
  return "fusion in bands not tried: plane mode keeps the intermediates of all " +
         std::to_string(passes) + " passes in cache";
}

Strategy strategy_after_fusion(Strategy s, bool any_fused) {
  if (!any_fused || !s.planes) return s;
  Strategy fused;
  fused.why =
      "tensor mode with fused passes (they keep the intermediate in cache), instead of " + s.why;
  return fused;
}

bool planes_for_call(const Strategy& s, int64_t batch, int threads) {
  if (!s.planes) return false;
  const int64_t team = std::min<int64_t>({threads, s.slots, batch});
  return batch % team == 0 || batch >= 4 * team;
}

std::string describe_strategy(const Strategy& s) {
  if (!s.planes) return s.why;
  return s.why +
         " (a call whose threads would split the slices unevenly, fewer than 4 per thread, runs "
         "in tensor mode)";
}

}  // namespace upsample::cpu
