// Allocation-failure injection for the executables that replace the global operator new / delete
// (injection.cpp): arm the calling thread so that its nth allocation fails, and count the
// allocations a call keeps.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>

namespace upsample::testing_alloc {

extern std::atomic<int64_t> g_live_allocations;
// Bytes of the live allocations (malloc_usable_size) and the most there were since
// reset_peak_bytes().
extern std::atomic<int64_t> g_live_bytes;
extern std::atomic<int64_t> g_peak_bytes;
inline void reset_peak_bytes() { g_peak_bytes.store(g_live_bytes.load()); }
extern thread_local int64_t t_allocations_before_failure;
extern thread_local bool t_keep_failing;
extern thread_local int64_t t_injected_failures;

// Arms the calling thread: its allocation number `nth` (0: the next one) fails, and with
// `keep_failing` every later one too, until disarm() or the end of the scope.
class InjectedFailure {
 public:
  InjectedFailure(int64_t nth, bool keep_failing) {
    t_injected_failures = 0;
    t_keep_failing = keep_failing;
    t_allocations_before_failure = nth;
  }
  ~InjectedFailure() { disarm(); }
  InjectedFailure(const InjectedFailure&) = delete;
  InjectedFailure& operator=(const InjectedFailure&) = delete;

  // Stops injecting; true if a failure was injected.
  bool disarm() {
    t_allocations_before_failure = -1;
    t_keep_failing = false;
    return t_injected_failures > 0;
  }
};

// Runs `call` with allocation n failing (every allocation from n on, with `keep_failing`), for
// n = 0, 1, ... until a run reaches no injected failure. `check(result, injected)` judges each
// run after the injection ended and undoes a success; `settled()` counts the live allocations
// once what the code under test legitimately keeps between calls is released. Returns the
// number of allocation points.
template <typename Call, typename Check, typename Settled>
int64_t drive_through_each_allocation(const char* what, bool keep_failing, Call call, Check check,
                                      Settled settled) {
  for (int64_t nth = 0; nth < 10000; ++nth) {
    const int64_t live_before = settled();
    InjectedFailure failure(nth, keep_failing);
    auto result = call();
    const bool injected = failure.disarm();
    check(result, injected);
    EXPECT_EQ(settled(), live_before) << what << ": allocations kept after failing allocation "
                                      << nth << (keep_failing ? " and later ones" : "");
    if (!injected) return nth;
  }
  ADD_FAILURE() << what << " still allocates after 10000 allocations";
  return -1;
}

}  // namespace upsample::testing_alloc
