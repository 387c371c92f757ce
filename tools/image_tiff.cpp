// TIFF through libtiff (the first image of the file). 8- and 16-bit gray, gray + alpha, RGB and
// RGBA in strips or tiles, contiguous or planar, any compression libtiff decodes, are read at
// their own depth (strips straight into the image buffer); every other kind (palette, bilevel,
// CMYK, YCbCr, other depths or sample formats) goes through libtiff's RGBA reader as 8-bit RGB(A)
// or gray. The orientation tag and the ICC profile are read. Written with Adobe deflate and the
// horizontal predictor, one strip at a time.
#include <tiffio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "image_codecs.hpp"

namespace upsample::cli {
namespace {

// libtiff reports through process-wide handlers: the first error of the current thread's
// current operation is kept here.
thread_local std::string tiff_error;

void on_error(const char* module, const char* format, va_list args) {
  if (!tiff_error.empty()) return;
  char text[512];
  std::vsnprintf(text, sizeof text, format, args);
  tiff_error = text;
  (void)module;
}

void install_handlers() {
  static const bool installed = [] {
    TIFFSetErrorHandler(on_error);
    TIFFSetWarningHandler(nullptr);
    return true;
  }();
  (void)installed;
}

std::string take_error(const char* fallback) {
  std::string e = tiff_error.empty() ? fallback : tiff_error;
  tiff_error.clear();
  return e;
}

struct TiffCloser {
  void operator()(TIFF* tif) const { TIFFClose(tif); }
};
using TiffPtr = std::unique_ptr<TIFF, TiffCloser>;

// Straight (unassociated) alpha from alpha-premultiplied 8- or 16-bit samples, in place.
void unpremultiply(Image* image) {
  const int c = image->channels, max = image->max_value();
  const size_t pixels = static_cast<size_t>(image->width) * image->height;
  for (size_t p = 0; p < pixels; ++p) {
    const int a = image->sample(p * c + c - 1);
    for (int k = 0; k < c - 1; ++k) {
      const size_t i = p * c + k;
      const int v = a == 0 ? 0 : std::min(max, (image->sample(i) * max + a / 2) / a);
      image->set_sample(i, v);
    }
  }
}

class TiffSource final : public ImageSource {
 public:
  TiffSource(const std::string& path, TiffPtr tif) : tif_(std::move(tif)) { path_ = path; }

  bool open(std::string* error) {
    TIFF* t = tif_.get();
    uint32_t w = 0, h = 0;
    uint16_t spp = 1, bps = 1, photometric = 0, planar = 1, format = 1, orientation = 1;
    uint16_t compression = 1;
    TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(t, TIFFTAG_IMAGELENGTH, &h);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, &bps);
    TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLEFORMAT, &format);
    TIFFGetFieldDefaulted(t, TIFFTAG_ORIENTATION, &orientation);
    TIFFGetFieldDefaulted(t, TIFFTAG_COMPRESSION, &compression);
    if (!TIFFGetField(t, TIFFTAG_PHOTOMETRIC, &photometric)) {
      photometric = spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    }
    uint16_t extra_count = 0;
    uint16_t* extra = nullptr;
    TIFFGetFieldDefaulted(t, TIFFTAG_EXTRASAMPLES, &extra_count, &extra);
    associated_ = extra_count > 0 && extra[0] == EXTRASAMPLE_ASSOCALPHA;
    uint32_t icc_size = 0;
    void* icc = nullptr;
    if (TIFFGetField(t, TIFFTAG_ICCPROFILE, &icc_size, &icc) && icc != nullptr) {
      icc_.assign(static_cast<const uint8_t*>(icc), static_cast<const uint8_t*>(icc) + icc_size);
    }
    if (w == 0 || h == 0 || w > 65535 || h > 65535) {
      *error = "cannot decode " + quote_path(path_) + " (TIFF): " + std::to_string(w) + "x" +
               std::to_string(h) + " is not a size from 1 to 65535 pixels a side";
      return false;
    }
    // JPEG-compressed YCbCr: libtiff converts it to RGB, and it is then read natively.
    if (compression == COMPRESSION_JPEG && photometric == PHOTOMETRIC_YCBCR) {
      TIFFSetField(t, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
      photometric = PHOTOMETRIC_RGB;
    }
    const bool gray =
        photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE;
    const int colour = gray ? 1 : 3;
    native_ = (bps == 8 || bps == 16) && format == SAMPLEFORMAT_UINT &&
              (gray || photometric == PHOTOMETRIC_RGB) && (spp == colour || spp == colour + 1);
    invert_ = photometric == PHOTOMETRIC_MINISWHITE;
    header_.format = ImageFormat::kTiff;
    header_.width = static_cast<int>(w);
    header_.height = static_cast<int>(h);
    header_.orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
    planar_ = planar == PLANARCONFIG_SEPARATE;
    if (native_) {
      header_.channels = spp;
      header_.bits = bps;
    } else {
      // libtiff's RGBA reader: gray stays gray, anything else becomes RGB; alpha when present.
      const bool alpha = extra_count > 0;
      header_.channels = gray ? (alpha ? 2 : 1) : (alpha ? 4 : 3);
      header_.bits = 8;
      header_.note = "converted to 8-bit " + std::string(channels_name(header_.channels)) +
                     " by libtiff (" + std::to_string(bps) + "-bit, photometric " +
                     std::to_string(photometric) + ")";
    }
    return true;
  }

  bool decode(int reduce, Image* image, std::string* error) override {
    if (reduce != 1) {
      *error = "cannot decode " + quote_path(path_) + " (TIFF) at a reduced size";
      return false;
    }
    tiff_error.clear();
    const bool ok = native_ ? decode_native(image) : decode_rgba(image);
    if (!ok) {
      *error = "cannot decode " + quote_path(path_) + " (TIFF): " + take_error("corrupt data");
      return false;
    }
    if (invert_ && native_) {
      const int c = image->channels, max = image->max_value();
      for (size_t i = 0; i < image->samples(); i += c) image->set_sample(i, max - image->sample(i));
    }
    if (associated_ && image->has_alpha()) unpremultiply(image);
    image->icc = icc_;
    return true;
  }

 private:
  bool decode_native(Image* image) {
    TIFF* t = tif_.get();
    const int c = header_.channels, sample_bytes = header_.bits / 8;
    image->allocate(header_.width, header_.height, c, header_.bits);
    const size_t row_bytes = static_cast<size_t>(header_.width) * c * sample_bytes;
    const int planes = planar_ ? c : 1;
    const size_t plane_pixel_bytes = static_cast<size_t>(planar_ ? 1 : c) * sample_bytes;
    if (TIFFIsTiled(t)) {
      uint32_t tw = 0, th = 0;
      TIFFGetField(t, TIFFTAG_TILEWIDTH, &tw);
      TIFFGetField(t, TIFFTAG_TILELENGTH, &th);
      if (tw == 0 || th == 0) return false;
      std::vector<uint8_t> tile(static_cast<size_t>(TIFFTileSize(t)));
      for (int plane = 0; plane < planes; ++plane) {
        for (uint32_t y0 = 0; y0 < static_cast<uint32_t>(header_.height); y0 += th) {
          for (uint32_t x0 = 0; x0 < static_cast<uint32_t>(header_.width); x0 += tw) {
            const uint32_t index = TIFFComputeTile(t, x0, y0, 0, static_cast<uint16_t>(plane));
            if (TIFFReadEncodedTile(t, index, tile.data(), static_cast<tmsize_t>(tile.size())) <
                0) {
              return false;
            }
            const uint32_t rows = std::min<uint32_t>(th, header_.height - y0);
            const uint32_t cols = std::min<uint32_t>(tw, header_.width - x0);
            for (uint32_t r = 0; r < rows; ++r) {
              const uint8_t* src = tile.data() + r * tw * plane_pixel_bytes;
              uint8_t* dst = image->data.data() + (y0 + r) * row_bytes +
                             static_cast<size_t>(x0) * c * sample_bytes;
              scatter(src, dst, cols, plane, c, sample_bytes);
            }
          }
        }
      }
      return true;
    }
    uint32_t rows_per_strip = 0;
    TIFFGetFieldDefaulted(t, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
    rows_per_strip = std::min<uint32_t>(std::max<uint32_t>(rows_per_strip, 1), header_.height);
    std::vector<uint8_t> strip;
    if (planar_) strip.resize(static_cast<size_t>(TIFFStripSize(t)));
    for (int plane = 0; plane < planes; ++plane) {
      for (uint32_t y0 = 0; y0 < static_cast<uint32_t>(header_.height); y0 += rows_per_strip) {
        const uint32_t rows = std::min<uint32_t>(rows_per_strip, header_.height - y0);
        const uint32_t index = TIFFComputeStrip(t, y0, static_cast<uint16_t>(plane));
        uint8_t* dst = image->data.data() + y0 * row_bytes;
        if (!planar_) {  // straight into the image
          if (TIFFReadEncodedStrip(t, index, dst, static_cast<tmsize_t>(rows * row_bytes)) < 0) {
            return false;
          }
          continue;
        }
        const size_t plane_row = static_cast<size_t>(header_.width) * sample_bytes;
        if (TIFFReadEncodedStrip(t, index, strip.data(), static_cast<tmsize_t>(rows * plane_row)) <
            0) {
          return false;
        }
        for (uint32_t r = 0; r < rows; ++r) {
          scatter(strip.data() + r * plane_row, dst + r * row_bytes, header_.width, plane, c,
                  sample_bytes);
        }
      }
    }
    return true;
  }

  // One row of `cols` pixels from a tile or strip to the interleaved image row `dst`: whole
  // pixels when the file is contiguous, else the samples of channel `plane`.
  void scatter(const uint8_t* src, uint8_t* dst, uint32_t cols, int plane, int c,
               int sample_bytes) const {
    if (!planar_) {
      std::memcpy(dst, src, static_cast<size_t>(cols) * c * sample_bytes);
      return;
    }
    for (uint32_t x = 0; x < cols; ++x) {
      std::memcpy(dst + (static_cast<size_t>(x) * c + plane) * sample_bytes,
                  src + static_cast<size_t>(x) * sample_bytes, sample_bytes);
    }
  }

  bool decode_rgba(Image* image) {
    const size_t pixels = static_cast<size_t>(header_.width) * header_.height;
    std::vector<uint32_t> raster(pixels);
    uint16_t orientation = 1;
    TIFFGetFieldDefaulted(tif_.get(), TIFFTAG_ORIENTATION, &orientation);
    // Asking for the file's own orientation keeps the stored row order (no flip);
    // apply_orientation turns the result upright like the native path.
    if (!TIFFReadRGBAImageOriented(tif_.get(), header_.width, header_.height, raster.data(),
                                   orientation, 0)) {
      return false;
    }
    const int c = header_.channels;
    image->allocate(header_.width, header_.height, c, 8);
    uint8_t* dst = image->data.data();
    for (size_t p = 0; p < pixels; ++p, dst += c) {
      const uint32_t v = raster[p];
      if (c <= 2) {
        dst[0] = static_cast<uint8_t>(TIFFGetR(v));
      } else {
        dst[0] = static_cast<uint8_t>(TIFFGetR(v));
        dst[1] = static_cast<uint8_t>(TIFFGetG(v));
        dst[2] = static_cast<uint8_t>(TIFFGetB(v));
      }
      if (c == 2 || c == 4) dst[c - 1] = static_cast<uint8_t>(TIFFGetA(v));
    }
    // libtiff's RGBA reader premultiplies colour by alpha.
    associated_ = true;
    return true;
  }

  TiffPtr tif_;
  std::vector<uint8_t> icc_;
  bool native_ = false;
  bool planar_ = false;
  bool invert_ = false;
  bool associated_ = false;
};

}  // namespace

std::unique_ptr<ImageSource> open_tiff(const std::string& path, std::string* error) {
  install_handlers();
  tiff_error.clear();
  TiffPtr tif(TIFFOpen(path.c_str(), "r"));
  if (!tif) {
    *error = "cannot decode " + quote_path(path) + " (TIFF): " + take_error("not a readable TIFF");
    return nullptr;
  }
  auto source = std::make_unique<TiffSource>(path, std::move(tif));
  if (!source->open(error)) return nullptr;
  tiff_error.clear();
  return source;
}

bool encode_tiff(const Image& image, const std::vector<uint8_t>& icc, int deflate_level,
                 std::FILE* file, std::string* error) {
  install_handlers();
  tiff_error.clear();
  const int fd = ::dup(fileno(file));
  if (fd < 0) {
    *error = std::strerror(errno);
    return false;
  }
  TiffPtr tif(TIFFFdOpen(fd, "output", "w"));
  if (!tif) {
    ::close(fd);
    *error = take_error("libtiff cannot open the file for writing");
    return false;
  }
  TIFF* t = tif.get();
  const int c = image.channels;
  TIFFSetField(t, TIFFTAG_IMAGEWIDTH, static_cast<uint32_t>(image.width));
  TIFFSetField(t, TIFFTAG_IMAGELENGTH, static_cast<uint32_t>(image.height));
  TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, static_cast<uint16_t>(c));
  TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, static_cast<uint16_t>(image.bits));
  TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT);
  TIFFSetField(t, TIFFTAG_PHOTOMETRIC, c <= 2 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB);
  TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(t, TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT);
  TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
  TIFFSetField(t, TIFFTAG_ZIPQUALITY, deflate_level);
  TIFFSetField(t, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
  if (image.has_alpha()) {
    const uint16_t extra = EXTRASAMPLE_UNASSALPHA;
    TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, &extra);
  }
  if (!icc.empty()) {
    TIFFSetField(t, TIFFTAG_ICCPROFILE, static_cast<uint32_t>(icc.size()), icc.data());
  }
  const uint32_t rows_per_strip = TIFFDefaultStripSize(t, 0);
  TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, rows_per_strip);
  const size_t row_bytes = image.bytes() / static_cast<size_t>(image.height);
  // The predictor differences its input in place: each strip is copied first.
  std::vector<uint8_t> strip(row_bytes * rows_per_strip);
  for (uint32_t y0 = 0, index = 0; y0 < static_cast<uint32_t>(image.height);
       y0 += rows_per_strip, ++index) {
    const uint32_t rows = std::min<uint32_t>(rows_per_strip, image.height - y0);
    const size_t n = rows * row_bytes;
    std::memcpy(strip.data(), image.data.data() + y0 * row_bytes, n);
    if (TIFFWriteEncodedStrip(t, index, strip.data(), static_cast<tmsize_t>(n)) < 0) {
      *error = take_error("libtiff cannot write a strip");
      return false;
    }
  }
  if (!TIFFWriteDirectory(t)) {
    *error = take_error("libtiff cannot write the directory");
    return false;
  }
  tif.reset();  // TIFFClose: flushes and closes the duplicated descriptor
  if (!tiff_error.empty()) {
    *error = take_error("");
    return false;
  }
  return true;
}

}  // namespace upsample::cli
