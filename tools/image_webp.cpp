// WebP through libwebp: decoded straight into the image buffer (RGB, or RGBA when the file has
// alpha), the ICCP and EXIF chunks read with libwebpdemux; encoded lossy or lossless with
// libwebp's advanced API, the profile added as an ICCP chunk with libwebpmux.
#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "image_codecs.hpp"

namespace upsample::cli {
namespace {

const char* status_text(VP8StatusCode status) {
  switch (status) {
    case VP8_STATUS_OK:
      return "ok";
    case VP8_STATUS_OUT_OF_MEMORY:
      return "out of memory";
    case VP8_STATUS_INVALID_PARAM:
      return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR:
      return "corrupt data (bitstream error)";
    case VP8_STATUS_UNSUPPORTED_FEATURE:
      return "an unsupported feature";
    case VP8_STATUS_SUSPENDED:
      return "decoding suspended";
    case VP8_STATUS_USER_ABORT:
      return "decoding aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA:
      return "the file is truncated";
  }
  return "unknown error";
}

const char* encode_error_text(WebPEncodingError error) {
  switch (error) {
    case VP8_ENC_OK:
      return "ok";
    case VP8_ENC_ERROR_OUT_OF_MEMORY:
    case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY:
      return "out of memory";
    case VP8_ENC_ERROR_BAD_DIMENSION:
      return "the size is not encodable (at most 16383 a side)";
    case VP8_ENC_ERROR_PARTITION0_OVERFLOW:
    case VP8_ENC_ERROR_PARTITION_OVERFLOW:
      return "a partition overflowed";
    case VP8_ENC_ERROR_FILE_TOO_BIG:
      return "the file would be too big (4 GB)";
    default:
      return "the encoder failed";
  }
}

class WebpSource final : public ImageSource {
 public:
  WebpSource(const std::string& path, const ImageHeader& header, SampleBuffer bytes,
             std::vector<uint8_t> icc)
      : bytes_(std::move(bytes)), icc_(std::move(icc)) {
    path_ = path;
    header_ = header;
  }

  size_t resident_bytes() const override { return bytes_.size(); }

  bool decode(int reduce, Image* image, std::string* error) override {
    if (reduce != 1) {
      *error = "cannot decode " + quote_path(path_) + " (WebP) at a reduced size";
      return false;
    }
    image->allocate(header_.width, header_.height, header_.channels, 8);
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) {
      *error = "cannot decode " + quote_path(path_) + " (WebP): libwebp version mismatch";
      return false;
    }
    config.output.colorspace = header_.channels == 4 ? MODE_RGBA : MODE_RGB;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = image->data.data();
    config.output.u.RGBA.stride = header_.width * header_.channels;
    config.output.u.RGBA.size = image->data.size();
    const VP8StatusCode status = WebPDecode(bytes_.data(), bytes_.size(), &config);
    WebPFreeDecBuffer(&config.output);
    if (status != VP8_STATUS_OK) {
      *error = "cannot decode " + quote_path(path_) + " (WebP): " + status_text(status);
      return false;
    }
    image->icc = icc_;
    return true;
  }

 private:
  SampleBuffer bytes_;
  std::vector<uint8_t> icc_;
};

struct DemuxDeleter {
  void operator()(WebPDemuxer* d) const { WebPDemuxDelete(d); }
};
struct MuxDeleter {
  void operator()(WebPMux* m) const { WebPMuxDelete(m); }
};

}  // namespace

std::unique_ptr<ImageSource> open_webp(const std::string& path, SampleBuffer bytes,
                                       std::string* error) {
  WebPBitstreamFeatures features;
  const VP8StatusCode status = WebPGetFeatures(bytes.data(), bytes.size(), &features);
  if (status != VP8_STATUS_OK) {
    *error = "cannot decode " + quote_path(path) + " (WebP): " + status_text(status);
    return nullptr;
  }
  if (features.has_animation) {
    *error = "cannot decode " + quote_path(path) + " (WebP): animated WebP is not supported";
    return nullptr;
  }
  ImageHeader header;
  header.format = ImageFormat::kWebp;
  header.width = features.width;
  header.height = features.height;
  header.channels = features.has_alpha ? 4 : 3;
  header.bits = 8;
  header.note = features.format == 2 ? "lossless" : "lossy";
  std::vector<uint8_t> icc;
  WebPData data{bytes.data(), bytes.size()};
  std::unique_ptr<WebPDemuxer, DemuxDeleter> demux(WebPDemux(&data));
  if (demux) {
    const uint32_t flags = WebPDemuxGetI(demux.get(), WEBP_FF_FORMAT_FLAGS);
    WebPChunkIterator chunk;
    if ((flags & ICCP_FLAG) && WebPDemuxGetChunk(demux.get(), "ICCP", 1, &chunk)) {
      icc.assign(chunk.chunk.bytes, chunk.chunk.bytes + chunk.chunk.size);
      WebPDemuxReleaseChunkIterator(&chunk);
    }
    if ((flags & EXIF_FLAG) && WebPDemuxGetChunk(demux.get(), "EXIF", 1, &chunk)) {
      header.orientation = exif_orientation(chunk.chunk.bytes, chunk.chunk.size);
      WebPDemuxReleaseChunkIterator(&chunk);
    }
  }
  return std::make_unique<WebpSource>(path, header, std::move(bytes), std::move(icc));
}

bool encode_webp(const Image& image, const std::vector<uint8_t>& icc, int quality, bool lossless,
                 std::FILE* file, std::string* error) {
  // WebP stores RGB(A) only: gray (+ alpha) is widened.
  const uint8_t* rgb = image.data.data();
  SampleBuffer widened;
  int channels = image.channels;
  if (channels <= 2) {
    channels += 2;
    const size_t pixels = static_cast<size_t>(image.width) * image.height;
    widened.resize(pixels * channels);
    for (size_t p = 0; p < pixels; ++p) {
      const uint8_t* s = image.data.data() + p * image.channels;
      uint8_t* d = widened.data() + p * channels;
      d[0] = d[1] = d[2] = s[0];
      if (channels == 4) d[3] = s[1];
    }
    rgb = widened.data();
  }
  WebPConfig config;
  WebPPicture picture;
  if (!WebPConfigInit(&config) || !WebPPictureInit(&picture)) {
    *error = "libwebp version mismatch";
    return false;
  }
  config.lossless = lossless ? 1 : 0;
  if (lossless) {
    config.exact = 1;  // keep the colour of transparent pixels: lossless means lossless
  } else {
    config.quality = static_cast<float>(quality);
  }
  picture.use_argb = lossless ? 1 : 0;
  picture.width = image.width;
  picture.height = image.height;
  const int stride = image.width * channels;
  const int imported = channels == 4 ? WebPPictureImportRGBA(&picture, rgb, stride)
                                     : WebPPictureImportRGB(&picture, rgb, stride);
  if (!imported) {
    WebPPictureFree(&picture);
    *error = encode_error_text(picture.error_code);
    return false;
  }
  WebPMemoryWriter writer;
  WebPMemoryWriterInit(&writer);
  picture.writer = WebPMemoryWrite;
  picture.custom_ptr = &writer;
  const int encoded = WebPEncode(&config, &picture);
  const WebPEncodingError code = picture.error_code;
  WebPPictureFree(&picture);
  std::unique_ptr<WebPMemoryWriter, void (*)(WebPMemoryWriter*)> owned(&writer,
                                                                       WebPMemoryWriterClear);
  if (!encoded) {
    *error = encode_error_text(code);
    return false;
  }
  const uint8_t* out = writer.mem;
  size_t size = writer.size;
  WebPData assembled{nullptr, 0};
  if (!icc.empty()) {
    std::unique_ptr<WebPMux, MuxDeleter> mux(WebPMuxNew());
    const WebPData bitstream{writer.mem, writer.size};
    const WebPData profile{icc.data(), icc.size()};
    if (!mux || WebPMuxSetImage(mux.get(), &bitstream, 0) != WEBP_MUX_OK ||
        WebPMuxSetChunk(mux.get(), "ICCP", &profile, 0) != WEBP_MUX_OK ||
        WebPMuxAssemble(mux.get(), &assembled) != WEBP_MUX_OK) {
      WebPDataClear(&assembled);
      *error = "cannot add the ICC profile (libwebpmux failed)";
      return false;
    }
    out = assembled.bytes;
    size = assembled.size;
  }
  const bool ok = std::fwrite(out, 1, size, file) == size;
  if (!ok) *error = std::strerror(errno);
  WebPDataClear(&assembled);
  return ok;
}

}  // namespace upsample::cli
