// Validation of an operation before anything is planned: the descriptor rules, sizes whose
// element and byte counts fit, views whose addresses can be formed, and scales whose
// coordinates stay representable. Every failure names the argument and its value.
#pragma once

#include "upsample/resample.hpp"

namespace upsample::core {

// The smallest user scale accepted (2^-100, about 7.9e-31). Its ratio 1 / scale (at most 2^100)
// stays far below float's range, so every coordinate the geometry forms is a finite number:
// huge, perhaps, and then clamped into the axis - never infinite or NaN. Smaller positive scales
// (denormals included) are rejected; scales <= 0 mean "not given".
inline constexpr double kMinScale = 7.888609052210118e-31;

Status validate(const OpDesc& op, const TensorDesc& src, const TensorDesc& dst);

}  // namespace upsample::core
