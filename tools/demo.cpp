// `upsample demo`: a synthetic test image resampled down and back up with every mode, with and
// without anti-aliasing; the results and a labelled contact sheet as PNG files; then the
// summary of `upsample check` and a short `upsample bench`.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "args.hpp"
#include "check/check.hpp"
#include "commands.hpp"
#include "image_io.hpp"
#include "workloads.hpp"

namespace upsample::cli {
namespace {

// The experiment: a kSource x kSource image, down to kDown x kDown, back up to kSource.
constexpr int kSource = 256;
constexpr int kDown = 96;
constexpr int kDownZoom = 2;  // the downsampled image is shown magnified (pixel replication)

// Contact sheet geometry: 4 x 2 cells, each a label, the downsampled result (magnified) and
// the round trip below it.
constexpr int kMargin = 10;
constexpr int kTitle = 44;
constexpr int kLabel = 24;
constexpr int kGap = 6;
constexpr int kColumns = 4;
constexpr int kRows = 2;
constexpr int kCellW = kSource;
constexpr int kCellH = kLabel + kDown * kDownZoom + kGap + kSource;
constexpr int kSheetW = kColumns * kCellW + (kColumns + 1) * kMargin;
constexpr int kSheetH = kTitle + kRows * kCellH + kRows * kMargin + kMargin;

struct Rgb {
  uint8_t r, g, b;
};
constexpr Rgb kBackground{34, 36, 40};
constexpr Rgb kWhite{255, 255, 255};
constexpr Rgb kDim{170, 176, 186};

struct Variant {
  const char* file;   // file name stem
  const char* label;  // contact sheet label
  Mode mode;
  bool antialias;
  int column, row;  // contact sheet cell
};

// Sheet columns: nearest / bilinear / bicubic over their second variant (nearest-exact,
// antialiased) so that each pair can be compared vertically.
const Variant kVariants[] = {
    {"nearest", "nearest", Mode::kNearest, false, 1, 0},
    {"nearest-exact", "nearest-exact", Mode::kNearestExact, false, 1, 1},
    {"bilinear", "bilinear", Mode::kLinear, false, 2, 0},
    {"bilinear-aa", "bilinear, antialias", Mode::kLinear, true, 2, 1},
    {"bicubic", "bicubic", Mode::kCubic, false, 3, 0},
    {"bicubic-aa", "bicubic, antialias", Mode::kCubic, true, 3, 1},
};

void print_help() {
  std::printf(
      "Usage: upsample demo [--out DIR] [--threads N]\n"
      "\n"
      "Needs no input. Synthesises a %dx%d test image (fine stripes and a chirp, a zone plate,\n"
      "text-like edges, a colour gradient), downsamples it to %dx%d and upsamples the result\n"
      "back to %dx%d with every mode (nearest, nearest-exact, bilinear, bicubic; the last two\n"
      "with and without antialias), writes every result and one contact sheet,\n"
      "contact_sheet.png (%dx%d), whose labelled tiles show the aliasing (moire in the zone\n"
      "plate and the stripes) and the ringing (halos at the text edges) of each mode side by\n"
      "side. Then prints the summary of 'upsample check' (every aclnn entry point against the\n"
      "float64 reference) and a short 'upsample bench', and where the files are.\n"
      "\n"
      "Options:\n"
      "  --out DIR      directory for the images, created if needed (default: upsample-demo)\n"
      "  --threads N    library threads (default: UPSAMPLE_NUM_THREADS or every core)\n"
      "  -h, --help     print this help\n"
      "\n"
      "Exit status: 0 success, 1 a file cannot be written, the library fails or a check fails,\n"
      "2 usage error.\n",
      kSource, kSource, kDown, kDown, kSource, kSource, kSheetW, kSheetH);
}

int usage_error(const std::string& what) { return cli::usage_error("upsample demo", what); }

int failure(const std::string& what) {
  std::fprintf(stderr, "upsample demo: %s\n", what.c_str());
  return 1;
}

// ---------------------------------------------------------------------------------------------
// Drawing on 8-bit RGB images.

void put(Image* img, int x, int y, Rgb c) {
  if (x < 0 || y < 0 || x >= img->width || y >= img->height) return;
  uint8_t* p = img->data.data() + (static_cast<size_t>(y) * img->width + x) * 3;
  p[0] = c.r;
  p[1] = c.g;
  p[2] = c.b;
}

void fill_rect(Image* img, int x0, int y0, int w, int h, Rgb c) {
  for (int y = y0; y < y0 + h; ++y) {
    for (int x = x0; x < x0 + w; ++x) put(img, x, y, c);
  }
}

// A 5 x 7 pixel font for printable ASCII (32-126), drawn for this program: kGlyphs[c - 32] holds
// the 7 rows of character c, top to bottom, the 5 low bits of each row left to right.
constexpr int kGlyphW = 5, kGlyphH = 7, kAdvance = 6;
constexpr uint8_t kGlyphs[95][kGlyphH] = {
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},  // ' '
    {0x04, 0x04, 0x04, 0x04, 0x04, 0x00, 0x04},  // '!'
    {0x0A, 0x0A, 0x00, 0x00, 0x00, 0x00, 0x00},  // '"'
    {0x0A, 0x0A, 0x1F, 0x0A, 0x1F, 0x0A, 0x0A},  // '#'
    {0x04, 0x0F, 0x14, 0x0E, 0x05, 0x1E, 0x04},  // '$'
    {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03},  // '%'
    {0x0C, 0x12, 0x14, 0x08, 0x15, 0x12, 0x0D},  // '&'
    {0x04, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00},  // '''
    {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02},  // '('
    {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08},  // ')'
    {0x00, 0x04, 0x15, 0x0E, 0x15, 0x04, 0x00},  // '*'
    {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00},  // '+'
    {0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08},  // ','
    {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00},  // '-'
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C},  // '.'
    {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00},  // '/'
    {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E},  // '0'
    {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E},  // '1'
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F},  // '2'
    {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E},  // '3'
    {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02},  // '4'
    {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E},  // '5'
    {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E},  // '6'
    {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08},  // '7'
    {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E},  // '8'
    {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C},  // '9'
    {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00},  // ':'
    {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x04, 0x08},  // ';'
    {0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02},  // '<'
    {0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00},  // '='
    {0x08, 0x04, 0x02, 0x01, 0x02, 0x04, 0x08},  // '>'
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04},  // '?'
    {0x0E, 0x11, 0x01, 0x0D, 0x15, 0x15, 0x0E},  // '@'
    {0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11},  // 'A'
    {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E},  // 'B'
    {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E},  // 'C'
    {0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C},  // 'D'
    {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F},  // 'E'
    {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10},  // 'F'
    {0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F},  // 'G'
    {0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11},  // 'H'
    {0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E},  // 'I'
    {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C},  // 'J'
    {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11},  // 'K'
    {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F},  // 'L'
    {0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11},  // 'M'
    {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11},  // 'N'
    {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E},  // 'O'
    {0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10},  // 'P'
    {0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D},  // 'Q'
    {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11},  // 'R'
    {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E},  // 'S'
    {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04},  // 'T'
    {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E},  // 'U'
    {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04},  // 'V'
    {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A},  // 'W'
    {0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11},  // 'X'
    {0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04},  // 'Y'
    {0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F},  // 'Z'
    {0x0E, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0E},  // '['
    {0x00, 0x10, 0x08, 0x04, 0x02, 0x01, 0x00},  // backslash
    {0x0E, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0E},  // ']'
    {0x04, 0x0A, 0x11, 0x00, 0x00, 0x00, 0x00},  // '^'
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F},  // '_'
    {0x08, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00},  // '`'
    {0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F},  // 'a'
    {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1E},  // 'b'
    {0x00, 0x00, 0x0E, 0x10, 0x10, 0x11, 0x0E},  // 'c'
    {0x01, 0x01, 0x0D, 0x13, 0x11, 0x11, 0x0F},  // 'd'
    {0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E},  // 'e'
    {0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08},  // 'f'
    {0x00, 0x0F, 0x11, 0x11, 0x0F, 0x01, 0x0E},  // 'g'
    {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11},  // 'h'
    {0x04, 0x00, 0x0C, 0x04, 0x04, 0x04, 0x0E},  // 'i'
    {0x02, 0x00, 0x06, 0x02, 0x02, 0x12, 0x0C},  // 'j'
    {0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12},  // 'k'
    {0x0C, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E},  // 'l'
    {0x00, 0x00, 0x1A, 0x15, 0x15, 0x11, 0x11},  // 'm'
    {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11},  // 'n'
    {0x00, 0x00, 0x0E, 0x11, 0x11, 0x11, 0x0E},  // 'o'
    {0x00, 0x00, 0x1E, 0x11, 0x1E, 0x10, 0x10},  // 'p'
    {0x00, 0x00, 0x0D, 0x13, 0x0F, 0x01, 0x01},  // 'q'
    {0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10},  // 'r'
    {0x00, 0x00, 0x0E, 0x10, 0x0E, 0x01, 0x1E},  // 's'
    {0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06},  // 't'
    {0x00, 0x00, 0x11, 0x11, 0x11, 0x13, 0x0D},  // 'u'
    {0x00, 0x00, 0x11, 0x11, 0x11, 0x0A, 0x04},  // 'v'
    {0x00, 0x00, 0x11, 0x11, 0x15, 0x15, 0x0A},  // 'w'
    {0x00, 0x00, 0x11, 0x0A, 0x04, 0x0A, 0x11},  // 'x'
    {0x00, 0x00, 0x11, 0x11, 0x0F, 0x01, 0x0E},  // 'y'
    {0x00, 0x00, 0x1F, 0x02, 0x04, 0x08, 0x1F},  // 'z'
    {0x02, 0x04, 0x04, 0x08, 0x04, 0x04, 0x02},  // '{'
    {0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04},  // '|'
    {0x08, 0x04, 0x04, 0x02, 0x04, 0x04, 0x08},  // '}'
    {0x00, 0x00, 0x08, 0x15, 0x02, 0x00, 0x00},  // '~'
};

// Pixel width of `text` at `scale` (each font pixel a scale x scale block).
int text_width(const std::string& text, int scale) {
  return static_cast<int>(text.size()) * kAdvance * scale;
}

// Draws `text` (ASCII; other bytes as '?') with its top-left corner at (x, y).
void draw_text(Image* img, int x, int y, const std::string& text, int scale, Rgb c) {
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char ch = static_cast<unsigned char>(text[i]);
    const uint8_t* glyph = kGlyphs[(ch >= 32 && ch < 127 ? ch : '?') - 32];
    const int gx = x + static_cast<int>(i) * kAdvance * scale;
    for (int row = 0; row < kGlyphH; ++row) {
      for (int col = 0; col < kGlyphW; ++col) {
        if (glyph[row] & (1 << (kGlyphW - 1 - col))) {
          fill_rect(img, gx + col * scale, y + row * scale, scale, scale, c);
        }
      }
    }
  }
}

// Copies `src` (gray or RGB, 8-bit) into `dst` at (x, y), each pixel a zoom x zoom block.
void blit(Image* dst, const Image& src, int x, int y, int zoom = 1) {
  for (int sy = 0; sy < src.height; ++sy) {
    for (int sx = 0; sx < src.width; ++sx) {
      const uint8_t* p =
          src.data.data() + (static_cast<size_t>(sy) * src.width + sx) * src.channels;
      const Rgb c = src.channels >= 3 ? Rgb{p[0], p[1], p[2]} : Rgb{p[0], p[0], p[0]};
      fill_rect(dst, x + sx * zoom, y + sy * zoom, zoom, zoom, c);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The test image: four kSource/2 quadrants.

Image synthesize() {
  constexpr int q = kSource / 2;
  constexpr double kPi = 3.14159265358979323846;
  Image img = Image::blank(kSource, kSource, 3);
  auto gray = [](double v) {
    const auto g = static_cast<uint8_t>(std::clamp(std::lround(v * 255.0), 0L, 255L));
    return Rgb{g, g, g};
  };
  // Top left: a sinusoidal chirp along x (0.02 to 0.5 cycles per pixel), then bands of
  // one-pixel-scale black and white lines (periods 2, 3, 4 and 5 pixels).
  for (int y = 0; y < q / 2; ++y) {
    for (int x = 0; x < q; ++x) {
      const double f0 = 0.02, f1 = 0.5;
      const double phase = 2.0 * kPi * (f0 * x + (f1 - f0) * x * x / (2.0 * q));
      put(&img, x, y, gray(0.5 + 0.5 * std::cos(phase)));
    }
  }
  for (int y = q / 2; y < q; ++y) {
    for (int x = 0; x < q; ++x) {
      const int period = 2 + x / (q / 4);
      const bool on = ((y - q / 2) % period) < (period + 1) / 2;
      put(&img, x, y, on ? Rgb{0, 0, 0} : Rgb{255, 255, 255});
    }
  }
  // Top right: a zone plate cos(k r^2), k such that the local frequency k r / pi reaches the
  // Nyquist limit (0.5 cycles per pixel) at the quadrant's corners.
  {
    const double cx = q + q / 2.0 - 0.5, cy = q / 2.0 - 0.5;
    const double r_max = std::sqrt(2.0) * q / 2.0;
    const double k = kPi * 0.5 / r_max;
    for (int y = 0; y < q; ++y) {
      for (int x = q; x < kSource; ++x) {
        const double r2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
        put(&img, x, y, gray(0.5 + 0.5 * std::cos(k * r2)));
      }
    }
  }
  // Bottom left: text-like edges, dark on white, at three sizes, and a few hard shapes.
  fill_rect(&img, 0, q, q, q, kWhite);
  draw_text(&img, 3, q + 4, "AaBb 42", 3, Rgb{0, 0, 0});
  draw_text(&img, 3, q + 36, "upsample", 2, Rgb{180, 20, 30});
  draw_text(&img, 3, q + 58, "The quick brown fox", 1, Rgb{0, 0, 0});
  draw_text(&img, 3, q + 70, "jumps over the lazy", 1, Rgb{20, 40, 160});
  draw_text(&img, 3, q + 82, "dog. 0123456789 #%&", 1, Rgb{0, 0, 0});
  for (int i = 0; i < 8; ++i) {  // a small checkerboard of 3-pixel squares
    for (int j = 0; j < 8; ++j) {
      if ((i + j) % 2 == 0) fill_rect(&img, 4 + 3 * i, q + 98 + 3 * j, 3, 3, Rgb{0, 0, 0});
    }
  }
  for (int t = 0; t < 24; ++t) {  // a one-pixel diagonal and a slanted two-pixel line
    put(&img, 36 + t, q + 98 + t, Rgb{0, 0, 0});
    put(&img, 66 + t, q + 121 - t / 2, Rgb{0, 90, 0});
    put(&img, 66 + t, q + 122 - t / 2, Rgb{0, 90, 0});
  }
  fill_rect(&img, 100, q + 98, 22, 24, Rgb{20, 40, 160});  // a solid block with sharp edges
  // Bottom right: a smooth colour gradient.
  for (int y = q; y < kSource; ++y) {
    for (int x = q; x < kSource; ++x) {
      const double u = (x - q) / (q - 1.0), v = (y - q) / (q - 1.0);
      put(&img, x, y,
          Rgb{static_cast<uint8_t>(std::lround(255.0 * u)),
              static_cast<uint8_t>(std::lround(255.0 * v)),
              static_cast<uint8_t>(std::lround(255.0 * (1.0 - 0.5 * (u + v))))});
    }
  }
  return img;
}

// Splits `text` into lines of at most `width` pixels at `scale` (words longer than a line stay
// whole); '\n' forces a break, an empty paragraph gives an empty line.
std::vector<std::string> wrap(const std::string& text, int width, int scale) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t nl = text.find('\n', start);
    const std::string para =
        text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    std::string line;
    size_t p = 0;
    while (p < para.size()) {
      const size_t space = para.find(' ', p);
      const std::string word =
          para.substr(p, space == std::string::npos ? std::string::npos : space - p);
      p = space == std::string::npos ? para.size() : space + 1;
      const std::string candidate = line.empty() ? word : line + " " + word;
      if (!line.empty() && text_width(candidate, scale) > width) {
        lines.push_back(line);
        line = word;
      } else {
        line = candidate;
      }
    }
    lines.push_back(line);
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------
// A small JSON reader, for the document `upsample check --json` prints.

struct Json {
  enum Type { kNull, kBool, kNumber, kString, kArray, kObject } type = kNull;
  bool boolean = false;
  double number = 0.0;
  std::string string;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;

  const Json* get(const std::string& key) const {
    for (const auto& [k, v] : members) {
      if (k == key) return &v;
    }
    return nullptr;
  }
};

class JsonReader {
 public:
  explicit JsonReader(const std::string& text) : s_(text) {}
  bool parse(Json* out) {
    if (!value(out, 0)) return false;
    skip();
    return pos_ == s_.size();
  }

 private:
  void skip() {
    while (pos_ < s_.size() && std::strchr(" \t\r\n", s_[pos_]) != nullptr) ++pos_;
  }
  bool literal(const char* word) {
    const size_t n = std::strlen(word);
    if (s_.compare(pos_, n, word) != 0) return false;
    pos_ += n;
    return true;
  }
  bool string(std::string* out) {
    if (pos_ >= s_.size() || s_[pos_] != '"') return false;
    ++pos_;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c == '\\') {
        if (pos_ >= s_.size()) return false;
        c = s_[pos_++];
        switch (c) {
          case 'n':
            c = '\n';
            break;
          case 't':
            c = '\t';
            break;
          case 'r':
            c = '\r';
            break;
          case 'b':
            c = '\b';
            break;
          case 'f':
            c = '\f';
            break;
          case 'u': {
            if (pos_ + 4 > s_.size()) return false;
            const long code = std::strtol(s_.substr(pos_, 4).c_str(), nullptr, 16);
            pos_ += 4;
            c = code < 0x80 ? static_cast<char>(code) : '?';
            break;
          }
          default:
            break;  // \" \\ \/
        }
      }
      out->push_back(c);
    }
    if (pos_ >= s_.size()) return false;
    ++pos_;
    return true;
  }
  bool value(Json* out, int depth) {
    if (depth > 64) return false;
    skip();
    if (pos_ >= s_.size()) return false;
    const char c = s_[pos_];
    if (c == '{') {
      out->type = Json::kObject;
      ++pos_;
      skip();
      if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, true;
      while (true) {
        skip();
        std::string key;
        if (!string(&key)) return false;
        skip();
        if (pos_ >= s_.size() || s_[pos_] != ':') return false;
        ++pos_;
        Json v;
        if (!value(&v, depth + 1)) return false;
        out->members.emplace_back(std::move(key), std::move(v));
        skip();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, true;
        return false;
      }
    }
    if (c == '[') {
      out->type = Json::kArray;
      ++pos_;
      skip();
      if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, true;
      while (true) {
        Json v;
        if (!value(&v, depth + 1)) return false;
        out->items.push_back(std::move(v));
        skip();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, true;
        return false;
      }
    }
    if (c == '"') {
      out->type = Json::kString;
      return string(&out->string);
    }
    if (literal("true")) {
      out->type = Json::kBool;
      out->boolean = true;
      return true;
    }
    if (literal("false")) {
      out->type = Json::kBool;
      return true;
    }
    if (literal("null")) return true;
    char* end = nullptr;
    out->number = std::strtod(s_.c_str() + pos_, &end);
    if (end == s_.c_str() + pos_) return false;
    out->type = Json::kNumber;
    pos_ = static_cast<size_t>(end - s_.c_str());
    return true;
  }
  const std::string& s_;
  size_t pos_ = 0;
};

// ---------------------------------------------------------------------------------------------
// The check summary: `upsample check --json` run in this process with stdout captured.

// Runs fn with stdout going to a temporary file; returns its exit status and what it printed.
// Without a temporary file, fn prints normally and *captured stays empty.
int capture_stdout(const std::function<int()>& fn, std::string* captured) {
  std::fflush(stdout);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> tmp(std::tmpfile(), &std::fclose);
  const int saved = tmp ? ::dup(STDOUT_FILENO) : -1;
  if (saved < 0 || ::dup2(fileno(tmp.get()), STDOUT_FILENO) < 0) {
    if (saved >= 0) ::close(saved);
    return fn();
  }
  const int rc = fn();
  std::fflush(stdout);
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  std::rewind(tmp.get());
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, tmp.get())) > 0) captured->append(buf, n);
  return rc;
}

std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// Prints the check summary; returns the check's exit status.
int check_summary() {
  std::string out;
  const int rc = capture_stdout([] { return run_check({"--json"}); }, &out);
  Json doc;
  if (out.empty() || !JsonReader(out).parse(&doc) || doc.type != Json::kObject) {
    std::printf("check: exit status %d (no JSON summary; run 'upsample check' for details)\n", rc);
    return rc == 0 ? 1 : rc;
  }
  const Json* rows = doc.get("rows");
  const Json* adjoint = doc.get("adjoint");
  const Json* summary = doc.get("summary");
  auto count = [](const Json* j, const char* key) {
    const Json* v = j ? j->get(key) : nullptr;
    return v && v->type == Json::kNumber ? static_cast<long>(v->number) : -1L;
  };
  // direction -> dtype -> largest max_ulp_err, dtypes in the order the rows give them
  std::map<std::string, std::vector<std::pair<std::string, double>>> worst_ulp;
  std::vector<std::string> entry_points, failures;
  if (rows) {
    for (const Json& r : rows->items) {
      const Json* ep = r.get("entry_point");
      const Json* dt = r.get("dtype");
      const Json* dir = r.get("direction");
      const Json* ulp = r.get("max_ulp_err");
      const Json* pass = r.get("pass");
      const std::string name = ep && ep->type == Json::kString ? ep->string : "?";
      const std::string dtype = dt && dt->type == Json::kString ? dt->string : "?";
      const std::string direction = dir && dir->type == Json::kString ? dir->string : "?";
      if (std::find(entry_points.begin(), entry_points.end(), name) == entry_points.end()) {
        entry_points.push_back(name);
      }
      auto& per_dtype = worst_ulp[direction];
      auto it = std::find_if(per_dtype.begin(), per_dtype.end(),
                             [&](const auto& p) { return p.first == dtype; });
      if (it == per_dtype.end()) it = per_dtype.insert(per_dtype.end(), {dtype, 0.0});
      if (ulp && ulp->type == Json::kNumber) it->second = std::max(it->second, ulp->number);
      if (pass && pass->type == Json::kBool && !pass->boolean) {
        const Json* layout = r.get("layout");
        const Json* why = r.get("failure");
        failures.push_back(name + " " + dtype + " " +
                           (layout && layout->type == Json::kString ? layout->string : "") +
                           (why && why->type == Json::kString ? ": " + why->string : ""));
      }
    }
  }
  if (adjoint) {
    for (const Json& a : adjoint->items) {
      const Json* pass = a.get("pass");
      if (pass && pass->type == Json::kBool && !pass->boolean) {
        const Json* f = a.get("forward");
        failures.push_back(std::string("adjoint ") +
                           (f && f->type == Json::kString ? f->string : "?"));
      }
    }
  }
  std::printf(
      "check: %ld passed, %ld failed: %zu aclnn entry points against the float64 "
      "reference\n  (%zu entry point x dtype x layout rows, %zu adjoint identities)\n",
      count(summary, "passed"), count(summary, "failed"), entry_points.size(),
      rows ? rows->items.size() : size_t{0}, adjoint ? adjoint->items.size() : size_t{0});
  if (!worst_ulp.empty()) std::printf("  largest error, in ulps of the dtype at max(1, |ref|):\n");
  for (const char* direction : {"forward", "backward"}) {
    const auto it = worst_ulp.find(direction);
    if (it == worst_ulp.end()) continue;
    std::string line;
    for (const auto& [dtype, ulp] : it->second) {
      line += (line.empty() ? "" : ", ") + dtype + " " + short_number(ulp);
    }
    std::printf("    %-9s %s\n", direction, line.c_str());
  }
  for (const std::string& f : failures) std::printf("  FAIL %s\n", f.c_str());
  std::printf("  (the full table: upsample check)\n");
  return rc;
}

// ---------------------------------------------------------------------------------------------
// The bench summary: a few standard workloads, briefly.

int bench_summary(int threads) {
  namespace wl = upsample::bench;
  std::vector<wl::Workload> workloads;
  for (const char* name : {"W1", "W3", "W5", "W7", "W9"})
    workloads.push_back(*wl::find_workload(name));
  // The demo's own operation at a realistic size: an RGB photo, channels-last, downsampled.
  wl::Workload photo;
  photo.name = "img";
  photo.mode = Mode::kCubic;
  photo.antialias = true;
  photo.channels_last = true;
  photo.in = {1, 3, 1536, 2048};
  photo.out = {1, 3, 576, 768};
  photo.what = "bicubic AA NHWC 2048x1536->768x576";
  workloads.push_back(photo);
  wl::RunOptions run;
  run.threads = threads > 0 ? threads : upsample::default_num_threads();
  run.target_ms = 100.0;
  wl::Pool pool(run.threads);
  std::printf("bench (short: ~0.1 s of runs per workload; 'upsample bench' for all W1-W19):\n");
  const int width = 34;
  wl::print_table_header(stdout, width);
  std::string simd;
  bool failed = false;
  for (const wl::Workload& w : workloads) {
    const wl::Result r = wl::run_workload(w, run, pool);
    if (simd.empty()) simd = wl::simd_from_describe(r.describe);
    failed |= !r.ok();
    wl::print_table_row(stdout, r, false, width);
  }
  std::printf("  simd %s, %d threads; x floor = median / a read-once write-once copy kernel's\n",
              simd.empty() ? "?" : simd.c_str(), run.threads);
  return failed ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// The contact sheet: a title, the source and legend in column 0, one cell per variant.

constexpr int kDownY = kLabel;                           // the downsampled image in a cell
constexpr int kUpY = kLabel + kDown * kDownZoom + kGap;  // the round trip (and the source)
constexpr int kDownX = (kCellW - kDown * kDownZoom) / 2;

void cell_origin(int column, int row, int* x, int* y) {
  *x = kMargin + column * (kCellW + kMargin);
  *y = kTitle + row * (kCellH + kMargin);
}

void label_cell(Image* sheet, int x, int y, const std::string& text, Rgb color) {
  const int scale = text_width(text, 2) <= kCellW ? 2 : 1;
  draw_text(sheet, x, y + 4, text, scale, color);
}

Image blank_sheet() {
  Image sheet = Image::blank(kSheetW, kSheetH, 3);
  fill_rect(&sheet, 0, 0, kSheetW, kSheetH, kBackground);
  const std::string title =
      "upsample demo: " + std::to_string(kSource) + "x" + std::to_string(kSource) + " -> " +
      std::to_string(kDown) + "x" + std::to_string(kDown) + " (top, shown 2x) -> " +
      std::to_string(kSource) + "x" + std::to_string(kSource) + " (bottom), float32";
  draw_text(&sheet, kMargin, 12, title, 2, kWhite);
  return sheet;
}

// Column 0: the source under how to read a cell, and what to look for.
void draw_legend(Image* sheet, const Image& source) {
  int x, y;
  cell_origin(0, 0, &x, &y);
  label_cell(sheet, x, y, "source", kWhite);
  const int text_x = x + 6, text_w = kCellW - 12;
  int ly = y + kDownY + 6;
  for (const std::string& line :
       wrap("In each mode's cell:\ntop: the source downsampled to 96x96, each pixel shown as "
            "2x2\nbottom: that image upsampled back to 256x256, same mode\n\nBelow: the "
            "source.",
            text_w, 2)) {
    draw_text(sheet, text_x, ly, line, 2, kDim);
    ly += 19;
  }
  blit(sheet, source, x, y + kUpY);
  cell_origin(0, 1, &x, &y);
  label_cell(sheet, x, y, "what to look for", kWhite);
  ly = y + kDownY + 6;
  for (const std::string& line :
       wrap("Aliasing: moire rings in the zone plate, false stripes in the chirp and the "
            "lines. Antialias removes them: compare each cell with the one below it.\n\nRinging: "
            "light and dark halos beside the text and the blue block (bicubic).\n\n"
            "Blocks: nearest, nearest-exact.\n\nEach image is also a PNG file: "
            "source.png, MODE_down.png, MODE_up.png.",
            text_w, 2)) {
    draw_text(sheet, text_x, ly, line, 2, kDim);
    ly += 19;
  }
}

// Every variant: down and back up, both files written, its cell drawn. Returns 0 or the exit
// status of the failure (reported).
int run_variants(const Image& source, int threads, Image* sheet,
                 const std::function<bool(const std::string&, const Image&)>& save,
                 std::string* error) {
  ResampleSpec spec;
  spec.dtype = DType::kFloat32;
  spec.threads = threads;
  std::printf("  %-20s %s\n", "mode", "files (down to 96x96, back up to 256x256)");
  for (const Variant& v : kVariants) {
    spec.mode = v.mode;
    spec.antialias = v.antialias;
    Image down, up;
    if (!resample_image(source, kDown, kDown, spec, &down, error) ||
        !resample_image(down, kSource, kSource, spec, &up, error)) {
      return failure(std::string("resampling with ") + v.label + " failed: " + *error);
    }
    const std::string down_name = std::string(v.file) + "_down.png";
    const std::string up_name = std::string(v.file) + "_up.png";
    if (!save(down_name, down) || !save(up_name, up)) return failure(*error);
    int x, y;
    cell_origin(v.column, v.row, &x, &y);
    label_cell(sheet, x, y, v.label, kWhite);
    blit(sheet, down, x + kDownX, y + kDownY, kDownZoom);
    blit(sheet, up, x, y + kUpY);
    std::printf("  %-20s %s, %s\n", v.label, down_name.c_str(), up_name.c_str());
  }
  return 0;
}

int demo(const std::string& out_dir, int threads) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) return failure("cannot create the directory '" + out_dir + "': " + ec.message());
  if (!fs::is_directory(out_dir, ec)) {
    return failure("cannot use '" + out_dir + "': it is not a directory");
  }
  const std::string dir = out_dir;
  auto path = [&](const std::string& name) { return (fs::path(dir) / name).string(); };
  std::string error;
  int written = 0;
  auto save = [&](const std::string& name, const Image& img) {
    if (!write_image(path(name), img, WriteOptions{}, &error)) return false;
    ++written;
    return true;
  };

  std::printf(
      "upsample demo: a %dx%d test image (stripes and a chirp, a zone plate, text, a "
      "gradient) resampled\nto %dx%d and back to %dx%d with every mode, float32, RGB\n\n",
      kSource, kSource, kDown, kDown, kSource, kSource);
  const Image source = synthesize();
  if (!save("source.png", source)) return failure(error);
  Image sheet = blank_sheet();
  draw_legend(&sheet, source);
  if (const int rc = run_variants(source, threads, &sheet, save, &error); rc != 0) return rc;
  if (!save("contact_sheet.png", sheet)) return failure(error);
  std::printf("\n  contact sheet: %s (%dx%d)\n\n", path("contact_sheet.png").c_str(), kSheetW,
              kSheetH);
  std::fflush(stdout);

  const int check_rc = check_summary();
  std::printf("\n");
  std::fflush(stdout);
  const int bench_rc = bench_summary(threads);

  std::printf("\nfiles: %d PNGs in %s/ -- open %s\n", written, dir.c_str(),
              path("contact_sheet.png").c_str());
  if (check_rc != 0) return failure("the check failed (run 'upsample check' for the table)");
  if (bench_rc != 0) return failure("a benchmark workload failed");
  return 0;
}

}  // namespace

int run_demo(const std::vector<std::string>& arg_list) {
  std::string out_dir = "upsample-demo";
  int threads = 0;
  ArgReader args(arg_list);
  while (args.next()) {
    const std::string& a = args.name();
    if (a == "-h" || a == "--help") {
      print_help();
      return 0;
    }
    std::string err;
    if (a == "--out") {
      err = args.string_value(&out_dir);
      if (err.empty() && out_dir.empty()) err = "--out needs a directory";
    } else if (a == "--threads") {
      err = args.int_value(1, 9999, &threads, 4);
    } else if (a.rfind("-", 0) == 0) {
      err = "unknown option '" + a + "'";
    } else {
      err = "unexpected argument '" + a + "' (demo takes no input files)";
    }
    if (!err.empty()) return usage_error(err);
  }
  try {
    return demo(out_dir, threads);
  } catch (const std::bad_alloc&) {
    return failure("out of memory");
  } catch (const std::exception& e) {
    return failure(e.what());
  }
}

}  // namespace upsample::cli
