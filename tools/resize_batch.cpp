// `upsample resize IN... -o OUTDIR`: every image of the files and folders given, resized into
// OUTDIR with the same relative paths. Files run in parallel (one library thread each when
// there are at least as many files as cores), each admitted only while the estimated memory of
// the files in flight stays within the budget; a file that fails is reported at the end and
// does not stop the others. On a terminal, a progress bar with files/s is drawn on stderr.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "image_codecs.hpp"
#include "resize.hpp"

namespace upsample::cli {
namespace {

namespace fs = std::filesystem;

struct Entry {
  std::string in, out;
  std::string error;  // a failure found before the file runs (cannot list it, no directory)
};

bool hidden(const fs::path& p) {
  const std::string name = p.filename().string();
  return !name.empty() && name[0] == '.';
}

std::string output_path(const fs::path& out_dir, const fs::path& relative,
                        const ResizeSettings& s) {
  fs::path out = out_dir / relative;
  if (s.format) out.replace_extension(format_extension(*s.format));
  return out.lexically_normal().string();
}

// The files of the inputs, in order: a file as given, a folder's images (by extension; hidden
// files and folders and the output folder skipped) sorted by path.
std::vector<Entry> collect(const ResizeOptions& o, const ResizeSettings& s) {
  std::vector<Entry> entries;
  std::error_code ec;
  const fs::path out_dir = fs::weakly_canonical(o.out_dir, ec);
  for (const std::string& input : o.inputs) {
    const fs::file_status st = fs::status(input, ec);
    if (ec || !fs::exists(st)) {
      entries.push_back({input, "",
                         "cannot open " + quote_path(input) + ": " +
                             (ec ? ec.message() : "No such file or directory")});
      continue;
    }
    if (!fs::is_directory(st)) {
      entries.push_back({input, output_path(o.out_dir, fs::path(input).filename(), s), ""});
      continue;
    }
    std::vector<Entry> found;
    fs::recursive_directory_iterator it(input, ec), end;
    if (ec) {
      entries.push_back({input, "", "cannot list " + quote_path(input) + ": " + ec.message()});
      continue;
    }
    for (; it != end; it.increment(ec)) {
      if (ec) {
        entries.push_back({input, "", "cannot list " + quote_path(input) + ": " + ec.message()});
        break;
      }
      const fs::path& p = it->path();
      std::error_code e2;
      if (it->is_directory(e2)) {
        if (hidden(p) || fs::equivalent(p, out_dir, e2)) it.disable_recursion_pending();
        continue;
      }
      if (hidden(p) || !it->is_regular_file(e2) || !format_from_path(p.string())) continue;
      found.push_back({p.string(), output_path(o.out_dir, p.lexically_relative(input), s), ""});
    }
    std::sort(found.begin(), found.end(),
              [](const Entry& a, const Entry& b) { return a.in < b.in; });
    entries.insert(entries.end(), found.begin(), found.end());
  }
  return entries;
}

// Two inputs written to one output, or an output over its own input. Returns "" or the error.
std::string check_outputs(const std::vector<Entry>& entries) {
  std::map<std::string, std::string> seen;
  for (const Entry& e : entries) {
    if (!e.error.empty()) continue;
    std::error_code ec;
    const std::string key = fs::weakly_canonical(e.out, ec).string();
    if (auto [it, inserted] = seen.emplace(key, e.in); !inserted) {
      return quote_path(it->second) + " and " + quote_path(e.in) + " would both be written to " +
             quote_path(e.out);
    }
    if (fs::equivalent(e.in, e.out, ec)) {
      return quote_path(e.in) + " would be overwritten by its own output; choose another -o folder";
    }
  }
  return "";
}

// Bytes the files in flight may use together. A file larger than the budget runs alone.
class MemoryBudget {
 public:
  explicit MemoryBudget(size_t limit) : limit_(limit) {}
  void acquire(size_t bytes) {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return running_ == 0 || used_ + bytes <= limit_; });
    used_ += bytes;
    ++running_;
  }
  void release(size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      used_ -= bytes;
      --running_;
    }
    ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  size_t limit_, used_ = 0;
  int running_ = 0;
};

class BudgetGuard {
 public:
  BudgetGuard(MemoryBudget* budget, size_t bytes) : budget_(budget), bytes_(bytes) {
    budget_->acquire(bytes_);
  }
  ~BudgetGuard() { budget_->release(bytes_); }
  BudgetGuard(const BudgetGuard&) = delete;
  BudgetGuard& operator=(const BudgetGuard&) = delete;

 private:
  MemoryBudget* budget_;
  size_t bytes_;
};

// The progress bar: drawn on stderr when stderr is a terminal, at most 10 times a second.
class Progress {
 public:
  explicit Progress(size_t total)
      : enabled_(::isatty(STDERR_FILENO) == 1),
        total_(total),
        start_(std::chrono::steady_clock::now()) {}

  void file_done(bool ok) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
    if (!ok) ++failed_;
    draw(done_ == total_);
  }

  // A line on stdout (for -v), the bar redrawn below it.
  void print(const std::string& line) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (enabled_ && drawn_) std::fputs("\r\x1b[K", stderr);
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    if (enabled_ && drawn_) draw(true);
  }

  // Clears the bar; on a terminal, prints the totals instead.
  void finish() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!enabled_) return;
    const double s = seconds();
    std::fprintf(stderr, "\r\x1b[K%zu files in %.2f s (%.1f files/s)%s\n", done_, s,
                 s > 0 ? done_ / s : 0.0,
                 failed_ ? (", " + std::to_string(failed_) + " failed").c_str() : "");
    std::fflush(stderr);
  }

 private:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

  void draw(bool force) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (!force && drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    drawn_ = true;
    constexpr int kWidth = 30;
    const int filled = total_ ? static_cast<int>(kWidth * done_ / total_) : kWidth;
    const double s = seconds();
    const double rate = s > 0 ? done_ / s : 0.0;
    std::string bar(static_cast<size_t>(filled), '#');
    bar.append(static_cast<size_t>(kWidth - filled), '.');
    char eta[32] = "";
    if (rate > 0 && done_ < total_) {
      const long left = std::lround((total_ - done_) / rate);
      std::snprintf(eta, sizeof eta, "  ETA %ld:%02ld", left / 60, left % 60);
    }
    std::fprintf(stderr, "\r\x1b[K[%s] %zu/%zu files  %.1f files/s%s%s", bar.c_str(), done_, total_,
                 rate, failed_ ? ("  " + std::to_string(failed_) + " failed").c_str() : "", eta);
    std::fflush(stderr);
  }

  const bool enabled_;
  const size_t total_;
  const std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  size_t done_ = 0, failed_ = 0;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_;
};

size_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page)
                               : size_t{4} << 30;
}

// Makes the output folders once, rather than by racing workers; a folder that cannot be made
// fails its files. Returns 0, or 1 (reported) when OUTDIR is not a folder.
int make_output_folders(const ResizeOptions& o, std::vector<Entry>* entries) {
  std::error_code ec;
  if (fs::exists(o.out_dir, ec) && !fs::is_directory(o.out_dir, ec)) {
    std::fprintf(stderr, "upsample resize: cannot use %s as -o: it is not a directory\n",
                 quote_path(o.out_dir).c_str());
    return 1;
  }
  std::map<std::string, std::string> made;  // folder -> error ("" when made)
  for (Entry& e : *entries) {
    if (!e.error.empty()) continue;
    const std::string dir = fs::path(e.out).parent_path().string();
    if (dir.empty()) continue;
    auto it = made.find(dir);
    if (it == made.end()) {
      fs::create_directories(dir, ec);
      it =
          made.emplace(dir, ec ? "cannot create the folder " + quote_path(dir) + ": " + ec.message()
                               : "")
              .first;
    }
    if (!it->second.empty()) e.error = it->second;
  }
  return 0;
}

// How the files run: `jobs` at once, `threads` library threads each, within `budget`.
struct BatchRun {
  const ResizeOptions& o;
  const ResizeSettings& s;
  int jobs = 1;
  int threads = 1;
  bool prefault = false;
  MemoryBudget& budget;
  Progress& progress;
};

// One file of the batch. Returns false with `error` when it failed.
bool resize_entry(const BatchRun& run, const Entry& e, std::string* error) {
  *error = e.error;
  if (!error->empty()) return false;
  try {
    const std::optional<ImageFormat> format = run.s.format ? run.s.format : format_from_path(e.out);
    FileTask task(run.o, run.s, e.in, e.out, format, run.threads, run.prefault);
    bool ok = task.prepare(error) == 0;
    if (ok) {
      BudgetGuard guard(&run.budget, task.memory_estimate());
      ok = task.run(error);
    }
    if (ok && run.o.verbose) run.progress.print(task.describe());
    return ok;
  } catch (const std::bad_alloc&) {
    *error = "out of memory resizing " + quote_path(e.in);
    return false;
  }
}

// The failures, listed at the end. Returns the exit status.
int report_failures(const std::vector<std::string>& errors) {
  size_t failed = 0;
  for (const std::string& e : errors) failed += e.empty() ? 0 : 1;
  if (failed == 0) return 0;
  std::fprintf(stderr, "upsample resize: %zu of %zu files failed:\n", failed, errors.size());
  for (const std::string& e : errors) {
    if (!e.empty()) std::fprintf(stderr, "  %s\n", e.c_str());
  }
  return 1;
}

}  // namespace

int resize_batch(const ResizeOptions& o, const ResizeSettings& s) {
  std::vector<Entry> entries = collect(o, s);
  if (entries.empty()) {
    std::fprintf(stderr,
                 "upsample resize: found no images (.png, .jpg, .jpeg, .webp, .tif, .tiff) in "
                 "the inputs given\n");
    return 1;
  }
  if (const std::string why = check_outputs(entries); !why.empty()) {
    std::fprintf(stderr, "upsample resize: %s (see 'upsample resize --help')\n", why.c_str());
    return 2;
  }
  if (make_output_folders(o, &entries) != 0) return 1;

  const size_t n = entries.size();
  const int cores = std::max(1, default_num_threads());
  const int jobs = static_cast<int>(std::min<size_t>(o.jobs > 0 ? o.jobs : cores, n));
  MemoryBudget budget(o.memory_budget > 0 ? o.memory_budget : physical_memory() / 4);
  Progress progress(n);
  // Every core decodes or resamples a file: no prefaulting thread then; the buffers of the
  // previous file are reused instead (allocate_buffer's cache).
  const BatchRun run{
      o,      s,       jobs, o.threads > 0 ? o.threads : std::max(1, cores / jobs), jobs < cores,
      budget, progress};
  std::vector<std::string> errors(n);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < n; i = next++) {
      std::string error;
      const bool ok = resize_entry(run, entries[i], &error);
      if (!ok) errors[i] = error;
      progress.file_done(ok);
    }
  };
  std::vector<std::thread> workers;
  for (int j = 1; j < jobs; ++j) workers.emplace_back(work);
  work();
  for (std::thread& t : workers) t.join();
  progress.finish();
  return report_failures(errors);
}

}  // namespace upsample::cli
