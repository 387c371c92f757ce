// `upsample resize`: resample image files with the library. This file: the options, one file's
// pipeline (FileTask: open, size, decode, resample, encode), and the single-file command
// `upsample resize IN OUT`. Several files and folders (-o OUTDIR): tools/resize_batch.cpp.
#include "resize.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "image_temp_files.hpp"

namespace upsample::cli {
namespace {

constexpr int kMaxSide = 65535;  // JPEG's limit; also keeps every size product in range
// --fast decodes a JPEG at 1/reduce only while the decoded image keeps at least this factor
// over the target in both axes, so that the antialiased resample, not the DCT scaling, does
// the last (and most visible) part of the reduction.
constexpr int kFastMargin = 2;

void print_help() {
  std::printf(
      "Usage: upsample resize IN OUT (--size WxH | --scale S[,S]) --mode MODE [options]\n"
      "       upsample resize IN... -o OUTDIR (--size WxH | --scale S[,S]) --mode MODE [options]\n"
      "\n"
      "Reads the image IN, resamples it with the library and writes OUT. Formats: PNG, JPEG,\n"
      "WebP and TIFF, read by their content and written by OUT's extension (.png, .jpg/.jpeg,\n"
      ".webp, .tif/.tiff): 8-bit gray, gray + alpha, RGB and RGBA; 16-bit PNG and TIFF stay\n"
      "16-bit. The EXIF/TIFF orientation is applied and the ICC profile is carried over.\n"
      "\n"
      "With -o OUTDIR, every IN (a file, or a folder searched recursively for .png, .jpg,\n"
      ".jpeg, .webp, .tif and .tiff files) is written under OUTDIR with its path relative to\n"
      "the folder given, in parallel, within a memory budget. A file that fails is reported at\n"
      "the end and the others are still written.\n"
      "\n"
      "The samples (0..255, or 0..65535) are a [1, C, H, W] channels-last tensor of their own\n"
      "type (uint8 or uint16) that the library resamples in float32 and rounds half to even\n"
      "and saturates once; images with alpha are resampled premultiplied, through float32.\n"
      "\n"
      "Size (one of):\n"
      "  --size WxH        output width and height in pixels; 'Wx' or 'xH' keeps the aspect\n"
      "                    ratio (the other side rounded, at least 1)\n"
      "  --scale S[,S]     scale factor, or horizontal,vertical factors: the output side is\n"
      "                    floor(input side * S), and S is passed to the library as\n"
      "                    F.interpolate's scale_factor\n"
      "\n"
      "Resampling:\n"
      "  --mode MODE       nearest, nearest-exact, bilinear, bicubic or area (required)\n"
      "  --antialias       low-pass filter when downsampling (bilinear, bicubic)\n"
      "  --align-corners   align the corner pixel centres (bilinear, bicubic)\n"
      "  --dtype DTYPE     tensor dtype: uint8 / uint16 (the samples' own type, the default),\n"
      "                    float32, float16, bfloat16 or float64 (converted there and back)\n"
      "  --straight-alpha  resample alpha like any other channel; by default colour is\n"
      "                    resampled premultiplied by alpha, so that transparent pixels do not\n"
      "                    bleed their colour into visible ones\n"
      "  --fast            decode a JPEG at 1/2, 1/4 or 1/8 size (libjpeg-turbo's DCT\n"
      "                    scaling) when the result stays at least %dx the output size; the\n"
      "                    resample does the rest. Faster, not bit-exact\n"
      "  --no-autorotate   keep the stored orientation (ignore the EXIF/TIFF orientation)\n"
      "  --threads N       library threads per file (default: UPSAMPLE_NUM_THREADS or every\n"
      "                    core; with -o, the cores are shared between the files in flight)\n"
      "\n"
      "Output:\n"
      "  --bits 8|16       sample depth of OUT (default: that of IN); 16 needs PNG or TIFF,\n"
      "                    8 from a 16-bit IN rounds v/257\n"
      "  --quality Q       JPEG and lossy WebP quality, 1-100 (default: JPEG %d, WebP %d)\n"
      "  --png-level N     PNG compression, 0-9 (default 6: no larger than Pillow's files;\n"
      "                    0-5 faster and larger, 7-9 slower and smaller); TIFF's zlib level\n"
      "  --webp-lossless   lossless WebP\n"
      "\n"
      "Several files (-o):\n"
      "  -o, --out-dir DIR    write the outputs under DIR (created if needed)\n"
      "  --format FMT         png, jpeg, webp or tiff: the outputs' format (default: each\n"
      "                       input's); the extension changes to match\n"
      "  --jobs N             files in flight at once (default: one per core)\n"
      "  --memory-budget SIZE bytes the files in flight may use together, e.g. 512M, 2G\n"
      "                       (default: a quarter of the physical memory)\n"
      "\n"
      "  -v, --verbose     print what was done, and the decode / resample / encode times\n"
      "  -h, --help        print this help\n"
      "\n"
      "Examples:\n"
      "  upsample resize photo.jpg thumb.jpg --size 256x --mode bicubic --antialias\n"
      "  upsample resize icon.png icon@4x.png --scale 4 --mode nearest\n"
      "  upsample resize photos/ -o thumbs/ --size 400x --mode bicubic --antialias --fast\n"
      "\n"
      "Exit status: 0 success, 1 an image cannot be read, decoded, resampled or written (with\n"
      "-o: any of them), 2 usage error (unknown option, bad size, unknown mode, a combination\n"
      "that is not defined).\n",
      kFastMargin, kDefaultJpegQuality, kDefaultWebpQuality);
}

int usage_error(const std::string& what) { return cli::usage_error("upsample resize", what); }

int failure(const std::string& what) {
  std::fprintf(stderr, "upsample resize: %s\n", what.c_str());
  return 1;
}

bool parse_positive_double(const std::string& text, double* value) {
  if (text.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v) || !(v > 0.0)) return false;
  *value = v;
  return true;
}

// "512M", "2G", "1048576": a byte count with an optional binary suffix K, M, G or T.
bool parse_bytes(const std::string& text, size_t* value) {
  if (text.empty()) return false;
  size_t digits = text.find_first_not_of("0123456789.");
  if (digits == 0) return false;
  const std::string number = text.substr(0, digits);
  std::string suffix = digits == std::string::npos ? "" : text.substr(digits);
  if (suffix.size() == 2 && (suffix[1] == 'B' || suffix[1] == 'b')) suffix.pop_back();
  double scale = 1;
  if (suffix == "K" || suffix == "k")
    scale = 1024.0;
  else if (suffix == "M" || suffix == "m")
    scale = 1024.0 * 1024;
  else if (suffix == "G" || suffix == "g")
    scale = 1024.0 * 1024 * 1024;
  else if (suffix == "T" || suffix == "t")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else if (!suffix.empty())
    return false;
  double v = 0;
  if (!parse_positive_double(number, &v)) return false;
  v *= scale;
  if (v < 1 || v > 1e18) return false;
  *value = static_cast<size_t>(v);
  return true;
}

// The options that take a string value, and their field.
struct TextOption {
  const char* name;
  std::string ResizeOptions::*field;
};
constexpr TextOption kTextOptions[] = {
    {"--size", &ResizeOptions::size_text},     {"--scale", &ResizeOptions::scale_text},
    {"--mode", &ResizeOptions::mode_text},     {"--dtype", &ResizeOptions::dtype_text},
    {"--format", &ResizeOptions::format_text}, {"-o", &ResizeOptions::out_dir},
    {"--out-dir", &ResizeOptions::out_dir},
};

// The flags: their field, and the value they set.
struct FlagOption {
  const char* name;
  bool ResizeOptions::*field;
  bool set;
};
constexpr FlagOption kFlagOptions[] = {
    {"--antialias", &ResizeOptions::antialias, true},
    {"--align-corners", &ResizeOptions::align_corners, true},
    {"--straight-alpha", &ResizeOptions::straight_alpha, true},
    {"--fast", &ResizeOptions::fast, true},
    {"--no-autorotate", &ResizeOptions::autorotate, false},
    {"--webp-lossless", &ResizeOptions::webp_lossless, true},
    {"-v", &ResizeOptions::verbose, true},
    {"--verbose", &ResizeOptions::verbose, true},
};

template <typename Row, size_t kN>
const Row* find_option(const Row (&rows)[kN], const std::string& name) {
  for (const Row& r : rows) {
    if (name == r.name) return &r;
  }
  return nullptr;
}

// The options with a checked value (numbers, a bit depth, a byte count). Sets *known to false for
// an unknown option. Returns "" or the usage error.
std::string parse_checked_option(ArgReader& args, ResizeOptions* o, bool* known) {
  const std::string& a = args.name();
  std::string err, text;
  int number = 0;
  if (a == "--bits") {
    err = args.string_value(&text);
    if (err.empty() && text != "8" && text != "16") {
      err = "--bits must be 8 or 16, got '" + text + "'";
    }
    if (err.empty()) o->bits = std::atoi(text.c_str());
  } else if (a == "--quality") {
    err = args.int_value(1, 100, &number);
    if (err.empty()) o->quality = number;
  } else if (a == "--png-level") {
    err = args.int_value(0, 9, &o->png_level);
  } else if (a == "--threads") {
    err = args.int_value(1, 4096, &o->threads);
  } else if (a == "--jobs") {
    err = args.int_value(1, 256, &o->jobs);
  } else if (a == "--memory-budget") {
    err = args.string_value(&text);
    if (err.empty() && !parse_bytes(text, &o->memory_budget)) {
      err = "--memory-budget must be a size in bytes such as 1500000000, 512M or 2G, got '" + text +
            "'";
    }
  } else {
    *known = false;
  }
  return err;
}

// IN OUT, or IN... with -o OUTDIR. Returns "" or the usage error.
std::string assign_positional(const std::vector<std::string>& positional, ResizeOptions* o) {
  if (!o->out_dir.empty()) {
    if (positional.empty()) return "missing the input files or folders for -o " + o->out_dir;
    o->inputs = positional;
    return "";
  }
  if (positional.size() < 2) {
    return positional.empty() ? "missing IN and OUT image files" : "missing the OUT image file";
  }
  if (positional.size() > 2) {
    return "too many arguments: '" + positional[2] + "' (to resize several files, give -o OUTDIR)";
  }
  o->inputs = {positional[0]};
  o->out = positional[1];
  return "";
}

// Returns "" or the usage error.
std::string parse_args(const std::vector<std::string>& arg_list, ResizeOptions* o, bool* help) {
  std::vector<std::string> positional;
  bool options_done = false;
  ArgReader args(arg_list);
  while (args.next()) {
    const std::string& raw = args.raw();
    if (options_done || raw.size() < 2 || raw[0] != '-') {
      positional.push_back(raw);
      continue;
    }
    if (raw == "--") {
      options_done = true;
      continue;
    }
    const std::string& a = args.name();
    if (a == "-h" || a == "--help") {
      *help = true;
      return "";
    }
    std::string err;
    bool known = true;
    if (const TextOption* t = find_option(kTextOptions, a)) {
      err = args.string_value(&(o->*(t->field)));
      if (err.empty() && t->field == &ResizeOptions::out_dir && o->out_dir.empty()) {
        err = a + " needs a directory";
      }
    } else if (const FlagOption* f = find_option(kFlagOptions, a)) {
      err = args.flag(&(o->*(f->field)), f->set);
    } else {
      err = parse_checked_option(args, o, &known);
      if (!known) err = "unknown option '" + a + "'";
    }
    if (!err.empty()) return err;
  }
  return assign_positional(positional, o);
}

// "S" or "SX,SY" (positive, finite). Returns "" or the error.
std::string parse_scale(const std::string& t, double* sx, double* sy) {
  const size_t comma = t.find(',');
  const bool ok = comma == std::string::npos ? parse_positive_double(t, sx)
                                             : parse_positive_double(t.substr(0, comma), sx) &&
                                                   parse_positive_double(t.substr(comma + 1), sy);
  if (!ok) {
    return "--scale expects a positive number or two separated by a comma (horizontal,"
           "vertical), got '" +
           t + "'";
  }
  if (comma == std::string::npos) *sy = *sx;
  return "";
}

// Output size from --size / --scale for an input of in_w x in_h. Returns "" or the error.
std::string output_size(const ResizeOptions& o, int in_w, int in_h, int* out_w, int* out_h,
                        double* scale_x, double* scale_y) {
  *scale_x = *scale_y = 0.0;
  if (!o.size_text.empty()) {
    const std::string& t = o.size_text;
    const size_t x = t.find_first_of("xX");
    const std::string expected = "--size expects WxH (or Wx / xH) with whole numbers from 1 to " +
                                 std::to_string(kMaxSide) + ", got '" + t + "'";
    if (x == std::string::npos) return expected;
    const std::string ws = t.substr(0, x), hs = t.substr(x + 1);
    int w = 0, h = 0;
    int any = 0;
    if ((ws.empty() && hs.empty()) || (!ws.empty() && !parse_int(ws, 0, 999999999, &any)) ||
        (!hs.empty() && !parse_int(hs, 0, 999999999, &any))) {
      return expected;
    }
    if ((!ws.empty() && !parse_int(ws, 1, kMaxSide, &w)) ||
        (!hs.empty() && !parse_int(hs, 1, kMaxSide, &h))) {
      return "--size " + t + ": width and height must be from 1 to " + std::to_string(kMaxSide) +
             " pixels";
    }
    if (ws.empty()) w = static_cast<int>(std::max<long>(1, std::lround(double(in_w) * h / in_h)));
    if (hs.empty()) h = static_cast<int>(std::max<long>(1, std::lround(double(in_h) * w / in_w)));
    if (w > kMaxSide || h > kMaxSide) {
      return "--size " + t + " gives " + std::to_string(w) + "x" + std::to_string(h) + " for a " +
             std::to_string(in_w) + "x" + std::to_string(in_h) +
             " image: each side must be at most " + std::to_string(kMaxSide);
    }
    *out_w = w;
    *out_h = h;
    return "";
  }
  const std::string& t = o.scale_text;
  double sx = 0, sy = 0;
  if (const std::string err = parse_scale(t, &sx, &sy); !err.empty()) return err;
  // As F.interpolate: output size = floor(input size * scale factor), in double.
  const double w = std::floor(static_cast<double>(in_w) * sx);
  const double h = std::floor(static_cast<double>(in_h) * sy);
  const std::string result = "--scale " + t + " turns the " + std::to_string(in_w) + "x" +
                             std::to_string(in_h) + " image into " +
                             (w > 1e9 || h > 1e9 ? std::string("more than 1e9 pixels a side")
                                                 : std::to_string(static_cast<long long>(w)) + "x" +
                                                       std::to_string(static_cast<long long>(h)));
  if (w < 1 || h < 1) return result + ": each side must be at least 1 pixel";
  if (w > kMaxSide || h > kMaxSide) {
    return result + ": each side must be at most " + std::to_string(kMaxSide);
  }
  *out_w = static_cast<int>(w);
  *out_h = static_cast<int>(h);
  *scale_x = sx;
  *scale_y = sy;
  return "";
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Everything that can be checked without an image. Returns "" or the usage error.
std::string parse_settings(const ResizeOptions& o, ResizeSettings* s) {
  if (o.size_text.empty() && o.scale_text.empty()) return "missing --size or --scale";
  if (!o.size_text.empty() && !o.scale_text.empty()) return "give --size or --scale, not both";
  if (o.mode_text.empty()) {
    return "missing --mode (nearest, nearest-exact, bilinear, bicubic or area)";
  }
  const std::optional<Mode> mode = parse_mode(o.mode_text, false);
  if (!mode) {
    return "unknown --mode '" + o.mode_text +
           "' (expected nearest, nearest-exact, bilinear, bicubic or area)";
  }
  s->mode = *mode;
  if (!o.dtype_text.empty()) {
    s->dtype = parse_dtype(o.dtype_text);
    if (!s->dtype) {
      return "unknown --dtype '" + o.dtype_text +
             "' (expected uint8, uint16, float32, float16, bfloat16 or float64)";
    }
  }
  const bool linear_or_cubic = *mode == Mode::kLinear || *mode == Mode::kCubic;
  if (!linear_or_cubic && o.antialias) {
    return "--antialias is only defined for bilinear and bicubic, not for --mode " + o.mode_text;
  }
  if (!linear_or_cubic && o.align_corners) {
    return "--align-corners is only defined for bilinear and bicubic, not for --mode " +
           o.mode_text;
  }
  if (!o.format_text.empty()) {
    if (o.out_dir.empty()) {
      return "--format is for -o OUTDIR; the format of OUT comes from its extension";
    }
    s->format = format_from_name(o.format_text);
    if (!s->format) {
      return "unknown --format '" + o.format_text + "' (expected png, jpeg, webp or tiff)";
    }
  }
  if (o.out_dir.empty() && (o.jobs != 0 || o.memory_budget != 0)) {
    return std::string(o.jobs != 0 ? "--jobs" : "--memory-budget") +
           " is for several files (-o OUTDIR)";
  }
  s->write.quality = o.quality;
  s->write.png_level = o.png_level;
  s->write.webp_lossless = o.webp_lossless;
  int w = 0, h = 0;  // the size's syntax and range (an aspect-kept side needs the image)
  double sx = 0, sy = 0;
  return o.size_text.empty() ? parse_scale(o.scale_text, &sx, &sy)
                             : output_size(o, 1, 1, &w, &h, &sx, &sy);
}

int resize_one(const ResizeOptions& o, const ResizeSettings& s) {
  const std::string& in = o.inputs[0];
  const std::optional<ImageFormat> out_format = format_from_path(o.out);
  if (!out_format) {
    return usage_error("cannot tell the format of '" + o.out +
                       "' from its extension (expected .png, .jpg, .jpeg, .webp, .tif or .tiff)");
  }
  if (o.bits == 16 && write_limitation(*out_format, 1, 16) != "") {
    return usage_error(std::string("--bits 16 needs a .png or .tif OUT: ") +
                       format_name(*out_format) + " stores 8-bit samples only");
  }
  // One file: a core is free while the decoder runs, for faulting in the buffers.
  const int cores = default_num_threads();
  FileTask task(o, s, in, o.out, out_format, o.threads, cores > 1);
  std::string error;
  if (const int rc = task.prepare(&error); rc != 0) {
    if (rc == 2) return usage_error(error);
    if (error.find("it is a directory") != std::string::npos) {
      error += " (to resize every image in it, give -o OUTDIR)";
    }
    return failure(error);
  }
  if (!task.run(&error)) return failure(error);
  if (o.verbose) std::printf("%s\n", task.describe().c_str());
  return 0;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

FileTask::FileTask(const ResizeOptions& options, const ResizeSettings& settings, std::string in,
                   std::string out, std::optional<ImageFormat> out_format, int threads,
                   bool prefault)
    : o_(options),
      s_(settings),
      in_(std::move(in)),
      out_(std::move(out)),
      out_format_(out_format),
      threads_(threads),
      prefault_(prefault) {}

int FileTask::prepare(std::string* error) {
  source_ = open_image(in_, error);
  if (!source_) return 1;
  const ImageHeader& h = source_->header();
  const int orientation = o_.autorotate ? h.orientation : 1;
  int shown_w = 0, shown_h = 0;
  oriented_size(h.width, h.height, orientation, &shown_w, &shown_h);
  spec_.mode = s_.mode;
  spec_.antialias = o_.antialias;
  spec_.align_corners = o_.align_corners;
  spec_.dtype = s_.dtype;
  spec_.premultiply_alpha = !o_.straight_alpha;
  spec_.threads = threads_;
  if (const std::string why =
          output_size(o_, shown_w, shown_h, &out_w_, &out_h_, &spec_.scale_x, &spec_.scale_y);
      !why.empty()) {
    *error = quote_path(in_) + ": " + why;
    return 2;
  }
  const std::string what =
      quote_path(in_) + " (" + channels_name(h.channels) + ", " + std::to_string(h.bits) + "-bit)";
  if (const std::string why = resample_limitation(h.bits, spec_); !why.empty()) {
    *error = what + ": " + why;
    return 2;
  }
  if (!out_format_) out_format_ = h.format;
  out_bits_ = o_.bits.value_or(h.bits);
  if (const std::string why = write_limitation(*out_format_, h.channels, out_bits_); !why.empty()) {
    std::string hint;
    if (out_bits_ == 16) hint = "; pass --bits 8 to round to 8 bits, or write PNG or TIFF";
    if (h.channels == 2 || h.channels == 4) hint = "; write PNG, WebP or TIFF to keep it";
    *error = "cannot write " + what + " as " + quote_path(out_) + ": " + why + hint;
    return 2;
  }
  const double out_bytes = static_cast<double>(out_w_) * out_h_ * h.channels * (out_bits_ / 8);
  if (out_bytes > 2.0e9) {
    *error = "the output of " + quote_path(in_) + ", " + std::to_string(out_w_) + "x" +
             std::to_string(out_h_) + " " + channels_name(h.channels) +
             ", is too large for the image encoders (at most 2 GB of samples)";
    return 2;
  }
  // --fast: the largest DCT reduction that keeps kFastMargin x the output size.
  reduce_ = 1;
  if (o_.fast && source_->can_reduce()) {
    for (int r : {8, 4, 2}) {
      int w = 0, hh = 0, sw = 0, sh = 0;
      source_->reduced_size(r, &w, &hh);
      oriented_size(w, hh, orientation, &sw, &sh);
      if (sw >= kFastMargin * out_w_ && sh >= kFastMargin * out_h_) {
        reduce_ = r;
        break;
      }
    }
  }
  int stored_w = 0, stored_h = 0;
  source_->reduced_size(reduce_, &stored_w, &stored_h);
  oriented_size(stored_w, stored_h, orientation, &decoded_w_, &decoded_h_);
  if (reduce_ > 1) spec_.scale_x = spec_.scale_y = 0.0;  // the ratio comes from the sizes
  size_t float_bytes = 0;
  if (!resample_buffer_bytes(decoded_w_, decoded_h_, h.channels, h.bits, out_w_, out_h_, spec_,
                             &workspace_bytes_, &float_bytes, error)) {
    *error = "cannot resample " + quote_path(in_) + ": " + *error;
    return 1;
  }
  const size_t decoded = static_cast<size_t>(stored_w) * stored_h * h.channels * (h.bits / 8);
  const size_t out_samples = static_cast<size_t>(out_w_) * out_h_ * h.channels;
  // The PNG encoder holds the filtered rows and the compressed stream besides the samples
  // (tools/image_png_write.cpp); the others about the output's size.
  const size_t encoded =
      out_samples * (out_bits_ / 8) * (*out_format_ == ImageFormat::kPng ? 2 : 1);
  estimate_ = source_->resident_bytes() + decoded * (orientation >= 5 ? 2 : 1) + workspace_bytes_ +
              float_bytes + out_samples * (h.bits / 8) + encoded +
              (out_bits_ != h.bits ? out_samples * 2 : 0);
  return 0;
}

bool FileTask::run(std::string* error) {
  const ImageHeader h = source_->header();
  auto t0 = std::chrono::steady_clock::now();
  // Every large buffer is allocated before decoding: the decoder writes into `image`, the
  // library reads it and writes `out` using `workspace`. With prefault_, another thread faults
  // in the pages of all three while this one decodes (first touching fresh memory costs as
  // much as the resample itself on some machines).
  Image image, out;
  int stored_w = 0, stored_h = 0;
  source_->reduced_size(reduce_, &stored_w, &stored_h);
  image.allocate(stored_w, stored_h, h.channels, h.bits);
  out.allocate(out_w_, out_h_, h.channels, h.bits);
  SampleBuffer workspace(workspace_bytes_);
  std::jthread prefaulter;  // joined on every way out, exceptions included
  if (prefault_) {
    prefaulter = std::jthread([&] {
      prefault_buffer(image.data.data(), image.data.size());
      prefault_buffer(workspace.data(), workspace.size());
      prefault_buffer(out.data.data(), out.data.size());
    });
  }
  const bool decoded = source_->decode(reduce_, &image, error);
  if (prefaulter.joinable()) prefaulter.join();
  if (!decoded) return false;
  source_.reset();  // the compressed bytes are no longer needed
  if (o_.autorotate) apply_orientation(&image, h.orientation);
  times_.decode_ms = ms_since(t0);

  t0 = std::chrono::steady_clock::now();
  if (!resample_image(image, out_w_, out_h_, spec_, &out, error, &workspace)) {
    *error = "cannot resample " + quote_path(in_) + ": " + *error;
    return false;
  }
  image = Image();  // the decoded samples and the workspace are no longer needed
  workspace = SampleBuffer();
  times_.resample_ms = ms_since(t0);

  t0 = std::chrono::steady_clock::now();
  if (out.bits != out_bits_) out = convert_depth(out, out_bits_);
  WriteOptions write = s_.write;
  write.format = out_format_;
  write.threads = threads_;
  if (!write_image(out_, out, write, error)) return false;
  times_.encode_ms = ms_since(t0);
  // For describe().
  in_header_ = h;
  out_channels_ = out.channels;
  return true;
}

std::string FileTask::describe() const {
  const ImageHeader& h = in_header_;
  char line[1024];
  std::string decoded;
  if (reduce_ > 1) {
    decoded = " at 1/" + std::to_string(reduce_) + " (" + std::to_string(decoded_w_) + "x" +
              std::to_string(decoded_h_) + ", --fast)";
  }
  if (o_.autorotate && h.orientation != 1) {
    decoded += ", orientation " + std::to_string(h.orientation) + " applied";
  }
  if (!h.note.empty()) decoded += ", " + h.note;
  const DType dtype = resample_dtype(h.bits, spec_);
  std::snprintf(line, sizeof line,
                "%s (%dx%d %s, %d-bit %s) -> %s (%dx%d %s, %d-bit %s): %s%s%s, %s, %d threads; "
                "decode %.1f ms%s, resample %.1f ms, encode %.1f ms",
                in_.c_str(), h.width, h.height, channels_name(h.channels), h.bits,
                format_name(h.format), out_.c_str(), out_w_, out_h_, channels_name(out_channels_),
                out_bits_, format_name(*out_format_), o_.mode_text.c_str(),
                o_.antialias ? " antialias" : "", o_.align_corners ? " align_corners" : "",
                dtype_name(dtype), threads_ > 0 ? threads_ : default_num_threads(),
                times_.decode_ms, decoded.c_str(), times_.resample_ms, times_.encode_ms);
  return line;
}

int run_resize(const std::vector<std::string>& args) {
  ResizeOptions o;
  bool help = false;
  if (const std::string err = parse_args(args, &o, &help); !err.empty()) return usage_error(err);
  if (help) {
    print_help();
    return 0;
  }
  ResizeSettings s;
  if (const std::string err = parse_settings(o, &s); !err.empty()) return usage_error(err);
  install_temp_file_cleanup();
  try {
    return o.out_dir.empty() ? resize_one(o, s) : resize_batch(o, s);
  } catch (const std::bad_alloc&) {
    return failure("out of memory");
  }
}

}  // namespace upsample::cli
