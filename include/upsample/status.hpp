// Status: the result of every fallible call in the native API.
#pragma once

#include <string>
#include <utility>

namespace upsample {

enum class StatusCode {
  kOk = 0,
  kNullPointer,      // a required pointer argument was null (aclnn: 161001)
  kInvalidArgument,  // a rule on shapes, dtypes, sizes or scales was broken (aclnn: 161002)
  kInternal,         // a bug or an unexpected condition inside the library (aclnn: 561000)
};

struct Status {
  StatusCode code = StatusCode::kOk;
  std::string message;

  bool ok() const { return code == StatusCode::kOk; }
  static Status Ok() { return {}; }
  static Status NullPointer(std::string msg) { return {StatusCode::kNullPointer, std::move(msg)}; }
  static Status Invalid(std::string msg) { return {StatusCode::kInvalidArgument, std::move(msg)}; }
  static Status Internal(std::string msg) { return {StatusCode::kInternal, std::move(msg)}; }
};

}  // namespace upsample
