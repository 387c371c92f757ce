// Images for `upsample resize` and `upsample demo`: PNG, JPEG, WebP and TIFF files decoded and
// encoded by the system codecs (libpng with ISA-L and libdeflate, libjpeg-turbo's TurboJPEG API,
// libwebp, libtiff; tools/image_{png,png_write,jpeg,webp,tiff}.cpp), EXIF orientation, ICC
// profiles, files written atomically (a temporary file renamed on success), and resampling an
// image with the library (the samples as a channels-last [1, C, H, W] tensor).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "upsample/resample.hpp"

namespace upsample::cli {

// "'path'": how every message names a file.
std::string quote_path(const std::string& path);

enum class ImageFormat { kPng, kJpeg, kWebp, kTiff };

// From the file name's extension (.png, .jpg/.jpeg, .webp, .tif/.tiff; case-insensitive).
std::optional<ImageFormat> format_from_path(const std::string& path);
// From a format name as `--format` takes it (png, jpeg/jpg, webp, tiff/tif; case-insensitive).
std::optional<ImageFormat> format_from_name(const std::string& name);
const char* format_name(ImageFormat format);       // "PNG", "JPEG", "WebP", "TIFF"
const char* format_extension(ImageFormat format);  // "png", "jpg", "webp", "tif"

// Memory for the large buffers of an image's trip (the file's bytes, the decoded samples, the
// library's workspace, the result). From kLargeBuffer bytes up: whole 2 MiB-aligned mappings
// advised as transparent huge pages (MADV_HUGEPAGE), so that first touching them costs one page
// fault per 2 MiB rather than per 4 KiB; freed ones are kept (up to 256 MiB) and handed out
// again, their pages already there, to the next file of a folder run. Smaller buffers come from
// operator new. Throws std::bad_alloc when out of memory.
inline constexpr size_t kLargeBuffer = size_t{1} << 20;
void* allocate_buffer(size_t bytes);
void free_buffer(void* p, size_t bytes);
// Faults in the pages of a large buffer without writing to it (MADV_POPULATE_WRITE), so that a
// thread can prepare a buffer while another one fills it; nothing for small buffers or on
// kernels without it.
void prefault_buffer(void* p, size_t bytes);

// The allocator of SampleBuffer: allocate_buffer's memory, and new elements left uninitialised
// (default-initialised), so that a decoder's destination is not zero-filled before the decoder
// writes every byte of it.
template <class T>
struct BufferAllocator {
  using value_type = T;
  BufferAllocator() = default;
  template <class U>
  BufferAllocator(const BufferAllocator<U>&) noexcept {}
  T* allocate(size_t n) { return static_cast<T*>(allocate_buffer(n * sizeof(T))); }
  void deallocate(T* p, size_t n) noexcept { free_buffer(p, n * sizeof(T)); }
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <class U>
  bool operator==(const BufferAllocator<U>&) const noexcept {
    return true;
  }
};
using SampleBuffer = std::vector<uint8_t, BufferAllocator<uint8_t>>;

struct Image {
  int width = 0;
  int height = 0;
  int channels = 0;  // 1 gray, 2 gray + alpha, 3 RGB, 4 RGBA
  int bits = 8;      // bits per sample: 8 or 16
  // Samples, row-major HWC (interleaved channels). 16-bit samples are native-endian uint16_t
  // (2 bytes each).
  SampleBuffer data;
  // The embedded ICC colour profile, empty when the file has none.
  std::vector<uint8_t> icc;

  bool has_alpha() const { return channels == 2 || channels == 4; }
  int max_value() const { return bits == 16 ? 65535 : 255; }
  size_t samples() const {
    return static_cast<size_t>(width) * static_cast<size_t>(height) * channels;
  }
  size_t bytes() const { return samples() * (bits == 16 ? 2 : 1); }
  // Sample i (0 .. samples()-1) as an integer, whatever the depth.
  int sample(size_t i) const;
  void set_sample(size_t i, int value);
  // An image of the given size, zero-filled.
  static Image blank(int width, int height, int channels, int bits = 8);
  // Sets the size and allocates the samples without initialising them (a decoder's target); the
  // buffer already there is kept when it has exactly the bytes needed.
  void allocate(int width, int height, int channels, int bits);
};

// "RGB", "gray + alpha", ...
const char* channels_name(int channels);

// What a file's header says, before its samples are decoded.
struct ImageHeader {
  ImageFormat format = ImageFormat::kPng;
  int width = 0;  // as stored (before orientation)
  int height = 0;
  int channels = 0;  // of the decoded samples: 1-4
  int bits = 8;      // of the decoded samples: 8 or 16
  // EXIF / TIFF orientation, 1-8: how the stored pixels must be turned to be displayed upright
  // (1: as stored; 5-8 swap width and height).
  int orientation = 1;
  // Extra words for `-v` ("CMYK converted to RGB", "palette expanded"...), may be empty.
  std::string note;
};

// An open image file whose header has been read and whose samples are decoded on demand.
class ImageSource {
 public:
  virtual ~ImageSource() = default;
  const ImageHeader& header() const { return header_; }
  const std::string& path() const { return path_; }
  // Whether decode() takes a reduction of 2, 4 or 8 (JPEG: libjpeg-turbo's DCT scaling).
  virtual bool can_reduce() const { return false; }
  // The stored size that decode(reduce) gives: ceil(size / reduce) for JPEG.
  virtual void reduced_size(int reduce, int* width, int* height) const;
  // Bytes this source holds while open (the compressed file, for JPEG and WebP).
  virtual size_t resident_bytes() const { return 0; }
  // Decodes the samples in stored orientation at 1/reduce scale into `image` (its samples are
  // allocated here and written once by the codec) together with the ICC profile. On failure
  // returns false with a one-line `error` naming the file and the reason.
  virtual bool decode(int reduce, Image* image, std::string* error) = 0;

 protected:
  ImageHeader header_;
  std::string path_;
};

// Opens `path` and reads its header. Returns null with a one-line `error` naming the file and
// saying why (cannot open it, not an image of a supported format, a corrupt header).
std::unique_ptr<ImageSource> open_image(const std::string& path, std::string* error);

// The displayed size of a stored width x height under `orientation` (5-8 swap the axes).
void oriented_size(int width, int height, int orientation, int* out_width, int* out_height);

// Turns `image` (stored orientation) upright according to an EXIF orientation 1-8: 2, 3 and 4
// in place; 5-8 transpose into a new buffer.
void apply_orientation(Image* image, int orientation);

struct ReadOptions {
  bool autorotate = true;  // apply the EXIF / TIFF orientation
  int reduce = 1;          // 1, or 2, 4, 8 for JPEG (DCT scaling)
};

// open_image + decode + apply_orientation.
bool read_image(const std::string& path, const ReadOptions& options, Image* image,
                std::string* error);

struct WriteOptions {
  std::optional<ImageFormat> format;  // default: from the path's extension
  std::optional<int> quality;         // JPEG and lossy WebP, 1-100 (default JPEG 95, WebP 90)
  int png_level = 6;                  // PNG compression level, 0-9 (and TIFF's zlib level)
  bool webp_lossless = false;
  int threads = 0;  // threads of the PNG encoder (0: default_num_threads())
};

inline constexpr int kDefaultJpegQuality = 95;
inline constexpr int kDefaultWebpQuality = 90;

// Why `format` cannot store an image of `channels` and `bits` ("" when it can): JPEG has no
// alpha channel, and only PNG and TIFF store 16-bit samples.
std::string write_limitation(ImageFormat format, int channels, int bits);

// Writes `image` (with its ICC profile, when the profile's colour space matches the channels)
// to `path`: encoded into a temporary file in the same directory, renamed to `path` on success
// and removed on failure, so `path` is either complete or untouched. On failure returns false
// with a one-line `error` naming the file and the reason.
bool write_image(const std::string& path, const Image& image, const WriteOptions& options,
                 std::string* error);

// 16-bit <-> 8-bit sample depth: v8 = round(v16 / 257), v16 = v8 * 257 (exact inverses on the
// 8-bit values).
Image convert_depth(const Image& image, int bits);

struct ResampleSpec {
  Mode mode = Mode::kLinear;
  bool antialias = false;
  bool align_corners = false;
  // The tensor dtype. Unset: the samples' own type (uint8 or uint16: the library reads and
  // writes the image buffers directly, computing in float32 and rounding once at the store).
  // float32, float16, bfloat16, float64: the samples are converted to that dtype and back.
  std::optional<DType> dtype;
  // F.interpolate's scale_factor per axis (out / in), passed to the library; <= 0: not given,
  // the ratio comes from the sizes.
  double scale_x = 0.0;
  double scale_y = 0.0;
  // Resample colour premultiplied by alpha, then divide by the resampled alpha (linear and
  // cubic modes with an alpha channel). false: every channel independently.
  bool premultiply_alpha = true;
  int threads = 0;  // ExecContext::num_threads (0: the library's default)
};

// Why `spec` cannot resample an image of `bits` per sample ("" when it can): an integer dtype
// that is not the samples' own type, float16 on 16-bit samples (65535 overflows float16),
// align_corners or antialias with a nearest mode.
std::string resample_limitation(int bits, const ResampleSpec& spec);

// The tensor dtype `spec` resamples an image of `bits` per sample in.
DType resample_dtype(int bits, const ResampleSpec& spec);

// Memory resample_image needs besides the input and output samples: the library's workspace
// and, on the float path, the converted input and output tensors. Returns false with `error`
// when the library refuses the geometry.
bool resample_buffer_bytes(int in_width, int in_height, int channels, int bits, int out_width,
                           int out_height, const ResampleSpec& spec, size_t* workspace_bytes,
                           size_t* float_bytes, std::string* error);

// Resamples `in` to out_width x out_height (the ICC profile is carried over). The samples
// become the tensor [1, C, H, W] in channels-last memory (TensorDesc::channels_last: exactly
// the image's HWC layout) of resample_dtype(): for uint8 / uint16 the library reads `in` and
// writes `out` directly; for a float dtype the samples go through resample_through_float
// (image_io.cpp). Every result is rounded half to even and saturated to [0, max] (NaN -> 0).
// Images with alpha (2 or 4 channels) are resampled premultiplied by the library
// (OpDesc::premultiplied_alpha) unless the spec asks for straight alpha.
// `out` keeps its buffer when it already has the size of the result, and `workspace` (grown
// when too small; null: a buffer of its own) holds the library's workspace, so that a caller
// can prepare both ahead. Returns false with `error` when the library refuses (the message of
// its Status).
bool resample_image(const Image& in, int out_width, int out_height, const ResampleSpec& spec,
                    Image* out, std::string* error, SampleBuffer* workspace = nullptr);

}  // namespace upsample::cli
