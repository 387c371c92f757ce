// PNG reading (open_png): through libpng, streamed from the file straight into the image buffer
// (palette, low bit depths and tRNS expanded, 16-bit samples kept and byte-swapped to native
// order, interlacing undone), with the iCCP profile and the eXIf orientation. PNG writing is
// tools/image_png_write.cpp.
//
// libpng reports errors by longjmp: every function below that calls setjmp holds only trivially
// destructible locals, so a longjmp out of libpng skips no destructor.
#include <png.h>

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

}  // namespace

std::unique_ptr<ImageSource> open_png(const std::string& path, std::FILE* file,
                                      std::string* error) {
  auto source = std::make_unique<PngSource>(path, file);
  if (!source->open(error)) return nullptr;
  return source;
}

}  // namespace upsample::cli
