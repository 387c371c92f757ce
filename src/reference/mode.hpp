// The reference's modes as the library names them, for the programs that check the library
// against the reference (`upsample check`, the C++ tests). Header-only, so that the reference
// itself (reference.cpp) depends on nothing of the library.
#pragma once

#include <utility>

#include "reference/reference.hpp"
#include "upsample/resample.hpp"

namespace upsample::reference {

inline constexpr std::pair<upsample::Mode, Mode> kModePairs[] = {
    {upsample::Mode::kNearest, Mode::kNearest},
    {upsample::Mode::kNearestExact, Mode::kNearestExact},
    {upsample::Mode::kLinear, Mode::kLinear},
    {upsample::Mode::kCubic, Mode::kCubic},
    {upsample::Mode::kArea, Mode::kArea},
};

constexpr Mode reference_mode(upsample::Mode mode) {
  for (const auto& [library, reference] : kModePairs) {
    if (library == mode) return reference;
  }
  return Mode::kLinear;  // unreachable: every library mode has a pair
}

constexpr upsample::Mode library_mode(Mode mode) {
  for (const auto& [library, reference] : kModePairs) {
    if (reference == mode) return library;
  }
  return upsample::Mode::kLinear;  // unreachable: every reference mode has a pair
}

}  // namespace upsample::reference
