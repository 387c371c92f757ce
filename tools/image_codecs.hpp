// The codecs behind tools/image_io.hpp, one file per format, two for PNG: image_png.cpp
// (libpng and ISA-L) and image_png_write.cpp (libdeflate), image_jpeg.cpp (libjpeg-turbo's
// TurboJPEG API and a reader of the JPEG markers), image_webp.cpp (libwebp, its demux and mux
// libraries), image_tiff.cpp (libtiff); and the EXIF orientation reader they share
// (image_io.cpp).
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "image_io.hpp"

namespace upsample::cli {

// Openers: the header is read here; decode() later. `file` / `bytes` become the source's own.
// Each returns null with a one-line `error` naming the file on failure.
std::unique_ptr<ImageSource> open_png(const std::string& path, std::FILE* file, std::string* error);
std::unique_ptr<ImageSource> open_jpeg(const std::string& path, SampleBuffer bytes,
                                       std::string* error);
std::unique_ptr<ImageSource> open_webp(const std::string& path, SampleBuffer bytes,
                                       std::string* error);
std::unique_ptr<ImageSource> open_tiff(const std::string& path, std::string* error);

// Encoders: `image` into the open temporary file `file` (positioned at 0). `icc` is the profile
// to embed (empty: none). Return false with the reason (without the file name) in `error`.
// encode_png compresses on up to `threads` threads (tools/image_png_write.cpp).
bool encode_png(const Image& image, const std::vector<uint8_t>& icc, int level, int threads,
                std::FILE* file, std::string* error);
bool encode_jpeg(const Image& image, const std::vector<uint8_t>& icc, int quality, std::FILE* file,
                 std::string* error);
bool encode_webp(const Image& image, const std::vector<uint8_t>& icc, int quality, bool lossless,
                 std::FILE* file, std::string* error);
bool encode_tiff(const Image& image, const std::vector<uint8_t>& icc, int deflate_level,
                 std::FILE* file, std::string* error);

// The orientation (1-8) in an EXIF block: the TIFF structure that follows "Exif\0\0" in a JPEG
// APP1 segment, or the whole payload of a PNG eXIf / WebP EXIF chunk (a leading "Exif\0\0" is
// skipped). 1 when the block has no valid orientation tag.
int exif_orientation(const uint8_t* data, size_t size);

// Whether an ICC profile's colour space (header bytes 16-19) fits `channels`: 'GRAY' for gray
// (+ alpha), 'RGB ' for RGB(A).
bool icc_fits(const std::vector<uint8_t>& icc, int channels);

}  // namespace upsample::cli
