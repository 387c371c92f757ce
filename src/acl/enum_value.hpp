// The integer a caller passed for a C enum parameter.
//
// A C caller may pass any int for an enum parameter, but in C++ an enum without a fixed
// underlying type only holds the values of its enumerators' bit range (0..7 for
// aclrtMemcpyKind), and reading anything else through the enum type is undefined behaviour
// (UndefinedBehaviorSanitizer's -fsanitize=enum reports it). The runtime therefore copies the
// argument's bytes into an integer and checks that before using it as the enum.
#pragma once

#include <cstring>
#include <type_traits>

namespace upsample::acl {

// The C enums of acl_base.h are passed as ints.
template <typename Enum>
requires std::is_enum_v<Enum>
int enum_value(const Enum& value) {
  static_assert(sizeof(Enum) == sizeof(int));
  int bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

}  // namespace upsample::acl
