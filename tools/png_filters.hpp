// PNG's row filters (https://www.w3.org/TR/png/#9Filters), one byte of type before each row
// of the image data: chosen and applied when writing (tools/image_png_write.cpp), undone when
// reading (tools/image_png.cpp). A row is the n bytes of one image row as the file stores it
// (16-bit samples big-endian); `bpp` is the bytes of one pixel (1, 2, 3, 4, 6 or 8), the
// distance to the byte "on the left"; the row above the first one is all zero.
#pragma once

#include <cstddef>
#include <cstdint>

namespace upsample::cli {

enum PngFilter : uint8_t {
  kPngFilterNone = 0,
  kPngFilterSub = 1,
  kPngFilterUp = 2,
  kPngFilterAverage = 3,
  kPngFilterPaeth = 4,
};

// How a writer picks each row's filter: the one whose bytes, read as signed distances from zero,
// sum to the least, of a set of filters tried in an order (the first of equals wins).
enum class PngFilterChoice {
  kAllFive,  // none, sub, up, average, paeth: libpng's heuristic
  kPillow,   // none, up, sub, paeth: Pillow's PNG encoder (no average)
};

// The row `cur` (above it `prev`) filtered into out[1..n], and the filter's type into out[0],
// by `choice`. `scratch` holds 4 * n bytes.
void filter_row(PngFilterChoice choice, const uint8_t* cur, const uint8_t* prev, size_t n,
                size_t bpp, uint8_t* scratch, uint8_t* out);

// Undoes the filter `type` on the n bytes `filtered` into `out`, given the unfiltered row above
// (`prev`). `out` may not overlap `filtered` or `prev`. Returns false when `type` is not 0-4.
bool unfilter_row(uint8_t type, const uint8_t* filtered, const uint8_t* prev, size_t n, size_t bpp,
                  uint8_t* out);

}  // namespace upsample::cli
