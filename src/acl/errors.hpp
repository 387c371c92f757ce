// Error reporting inside the acl runtime: the per-thread error text that aclGetRecentErrMsg
// returns, the helpers that record a message and return a status, and the guard that keeps
// exceptions from crossing the C ABI.
#pragma once

#include <cstdint>
#include <exception>
#include <new>
#include <sstream>
#include <string>
#include <string_view>

#include "acl/acl.h"
#include "acl/runtime_internal.hpp"
#include "aclnn/aclnn_base.h"

namespace upsample::acl {

// A thread's pending error text. `lost` says that a message was recorded but could not be
// stored (no memory for it); aclGetRecentErrMsg then returns a fixed text saying so.
struct ErrorText {
  std::string text;
  bool lost = false;
};

// Takes the calling thread's pending error text, leaving none.
ErrorText take_last_error() noexcept;

// Makes `error` the calling thread's pending error text again (after take_last_error).
void restore_last_error(ErrorText error) noexcept;

// The parts written one after another. A stream swallows exceptions into its badbit unless
// asked not to: std::bad_alloc propagates instead of leaving a cut message.
template <typename... Parts>
std::string concat(const Parts&... parts) {
  std::ostringstream text;
  text.exceptions(std::ios::badbit);
  (text << ... << parts);
  return text.str();
}

// Records the message on the calling thread and returns `status`, so that failure paths read
// `return fail(ACL_ERROR_INVALID_PARAM, "api: ...");`.
template <typename... Parts>
int32_t fail(int32_t status, const Parts&... parts) {
  set_last_error(concat(parts...));
  return status;
}

// The same for functions that return a pointer: records the message, returns nullptr.
template <typename T, typename... Parts>
T* fail_null(const Parts&... parts) {
  set_last_error(concat(parts...));
  return nullptr;
}

// "0x7f..." for a pointer, "nullptr" for null.
std::string pointer_text(const void* pointer);

// Records "<api>: <text><detail>" (cut to 1 KiB) without allocating beyond the message itself,
// so it is usable in a catch block after std::bad_alloc: a message that cannot be stored is
// marked lost.
void record_api_error(const char* api, const char* text, const char* detail = "") noexcept;

// What a guarded function returns when an exception escapes its body.
template <typename Result>
struct ApiFailure {
  Result out_of_memory;  // std::bad_alloc
  Result internal;       // any other exception
};

inline constexpr ApiFailure<aclError> kAclFailure{ACL_ERROR_BAD_ALLOC, ACL_ERROR_INTERNAL_ERROR};
inline constexpr ApiFailure<aclnnStatus> kAclnnFailure{ACLNN_ERR_INNER_NULLPTR, ACLNN_ERR_INNER};
template <typename T>
inline constexpr ApiFailure<T*> kNullOnFailure{nullptr, nullptr};

// Runs `body` for the C function `api`: its result is returned as is; an exception escaping it
// becomes `failure.out_of_memory` or `failure.internal`, with a message naming `api`. Every
// extern "C" function of the runtime is one call of this.
template <typename Result, typename Body>
Result guard_c_api(const char* api, ApiFailure<Result> failure, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    record_api_error(api, "out of host memory");
    return failure.out_of_memory;
  } catch (const std::exception& error) {
    record_api_error(api, "internal error: ", error.what());
    return failure.internal;
  } catch (...) {
    record_api_error(api, "unknown exception");
    return failure.internal;
  }
}

}  // namespace upsample::acl
