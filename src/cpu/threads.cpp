#include "cpu/threads.hpp"

#include <omp.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>

namespace upsample::cpu {
namespace {

std::atomic<bool> g_forked_child{false};

void mark_forked_child() { g_forked_child.store(true); }

// Registered when the library is loaded, so every later fork() marks its child.
const bool g_fork_handler_registered = [] {
  return pthread_atfork(nullptr, nullptr, &mark_forked_child) == 0;
}();

}  // namespace

bool in_forked_child() { return g_forked_child.load(); }

int default_threads() {
  if (const char* env = std::getenv("UPSAMPLE_NUM_THREADS")) {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && n > 0) return static_cast<int>(std::min(n, 1024L));
  }
  return std::max(1, omp_get_num_procs());
}

int resolve_threads(int requested) {
  (void)g_fork_handler_registered;
  if (in_forked_child()) return 1;
  return requested > 0 ? std::min(requested, 1024) : default_threads();
}

}  // namespace upsample::cpu
