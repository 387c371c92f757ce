// Output files written atomically: the encoder writes a hidden temporary file next to the
// target (".NAME.XXXXXX", same directory, so same file system), which is renamed to the target
// when complete and removed otherwise, so that a target is never left half-written. Temporary
// files still open when the process gets SIGINT, SIGTERM or SIGHUP are removed before it dies.
#pragma once

#include <cstdio>
#include <string>

namespace upsample::cli {

class TempFile {
 public:
  TempFile() = default;
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile();  // removes the temporary file unless commit() succeeded

  // Creates the temporary file for `target`. On failure returns false with a one-line `error`
  // ("cannot write 'target': why").
  bool create(const std::string& target, std::string* error);
  std::FILE* file() const { return file_; }
  // Closes the file (reporting a failed flush, e.g. a full disk), gives it the mode a new file
  // gets under the process umask, and renames it to the target.
  bool commit(std::string* error);

 private:
  void discard();

  std::string target_;
  std::string temp_;
  std::FILE* file_ = nullptr;
  int slot_ = -1;
};

// Installs the signal handlers that remove open temporary files (once; call it before starting
// threads).
void install_temp_file_cleanup();

}  // namespace upsample::cli
