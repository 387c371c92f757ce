#include "image_temp_files.hpp"

#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "image_codecs.hpp"

namespace upsample::cli {
namespace {

// The temporary files open right now, for the signal handler: fixed slots (no allocation), each
// claimed by one TempFile. A slot's path is written before it is published as in use.
constexpr int kSlots = 512;
constexpr size_t kPathMax = 4096;
struct Slot {
  std::atomic<int> state{0};  // 0 free, 1 claimed (path being written), 2 in use
  char path[kPathMax];
};
Slot slots[kSlots];

int claim_slot(const std::string& path) {
  if (path.size() >= kPathMax) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (slots[i].state.compare_exchange_strong(expected, 1)) {
      std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
      slots[i].state.store(2, std::memory_order_release);
      return i;
    }
  }
  return -1;  // more files open than slots: not removed on a signal, still on failure
}

void release_slot(int i) {
  if (i >= 0) slots[i].state.store(0, std::memory_order_release);
}

// A signal that removes the files, and creations in progress (between deciding to create a file
// and publishing its slot): the handler waits for those, and a creation that begins once the
// signal has come creates nothing, so that no file is made after the handler has looked.
std::atomic<bool> terminating{false};
std::atomic<int> creating{0};

extern "C" void remove_temp_files(int sig) {
  terminating.store(true);
  // Bounded (1 s), in case a creation is stuck; the creating thread blocks these signals, so
  // it is never this one.
  for (int i = 0; i < 1000 && creating.load() != 0; ++i) {
    const timespec ms = {0, 1000000};
    nanosleep(&ms, nullptr);
  }
  for (Slot& s : slots) {
    if (s.state.load(std::memory_order_acquire) == 2) ::unlink(s.path);
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// The permission bits of a new file under the process umask (read once, before threads).
mode_t new_file_mode() {
  static const mode_t mode = [] {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return static_cast<mode_t>(0666 & ~mask);
  }();
  return mode;
}

}  // namespace

void install_temp_file_cleanup() {
  static const bool installed = [] {
    new_file_mode();
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction action;
      std::memset(&action, 0, sizeof action);
      action.sa_handler = remove_temp_files;
      sigemptyset(&action.sa_mask);
      sigaction(sig, &action, nullptr);
    }
    return true;
  }();
  (void)installed;
}

TempFile::~TempFile() { discard(); }

bool TempFile::create(const std::string& target, std::string* error) {
  discard();
  target_ = target;
  const size_t slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : target.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  std::string name = dir + "." + base.substr(0, 200) + ".XXXXXX";
  // The file and its slot without these signals on this thread (remove_temp_files).
  sigset_t blocked, previous;
  sigemptyset(&blocked);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&blocked, sig);
  pthread_sigmask(SIG_BLOCK, &blocked, &previous);
  ++creating;
  const int fd = terminating.load() ? (errno = EINTR, -1) : ::mkstemp(name.data());
  if (fd >= 0) {
    temp_ = name;
    slot_ = claim_slot(temp_);
  }
  --creating;
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (fd < 0) {
    *error = "cannot write " + quote_path(target) + ": " + std::strerror(errno);
    return false;
  }
  file_ = ::fdopen(fd, "wb");
  if (file_ == nullptr) {
    *error = "cannot write " + quote_path(target) + ": " + std::strerror(errno);
    ::close(fd);
    discard();
    return false;
  }
  return true;
}

bool TempFile::commit(std::string* error) {
  const auto fail = [&](int err) {
    *error = "cannot write " + quote_path(target_) + ": " + std::strerror(err);
    discard();
    return false;
  };
  if (file_ == nullptr) return fail(EBADF);
  const int fd = fileno(file_);
  if (std::fflush(file_) != 0) return fail(errno);
  if (::fchmod(fd, new_file_mode()) != 0) return fail(errno);
  std::FILE* f = file_;
  file_ = nullptr;
  if (std::fclose(f) != 0) return fail(errno);
  if (std::rename(temp_.c_str(), target_.c_str()) != 0) return fail(errno);
  release_slot(slot_);
  slot_ = -1;
  temp_.clear();
  return true;
}

void TempFile::discard() {
  if (file_ != nullptr) {
    std::fclose(file_);
    file_ = nullptr;
  }
  if (!temp_.empty()) {
    ::unlink(temp_.c_str());
    temp_.clear();
  }
  release_slot(slot_);
  slot_ = -1;
}

}  // namespace upsample::cli
