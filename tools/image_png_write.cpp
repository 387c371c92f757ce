// PNG writing (encode_png): the chunks written here around the image data, which is filtered
// row by row (tools/png_filters.hpp) and compressed on `threads` threads. At --png-level 6 (the
// default) to 9 there are up to three candidates, and the smallest one is written:
//
// - Pillow's own stream: its four-filter choice through zlib at the same level, Z_FILTERED,
//   memLevel 9 (the bytes of Pillow's default Image.save at level 6);
// - libdeflate's stream of the five-filter rows, at a level that depends on how compressible
//   the rows look (the order-0 entropy of every kSampleStep-th row): level 6 for flat images
//   (drawings, screenshots: below kNoisyBits), 10, the first near-optimal one, for noisy ones
//   (photographs), in horizontal strips compressed at the same time;
// - on noisy images, zlib's Huffman coding alone of the five-filter rows, in strips: on
//   photographs the matches are few and short, and coding the bytes alone is about as small as
//   libdeflate's level 10 in a tenth of its time.
//
// So the file is never larger than Pillow's. Pillow's stream is cheap on flat images; on noisy
// ones it costs about as much as libdeflate's (real photographs) or more than twice as much (a
// resized synthetic photograph: bench/images/README.md). So on noisy images sample blocks of
// rows are compressed each way first (sample_sizes: Pillow's with the 32 KiB before each block
// as history, ours on their own), and at level 6 Huffman coding is written alone when the
// sample puts it below kClearlySmaller of Pillow's; else, Pillow's stream is left out when the
// sample puts libdeflate's below that. On the images measured the sample was off by at most 1%
// towards ours for Huffman coding, and overstated libdeflate's share (but for 0.2% once), so
// the 3% margin holds. Pillow's stream wins on images of few distinct levels (posterized, a few
// bits of noise), where the average filter that libpng's heuristic picks scatters the values.
//
// Levels 0-5 write libdeflate's levels 0-5 in strips alone (0: stored; faster, larger files);
// 7-9 use libdeflate's levels 11, 12, 12 and zlib's 7-9 (kDeflateLevel, kFlatDeflateLevel),
// and never Huffman coding alone.
//
// Strips: libdeflate compresses whole buffers into complete deflate streams, the last block of
// each marked final, and PNG's image data is one zlib stream. So the strips are joined as
// zlib's Z_SYNC_FLUSH would join them (RFC 1951, 3.2.3 and 3.2.4): every strip but the last has
// its final-block bit cleared and an empty stored block appended, which ends it on a byte
// boundary where the next strip's blocks begin; the zlib header and the Adler-32 of all the
// filtered rows go around them (zlib's Huffman strips end with a real Z_SYNC_FLUSH). Each strip
// starts with an empty window and new codes, a few hundred bytes, so there are only
// kStripsPerThread per thread (two, so that a thread slowed by other work on the machine leaves
// its second strip to the others; one strip on one thread), each of at least kMinStripBytes.
#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "image_codecs.hpp"
#include "png_filters.hpp"

namespace upsample::cli {
namespace {

// libdeflate's level for each --png-level 0-9 on noisy images (and on every image below 6),
// and on the others.
constexpr int kDeflateLevel[10] = {0, 1, 2, 3, 4, 5, 10, 11, 12, 12};
constexpr int kFlatDeflateLevel[10] = {0, 1, 2, 3, 4, 5, 6, 11, 12, 12};
// Filtered rows of at least this order-0 entropy (bits per byte) count as noisy.
constexpr double kNoisyBits = 2.0;
// On noisy images, a stream of ours counts as clearly smaller than Pillow's when sample blocks
// put it below this fraction of Pillow's (sample_sizes).
constexpr double kClearlySmaller = 0.97;
constexpr size_t kSampleBlockRows = 8;
constexpr size_t kSampleFraction = 16;

constexpr size_t kMinStripBytes = size_t{256} << 10;
constexpr size_t kStripsPerThread = 2;
constexpr size_t kIdatBytes = size_t{256} << 10;  // the largest IDAT chunk written

void be32(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v >> 24);
  p[1] = static_cast<uint8_t>(v >> 16);
  p[2] = static_cast<uint8_t>(v >> 8);
  p[3] = static_cast<uint8_t>(v);
}

class ChunkWriter {
 public:
  explicit ChunkWriter(std::FILE* file) : file_(file) {}
  bool put(const char* type, const uint8_t* data, size_t n) {
    uint8_t head[8];
    be32(head, static_cast<uint32_t>(n));
    std::memcpy(head + 4, type, 4);
    uint32_t crc = libdeflate_crc32(0, head + 4, 4);
    if (n > 0) crc = libdeflate_crc32(crc, data, n);
    uint8_t tail[4];
    be32(tail, crc);
    return ok_ = ok_ && std::fwrite(head, 1, 8, file_) == 8 &&
                 (n == 0 || std::fwrite(data, 1, n, file_) == n) &&
                 std::fwrite(tail, 1, 4, file_) == 4;
  }
  bool ok() const { return ok_; }

 private:
  std::FILE* file_;
  bool ok_ = true;
};

// Runs task(0) .. task(count - 1) on up to `threads` threads (this one included), each thread
// taking the next index when done with one. An exception from a task (the first one) is thrown
// here once all threads are done.
void run_parallel(size_t count, int threads, const std::function<void(size_t)>& task) {
  std::atomic<size_t> next{0};
  std::mutex mutex;
  std::exception_ptr failure;
  const auto work = [&] {
    try {
      for (size_t i = next++; i < count; i = next++) task(i);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(mutex);
      if (!failure) failure = std::current_exception();
    }
  };
  {
    std::vector<std::jthread> helpers;
    for (int t = 1; t < threads && static_cast<size_t>(t) < count; ++t) {
      try {
        helpers.emplace_back(work);
      } catch (const std::system_error&) {  // no more threads to be had: fewer do it
        break;
      }
    }
    work();
  }
  if (failure) std::rethrow_exception(failure);
}

// Splits `rows` rows into at most `parts` ranges of at least `min_rows` rows (one at least):
// the first row of each range, and `rows` at the end.
std::vector<size_t> split_rows(size_t rows, size_t parts, size_t min_rows) {
  parts = std::clamp<size_t>(rows / std::max<size_t>(min_rows, 1), 1, std::max<size_t>(parts, 1));
  std::vector<size_t> starts;
  for (size_t i = 0; i <= parts; ++i) starts.push_back(rows * i / parts);
  return starts;
}

struct Geometry {
  size_t bpp, n, height;
  size_t stride() const { return n + 1; }  // a filtered row: its filter type and n bytes
};

Geometry geometry(const Image& image) {
  const size_t bpp = static_cast<size_t>(image.channels) * (image.bits / 8);
  return {bpp, bpp * static_cast<size_t>(image.width), static_cast<size_t>(image.height)};
}

// Filters rows of an image, in any order, by one choice of filters.
class RowFilter {
 public:
  RowFilter(const Image& image, PngFilterChoice choice)
      : image_(image), choice_(choice), g_(geometry(image)), scratch_(7 * g_.n, 0) {}

  // Row y filtered into out[0 .. stride).
  void filter(size_t y, uint8_t* out) {
    const uint8_t* prev = y == 0 ? scratch_.data() + 6 * g_.n : stored(y - 1);
    filter_row(choice_, stored(y), prev, g_.n, g_.bpp, scratch_.data(), out);
  }

 private:
  // The bytes of row y as PNG stores them: 8-bit rows as they are, 16-bit samples big-endian
  // (converted into the slot of y's parity, so that rows y - 1 and y are both at hand).
  const uint8_t* stored(size_t y) {
    const uint8_t* row = image_.data.data() + y * g_.n;
    if (image_.bits == 8) return row;
    uint8_t* slot = scratch_.data() + (4 + y % 2) * g_.n;
    if (held_[y % 2] != y) {
      for (size_t i = 0; i < g_.n; i += 2) {
        uint16_t v;
        std::memcpy(&v, row + i, 2);
        slot[i] = static_cast<uint8_t>(v >> 8);
        slot[i + 1] = static_cast<uint8_t>(v & 0xFF);
      }
      held_[y % 2] = y;
    }
    return slot;
  }

  const Image& image_;
  PngFilterChoice choice_;
  Geometry g_;
  std::vector<uint8_t> scratch_;  // 4 filter candidates, 2 big-endian rows, a row of zeros
  size_t held_[2] = {SIZE_MAX, SIZE_MAX};
};

// The order-0 entropy, in bits per byte, of the five-filter rows 0, kSampleStep, 2 kSampleStep,
// ... of `image`.
constexpr size_t kSampleStep = 8;

double sampled_entropy_bits(const Image& image) {
  const Geometry g = geometry(image);
  RowFilter filter(image, PngFilterChoice::kAllFive);
  std::vector<uint8_t> row(g.stride());
  std::array<uint64_t, 256> histogram{};
  for (size_t y = 0; y < g.height; y += kSampleStep) {
    filter.filter(y, row.data());
    for (const uint8_t b : row) ++histogram[b];
  }
  double total = 0, bits = 0;
  for (const uint64_t count : histogram) total += static_cast<double>(count);
  for (const uint64_t count : histogram) {
    if (count > 0)
      bits -= static_cast<double>(count) * std::log2(static_cast<double>(count) / total);
  }
  return bits / total;
}

struct FreeCompressor {
  void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
};
using Compressor = std::unique_ptr<libdeflate_compressor, FreeCompressor>;

// Buffers of compressed and filtered bytes: allocate_buffer's memory, not zero-filled
// (tools/image_io.hpp), since they are written before they are read.
using Bytes = SampleBuffer;

// Makes the raw deflate stream `stream` (complete blocks, the last one final, zero bits up to
// its last byte's end, as libdeflate writes it) one that another stream can follow: the final
// block's BFINAL bit cleared and an empty stored block appended. zlib's inflate, stopping at
// every block boundary (Z_BLOCK), says where each block header starts (data_type: 128 at a
// boundary, the low 3 bits unused in the last byte read) and where the stream ends.
bool make_continuable(Bytes* stream) {
  z_stream z{};
  if (inflateInit2(&z, -15) != Z_OK) return false;
  uint8_t scratch[32768];
  z.next_in = stream->data();
  z.avail_in = static_cast<uInt>(stream->size());
  // Bit offsets: of the last block header seen (the first one is at 0), and of the end of the
  // final block (seen at the boundary after it, data_type 64: "the last block").
  uint64_t final_header = 0, end = 0;
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = scratch;
    z.avail_out = sizeof scratch;
    rc = inflate(&z, Z_BLOCK);
    if (rc == Z_OK && (z.data_type & 128) != 0) {
      const uint64_t at = uint64_t{z.total_in} * 8 - (z.data_type & 7);
      ((z.data_type & 64) != 0 ? end : final_header) = at;
    }
  }
  const uint64_t bits = uint64_t{stream->size()} * 8;
  const bool whole = rc == Z_STREAM_END && z.total_in == stream->size() && end + 8 > bits;
  inflateEnd(&z);
  if (!whole) return false;
  (*stream)[final_header / 8] &= static_cast<uint8_t>(~(1u << (final_header % 8)));
  // The stored block's header (BFINAL 0, BTYPE 00) goes into the last byte's free (zero) bits
  // when three are free, else into a new byte; then LEN 0 and NLEN 0xFFFF.
  if (bits - end < 3) stream->push_back(0);
  for (const uint8_t b : {0x00, 0x00, 0xFF, 0xFF}) stream->push_back(b);
  return true;
}

// How a strip of five-filter rows is compressed: by libdeflate at `level`, or by zlib's
// Huffman coding alone (no matches: on noisy photographs the matches are few and short, and
// this takes a tenth of libdeflate's time for a stream about as small).
struct Coder {
  bool huffman_only = false;
  int level = 6;  // libdeflate's
};

struct Strip {
  size_t first = 0, end = 0;
  Bytes deflated;
  uint32_t adler = 1;  // of the filtered rows
};

// Runs zlib's deflate with `flush` on its input, the output appended to `out` (grown as
// needed), until the input is used (and, for Z_FINISH, the stream ended).
void deflate_into(z_stream* z, int flush, Bytes* out) {
  for (;;) {
    if (z->avail_out == 0) {  // `out` holds exactly the stream so far (total_out bytes)
      out->resize(std::max<size_t>(out->size() * 3 / 2, out->size() + (size_t{64} << 10)));
      z->next_out = out->data() + z->total_out;
      z->avail_out = static_cast<uInt>(std::min<size_t>(out->size() - z->total_out, 1u << 30));
    }
    const int rc = deflate(z, flush);
    if (rc == Z_STREAM_END || (flush != Z_FINISH && z->avail_in == 0 && z->avail_out > 0)) return;
    if (rc != Z_OK && rc != Z_BUF_ERROR) throw std::runtime_error("zlib failed");
  }
}

// Rows [first, end) of `image` filtered by `choice` into zlib stream `z`, kBatchBytes at a time
// (the Adler-32 of the filtered rows into `adler` when given), the last batch with `flush`.
constexpr size_t kBatchBytes = size_t{64} << 10;

void filter_into(const Image& image, PngFilterChoice choice, size_t first, size_t end, int flush,
                 z_stream* z, Bytes* out, uint32_t* adler) {
  const Geometry g = geometry(image);
  RowFilter filter(image, choice);
  const size_t batch = std::max<size_t>(1, kBatchBytes / g.stride());
  std::vector<uint8_t> rows(batch * g.stride());
  for (size_t y = first; y < end; y += batch) {
    const size_t n = std::min(batch, end - y);
    for (size_t k = 0; k < n; ++k) filter.filter(y + k, rows.data() + k * g.stride());
    if (adler != nullptr) *adler = libdeflate_adler32(*adler, rows.data(), n * g.stride());
    z->next_in = rows.data();
    z->avail_in = static_cast<uInt>(n * g.stride());
    deflate_into(z, y + n == end ? flush : Z_NO_FLUSH, out);
  }
}

// A zlib deflate stream, ended on every way out.
struct Deflater {
  z_stream z{};
  Deflater(int level, int window_bits, int strategy) {
    if (deflateInit2(&z, level, Z_DEFLATED, window_bits, 9, strategy) != Z_OK) {
      throw std::bad_alloc();  // zlib fails here only for want of memory
    }
  }
  ~Deflater() { deflateEnd(&z); }
};

// The strip's rows filtered by the five-filter choice and compressed by `coder`: a zlib stream
// when `alone`, else a raw deflate stream that another can follow unless it is the image's last
// strip (zlib's Huffman coding: ended by a sync flush, an empty stored block; libdeflate's:
// make_continuable).
void deflate_strip(const Image& image, Coder coder, bool alone, Strip* strip) {
  const Geometry g = geometry(image);
  const bool last = strip->end == g.height;
  Bytes& out = strip->deflated;
  if (coder.huffman_only) {  // streamed through zlib: the filtered rows are never all in memory
    Deflater deflater(6, alone ? 15 : -15, Z_HUFFMAN_ONLY);
    filter_into(image, PngFilterChoice::kAllFive, strip->first, strip->end,
                alone || last ? Z_FINISH : Z_SYNC_FLUSH, &deflater.z, &out, &strip->adler);
    out.resize(deflater.z.total_out);
    return;
  }
  Bytes rows((strip->end - strip->first) * g.stride());
  RowFilter filter(image, PngFilterChoice::kAllFive);
  for (size_t y = strip->first; y < strip->end; ++y) {
    filter.filter(y, rows.data() + (y - strip->first) * g.stride());
  }
  strip->adler = libdeflate_adler32(1, rows.data(), rows.size());
  const Compressor compressor(libdeflate_alloc_compressor(coder.level));
  if (!compressor) throw std::bad_alloc();
  out.resize((alone ? libdeflate_zlib_compress_bound(compressor.get(), rows.size())
                    : libdeflate_deflate_compress_bound(compressor.get(), rows.size())) +
             8);
  const size_t size = alone ? libdeflate_zlib_compress(compressor.get(), rows.data(), rows.size(),
                                                       out.data(), out.size())
                            : libdeflate_deflate_compress(compressor.get(), rows.data(),
                                                          rows.size(), out.data(), out.size());
  out.resize(size);
  if (size == 0 || (!alone && !last && !make_continuable(&out))) {
    throw std::runtime_error("libdeflate's compressed data did not read back whole");
  }
}

// The zlib stream of the five-filter rows compressed by `coder`, in up to `max_strips` strips
// on `threads` threads (one strip: a zlib stream of its own).
Bytes deflate_strips(const Image& image, Coder coder, int threads, size_t max_strips) {
  const Geometry g = geometry(image);
  const std::vector<size_t> starts =
      split_rows(g.height, max_strips, (kMinStripBytes + g.stride() - 1) / g.stride());
  std::vector<Strip> strips(starts.size() - 1);
  for (size_t i = 0; i < strips.size(); ++i) {
    strips[i].first = starts[i];
    strips[i].end = starts[i + 1];
  }
  const bool alone = strips.size() == 1;
  run_parallel(strips.size(), threads,
               [&](size_t i) { deflate_strip(image, coder, alone, &strips[i]); });
  if (alone) return std::move(strips[0].deflated);
  const int level = coder.huffman_only ? 0 : coder.level;
  const int flevel = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3;
  uint8_t header[2] = {0x78, static_cast<uint8_t>(flevel << 6)};
  header[1] = static_cast<uint8_t>(header[1] + 31 - (header[0] * 256 + header[1]) % 31);
  Bytes zlib_stream(header, header + 2);
  uLong adler = 1;
  for (Strip& strip : strips) {
    zlib_stream.insert(zlib_stream.end(), strip.deflated.begin(), strip.deflated.end());
    strip.deflated = Bytes();
    adler = adler32_combine(adler, strip.adler,
                            static_cast<z_off_t>((strip.end - strip.first) * g.stride()));
  }
  uint8_t trailer[4];
  be32(trailer, static_cast<uint32_t>(adler));
  zlib_stream.insert(zlib_stream.end(), trailer, trailer + 4);
  return zlib_stream;
}

// Pillow's stream of rows [first, end): its filter choice, through zlib at `level` with
// Z_FILTERED and memLevel 9. With `warm`, the 32 KiB of Pillow's rows before `first` are zlib's
// preset dictionary, so that the size is about what these rows cost inside the whole stream.
Bytes deflate_like_pillow(const Image& image, size_t first, size_t end, int level,
                          bool warm = false) {
  const Geometry g = geometry(image);
  Deflater deflater(level, 15, Z_FILTERED);
  if (warm && first > 0) {
    constexpr size_t kWindow = 32768;
    const size_t before = std::min(first, (kWindow + g.stride() - 1) / g.stride());
    std::vector<uint8_t> dictionary(before * g.stride());
    RowFilter filter(image, PngFilterChoice::kPillow);
    for (size_t y = first - before; y < first; ++y) {
      filter.filter(y, dictionary.data() + (y - (first - before)) * g.stride());
    }
    const size_t n = std::min(kWindow, dictionary.size());
    deflateSetDictionary(&deflater.z, dictionary.data() + dictionary.size() - n,
                         static_cast<uInt>(n));
  }
  Bytes zlib_stream;
  filter_into(image, PngFilterChoice::kPillow, first, end, Z_FINISH, &deflater.z, &zlib_stream,
              nullptr);
  zlib_stream.resize(deflater.z.total_out);
  return zlib_stream;
}

// Sizes over sample blocks of kSampleBlockRows rows, about one row in kSampleFraction: of
// Pillow's stream (each block with the 32 KiB before it as history), and of the five-filter rows
// compressed by each of `coders` (each block on its own).
struct SampleSizes {
  double pillow = 0;
  std::vector<double> ours;  // one per coder
};

SampleSizes sample_sizes(const Image& image, int zlib_level, const std::vector<Coder>& coders,
                         int threads) {
  const Geometry g = geometry(image);
  const size_t blocks = std::max<size_t>(1, g.height / kSampleFraction / kSampleBlockRows);
  std::vector<std::vector<size_t>> sizes(blocks, std::vector<size_t>(coders.size() + 1));
  run_parallel(blocks, threads, [&](size_t b) {
    const size_t first =
        std::min(g.height - kSampleBlockRows, (2 * b + 1) * g.height / (2 * blocks));
    sizes[b][0] =
        deflate_like_pillow(image, first, first + kSampleBlockRows, zlib_level, true).size();
    for (size_t k = 0; k < coders.size(); ++k) {
      Strip strip;
      strip.first = first;
      strip.end = first + kSampleBlockRows;
      deflate_strip(image, coders[k], true, &strip);
      sizes[b][k + 1] = strip.deflated.size();
    }
  });
  SampleSizes total;
  total.ours.assign(coders.size(), 0.0);
  for (const std::vector<size_t>& block : sizes) {
    total.pillow += static_cast<double>(block[0]);
    for (size_t k = 0; k < coders.size(); ++k) total.ours[k] += static_cast<double>(block[k + 1]);
  }
  return total;
}

size_t strips_for(int threads) {
  return threads > 1 ? kStripsPerThread * static_cast<size_t>(threads) : 1;
}

// The zlib stream of the image data, chosen and compressed as the comment at the top says.
Bytes compress_image_data(const Image& image, int level, int threads) {
  threads = std::max(threads, 1);
  if (level < 6)
    return deflate_strips(image, Coder{false, kDeflateLevel[level]}, threads, strips_for(threads));
  const bool flat = sampled_entropy_bits(image) < kNoisyBits;
  const Coder libdeflate{false, (flat ? kFlatDeflateLevel : kDeflateLevel)[level]};
  const Coder huffman{true, 0};
  bool with_pillow = true, with_huffman = !flat;
  if (!flat && geometry(image).height >= kSampleFraction * kSampleBlockRows) {
    // At level 6, zlib's Huffman coding alone when the sample puts it clearly below Pillow's;
    // else libdeflate's level and Huffman coding, and Pillow's stream unless libdeflate's is
    // clearly smaller.
    if (level == 6) {
      const SampleSizes sample = sample_sizes(image, level, {huffman}, threads);
      if (sample.ours[0] < kClearlySmaller * sample.pillow) {
        return deflate_strips(image, huffman, threads, strips_for(threads));
      }
    }
    const SampleSizes sample = sample_sizes(image, level, {libdeflate}, threads);
    with_pillow = !(sample.ours[0] < kClearlySmaller * sample.pillow);
  }
  // The candidates, at once: Pillow's stream on a thread of its own (when there are two), and
  // libdeflate's (then Huffman coding's) on the other threads; the smallest is written.
  Bytes pillow;
  std::exception_ptr pillow_failure;
  const auto like_pillow = [&] {
    try {
      pillow = deflate_like_pillow(image, 0, geometry(image).height, level);
    } catch (...) {
      pillow_failure = std::current_exception();
    }
  };
  Bytes best;
  {
    std::jthread helper;
    if (with_pillow && threads > 1) {
      try {
        helper = std::jthread(like_pillow);
      } catch (const std::system_error&) {  // no thread to be had: this one does it too
      }
    }
    const int others = helper.joinable() ? threads - 1 : threads;
    best = deflate_strips(image, libdeflate, others, flat ? 1 : strips_for(others));
    if (with_huffman) {
      Bytes coded = deflate_strips(image, huffman, others, strips_for(others));
      if (coded.size() < best.size()) best.swap(coded);
    }
    if (with_pillow && !helper.joinable()) like_pillow();
  }
  if (pillow_failure) std::rethrow_exception(pillow_failure);
  if (with_pillow && pillow.size() < best.size()) best.swap(pillow);
  return best;
}

}  // namespace

bool encode_png(const Image& image, const std::vector<uint8_t>& icc, int level, int threads,
                std::FILE* file, std::string* error) {
  static const uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  static const uint8_t kColorType[5] = {0, 0, 4, 2, 6};
  Bytes zlib_stream;
  try {
    zlib_stream = compress_image_data(image, std::clamp(level, 0, 9), threads);
  } catch (const std::runtime_error& e) {
    *error = e.what();
    return false;
  }
  ChunkWriter out(file);
  if (std::fwrite(kSignature, 1, 8, file) != 8) {
    *error = std::strerror(errno);
    return false;
  }
  uint8_t ihdr[13];
  be32(ihdr, static_cast<uint32_t>(image.width));
  be32(ihdr + 4, static_cast<uint32_t>(image.height));
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
  for (size_t at = 0; at < zlib_stream.size(); at += kIdatBytes) {
    out.put("IDAT", zlib_stream.data() + at, std::min(kIdatBytes, zlib_stream.size() - at));
  }
  out.put("IEND", nullptr, 0);
  if (!out.ok()) *error = std::strerror(errno);
  return out.ok();
}

}  // namespace upsample::cli
