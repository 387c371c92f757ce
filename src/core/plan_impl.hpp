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
  enum class Kind { kPass, kGatherCopy, kStridedCopy } kind = Kind::kPass;
  int axis = -1;   // logical dim resampled by a pass
  int table = -1;  // index into tables_f32 / tables_f64
  int64_t max_taps = 0;
  cpu::PassShape shape;
  cpu::StridedCopy copy;
  DType in_type = DType::kFloat32;
  DType out_type = DType::kFloat32;
  BufferRef in;
  BufferRef out;
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
  size_t region_offset[2] = {0, 0};
  size_t workspace_bytes = 0;
};

}  // namespace upsample
