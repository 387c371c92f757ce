// Images for `upsample resize` and `upsample demo`: reading and writing PNG, JPEG, BMP and TGA
// (stb_image / stb_image_write, plus our own 16-bit PNG writer), and resampling an image with
// the library (HWC samples -> an NHWC tensor of the chosen dtype -> make_plan/execute -> back
// to integer samples, rounded half to even and saturated).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "upsample/resample.hpp"

namespace upsample::cli {

enum class ImageFormat { kPng, kJpeg, kBmp, kTga };

// From the file name's extension (.png, .jpg/.jpeg, .bmp, .tga; case-insensitive).
std::optional<ImageFormat> format_from_path(const std::string& path);
const char* format_name(ImageFormat format);  // "PNG", "JPEG", ...

struct Image {
  int width = 0;
  int height = 0;
  int channels = 0;  // 1 gray, 2 gray + alpha, 3 RGB, 4 RGBA
  int bits = 8;      // bits per sample: 8 or 16
  // Samples, row-major HWC (interleaved channels). 16-bit samples are native-endian uint16_t
  // (2 bytes each).
  std::vector<uint8_t> data;

  bool has_alpha() const { return channels == 2 || channels == 4; }
  int max_value() const { return bits == 16 ? 65535 : 255; }
  size_t samples() const {
    return static_cast<size_t>(width) * static_cast<size_t>(height) * channels;
  }
  // Sample i (0 .. samples()-1) as an integer, whatever the depth.
  int sample(size_t i) const;
  void set_sample(size_t i, int value);
  // An image of the given size, zero-filled.
  static Image blank(int width, int height, int channels, int bits = 8);
};

// "RGB", "gray + alpha", ...
const char* channels_name(int channels);

// Reads a PNG, JPEG, BMP or TGA file: 8-bit gray, gray + alpha, RGB or RGBA, or a 16-bit PNG
// (kept at 16 bits). On failure returns false with a one-line `error` that names the file and
// says why (cannot open it, not an image of a supported format, corrupt data).
bool read_image(const std::string& path, Image* image, std::string* error);

// Why `image` cannot be written as `format` ("" when it can): JPEG has no alpha channel, and
// only PNG stores 16-bit samples.
std::string write_limitation(ImageFormat format, int channels, int bits);

// Writes `image` in the format its extension names (see format_from_path). JPEG at
// `jpeg_quality` (1-100). 16-bit images are written as 16-bit PNGs.
bool write_image(const std::string& path, const Image& image, int jpeg_quality,
                 std::string* error);

// 16-bit <-> 8-bit sample depth: v8 = round(v16 / 257), v16 = v8 * 257 (exact inverses on the
// 8-bit values).
Image convert_depth(const Image& image, int bits);

struct ResampleSpec {
  Mode mode = Mode::kLinear;
  bool antialias = false;
  bool align_corners = false;
  // The tensor dtype: float32, float16, bfloat16, float64, or uint8 (nearest modes; the
  // library copies samples bit-exactly).
  DType dtype = DType::kFloat32;
  // F.interpolate's scale_factor per axis (out / in), passed to the library; <= 0: not given,
  // the ratio comes from the sizes.
  double scale_x = 0.0;
  double scale_y = 0.0;
  // Resample colour premultiplied by alpha, then divide by the resampled alpha (linear and
  // cubic modes with an alpha channel). false: every channel independently.
  bool premultiply_alpha = true;
  int threads = 0;  // ExecContext::num_threads (0: the library's default)
};

// Why `spec` cannot resample `image` ("" when it can): uint8 outside the nearest modes or on a
// 16-bit image, float16 on a 16-bit image (65535 overflows float16), align_corners or
// antialias with a nearest mode.
std::string resample_limitation(const Image& image, const ResampleSpec& spec);

// Resamples `in` to out_width x out_height. The samples (0..255 or 0..65535, premultiplied by
// alpha / max when spec.premultiply_alpha applies) become the tensor [1, C, H, W] in
// channels-last memory (TensorDesc::channels_last: exactly the image's HWC layout) of
// spec.dtype; the library resamples it; each result is rounded half to even and saturated to
// [0, max] (NaN -> 0). With premultiplied alpha, a colour sample is c' * max / a' where c' and
// a' are the resampled colour and alpha (0 where a' rounds to 0).
// Returns false with `error` when the library refuses (the message of its Status).
bool resample_image(const Image& in, int out_width, int out_height, const ResampleSpec& spec,
                    Image* out, std::string* error);

}  // namespace upsample::cli
