// A workload made ready to time (internal to the runner, bench/runner.cpp): one call of it,
// and the buffers it reads and writes, on which the floor then runs.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <string>

#include "workloads.hpp"

namespace upsample::bench {

class Subject {
 public:
  virtual ~Subject() = default;
  // Runs one call; false (with *error set) when it failed.
  virtual bool call(std::string* error) = 0;

  void* src = nullptr;
  void* dst = nullptr;
  size_t src_bytes = 0, dst_bytes = 0;
  std::string describe;  // Plan::describe() of the operator
};

// upsample::execute() on a plan made once (CallKind::kNative).
std::unique_ptr<Subject> make_native_subject(const Workload& w, int threads, std::string* error);
// The aclnn C API (CallKind::kCannCall and kPhase2; bench/calls.cpp).
std::unique_ptr<Subject> make_acl_subject(const Workload& w, int threads, std::string* error);

// 64-byte aligned memory, allocated once.
struct AlignedBuffer {
  void* ptr = nullptr;
  explicit AlignedBuffer(size_t bytes)
      : ptr(::operator new(((bytes > 0 ? bytes : 1) + 63) / 64 * 64, std::align_val_t(64))) {}
  ~AlignedBuffer() { ::operator delete(ptr, std::align_val_t(64)); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
};

int64_t numel(const std::vector<int64_t>& sizes);

}  // namespace upsample::bench
