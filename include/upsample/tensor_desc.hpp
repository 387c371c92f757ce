// TensorDesc: dtype, logical sizes and strides of a tensor, without its data.
//
// The logical dimension order is always N, C, [D], [H], W (as in PyTorch); the physical layout
// (NCHW, NHWC, NDHWC or any view) is expressed by the strides alone.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "upsample/export.hpp"

namespace upsample {

// Storage types. The integer types hold image samples: forward resampling only, computed in
// float32 and rounded half to even and saturated once, at the store.
enum class DType : int { kFloat32 = 0, kFloat16, kBFloat16, kFloat64, kUInt8, kUInt16 };

UPSAMPLE_API size_t dtype_size(DType dtype);
UPSAMPLE_API const char* dtype_name(DType dtype);

inline constexpr int kMaxRank = 5;

struct UPSAMPLE_API TensorDesc {
  DType dtype = DType::kFloat32;
  int rank = 0;
  std::array<int64_t, kMaxRank> sizes{};
  std::array<int64_t, kMaxRank> strides{};  // in elements; may be any value (views)

  // The product of the sizes (0 when a size is 0), saturated at INT64_MAX: make_plan refuses
  // tensors whose byte count does not fit int64.
  int64_t numel() const;
  // Row-major strides for `sizes` in the logical order (NCL, NCHW, NCDHW).
  static TensorDesc contiguous(DType dtype, std::initializer_list<int64_t> sizes);
  // Channels-last strides (NLC, NHWC, NDHWC) for logical `sizes` given as N, C, spatial...
  // (Both saturate strides at INT64_MAX for absurd sizes, which make_plan then refuses.)
  static TensorDesc channels_last(DType dtype, std::initializer_list<int64_t> sizes);
  std::string to_string() const;  // "f32[2,3,4,5]/(60,20,5,1)"
};

}  // namespace upsample
