// Runs one entry point the way a CANN application does: acl runtime session, aclrtMalloc'd
// tensors filled with aclrtMemcpy, aclCreateTensor / aclCreateIntArray, GetWorkspaceSize,
// workspace, launch on a stream, aclrtSynchronizeStream, read back.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "check/compare.hpp"
#include "check/entry_points.hpp"

namespace upsample::cli {

// aclInit, aclrtSetDevice(0) and one stream; the destructor undoes them in reverse.
class AclSession {
 public:
  // Returns nullptr and sets *error when the runtime cannot be brought up.
  static std::unique_ptr<AclSession> open(std::string* error);
  ~AclSession();
  AclSession(const AclSession&) = delete;
  AclSession& operator=(const AclSession&) = delete;

  aclrtStream stream() const { return stream_; }

 private:
  AclSession() = default;
  bool initialized_ = false;
  bool device_set_ = false;
  aclrtStream stream_ = nullptr;
};

// One call. Shapes are logical (N, C, spatial...); the layout decides the dims' order in the
// acl tensors and in the bytes.
struct Call {
  const EntryPoint* entry = nullptr;
  const Layout* layout = nullptr;
  const DTypeInfo* dtype = nullptr;
  std::vector<int64_t> src_shape;
  std::vector<int64_t> dst_shape;
  std::vector<int64_t> output_size;  // spatial output sizes
  // Backward only, as passed to the entry point (in its row's InputSizeOrder).
  std::vector<int64_t> input_size;
  bool align_corners = false;
  std::array<double, 3> scales{0.0, 0.0, 0.0};  // as passed (see passed_scales)
};

// The number of elements of `shape`.
int64_t numel(const std::vector<int64_t>& shape);

// `shape` in the layout's dim order: channels-last layouts move C to the end.
std::vector<int64_t> in_format_order(const std::vector<int64_t>& logical, const Layout& layout);

// Runs `call` on `src` (logical order, values representable in the dtype) and returns the
// result in logical order. Every element of the output buffer starts as NaN, so one the entry
// point leaves unwritten shows up as a mismatch. On failure returns false and sets *error to
// the failing call, its status and aclGetRecentErrMsg().
bool run_call(const AclSession& session, const Call& call, const std::vector<double>& src,
              std::vector<double>* dst, std::string* error);

}  // namespace upsample::cli
