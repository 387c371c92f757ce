// PNG reading (open_png). libpng reads the chunks before the image data (checking them, and
// giving the header, the iCCP profile and the eXIf orientation). The image data of the usual
// kinds -- 8- or 16-bit gray, gray + alpha, RGB or RGBA, not interlaced, without tRNS -- is
// read here: the IDAT chunks streamed from the file with their CRCs checked, inflated by ISA-L
// (Intel's igzip, which also checks the zlib stream's Adler-32), and the rows unfiltered
// (tools/png_filters.hpp) straight into the image buffer, 16-bit samples byte-swapped to native
// order; then the chunks up to IEND are read and the critical ones' CRCs checked. Every other
// kind (palette, 1-4 bits, tRNS, interlacing) is decoded by libpng, streamed into the image
// buffer with the palette, low bit depths and tRNS expanded and interlacing undone.
// docs/cli.md (*Formats*) has the measurements behind the split: libpng inflates with zlib, at
// about half ISA-L's speed on photographs.
//
// PNG writing is tools/image_png_write.cpp.
//
// libpng reports errors by longjmp: every function below that calls setjmp holds only trivially
// destructible locals, so a longjmp out of libpng skips no destructor.
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <png.h>

#include <algorithm>
#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "image_codecs.hpp"
#include "png_filters.hpp"

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
  bool plain;  // 8- or 16-bit gray, gray + alpha, RGB or RGBA; not interlaced; no tRNS
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
  out->plain = (bit_depth == 8 || bit_depth == 16) && color_type != PNG_COLOR_TYPE_PALETTE &&
               interlace == PNG_INTERLACE_NONE && !png_get_valid(png, info, PNG_INFO_tRNS);
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

// The chunks from the first IDAT on, read from a file, each one's CRC computed over its type and
// data as they are read.
class ChunkReader {
 public:
  explicit ChunkReader(std::FILE* file) : file_(file) {}

  // Reads the next chunk's length and type. False (with `why`) when the file ends first or the
  // length is out of PNG's range.
  bool next(std::string* why) {
    uint8_t head[8];
    if (std::fread(head, 1, 8, file_) != 8) return truncated(why);
    left_ = static_cast<uint32_t>(head[0]) << 24 | static_cast<uint32_t>(head[1]) << 16 |
            static_cast<uint32_t>(head[2]) << 8 | head[3];
    std::memcpy(type_, head + 4, 4);
    if (left_ > 0x7FFFFFFFu) {
      *why = std::string(type_, 4) + ": invalid chunk length";
      return false;
    }
    crc_ = libdeflate_crc32(0, type_, 4);
    return true;
  }
  bool is(const char* type) const { return std::memcmp(type_, type, 4) == 0; }
  // Critical chunks (IHDR, PLTE, IDAT, IEND, ...) have an upper-case first letter.
  bool critical() const { return (type_[0] & 0x20) == 0; }

  // Up to n bytes of the chunk's data into `into`: the count, 0 at its end or on failure
  // (`why` set).
  size_t read(uint8_t* into, size_t n, std::string* why) {
    const size_t take = std::min<size_t>(n, left_);
    if (take > 0 && std::fread(into, 1, take, file_) != take) {
      truncated(why);
      return 0;
    }
    crc_ = libdeflate_crc32(crc_, into, take);
    left_ -= static_cast<uint32_t>(take);
    return take;
  }
  // Reads the rest of the chunk and its CRC. A wrong CRC is an error for a critical chunk and
  // ignored for an ancillary one (libpng's default).
  bool finish(std::string* why) {
    uint8_t buffer[4096];
    while (left_ > 0) {
      if (read(buffer, sizeof buffer, why) == 0) return false;
    }
    uint8_t stored[4];
    if (std::fread(stored, 1, 4, file_) != 4) return truncated(why);
    const uint32_t crc = static_cast<uint32_t>(stored[0]) << 24 |
                         static_cast<uint32_t>(stored[1]) << 16 |
                         static_cast<uint32_t>(stored[2]) << 8 | stored[3];
    if (crc != crc_ && critical()) {
      *why = std::string(type_, 4) + ": CRC error";
      return false;
    }
    return true;
  }

 private:
  static bool truncated(std::string* why) {
    *why = "the file is truncated (Read Error)";
    return false;
  }

  std::FILE* file_;
  char type_[4] = {};
  uint32_t left_ = 0;
  uint32_t crc_ = 0;
};

const char* inflate_error(int rc) {
  switch (rc) {
    case ISAL_INVALID_BLOCK:
      return "corrupt image data (an invalid deflate block)";
    case ISAL_INVALID_SYMBOL:
      return "corrupt image data (an invalid deflate code)";
    case ISAL_INVALID_LOOKBACK:
      return "corrupt image data (a match distance before the start of the data)";
    case ISAL_INCORRECT_CHECKSUM:
      return "corrupt image data (wrong Adler-32 checksum)";
    case ISAL_NEED_DICT:
      return "corrupt image data (a zlib stream with a preset dictionary)";
    default:
      return "corrupt image data (not a zlib stream)";
  }
}

// The image data of a plain PNG (PngInfo::plain) from `file`, positioned just after the first
// IDAT chunk's length and type (where png_read_info stops), into `image` (allocated with the
// header's size); then the chunks up to IEND. False with `why` on failure.
bool read_plain_image(std::FILE* file, Image* image, std::string* why) {
  ChunkReader chunks(file);
  if (std::fseek(file, -8, SEEK_CUR) != 0 || !chunks.next(why) || !chunks.is("IDAT")) {
    *why = "cannot find the image data after the header";
    return false;
  }
  const size_t sample_bytes = static_cast<size_t>(image->bits / 8);
  const size_t bpp = static_cast<size_t>(image->channels) * sample_bytes;
  const size_t n = bpp * static_cast<size_t>(image->width);
  const size_t height = static_cast<size_t>(image->height);
  // The inflated stream lands in `window`: whole filtered rows (filter type, n bytes), at least
  // two and about 256 KiB; 16-bit rows are unfiltered into big_endian[] and swapped into the
  // image, 8-bit ones straight into the image.
  const size_t stride = n + 1;
  const size_t window_bytes = stride * std::max<size_t>(2, (size_t{256} << 10) / stride);
  std::vector<uint8_t> buffer(window_bytes + (size_t{256} << 10) + 3 * n);
  uint8_t* window = buffer.data();
  uint8_t* input = window + window_bytes;
  uint8_t* zeros = input + (size_t{256} << 10);
  std::memset(zeros, 0, n);
  uint8_t* big_endian[2] = {zeros + n, zeros + 2 * n};

  auto state = std::make_unique<inflate_state>();
  isal_inflate_init(state.get());
  state->crc_flag = ISAL_ZLIB;
  size_t have = 0, y = 0;
  bool idat_done = false;
  while (state->block_state != ISAL_BLOCK_FINISH) {
    if (state->avail_in == 0) {
      size_t got = 0;
      while (got == 0 && !idat_done) {
        got = chunks.read(input, size_t{256} << 10, why);
        if (got > 0) break;
        if (!why->empty() || !chunks.finish(why) || !chunks.next(why)) return false;
        idat_done = !chunks.is("IDAT");
      }
      if (got == 0) {
        *why = "the file is truncated (Not enough image data)";
        return false;
      }
      state->next_in = input;
      state->avail_in = static_cast<uint32_t>(got);
    }
    state->next_out = window + have;
    state->avail_out = static_cast<uint32_t>(window_bytes - have);
    if (const int rc = isal_inflate(state.get()); rc < 0 || rc == ISAL_NEED_DICT) {
      *why = inflate_error(rc);
      return false;
    }
    have = window_bytes - state->avail_out;
    size_t used = 0;
    for (; have - used >= stride && y < height; used += stride, ++y) {
      const uint8_t* row = window + used;
      uint8_t* out = image->data.data() + y * n;
      const uint8_t* prev = y == 0 ? zeros : sample_bytes == 2 ? big_endian[(y - 1) % 2] : out - n;
      uint8_t* dst = sample_bytes == 2 ? big_endian[y % 2] : out;
      if (!unfilter_row(row[0], row + 1, prev, n, bpp, dst)) {
        *why =
            "bad adaptive filter value " + std::to_string(row[0]) + " in row " + std::to_string(y);
        return false;
      }
      if (sample_bytes == 2) {  // big-endian samples to native uint16_t
        for (size_t i = 0; i < n; i += 2) {
          const auto v = static_cast<uint16_t>(dst[i] << 8 | dst[i + 1]);
          std::memcpy(out + i, &v, 2);
        }
      }
    }
    if (y == height) used = have;  // data after the last row is ignored, as libpng does
    std::memmove(window, window + used, have - used);
    have -= used;
  }
  if (y < height) {
    *why = "the image data holds " + std::to_string(y) + " of the " + std::to_string(height) +
           " rows (Not enough image data)";
    return false;
  }
  // The rest of the IDAT chunks and the chunks after them, up to IEND.
  for (;;) {
    if (!chunks.finish(why)) return false;
    if (chunks.is("IEND")) return true;
    if (!chunks.next(why)) return false;
  }
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
    plain_ = info.plain;
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
    image->icc = icc_;
    if (plain_) {
      std::string why;
      if (read_plain_image(file_, image, &why)) return true;
      *error = "cannot decode " + quote_path(path_) + " (PNG): " + why;
      return false;
    }
    const size_t row_bytes =
        static_cast<size_t>(header_.width) * header_.channels * (header_.bits / 8);
    std::vector<png_bytep> rows(static_cast<size_t>(header_.height));
    for (int y = 0; y < header_.height; ++y) rows[y] = image->data.data() + y * row_bytes;
    return read_png_rows(png_, info_, rows.data()) || failed(error);
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
  bool plain_ = false;  // the image data is read by read_plain_image
  bool decoded_ = false;
};

}  // namespace

std::unique_ptr<ImageSource> open_png(const std::string& path, std::FILE* file,
                                      std::string* error) {
  auto source = std::make_unique<PngSource>(path, file);
  if (!source->open(error)) return nullptr;
  return source;
}

}  // namespace upsample::cli
