// PNG: read through libpng, streamed from the file straight into the image buffer (palette, low
// bit depths and tRNS expanded, 16-bit samples kept and byte-swapped to native order,
// interlacing undone), with the iCCP profile and the eXIf orientation. Written here, around
// zlib: each row gets the filter (none, up, sub or paeth) whose bytes are closest to zero in
// total, and the rows go through one zlib stream at the chosen level with the Z_FILTERED
// strategy and memLevel 9 -- the same choices as Pillow's PNG encoder, so that at level 6 the
// compressed data is the same bytes as Pillow's default Image.save, and the file no larger
// (fewer, larger IDAT chunks: up to 256 KiB each).
//
// libpng reports errors by longjmp: every function below that calls setjmp holds only trivially
// destructible locals, so a longjmp out of libpng skips no destructor.
#include <png.h>
#include <zlib.h>

#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "image_codecs.hpp"

namespace upsample::cli {
namespace {

// libpng's error callback target: the first message, then a longjmp back to the caller.
struct PngErrors {
  char message[256] = {};
};

void on_error(png_structp png, png_const_charp message) {
  auto* errors = static_cast<PngErrors*>(png_get_error_ptr(png));
  std::snprintf(errors->message, sizeof errors->message, "%s", message ? message : "error");
  png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}

bool host_is_little_endian() {
  const uint16_t one = 1;
  uint8_t first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

// The header and the chunks before the image data; sets the transformations that give 8- or
// 16-bit gray, gray + alpha, RGB or RGBA samples.
struct PngInfo {
  png_uint_32 width, height;
  int channels, bits, interlace;
  int orientation;
  png_bytep icc;
  png_uint_32 icc_size;
};

bool read_png_info(png_structp png, png_infop info, PngInfo* out) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_info(png, info);
  int bit_depth = 0, color_type = 0, interlace = 0;
  png_get_IHDR(png, info, &out->width, &out->height, &bit_depth, &color_type, &interlace, nullptr,
               nullptr);
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  if (bit_depth == 16 && host_is_little_endian()) png_set_swap(png);
  out->interlace = interlace;
  if (interlace != PNG_INTERLACE_NONE) png_set_interlace_handling(png);
  png_read_update_info(png, info);
  out->channels = png_get_channels(png, info);
  out->bits = png_get_bit_depth(png, info);
  out->orientation = 1;
  png_bytep exif = nullptr;
  png_uint_32 exif_size = 0;
  if (png_get_eXIf_1(png, info, &exif_size, &exif) != 0 && exif != nullptr) {
    out->orientation = exif_orientation(exif, exif_size);
  }
  png_charp name = nullptr;
  int compression = 0;
  out->icc = nullptr;
  out->icc_size = 0;
  png_get_iCCP(png, info, &name, &compression, &out->icc, &out->icc_size);
  return true;
}

bool read_png_rows(png_structp png, png_infop info, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_image(png, rows);
  png_read_end(png, info);
  return true;
}

class PngSource final : public ImageSource {
 public:
  PngSource(const std::string& path, std::FILE* file) : file_(file) { path_ = path; }
  ~PngSource() override {
    if (png_ != nullptr) png_destroy_read_struct(&png_, &info_, nullptr);
    if (file_ != nullptr) std::fclose(file_);
  }

  bool open(std::string* error) {
    png_ = png_create_read_struct(PNG_LIBPNG_VER_STRING, &errors_, on_error, on_warning);
    if (png_ != nullptr) info_ = png_create_info_struct(png_);
    if (png_ == nullptr || info_ == nullptr) {
      *error = "cannot decode " + quote_path(path_) + " (PNG): out of memory";
      return false;
    }
    png_init_io(png_, file_);
    PngInfo info;
    if (!read_png_info(png_, info_, &info)) return failed(error);
    if (info.channels < 1 || info.channels > 4 || (info.bits != 8 && info.bits != 16)) {
      *error = "cannot decode " + quote_path(path_) + " (PNG): " + std::to_string(info.channels) +
               " channels of " + std::to_string(info.bits) + " bits";
      return false;
    }
    if (info.width > 65535 || info.height > 65535) {
      *error = "cannot decode " + quote_path(path_) + " (PNG): " + std::to_string(info.width) +
               "x" + std::to_string(info.height) + " is larger than 65535 pixels a side";
      return false;
    }
    header_.format = ImageFormat::kPng;
    header_.width = static_cast<int>(info.width);
    header_.height = static_cast<int>(info.height);
    header_.channels = info.channels;
    header_.bits = info.bits;
    header_.orientation = info.orientation;
    if (info.interlace != PNG_INTERLACE_NONE) header_.note = "interlaced";
    if (info.icc != nullptr) icc_.assign(info.icc, info.icc + info.icc_size);
    return true;
  }

  bool decode(int reduce, Image* image, std::string* error) override {
    if (reduce != 1 || decoded_) {
      *error = "cannot decode " + quote_path(path_) + " (PNG) twice or at a reduced size";
      return false;
    }
    decoded_ = true;
    image->allocate(header_.width, header_.height, header_.channels, header_.bits);
    const size_t row_bytes =
        static_cast<size_t>(header_.width) * header_.channels * (header_.bits / 8);
    std::vector<png_bytep> rows(static_cast<size_t>(header_.height));
    for (int y = 0; y < header_.height; ++y) rows[y] = image->data.data() + y * row_bytes;
    if (!read_png_rows(png_, info_, rows.data())) return failed(error);
    image->icc = icc_;
    return true;
  }

 private:
  bool failed(std::string* error) const {
    const std::string why = errors_.message;
    *error = "cannot decode " + quote_path(path_) + " (PNG): " +
             (why == "Read Error" || why == "Not enough image data"
                  ? "the file is truncated (" + why + ")"
                  : why);
    return false;
  }

  std::FILE* file_;
  png_structp png_ = nullptr;
  png_infop info_ = nullptr;
  PngErrors errors_;
  std::vector<uint8_t> icc_;
  bool decoded_ = false;
};

// ---------------------------------------------------------------------------------------------
// Writing: our own chunks around zlib.

// Bytes of a filtered row counted by the filter choice: each byte as a signed distance from 0.
uint64_t distance(const uint8_t* v, size_t n) {
  uint64_t sum = 0;
  for (size_t i = 0; i < n; ++i) sum += v[i] < 128 ? v[i] : 256 - v[i];
  return sum;
}

// The row `cur` (previous row `prev`, all zero above the first) filtered with each PNG filter
// into out[1..n] (out[0] = the filter type); returns the filter that gives the least total
// distance from zero, trying none, up, sub, then paeth (average is not tried) and keeping the
// first of equals.
const uint8_t* choose_filter(const uint8_t* cur, const uint8_t* prev, size_t n, size_t bpp,
                             uint8_t* none, uint8_t* up, uint8_t* sub, uint8_t* paeth) {
  const uint8_t* best = none;
  uint64_t best_sum = distance(none + 1, n);
  if (best_sum > 0) {
    for (size_t i = 0; i < n; ++i) up[1 + i] = static_cast<uint8_t>(cur[i] - prev[i]);
    if (const uint64_t sum = distance(up + 1, n); sum < best_sum) {
      best = up;
      best_sum = sum;
    }
  }
  if (best_sum > 0) {
    for (size_t i = 0; i < bpp; ++i) sub[1 + i] = cur[i];
    for (size_t i = bpp; i < n; ++i) sub[1 + i] = static_cast<uint8_t>(cur[i] - cur[i - bpp]);
    if (const uint64_t sum = distance(sub + 1, n); sum < best_sum) {
      best = sub;
      best_sum = sum;
    }
  }
  if (best_sum > 0) {
    for (size_t i = 0; i < bpp; ++i) paeth[1 + i] = static_cast<uint8_t>(cur[i] - prev[i]);
    for (size_t i = bpp; i < n; ++i) {
      const int a = cur[i - bpp], b = prev[i], c = prev[i - bpp];
      const int pa = std::abs(b - c), pb = std::abs(a - c), pc = std::abs(a + b - 2 * c);
      const int predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      paeth[1 + i] = static_cast<uint8_t>(cur[i] - predictor);
    }
    if (distance(paeth + 1, n) < best_sum) best = paeth;
  }
  return best;
}

class ChunkWriter {
 public:
  explicit ChunkWriter(std::FILE* file) : file_(file) {}
  bool put(const char* type, const uint8_t* data, size_t n) {
    uint8_t head[8];
    be32(head, static_cast<uint32_t>(n));
    std::memcpy(head + 4, type, 4);
    uint32_t crc = static_cast<uint32_t>(crc32(0, head + 4, 4));
    if (n > 0) crc = static_cast<uint32_t>(crc32(crc, data, static_cast<uInt>(n)));
    uint8_t tail[4];
    be32(tail, crc);
    return ok_ = ok_ && std::fwrite(head, 1, 8, file_) == 8 &&
                 (n == 0 || std::fwrite(data, 1, n, file_) == n) &&
                 std::fwrite(tail, 1, 4, file_) == 4;
  }
  bool ok() const { return ok_; }
  static void be32(uint8_t* p, uint32_t v) {
    p[0] = static_cast<uint8_t>(v >> 24);
    p[1] = static_cast<uint8_t>(v >> 16);
    p[2] = static_cast<uint8_t>(v >> 8);
    p[3] = static_cast<uint8_t>(v);
  }

 private:
  std::FILE* file_;
  bool ok_ = true;
};

struct ZStream {
  z_stream z{};
  bool open = false;
  ~ZStream() {
    if (open) deflateEnd(&z);
  }
};

}  // namespace

std::unique_ptr<ImageSource> open_png(const std::string& path, std::FILE* file,
                                      std::string* error) {
  auto source = std::make_unique<PngSource>(path, file);
  if (!source->open(error)) return nullptr;
  return source;
}

bool encode_png(const Image& image, const std::vector<uint8_t>& icc, int level, std::FILE* file,
                std::string* error) {
  static const uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  static const uint8_t kColorType[5] = {0, 0, 4, 2, 6};
  const size_t sample_bytes = image.bits / 8;
  const size_t bpp = image.channels * sample_bytes;
  const size_t n = bpp * static_cast<size_t>(image.width);
  ChunkWriter out(file);
  if (std::fwrite(kSignature, 1, 8, file) != 8) {
    *error = std::strerror(errno);
    return false;
  }
  uint8_t ihdr[13];
  ChunkWriter::be32(ihdr, static_cast<uint32_t>(image.width));
  ChunkWriter::be32(ihdr + 4, static_cast<uint32_t>(image.height));
  ihdr[8] = static_cast<uint8_t>(image.bits);
  ihdr[9] = kColorType[image.channels];
  ihdr[10] = ihdr[11] = ihdr[12] = 0;  // deflate, adaptive filtering, not interlaced
  out.put("IHDR", ihdr, sizeof ihdr);
  if (!icc.empty()) {  // name, NUL, compression method 0, the zlib-compressed profile
    uLongf size = compressBound(static_cast<uLong>(icc.size()));
    std::vector<uint8_t> chunk(13 + size);
    std::memcpy(chunk.data(), "ICC profile\0\0", 13);
    if (compress2(chunk.data() + 13, &size, icc.data(), static_cast<uLong>(icc.size()),
                  Z_DEFAULT_COMPRESSION) != Z_OK) {
      *error = "cannot compress the ICC profile";
      return false;
    }
    out.put("iCCP", chunk.data(), 13 + size);
  }
  // The image data: one zlib stream (level `level`, Z_FILTERED, 32 KiB window, memLevel 9),
  // fed one filtered row at a time, written as IDAT chunks of up to 256 KiB.
  ZStream zs;
  if (deflateInit2(&zs.z, level, Z_DEFLATED, 15, 9, Z_FILTERED) != Z_OK) {
    *error = "cannot start zlib";
    return false;
  }
  zs.open = true;
  std::vector<uint8_t> rows(6 * (n + 1), 0);
  uint8_t* prev = rows.data();  // n bytes (zero above the first row)
  uint8_t* cur = prev + (n + 1);
  uint8_t* none = cur + (n + 1);  // none[1..n] is the current row, as stored in the file
  uint8_t* up = none + (n + 1);
  uint8_t* sub = up + (n + 1);
  uint8_t* paeth = sub + (n + 1);
  none[0] = 0;
  up[0] = 2;
  sub[0] = 1;
  paeth[0] = 4;
  std::vector<uint8_t> idat(256 * 1024);
  zs.z.next_out = idat.data();
  zs.z.avail_out = static_cast<uInt>(idat.size());
  auto drain = [&](int flush) {
    for (;;) {
      const int rc = deflate(&zs.z, flush);
      if (rc == Z_STREAM_ERROR) return false;
      if (zs.z.avail_out == 0 || (flush == Z_FINISH && rc == Z_STREAM_END)) {
        const size_t filled = idat.size() - zs.z.avail_out;
        if (filled > 0) out.put("IDAT", idat.data(), filled);
        zs.z.next_out = idat.data();
        zs.z.avail_out = static_cast<uInt>(idat.size());
        if (flush == Z_FINISH && rc == Z_STREAM_END) return out.ok();
        continue;
      }
      if (zs.z.avail_in == 0 && flush != Z_FINISH) return out.ok();
    }
  };
  for (int y = 0; y < image.height; ++y) {
    const uint8_t* row = image.data.data() + static_cast<size_t>(y) * n;
    if (sample_bytes == 2) {  // big-endian samples
      for (size_t i = 0; i < n; i += 2) {
        uint16_t v;
        std::memcpy(&v, row + i, 2);
        cur[i] = static_cast<uint8_t>(v >> 8);
        cur[i + 1] = static_cast<uint8_t>(v & 0xFF);
      }
    } else {
      std::memcpy(cur, row, n);
    }
    std::memcpy(none + 1, cur, n);
    const uint8_t* best = choose_filter(cur, prev, n, bpp, none, up, sub, paeth);
    zs.z.next_in = const_cast<Bytef*>(best);
    zs.z.avail_in = static_cast<uInt>(n + 1);
    if (!drain(Z_NO_FLUSH)) break;
    std::swap(prev, cur);
  }
  if (!out.ok() || !drain(Z_FINISH)) {
    *error = out.ok() ? "zlib failed" : std::strerror(errno);
    return false;
  }
  out.put("IEND", nullptr, 0);
  if (!out.ok()) *error = std::strerror(errno);
  return out.ok();
}

}  // namespace upsample::cli
