// JPEG through libjpeg-turbo's TurboJPEG API: decoding (optionally at 1/2, 1/4 or 1/8 scale by
// the DCT scaling of libjpeg-turbo) straight into the image buffer, encoding straight from it;
// the markers TurboJPEG does not expose (EXIF orientation in APP1, the ICC profile in APP2,
// Adobe's CMYK inversion flag in APP14) are read and written here.
#include <turbojpeg.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "image_codecs.hpp"

namespace upsample::cli {
namespace {

constexpr unsigned char kIccSignature[] = "ICC_PROFILE";  // 11 characters and a NUL
constexpr size_t kIccHeader = 14;                         // signature, sequence number, count
constexpr size_t kIccChunk = 65535 - 2 - kIccHeader;      // profile bytes per APP2 segment

struct TjDeleter {
  void operator()(void* handle) const { tjDestroy(handle); }
};
using TjHandle = std::unique_ptr<void, TjDeleter>;

int be16(const uint8_t* p) { return (p[0] << 8) | p[1]; }

// What the markers before the first scan say.
struct Markers {
  int orientation = 1;
  bool adobe = false;  // an Adobe APP14 segment: CMYK is stored inverted
  std::vector<uint8_t> icc;
};

Markers read_markers(const SampleBuffer& data) {
  Markers m;
  bool exif_seen = false;
  std::vector<std::vector<uint8_t>> icc_chunks;
  int icc_count = 0;
  bool icc_valid = true;
  const size_t n = data.size();
  size_t pos = 2;  // after SOI
  while (pos + 4 <= n) {
    if (data[pos] != 0xFF) break;
    const int marker = data[pos + 1];
    if (marker == 0xFF) {  // fill byte
      ++pos;
      continue;
    }
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8)) {  // no length
      pos += 2;
      continue;
    }
    if (marker == 0xDA || marker == 0xD9) break;  // start of scan, end of image
    const size_t length = static_cast<size_t>(be16(&data[pos + 2]));
    if (length < 2 || pos + 2 + length > n) break;
    const uint8_t* payload = &data[pos + 4];
    const size_t size = length - 2;
    if (marker == 0xE1 && !exif_seen && size >= 6 && std::memcmp(payload, "Exif\0\0", 6) == 0) {
      exif_seen = true;
      m.orientation = exif_orientation(payload + 6, size - 6);
    } else if (marker == 0xE2 && size > kIccHeader &&
               std::memcmp(payload, kIccSignature, sizeof kIccSignature) == 0) {
      const int seq = payload[12], count = payload[13];
      if (icc_count == 0) {
        icc_count = count;
        icc_chunks.resize(static_cast<size_t>(count));
      }
      if (count != icc_count || seq < 1 || seq > count || !icc_chunks[seq - 1].empty()) {
        icc_valid = false;
      } else {
        icc_chunks[seq - 1].assign(payload + kIccHeader, payload + size);
      }
    } else if (marker == 0xEE && size >= 5 && std::memcmp(payload, "Adobe", 5) == 0) {
      m.adobe = true;
    }
    pos += 2 + length;
  }
  if (icc_valid && icc_count > 0) {
    for (const auto& chunk : icc_chunks) {
      if (chunk.empty()) return m;  // a missing chunk: the profile is unusable
    }
    for (const auto& chunk : icc_chunks) m.icc.insert(m.icc.end(), chunk.begin(), chunk.end());
  }
  return m;
}

class JpegSource final : public ImageSource {
 public:
  JpegSource(const std::string& path, const ImageHeader& header, SampleBuffer bytes,
             TjHandle handle, bool cmyk, Markers markers)
      : bytes_(std::move(bytes)),
        handle_(std::move(handle)),
        cmyk_(cmyk),
        markers_(std::move(markers)) {
    path_ = path;
    header_ = header;
  }

  bool can_reduce() const override { return true; }

  void reduced_size(int reduce, int* width, int* height) const override {
    const tjscalingfactor f{1, reduce};
    *width = TJSCALED(header_.width, f);
    *height = TJSCALED(header_.height, f);
  }

  size_t resident_bytes() const override { return bytes_.size(); }

  bool decode(int reduce, Image* image, std::string* error) override {
    int w = 0, h = 0;
    reduced_size(reduce, &w, &h);
    const int pixel_format = cmyk_ ? TJPF_CMYK : header_.channels == 1 ? TJPF_GRAY : TJPF_RGB;
    const int flags = TJFLAG_STOPONWARNING;
    if (!cmyk_) {
      image->allocate(w, h, header_.channels, 8);
      if (tjDecompress2(handle_.get(), bytes_.data(), bytes_.size(), image->data.data(), w, 0, h,
                        pixel_format, flags) != 0) {
        return failed(error);
      }
      image->icc = markers_.icc;
      return true;
    }
    // CMYK: decoded as such, then turned into RGB as (1 - C)(1 - K) (a naive conversion: the
    // CMYK profile, if any, is not applied, and not carried over).
    Image cmyk;
    cmyk.allocate(w, h, 4, 8);
    if (tjDecompress2(handle_.get(), bytes_.data(), bytes_.size(), cmyk.data.data(), w, 0, h,
                      pixel_format, flags) != 0) {
      return failed(error);
    }
    image->allocate(w, h, 3, 8);
    const size_t pixels = static_cast<size_t>(w) * h;
    const uint8_t* src = cmyk.data.data();
    uint8_t* dst = image->data.data();
    for (size_t p = 0; p < pixels; ++p, src += 4, dst += 3) {
      // Adobe's files store 255 - ink; others store the ink.
      const int k = markers_.adobe ? src[3] : 255 - src[3];
      for (int c = 0; c < 3; ++c) {
        const int v = markers_.adobe ? src[c] : 255 - src[c];
        dst[c] = static_cast<uint8_t>((v * k + 127) / 255);
      }
    }
    image->icc.clear();
    return true;
  }

 private:
  bool failed(std::string* error) const {
    *error = "cannot decode " + quote_path(path_) + " (JPEG): " + tjGetErrorStr2(handle_.get());
    return false;
  }

  SampleBuffer bytes_;
  TjHandle handle_;
  bool cmyk_;
  Markers markers_;
};

}  // namespace

std::unique_ptr<ImageSource> open_jpeg(const std::string& path, SampleBuffer bytes,
                                       std::string* error) {
  TjHandle handle(tjInitDecompress());
  if (!handle) {
    *error = "cannot decode " + quote_path(path) + " (JPEG): " + tjGetErrorStr2(nullptr);
    return nullptr;
  }
  int w = 0, h = 0, subsampling = 0, colorspace = 0;
  if (tjDecompressHeader3(handle.get(), bytes.data(), bytes.size(), &w, &h, &subsampling,
                          &colorspace) != 0) {
    *error = "cannot decode " + quote_path(path) + " (JPEG): " + tjGetErrorStr2(handle.get());
    return nullptr;
  }
  Markers markers = read_markers(bytes);
  const bool cmyk = colorspace == TJCS_CMYK || colorspace == TJCS_YCCK;
  ImageHeader header;
  header.format = ImageFormat::kJpeg;
  header.width = w;
  header.height = h;
  header.channels = colorspace == TJCS_GRAY ? 1 : 3;
  header.bits = 8;
  header.orientation = markers.orientation;
  if (cmyk) header.note = "CMYK converted to RGB";
  return std::make_unique<JpegSource>(path, header, std::move(bytes), std::move(handle), cmyk,
                                      std::move(markers));
}

bool encode_jpeg(const Image& image, const std::vector<uint8_t>& icc, int quality, std::FILE* file,
                 std::string* error) {
  TjHandle handle(tjInitCompress());
  if (!handle) {
    *error = tjGetErrorStr2(nullptr);
    return false;
  }
  const bool gray = image.channels == 1;
  // 4:2:0 chroma below quality 90, full-resolution chroma from 90 up.
  const int subsampling = gray ? TJSAMP_GRAY : quality >= 90 ? TJSAMP_444 : TJSAMP_420;
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  if (tjCompress2(handle.get(), image.data.data(), image.width, 0, image.height,
                  gray ? TJPF_GRAY : TJPF_RGB, &jpeg, &size, subsampling, quality,
                  TJFLAG_ACCURATEDCT) != 0) {
    *error = tjGetErrorStr2(handle.get());
    tjFree(jpeg);
    return false;
  }
  std::unique_ptr<unsigned char, void (*)(unsigned char*)> owned(jpeg, tjFree);
  // SOI and TurboJPEG's JFIF APP0 segment, then the profile's APP2 segments, then the rest.
  size_t head = 2;
  if (size >= 6 && jpeg[2] == 0xFF && jpeg[3] == 0xE0) head = 4 + be16(jpeg + 4);
  head = std::min<size_t>(head, size);
  bool ok = std::fwrite(jpeg, 1, head, file) == head;
  const size_t chunks = (icc.size() + kIccChunk - 1) / kIccChunk;
  if (chunks > 255) {
    *error = "the ICC profile (" + std::to_string(icc.size()) + " bytes) does not fit in JPEG";
    return false;
  }
  for (size_t i = 0; ok && i < chunks; ++i) {
    const size_t begin = i * kIccChunk, n = std::min(kIccChunk, icc.size() - begin);
    const size_t length = 2 + kIccHeader + n;
    unsigned char segment[4 + kIccHeader];
    segment[0] = 0xFF;
    segment[1] = 0xE2;
    segment[2] = static_cast<unsigned char>(length >> 8);
    segment[3] = static_cast<unsigned char>(length & 0xFF);
    std::memcpy(segment + 4, kIccSignature, sizeof kIccSignature);
    segment[4 + 12] = static_cast<unsigned char>(i + 1);
    segment[4 + 13] = static_cast<unsigned char>(chunks);
    ok = std::fwrite(segment, 1, sizeof segment, file) == sizeof segment &&
         std::fwrite(icc.data() + begin, 1, n, file) == n;
  }
  ok = ok && std::fwrite(jpeg + head, 1, size - head, file) == size - head;
  if (!ok) *error = std::strerror(errno);
  return ok;
}

}  // namespace upsample::cli
