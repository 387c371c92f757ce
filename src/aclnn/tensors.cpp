#include "aclnn/tensors.hpp"

#include <array>
#include <sstream>

#include "core/checked.hpp"

namespace upsample::aclnn {
namespace {

bool dtype_from_acl(aclDataType t, DType* out) {
  switch (static_cast<int>(t)) {
    case ACL_FLOAT:
      *out = DType::kFloat32;
      return true;
    case ACL_FLOAT16:
      *out = DType::kFloat16;
      return true;
    case ACL_BF16:
      *out = DType::kBFloat16;
      return true;
    case ACL_DOUBLE:
      *out = DType::kFloat64;
      return true;
    case ACL_UINT8:
      *out = DType::kUInt8;
      return true;
    default:
      return false;
  }
}

std::string view_text(const char* name, const aclTensor& t) {
  std::ostringstream os;
  os << name << " view (shape " << dims_string(t.view_dims) << ", strides "
     << dims_string(t.strides) << ", offset " << t.offset << ", storage "
     << dims_string(t.storage_dims) << ")";
  return os.str();
}

// The lowest and highest element index (from the storage start) the view reaches; false when
// forming them overflows.
bool view_reach(const aclTensor& t, int64_t* lowest, int64_t* highest) {
  CheckedInt64 lo = t.offset, hi = t.offset;
  for (size_t d = 0; d < t.view_dims.size(); ++d) {
    const CheckedInt64 span = CheckedInt64(t.view_dims[d] - 1) * t.strides[d];
    if (!span.ok()) return false;
    (span.value() < 0 ? lo : hi) += span;
  }
  if (!lo.ok() || !hi.ok()) return false;
  *lowest = lo.value();
  *highest = hi.value();
  return true;
}

}  // namespace

aclnnStatus fail(const char* api, aclnnStatus code, const std::string& message) {
  acl::set_last_error(std::string(api) + ": " + message);
  return code;
}

bool is_channels_last(aclFormat format) {
  return format == ACL_FORMAT_NHWC || format == ACL_FORMAT_NDHWC;
}

std::string format_name(aclFormat format) {
  switch (static_cast<int>(format)) {
    case ACL_FORMAT_NCHW:
      return "NCHW";
    case ACL_FORMAT_NHWC:
      return "NHWC";
    case ACL_FORMAT_ND:
      return "ND";
    case ACL_FORMAT_NCDHW:
      return "NCDHW";
    case ACL_FORMAT_NDHWC:
      return "NDHWC";
    case ACL_FORMAT_NCL:
      return "NCL";
    default:
      return "format(" + std::to_string(static_cast<int>(format)) + ")";
  }
}

std::string dims_string(const std::vector<int64_t>& dims) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < dims.size(); ++i) os << (i ? "," : "") << dims[i];
  os << "]";
  return os.str();
}

std::string dims_string(const TensorDesc& desc) {
  return dims_string(std::vector<int64_t>(desc.sizes.begin(), desc.sizes.begin() + desc.rank));
}

aclnnStatus to_logical(const char* api, const char* name, const aclTensor* tensor,
                       int expected_rank, LogicalTensor* out) {
  const aclTensor& t = *tensor;
  DType dtype;
  if (!dtype_from_acl(t.dtype, &dtype)) {
    return fail(
        api, ACLNN_ERR_PARAM_INVALID,
        std::string(name) + " has unsupported dtype " + std::to_string(static_cast<int>(t.dtype)));
  }
  const int rank = static_cast<int>(t.view_dims.size());
  if (rank != expected_rank) {
    return fail(api, ACLNN_ERR_PARAM_INVALID,
                std::string(name) + " must be " + std::to_string(expected_rank) + "-D, got shape " +
                    dims_string(t.view_dims));
  }
  if (t.strides.size() != t.view_dims.size()) {
    return fail(api, ACLNN_ERR_PARAM_INVALID,
                std::string(name) + " has " + std::to_string(t.strides.size()) + " strides for " +
                    std::to_string(rank) + " dims");
  }
  // Logical position of each format dim: NHWC / NDHWC carry C last - only where the format
  // names this rank (an "NHWC" 3-D tensor is read as N, C, L, as CANN's format-agnostic 1-D
  // entry points do).
  std::array<int, kMaxRank> to_logical_dim{0, 1, 2, 3, 4};
  if ((t.format == ACL_FORMAT_NHWC && rank == 4) || (t.format == ACL_FORMAT_NDHWC && rank == 5)) {
    to_logical_dim[rank - 1] = 1;
    for (int d = 1; d < rank - 1; ++d) to_logical_dim[d] = d + 1;
  }
  out->desc = TensorDesc{};
  out->desc.dtype = dtype;
  out->desc.rank = rank;
  bool empty = false;
  for (int d = 0; d < rank; ++d) {
    if (t.view_dims[d] < 0) {
      return fail(api, ACLNN_ERR_PARAM_INVALID,
                  std::string(name) + " has a negative dim: " + dims_string(t.view_dims));
    }
    out->desc.sizes[to_logical_dim[d]] = t.view_dims[d];
    out->desc.strides[to_logical_dim[d]] = t.strides[d];
    empty = empty || t.view_dims[d] == 0;
  }
  out->format = t.format;
  out->dims = t.view_dims;
  out->data = nullptr;
  if (empty) return ACLNN_SUCCESS;
  // Every element of the view must lie in its storage, and every address must be formable.
  CheckedInt64 storage = 1;
  for (int64_t s : t.storage_dims) storage *= s;
  int64_t lowest = 0, highest = 0;
  const int64_t elem = static_cast<int64_t>(dtype_size(dtype));
  const bool reach = view_reach(t, &lowest, &highest);
  const bool storage_bytes_ok = storage.ok() && (CheckedInt64(storage.value()) * elem).ok();
  if (t.storage_dims.empty() || !storage_bytes_ok || !reach || lowest < 0 ||
      highest >= storage.value()) {
    std::ostringstream why;
    why << view_text(name, t);
    if (t.storage_dims.empty()) {
      why << ": it has no storage dims";
    } else if (!storage.ok()) {
      why << ": its storage dims multiply past the int64 range";
    } else if (!storage_bytes_ok) {
      why << ": its storage of " << storage.value() << " elements of " << elem
          << " bytes exceeds the int64 range of byte counts";
    } else if (!reach) {
      why << ": its element offsets overflow int64";
    } else {
      why << " reaches elements [" << lowest << ", " << highest << "] outside its storage of "
          << storage.value() << " elements";
    }
    return fail(api, ACLNN_ERR_PARAM_INVALID, why.str());
  }
  if (t.data == nullptr) {
    return fail(api, ACLNN_ERR_PARAM_NULLPTR, std::string(name) + " has a null data address");
  }
  uintptr_t end = 0;
  if (!checked_add(reinterpret_cast<uintptr_t>(t.data),
                   static_cast<uintptr_t>(storage.value() * elem), &end)) {
    return fail(api, ACLNN_ERR_PARAM_INVALID,
                view_text(name, t) + ": its storage wraps around the address space");
  }
  out->data = static_cast<unsigned char*>(t.data) + t.offset * elem;
  return ACLNN_SUCCESS;
}

}  // namespace upsample::aclnn
