// libFuzzer target: the library driven through its C API only (acl/acl.h, aclnn/acl_meta.h and
// the aclnnop headers, reached through the call adapters of tools/check/entry_points.hpp). Each
// input decodes into a few operations; an operation is one GetWorkspaceSize call of any of the
// 28 entry points with arbitrary dims, strides, offsets, storage, dtypes, formats, scales,
// outputSize / inputSize arrays (of any length) and null pointers, followed, when it is
// accepted, by launches with executor misuse (double launch, destroyed, repeatable), wrong
// workspaces and null, created or destroyed streams; or a few direct misuses of the runtime's
// creators and destructors.
//
// What is checked (a failure ends in __builtin_trap, after a line on stderr saying why):
//   - nothing crashes and the sanitizers report nothing (the build is ASan + UBSan);
//   - an accepted call has every view inside its claimed storage, a data address when it is
//     not empty, an output that does not overlap itself or the input (computed here with
//     checked arithmetic, independently of the library);
//   - an accepted call with a correct workspace on a live stream runs and succeeds, writes
//     exactly the bytes of its output view (every other byte of every buffer, the input's
//     included, is unchanged), and its output equals bit for bit that of the same call on
//     contiguous copies of its tensors;
//   - a consumed or destroyed executor, a workspace that is too small, a destroyed stream are
//     refused, and the executor survives a refused launch.
// Real buffers are small (kMaxBackedElements); a view that is larger, or that reaches outside
// its claimed storage, gets an address in a reserved inaccessible region, so phase one may see
// huge claimed shapes but no launch ever touches them.
//
// docs/reliability.md describes how to run it (./dev fuzz), the corpus and dictionary.
#include <fuzzer/FuzzedDataProvider.h>
#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "check/entry_points.hpp"

namespace {

using upsample::cli::CallArgs;
using upsample::cli::EntryPoint;

constexpr int64_t kMaxBackedElements = int64_t{1} << 16;
constexpr uint64_t kMaxWorkspaceBytes = uint64_t{1} << 24;
constexpr int kMaxOperations = 3;
constexpr int kMaxRank = 9;  // one more than aclCreateTensor accepts

[[noreturn]] void finding(const char* what, const std::string& call) {
  const char* msg = aclGetRecentErrMsg();
  std::fprintf(stderr, "aclnn_fuzz finding: %s\n  call: %s\n  last error: %s\n", what, call.c_str(),
               msg != nullptr ? msg : "(none)");
  __builtin_trap();
}

// How far the operations got, printed at exit when ACLNN_FUZZ_STATS is set.
struct Stats {
  uint64_t operations = 0, accepted = 0, launched = 0, compared = 0;
  ~Stats() {
    if (std::getenv("ACLNN_FUZZ_STATS") == nullptr) return;
    std::fprintf(
        stderr,
        "aclnn_fuzz: %llu operations, %llu accepted in phase one, %llu launched, %llu "
        "compared with a contiguous copy\n",
        static_cast<unsigned long long>(operations), static_cast<unsigned long long>(accepted),
        static_cast<unsigned long long>(launched), static_cast<unsigned long long>(compared));
  }
} g_stats;

// ACLNN_FUZZ_TRACE set: every call is printed before it is made (to see what a crashing input
// does).
const bool g_trace = std::getenv("ACLNN_FUZZ_TRACE") != nullptr;

// ---- values an attacker tries first

constexpr int64_t kInterestingInts[] = {
    0,
    1,
    -1,
    2,
    3,
    65537,
    int64_t{1} << 24,
    int64_t{1} << 26,
    int64_t{1} << 30,
    int64_t{1} << 31,
    (int64_t{1} << 31) + 1,
    int64_t{1} << 32,
    (int64_t{1} << 32) + 1,
    int64_t{1} << 40,
    int64_t{1} << 62,
    -(int64_t{1} << 62),
    std::numeric_limits<int64_t>::max(),
    std::numeric_limits<int64_t>::max() - 1,
    std::numeric_limits<int64_t>::max() / 2,
    std::numeric_limits<int64_t>::max() / 2 + 1,
    std::numeric_limits<int64_t>::max() / 4 + 1,
    std::numeric_limits<int64_t>::max() / 8 + 1,
    std::numeric_limits<int64_t>::min(),
    std::numeric_limits<int64_t>::min() + 1,
};

constexpr double kInterestingScales[] = {
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    3.0,
    1e-5,
    1e-19,
    1e-30,
    0x1p-100,
    0x1p-101,
    1e30,
    std::numeric_limits<double>::quiet_NaN(),
    -std::numeric_limits<double>::quiet_NaN(),
    std::numeric_limits<double>::infinity(),
    -std::numeric_limits<double>::infinity(),
    std::numeric_limits<double>::denorm_min(),
    DBL_MIN,
    DBL_MAX,
    -DBL_MAX,
    FLT_MAX,
    static_cast<double>(FLT_MAX) * 2.0,
    std::numeric_limits<float>::denorm_min(),
};

constexpr int kDataTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_UINT8};
constexpr int kFormats[] = {ACL_FORMAT_NCHW,  ACL_FORMAT_NHWC,  ACL_FORMAT_ND,
                            ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC, ACL_FORMAT_NCL};

size_t element_size(int dtype) {
  switch (dtype) {
    case ACL_FLOAT16:
    case ACL_BF16:
      return 2;
    case ACL_DOUBLE:
    case ACL_INT64:
      return 8;
    case ACL_UINT8:
      return 1;
    default:
      return 4;
  }
}

bool is_channels_last(int format, size_t rank) {
  return (format == ACL_FORMAT_NHWC && rank == 4) || (format == ACL_FORMAT_NDHWC && rank == 5);
}

// ---- the decoder

class Decoder {
 public:
  Decoder(const uint8_t* data, size_t size) : in_(data, size) {}
  bool chance(int one_in) { return in_.ConsumeIntegralInRange<int>(0, one_in - 1) == 0; }
  template <typename T>
  T in_range(T lo, T hi) {
    return in_.ConsumeIntegralInRange<T>(lo, hi);
  }
  int64_t interesting_int() {
    return chance(4) ? in_.ConsumeIntegral<int64_t>() : in_.PickValueInArray(kInterestingInts);
  }
  double scale(double ratio) {
    switch (in_range(0, 5)) {
      case 0:
        return 0.0;  // not given
      case 1:
      case 2:
        return ratio;
      case 3: {
        double v;
        const uint64_t bits = in_.ConsumeIntegral<uint64_t>();
        std::memcpy(&v, &bits, sizeof v);
        return v;
      }
      case 4:
        return ratio * (1.0 + (in_.ConsumeProbability<double>() - 0.5) * 1e-6);
      default:
        return in_.PickValueInArray(kInterestingScales);
    }
  }
  std::vector<uint8_t> bytes(size_t n) { return in_.ConsumeBytes<uint8_t>(n); }
  template <typename T, size_t kSize>
  T pick(const T (&values)[kSize]) {
    return in_.PickValueInArray(values);
  }
  bool empty() { return in_.remaining_bytes() == 0; }

 private:
  FuzzedDataProvider in_;
};

// ---- the fuzzer's own view arithmetic (checked, independent of the library's)

struct Reach {
  bool ok = false;  // every address formable in int64
  int64_t lowest = 0, highest = 0;
};

Reach view_reach(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                 int64_t offset) {
  Reach r;
  int64_t lo = offset, hi = offset;
  for (size_t d = 0; d < dims.size(); ++d) {
    int64_t last, span;
    if (__builtin_sub_overflow(dims[d], 1, &last) ||
        __builtin_mul_overflow(last, strides[d], &span)) {
      return r;
    }
    if (__builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi)) return r;
  }
  r.ok = true;
  r.lowest = lo;
  r.highest = hi;
  return r;
}

int64_t checked_product(const std::vector<int64_t>& dims, bool* ok) {
  int64_t p = 1;
  *ok = true;
  for (int64_t d : dims) {
    if (d < 0 || __builtin_mul_overflow(p, d, &p)) *ok = false;
  }
  return p;
}

// Calls fn(i, element_offset) for every element of the view in row-major order of `dims`.
template <typename Fn>
void for_each_element(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                      int64_t offset, Fn fn) {
  bool ok;
  const int64_t n = checked_product(dims, &ok);
  std::vector<int64_t> index(dims.size(), 0);
  int64_t at = offset;
  for (int64_t i = 0; i < n; ++i) {
    fn(i, at);
    for (size_t d = dims.size(); d-- > 0;) {
      if (++index[d] < dims[d]) {
        at += strides[d];
        break;
      }
      at -= (dims[d] - 1) * strides[d];
      index[d] = 0;
    }
  }
}

// ---- tensors

// Inaccessible address space for views that are not backed by memory: the library may compute
// addresses in it in phase one, and nothing ever reads or writes there.
constexpr size_t kReservedBytes = size_t{1} << 36;
unsigned char* g_reserved = nullptr;

struct Buffer {
  unsigned char* ptr = nullptr;
  size_t bytes = 0;
  bool from_acl = false;
  void release() {
    if (ptr == nullptr) return;
    if (from_acl) {
      if (aclrtFree(ptr) != ACL_SUCCESS) finding("aclrtFree of a live block failed", "");
    } else {
      std::free(ptr);
    }
    ptr = nullptr;
  }
};

struct TensorSpec {
  bool present = true;
  std::vector<int64_t> dims, strides, storage;
  bool null_strides = false;
  int64_t offset = 0;
  int dtype = ACL_FLOAT, format = ACL_FORMAT_NCHW;
  size_t elem = 4;
  bool null_data = false;
  // derived
  bool empty = false;
  bool fits = false;    // non-empty and every element inside the claimed storage
  bool backed = false;  // fits, and [0, highest] is real memory at `base`
  int64_t numel = 0;
  Reach reach;
  unsigned char* base = nullptr;  // data pointer passed to aclCreateTensor
  aclTensor* handle = nullptr;
};

// Decodes the strides, offset and storage of a tensor whose format-order dims are `t->dims`.
void decode_layout(Decoder& in, TensorSpec* t) {
  const size_t rank = t->dims.size();
  t->strides.assign(rank, 0);
  // Memory order: row-major, or a permutation of the dims.
  std::vector<size_t> order(rank);
  for (size_t d = 0; d < rank; ++d) order[d] = d;
  if (in.chance(4)) {
    for (size_t d = rank; d > 1; --d) std::swap(order[d - 1], order[in.in_range<size_t>(0, d - 1)]);
  }
  const bool padded = in.chance(4);
  int64_t stride = padded ? in.in_range<int64_t>(1, 3) : 1;
  for (size_t k = rank; k-- > 0;) {
    const size_t d = order[k];
    t->strides[d] = stride;
    int64_t extent = std::max<int64_t>(t->dims[d], 1);
    if (padded && __builtin_add_overflow(extent, in.in_range<int64_t>(0, 2), &extent)) extent = 1;
    if (__builtin_mul_overflow(stride, extent, &stride)) stride = 1;
  }
  int64_t offset = 0;
  if (rank > 0 && in.chance(4)) {  // negative strides: start from the far end of those axes
    for (size_t d = 0; d < rank; ++d) {
      if (!in.chance(2)) continue;
      int64_t span;
      if (__builtin_mul_overflow(t->dims[d] > 0 ? t->dims[d] - 1 : 0, t->strides[d], &span) ||
          __builtin_add_overflow(offset, span, &offset)) {
        continue;
      }
      t->strides[d] = -t->strides[d];
    }
  }
  if (rank > 0 && in.chance(8)) t->strides[in.in_range<size_t>(0, rank - 1)] = 0;  // broadcast
  if (rank > 0 && in.chance(16)) {  // a hostile stride
    t->strides[in.in_range<size_t>(0, rank - 1)] = in.interesting_int();
  }
  t->null_strides = in.chance(16);
  if (t->null_strides) {  // the library computes the contiguous strides itself
    int64_t s = 1;
    for (size_t d = rank; d-- > 0;) {
      t->strides[d] = s;
      if (__builtin_mul_overflow(s, std::max<int64_t>(t->dims[d], 1), &s)) s = 0;
    }
    offset = 0;
  }
  if (__builtin_add_overflow(offset, in.chance(4) ? in.in_range<int64_t>(0, 3) : 0, &t->offset)) {
    t->offset = offset;
  }
  if (in.chance(16)) t->offset = in.interesting_int();
  // Storage: what the view reaches (plus slack), in one or two dims, or something hostile.
  const Reach r = view_reach(t->dims, t->strides, t->offset);
  int64_t needed = 1;
  if (r.ok && r.highest >= 0 && r.highest < std::numeric_limits<int64_t>::max() - 2) {
    needed = r.highest + 1;
    if (in.chance(4)) needed += in.in_range<int64_t>(-1, 2);
  }
  switch (in.chance(8) ? in.in_range(0, 4) : 5) {
    case 0:
      t->storage = {};
      break;
    case 1:
      t->storage = {in.interesting_int()};
      break;
    case 2:
      t->storage = {in.interesting_int(), in.interesting_int()};
      break;
    case 3:
      t->storage = {needed, 0};
      break;
    case 4:
      t->storage = {int64_t{1} << 32, int64_t{1} << 31};  // 2^63 elements: overflow
      break;
    default:
      if (needed % 2 == 0 && in.chance(4)) {
        t->storage = {2, needed / 2};
      } else {
        t->storage = {needed};
      }
  }
}

// The fuzzer's verdict on a view, then its memory: real when the view fits and is small.
void place(Decoder& in, TensorSpec* t, unsigned char* unbacked) {
  bool ok;
  t->numel = checked_product(t->dims, &ok);
  t->empty = ok && t->numel == 0;
  t->reach = view_reach(t->dims, t->strides, t->offset);
  const int64_t storage = checked_product(t->storage, &ok);
  int64_t storage_bytes;
  t->fits = !t->empty && t->reach.ok && ok && !t->storage.empty() && t->reach.lowest >= 0 &&
            t->reach.highest < storage &&
            !__builtin_mul_overflow(storage, static_cast<int64_t>(t->elem), &storage_bytes);
  t->backed = t->fits && t->numel <= kMaxBackedElements && t->reach.highest < kMaxBackedElements;
  t->null_data = in.chance(32);
  t->base = t->null_data ? nullptr : unbacked;
}

std::vector<int64_t> format_order(const std::vector<int64_t>& logical, int format) {
  if (!is_channels_last(format, logical.size())) return logical;
  std::vector<int64_t> dims = {logical[0]};
  dims.insert(dims.end(), logical.begin() + 2, logical.end());
  dims.push_back(logical[1]);
  return dims;
}

aclTensor* create(const TensorSpec& t) {
  return aclCreateTensor(t.dims.data(), t.dims.size(), static_cast<aclDataType>(t.dtype),
                         t.null_strides ? nullptr : t.strides.data(), t.offset,
                         static_cast<aclFormat>(t.format), t.storage.data(), t.storage.size(),
                         t.base);
}

// ---- streams of one input

// Created once (a stream is a thread): two live streams and the handle of a destroyed one.
struct Streams {
  std::vector<aclrtStream> live;
  aclrtStream destroyed = nullptr;
  Streams() {
    for (int i = 0; i < 2; ++i) {
      aclrtStream s = nullptr;
      if (aclrtCreateStream(&s) != ACL_SUCCESS) finding("aclrtCreateStream failed", "");
      live.push_back(s);
    }
    if (aclrtCreateStream(&destroyed) != ACL_SUCCESS ||
        aclrtDestroyStream(destroyed) != ACL_SUCCESS) {
      finding("creating and destroying a stream failed", "");
    }
  }
  aclrtStream pick(Decoder& in) {
    const size_t i = in.in_range<size_t>(0, live.size());
    return i == live.size() ? nullptr : live[i];
  }
  void synchronize(const std::string& call) {
    for (aclrtStream s : live) {
      if (aclrtSynchronizeStream(s) != ACL_SUCCESS) finding("a launched task failed", call);
    }
  }
};

// ---- one operation

std::string describe(const EntryPoint& entry, const TensorSpec& src, const TensorSpec& dst,
                     const std::vector<int64_t>& output_size,
                     const std::vector<int64_t>& input_size, const CallArgs& args) {
  auto list = [](const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
    return s + "]";
  };
  auto tensor = [&](const TensorSpec& t) {
    if (!t.present) return std::string("null");
    return "dims " + list(t.dims) + " strides " + (t.null_strides ? "null" : list(t.strides)) +
           " offset " + std::to_string(t.offset) + " storage " + list(t.storage) + " dtype " +
           std::to_string(t.dtype) + " format " + std::to_string(t.format) +
           (t.null_data ? " data null" : "");
  };
  char scales[96];
  std::snprintf(scales, sizeof scales, "%a %a %a", args.scales[0], args.scales[1], args.scales[2]);
  return upsample::cli::display_name(entry) + " src {" + tensor(src) + "} dst {" + tensor(dst) +
         "} outputSize " + list(output_size) + " inputSize " + list(input_size) + " scales " +
         scales + " alignCorners " + std::to_string(args.align_corners);
}

class Operation {
 public:
  Operation(Decoder& in, Streams& streams) : in_(in), streams_(streams) {}
  ~Operation() {
    aclDestroyTensor(src_.handle);
    aclDestroyTensor(dst_.handle);
    aclDestroyTensor(src_contiguous_);
    aclDestroyTensor(dst_contiguous_);
    aclDestroyIntArray(args_.output_size);
    aclDestroyIntArray(args_.input_size);
    aclDestroyFloatArray(args_.dim_scales);
    for (Buffer& b : buffers_) b.release();
  }

  void run() {
    const std::vector<EntryPoint>& entries = upsample::cli::all_entry_points();
    entry_ = &entries[in_.in_range<size_t>(0, entries.size() - 1)];
    decode_call();
    call_ = describe(*entry_, src_, dst_, output_size_, input_size_, args_);
    ++g_stats.operations;
    if (g_trace) std::fprintf(stderr, "aclnn_fuzz call: %s\n", call_.c_str());
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    const bool null_outputs = in_.chance(32);
    const aclnnStatus st = null_outputs
                               ? entry_->get_workspace_size(args_, nullptr, nullptr)
                               : entry_->get_workspace_size(args_, &workspace_size, &executor);
    if (st != ACLNN_SUCCESS) {
      if (aclGetRecentErrMsg() == nullptr) finding("a refusal without a message", call_);
      return;
    }
    if (null_outputs) finding("accepted null workspaceSize / executor", call_);
    ++g_stats.accepted;
    check_accepted();
    launch(executor, workspace_size);
  }

 private:
  // The shapes of a consistent call of the entry point, then what an attacker changes.
  void decode_call() {
    const upsample::aclnn::EntryRow& row = *entry_->row;
    const int spatial = row.spatial_rank;
    std::vector<int64_t> in_logical = {in_.in_range<int64_t>(in_.chance(8) ? 0 : 1, 3),
                                       in_.in_range<int64_t>(1, 4)};
    std::vector<int64_t> out_logical = in_logical;
    std::array<double, 3> ratio{};
    for (int a = 0; a < spatial; ++a) {
      const int64_t i = in_.in_range<int64_t>(1, 12), o = in_.in_range<int64_t>(1, 12);
      in_logical.push_back(i);
      out_logical.push_back(o);
      ratio[a] = static_cast<double>(o) / static_cast<double>(i);
    }
    const bool forward = entry_->forward();
    // src is the input (forward) or gradOut (backward), shaped like the output of the forward.
    const std::vector<int64_t>& src_logical = forward ? in_logical : out_logical;
    const std::vector<int64_t>& dst_logical = forward ? out_logical : in_logical;
    const int dtype = in_.chance(16) ? in_.in_range(0, 40) : in_.pick(kDataTypes);
    int format;
    if (row.format_count > 0 && !in_.chance(8)) {
      format = row.formats[in_.in_range(0, row.format_count - 1)];
    } else {
      format = in_.chance(16) ? in_.in_range(-1, 60) : in_.pick(kFormats);
    }
    decode_tensor(src_logical, dtype, format, &src_);
    decode_tensor(dst_logical, in_.chance(16) ? in_.pick(kDataTypes) : dtype,
                  row.formats_equal || !in_.chance(4) ? format : in_.pick(kFormats), &dst_);
    // Storage: separate buffers, or one buffer holding both views.
    const bool shared = in_.chance(8);
    allocate(&src_, &dst_, shared);
    for (TensorSpec* t : {&src_, &dst_}) {
      if (t->present) t->handle = create(*t);
    }
    args_.src = src_.handle;
    args_.dst = dst_.handle;
    // outputSize and inputSize (inputSize in logical or channels-last order).
    output_size_.assign(out_logical.begin() + 2, out_logical.end());
    input_size_ = in_.chance(2) ? in_logical : format_order(in_logical, format);
    mutate_list(&output_size_);
    mutate_list(&input_size_);
    if (!in_.chance(32))
      args_.output_size = aclCreateIntArray(output_size_.data(), output_size_.size());
    if (!in_.chance(32))
      args_.input_size = aclCreateIntArray(input_size_.data(), input_size_.size());
    args_.align_corners = in_.chance(2);
    for (int a = 0; a < spatial; ++a) args_.scales[a] = in_.scale(ratio[a]);
    if (row.variant != nullptr) decode_resize(in_logical, out_logical, format);
  }

  void decode_tensor(const std::vector<int64_t>& logical, int dtype, int format, TensorSpec* t) {
    t->present = !in_.chance(64);
    t->dtype = dtype;
    t->elem = element_size(dtype);
    t->format = format;
    t->dims = format_order(logical, format);
    if (in_.chance(8)) {  // a hostile dim, or a wrong rank
      switch (in_.in_range(0, 2)) {
        case 0:
          t->dims[in_.in_range<size_t>(0, t->dims.size() - 1)] = in_.interesting_int();
          break;
        case 1:
          t->dims.pop_back();
          break;
        default:
          if (t->dims.size() < kMaxRank) t->dims.push_back(in_.in_range<int64_t>(0, 3));
      }
    }
    decode_layout(in_, t);
  }

  void mutate_list(std::vector<int64_t>* v) {
    if (!in_.chance(8)) return;
    switch (in_.in_range(0, 3)) {
      case 0:
        if (!v->empty()) (*v)[in_.in_range<size_t>(0, v->size() - 1)] = in_.interesting_int();
        break;
      case 1:
        if (!v->empty()) v->pop_back();
        break;
      case 2:
        v->push_back(in_.in_range<int64_t>(1, 4));
        break;
      default:
        v->clear();
    }
  }

  void decode_resize(const std::vector<int64_t>& in_logical,
                     const std::vector<int64_t>& out_logical, int format) {
    std::vector<float> dim_scales(in_logical.size(), 1.0f);
    const size_t first = is_channels_last(format, in_logical.size()) ? 1 : 2;
    for (size_t a = 0; a + 2 < in_logical.size(); ++a) {
      dim_scales[first + a] =
          static_cast<float>(out_logical[2 + a]) / static_cast<float>(in_logical[2 + a]);
      if (in_.chance(8)) dim_scales[first + a] = static_cast<float>(in_.scale(1.0));
    }
    if (in_.chance(16)) dim_scales.resize(in_.in_range<size_t>(0, 6), 1.0f);
    if (!in_.chance(32))
      args_.dim_scales = aclCreateFloatArray(dim_scales.data(), dim_scales.size());
    static const char* const kModes[] = {"nearest", "bilinear",  "nearest-exact",
                                         "",        "bilinearx", "NEAREST"};
    mode_ = in_.chance(8) ? kModes[in_.in_range(0, 5)] : entry_->row->variant;
    args_.mode = in_.chance(64) ? nullptr : mode_;
  }

  unsigned char* allocate_bytes(size_t bytes) {
    Buffer b;
    b.bytes = bytes;
    b.from_acl = !in_.chance(4);
    if (b.from_acl) {
      void* p = nullptr;
      if (aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        finding("aclrtMalloc of a small block failed", "");
      }
      b.ptr = static_cast<unsigned char*>(p);
    } else {
      b.ptr = static_cast<unsigned char*>(std::malloc(bytes));
    }
    buffers_.push_back(b);
    return b.ptr;
  }

  static size_t backed_bytes(const TensorSpec& t) {
    return static_cast<size_t>(t.reach.highest + 1) * t.elem;
  }

  // Fills every buffer: the input's bytes from the fuzz input (then a pattern), the output's
  // with a sentinel, so that writes outside the output view show.
  void allocate(TensorSpec* src, TensorSpec* dst, bool shared) {
    place(in_, src, g_reserved);
    place(in_, dst, g_reserved + kReservedBytes / 2);
    if (shared && src->backed && dst->backed && !src->null_data && !dst->null_data) {
      const size_t bytes = std::max(backed_bytes(*src), backed_bytes(*dst));
      unsigned char* p = allocate_bytes(bytes);
      fill_input(p, bytes);
      src->base = dst->base = p;
      return;
    }
    for (TensorSpec* t : {src, dst}) {
      if (!t->backed || t->null_data) continue;
      const size_t bytes = backed_bytes(*t);
      t->base = allocate_bytes(bytes);
      if (t == src) {
        fill_input(t->base, bytes);
      } else {
        std::memset(t->base, 0xA5, bytes);
      }
    }
    if (src->empty && in_.chance(2)) src->base = nullptr;
    if (dst->empty && in_.chance(2)) dst->base = nullptr;
  }

  void fill_input(unsigned char* p, size_t bytes) {
    const std::vector<uint8_t> given = in_.bytes(std::min<size_t>(bytes, 64));
    for (size_t i = 0; i < bytes; ++i) {
      p[i] = i < given.size() ? given[i] : static_cast<unsigned char>(i * 37 + (i >> 8) * 11);
    }
  }

  // Marks the bytes the view's elements occupy in `mask` (over the buffer at `base`); returns
  // false if an element lands on a byte marked in `other`, or (other null) on a byte an
  // earlier element of the view occupies.
  static bool mark(const TensorSpec& t, const unsigned char* base, std::vector<uint8_t>* mask,
                   const std::vector<uint8_t>* other) {
    bool disjoint = true;
    const ptrdiff_t shift = t.base - base;
    for_each_element(t.dims, t.strides, t.offset, [&](int64_t, int64_t at) {
      const size_t first = static_cast<size_t>(shift + at * static_cast<int64_t>(t.elem));
      for (size_t b = first; b < first + t.elem; ++b) {
        if (other != nullptr ? (*other)[b] != 0 : (*mask)[b] != 0) disjoint = false;
        (*mask)[b] = 1;
      }
    });
    return disjoint;
  }

  // What must hold of any call the library accepted.
  void check_accepted() {
    for (const TensorSpec* t : {&src_, &dst_}) {
      if (!t->present) finding("accepted a null tensor", call_);
      if (t->empty) continue;
      if (!t->fits) finding("accepted a view outside its storage", call_);
      if (t->null_data) finding("accepted a non-empty view with a null data address", call_);
    }
  }

  // The index in buffers_ of the buffer the view lives in; -1 for none.
  ptrdiff_t buffer_of(const TensorSpec& t) const {
    for (size_t k = 0; k < buffers_.size(); ++k) {
      const Buffer& b = buffers_[k];
      if (t.base >= b.ptr && t.base < b.ptr + b.bytes) return static_cast<ptrdiff_t>(k);
    }
    return -1;
  }

  // Phase two: misuse first, then the launch whose result is compared.
  void launch(aclOpExecutor* executor, uint64_t workspace_size) {
    const bool runnable = (src_.empty || src_.backed) && (dst_.empty || dst_.backed) &&
                          workspace_size <= kMaxWorkspaceBytes;
    if (!runnable) {
      if (aclDestroyAclOpExecutor(executor) != ACLNN_SUCCESS) {
        finding("destroying a fresh executor failed", call_);
      }
      return;
    }
    // Overlap verdicts over the real memory.
    std::vector<uint8_t> out_mask;
    const ptrdiff_t out_buffer = dst_.empty ? -1 : buffer_of(dst_);
    if (out_buffer >= 0) {
      const Buffer& b = buffers_[static_cast<size_t>(out_buffer)];
      out_mask.assign(b.bytes, 0);
      if (!mark(dst_, b.ptr, &out_mask, nullptr)) {
        finding("accepted an output view whose elements overlap", call_);
      }
      if (!src_.empty && buffer_of(src_) == out_buffer) {
        std::vector<uint8_t> in_mask(b.bytes, 0);
        if (!mark(src_, b.ptr, &in_mask, &out_mask)) {
          finding("accepted an output view that overlaps the input view", call_);
        }
      }
    }
    void* workspace = workspace_size > 0 ? allocate_bytes(workspace_size) : nullptr;
    const bool repeatable = in_.chance(3);
    if (repeatable && aclSetAclOpExecutorRepeatable(executor) != ACLNN_SUCCESS) {
      finding("aclSetAclOpExecutorRepeatable of a fresh executor failed", call_);
    }
    const upsample::cli::LaunchFn launch = entry_->launch;
    if (in_.chance(4)) {
      if (launch(workspace, workspace_size, executor, streams_.destroyed) == ACLNN_SUCCESS) {
        finding("launched on a destroyed stream", call_);
      }
    }
    if (workspace_size > 0 && in_.chance(4)) {
      const bool null = in_.chance(2);
      if (launch(null ? nullptr : workspace, null ? workspace_size : workspace_size - 1, executor,
                 streams_.pick(in_)) == ACLNN_SUCCESS) {
        finding("launched with a workspace that is too small", call_);
      }
    }
    if (in_.chance(16)) {
      if (launch(workspace, workspace_size, reinterpret_cast<aclOpExecutor*>(0x5ca1e008),
                 nullptr) == ACLNN_SUCCESS) {
        finding("launched an invented executor", call_);
      }
    }
    if (!repeatable && in_.chance(16)) {  // destroyed before its launch
      if (aclDestroyAclOpExecutor(executor) != ACLNN_SUCCESS) {
        finding("destroying a fresh executor failed", call_);
      }
      if (launch(workspace, workspace_size, executor, streams_.pick(in_)) == ACLNN_SUCCESS) {
        finding("launched a destroyed executor", call_);
      }
      return;
    }
    ++g_stats.launched;
    std::vector<std::vector<unsigned char>> before;
    for (const Buffer& b : buffers_) before.emplace_back(b.ptr, b.ptr + b.bytes);
    const int launches = repeatable ? in_.in_range(1, 3) : 1;
    for (int i = 0; i < launches; ++i) {
      if (launch(workspace, workspace_size, executor, streams_.pick(in_)) != ACLNN_SUCCESS) {
        finding("an accepted call failed to launch", call_);
      }
    }
    streams_.synchronize(call_);
    if (repeatable) {
      if (aclDestroyAclOpExecutor(executor) != ACLNN_SUCCESS) {
        finding("destroying a repeatable executor failed", call_);
      }
    } else if (launch(workspace, workspace_size, executor, streams_.pick(in_)) == ACLNN_SUCCESS) {
      finding("launched a consumed executor twice", call_);
    }
    // Every byte outside the output view is unchanged.
    for (size_t k = 0; k < before.size(); ++k) {
      const Buffer& b = buffers_[k];
      if (b.ptr == workspace) continue;
      for (size_t i = 0; i < b.bytes; ++i) {
        const bool in_output = static_cast<ptrdiff_t>(k) == out_buffer && out_mask[i] != 0;
        if (!in_output && b.ptr[i] != before[k][i]) {
          std::fprintf(stderr, "buffer %zu of %zu (%zu bytes), byte %zu: %02x -> %02x\n", k,
                       before.size(), b.bytes, i, before[k][i], b.ptr[i]);
          finding("wrote a byte outside the output view", call_);
        }
      }
    }
    compare_with_contiguous(before);
  }

  // Gathers the view's elements, in row-major order of its dims, from `base`.
  static std::vector<unsigned char> gather(const TensorSpec& t, const unsigned char* base) {
    std::vector<unsigned char> out(static_cast<size_t>(t.numel) * t.elem);
    for_each_element(t.dims, t.strides, t.offset, [&](int64_t i, int64_t at) {
      std::memcpy(&out[static_cast<size_t>(i) * t.elem], base + at * static_cast<int64_t>(t.elem),
                  t.elem);
    });
    return out;
  }

  // The same call on contiguous copies of both tensors must give the same output bits.
  void compare_with_contiguous(const std::vector<std::vector<unsigned char>>& before) {
    if (dst_.empty) return;
    std::vector<unsigned char> src_values;
    if (!src_.empty) {
      const size_t k = static_cast<size_t>(buffer_of(src_));
      src_values = gather(src_, before[k].data() + (src_.base - buffers_[k].ptr));
    }
    const std::vector<unsigned char> result = gather(dst_, dst_.base);
    std::vector<unsigned char> src_copy = src_values, dst_copy(result.size(), 0x5A);
    auto contiguous = [](const TensorSpec& t, unsigned char* data) {
      const int64_t storage = std::max<int64_t>(t.numel, 1);
      return aclCreateTensor(t.dims.data(), t.dims.size(), static_cast<aclDataType>(t.dtype),
                             nullptr, 0, static_cast<aclFormat>(t.format), &storage, 1,
                             t.numel == 0 ? nullptr : data);
    };
    src_contiguous_ = contiguous(src_, src_copy.data());
    dst_contiguous_ = contiguous(dst_, dst_copy.data());
    CallArgs args = args_;
    args.src = src_contiguous_;
    args.dst = dst_contiguous_;
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    if (entry_->get_workspace_size(args, &workspace_size, &executor) != ACLNN_SUCCESS) {
      finding("refused the contiguous copy of an accepted call", call_);
    }
    std::vector<unsigned char> workspace(workspace_size);
    if (entry_->launch(workspace.data(), workspace_size, executor, nullptr) != ACLNN_SUCCESS) {
      finding("the contiguous copy of an accepted call failed to run", call_);
    }
    ++g_stats.compared;
    // Bit for bit, NaN results included (docs/numerics.md, Determinism).
    if (std::memcmp(result.data(), dst_copy.data(), result.size()) != 0) {
      for (size_t i = 0; i < result.size(); i += dst_.elem) {
        if (std::memcmp(&result[i], &dst_copy[i], dst_.elem) == 0) continue;
        std::string strided, contiguous;
        for (size_t b = dst_.elem; b-- > 0;) {
          char hex[4];
          std::snprintf(hex, sizeof hex, "%02x", result[i + b]);
          strided += hex;
          std::snprintf(hex, sizeof hex, "%02x", dst_copy[i + b]);
          contiguous += hex;
        }
        std::fprintf(stderr, "element %zu: strided 0x%s, contiguous 0x%s\n", i / dst_.elem,
                     strided.c_str(), contiguous.c_str());
      }
      finding("the strided result differs from the contiguous copy's", call_);
    }
  }

  Decoder& in_;
  Streams& streams_;
  const EntryPoint* entry_ = nullptr;
  TensorSpec src_, dst_;
  std::vector<int64_t> output_size_, input_size_;
  const char* mode_ = nullptr;
  CallArgs args_;
  aclTensor* src_contiguous_ = nullptr;
  aclTensor* dst_contiguous_ = nullptr;
  std::vector<Buffer> buffers_;
  std::string call_;
};

// ---- direct misuse of the runtime's creators and destructors

void misuse(Decoder& in) {
  static const int64_t kValues[4] = {1, 2, 3, 4};
  switch (in.in_range(0, 7)) {
    case 0:
      if (aclCreateIntArray(nullptr, 3) != nullptr) finding("aclCreateIntArray(null, 3)", "");
      break;
    case 1:
      // A size no memory holds is refused before anything is read.
      if (aclCreateIntArray(kValues, uint64_t{1} << in.in_range(61, 63)) != nullptr ||
          aclCreateFloatArray(reinterpret_cast<const float*>(kValues), UINT64_MAX) != nullptr) {
        finding("accepted an array larger than memory", "");
      }
      break;
    case 2: {
      const int64_t dims[kMaxRank] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
      if (aclCreateTensor(dims, kMaxRank, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, nullptr) !=
          nullptr) {
        finding("aclCreateTensor accepted 9 dims", "");
      }
      break;
    }
    case 3: {
      const int64_t dims[2] = {in.interesting_int(), 2};
      aclTensor* t =
          aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, nullptr);
      if (dims[0] < 0 && t != nullptr) finding("aclCreateTensor accepted a negative dim", "");
      aclDestroyTensor(t);
      break;
    }
    case 4:
      if (aclSetAclOpExecutorRepeatable(nullptr) == ACLNN_SUCCESS ||
          aclDestroyAclOpExecutor(nullptr) == ACLNN_SUCCESS ||
          aclDestroyAclOpExecutor(reinterpret_cast<aclOpExecutor*>(0x5ca1e000 + 16)) ==
              ACLNN_SUCCESS) {
        finding("accepted a null or invented executor", "");
      }
      break;
    case 5:
      if (aclDestroyTensor(nullptr) != ACLNN_SUCCESS ||
          aclDestroyIntArray(nullptr) != ACLNN_SUCCESS) {
        finding("destroying null failed", "");
      }
      break;
    case 6: {
      const int64_t storage_dims = 4;
      const int64_t dims[1] = {4};
      if (aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, &storage_dims,
                          uint64_t{1} << 62, nullptr) != nullptr) {
        finding("accepted a storageDimsNum larger than memory", "");
      }
      break;
    }
    default:
      if (aclrtSynchronizeStream(reinterpret_cast<aclrtStream>(0x1234)) == ACL_SUCCESS) {
        finding("synchronized an invented stream", "");
      }
  }
  aclGetRecentErrMsg();  // clears the thread's error text
}

void set_threads(int threads) {
  static int current = 0;
  if (threads == current) return;
  current = threads;
  setenv("UPSAMPLE_NUM_THREADS", std::to_string(threads).c_str(), 1);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Modest limits, so that the claimed sizes the fuzzer makes up are refused quickly; each
  // can be overridden from the environment.
  setenv("UPSAMPLE_MAX_BYTES", "64M", 0);
  setenv("UPSAMPLE_ALLOC_CACHE_BYTES", "16777216", 0);
  // OpenMP threads sleep instead of spinning between the fuzzer's many tiny launches.
  setenv("OMP_WAIT_POLICY", "passive", 0);
  setenv("KMP_BLOCKTIME", "0", 0);
  void* reserved =
      mmap(nullptr, kReservedBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reserved == MAP_FAILED) std::abort();
  g_reserved = static_cast<unsigned char*>(reserved);
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) std::abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Streams streams;
  Decoder in(data, size);
  // No task runs between inputs, so changing the environment races with no reader.
  set_threads(in.in_range(1, 2));
  const int operations = in.in_range(1, kMaxOperations);
  for (int i = 0; i < operations && !in.empty(); ++i) {
    if (in.chance(8)) {
      misuse(in);
    } else {
      Operation(in, streams).run();
    }
  }
  aclGetRecentErrMsg();
  return 0;
}
