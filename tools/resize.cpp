// `upsample resize`: resample one image file with the library.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "image_io.hpp"

namespace upsample::cli {
namespace {

constexpr int kMaxSide = 65535;  // JPEG's limit; also keeps every size product in range

void print_help() {
  std::printf(
      "Usage: upsample resize IN OUT (--size WxH | --scale S[,S]) --mode MODE [options]\n"
      "\n"
      "Reads the image IN, resamples it with the library and writes OUT. The format of OUT\n"
      "follows its extension: .png, .jpg/.jpeg, .bmp or .tga. IN may be any PNG, JPEG, BMP or\n"
      "TGA file with 8-bit gray, gray + alpha, RGB or RGBA samples, or a 16-bit PNG.\n"
      "\n"
      "The samples (0..255, or 0..65535 for 16-bit PNGs) become a [1, C, H, W] tensor in\n"
      "channels-last memory of the chosen dtype; after resampling each value is rounded half\n"
      "to even and saturated to the sample range.\n"
      "\n"
      "Size (one of):\n"
      "  --size WxH        output width and height in pixels; 'Wx' or 'xH' keeps the aspect\n"
      "                    ratio (the other side rounded, at least 1)\n"
      "  --scale S[,S]     scale factor, or horizontal,vertical factors: the output side is\n"
      "                    floor(input side * S), and S is passed to the library as\n"
      "                    F.interpolate's scale_factor\n"
      "\n"
      "Options:\n"
      "  --mode MODE       nearest, nearest-exact, bilinear or bicubic (required)\n"
      "  --antialias       low-pass filter when downsampling (bilinear, bicubic)\n"
      "  --align-corners   align the corner pixel centres (bilinear, bicubic)\n"
      "  --dtype DTYPE     tensor dtype: float32 (default), float16, bfloat16, float64, or\n"
      "                    uint8 (nearest modes only: a bit-exact copy of samples)\n"
      "  --straight-alpha  resample alpha like any other channel; by default colour is\n"
      "                    resampled premultiplied by alpha (bilinear, bicubic), so that\n"
      "                    transparent pixels do not bleed their colour into visible ones\n"
      "  --bits 8|16       sample depth of OUT (default: that of IN); 16 needs a .png OUT,\n"
      "                    8 from a 16-bit IN rounds v/257\n"
      "  --quality Q       JPEG quality, 1-100 (default 95)\n"
      "  --threads N       library threads (default: UPSAMPLE_NUM_THREADS or every core)\n"
      "  -v, --verbose     print what was done and how long the library took\n"
      "  -h, --help        print this help\n"
      "\n"
      "Examples:\n"
      "  upsample resize photo.jpg thumb.png --size 256x --mode bicubic --antialias\n"
      "  upsample resize icon.png icon@4x.png --scale 4 --mode nearest --dtype uint8\n"
      "\n"
      "Exit status: 0 success, 1 the image cannot be read, decoded, resampled or written,\n"
      "2 usage error (unknown option, bad size, unknown mode, a combination that is not\n"
      "defined).\n");
}

int usage_error(const std::string& what) {
  std::fprintf(stderr, "upsample resize: %s (see 'upsample resize --help')\n", what.c_str());
  return 2;
}

int failure(const std::string& what) {
  std::fprintf(stderr, "upsample resize: %s\n", what.c_str());
  return 1;
}

struct Options {
  std::string in, out;
  std::string size_text, scale_text, mode_text, dtype_text = "float32";
  std::optional<int> bits;
  int quality = 95;
  int threads = 0;
  bool antialias = false, align_corners = false, straight_alpha = false, verbose = false;
};

bool parse_int(const std::string& text, int lo, int hi, int* value) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  const int v = std::atoi(text.c_str());
  if (v < lo || v > hi) return false;
  *value = v;
  return true;
}

bool parse_positive_double(const std::string& text, double* value) {
  if (text.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v) || !(v > 0.0)) return false;
  *value = v;
  return true;
}

std::optional<Mode> parse_mode(const std::string& text) {
  if (text == "nearest") return Mode::kNearest;
  if (text == "nearest-exact") return Mode::kNearestExact;
  if (text == "bilinear") return Mode::kLinear;
  if (text == "bicubic") return Mode::kCubic;
  return {};
}

std::optional<DType> parse_dtype(const std::string& text) {
  if (text == "float32") return DType::kFloat32;
  if (text == "float16") return DType::kFloat16;
  if (text == "bfloat16") return DType::kBFloat16;
  if (text == "float64") return DType::kFloat64;
  if (text == "uint8") return DType::kUInt8;
  return {};
}

// Returns "" or the usage error.
std::string parse_args(const std::vector<std::string>& args, Options* o, bool* help) {
  std::vector<std::string> positional;
  bool options_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (options_done || a.size() < 2 || a[0] != '-') {
      positional.push_back(a);
      continue;
    }
    if (a == "--") {
      options_done = true;
      continue;
    }
    std::optional<std::string> inline_value;
    if (const size_t eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value = a.substr(eq + 1);
      a = a.substr(0, eq);
    }
    auto value = [&](std::string* dst) -> std::string {
      if (inline_value) {
        *dst = *inline_value;
        return "";
      }
      if (i + 1 >= args.size()) return a + " needs a value";
      *dst = args[++i];
      return "";
    };
    auto flag = [&](bool* dst) -> std::string {
      if (inline_value) return a + " takes no value";
      *dst = true;
      return "";
    };
    std::string err, text;
    if (a == "-h" || a == "--help") {
      *help = true;
      return "";
    } else if (a == "--size") {
      err = value(&o->size_text);
    } else if (a == "--scale") {
      err = value(&o->scale_text);
    } else if (a == "--mode") {
      err = value(&o->mode_text);
    } else if (a == "--dtype") {
      err = value(&o->dtype_text);
    } else if (a == "--bits") {
      err = value(&text);
      int b = 0;
      if (err.empty() && (!parse_int(text, 8, 16, &b) || (b != 8 && b != 16))) {
        err = "--bits must be 8 or 16, got '" + text + "'";
      }
      if (err.empty()) o->bits = b;
    } else if (a == "--quality") {
      err = value(&text);
      if (err.empty() && !parse_int(text, 1, 100, &o->quality)) {
        err = "--quality must be a whole number from 1 to 100, got '" + text + "'";
      }
    } else if (a == "--threads") {
      err = value(&text);
      if (err.empty() && !parse_int(text, 1, 4096, &o->threads)) {
        err = "--threads must be a whole number from 1 to 4096, got '" + text + "'";
      }
    } else if (a == "--antialias") {
      err = flag(&o->antialias);
    } else if (a == "--align-corners") {
      err = flag(&o->align_corners);
    } else if (a == "--straight-alpha") {
      err = flag(&o->straight_alpha);
    } else if (a == "-v" || a == "--verbose") {
      err = flag(&o->verbose);
    } else {
      err = "unknown option '" + a + "'";
    }
    if (!err.empty()) return err;
  }
  if (positional.size() < 2) {
    return positional.empty() ? "missing IN and OUT image files" : "missing the OUT image file";
  }
  if (positional.size() > 2) return "too many arguments: '" + positional[2] + "'";
  o->in = positional[0];
  o->out = positional[1];
  return "";
}

// "S" or "SX,SY" (positive, finite). Returns "" or the error.
std::string parse_scale(const std::string& t, double* sx, double* sy) {
  const size_t comma = t.find(',');
  const bool ok = comma == std::string::npos
                      ? parse_positive_double(t, sx)
                      : parse_positive_double(t.substr(0, comma), sx) &&
                            parse_positive_double(t.substr(comma + 1), sy);
  if (!ok) {
    return "--scale expects a positive number or two separated by a comma (horizontal,"
           "vertical), got '" + t + "'";
  }
  if (comma == std::string::npos) *sy = *sx;
  return "";
}

// Output size from --size / --scale for an input of in_w x in_h. Returns "" or the error.
std::string output_size(const Options& o, int in_w, int in_h, int* out_w, int* out_h,
                        double* scale_x, double* scale_y) {
  *scale_x = *scale_y = 0.0;
  if (!o.size_text.empty()) {
    const std::string& t = o.size_text;
    const size_t x = t.find_first_of("xX");
    const std::string expected =
        "--size expects WxH (or Wx / xH) with whole numbers from 1 to " +
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
      return "--size " + t + " gives " + std::to_string(w) + "x" + std::to_string(h) +
             " for a " + std::to_string(in_w) + "x" + std::to_string(in_h) +
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
                                                 : std::to_string(static_cast<long long>(w)) +
                                                       "x" +
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

int resize(const Options& o) {
  // Everything that can be checked without the image, first.
  if (o.size_text.empty() && o.scale_text.empty()) return usage_error("missing --size or --scale");
  if (!o.size_text.empty() && !o.scale_text.empty()) {
    return usage_error("give --size or --scale, not both");
  }
  if (o.mode_text.empty()) {
    return usage_error("missing --mode (nearest, nearest-exact, bilinear or bicubic)");
  }
  const std::optional<Mode> mode = parse_mode(o.mode_text);
  if (!mode) {
    return usage_error("unknown --mode '" + o.mode_text +
                       "' (expected nearest, nearest-exact, bilinear or bicubic)");
  }
  const std::optional<DType> dtype = parse_dtype(o.dtype_text);
  if (!dtype) {
    return usage_error("unknown --dtype '" + o.dtype_text +
                       "' (expected float32, float16, bfloat16, float64 or uint8)");
  }
  const bool nearest = *mode == Mode::kNearest || *mode == Mode::kNearestExact;
  if (nearest && o.antialias) {
    return usage_error("--antialias is only defined for bilinear and bicubic, not for --mode " +
                       o.mode_text);
  }
  if (nearest && o.align_corners) {
    return usage_error("--align-corners is only defined for bilinear and bicubic, not for --mode " +
                       o.mode_text);
  }
  if (*dtype == DType::kUInt8 && !nearest) {
    return usage_error("--dtype uint8 is for the nearest modes (a bit-exact copy); --mode " +
                       o.mode_text + " needs float32, float16, bfloat16 or float64");
  }
  const std::optional<ImageFormat> out_format = format_from_path(o.out);
  if (!out_format) {
    return usage_error("cannot tell the format of '" + o.out +
                       "' from its extension (expected .png, .jpg, .jpeg, .bmp or .tga)");
  }
  if (o.bits == 16 && *out_format != ImageFormat::kPng) {
    return usage_error(std::string("--bits 16 needs a .png OUT: ") + format_name(*out_format) +
                       " stores 8-bit samples only");
  }

  {  // The size's syntax and range, before reading (an aspect-kept side needs the image).
    int w = 0, h = 0;
    double sx = 0, sy = 0;
    const std::string why = o.size_text.empty() ? parse_scale(o.scale_text, &sx, &sy)
                                                : output_size(o, 1, 1, &w, &h, &sx, &sy);
    if (!why.empty()) return usage_error(why);
  }

  Image in;
  std::string error;
  if (!read_image(o.in, &in, &error)) return failure(error);

  int out_w = 0, out_h = 0;
  ResampleSpec spec;
  if (const std::string why = output_size(o, in.width, in.height, &out_w, &out_h, &spec.scale_x,
                                          &spec.scale_y);
      !why.empty()) {
    return usage_error(why);
  }
  spec.mode = *mode;
  spec.antialias = o.antialias;
  spec.align_corners = o.align_corners;
  spec.dtype = *dtype;
  spec.premultiply_alpha = !o.straight_alpha;
  spec.threads = o.threads;
  if (const std::string why = resample_limitation(in, spec); !why.empty()) {
    return usage_error("'" + o.in + "' has " + std::to_string(in.bits) + "-bit samples: " + why);
  }
  const int out_bits = o.bits.value_or(in.bits);
  if (const std::string why = write_limitation(*out_format, in.channels, out_bits);
      !why.empty()) {
    std::string hint;
    if (out_bits == 16) hint = "; pass --bits 8 to round to 8 bits, or write a .png";
    if (in.has_alpha()) hint = "; write a .png, .tga or .bmp to keep it";
    return usage_error("cannot write '" + o.in + "' (" + channels_name(in.channels) + ", " +
                       std::to_string(in.bits) + "-bit) as '" + o.out + "': " + why + hint);
  }

  if (static_cast<double>(out_w) * out_h * in.channels * (out_bits == 16 ? 2 : 1) > 2.0e9) {
    return usage_error("the output, " + std::to_string(out_w) + "x" + std::to_string(out_h) +
                       " " + channels_name(in.channels) +
                       ", is too large for the image encoders (at most 2 GB of samples)");
  }

  Image out;
  const auto t0 = std::chrono::steady_clock::now();
  if (!resample_image(in, out_w, out_h, spec, &out, &error)) {
    return failure("cannot resample '" + o.in + "': " + error);
  }
  const auto t1 = std::chrono::steady_clock::now();
  if (out.bits != out_bits) out = convert_depth(out, out_bits);
  if (!write_image(o.out, out, o.quality, &error)) return failure(error);
  if (o.verbose) {
    std::printf("%s (%dx%d %s, %d-bit) -> %s (%dx%d %s, %d-bit): %s%s%s, %s, %.3f ms\n",
                o.in.c_str(), in.width, in.height, channels_name(in.channels), in.bits,
                o.out.c_str(), out.width, out.height, format_name(*out_format), out.bits,
                o.mode_text.c_str(), o.antialias ? " antialias" : "",
                o.align_corners ? " align_corners" : "", dtype_name(*dtype),
                std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return 0;
}

}  // namespace

int run_resize(const std::vector<std::string>& args) {
  Options o;
  bool help = false;
  if (const std::string err = parse_args(args, &o, &help); !err.empty()) return usage_error(err);
  if (help) {
    print_help();
    return 0;
  }
  try {
    return resize(o);
  } catch (const std::bad_alloc&) {
    return failure("out of memory resizing '" + o.in + "'");
  }
}

}  // namespace upsample::cli
