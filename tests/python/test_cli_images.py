#!/usr/bin/python3
"""`upsample resize` with real image files: the codecs, orientation, ICC profiles, --fast, folders.

- codec round trips: PNG and TIFF at 8 and 16 bits, WebP (lossless and lossy) and JPEG, in gray,
  gray + alpha, RGB and RGBA as each format stores them; files written by Pillow read by the tool
  and files written by the tool read by Pillow (and 16-bit files by the PNG codec of
  test_cli_tools.py); JPEG decoding is the same libjpeg-turbo as Pillow's, so bit-exact;
- PNG writing: no larger than Pillow's default save (photo-like RGB, RGBA, gray, gray + alpha,
  16-bit gray, gradients, the demo's contact sheet), every pixel read back by Pillow, libpng
  (OpenCV), libvips and the zlib-based codec of test_cli_tools.py, whatever the number of strips
  (threads), and at every --png-level;
- PNG reading: every filter type, IDAT chunks of any size (empty ones too), 8 and 16 bits in
  every channel count, Adam7 interlacing, tRNS (gray, RGB, palette); faults in the image data
  (CRCs, deflate blocks, the Adler-32, filter types, missing rows, truncation) refused with one
  line, and what libpng lets pass (a bad CRC on an ancillary chunk, data after the last row)
  passing;
- EXIF orientations 1-8 in JPEG (APP1), PNG (eXIf), WebP (EXIF) and TIFF (the orientation tag):
  the pixels after autorotation equal Pillow's ImageOps.exif_transpose, --size follows the
  displayed size, --no-autorotate keeps the stored pixels;
- ICC profiles carried from every format to every format, byte for byte, including a profile
  that spans several JPEG APP2 segments;
- decode errors: truncated and corrupt files of each format, a BMP, a GIF: exit 1, one line
  naming the file and the reason, and no output file (an existing one is left as it was);
- uint8 results: bit-exact against the library called directly (float32 through aclnn, rounded
  half to even), JPEG inputs included; area mode against PyTorch; within 1 of Pillow for
  bilinear and bicubic antialias (the distribution of the differences is printed; for bicubic,
  the samples where Pillow's 8-bit intermediate image clips the overshoot of the first pass are
  shown to be exactly that, with a two-pass run of the tool);
- --fast: decoded at 1/2 (said by -v), PSNR against the exact result above a bound, identical
  to the exact result when no reduction applies;
- folders (-o): relative paths kept, --format, hidden and non-image files skipped, a corrupt file
  among good ones (exit 1, every failure listed at the end, the good ones written and identical
  to single-file runs, nothing half-written), --jobs and --memory-budget giving the same bytes,
  output clashes refused; the progress bar on a pseudo-terminal (pty) and silence otherwise;
  SIGINT in the middle of a run leaves whole files and no temporary one.

Run it as test_cli_tools.py (the environment of harness/cli.py), whose PNG codec, library
reference and fixtures it uses; the last line and the exit status are the same too.
"""

import io
import os
import pty
import shutil
import signal
import subprocess
import sys
import struct
import tempfile
import time
import zlib

import numpy as np
from PIL import Image, ImageCms, ImageOps

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli_tools as tools  # noqa: E402  (the PNG codec, the library reference, fixtures)
from harness.cli import CLI, read_terminal, report, run, run_checks  # noqa: E402

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# --fast against the exact result on the photo-like test image (docs/cli.md reports 52.8 dB
# for 4000x3000 -> 1000x750; the bound leaves room for other content).
FAST_PSNR_DB = 40.0
TMP = None


def info(text):
    print("     " + text)
    sys.stdout.flush()


def tmp(*names):
    return os.path.join(TMP, *names)


def resize(label, src, dst, *args):
    """Runs resize; reports a non-zero exit or any stderr; returns True on success."""
    rc, out, err = run("resize", src, dst, *args)
    return report(rc == 0 and err == "", "%s: exit %d, stderr %r" % (label, rc, err.strip()))


def pil_array(path):
    with Image.open(path) as im:
        return np.asarray(im)


def as_hwc(a):
    a = np.asarray(a)
    return a if a.ndim == 3 else a[:, :, None]


def same(label, got, want):
    got, want = as_hwc(got).astype(np.int64), as_hwc(want).astype(np.int64)
    if got.shape != want.shape:
        return report(False, "%s: shape %s, expected %s" % (label, got.shape, want.shape))
    d = np.abs(got - want)
    return report(d.max() == 0, "%s: %d samples differ (largest %d)" % (
        label, int((d > 0).sum()), int(d.max())))


def psnr(a, b):
    mse = np.mean((np.asarray(a, np.float64) - np.asarray(b, np.float64)) ** 2)
    return 99.0 if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def photo(h, w, seed=0):
    """Photo-like RGB: a smooth colour field plus noise (the benchmark's recipe, smaller)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    img = np.empty((h, w, 3))
    for k in range(3):
        img[:, :, k] = (128 + 60 * np.sin(xx / (0.08 * w + 12 * k) + k) *
                        np.cos(yy / (0.09 * h + 10 * k)) + 40 * np.sin((xx + yy) / (0.2 * w)))
    img += rng.normal(0, 8, img.shape)
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def blocks(h, w, c, seed):
    """8x8 blocks of random colours: survives JPEG at high quality nearly unchanged."""
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, (h // 8, w // 8, c)).astype(np.uint8)
    return np.kron(small, np.ones((8, 8, 1), np.uint8))


PIL_MODES = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}


# ---------------------------------------------------------------------------------------------
# Codecs.


def check_round_trips():
    # Lossless: every channel count the format stores, 8-bit; PNG and TIFF also 16-bit.
    for c in (1, 2, 3, 4):
        src = tools.test_image(19, 23, c, seed=20 + c)
        tools.png_write(tmp("rt.png"), src)
        for ext, flags in [("png", []), ("tif", []), ("webp", ["--webp-lossless"])]:
            label = "%s 8-bit %s: PNG -> tool -> %s" % (ext, PIL_MODES[c], ext)
            if not resize(label, tmp("rt.png"), tmp("rt." + ext), "--scale", "1", "--mode",
                          "nearest", *flags):
                continue
            got = pil_array(tmp("rt." + ext))
            want = src
            if ext == "webp" and c <= 2:  # WebP stores RGB(A): gray is widened
                want = np.concatenate([src[:, :, :1]] * 3 + ([src[:, :, 1:]] if c == 2 else []),
                                      axis=2)
            same(label + ", read by Pillow", got, want)
            # And back: the file read by the tool.
            if resize(label + " -> PNG", tmp("rt." + ext), tmp("rt_back.png"), "--scale", "1",
                      "--mode", "nearest"):
                same(label + " -> tool -> PNG", tools.png_read(tmp("rt_back.png"))[0], want)
    for c in (1, 2, 3, 4):
        src = tools.test_image(13, 17, c, seed=30 + c, bits=16)
        tools.png_write(tmp("rt16.png"), src)
        for ext in ("png", "tif"):
            label = "%s 16-bit %s" % (ext, PIL_MODES[c])
            if not resize(label, tmp("rt16.png"), tmp("rt16." + ext), "--scale", "1", "--mode",
                          "nearest"):
                continue
            if ext == "tif":
                bps = tiff_tags(tmp("rt16.tif")).get(258)
                report(bps == 16, "%s: the TIFF stores 16 bits per sample (%s)" % (label, bps))
            if resize(label + " back", tmp("rt16." + ext), tmp("rt16_back.png"), "--scale", "1",
                      "--mode", "nearest"):
                got, bits = tools.png_read(tmp("rt16_back.png"))
                report(bits == 16, "%s stays 16-bit through %s (bits %d)" % (label, ext, bits))
                same(label + " round trip", got, src)
    # Files written by Pillow, read by the tool: lossless ones exactly.
    for c in (1, 2, 3, 4):
        src = tools.test_image(21, 18, c, seed=40 + c)
        im = Image.fromarray(src[:, :, 0] if c == 1 else src, PIL_MODES[c])
        for ext in ("png", "tif"):
            im.save(tmp("pil." + ext))
            label = "Pillow %s %s read by the tool" % (ext, PIL_MODES[c])
            if resize(label, tmp("pil." + ext), tmp("pil_back.png"), "--scale", "1", "--mode",
                      "nearest"):
                same(label, tools.png_read(tmp("pil_back.png"))[0], src)
    for c in (3, 4):
        src = tools.test_image(21, 18, c, seed=50 + c)
        Image.fromarray(src, PIL_MODES[c]).save(tmp("pil.webp"), lossless=True)
        if resize("Pillow lossless WebP %s" % PIL_MODES[c], tmp("pil.webp"), tmp("pw.png"),
                  "--scale", "1", "--mode", "nearest"):
            same("Pillow lossless WebP %s read by the tool" % PIL_MODES[c],
                 tools.png_read(tmp("pw.png"))[0], src)
    # Palette PNG and 1-bit TIFF: expanded to 8-bit samples.
    pal = Image.fromarray(tools.test_image(16, 16, 3, seed=60)).quantize(colors=16)
    pal.save(tmp("pal.png"))
    if resize("palette PNG", tmp("pal.png"), tmp("pal_out.png"), "--scale", "1", "--mode",
              "nearest"):
        same("palette PNG expanded to RGB", tools.png_read(tmp("pal_out.png"))[0],
             np.asarray(pal.convert("RGB")))
    bilevel = Image.fromarray((tools.test_image(16, 24, 1, seed=61)[:, :, 0] > 128))
    bilevel.save(tmp("bw.tif"))
    if resize("1-bit TIFF", tmp("bw.tif"), tmp("bw_out.png"), "--scale", "1", "--mode",
              "nearest"):
        same("1-bit TIFF read as 8-bit gray", tools.png_read(tmp("bw_out.png"))[0],
             np.asarray(bilevel.convert("L")))
    # JPEG: the tool decodes Pillow's files exactly as Pillow does (both libjpeg-turbo).
    for c, mode in ((1, "L"), (3, "RGB")):
        src = photo(48, 64, seed=70 + c)
        im = Image.fromarray(src[:, :, 0] if c == 1 else src).convert(mode)
        for kwargs in ({"quality": 90}, {"quality": 75, "progressive": True}):
            im.save(tmp("pil.jpg"), **kwargs)
            label = "Pillow JPEG %s %s read by the tool" % (mode, kwargs)
            if resize(label, tmp("pil.jpg"), tmp("pj.png"), "--scale", "1", "--mode", "nearest"):
                same(label, tools.png_read(tmp("pj.png"))[0], pil_array(tmp("pil.jpg")))
    # JPEG and lossy WebP written by the tool: Pillow reads them, close to the source, gray JPEG
    # stays gray, quality orders the sizes.
    src = photo(64, 96, seed=80)
    tools.png_write(tmp("ph.png"), src)
    for ext, flags, bound in [("jpg", ["--quality", "95"], 35), ("webp", ["--quality", "90"], 28)]:
        if resize("RGB -> " + ext, tmp("ph.png"), tmp("ph." + ext), "--scale", "1", "--mode",
                  "nearest", *flags):
            got = pil_array(tmp("ph." + ext))
            p = psnr(got, src)
            report(got.shape == src.shape and p > bound, "tool %s read by Pillow: %s, PSNR "
                   "%.1f dB > %d" % (ext, got.shape, p, bound))
    sizes = {}
    for q in (30, 95):
        if resize("JPEG quality %d" % q, tmp("ph.png"), tmp("q%d.jpg" % q), "--scale", "1",
                  "--mode", "nearest", "--quality", str(q)):
            sizes[q] = os.path.getsize(tmp("q%d.jpg" % q))
    report(len(sizes) == 2 and sizes[30] < sizes[95], "--quality 30 < 95 in bytes: %s" % sizes)
    tools.png_write(tmp("g.png"), src[:, :, :1])
    if resize("gray -> JPEG", tmp("g.png"), tmp("g.jpg"), "--scale", "1", "--mode", "nearest"):
        with Image.open(tmp("g.jpg")) as im:
            report(im.mode == "L", "a gray image is written as a gray JPEG (%s)" % im.mode)
    # CMYK JPEG (Adobe, inverted): converted to RGB like Pillow's CMYK -> RGB.
    cmyk = Image.fromarray(blocks(32, 48, 3, seed=81)).convert("CMYK")
    cmyk.save(tmp("cmyk.jpg"), quality=95)
    if resize("CMYK JPEG", tmp("cmyk.jpg"), tmp("cmyk.png"), "--scale", "1", "--mode",
              "nearest"):
        with Image.open(tmp("cmyk.jpg")) as im:
            want = np.asarray(im.convert("RGB")).astype(int)
        got = tools.png_read(tmp("cmyk.png"))[0].astype(int)
        d = np.abs(got - want).max() if got.shape == want.shape else -1
        report(0 <= d <= 1, "CMYK JPEG as RGB within 1 of Pillow's conversion (max %d)" % d)


def png_chunks(data):
    """The chunks of a PNG file's bytes: (type, data) in order."""
    pos, chunks = 8, []
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        chunks.append((data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]))
        pos += 12 + n
    return chunks


def chunk(kind, body, crc=None):
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF if crc is None else crc
    return len(body).to_bytes(4, "big") + kind + body + crc.to_bytes(4, "big")


def stored_rows(img):
    """An image's rows as a PNG stores them: (h, n) bytes, 16-bit samples big-endian."""
    a = as_hwc(img)
    a = a.astype(">u2") if a.dtype == np.uint16 else a.astype(np.uint8)
    return np.frombuffer(a.tobytes(), np.uint8).reshape(a.shape[0], -1), a.shape[2] * a.itemsize


def filtered(rows, bpp, filters):
    """PNG-filtered rows (a filter type byte before each), row y with filters[y % len]."""
    out, prev = [], np.zeros(rows.shape[1], np.int32)
    for y in range(rows.shape[0]):
        cur = rows[y].astype(np.int32)
        left = np.concatenate([np.zeros(bpp, np.int32), cur[:-bpp]])
        upleft = np.concatenate([np.zeros(bpp, np.int32), prev[:-bpp]])
        kind = filters[y % len(filters)]
        if kind == 4:
            pa, pb = np.abs(prev - upleft), np.abs(left - upleft)
            pc = np.abs(left + prev - 2 * upleft)
            pred = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, prev, upleft))
        else:
            pred = [0, left, prev, (left + prev) // 2][kind]
        out.append(bytes([kind]) + ((cur - pred) & 0xFF).astype(np.uint8).tobytes())
        prev = cur
    return b"".join(out)


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
         (0, 1, 1, 2)]


def png_bytes(img, filters=(0,), idat_sizes=None, interlace=False, stream=None, after=b""):
    """A PNG of `img` (HxW or HxWxC, uint8 or uint16) written here: rows filtered with
    `filters` in turn (each Adam7 pass on its own when `interlace`), the zlib stream (or
    `stream`) split into IDAT chunks of `idat_sizes` bytes in turn, `after` (chunks) before
    IEND."""
    a = as_hwc(img)
    h, w, c = a.shape
    bits = 16 if a.dtype == np.uint16 else 8
    if stream is None:
        passes = [a[y0::dy, x0::dx] for x0, y0, dx, dy in ADAM7] if interlace else [a]
        raw = b"".join(filtered(*stored_rows(p), filters) for p in passes if p.size)
        stream = zlib.compress(raw, 6)
    sizes = idat_sizes or [len(stream)]
    idats, pos, k = [], 0, 0
    while pos < len(stream) or not idats:
        idats.append(chunk(b"IDAT", stream[pos:pos + sizes[k % len(sizes)]]))
        pos += sizes[k % len(sizes)]
        k += 1
    ihdr = struct.pack(">IIBBBBB", w, h, bits, tools.COLOR_TYPE[c], 0, 0, 1 if interlace else 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + b"".join(idats) + after +
            chunk(b"IEND", b""))


def read_back(label, path, want):
    """`path` (a PNG the tool wrote) read by Pillow, by the test's own codec (zlib, every CRC
    checked), by libpng (OpenCV's reader) and by libvips: every one gives `want` exactly."""
    want = as_hwc(want)
    c = want.shape[2]
    if want.dtype == np.uint8 or c == 1:  # Pillow has no 16-bit colour modes
        same(label + ", read by Pillow", pil_array(path), want)
    same(label + ", read by the test's PNG codec", tools.png_read(path)[0], want)
    try:
        import cv2
    except ImportError:
        return report(False, "%s: OpenCV (python3-opencv, installed by ./dev) is missing" % label)
    got = as_hwc(cv2.imread(path, cv2.IMREAD_UNCHANGED))
    bgr = np.concatenate([want[:, :, :1]] * 3 + [want[:, :, 1:]], 2) if c == 2 else want
    bgr = bgr[:, :, [2, 1, 0, 3][:bgr.shape[2]]] if bgr.shape[2] >= 3 else bgr
    same(label + ", read by libpng (OpenCV)", got, bgr)
    if shutil.which("vips") is None:
        return report(False, "%s: vips (libvips-tools, installed by ./dev) is missing" % label)
    p = subprocess.run(["vips", "rawsave", path, path + ".raw"], capture_output=True, text=True)
    if report(p.returncode == 0, "%s: vips rawsave: %r" % (label, p.stderr)):
        raw = np.fromfile(path + ".raw", want.dtype).reshape(want.shape)
        same(label + ", read by libvips", raw, want)


def check_png_writing():
    """The tool's PNGs: no larger than Pillow's default save, and read back exactly by Pillow,
    libpng, libvips and zlib; the same pixels whatever the number of strips (threads)."""
    contact = pil_array(os.path.join(SOURCE_DIR, "docs", "images", "contact_sheet.png"))
    rng = np.random.default_rng(95)
    cases = [("photo", photo(300, 400, seed=90)),
             ("gradient", np.stack(np.mgrid[0:240, 0:320], -1)[:, :, [1, 0, 0]]
              .astype(np.uint8)),
             ("large gradient", np.stack(np.mgrid[0:1500, 0:2000] // 8, -1)[:, :, [1, 0, 1]]
              .astype(np.uint8)),
             ("rgba", np.concatenate([photo(200, 300, seed=91),
                                      np.full((200, 300, 1), 200, np.uint8)], 2)),
             ("gray", photo(150, 200, seed=92)[:, :, 0]),
             ("gray + alpha", np.stack([photo(150, 200, seed=96)[:, :, 0],
                                        photo(150, 200, seed=97)[:, :, 1]], 2)),
             ("gray16", (photo(150, 200, seed=93)[:, :, 0].astype(np.uint16) * 257 +
                         np.arange(200, dtype=np.uint16)[None, :])),
             ("contact sheet", contact),
             ("large photo", photo(1200, 1600, seed=98)),
             # Few distinct levels: here Pillow's four filters beat the five of libpng's
             # heuristic by 15-25%, and the tool writes Pillow's stream.
             ("posterized photo", photo(400, 600, seed=100) // 16 * 16),
             ("3-bit noise", rng.integers(0, 8, (400, 600, 3), dtype=np.uint8) * 32)]
    for name, img in cases:
        tools.png_write(tmp("sz_in.png"), img)
        Image.fromarray(img).save(tmp("sz_pil.png"))
        if resize("PNG size " + name, tmp("sz_in.png"), tmp("sz_us.png"), "--scale", "1",
                  "--mode", "nearest"):
            ours, pil = os.path.getsize(tmp("sz_us.png")), os.path.getsize(tmp("sz_pil.png"))
            info("PNG %s: %d bytes, Pillow %d (%.4f)" % (name, ours, pil, ours / pil))
            report(ours <= pil, "PNG %s: %d bytes, Pillow %d" % (name, ours, pil))
            with open(tmp("sz_us.png"), "rb") as f:
                kinds = [k for k, _ in png_chunks(f.read())]
            report(kinds[0] == b"IHDR" and kinds[-1] == b"IEND" and
                   set(kinds[1:-1]) == {b"IDAT"}, "PNG %s: chunks %s" % (name, kinds))
            read_back("PNG " + name, tmp("sz_us.png"), img)
    # Strips: the image data compressed in pieces by several threads, joined into one zlib
    # stream. Different streams for different thread counts, the same pixels. (A resized photo,
    # as in I2: libdeflate's stream clearly smaller than Pillow's, so it is written alone.)
    img = np.asarray(Image.fromarray(photo(1800, 1400, seed=99)).resize((700, 900),
                                                                         Image.BICUBIC))
    img = np.concatenate([img, img[:, :, 1:2] // 2 + 100], 2)  # and an alpha channel
    tools.png_write(tmp("st_in.png"), img)
    streams = {}
    for threads in (1, 2, 3, 8):
        out = tmp("st%d.png" % threads)
        if resize("%d threads" % threads, tmp("st_in.png"), out, "--scale", "1", "--mode",
                  "nearest", "--threads", str(threads)):
            with open(out, "rb") as f:
                streams[threads] = b"".join(d for k, d in png_chunks(f.read()) if k == b"IDAT")
            read_back("PNG of %d threads" % threads, out, img)
    report(len(set(streams.values())) == 4, "1, 2, 3 and 8 threads write 4 different streams "
           "(%s bytes)" % [len(v) for v in streams.values()])
    rows16 = rng.integers(0, 65536, (70, 90, 3), dtype=np.uint16)
    for c in (2, 3, 4):  # 16-bit colour: no Pillow mode to compare sizes with
        tools.png_write(tmp("w16.png"), rows16[:, :, :c])
        if resize("16-bit %s" % PIL_MODES[c], tmp("w16.png"), tmp("w16_out.png"), "--scale",
                  "1", "--mode", "nearest"):
            read_back("PNG 16-bit %s" % PIL_MODES[c], tmp("w16_out.png"), rows16[:, :, :c])
    sizes = {}
    src = photo(300, 400, seed=94)
    tools.png_write(tmp("lv.png"), src)
    for level in range(10):
        if resize("--png-level %d" % level, tmp("lv.png"), tmp("lv%d.png" % level), "--scale",
                  "1", "--mode", "nearest", "--png-level", str(level)):
            sizes[level] = os.path.getsize(tmp("lv%d.png" % level))
            same("--png-level %d is lossless" % level, pil_array(tmp("lv%d.png" % level)), src)
    Image.fromarray(src).save(tmp("lv_pil.png"))
    report(len(sizes) == 10 and sizes[9] <= sizes[6] <= os.path.getsize(tmp("lv_pil.png")) and
           sizes[6] < sizes[1] < sizes[0], "--png-level 9 <= 6 <= Pillow's and 6 < 1 < 0 in "
           "bytes: %s" % sizes)


def check_png_reading():
    """PNGs of every kind read exactly: each filter type, IDAT chunks of any size, 8 and 16 bits
    in every channel count, Adam7 interlacing, tRNS, palettes."""
    rng = np.random.default_rng(130)
    for bits in (8, 16):
        for c in (1, 2, 3, 4):
            img = rng.integers(0, 65536 if bits == 16 else 256, (37, 29, c),
                               dtype=np.uint16 if bits == 16 else np.uint8)
            img[10:20] = img[9:10]  # runs that the filters turn into zeros
            for filters, sizes in [((0, 1, 2, 3, 4), None), ((4, 3, 2, 1), [1, 7, 0, 100]),
                                   ((3,), [4096])]:
                label = "PNG %d-bit %s, filters %s, IDAT sizes %s" % (bits, PIL_MODES[c],
                                                                     filters, sizes)
                with open(tmp("rd.png"), "wb") as f:
                    f.write(png_bytes(img, filters, sizes))
                if resize(label, tmp("rd.png"), tmp("rd_out.png"), "--scale", "1", "--mode",
                          "nearest"):
                    same(label + ": the tool's output", tools.png_read(tmp("rd_out.png"))[0], img)
            with open(tmp("adam7.png"), "wb") as f:
                f.write(png_bytes(img, (0, 1, 2, 3, 4), interlace=True))
            label = "PNG %d-bit %s, Adam7 interlaced" % (bits, PIL_MODES[c])
            if resize(label, tmp("adam7.png"), tmp("adam7_out.png"), "--scale", "1", "--mode",
                      "nearest"):
                same(label, tools.png_read(tmp("adam7_out.png"))[0], img)
    # tRNS: one colour (gray or RGB) or palette entries made transparent.
    rgb = rng.integers(0, 4, (20, 30, 3), dtype=np.uint8) * 60
    key = rgb[3, 4]
    Image.fromarray(rgb).save(tmp("trns_rgb.png"), transparency=tuple(int(v) for v in key))
    Image.fromarray(rgb[:, :, 0]).save(tmp("trns_gray.png"), transparency=int(key[0]))
    Image.fromarray(rgb).quantize(colors=16).save(tmp("trns_pal.png"),
                                                  transparency=bytes([0, 128] + [255] * 14))
    opaque = np.where((rgb == key).all(2, keepdims=True), 0, 255).astype(np.uint8)
    gray_opaque = np.where(rgb[:, :, :1] == key[0], 0, 255).astype(np.uint8)
    for label, path, want in [
            ("RGB + tRNS", tmp("trns_rgb.png"), np.concatenate([rgb, opaque], 2)),
            ("gray + tRNS", tmp("trns_gray.png"), np.concatenate([rgb[:, :, :1], gray_opaque], 2)),
            ("palette + tRNS", tmp("trns_pal.png"),
             np.asarray(Image.open(tmp("trns_pal.png")).convert("RGBA")))]:
        if resize(label, path, tmp("trns_out.png"), "--scale", "1", "--mode", "nearest"):
            same(label + " read as alpha", tools.png_read(tmp("trns_out.png"))[0], want)


# ---------------------------------------------------------------------------------------------
# Orientation and ICC.


def save_oriented(img, path, orientation):
    exif = Image.Exif()
    exif[0x0112] = orientation
    if path.endswith(".tif"):
        img.save(path, tiffinfo={274: orientation})
    elif path.endswith(".jpg"):
        img.save(path, quality=95, exif=exif.tobytes())
    elif path.endswith(".webp"):
        img.save(path, lossless=True, exif=exif.tobytes())
    else:
        img.save(path, exif=exif.tobytes())


def upright(stored, orientation):
    """The displayed pixels of `stored` under an EXIF orientation (1-8)."""
    a = stored
    return {1: a, 2: a[:, ::-1], 3: a[::-1, ::-1], 4: a[::-1], 5: a.transpose(1, 0, 2),
            6: np.rot90(a, -1), 7: np.rot90(a, 2).transpose(1, 0, 2), 8: np.rot90(a, 1)}[orientation]


def tiff_tags(path):
    """Tag -> first value of IFD0 of a TIFF file (enough for SHORT and LONG tags)."""
    with open(path, "rb") as f:
        data = f.read()
    order = "<" if data[:2] == b"II" else ">"
    ifd = int(np.frombuffer(data[4:8], order + "u4")[0])
    count = int(np.frombuffer(data[ifd:ifd + 2], order + "u2")[0])
    tags = {}
    for i in range(count):
        e = data[ifd + 2 + 12 * i:ifd + 14 + 12 * i]
        tag, kind = (int(v) for v in np.frombuffer(e[:4], order + "u2"))
        n = int(np.frombuffer(e[4:8], order + "u4")[0])
        if kind == 3 and n <= 2:
            tags[tag] = int(np.frombuffer(e[8:10], order + "u2")[0])
        elif kind == 4 and n == 1:
            tags[tag] = int(np.frombuffer(e[8:12], order + "u4")[0])
        elif kind == 3:  # SHORTs stored elsewhere: the first one
            off = int(np.frombuffer(e[8:12], order + "u4")[0])
            tags[tag] = int(np.frombuffer(data[off:off + 2], order + "u2")[0])
    return tags


def check_orientation():
    src = Image.fromarray(blocks(24, 40, 3, seed=100))
    for ext in ("jpg", "png", "webp", "tif"):
        for o in range(1, 9):
            path = tmp("o%d.%s" % (o, ext))
            save_oriented(src, path, o)
            if ext == "tif":
                # Pillow's TIFF reader flips some orientations itself: the pixels as written
                # are the reference there.
                stored = np.asarray(src)
            else:
                with Image.open(path) as im:
                    stored = np.asarray(im.convert("RGB"))
                    same("%s orientation %d: the reference agrees with Pillow's exif_transpose"
                         % (ext, o), upright(stored, o), np.asarray(ImageOps.exif_transpose(im)))
            want = upright(stored, o)
            label = "%s orientation %d" % (ext, o)
            if resize(label, path, tmp("o_out.png"), "--scale", "1", "--mode", "nearest"):
                same(label + ": upright like exif_transpose", pil_array(tmp("o_out.png")), want)
            if resize(label + " --no-autorotate", path, tmp("o_raw.png"), "--scale", "1",
                      "--mode", "nearest", "--no-autorotate"):
                same(label + " --no-autorotate: as stored", pil_array(tmp("o_raw.png")), stored)
    # The output size follows the displayed size: 40x24 stored, 24x40 shown for 5-8.
    save_oriented(src, tmp("o6.jpg"), 6)
    if resize("--size 12x with orientation 6", tmp("o6.jpg"), tmp("o6s.png"), "--size", "12x",
              "--mode", "bilinear", "--antialias"):
        got = pil_array(tmp("o6s.png"))
        report(got.shape[:2] == (20, 12), "orientation 6, --size 12x: 12x20 (got %dx%d)" % (
            got.shape[1], got.shape[0]))
        # Autorotation happens before resampling: the library's result on the upright image.
        with Image.open(tmp("o6.jpg")) as im:
            shown = np.asarray(ImageOps.exif_transpose(im))
        same("orientation 6 resampled upright", got,
             tools.expected_image(shown, 20, 12, "bilinear", antialias=True))


def srgb_profile():
    return ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()


def check_icc():
    icc = srgb_profile()
    src = Image.fromarray(photo(30, 40, seed=110))
    for a in ("jpg", "png", "webp", "tif"):
        src.save(tmp("icc_in." + a), icc_profile=icc)
        for b in ("jpg", "png", "webp", "tif"):
            label = "ICC %s -> %s" % (a, b)
            if resize(label, tmp("icc_in." + a), tmp("icc_out." + b), "--size", "20x15",
                      "--mode", "bicubic", "--antialias"):
                with Image.open(tmp("icc_out." + b)) as im:
                    got = im.info.get("icc_profile")
                report(got == icc, "%s: the profile is kept byte for byte (%s bytes)" % (
                    label, None if got is None else len(got)))
    # A profile over 64 KB spans several APP2 segments in JPEG.
    big = bytearray(icc) + bytes(range(256)) * 600
    big[0:4] = len(big).to_bytes(4, "big")
    big = bytes(big)
    src.save(tmp("big_icc.jpg"), icc_profile=big)
    for b in ("jpg", "webp", "tif"):
        if resize("big ICC -> " + b, tmp("big_icc.jpg"), tmp("big_out." + b), "--scale", "0.5",
                  "--mode", "bilinear"):
            with Image.open(tmp("big_out." + b)) as im:
                got = im.info.get("icc_profile")
            report(got == big, "a %d-byte profile JPEG -> %s is kept (%s bytes)" % (
                len(big), b, None if got is None else len(got)))
    # No profile in, none out.
    src.save(tmp("noicc.jpg"))
    if resize("no ICC", tmp("noicc.jpg"), tmp("noicc.png"), "--scale", "0.5", "--mode",
              "bilinear"):
        with Image.open(tmp("noicc.png")) as im:
            report("icc_profile" not in im.info, "no profile in, none out")


# ---------------------------------------------------------------------------------------------
# Errors.


def expect_failure(label, path, want, ext="png"):
    out = tmp("never." + ext)
    with open(out + ".old", "wb") as f:
        f.write(b"previous contents")
    shutil.copy(out + ".old", tmp("kept." + ext))
    before = set(os.listdir(TMP))
    rc, stdout, err = run("resize", path, tmp("kept." + ext), "--size", "8x8", "--mode",
                          "bilinear")
    lines = err.strip().splitlines()
    with open(tmp("kept." + ext), "rb") as f:
        kept = f.read() == b"previous contents"
    after = set(os.listdir(TMP))
    report(rc == 1 and stdout == "" and len(lines) == 1 and
           lines[0].startswith("upsample resize: ") and os.path.basename(path) in lines[0] and
           all(w in lines[0] for w in want) and kept and after == before,
           "%s: exit %d, one line naming the file with %r, the existing output untouched (%s), "
           "no stray files (%s): %r" % (label, rc, want, kept, sorted(after - before), err))


def check_decode_errors():
    src = Image.fromarray(photo(64, 64, seed=120))
    src.save(tmp("good.jpg"), quality=90)
    src.save(tmp("good.png"))
    src.save(tmp("good.webp"))
    src.save(tmp("good.tif"))
    for ext in ("jpg", "png", "webp", "tif"):
        with open(tmp("good." + ext), "rb") as f:
            data = f.read()
        with open(tmp("trunc." + ext), "wb") as f:
            f.write(data[:len(data) // 2])
        corrupt = bytearray(data)
        for i in range(len(data) // 3, len(data) // 3 + 64):
            corrupt[i] ^= 0x5A
        with open(tmp("bad." + ext), "wb") as f:
            f.write(bytes(corrupt[:40]) + bytes(200) if ext != "jpg" else bytes(corrupt))
    name = {"jpg": "JPEG", "png": "PNG", "webp": "WebP", "tif": "TIFF"}
    for ext in ("jpg", "png", "webp", "tif"):
        expect_failure("truncated " + ext, tmp("trunc." + ext), ["cannot decode", name[ext]])
        expect_failure("corrupt " + ext, tmp("bad." + ext), ["cannot decode", name[ext]])
    Image.fromarray(photo(8, 8)).save(tmp("pic.gif"))
    Image.fromarray(photo(8, 8)).save(tmp("pic.bmp"))
    expect_failure("GIF", tmp("pic.gif"), ["GIF", "PNG, JPEG, WebP and TIFF"])
    expect_failure("BMP", tmp("pic.bmp"), ["BMP", "PNG, JPEG, WebP and TIFF"])
    # An encoder refusal leaves nothing behind either: WebP is at most 16383 pixels a side.
    before = set(os.listdir(TMP))
    rc, _, err = run("resize", tmp("good.png"), tmp("huge.webp"), "--size", "17000x2", "--mode",
                     "nearest")
    report(rc == 1 and "16383" in err and set(os.listdir(TMP)) == before,
           "WebP too wide: exit 1, no file (%d, %r)" % (rc, err))


def check_png_errors():
    """Faults in a PNG's image data (read by the tool, not libpng): exit 1, one line naming the
    file and the fault, no output; what libpng lets pass (a bad CRC on an ancillary chunk, data
    after the last row) passes."""
    img = photo(40, 50, seed=140)
    rows, bpp = stored_rows(img)
    raw = filtered(rows, bpp, (0, 1, 2, 3, 4))
    stream = zlib.compress(raw, 6)
    good = png_bytes(img, stream=stream)
    ihdr_end = 8 + 25
    idat = chunk(b"IDAT", stream)
    iend = chunk(b"IEND", b"")
    text = chunk(b"tEXt", b"Comment\x00hello")
    no_filter_5 = bytearray(raw)
    no_filter_5[0] = 5
    cases = [
        ("a wrong IDAT CRC", good[:ihdr_end] + idat[:-4] + bytes(4) + iend, ["IDAT", "CRC"]),
        ("an invalid deflate block", png_bytes(img, stream=b"\x78\x9c\x07" + stream[3:]),
         ["corrupt image data", "block"]),
        ("a wrong Adler-32", png_bytes(img, stream=stream[:-1] + bytes([stream[-1] ^ 1])),
         ["corrupt image data", "Adler-32"]),
        ("filter type 5", png_bytes(img, stream=zlib.compress(bytes(no_filter_5))),
         ["filter", "5"]),
        ("rows missing", png_bytes(img, stream=zlib.compress(raw[:-len(raw) // 3])),
         ["Not enough image data"]),
        ("the zlib stream cut short", png_bytes(img, stream=stream[:len(stream) // 2]),
         ["Not enough image data"]),
        ("the file cut in the image data", good[:len(good) // 2], ["truncated"]),
        ("no IEND", good[:-12], ["truncated"]),
        ("a wrong IEND CRC", good[:-4] + bytes(4), ["IEND", "CRC"]),
    ]
    for label, data, want in cases:
        with open(tmp("fault.png"), "wb") as f:
            f.write(data)
        expect_failure("PNG with " + label, tmp("fault.png"), ["cannot decode", "PNG"] + want)
    for label, data in [
            ("a wrong CRC on an ancillary chunk after the image data",
             good[:-12] + text[:-4] + bytes(4) + iend),
            ("data after the last row", png_bytes(img, stream=zlib.compress(raw + bytes(99))))]:
        with open(tmp("lenient.png"), "wb") as f:
            f.write(data)
        if resize("PNG with " + label, tmp("lenient.png"), tmp("lenient_out.png"), "--scale", "1",
                  "--mode", "nearest"):
            same("PNG with %s: the pixels" % label, tools.png_read(tmp("lenient_out.png"))[0], img)


# ---------------------------------------------------------------------------------------------
# Pixels: the library, PyTorch, Pillow.


def check_pixels():
    # JPEG input: the tool's result is the library's on the decoded samples (Pillow's decode).
    src = photo(90, 120, seed=130)
    Image.fromarray(src).save(tmp("px.jpg"), quality=92)
    decoded = pil_array(tmp("px.jpg"))
    for mode, flags, size in [("bicubic", ["--antialias"], (37, 29)), ("bilinear", [], (250, 61)),
                              ("nearest-exact", [], (33, 200))]:
        label = "JPEG %s %s -> %dx%d" % (mode, " ".join(flags), *size)
        if resize(label, tmp("px.jpg"), tmp("px.png"), "--size", "%dx%d" % size, "--mode", mode,
                  *flags):
            same(label + " == library", tools.png_read(tmp("px.png"))[0],
                 tools.expected_image(decoded, size[1], size[0], mode, "--antialias" in flags))
    # Area mode: PyTorch's adaptive average pooling, rounded half to even.
    try:
        import torch
        import torch.nn.functional as F
        x = torch.tensor(src.transpose(2, 0, 1)[None].astype(np.float32))
        tools.png_write(tmp("px_src.png"), src)
        for size in [(40, 30), (37, 23)]:
            if resize("area %dx%d" % size, tmp("px_src.png"), tmp("area.png"), "--size",
                      "%dx%d" % size, "--mode", "area"):
                exact = F.interpolate(x, size=(size[1], size[0]), mode="area")[0].numpy()
                exact = exact.transpose(1, 2, 0).astype(np.float64)
                got = tools.png_read(tmp("area.png"))[0].astype(np.float64)
                # A mean that is a tie (k + 0.5) rounds either way when the library's float sum
                # differs from PyTorch's in the last bit: ties may differ by 1, nothing else.
                tie = np.abs(exact - np.floor(exact) - 0.5) < 1e-3
                d = np.abs(got - np.clip(np.rint(exact), 0, 255))
                report(d[~tie].max() == 0 and d[tie].max(initial=0) <= 1,
                       "area %dx%d == PyTorch rounded (off-tie max %d; %d of %d ties differ)" % (
                           *size, d[~tie].max(), int((d[tie] > 0).sum()), int(tie.sum())))
    except ImportError:
        report(False, "PyTorch (python3-torch) is needed for the area-mode check")
    # Pillow: bilinear and bicubic antialias on RGB, within 1: a photo, and an image with
    # saturated bands where cubic overshoots.
    images = {"photo": np.asarray(Image.open(io.BytesIO(_photo_jpeg(300, 400)))),
              "bands": tools.test_image(120, 160, 3, seed=141, noise=0.1)}
    for name, img in images.items():
        tools.png_write(tmp("pil_src.png"), img)
        for mode, pil_filter in (("bilinear", Image.BILINEAR), ("bicubic", Image.BICUBIC)):
            for size in ((100, 75), (173, 91), (640, 480)):
                label = "%s %s antialias %dx%d vs Pillow" % (name, mode, *size)
                if not resize(label, tmp("pil_src.png"), tmp("pil_us.png"), "--size",
                              "%dx%d" % size, "--mode", mode, "--antialias"):
                    continue
                ours = tools.png_read(tmp("pil_us.png"))[0].astype(int)
                pil = np.asarray(Image.fromarray(img).resize(size, pil_filter)).astype(int)
                d = np.abs(ours - pil)
                info("%s: |difference| histogram %s" % (label, np.bincount(d.ravel()).tolist()))
                if mode == "bilinear":
                    report(d.max() <= 1, "%s: within 1 everywhere (max %d)" % (label, d.max()))
                    continue
                report((d <= 1).mean() >= 0.999, "%s: within 1 for %.3f%% of samples (max %d)" %
                       (label, 100 * (d <= 1).mean(), d.max()))
                # Pillow resamples horizontally into an 8-bit image (rounded, clipped to
                # 0..255), then vertically. The tool run the same way, in two passes, is within
                # 2 of Pillow everywhere (1 per rounded pass): the larger single-pass
                # differences are the clipping of the first pass's overshoot.
                if resize(label + " (first pass)", tmp("pil_src.png"), tmp("pass1.png"),
                          "--size", "%dx%d" % (size[0], img.shape[0]), "--mode", mode,
                          "--antialias") and \
                        resize(label + " (second pass)", tmp("pass1.png"), tmp("pass2.png"),
                               "--size", "%dx%d" % size, "--mode", mode, "--antialias"):
                    d2 = np.abs(tools.png_read(tmp("pass2.png"))[0].astype(int) - pil)
                    info("%s, two passes: |difference| histogram %s" % (
                        label, np.bincount(d2.ravel()).tolist()))
                    report(d2.max() <= 2, "%s: two passes like Pillow's, within 2 everywhere "
                           "(max %d)" % (label, d2.max()))


def _photo_jpeg(h, w):
    buf = io.BytesIO()
    Image.fromarray(photo(h, w, seed=140)).save(buf, "JPEG", quality=92)
    return buf.getvalue()


# ---------------------------------------------------------------------------------------------
# --fast.


def check_fast():
    with open(tmp("fast.jpg"), "wb") as f:
        f.write(_photo_jpeg(1200, 1600))
    args = ["--size", "400x300", "--mode", "bicubic", "--antialias"]
    ok_exact = resize("exact 1600x1200 -> 400x300", tmp("fast.jpg"), tmp("exact.png"), *args)
    rc, out, err = run("resize", tmp("fast.jpg"), tmp("fast.png"), *args, "--fast", "-v")
    report(rc == 0 and "at 1/2 (800x600, --fast)" in out,
           "--fast decodes 1600x1200 at 1/2 for 400x300 (-v: %r %r)" % (out.strip(), err))
    if ok_exact and rc == 0:
        exact, fast = pil_array(tmp("exact.png")), pil_array(tmp("fast.png"))
        p = psnr(exact, fast)
        info("--fast vs exact, 1600x1200 photo -> 400x300: PSNR %.2f dB" % p)
        report(exact.shape == fast.shape and FAST_PSNR_DB < p < 99,
               "--fast is close to the exact result but not it: PSNR %.2f dB > %.0f" % (
                   p, FAST_PSNR_DB))
    # No reduction when the target is less than 4x smaller (2x margin kept), nor for PNG.
    for label, src, size in [("3x smaller", tmp("fast.jpg"), "533x400"),
                             ("PNG", tmp("exact.png"), "100x75")]:
        a = resize("exact " + label, src, tmp("fa.png"), "--size", size, "--mode", "bilinear",
                   "--antialias")
        b = resize("--fast " + label, src, tmp("fb.png"), "--size", size, "--mode", "bilinear",
                   "--antialias", "--fast")
        if a and b:
            same("--fast, " + label + ": identical to exact", pil_array(tmp("fb.png")),
                 pil_array(tmp("fa.png")))


# ---------------------------------------------------------------------------------------------
# Folders.


def make_tree(root):
    os.makedirs(os.path.join(root, "sub", "deep"))
    os.makedirs(os.path.join(root, ".hidden_dir"))
    Image.fromarray(photo(60, 80, seed=150)).save(os.path.join(root, "a.jpg"), quality=90)
    Image.fromarray(photo(64, 48, seed=151)).save(os.path.join(root, "sub", "b.png"))
    Image.fromarray(photo(40, 40, seed=152)).save(os.path.join(root, "sub", "deep", "c.webp"))
    rgba = np.concatenate([photo(30, 50, seed=153), np.full((30, 50, 1), 128, np.uint8)], 2)
    Image.fromarray(rgba).save(os.path.join(root, "sub", "d.tif"))
    Image.fromarray(photo(20, 20)).save(os.path.join(root, ".hidden.jpg"))
    Image.fromarray(photo(20, 20)).save(os.path.join(root, ".hidden_dir", "e.png"))
    with open(os.path.join(root, "notes.txt"), "w") as f:
        f.write("not an image\n")


def listing(root):
    found = []
    for dirpath, _, files in os.walk(root):
        found += [os.path.relpath(os.path.join(dirpath, f), root) for f in files]
    return sorted(found)


def check_folders():
    src = tmp("tree")
    make_tree(src)
    args = ["--size", "24x", "--mode", "bicubic", "--antialias"]
    rc, out, err = run("resize", src, "-o", tmp("out1"), *args)
    report(rc == 0 and out == "" and err == "", "folder: exit 0 and quiet off a terminal "
           "(%d, %r, %r)" % (rc, out, err))
    want = ["a.jpg", "sub/b.png", "sub/d.tif", "sub/deep/c.webp"]
    report(listing(tmp("out1")) == want, "folder: relative paths kept, hidden and non-image "
           "files skipped: %s" % listing(tmp("out1")))
    for rel in want:  # each is what a single-file run writes, byte for byte
        single = tmp("single." + rel.rsplit(".", 1)[1])
        if resize("single " + rel, os.path.join(src, rel), single, *args):
            with open(single, "rb") as f, open(os.path.join(tmp("out1"), rel), "rb") as g:
                report(f.read() == g.read(), "folder output %s == the single-file output" % rel)
    # --format, --jobs, --memory-budget: same pixels.
    rc, _, err = run("resize", src, "-o", tmp("out2"), *args, "--format", "png", "--jobs", "1",
                     "--memory-budget", "1")
    report(rc == 0 and listing(tmp("out2")) == ["a.png", "sub/b.png", "sub/d.png",
                                                "sub/deep/c.png"],
           "--format png renames every output: %s (%r)" % (listing(tmp("out2")), err))
    rc, _, err = run("resize", src, "-o", tmp("out3"), *args, "--format", "png", "--jobs", "4")
    if report(rc == 0, "--jobs 4: exit %d %r" % (rc, err)):
        for rel in listing(tmp("out2")):
            with open(os.path.join(tmp("out2"), rel), "rb") as f, \
                    open(os.path.join(tmp("out3"), rel), "rb") as g:
                report(f.read() == g.read(), "--jobs 1 --memory-budget 1 and --jobs 4 write the "
                       "same %s" % rel)
    # Files and a folder together; a corrupt file and a missing one among good ones.
    bad = tmp("tree", "sub", "broken.jpg")
    with open(tmp("tree", "a.jpg"), "rb") as f:
        data = f.read()
    with open(bad, "wb") as f:
        f.write(data[:len(data) // 3])
    Image.fromarray(photo(30, 30, seed=160)).save(tmp("loose.png"))
    rc, out, err = run("resize", src, tmp("loose.png"), tmp("missing.png"), "-o", tmp("out4"),
                       *args)
    lines = err.strip().splitlines()
    report(rc == 1 and lines and lines[0] == "upsample resize: 2 of 7 files failed:" and
           any("broken.jpg" in l and "cannot decode" in l for l in lines[1:]) and
           any("missing.png" in l and "No such file" in l for l in lines[1:]) and
           len(lines) == 3,
           "a corrupt and a missing file: exit 1, both listed at the end (%d, %r)" % (rc, err))
    got = listing(tmp("out4"))
    report(got == ["a.jpg", "loose.png", "sub/b.png", "sub/d.tif", "sub/deep/c.webp"],
           "the good files are written, nothing else (no partial or temporary file): %s" % got)
    os.remove(bad)
    # Clashes and misuse.
    Image.fromarray(photo(30, 30)).save(tmp("tree", "a.png"))
    rc, _, err = run("resize", src, "-o", tmp("out5"), *args, "--format", "webp")
    report(rc == 2 and "a.jpg" in err and "a.png" in err and not os.path.exists(tmp("out5")),
           "two inputs to one output: exit 2 before any work (%d, %r)" % (rc, err))
    os.remove(tmp("tree", "a.png"))
    rc, _, err = run("resize", src, "-o", src, *args)
    report(rc == 2 and "overwritten" in err, "-o onto the inputs: exit 2 (%d, %r)" % (rc, err))
    for extra, what in [(["--format", "gif"], "--format"), (["--jobs", "0"], "--jobs"),
                        (["--memory-budget", "lots"], "--memory-budget")]:
        rc, _, err = run("resize", src, "-o", tmp("out6"), *args, *extra)
        report(rc == 2 and what in err, "%s: exit 2 naming it (%d, %r)" % (extra, rc, err))
    rc, _, err = run("resize", tmp("loose.png"), tmp("x.png"), *args, "--jobs", "2")
    report(rc == 2 and "-o" in err, "--jobs without -o: exit 2 (%d, %r)" % (rc, err))
    rc, _, err = run("resize", tmp("loose.png"), tmp("x.png"), tmp("y.png"), *args)
    report(rc == 2 and "-o OUTDIR" in err, "three files without -o: exit 2 (%d, %r)" % (rc, err))


def check_progress():
    os.makedirs(tmp("many"))
    for i in range(12):
        Image.fromarray(photo(40, 40, seed=200 + i)).save(tmp("many", "%02d.jpg" % i))
    args = ["resize", tmp("many"), "-o", tmp("many_out"), "--size", "20x20", "--mode",
            "bilinear", "--antialias"]
    master, slave = pty.openpty()
    p = subprocess.Popen([CLI] + args, stdin=slave, stdout=slave, stderr=slave)
    os.close(slave)
    tty = read_terminal(master, p)
    p.wait(timeout=60)
    os.close(master)
    report(p.returncode == 0 and b"\r" in tty and b"12/12 files" in tty and b"files/s" in tty
           and b"12 files in" in tty,
           "on a terminal: a progress bar with files/s and a summary (%r)" % tty[-300:])
    shutil.rmtree(tmp("many_out"))
    rc, out, err = run(*args)
    report(rc == 0 and out == "" and err == "", "piped: no progress output (%d, %r, %r)" % (
        rc, out, err[-200:]))


def check_interrupt():
    """SIGINT in the middle of a folder run: the files written are whole, no temporary file is
    left."""
    os.makedirs(tmp("int_in"))
    for i in range(40):
        Image.fromarray(photo(300, 400, seed=300 + i)).save(tmp("int_in", "%02d.png" % i))
    p = subprocess.Popen([CLI, "resize", tmp("int_in"), "-o", tmp("int_out"), "--size", "200x150",
                          "--mode", "bicubic", "--antialias", "--jobs", "1"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline and p.poll() is None and \
            len(os.listdir(tmp("int_out")) if os.path.isdir(tmp("int_out")) else []) < 3:
        time.sleep(0.01)
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=120)
    names = os.listdir(tmp("int_out")) if os.path.isdir(tmp("int_out")) else []
    whole = True
    for name in names:
        try:
            with Image.open(tmp("int_out", name)) as im:
                im.load()
                whole = whole and im.size == (200, 150)
        except Exception:
            whole = False
    report(p.returncode in (-signal.SIGINT, 0) and names and
           not any(n.startswith(".") for n in names) and whole,
           "SIGINT during a folder run: exit %s, %d whole files, no temporary file (%s)" % (
               p.returncode, len(names), sorted(n for n in names if n.startswith("."))))


def main():
    global TMP
    if not os.path.exists(CLI):
        print("FAIL the upsample tool is not at %r (set UPSAMPLE_BUILD_DIR)" % CLI)
        print("0 passed, 1 failed")
        return 1
    TMP = tempfile.mkdtemp(prefix="upsample_cli_images_")
    tools.TMP = TMP
    try:
        return run_checks([check_round_trips, check_png_writing, check_png_reading,
                           check_orientation, check_icc, check_decode_errors, check_png_errors,
                           check_pixels, check_fast, check_folders, check_progress,
                           check_interrupt])
    finally:
        shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
