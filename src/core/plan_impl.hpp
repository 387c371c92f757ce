// Plan::Impl: everything execute() needs, computed once by make_plan().
#pragma once

#include <vector>

#include "cpu/kernels.hpp"
#include "upsample/resample.hpp"

namespace upsample {

struct BufferRef {
  enum Kind { kUserSrc, kUserDst, kRegion } kind = kUserSrc;
  int region = -1;  // workspace region 0 or 1 (ping-pong)
};

struct PlanStep {
  enum class Kind { kPass, kGatherCopy, kStridedCopy, kConvert } kind = Kind::kPass;
  int axis = -1;   // logical dim resampled by a pass
  int table = -1;  // index into tables_f32 / tables_f64
  int64_t max_taps = 0;
  cpu::PassShape shape;
  cpu::StridedCopy copy;
  DType in_type = DType::kFloat32;
  DType out_type = DType::kFloat32;
  BufferRef in;
  BufferRef out;
  // Bytes of `in` / `out` per batch element (plane mode).
  int64_t in_batch_bytes = 0;
  int64_t out_batch_bytes = 0;
};

struct Plan::Impl {
  OpDesc op;
  TensorDesc src;
  TensorDesc dst;
  DType acc_type = DType::kFloat32;
  bool empty = false;
  std::vector<cpu::PassTable<float>> tables_f32;
  std::vector<cpu::PassTable<double>> tables_f64;
  std::vector<PlanStep> steps;
  size_t region_offset[2] = {0, 0};  // tensor mode: the two ping-pong regions
  size_t workspace_bytes = 0;        // enough for tensor mode and, if planned, plane mode
  // Plane mode: the leading dims that no pass resamples form `batch` independent slices; each
  // thread runs every step on blocks of `block` slices with its own cache-sized scratch slot
  // (slot t at t * slot_bytes), so intermediates never leave the cache.
  bool plane_mode = false;
  int64_t batch = 1;
  int64_t block = 1;
  int slots = 1;
  size_t slot_bytes = 0;
  size_t slot_region_offset[2] = {0, 0};  // plane mode: the regions inside a slot
};

}  // namespace upsample
