#include "upsample/tensor_desc.hpp"

#include <sstream>

#include "core/checked.hpp"

namespace upsample {

size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return 4;
    case DType::kFloat16:
      return 2;
    case DType::kBFloat16:
      return 2;
    case DType::kFloat64:
      return 8;
    case DType::kUInt8:
      return 1;
    case DType::kUInt16:
      return 2;
  }
  return 0;
}

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "float32";
    case DType::kFloat16:
      return "float16";
    case DType::kBFloat16:
      return "bfloat16";
    case DType::kFloat64:
      return "float64";
    case DType::kUInt8:
      return "uint8";
    case DType::kUInt16:
      return "uint16";
  }
  return "unknown";
}

int64_t TensorDesc::numel() const {
  for (int d = 0; d < rank; ++d) {
    if (sizes[d] == 0) return 0;
  }
  int64_t n = 1;
  for (int d = 0; d < rank; ++d) n = saturating_mul(n, sizes[d]);
  return n;
}

TensorDesc TensorDesc::contiguous(DType dtype, std::initializer_list<int64_t> sizes) {
  TensorDesc t;
  t.dtype = dtype;
  t.rank = static_cast<int>(sizes.size());
  int d = 0;
  for (int64_t s : sizes) t.sizes[d++] = s;
  int64_t stride = 1;
  for (int i = t.rank - 1; i >= 0; --i) {
    t.strides[i] = stride;
    stride = saturating_mul(stride, t.sizes[i]);
  }
  return t;
}

TensorDesc TensorDesc::channels_last(DType dtype, std::initializer_list<int64_t> sizes) {
  TensorDesc t = contiguous(dtype, sizes);
  // Physical order N, spatial..., C.
  int64_t stride = 1;
  t.strides[1] = stride;
  stride = saturating_mul(stride, t.sizes[1]);
  for (int i = t.rank - 1; i >= 2; --i) {
    t.strides[i] = stride;
    stride = saturating_mul(stride, t.sizes[i]);
  }
  t.strides[0] = stride;
  return t;
}

std::string TensorDesc::to_string() const {
  std::ostringstream os;
  os << dtype_name(dtype) << "[";
  for (int d = 0; d < rank; ++d) os << (d ? "," : "") << sizes[d];
  os << "]/(";
  for (int d = 0; d < rank; ++d) os << (d ? "," : "") << strides[d];
  os << ")";
  return os.str();
}

}  // namespace upsample
