// The per-thread error text of the acl runtime and aclGetRecentErrMsg.
#include "acl/errors.hpp"

#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

#include "acl/acl.h"

namespace upsample::acl {
namespace {

// The text aclGetRecentErrMsg will return next, and the text it returned last (which must stay
// valid until its next call on this thread).
thread_local ErrorText t_pending_error;
thread_local std::string t_returned_error;

constexpr const char* kLostErrorText =
    "an error occurred, but its message could not be stored (out of host memory)";

}  // namespace

void set_last_error(std::string_view message) noexcept {
  try {
    t_pending_error.text.assign(message);
    t_pending_error.lost = false;
  } catch (...) {  // std::bad_alloc: keep the fact of the error, not its text
    t_pending_error.text.clear();
    t_pending_error.lost = true;
  }
}

ErrorText take_last_error() noexcept { return std::exchange(t_pending_error, ErrorText{}); }

void restore_last_error(ErrorText error) noexcept { t_pending_error = std::move(error); }

std::string pointer_text(const void* pointer) {
  if (pointer == nullptr) return "nullptr";
  char text[2 + 2 * sizeof(void*) + 1];
  std::snprintf(text, sizeof(text), "%p", pointer);
  return text;
}

void record_api_error(const char* api, const char* text, const char* detail) noexcept {
  char message[1024];
  const int length = std::snprintf(message, sizeof(message), "%s: %s%s", api, text, detail);
  if (length < 0) {
    set_last_error(api);
    return;
  }
  const size_t stored = static_cast<size_t>(length) < sizeof(message) ? static_cast<size_t>(length)
                                                                      : sizeof(message) - 1;
  set_last_error(std::string_view(message, stored));
}

}  // namespace upsample::acl

extern "C" const char* aclGetRecentErrMsg(void) {
  using namespace upsample::acl;
  return guard_c_api("aclGetRecentErrMsg", kNullOnFailure<const char>, []() -> const char* {
    if (t_pending_error.lost) {
      t_pending_error = ErrorText{};
      return kLostErrorText;
    }
    if (t_pending_error.text.empty()) return nullptr;
    t_returned_error = std::exchange(t_pending_error.text, std::string());
    return t_returned_error.c_str();
  });
}
