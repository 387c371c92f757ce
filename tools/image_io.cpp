#include "image_io.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "core/dtype.hpp"
#include "image_codecs.hpp"
#include "image_temp_files.hpp"

namespace upsample::cli {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string extension_of(const std::string& path) {
  const size_t dot = path.rfind('.');
  const size_t slash = path.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return lower(path.substr(dot + 1));
}

enum class Sniffed { kPng, kJpeg, kWebp, kTiff, kBmp, kGif, kUnknown };

Sniffed sniff(const unsigned char* head, size_t n) {
  if (n >= 8 && std::memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0) return Sniffed::kPng;
  if (n >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF) return Sniffed::kJpeg;
  if (n >= 12 && std::memcmp(head, "RIFF", 4) == 0 && std::memcmp(head + 8, "WEBP", 4) == 0) {
    return Sniffed::kWebp;
  }
  if (n >= 4 && (std::memcmp(head, "II*\0", 4) == 0 || std::memcmp(head, "MM\0*", 4) == 0 ||
                 std::memcmp(head, "II+\0", 4) == 0 || std::memcmp(head, "MM\0+", 4) == 0)) {
    return Sniffed::kTiff;
  }
  if (n >= 2 && head[0] == 'B' && head[1] == 'M') return Sniffed::kBmp;
  if (n >= 4 && std::memcmp(head, "GIF8", 4) == 0) return Sniffed::kGif;
  return Sniffed::kUnknown;
}

bool read_all(std::FILE* file, size_t size, SampleBuffer* bytes) {
  bytes->resize(size);
  return std::fread(bytes->data(), 1, size, file) == size;
}

// ---------------------------------------------------------------------------------------------
// Orientation.

// Copies pixel (sx, sy) of `src` to (dx, dy) of `dst` for every display pixel of a transposing
// orientation (5-8), in 64 x 64 blocks so that reads and writes both stay in cache.
template <size_t kPixelBytes>
void transpose_pixels(const Image& src, Image* dst, int orientation) {
  const int w = src.width, h = src.height;  // stored
  const int dw = dst->width, dh = dst->height;
  const uint8_t* s = src.data.data();
  uint8_t* d = dst->data.data();
  constexpr int kBlock = 64;
  for (int y0 = 0; y0 < dh; y0 += kBlock) {
    for (int x0 = 0; x0 < dw; x0 += kBlock) {
      const int y1 = std::min(dh, y0 + kBlock), x1 = std::min(dw, x0 + kBlock);
      for (int y = y0; y < y1; ++y) {
        for (int x = x0; x < x1; ++x) {
          int sx = 0, sy = 0;
          switch (orientation) {
            case 5:
              sx = y;
              sy = x;
              break;  // transpose
            case 6:
              sx = y;
              sy = h - 1 - x;
              break;  // rotate 90 clockwise
            case 7:
              sx = w - 1 - y;
              sy = h - 1 - x;
              break;  // transverse
            default:
              sx = w - 1 - y;
              sy = x;
              break;  // 8: rotate 90 counter-clockwise
          }
          std::memcpy(d + (static_cast<size_t>(y) * dw + x) * kPixelBytes,
                      s + (static_cast<size_t>(sy) * w + sx) * kPixelBytes, kPixelBytes);
        }
      }
    }
  }
}

void mirror_rows(Image* image) {
  const size_t pb = image->bytes() / image->samples() * image->channels;
  const size_t row = pb * image->width;
  uint8_t tmp[8];
  for (int y = 0; y < image->height; ++y) {
    uint8_t* r = image->data.data() + y * row;
    for (int a = 0, b = image->width - 1; a < b; ++a, --b) {
      std::memcpy(tmp, r + a * pb, pb);
      std::memcpy(r + a * pb, r + b * pb, pb);
      std::memcpy(r + b * pb, tmp, pb);
    }
  }
}

void flip_rows(Image* image) {
  const size_t row = image->bytes() / image->height;
  std::vector<uint8_t> tmp(row);
  for (int a = 0, b = image->height - 1; a < b; ++a, --b) {
    uint8_t* ra = image->data.data() + a * row;
    uint8_t* rb = image->data.data() + b * row;
    std::memcpy(tmp.data(), ra, row);
    std::memcpy(ra, rb, row);
    std::memcpy(rb, tmp.data(), row);
  }
}

// ---------------------------------------------------------------------------------------------
// Resampling.

bool mixes_pixels(Mode mode) {
  return mode == Mode::kLinear || mode == Mode::kCubic || mode == Mode::kArea;
}

bool premultiplies(int channels, const ResampleSpec& spec) {
  return spec.premultiply_alpha && (channels == 2 || channels == 4) && mixes_pixels(spec.mode);
}

bool is_integer(DType dtype) { return dtype == DType::kUInt8 || dtype == DType::kUInt16; }

bool plan_resample(int in_w, int in_h, int c, int out_w, int out_h, DType dtype,
                   const ResampleSpec& spec, Plan* plan, std::string* error) {
  OpDesc op;
  op.mode = spec.mode;
  op.direction = Direction::kForward;
  op.align_corners = spec.align_corners;
  op.antialias = spec.antialias;
  op.spatial_rank = 2;
  // Area mode takes its ratio from the sizes (F.interpolate does not pass scale_factor to
  // adaptive average pooling).
  if (spec.mode != Mode::kArea) op.scales = {spec.scale_y, spec.scale_x, 0.0};
  // Alpha: the library resamples colour premultiplied, in its kernels (docs/numerics.md).
  op.premultiplied_alpha = premultiplies(c, spec);
  const TensorDesc src = TensorDesc::channels_last(dtype, {1, c, in_h, in_w});
  const TensorDesc dst = TensorDesc::channels_last(dtype, {1, c, out_h, out_w});
  if (const Status st = make_plan(op, src, dst, plan); !st.ok()) {
    *error = st.message;
    return false;
  }
  return true;
}

// Runs `plan` with `workspace` (grown to the plan's size when smaller).
bool run_plan(const Plan& plan, const void* src, void* dst, int threads, SampleBuffer* workspace,
              std::string* error) {
  if (workspace->size() < plan.workspace_bytes()) {
    SampleBuffer fresh(plan.workspace_bytes());
    workspace->swap(fresh);
  }
  ExecContext ctx;
  ctx.num_threads = threads;
  const Status st = execute(plan, src, dst, workspace->data(), workspace->size(), ctx);
  if (!st.ok()) *error = st.message;
  return st.ok();
}

// Round half to even and saturate to [0, max]; NaN -> 0.
int round_saturate(double v, int max) {
  if (!(v > 0.0)) return 0;
  if (v >= max) return max;
  return static_cast<int>(std::nearbyint(v));
}

// The samples of `in` converted to `dtype`, resampled by `plan` (premultiplied, when the plan
// says so, by the library), and converted back to integer samples in `out`: the path of the
// float tensor dtypes.
bool resample_through_float(const Image& in, const Plan& plan, DType dtype, int threads,
                            SampleBuffer* workspace, Image* out, std::string* error) {
  const size_t esize = dtype_size(dtype);
  const int max = in.max_value();
  SampleBuffer src_buf(in.samples() * esize), dst_buf(out->samples() * esize);
  for (size_t i = 0; i < in.samples(); ++i) {
    store_element(dtype, src_buf.data() + i * esize, in.sample(i));
  }
  if (!run_plan(plan, src_buf.data(), dst_buf.data(), threads, workspace, error)) return false;
  for (size_t i = 0; i < out->samples(); ++i) {
    out->set_sample(i, round_saturate(load_element(dtype, dst_buf.data() + i * esize), max));
  }
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

std::string quote_path(const std::string& path) { return "'" + path + "'"; }

namespace {

constexpr size_t kHugePage = size_t{2} << 20;

// Mappings start on a huge page and end on a 4 KiB page: the whole 2 MiB pieces get huge pages,
// the tail small ones, so no memory is spent on rounding up.
constexpr size_t kPage = 4096;
size_t mapping_length(size_t bytes) { return (bytes + kPage - 1) / kPage * kPage; }

// Large buffers freed recently, kept mapped (and their pages faulted in) for the next file of a
// folder run, and the length of every large buffer handed out.
struct BufferCache {
  static constexpr size_t kMaxBytes = size_t{256} << 20;
  static constexpr size_t kMaxBlocks = 16;
  std::mutex mutex;
  std::vector<std::pair<void*, size_t>> free_blocks;  // oldest first
  std::unordered_map<void*, size_t> live;
  size_t free_bytes = 0;
};

BufferCache& buffer_cache() {
  static BufferCache* cache = new BufferCache;  // never destroyed: used until exit
  return *cache;
}

void* map_huge(size_t length) {
  // Map one huge page more than needed, and unmap the unaligned head and the tail.
  void* p = ::mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<uintptr_t>(p);
  const uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > start) ::munmap(p, aligned - start);
  const uintptr_t end = start + length + kHugePage;
  if (end > aligned + length) {
    ::munmap(reinterpret_cast<void*>(aligned + length), end - (aligned + length));
  }
  ::madvise(reinterpret_cast<void*>(aligned), length, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

}  // namespace

void* allocate_buffer(size_t bytes) {
  if (bytes < kLargeBuffer) return ::operator new(std::max<size_t>(bytes, 1));
  const size_t length = mapping_length(bytes);
  BufferCache& cache = buffer_cache();
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    // The smallest cached block that fits without wasting more than half of it.
    size_t best = cache.free_blocks.size();
    for (size_t i = 0; i < cache.free_blocks.size(); ++i) {
      const size_t have = cache.free_blocks[i].second;
      if (have >= length && have <= 2 * length &&
          (best == cache.free_blocks.size() || have < cache.free_blocks[best].second)) {
        best = i;
      }
    }
    if (best < cache.free_blocks.size()) {
      const auto [p, have] = cache.free_blocks[best];
      cache.free_blocks.erase(cache.free_blocks.begin() + static_cast<std::ptrdiff_t>(best));
      cache.free_bytes -= have;
      cache.live[p] = have;
      return p;
    }
  }
  void* p = map_huge(length);
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.live[p] = length;
  return p;
}

void free_buffer(void* p, size_t bytes) {
  if (p == nullptr) return;
  if (bytes < kLargeBuffer) {
    ::operator delete(p);
    return;
  }
  BufferCache& cache = buffer_cache();
  std::vector<std::pair<void*, size_t>> evicted;
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    const auto it = cache.live.find(p);
    const size_t length = it != cache.live.end() ? it->second : mapping_length(bytes);
    if (it != cache.live.end()) cache.live.erase(it);
    cache.free_blocks.emplace_back(p, length);
    cache.free_bytes += length;
    while (cache.free_bytes > BufferCache::kMaxBytes ||
           cache.free_blocks.size() > BufferCache::kMaxBlocks) {
      evicted.push_back(cache.free_blocks.front());
      cache.free_bytes -= cache.free_blocks.front().second;
      cache.free_blocks.erase(cache.free_blocks.begin());
    }
  }
  for (const auto& [q, length] : evicted) ::munmap(q, length);
}

void prefault_buffer(void* p, size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  if (p != nullptr && bytes >= kLargeBuffer)
    ::madvise(p, mapping_length(bytes), MADV_POPULATE_WRITE);
#else
  (void)p;
  (void)bytes;
#endif
}

int exif_orientation(const uint8_t* data, size_t size) {
  if (size >= 6 && std::memcmp(data, "Exif\0\0", 6) == 0) {
    data += 6;
    size -= 6;
  }
  if (size < 8) return 1;
  const bool little = data[0] == 'I' && data[1] == 'I';
  if (!little && !(data[0] == 'M' && data[1] == 'M')) return 1;
  const auto u16 = [&](size_t at) -> uint32_t {
    return little ? data[at] | (data[at + 1] << 8) : (data[at] << 8) | data[at + 1];
  };
  const auto u32 = [&](size_t at) -> uint32_t {
    return little ? u16(at) | (u16(at + 2) << 16) : (u16(at) << 16) | u16(at + 2);
  };
  if (u16(2) != 42) return 1;
  const size_t ifd = u32(4);
  if (ifd > size || size - ifd < 2) return 1;
  const size_t count = u16(ifd);
  for (size_t i = 0; i < count; ++i) {
    const size_t entry = ifd + 2 + 12 * i;
    if (entry + 12 > size) break;
    if (u16(entry) == 0x0112 && u16(entry + 2) == 3 /* SHORT */ && u32(entry + 4) >= 1) {
      const uint32_t v = u16(entry + 8);
      return v >= 1 && v <= 8 ? static_cast<int>(v) : 1;
    }
  }
  return 1;
}

bool icc_fits(const std::vector<uint8_t>& icc, int channels) {
  if (icc.size() < 128) return false;
  const char* space = reinterpret_cast<const char*>(icc.data() + 16);
  return channels <= 2 ? std::memcmp(space, "GRAY", 4) == 0 : std::memcmp(space, "RGB ", 4) == 0;
}

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
  image.allocate(width, height, channels, bits);
  std::fill(image.data.begin(), image.data.end(), 0);
  return image;
}

void Image::allocate(int w, int h, int c, int b) {
  width = w;
  height = h;
  channels = c;
  bits = b;
  if (data.size() != bytes()) {
    SampleBuffer fresh(bytes());
    data.swap(fresh);
  }
}

const char* channels_name(int channels) {
  switch (channels) {
    case 1:
      return "gray";
    case 2:
      return "gray + alpha";
    case 3:
      return "RGB";
    case 4:
      return "RGBA";
    default:
      return "?";
  }
}

std::optional<ImageFormat> format_from_path(const std::string& path) {
  return format_from_name(extension_of(path));
}

namespace {

// Per format, in ImageFormat's order: its name, its usual extension and another one.
struct FormatNames {
  ImageFormat format;
  const char* name;
  const char* extension;
  const char* alias;
};
constexpr FormatNames kFormats[] = {{ImageFormat::kPng, "PNG", "png", "png"},
                                    {ImageFormat::kJpeg, "JPEG", "jpg", "jpeg"},
                                    {ImageFormat::kWebp, "WebP", "webp", "webp"},
                                    {ImageFormat::kTiff, "TIFF", "tif", "tiff"}};

}  // namespace

std::optional<ImageFormat> format_from_name(const std::string& name) {
  const std::string ext = lower(name);
  for (const FormatNames& f : kFormats) {
    if (ext == f.extension || ext == f.alias) return f.format;
  }
  return {};
}

const char* format_name(ImageFormat format) { return kFormats[static_cast<int>(format)].name; }

const char* format_extension(ImageFormat format) {
  return kFormats[static_cast<int>(format)].extension;
}

void ImageSource::reduced_size(int reduce, int* width, int* height) const {
  (void)reduce;
  *width = header_.width;
  *height = header_.height;
}

std::unique_ptr<ImageSource> open_image(const std::string& path, std::string* error) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    *error = "cannot open " + quote_path(path) + ": " + std::strerror(errno);
    return nullptr;
  }
  if (S_ISDIR(st.st_mode)) {
    *error = "cannot read " + quote_path(path) + ": it is a directory";
    return nullptr;
  }
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    *error = "cannot open " + quote_path(path) + ": " + std::strerror(errno);
    return nullptr;
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> owned(file, &std::fclose);
  unsigned char head[16] = {};
  const size_t head_n = std::fread(head, 1, sizeof head, file);
  if (head_n == 0) {
    *error = quote_path(path) + " is empty, not an image";
    return nullptr;
  }
  std::rewind(file);
  const size_t size = static_cast<size_t>(st.st_size);
  SampleBuffer bytes;
  switch (sniff(head, head_n)) {
    case Sniffed::kPng:
      return open_png(path, owned.release(), error);
    case Sniffed::kJpeg:
      if (!read_all(file, size, &bytes)) break;
      return open_jpeg(path, std::move(bytes), error);
    case Sniffed::kWebp:
      if (!read_all(file, size, &bytes)) break;
      return open_webp(path, std::move(bytes), error);
    case Sniffed::kTiff:
      owned.reset();
      return open_tiff(path, error);
    case Sniffed::kBmp:
    case Sniffed::kGif:
      *error = quote_path(path) + " is a " +
               (sniff(head, head_n) == Sniffed::kBmp ? "BMP" : "GIF") +
               " image: upsample reads PNG, JPEG, WebP and TIFF";
      return nullptr;
    case Sniffed::kUnknown:
      *error = quote_path(path) + " is not a PNG, JPEG, WebP or TIFF image";
      return nullptr;
  }
  *error = "cannot read " + quote_path(path) + ": " +
           (std::ferror(file) ? std::strerror(errno) : "the file changed while being read");
  return nullptr;
}

void oriented_size(int width, int height, int orientation, int* out_width, int* out_height) {
  const bool swap = orientation >= 5 && orientation <= 8;
  *out_width = swap ? height : width;
  *out_height = swap ? width : height;
}

void apply_orientation(Image* image, int orientation) {
  switch (orientation) {
    case 2:
      mirror_rows(image);
      return;
    case 3:
      mirror_rows(image);
      flip_rows(image);
      return;
    case 4:
      flip_rows(image);
      return;
    case 5:
    case 6:
    case 7:
    case 8:
      break;
    default:
      return;
  }
  Image turned;
  turned.allocate(image->height, image->width, image->channels, image->bits);
  switch (image->bytes() / (static_cast<size_t>(image->width) * image->height)) {
    case 1:
      transpose_pixels<1>(*image, &turned, orientation);
      break;
    case 2:
      transpose_pixels<2>(*image, &turned, orientation);
      break;
    case 3:
      transpose_pixels<3>(*image, &turned, orientation);
      break;
    case 4:
      transpose_pixels<4>(*image, &turned, orientation);
      break;
    case 6:
      transpose_pixels<6>(*image, &turned, orientation);
      break;
    default:
      transpose_pixels<8>(*image, &turned, orientation);
      break;
  }
  turned.icc = std::move(image->icc);
  *image = std::move(turned);
}

bool read_image(const std::string& path, const ReadOptions& options, Image* image,
                std::string* error) {
  std::unique_ptr<ImageSource> source = open_image(path, error);
  if (!source) return false;
  const int reduce = source->can_reduce() ? options.reduce : 1;
  if (!source->decode(reduce, image, error)) return false;
  if (options.autorotate) apply_orientation(image, source->header().orientation);
  return true;
}

std::string write_limitation(ImageFormat format, int channels, int bits) {
  if (bits == 16 && format != ImageFormat::kPng && format != ImageFormat::kTiff) {
    return std::string(format_name(format)) +
           " stores 8-bit samples only and the image has 16-bit samples";
  }
  if (format == ImageFormat::kJpeg && (channels == 2 || channels == 4)) {
    return "JPEG has no alpha channel and the image has one";
  }
  return "";
}

bool write_image(const std::string& path, const Image& image, const WriteOptions& options,
                 std::string* error) {
  const std::optional<ImageFormat> format =
      options.format ? options.format : format_from_path(path);
  if (!format) {
    *error = "cannot write " + quote_path(path) +
             ": unknown image format (expected .png, .jpg, .jpeg, .webp, .tif or .tiff)";
    return false;
  }
  if (const std::string why = write_limitation(*format, image.channels, image.bits); !why.empty()) {
    *error = "cannot write " + quote_path(path) + ": " + why;
    return false;
  }
  if (image.width <= 0 || image.height <= 0 || image.channels < 1 || image.channels > 4) {
    *error = "cannot write " + quote_path(path) + ": empty image";
    return false;
  }
  if (*format == ImageFormat::kWebp && (image.width > 16383 || image.height > 16383)) {
    *error = "cannot write " + quote_path(path) +
             ": WebP images are at most 16383 pixels a side, " + "this one is " +
             std::to_string(image.width) + "x" + std::to_string(image.height);
    return false;
  }
  const std::vector<uint8_t> none;
  const std::vector<uint8_t>& icc = icc_fits(image.icc, image.channels) ? image.icc : none;

  TempFile temp;
  if (!temp.create(path, error)) return false;
  std::string why;
  bool ok = false;
  switch (*format) {
    case ImageFormat::kPng:
      ok = encode_png(image, icc, options.png_level,
                      options.threads > 0 ? options.threads : default_num_threads(), temp.file(),
                      &why);
      break;
    case ImageFormat::kJpeg:
      ok =
          encode_jpeg(image, icc, options.quality.value_or(kDefaultJpegQuality), temp.file(), &why);
      break;
    case ImageFormat::kWebp:
      ok = encode_webp(image, icc, options.quality.value_or(kDefaultWebpQuality),
                       options.webp_lossless, temp.file(), &why);
      break;
    case ImageFormat::kTiff:
      ok = encode_tiff(image, icc, options.png_level, temp.file(), &why);
      break;
  }
  if (!ok) {
    *error = "cannot write " + quote_path(path) + ": " + why;
    return false;  // ~TempFile removes the temporary file
  }
  return temp.commit(error);
}

Image convert_depth(const Image& image, int bits) {
  if (image.bits == bits) return image;
  Image out = Image::blank(image.width, image.height, image.channels, bits);
  for (size_t i = 0; i < image.samples(); ++i) {
    const int v = image.sample(i);
    // 16 -> 8: round(v / 257), ties (never exact: 257 is odd) cannot occur.
    out.set_sample(i, bits == 8 ? (v + 128) / 257 : v * 257);
  }
  out.icc = image.icc;
  return out;
}

std::string resample_limitation(int bits, const ResampleSpec& spec) {
  const bool nearest = !mixes_pixels(spec.mode);
  if ((nearest || spec.mode == Mode::kArea) && spec.align_corners) {
    return std::string("align_corners is only defined for bilinear and bicubic, not for ") +
           mode_name(spec.mode);
  }
  if ((nearest || spec.mode == Mode::kArea) && spec.antialias) {
    return std::string("antialias is only defined for bilinear and bicubic, not for ") +
           mode_name(spec.mode);
  }
  if (!spec.dtype) return "";
  const DType dtype = *spec.dtype;
  if (dtype == DType::kUInt8 && bits == 16) {
    return "dtype uint8 cannot hold the 16-bit samples of this image (uint16 is their type)";
  }
  if (dtype == DType::kUInt16 && bits == 8) {
    return "dtype uint16 is the type of 16-bit samples and this image has 8-bit samples (uint8 "
           "is their type)";
  }
  if (dtype == DType::kFloat16 && bits == 16) {
    return "dtype float16 cannot hold 16-bit samples (its largest value is 65504); use "
           "float32, bfloat16 or float64";
  }
  return "";
}

DType resample_dtype(int bits, const ResampleSpec& spec) {
  if (spec.dtype) return *spec.dtype;
  return bits == 16 ? DType::kUInt16 : DType::kUInt8;
}

bool resample_buffer_bytes(int in_width, int in_height, int channels, int bits, int out_width,
                           int out_height, const ResampleSpec& spec, size_t* workspace_bytes,
                           size_t* float_bytes, std::string* error) {
  const DType dtype = resample_dtype(bits, spec);
  Plan plan;
  if (!plan_resample(in_width, in_height, channels, out_width, out_height, dtype, spec, &plan,
                     error)) {
    return false;
  }
  *workspace_bytes = plan.workspace_bytes();
  *float_bytes = 0;
  if (!is_integer(dtype)) {
    const size_t samples =
        (static_cast<size_t>(in_width) * in_height + static_cast<size_t>(out_width) * out_height) *
        channels;
    *float_bytes = samples * dtype_size(dtype);
  }
  return true;
}

bool resample_image(const Image& in, int out_width, int out_height, const ResampleSpec& spec,
                    Image* out, std::string* error, SampleBuffer* workspace) {
  if (const std::string why = resample_limitation(in.bits, spec); !why.empty()) {
    *error = why;
    return false;
  }
  const DType dtype = resample_dtype(in.bits, spec);
  Plan plan;
  if (!plan_resample(in.width, in.height, in.channels, out_width, out_height, dtype, spec, &plan,
                     error)) {
    return false;
  }
  SampleBuffer own_workspace;
  if (workspace == nullptr) workspace = &own_workspace;
  out->allocate(out_width, out_height, in.channels, in.bits);
  out->icc = in.icc;
  if (is_integer(dtype)) {  // the library reads and writes the samples themselves
    return run_plan(plan, in.data.data(), out->data.data(), spec.threads, workspace, error);
  }
  return resample_through_float(in, plan, dtype, spec.threads, workspace, out, error);
}

}  // namespace upsample::cli
