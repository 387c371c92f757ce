// `upsample resize` internals shared by tools/resize.cpp (options, one file) and
// tools/resize_batch.cpp (several files or folders into -o OUTDIR, in parallel).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "image_io.hpp"

namespace upsample::cli {

struct ResizeOptions {
  std::vector<std::string> inputs;  // IN (single file) or IN... (with out_dir)
  std::string out;                  // OUT (single file)
  std::string out_dir;              // -o OUTDIR: batch mode
  std::string size_text, scale_text, mode_text, dtype_text, format_text;
  std::optional<int> bits;
  std::optional<int> quality;
  int png_level = 6;
  int threads = 0;           // --threads (0: not given)
  int jobs = 0;              // --jobs (0: not given)
  size_t memory_budget = 0;  // --memory-budget in bytes (0: not given)
  bool antialias = false, align_corners = false, straight_alpha = false, verbose = false;
  bool autorotate = true, fast = false, webp_lossless = false;
};

// The settings every file shares, checked once (parse_settings in resize.cpp).
struct ResizeSettings {
  Mode mode = Mode::kLinear;
  std::optional<DType> dtype;
  std::optional<ImageFormat> format;  // --format
  WriteOptions write;
};

// The time one file took, per step, in milliseconds.
struct StepTimes {
  double decode_ms = 0, resample_ms = 0, encode_ms = 0;
};

// One file: opened (its header read), sized, checked; then run.
class FileTask {
 public:
  // `threads`: the library's threads (0: its default). `prefault`: fault in the buffers on
  // another thread while decoding (when a core is free for it).
  FileTask(const ResizeOptions& options, const ResizeSettings& settings, std::string in,
           std::string out, std::optional<ImageFormat> out_format, int threads, bool prefault);

  // Opens IN and works out everything that needs its header: the output size, the decoding
  // reduction of --fast, the checks. Returns 0, or 1 (the file cannot be read) or 2 (the
  // options do not fit this image) with `error`.
  int prepare(std::string* error);
  // Memory the file needs from decoding to writing, in bytes (after prepare()).
  size_t memory_estimate() const { return estimate_; }
  // Decodes, resamples and writes. Returns false with `error`.
  bool run(std::string* error);
  // The `-v` line (after run()).
  std::string describe() const;
  const std::string& in() const { return in_; }
  const std::string& out() const { return out_; }

 private:
  const ResizeOptions& o_;
  const ResizeSettings& s_;
  std::string in_, out_;
  std::optional<ImageFormat> out_format_;
  int threads_;
  bool prefault_;
  std::unique_ptr<ImageSource> source_;
  ResampleSpec spec_;
  int out_w_ = 0, out_h_ = 0, out_bits_ = 8, reduce_ = 1;
  int decoded_w_ = 0, decoded_h_ = 0;
  size_t estimate_ = 0;
  size_t workspace_bytes_ = 0;
  StepTimes times_;
  ImageHeader in_header_;  // for describe()
  int out_channels_ = 0;
};

// Batch mode (tools/resize_batch.cpp): every image of o.inputs (files, and folders walked
// recursively) into o.out_dir. Returns the exit status.
int resize_batch(const ResizeOptions& o, const ResizeSettings& settings);

}  // namespace upsample::cli
