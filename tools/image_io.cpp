#include "image_io.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "core/dtype.hpp"

// stb: the implementations live in this translation unit only. Only the formats the tool
// documents are compiled in, so anything else is reported as "not a supported image".
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_BMP
#define STBI_ONLY_TGA
#define STB_IMAGE_WRITE_IMPLEMENTATION
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>
#pragma GCC diagnostic pop

namespace upsample::cli {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string quoted(const std::string& path) { return "'" + path + "'"; }

// What the first bytes of a file say it is ("" when none of ours).
std::string sniff_format(const unsigned char* head, size_t n) {
  if (n >= 8 && std::memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0) return "PNG";
  if (n >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF) return "JPEG";
  if (n >= 2 && head[0] == 'B' && head[1] == 'M') return "BMP";
  return "";
}

// stb_image's terse failure reasons, in words.
std::string explain(const std::string& reason) {
  if (reason == "outofdata" || reason == "truncated") return "the file is truncated";
  if (reason == "outofmem") return "out of memory";
  if (reason == "too large") return "the image is too large";
  if (reason == "unknown image type") return "corrupt data or an unsupported variant";
  return "corrupt data (" + reason + ")";
}

// ---------------------------------------------------------------------------------------------
// Writing through a FILE*, so that errors carry errno.

struct Sink {
  std::FILE* file = nullptr;
  bool failed = false;
  int error = 0;
};

void sink_write(void* context, void* data, int size) {
  auto* sink = static_cast<Sink*>(context);
  if (sink->failed || size <= 0) return;
  if (std::fwrite(data, 1, static_cast<size_t>(size), sink->file) != static_cast<size_t>(size)) {
    sink->failed = true;
    sink->error = errno;
  }
}

// ---------------------------------------------------------------------------------------------
// 16-bit PNG (stb_image_write only writes 8-bit samples): our own chunks around stb's deflate.

uint32_t crc32(const unsigned char* data, size_t n, uint32_t crc = 0) {
  static const auto table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) crc = table[(crc ^ data[i]) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

void put_u32(std::vector<unsigned char>* out, uint32_t v) {
  out->push_back(static_cast<unsigned char>(v >> 24));
  out->push_back(static_cast<unsigned char>(v >> 16));
  out->push_back(static_cast<unsigned char>(v >> 8));
  out->push_back(static_cast<unsigned char>(v));
}

void put_chunk(std::vector<unsigned char>* out, const char* type, const unsigned char* data,
               size_t n) {
  put_u32(out, static_cast<uint32_t>(n));
  const size_t start = out->size();
  out->insert(out->end(), type, type + 4);
  out->insert(out->end(), data, data + n);
  put_u32(out, crc32(out->data() + start, n + 4));
}

int paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

// The PNG file of a 16-bit image: big-endian samples, each row with the filter (none, sub, up,
// average, paeth; bytes per pixel = 2 * channels) of smallest sum of absolute differences.
bool encode_png16(const Image& image, std::vector<unsigned char>* png) {
  const int bpp = 2 * image.channels;
  const size_t row_bytes = static_cast<size_t>(image.width) * bpp;
  std::vector<unsigned char> raw(row_bytes * image.height);
  for (size_t i = 0; i < image.samples(); ++i) {
    const int v = image.sample(i);
    raw[2 * i] = static_cast<unsigned char>(v >> 8);
    raw[2 * i + 1] = static_cast<unsigned char>(v & 0xFF);
  }
  std::vector<unsigned char> filtered((row_bytes + 1) * image.height);
  std::vector<unsigned char> candidate(row_bytes), best(row_bytes);
  for (int y = 0; y < image.height; ++y) {
    const unsigned char* cur = raw.data() + y * row_bytes;
    const unsigned char* prev = y > 0 ? cur - row_bytes : nullptr;
    long best_cost = -1;
    int best_type = 0;
    for (int type = 0; type < 5; ++type) {
      long cost = 0;
      for (size_t i = 0; i < row_bytes; ++i) {
        const int a = i >= static_cast<size_t>(bpp) ? cur[i - bpp] : 0;
        const int b = prev ? prev[i] : 0;
        const int c = (prev && i >= static_cast<size_t>(bpp)) ? prev[i - bpp] : 0;
        int pred = 0;
        switch (type) {
          case 1: pred = a; break;
          case 2: pred = b; break;
          case 3: pred = (a + b) / 2; break;
          case 4: pred = paeth(a, b, c); break;
          default: break;
        }
        const auto v = static_cast<unsigned char>(cur[i] - pred);
        candidate[i] = v;
        cost += std::abs(static_cast<signed char>(v));
      }
      if (best_cost < 0 || cost < best_cost) {
        best_cost = cost;
        best_type = type;
        best.swap(candidate);
      }
    }
    unsigned char* dst = filtered.data() + y * (row_bytes + 1);
    dst[0] = static_cast<unsigned char>(best_type);
    std::memcpy(dst + 1, best.data(), row_bytes);
  }
  int zlen = 0;
  unsigned char* z = stbi_zlib_compress(filtered.data(), static_cast<int>(filtered.size()), &zlen,
                                        stbi_write_png_compression_level);
  if (z == nullptr) return false;
  static const int kColorType[5] = {-1, 0, 4, 2, 6};
  unsigned char ihdr[13];
  const auto be32 = [](unsigned char* p, uint32_t v) {
    p[0] = static_cast<unsigned char>(v >> 24);
    p[1] = static_cast<unsigned char>(v >> 16);
    p[2] = static_cast<unsigned char>(v >> 8);
    p[3] = static_cast<unsigned char>(v);
  };
  be32(ihdr, static_cast<uint32_t>(image.width));
  be32(ihdr + 4, static_cast<uint32_t>(image.height));
  ihdr[8] = 16;
  ihdr[9] = static_cast<unsigned char>(kColorType[image.channels]);
  ihdr[10] = ihdr[11] = ihdr[12] = 0;
  png->clear();
  const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  png->insert(png->end(), signature, signature + 8);
  put_chunk(png, "IHDR", ihdr, sizeof ihdr);
  put_chunk(png, "IDAT", z, static_cast<size_t>(zlen));
  put_chunk(png, "IEND", nullptr, 0);
  std::free(z);
  return true;
}

// ---------------------------------------------------------------------------------------------
// Tensor storage of one sample.

void store_value(DType dtype, double v, uint8_t* p) { store_element(dtype, p, v); }

double load_value(DType dtype, const uint8_t* p) { return load_element(dtype, p); }

// Round half to even and saturate to [0, max]; NaN -> 0.
int round_saturate(double v, int max) {
  if (!(v > 0.0)) return 0;
  if (v >= max) return max;
  return static_cast<int>(std::nearbyint(v));
}

bool is_nearest(Mode mode) { return mode == Mode::kNearest || mode == Mode::kNearestExact; }

}  // namespace

// ---------------------------------------------------------------------------------------------

int Image::sample(size_t i) const {
  if (bits == 16) {
    uint16_t v;
    std::memcpy(&v, data.data() + 2 * i, 2);
    return v;
  }
  return data[i];
}

void Image::set_sample(size_t i, int value) {
  if (bits == 16) {
    const auto v = static_cast<uint16_t>(value);
    std::memcpy(data.data() + 2 * i, &v, 2);
  } else {
    data[i] = static_cast<uint8_t>(value);
  }
}

Image Image::blank(int width, int height, int channels, int bits) {
  Image image;
  image.width = width;
  image.height = height;
  image.channels = channels;
  image.bits = bits;
  image.data.assign(image.samples() * (bits == 16 ? 2 : 1), 0);
  return image;
}

const char* channels_name(int channels) {
  switch (channels) {
    case 1: return "gray";
    case 2: return "gray + alpha";
    case 3: return "RGB";
    case 4: return "RGBA";
    default: return "?";
  }
}

std::optional<ImageFormat> format_from_path(const std::string& path) {
  const size_t dot = path.rfind('.');
  const size_t slash = path.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  const std::string ext = lower(path.substr(dot + 1));
  if (ext == "png") return ImageFormat::kPng;
  if (ext == "jpg" || ext == "jpeg") return ImageFormat::kJpeg;
  if (ext == "bmp") return ImageFormat::kBmp;
  if (ext == "tga") return ImageFormat::kTga;
  return {};
}

const char* format_name(ImageFormat format) {
  switch (format) {
    case ImageFormat::kPng: return "PNG";
    case ImageFormat::kJpeg: return "JPEG";
    case ImageFormat::kBmp: return "BMP";
    case ImageFormat::kTga: return "TGA";
  }
  return "?";
}

bool read_image(const std::string& path, Image* image, std::string* error) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    *error = "cannot open " + quoted(path) + ": " + std::strerror(errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    *error = "cannot read " + quoted(path) + ": it is a directory";
    return false;
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) {
    *error = "cannot open " + quoted(path) + ": " + std::strerror(errno);
    return false;
  }
  unsigned char head[8] = {};
  const size_t head_n = std::fread(head, 1, sizeof head, file.get());
  std::rewind(file.get());
  if (head_n == 0) {
    *error = quoted(path) + " is empty, not an image";
    return false;
  }
  const std::string sniffed = sniff_format(head, head_n);

  int w = 0, h = 0, c = 0;
  const bool sixteen = stbi_is_16_bit_from_file(file.get()) != 0;
  void* pixels = sixteen ? static_cast<void*>(stbi_load_from_file_16(file.get(), &w, &h, &c, 0))
                         : static_cast<void*>(stbi_load_from_file(file.get(), &w, &h, &c, 0));
  if (pixels == nullptr) {
    const std::string reason = stbi_failure_reason() ? stbi_failure_reason() : "unknown error";
    if (sniffed.empty() && reason == "unknown image type") {
      *error = quoted(path) + " is not a PNG, JPEG, BMP or TGA image";
    } else {
      *error = "cannot decode " + quoted(path) + (sniffed.empty() ? "" : " (" + sniffed + ")") +
               ": " + explain(reason);
    }
    return false;
  }
  image->width = w;
  image->height = h;
  image->channels = c;
  image->bits = sixteen ? 16 : 8;
  const size_t bytes = image->samples() * (sixteen ? 2 : 1);
  image->data.assign(static_cast<const uint8_t*>(pixels),
                     static_cast<const uint8_t*>(pixels) + bytes);
  stbi_image_free(pixels);
  if (c < 1 || c > 4) {
    *error = "cannot decode " + quoted(path) + ": " + std::to_string(c) + " channels";
    return false;
  }
  return true;
}

std::string write_limitation(ImageFormat format, int channels, int bits) {
  if (bits == 16 && format != ImageFormat::kPng) {
    return std::string(format_name(format)) +
           " stores 8-bit samples only and the image has 16-bit samples";
  }
  if (format == ImageFormat::kJpeg && (channels == 2 || channels == 4)) {
    return "JPEG has no alpha channel and the image has one";
  }
  return "";
}

bool write_image(const std::string& path, const Image& image, int jpeg_quality,
                 std::string* error) {
  const std::optional<ImageFormat> format = format_from_path(path);
  if (!format) {
    *error = "cannot write " + quoted(path) +
             ": unknown image format (expected .png, .jpg, .jpeg, .bmp or .tga)";
    return false;
  }
  if (const std::string why = write_limitation(*format, image.channels, image.bits);
      !why.empty()) {
    *error = "cannot write " + quoted(path) + ": " + why;
    return false;
  }
  if (image.width <= 0 || image.height <= 0 || image.channels < 1 || image.channels > 4) {
    *error = "cannot write " + quoted(path) + ": empty image";
    return false;
  }
  // The encoders count bytes in int: keep well inside it.
  const double bytes = static_cast<double>(image.samples()) * (image.bits == 16 ? 2 : 1) +
                       static_cast<double>(image.height) * 8;
  if (bytes > 2.0e9) {
    *error = "cannot write " + quoted(path) + ": " + std::to_string(image.width) + "x" +
             std::to_string(image.height) + " is too large for the " +
             format_name(*format) + " encoder (at most 2 GB of samples)";
    return false;
  }
  // stb's BMP writer drops the alpha of gray + alpha: widen it to RGBA, which it keeps.
  const Image* source = &image;
  Image widened;
  if (*format == ImageFormat::kBmp && image.channels == 2) {
    widened = Image::blank(image.width, image.height, 4);
    const size_t pixels = static_cast<size_t>(image.width) * image.height;
    for (size_t p = 0; p < pixels; ++p) {
      for (int k = 0; k < 3; ++k) widened.data[4 * p + k] = image.data[2 * p];
      widened.data[4 * p + 3] = image.data[2 * p + 1];
    }
    source = &widened;
  }

  Sink sink;
  sink.file = std::fopen(path.c_str(), "wb");
  if (sink.file == nullptr) {
    *error = "cannot write " + quoted(path) + ": " + std::strerror(errno);
    return false;
  }
  const int w = source->width, h = source->height, c = source->channels;
  const void* data = source->data.data();
  int ok = 0;
  switch (*format) {
    case ImageFormat::kPng:
      if (source->bits == 16) {
        std::vector<unsigned char> png;
        ok = encode_png16(*source, &png);
        if (ok) sink_write(&sink, png.data(), static_cast<int>(png.size()));
      } else {
        ok = stbi_write_png_to_func(sink_write, &sink, w, h, c, data, w * c);
      }
      break;
    case ImageFormat::kJpeg:
      ok = stbi_write_jpg_to_func(sink_write, &sink, w, h, c, data,
                                  std::clamp(jpeg_quality, 1, 100));
      break;
    case ImageFormat::kBmp: ok = stbi_write_bmp_to_func(sink_write, &sink, w, h, c, data); break;
    case ImageFormat::kTga: ok = stbi_write_tga_to_func(sink_write, &sink, w, h, c, data); break;
  }
  if (std::fclose(sink.file) != 0 && !sink.failed) {
    sink.failed = true;
    sink.error = errno;
  }
  if (!ok || sink.failed) {
    std::remove(path.c_str());
    *error = "cannot write " + quoted(path) + ": " +
             (sink.failed ? std::strerror(sink.error) : "the encoder failed (out of memory?)");
    return false;
  }
  return true;
}

Image convert_depth(const Image& image, int bits) {
  if (image.bits == bits) return image;
  Image out = Image::blank(image.width, image.height, image.channels, bits);
  for (size_t i = 0; i < image.samples(); ++i) {
    const int v = image.sample(i);
    // 16 -> 8: round(v / 257), ties (never exact: 257 is odd) cannot occur.
    out.set_sample(i, bits == 8 ? (v + 128) / 257 : v * 257);
  }
  return out;
}

std::string resample_limitation(const Image& image, const ResampleSpec& spec) {
  const bool nearest = is_nearest(spec.mode);
  if (nearest && spec.align_corners) {
    return std::string("align_corners is only defined for bilinear and bicubic, not for ") +
           mode_name(spec.mode);
  }
  if (nearest && spec.antialias) {
    return std::string("antialias is only defined for bilinear and bicubic, not for ") +
           mode_name(spec.mode);
  }
  if (spec.dtype == DType::kUInt8 && !nearest) {
    return "dtype uint8 is for the nearest modes (a bit-exact copy of samples); bilinear and "
           "bicubic need a float dtype";
  }
  if (spec.dtype == DType::kUInt8 && image.bits == 16) {
    return "dtype uint8 cannot hold the 16-bit samples of this image";
  }
  if (spec.dtype == DType::kFloat16 && image.bits == 16) {
    return "dtype float16 cannot hold 16-bit samples (its largest value is 65504); use "
           "float32, bfloat16 or float64";
  }
  return "";
}

bool resample_image(const Image& in, int out_width, int out_height, const ResampleSpec& spec,
                    Image* out, std::string* error) {
  if (const std::string why = resample_limitation(in, spec); !why.empty()) {
    *error = why;
    return false;
  }
  OpDesc op;
  op.mode = spec.mode;
  op.direction = Direction::kForward;
  op.align_corners = spec.align_corners;
  op.antialias = spec.antialias;
  op.spatial_rank = 2;
  op.scales = {spec.scale_y, spec.scale_x, 0.0};
  const int c = in.channels;
  const TensorDesc src = TensorDesc::channels_last(spec.dtype, {1, c, in.height, in.width});
  const TensorDesc dst = TensorDesc::channels_last(spec.dtype, {1, c, out_height, out_width});
  Plan plan;
  if (const Status st = make_plan(op, src, dst, &plan); !st.ok()) {
    *error = st.message;
    return false;
  }
  *out = Image::blank(out_width, out_height, c, in.bits);
  std::vector<std::byte> workspace(plan.workspace_bytes());
  ExecContext ctx;
  ctx.num_threads = spec.threads;

  if (spec.dtype == DType::kUInt8) {  // nearest: the library copies the samples
    const Status st = execute(plan, in.data.data(), out->data.data(), workspace.data(),
                              workspace.size(), ctx);
    if (!st.ok()) *error = st.message;
    return st.ok();
  }

  const size_t esize = dtype_size(spec.dtype);
  const int max = in.max_value();
  const bool premultiply = spec.premultiply_alpha && in.has_alpha() && !is_nearest(spec.mode);
  std::vector<uint8_t> src_buf(in.samples() * esize), dst_buf(out->samples() * esize);
  const size_t in_pixels = static_cast<size_t>(in.width) * in.height;
  for (size_t p = 0; p < in_pixels; ++p) {
    const double alpha = premultiply ? in.sample(p * c + c - 1) : 0.0;
    for (int k = 0; k < c; ++k) {
      const size_t i = p * c + k;
      double v = in.sample(i);
      if (premultiply && k < c - 1) v = v * alpha / max;
      store_value(spec.dtype, v, src_buf.data() + i * esize);
    }
  }
  if (const Status st = execute(plan, src_buf.data(), dst_buf.data(), workspace.data(),
                                workspace.size(), ctx);
      !st.ok()) {
    *error = st.message;
    return false;
  }
  const size_t out_pixels = static_cast<size_t>(out_width) * out_height;
  for (size_t p = 0; p < out_pixels; ++p) {
    double alpha = 0.0;
    int alpha_int = 0;
    if (premultiply) {
      alpha = load_value(spec.dtype, dst_buf.data() + (p * c + c - 1) * esize);
      alpha_int = round_saturate(alpha, max);
    }
    for (int k = 0; k < c; ++k) {
      const size_t i = p * c + k;
      const double v = load_value(spec.dtype, dst_buf.data() + i * esize);
      int s;
      if (!premultiply || k == c - 1) {
        s = round_saturate(v, max);
      } else {
        s = alpha_int == 0 ? 0 : round_saturate(v * max / alpha, max);
      }
      out->set_sample(i, s);
    }
  }
  return true;
}

}  // namespace upsample::cli
