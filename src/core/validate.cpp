#include "core/validate.hpp"

#include <cmath>
#include <sstream>

#include "core/checked.hpp"
#include "core/layout.hpp"
#include "core/plan.hpp"

namespace upsample::core {
namespace {

// The message is built only when a rule is broken: the checks of a valid call allocate nothing.
template <typename... Parts>
Status invalid(const Parts&... parts) {
  std::ostringstream why;
  (why << ... << parts);
  return Status::Invalid(why.str());
}

Status validate_op(const OpDesc& op) {
  if (op.spatial_rank < 1 || op.spatial_rank > 3) {
    return invalid("spatial_rank must be 1, 2 or 3, got ", op.spatial_rank);
  }
  if (static_cast<int>(op.mode) < 0 || static_cast<int>(op.mode) > static_cast<int>(Mode::kArea)) {
    return invalid("unknown mode ", static_cast<int>(op.mode));
  }
  if (op.direction != Direction::kForward && op.direction != Direction::kBackward) {
    return invalid("unknown direction ", static_cast<int>(op.direction));
  }
  const bool interpolating = op.mode == Mode::kLinear || op.mode == Mode::kCubic;
  if (!interpolating && op.align_corners) {
    return invalid("align_corners is only defined for linear and cubic modes, not for ",
                   mode_name(op.mode));
  }
  if (!interpolating && op.antialias) {
    return invalid("antialias is only defined for linear and cubic modes, not for ",
                   mode_name(op.mode));
  }
  for (int a = 0; a < op.spatial_rank; ++a) {
    const double s = op.scales[a];
    if (!std::isfinite(s)) {
      return invalid("scale of spatial axis ", a, " must be finite, got ", s);
    }
    if (op.mode == Mode::kArea && s != 0.0) {
      return invalid("area mode takes its ratio from the sizes: scales must be 0, got ", s,
                     " for spatial axis ", a);
    }
    if (s > 0.0 && s < kMinScale) {
      return invalid("scale of spatial axis ", a, " is ", s,
                     ": positive scales must be >= ", kMinScale,
                     " (2^-100), so that 1/scale stays representable");
    }
  }
  return Status::Ok();
}

Status validate_tensor(const char* name, const TensorDesc& t, int rank) {
  if (t.rank != rank) {
    return invalid(name, " must have rank ", rank, ", got ", t.rank);
  }
  if (static_cast<int>(t.dtype) < 0 ||
      static_cast<int>(t.dtype) > static_cast<int>(DType::kUInt16)) {
    return invalid(name, " has an unknown dtype ", static_cast<int>(t.dtype));
  }
  for (int d = 0; d < rank; ++d) {
    const bool may_be_zero = d == 0;  // an empty batch is allowed; other dims are not
    if (t.sizes[d] < 0 || (t.sizes[d] == 0 && !may_be_zero)) {
      return invalid(name, " dim ", d, " must be > 0", (may_be_zero ? " or = 0" : ""), ", got ",
                     name, " sizes ", sizes_string(t));
    }
  }
  CheckedInt64 bytes = static_cast<int64_t>(dtype_size(t.dtype));
  for (int d = 0; d < rank; ++d) bytes *= t.sizes[d];
  if (!bytes.ok()) {
    return invalid(name, " sizes ", sizes_string(t), " hold more bytes than int64 can count");
  }
  // Every element's byte offset from element 0 must be formable: (highest - lowest + 1) elements.
  int64_t lowest = 0, highest = 0;
  const bool addressable = element_span(t, &lowest, &highest) && lowest != INT64_MIN;
  const CheckedInt64 reach_bytes = (CheckedInt64(highest) + (addressable ? -lowest : 0) + 1) *
                                   static_cast<int64_t>(dtype_size(t.dtype));
  if (!addressable || !reach_bytes.ok()) {
    return invalid(name, " ", t.to_string(),
                   ": the strides put elements beyond the int64 range of addressable offsets");
  }
  return Status::Ok();
}

}  // namespace

Status validate(const OpDesc& op, const TensorDesc& src, const TensorDesc& dst) {
  if (Status st = validate_op(op); !st.ok()) return st;
  const int rank = op.spatial_rank + 2;
  if (src.rank != rank || dst.rank != rank) {
    return invalid("src and dst must have rank ", rank, " (N, C and ", op.spatial_rank,
                   " spatial dims), got src rank ", src.rank, " and dst rank ", dst.rank);
  }
  if (Status st = validate_tensor("src", src, rank); !st.ok()) return st;
  if (Status st = validate_tensor("dst", dst, rank); !st.ok()) return st;
  if (src.dtype != dst.dtype) {
    return invalid("src dtype ", dtype_name(src.dtype), " differs from dst dtype ",
                   dtype_name(dst.dtype));
  }
  if ((src.dtype == DType::kUInt8 || src.dtype == DType::kUInt16) &&
      op.direction == Direction::kBackward) {
    return invalid(dtype_name(src.dtype), " is supported for forward resampling only");
  }
  if (src.sizes[0] != dst.sizes[0] || src.sizes[1] != dst.sizes[1]) {
    return invalid("N and C of src ", sizes_string(src), " and dst ", sizes_string(dst),
                   " must match");
  }
  if (dst.numel() > 1 && self_overlapping(dst)) {
    return invalid("dst strides make elements overlap: ", dst.to_string());
  }
  if (op.premultiplied_alpha) {
    if (op.direction != Direction::kForward) {
      return invalid("premultiplied_alpha is defined for forward resampling only");
    }
    if (src.sizes[1] < 2 || src.sizes[1] > kMaxAlphaChannels) {
      return invalid("premultiplied_alpha needs 2 to ", kMaxAlphaChannels,
                     " channels (colour and alpha, alpha last), got C = ", src.sizes[1]);
    }
    if (src.strides[1] != 1 || dst.strides[1] != 1) {
      return invalid("premultiplied_alpha needs channels-last tensors (channel stride 1), got src ",
                     src.to_string(), " and dst ", dst.to_string());
    }
  }
  return Status::Ok();
}

}  // namespace upsample::core
