#!/usr/bin/python3
"""The `upsample` subcommands resize, bench and demo (and `check --json`, briefly):

- resize: generated PNG (gray, RGB, RGBA, 16-bit) and JPEG files in every mode, with and
  without antialias / align_corners, sizes and scales, every dtype (the default uint8 / uint16
  storage included): the output size, and every pixel against the library called directly (the
  aclnn entry points through ctypes, on the same samples, rounded half to even and saturated as
  the tool documents); premultiplied alpha; JPEG / WebP / TIFF writing; error paths (missing
  file, corrupt image, not an image, a BMP, zero size, unknown mode, undefined combinations,
  unwritable output) with their exit status (1 runtime, 2 usage) and a one-line message naming
  what and why (the codecs, orientation, ICC profiles and folders: test_cli_images.py);
- check --json: parsed, rows and summary asserted;
- bench: a tiny custom shape in JSON and text (both floor variants), a standard workload, the
  aclnn call-cost rows, usage errors, the progress line on a terminal (pty) and none otherwise;
  build/upsample_bench --json (the same runner);
- demo: exit 0, the contact sheet is a readable PNG of the documented size, every result file
  is there, the check and bench summaries are printed.

Images are written and read with a minimal zlib-based PNG codec below (PIL, Debian's
python3-pil, cross-checks the JPEG files). JPEG inputs are made by the tool itself and decoded
back to PNG by it (nearest, same size, uint8: a bit-exact copy).

Run:  UPSAMPLE_BUILD_DIR=build /usr/bin/python3 tests/python/test_cli_tools.py
Env:  as harness/cli.py says (UPSAMPLE_BUILD_DIR required).
Last line: "N passed, N failed"; exit status 1 if any check failed.
"""

import json
import os
import pty
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import aclnn  # noqa: E402
from harness.cli import (BUILD_DIR, CLI, TIMEOUT_S, read_terminal, report, run,  # noqa: E402
                          run_checks)
# The contact sheet's size (tools/demo.cpp; documented in docs/cli.md).
SHEET_W, SHEET_H = 1074, 1030

# ---------------------------------------------------------------------------------------------
# A minimal PNG codec (non-interlaced; gray, gray + alpha, RGB, RGBA; 8 or 16 bits).

COLOR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}
CHANNELS = {v: k for k, v in COLOR_TYPE.items()}


def _chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data +
            struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def png_write(path, arr):
    arr = np.asarray(arr)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    h, w, c = arr.shape
    bits = 16 if arr.dtype == np.uint16 else 8
    samples = arr.astype(">u2" if bits == 16 else np.uint8)
    raw = b"".join(b"\x00" + samples[y].tobytes() for y in range(h))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, bits, COLOR_TYPE[c], 0, 0, 0)))
        f.write(_chunk(b"IDAT", zlib.compress(raw, 6)))
        f.write(_chunk(b"IEND", b""))


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def png_read(path):
    """Returns (array HxWxC of uint8 or uint16, bits)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, "bad CRC in %r" % kind
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + n
    w, h, bits, ctype, _, _, interlace = ihdr
    assert interlace == 0 and bits in (8, 16) and ctype in CHANNELS, ihdr
    c = CHANNELS[ctype]
    bpp = c * bits // 8
    stride = w * bpp
    raw = zlib.decompress(idat)
    assert len(raw) == h * (stride + 1), "IDAT size"
    out = bytearray(h * stride)
    prev = bytearray(stride)
    for y in range(h):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            cc = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xFF
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xFF
            elif ftype == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 0xFF
            elif ftype == 4:
                line[i] = (line[i] + _paeth(a, b, cc)) & 0xFF
        out[y * stride:(y + 1) * stride] = line
        prev = line
    arr = np.frombuffer(bytes(out), dtype=">u2" if bits == 16 else np.uint8)
    return arr.reshape(h, w, c).astype(np.uint16 if bits == 16 else np.uint8), bits


# ---------------------------------------------------------------------------------------------
# The library called directly: aclnn entry points on NCHW float tensors.

ACL = None


def acl():
    global ACL
    if ACL is None:
        ACL = aclnn.Acl()
    return ACL


def lib_resample(values_hwc, out_h, out_w, mode, antialias=False, align_corners=False,
                 scale_x=0.0, scale_y=0.0, acl_dtype=aclnn.ACL_FLOAT):
    """values (H, W, C) -> the library's (out_h, out_w, C) result as float64 values."""
    x = np.ascontiguousarray(np.asarray(values_hwc, dtype=np.float64).transpose(2, 0, 1)[None])
    n, c = x.shape[0], x.shape[1]
    xt = aclnn.TensorBuf.from_values(x, acl_dtype, aclnn.ACL_FORMAT_NCHW)
    yt = aclnn.TensorBuf.empty([n, c, out_h, out_w], acl_dtype, aclnn.ACL_FORMAT_NCHW)
    size = aclnn.IntArray([out_h, out_w])
    if mode == "nearest":
        assert scale_x == 0.0 and scale_y == 0.0
        r = acl().call("aclnnUpsampleNearest2d", xt, size, yt)
    elif mode == "nearest-exact":
        r = acl().call("aclnnUpsampleNearestExact2d", xt, size, scale_y, scale_x, yt)
    else:
        name = {"bilinear": "aclnnUpsampleBilinear2d", "bicubic": "aclnnUpsampleBicubic2d"}[mode]
        if antialias:
            name += "AA"
        r = acl().call(name, xt, size, align_corners, scale_y, scale_x, yt)
    assert r.ok, r
    return np.asarray(yt.to_numpy(), dtype=np.float64)[0].transpose(1, 2, 0)


def round_saturate(v, vmax=255):
    v = np.nan_to_num(np.asarray(v, dtype=np.float64), nan=0.0)
    return np.clip(np.rint(v), 0, vmax)


def expected_image(src, out_h, out_w, mode, antialias=False, align_corners=False, scale_x=0.0,
                   scale_y=0.0, acl_dtype=aclnn.ACL_FLOAT, premultiply=True):
    """What `upsample resize` must produce, from the library's result (docs/cli.md)."""
    src = src if src.ndim == 3 else src[:, :, None]
    vmax = 65535 if src.dtype == np.uint16 else 255
    c = src.shape[2]
    values = src.astype(np.float64)
    alpha = c in (2, 4)
    pm = premultiply and alpha and mode in ("bilinear", "bicubic", "area")
    if not pm:
        out = lib_resample(values, out_h, out_w, mode, antialias, align_corners, scale_x, scale_y,
                           acl_dtype)
        return round_saturate(out, vmax)
    # The library's premultiplied alpha (docs/numerics.md): c * a in float32, the float32
    # resample, c' / a' in float32 (0 where a' <= 0), rounded once.
    assert acl_dtype == aclnn.ACL_FLOAT
    f = np.float32
    v = values.astype(f)
    pre = np.concatenate([v[:, :, :-1] * v[:, :, -1:], v[:, :, -1:]], axis=2)
    out = lib_resample(pre.astype(np.float64), out_h, out_w, mode, antialias, align_corners,
                       scale_x, scale_y, acl_dtype).astype(f)
    a = out[:, :, -1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        colour = np.where(a > 0, out[:, :, :-1] / np.where(a > 0, a, f(1)), f(0)).astype(f)
    return round_saturate(np.concatenate([colour, a], axis=2).astype(np.float64), vmax)


def compare(name, got, want):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        return report(False, "%s: shape %s, expected %s" % (name, got.shape, want.shape))
    diff = np.abs(got - want)
    if diff.max() == 0:
        return report(True, name)
    idx = np.unravel_index(np.argmax(diff), diff.shape)
    return report(False, "%s: %d samples differ, largest at %s: got %g, library %g" % (
        name, int((diff > 0).sum()), idx, got[idx], want[idx]))


# ---------------------------------------------------------------------------------------------
# Fixtures.

TMP = None


def tmp(name):
    return os.path.join(TMP, name)


def test_image(h, w, c, seed, bits=8, noise=0.2):
    """Smooth structure plus noise plus a few hard edges: exercises every tap."""
    rng = np.random.default_rng(seed)
    vmax = 65535 if bits == 16 else 255
    yy, xx = np.mgrid[0:h, 0:w]
    img = np.empty((h, w, c), dtype=np.float64)
    for k in range(c):
        img[:, :, k] = 0.5 + 0.3 * np.sin(0.7 * xx + 1.3 * k) * np.cos(0.45 * yy + k)
    img += rng.uniform(-noise, noise, img.shape)
    img[h // 3:h // 2, :, :] = 1.0  # a bright band: saturation after cubic overshoot
    img[:, w // 4, :] = 0.0         # a dark line
    img = np.clip(np.rint(img * vmax), 0, vmax)
    return img.astype(np.uint16 if bits == 16 else np.uint8)


def resize_ok(label, src_path, out_path, *args):
    """Runs resize; reports failure on a non-zero exit; returns the output image or None."""
    rc, out, err = run("resize", src_path, out_path, *args)
    if not report(rc == 0 and err == "", "%s: exit %d, stderr %r" % (label, rc, err.strip())):
        return None
    return png_read(out_path)[0] if out_path.endswith(".png") else True


# ---------------------------------------------------------------------------------------------
# resize: pixel values against the library.


def check_resize_modes():
    src = test_image(17, 23, 3, seed=1)
    png_write(tmp("rgb.png"), src)
    cases = []
    for size in [(41, 30), (9, 7)]:  # (W, H): up, down
        cases += [("nearest", [], size), ("nearest-exact", [], size),
                  ("bilinear", [], size), ("bicubic", [], size),
                  ("bilinear", ["--antialias"], size), ("bicubic", ["--antialias"], size),
                  ("bilinear", ["--align-corners"], size), ("bicubic", ["--align-corners"], size),
                  ("bicubic", ["--antialias", "--align-corners"], size)]
    for mode, flags, (w, h) in cases:
        label = "resize RGB PNG 23x17 -> %dx%d %s %s" % (w, h, mode, " ".join(flags))
        got = resize_ok(label, tmp("rgb.png"), tmp("out.png"), "--size", "%dx%d" % (w, h),
                        "--mode", mode, *flags)
        if got is None:
            continue
        report(got.shape == (h, w, 3), "%s: output shape %s" % (label, got.shape))
        compare(label, got, expected_image(src, h, w, mode, "--antialias" in flags,
                                           "--align-corners" in flags))


def check_resize_gray_and_scales():
    gray = test_image(20, 24, 1, seed=2)
    png_write(tmp("gray.png"), gray)
    for mode, flags in [("bilinear", []), ("bicubic", ["--antialias"]), ("nearest", [])]:
        label = "resize gray PNG 24x20 -> 13x31 %s %s" % (mode, " ".join(flags))
        got = resize_ok(label, tmp("gray.png"), tmp("out.png"), "--size", "13x31", "--mode",
                        mode, *flags)
        if got is not None:
            report(got.shape == (31, 13, 1), "%s: gray stays gray (shape %s)" % (label, got.shape))
            compare(label, got, expected_image(gray, 31, 13, mode, "--antialias" in flags))
    # --scale: the output side is floor(in * s) and s reaches the library as scale_factor.
    for mode, scale, flags in [("bilinear", "1.7", []), ("bicubic", "0.45", ["--antialias"]),
                               ("nearest-exact", "1.7,0.45", []), ("bilinear", "1.7,0.6", [])]:
        sx, sy = [float(s) for s in (scale.split(",") * 2)[:2]]
        w, h = int(np.floor(24 * sx)), int(np.floor(20 * sy))
        label = "resize gray --scale %s %s %s" % (scale, mode, " ".join(flags))
        got = resize_ok(label, tmp("gray.png"), tmp("out.png"), "--scale", scale, "--mode", mode,
                        *flags)
        if got is None:
            continue
        report(got.shape[:2] == (h, w), "%s: size %s, expected %dx%d" % (
            label, got.shape[1::-1], w, h))
        compare(label, got, expected_image(gray, h, w, mode, "--antialias" in flags, False,
                                           scale_x=sx, scale_y=sy))
    # Nearest with a scale whose ratio equals the sizes' ratio (the entry point has no scales).
    got = resize_ok("resize --scale 0.5,2 nearest", tmp("gray.png"), tmp("out.png"), "--scale",
                    "0.5,2", "--mode", "nearest")
    if got is not None:
        compare("resize --scale 0.5,2 nearest", got, expected_image(gray, 40, 12, "nearest"))
    # Keep the aspect ratio: 'Wx' and 'xH'.
    for size, want in [("48x", (40, 48)), ("x10", (10, 12))]:
        got = resize_ok("resize --size " + size, tmp("gray.png"), tmp("out.png"), "--size", size,
                        "--mode", "bilinear")
        if got is not None:
            report(got.shape[:2] == want, "resize --size %s: %s, expected %s" % (
                size, got.shape[:2], want))


def check_resize_dtypes():
    src = test_image(15, 19, 3, seed=3)
    png_write(tmp("rgb2.png"), src)
    for dtype, acl_dtype in [("float16", aclnn.ACL_FLOAT16), ("bfloat16", aclnn.ACL_BF16),
                             ("float64", aclnn.ACL_DOUBLE), ("float32", aclnn.ACL_FLOAT)]:
        for mode, flags in [("bilinear", []), ("bicubic", ["--antialias"])]:
            label = "resize --dtype %s %s %s" % (dtype, mode, " ".join(flags))
            got = resize_ok(label, tmp("rgb2.png"), tmp("out.png"), "--size", "11x29", "--mode",
                            mode, "--dtype", dtype, *flags)
            if got is not None:
                compare(label, got, expected_image(src, 29, 11, mode, "--antialias" in flags,
                                                   acl_dtype=acl_dtype))
    # uint8 (the default storage of 8-bit samples) in every mode: the float32 result rounded
    # once, so the same pixels as --dtype float32 and as the library in float32.
    for mode in ["nearest", "nearest-exact", "bilinear", "bicubic"]:
        a = resize_ok("resize --dtype uint8 " + mode, tmp("rgb2.png"), tmp("u8.png"), "--size",
                      "37x8", "--mode", mode, "--dtype", "uint8")
        b = resize_ok("resize --dtype float32 " + mode, tmp("rgb2.png"), tmp("f32.png"),
                      "--size", "37x8", "--mode", mode, "--dtype", "float32")
        if a is not None and b is not None:
            compare("resize %s: uint8 == float32" % mode, a, b)
            compare("resize %s uint8 vs library" % mode, a, expected_image(src, 8, 37, mode))
    # Identity: same size nearest in uint8 copies the file's pixels.
    got = resize_ok("resize identity uint8", tmp("rgb2.png"), tmp("id.png"), "--scale", "1",
                    "--mode", "nearest", "--dtype", "uint8")
    if got is not None:
        compare("resize --scale 1 nearest uint8 is the identity", got, src)


def check_resize_alpha():
    # Transparent pure red next to opaque blue: with premultiplied alpha no red may appear in
    # a visible pixel; resampling straight alpha bleeds it.
    h, w = 12, 16
    img = np.zeros((h, w, 4), dtype=np.uint8)
    img[:, :, 0] = 255             # red everywhere ...
    img[:, w // 2:, :] = (0, 0, 255, 255)  # ... under an opaque blue right half
    img[:, :w // 2, 3] = 0         # left half transparent
    png_write(tmp("rgba.png"), img)
    for mode, flags in [("bilinear", []), ("bicubic", []), ("bicubic", ["--antialias"])]:
        label = "resize RGBA premultiplied %s %s" % (mode, " ".join(flags))
        got = resize_ok(label, tmp("rgba.png"), tmp("out.png"), "--size", "27x7", "--mode", mode,
                        *flags)
        if got is None:
            continue
        visible = got[:, :, 3] > 0
        report(got.shape == (7, 27, 4), "%s: shape %s" % (label, got.shape))
        report(visible.any() and int(got[:, :, 0][visible].max()) == 0,
               "%s: no red bleeds into visible pixels (max red %d)" % (
                   label, int(got[:, :, 0][visible].max()) if visible.any() else -1))
        compare(label, got, expected_image(img, 7, 27, mode, "--antialias" in flags))
    got = resize_ok("resize RGBA --straight-alpha", tmp("rgba.png"), tmp("out.png"), "--size",
                    "27x7", "--mode", "bilinear", "--straight-alpha")
    if got is not None:
        visible = got[:, :, 3] > 0
        report(int(got[:, :, 0][visible].max()) > 0,
               "resize --straight-alpha: red does bleed (the documented difference)")
        compare("resize RGBA --straight-alpha", got,
                expected_image(img, 7, 27, "bilinear", premultiply=False))
    # A random RGBA image, premultiplied, exact; and nearest keeps straight alpha exactly.
    rnd = test_image(14, 18, 4, seed=4)
    png_write(tmp("rgba2.png"), rnd)
    for mode in ["bilinear", "bicubic", "nearest"]:
        got = resize_ok("resize RGBA random " + mode, tmp("rgba2.png"), tmp("out.png"), "--size",
                        "31x9", "--mode", mode)
        if got is not None:
            compare("resize RGBA random %s" % mode, got, expected_image(rnd, 9, 31, mode))
    # The uint8 tensor (the default) and a float32 tensor give the same pixels: the library
    # premultiplies in its float32 kernels either way.
    for mode in ["bilinear", "bicubic"]:
        a = resize_ok("resize RGBA uint8 " + mode, tmp("rgba2.png"), tmp("u8.png"), "--size",
                      "13x5", "--mode", mode)
        b = resize_ok("resize RGBA float32 " + mode, tmp("rgba2.png"), tmp("f32.png"), "--size",
                      "13x5", "--mode", mode, "--dtype", "float32")
        if a is not None and b is not None:
            compare("resize RGBA %s: uint8 and float32 tensors agree" % mode, a, b)
            compare("resize RGBA %s" % mode, a, expected_image(rnd, 5, 13, mode))
    # Gray + alpha.
    ga = test_image(10, 13, 2, seed=5)
    png_write(tmp("ga.png"), ga)
    got = resize_ok("resize gray+alpha", tmp("ga.png"), tmp("out.png"), "--size", "20x6",
                    "--mode", "bicubic")
    if got is not None:
        compare("resize gray+alpha bicubic", got, expected_image(ga, 6, 20, "bicubic"))


def check_resize_16bit():
    src = test_image(11, 14, 3, seed=6, bits=16)
    png_write(tmp("rgb16.png"), src)
    label = "resize 16-bit PNG bilinear"
    rc, _, err = run("resize", tmp("rgb16.png"), tmp("out16.png"), "--size", "25x9", "--mode",
                     "bilinear")
    if report(rc == 0, "%s: exit %d %r" % (label, rc, err)):
        got, bits = png_read(tmp("out16.png"))
        report(bits == 16, "%s: the output is a 16-bit PNG (bits %d)" % (label, bits))
        want = expected_image(src, 9, 25, "bilinear")
        compare(label, got, want)
        got8 = resize_ok("resize 16-bit --bits 8", tmp("rgb16.png"), tmp("out8.png"), "--size",
                         "25x9", "--mode", "bilinear", "--bits", "8")
        if got8 is not None:
            compare("resize 16-bit --bits 8 is round(v16 / 257)", got8,
                    np.floor((want + 128) / 257))
    for dtype, acl_dtype in [("bfloat16", aclnn.ACL_BF16), ("float64", aclnn.ACL_DOUBLE),
                             ("uint16", aclnn.ACL_FLOAT), ("float32", aclnn.ACL_FLOAT)]:
        got = resize_ok("resize 16-bit --dtype " + dtype, tmp("rgb16.png"), tmp("o.png"),
                        "--size", "6x20", "--mode", "bicubic", "--dtype", dtype)
        if got is not None:
            compare("resize 16-bit bicubic --dtype " + dtype, got,
                    expected_image(src, 20, 6, "bicubic", acl_dtype=acl_dtype))
    # 16-bit into an 8-bit-only format, or through float16: refused, with the way out.
    rc, out, err = run("resize", tmp("rgb16.png"), tmp("o.jpg"), "--size", "6x6", "--mode",
                       "bilinear")
    report(rc == 2 and "16-bit" in err and "--bits 8" in err and not os.path.exists(tmp("o.jpg")),
           "resize 16-bit -> .jpg refused: exit %d %r" % (rc, err))
    rc, out, err = run("resize", tmp("rgb16.png"), tmp("o.png"), "--size", "6x6", "--mode",
                       "bilinear", "--dtype", "float16")
    report(rc == 2 and "float16" in err, "resize 16-bit --dtype float16 refused: %d %r" % (rc, err))
    # 8-bit -> --bits 16: v * 257.
    png_write(tmp("small8.png"), test_image(5, 6, 1, seed=7))
    rc, _, err = run("resize", tmp("small8.png"), tmp("o16.png"), "--scale", "1", "--mode",
                     "nearest", "--bits", "16")
    if report(rc == 0, "resize --bits 16: exit %d %r" % (rc, err)):
        got, bits = png_read(tmp("o16.png"))
        compare("resize --bits 16 is v * 257", got,
                test_image(5, 6, 1, seed=7).astype(np.float64) * 257)


def check_resize_formats():
    src = test_image(16, 21, 3, seed=8, noise=0.0)  # JPEG-friendly: no pixel noise
    png_write(tmp("f.png"), src)
    # JPEG input: made by the tool, decoded by the tool (uint8 identity), resized in each mode.
    if resize_ok("resize PNG -> JPEG", tmp("f.png"), tmp("f.jpg"), "--scale", "1", "--mode",
                 "nearest", "--quality", "90") is None:
        return
    decoded = resize_ok("decode JPEG -> PNG", tmp("f.jpg"), tmp("f_dec.png"), "--scale", "1",
                        "--mode", "nearest", "--dtype", "uint8")
    if decoded is None:
        return
    report(decoded.shape == src.shape, "JPEG decodes to the size written: %s" % (decoded.shape,))
    err_mean = np.abs(decoded.astype(float) - src).mean()
    report(err_mean < 12, "JPEG round trip close to the source (mean abs error %.2f)" % err_mean)
    for mode, flags in [("nearest", []), ("nearest-exact", []), ("bilinear", []),
                        ("bicubic", []), ("bilinear", ["--antialias"]),
                        ("bicubic", ["--antialias"])]:
        label = "resize JPEG 21x16 -> 10x33 %s %s" % (mode, " ".join(flags))
        got = resize_ok(label, tmp("f.jpg"), tmp("out.png"), "--size", "10x33", "--mode", mode,
                        *flags)
        if got is not None:
            report(got.shape == (33, 10, 3), "%s: shape %s" % (label, got.shape))
            compare(label, got, expected_image(decoded, 33, 10, mode, "--antialias" in flags))
    try:
        from PIL import Image as PILImage  # optional cross-check with another decoder
        with PILImage.open(tmp("f.jpg")) as im:
            report(im.format == "JPEG" and im.size == (21, 16),
                   "PIL reads our JPEG: %s %s" % (im.format, im.size))
    except ImportError:
        pass
    # Lossless formats: written and read back exactly (RGB, RGBA, gray + alpha; WebP widens
    # gray to RGB).
    rgba = test_image(9, 11, 4, seed=9)
    png_write(tmp("a.png"), rgba)
    ga = test_image(9, 11, 2, seed=10)
    png_write(tmp("ga2.png"), ga)
    for name, image, ext, flags in [("f.png", src, "tif", []), ("a.png", rgba, "tif", []),
                                    ("ga2.png", ga, "tiff", []),
                                    ("f.png", src, "webp", ["--webp-lossless"]),
                                    ("a.png", rgba, "webp", ["--webp-lossless"])]:
        label = "%s -> .%s -> .png" % (name, ext)
        if resize_ok(label, tmp(name), tmp("x." + ext), "--scale", "1", "--mode", "nearest",
                     *flags) is None:
            continue
        back = resize_ok(label + " back", tmp("x." + ext), tmp("back.png"), "--scale", "1",
                         "--mode", "nearest")
        if back is not None:
            compare(label + " is lossless", back, image)
    if resize_ok("gray+alpha -> .webp", tmp("ga2.png"), tmp("ga.webp"), "--scale", "1", "--mode",
                 "nearest", "--webp-lossless") is not None:
        back = resize_ok("gray+alpha .webp back", tmp("ga.webp"), tmp("back.png"), "--scale",
                         "1", "--mode", "nearest")
        if back is not None:
            want = np.concatenate([ga[:, :, :1]] * 3 + [ga[:, :, 1:]], axis=2)
            compare("gray+alpha .webp keeps alpha (as RGBA)", back, want)
    # JPEG output of a resize, read back: size right, values close to the PNG result.
    got_png = resize_ok("resize -> PNG", tmp("f.png"), tmp("r.png"), "--size", "30x25", "--mode",
                        "bicubic")
    if resize_ok("resize -> JPEG", tmp("f.png"), tmp("r.jpg"), "--size", "30x25", "--mode",
                  "bicubic", "--quality", "100") is not None and got_png is not None:
        back = resize_ok("JPEG result decoded", tmp("r.jpg"), tmp("rb.png"), "--scale", "1",
                         "--mode", "nearest")
        if back is not None:
            e = np.abs(back.astype(float) - got_png).mean()
            report(back.shape == (25, 30, 3) and e < 6,
                   "resize -> .jpg: 30x25 and close to the PNG result (mean abs error %.2f)" % e)


# ---------------------------------------------------------------------------------------------
# resize: errors.


def expect_error(label, want_rc, want_text, *args, out_file=None):
    rc, out, err = run("resize", *args)
    lines = err.strip().splitlines()
    ok = (rc == want_rc and len(lines) == 1 and lines[0].startswith("upsample resize: ") and
          all(t in lines[0] for t in want_text) and out == "")
    if out_file is not None:
        ok = ok and not os.path.exists(out_file)
    report(ok, "%s: exit %d (want %d), stderr %r (want one line with %r)" % (
        label, rc, want_rc, err, want_text))


def check_resize_errors():
    png_write(tmp("e.png"), test_image(8, 8, 3, seed=11))
    png_write(tmp("ea.png"), test_image(8, 8, 4, seed=12))
    with open(tmp("corrupt.png"), "wb") as f:  # a PNG signature, then garbage
        f.write(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    with open(tmp("truncated.png"), "wb") as f:
        with open(tmp("e.png"), "rb") as g:
            f.write(g.read()[:60])
    with open(tmp("text.png"), "w") as f:
        f.write("this is not an image\n" * 20)
    open(tmp("empty.png"), "wb").close()
    out = tmp("never.png")
    base = ["--size", "4x4", "--mode", "bilinear"]
    missing = tmp("does-not-exist.png")
    expect_error("missing file", 1, [missing, "No such file"], missing, out, *base, out_file=out)
    expect_error("corrupt PNG", 1, ["corrupt.png", "cannot decode", "PNG"], tmp("corrupt.png"),
                 out, *base, out_file=out)
    expect_error("truncated PNG", 1, ["truncated.png", "cannot decode"], tmp("truncated.png"),
                 out, *base, out_file=out)
    expect_error("not an image", 1, ["text.png", "not a PNG, JPEG, WebP or TIFF image"],
                 tmp("text.png"), out, *base, out_file=out)
    expect_error("empty file", 1, ["empty.png", "empty"], tmp("empty.png"), out, *base,
                 out_file=out)
    expect_error("directory as input", 1, ["directory"], TMP, out, *base, out_file=out)
    e = tmp("e.png")
    expect_error("zero size", 2, ["--size", "0x4"], e, out, "--size", "0x4", "--mode", "bilinear",
                 out_file=out)
    expect_error("size not a number", 2, ["--size", "axb"], e, out, "--size", "axb", "--mode",
                 "nearest", out_file=out)
    expect_error("size too large", 2, ["--size"], e, out, "--size", "70000x4", "--mode",
                 "nearest", out_file=out)
    expect_error("zero scale", 2, ["--scale"], e, out, "--scale", "0", "--mode", "nearest",
                 out_file=out)
    expect_error("scale giving zero pixels", 2, ["--scale 0.01", "at least 1 pixel"], e, out,
                 "--scale", "0.01", "--mode", "nearest", out_file=out)
    expect_error("unknown mode", 2, ["unknown --mode 'lanczos'", "bicubic"], e, out, "--size",
                 "4x4", "--mode", "lanczos", out_file=out)
    expect_error("missing mode", 2, ["missing --mode"], e, out, "--size", "4x4", out_file=out)
    expect_error("missing size", 2, ["missing --size or --scale"], e, out, "--mode", "nearest",
                 out_file=out)
    expect_error("size and scale", 2, ["not both"], e, out, "--size", "4x4", "--scale", "2",
                 "--mode", "nearest", out_file=out)
    expect_error("antialias with nearest", 2, ["--antialias", "nearest"], e, out, "--size", "4x4",
                 "--mode", "nearest", "--antialias", out_file=out)
    expect_error("align-corners with nearest-exact", 2, ["--align-corners", "nearest-exact"], e,
                 out, "--size", "4x4", "--mode", "nearest-exact", "--align-corners", out_file=out)
    expect_error("uint16 on 8-bit samples", 2, ["uint16", "8-bit"], e, out, "--size", "4x4",
                 "--mode", "bilinear", "--dtype", "uint16", out_file=out)
    with open(tmp("pic.bmp"), "wb") as f:  # a BMP header: named, not decoded
        f.write(b"BM" + bytes(60))
    expect_error("BMP input", 1, ["pic.bmp", "BMP", "PNG, JPEG, WebP and TIFF"], tmp("pic.bmp"),
                 out, *base, out_file=out)
    expect_error("BMP output", 2, ["x.bmp", ".webp"], e, tmp("x.bmp"), *base,
                 out_file=tmp("x.bmp"))
    expect_error("unknown dtype", 2, ["unknown --dtype 'int7'"], e, out, "--size", "4x4",
                 "--mode", "bilinear", "--dtype", "int7", out_file=out)
    expect_error("unknown option", 2, ["unknown option '--frobnicate'"], e, out, *base,
                 "--frobnicate", out_file=out)
    expect_error("missing OUT", 2, ["missing the OUT"], e, *base)
    expect_error("missing IN and OUT", 2, ["missing IN and OUT"], *base)
    expect_error("option without value", 2, ["--mode needs a value"], e, out, "--size", "4x4",
                 "--mode", out_file=out)
    expect_error("unknown output format", 2, ["out.gif", ".png"], e, tmp("out.gif"), *base,
                 out_file=tmp("out.gif"))
    expect_error("alpha into JPEG", 2, ["alpha", "JPEG"], tmp("ea.png"), tmp("a.jpg"), *base,
                 out_file=tmp("a.jpg"))
    expect_error("unwritable output", 1, ["no-such-dir", "No such file"], e,
                 tmp("no-such-dir/out.png"), *base)
    expect_error("bad quality", 2, ["--quality"], e, tmp("q.jpg"), *base, "--quality", "0",
                 out_file=tmp("q.jpg"))


# ---------------------------------------------------------------------------------------------
# help, check, bench, demo.


def check_help():
    rc, out, err = run("--help")
    report(rc == 0 and all(c in out for c in ("resize", "bench", "demo", "check")),
           "upsample --help lists resize, bench, demo, check: %r" % out[:400])
    for cmd in ["resize", "bench", "demo", "check"]:
        rc, out, err = run(cmd, "--help")
        report(rc == 0 and out.startswith("Usage: upsample " + cmd) and err == "",
               "upsample %s --help: exit %d, %r" % (cmd, rc, out[:80]))
    rc, out, err = run("resize")
    report(rc == 2 and "missing IN and OUT" in err, "upsample resize (no args): %d %r" % (rc, err))


def check_check_json():
    rc, out, err = run("check", "--op", "Bilinear2d$", "--dtype", "float32,float64", "--json")
    try:
        doc = json.loads(out)
    except ValueError as e:
        report(False, "check --json: not JSON (%s): %r" % (e, out[:200]))
        return
    rows, summary = doc.get("rows", []), doc.get("summary", {})
    report(rc == 0 and summary.get("failed") == 0 and summary.get("passed", 0) >= len(rows) > 0,
           "check --json: exit %d, summary %s, %d rows" % (rc, summary, len(rows)))
    report(all(r["entry_point"] == "aclnnUpsampleBilinear2d" and r["pass"] and
               r["dtype"] in ("float32", "float64") for r in rows),
           "check --json: every row is a passing Bilinear2d float32/float64 row")


def bench_json(*args):
    rc, out, err = run("bench", *args, "--json")
    try:
        return rc, json.loads(out), err
    except ValueError as e:
        report(False, "bench %s --json: not JSON (%s): %r" % (" ".join(args), e, out[:200]))
        return rc, None, err


def check_bench():
    rc, doc, err = bench_json("--shape", "1x2x8x8:16x16", "--reps", "3", "--threads", "1")
    if doc is not None:
        res = doc.get("results", [])
        r = res[0] if res else {}
        report(rc == 0 and len(res) == 1 and r.get("workload") == "S1" and
               r.get("bytes") == (2 * 8 * 8 + 2 * 16 * 16) * 4 and r.get("reps") == 3 and
               all(r.get(k, 0) > 0 for k in ("ms_median", "ms_min", "floor_ms", "gb_per_s",
                                              "x_floor")) and doc.get("threads") == 1,
               "bench --shape 1x2x8x8:16x16 --json: exit %d, %s" % (rc, r))
        # The floor: both store variants, the floor is the faster one.
        variants = {"normal": r.get("floor_normal_ms"), "non-temporal": r.get("floor_streaming_ms")}
        report(all(v is not None and v > 0 for v in variants.values()) and
               r.get("floor_ms") == min(variants.values()) and
               variants.get(r.get("floor_variant")) == r.get("floor_ms") and
               r.get("src_bytes") == 2 * 8 * 8 * 4 and r.get("call") == "native" and
               r.get("shape") == "1x2x8x8->16x16" and doc.get("floor_vector_bytes", 0) >= 16,
               "bench --json floor variants: %s" % {k: r.get(k) for k in (
                   "floor_ms", "floor_variant", "floor_normal_ms", "floor_streaming_ms",
                   "src_bytes", "call", "shape")})
        report("\r" not in err, "bench: no progress line when stderr is not a terminal")
    rc, doc, err = bench_json("--shape", "2x3x10:7", "--shape", "1x1x4x4x4:8x8x8", "--mode",
                              "nearest", "--backward", "--reps", "2")
    if doc is not None:
        names = [r.get("workload") for r in doc.get("results", [])]
        report(rc == 0 and names == ["S1", "S2"] and
               all("nearest" in r["operator"] and "bwd" in r["operator"]
                   for r in doc["results"]),
               "bench two custom 1-D/3-D backward shapes: %d %s" % (rc, doc.get("results")))
    rc, out, err = run("bench", "--workload", "W1,w5e", "--reps", "2")
    lines = out.splitlines()
    report(rc == 0 and lines and "x floor" in lines[0] and "GB/s" in lines[0] and
           any(l.startswith("W1 ") for l in lines) and any(l.startswith("W5e") for l in lines),
           "bench --workload W1,w5e (text): exit %d %r" % (rc, out[:300]))
    rc, out, err = run("bench", "--list")
    report(rc == 0 and all(("W%d " % i) in out for i in range(1, 20)) and
           all(("C%d " % i) in out for i in range(1, 5)), "bench --list: W1-W19, C1-C4")
    # The call-cost rows run through the aclnn C API.
    rc, doc, err = bench_json("--workload", "C1,C4", "--reps", "3", "--threads", "2")
    if doc is not None:
        res = doc.get("results", [])
        report(rc == 0 and [r.get("call") for r in res] == ["cann-call", "phase2"] and
               [r.get("shape") for r in res] == ["8x32x64x64->128x128", "1x16x8x8->16x16"] and
               all(r.get("ms_median", 0) > 0 and r.get("floor_ms", 0) > 0 for r in res),
               "bench --workload C1,C4: exit %d, %s" % (
                   rc, [{k: r.get(k) for k in ("workload", "call", "shape", "ms_median",
                                                "error")} for r in res]))
    for args, text in [(["--workload", "W99"], "unknown workload 'W99'"),
                       (["--shape", "1x3x8x8"], "--shape"),
                       (["--shape", "1x3x8x8:4"], "spatial"),
                       (["--mode", "bicubic"], "give a --shape"),
                       (["--threads", "0"], "--threads"),
                       (["--reps"], "--reps needs a value"),
                       (["--bogus"], "unknown option '--bogus'")]:
        rc, out, err = run("bench", *args)
        report(rc == 2 and len(err.strip().splitlines()) == 1 and text in err,
               "bench %s: exit %d (want 2), %r (want %r)" % (" ".join(args), rc, err, text))
    # A run longer than a second on a terminal shows a progress line on stderr.
    master, slave = pty.openpty()
    p = subprocess.Popen([CLI, "bench", "--shape", "1x3x512x512:1024x1024", "--time-ms", "1500",
                          "--threads", "1", "--json"], stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    tty = read_terminal(master, p)
    out = p.communicate(timeout=120)[0]
    os.close(master)
    report(p.returncode == 0 and b"\r" in tty and b"[1/1] S1" in tty,
           "bench on a terminal: a progress line on stderr (%r)" % tty[-200:])
    try:
        report(json.loads(out)["results"][0]["workload"] == "S1",
               "bench on a terminal: stdout is still clean JSON")
    except (ValueError, KeyError, IndexError):
        report(False, "bench on a terminal: stdout is not the JSON document: %r" % out[:200])
    # The standalone benchmark binary is the same runner (2 threads by default) and keeps its
    # JSON.
    bench_bin = os.path.join(BUILD_DIR, "upsample_bench")
    if os.path.exists(bench_bin):
        p = subprocess.run([bench_bin, "--workload", "W5", "--reps", "2", "--json"],
                           capture_output=True, text=True, timeout=TIMEOUT_S)
        try:
            doc = json.loads(p.stdout)
            r = doc["results"][0]
            report(p.returncode == 0 and r["workload"] == "W5" and r["operator"] ==
                   "nearest2d fwd" and r["ms_median"] > 0 and r["floor_ms"] > 0 and
                   r["bytes"] == (8 * 32 * 64 * 64 + 8 * 32 * 128 * 128) * 4 and
                   doc["threads"] == 2,
                   "upsample_bench --json W5: %s" % {k: r[k] for k in r if k != "plan"})
        except (ValueError, KeyError, IndexError) as e:
            report(False, "upsample_bench --json: %s %r" % (e, p.stdout[:200]))


def check_demo():
    out_dir = tmp("demo")
    rc, out, err = run("demo", "--out", out_dir, "--threads", "2")
    if not report(rc == 0, "demo: exit %d, stderr %r" % (rc, err[-500:])):
        print(out)
    sheet_path = os.path.join(out_dir, "contact_sheet.png")
    try:
        sheet, bits = png_read(sheet_path)
    except (OSError, AssertionError, zlib.error) as e:
        report(False, "demo: contact_sheet.png unreadable: %s" % e)
        return
    report(sheet.shape == (SHEET_H, SHEET_W, 3) and bits == 8,
           "demo: contact sheet %s, expected (%d, %d, 3)" % (sheet.shape, SHEET_H, SHEET_W))
    report(sheet.std() > 20, "demo: the contact sheet has content (std %.1f)" % sheet.std())
    names = ["source"] + ["%s_%s" % (m, d) for m in ("nearest", "nearest-exact", "bilinear",
                                                      "bilinear-aa", "bicubic", "bicubic-aa")
                          for d in ("down", "up")]
    for n in names:
        path = os.path.join(out_dir, n + ".png")
        try:
            img, _ = png_read(path)
            want = (96, 96, 3) if n.endswith("_down") else (256, 256, 3)
            report(img.shape == want, "demo: %s.png is %s" % (n, img.shape))
        except (OSError, AssertionError, zlib.error) as e:
            report(False, "demo: %s.png: %s" % (n, e))
    report("check:" in out and "0 failed" in out, "demo prints the check summary")
    report("x floor" in out and "W1 " in out, "demo prints a bench summary")
    report(sheet_path in out, "demo says where the contact sheet is")
    # The down/up pairs are the library's: bilinear-aa down == resize of source.png.
    got = resize_ok("resize source.png like the demo", os.path.join(out_dir, "source.png"),
                    tmp("d.png"), "--size", "96x96", "--mode", "bilinear", "--antialias")
    if got is not None:
        demo_down, _ = png_read(os.path.join(out_dir, "bilinear-aa_down.png"))
        compare("demo bilinear-aa_down.png == upsample resize of source.png", demo_down, got)
    # Errors: --out is a file; an unknown option.
    open(tmp("a-file"), "w").close()
    rc, out, err = run("demo", "--out", tmp("a-file"))
    report(rc == 1 and len(err.strip().splitlines()) == 1 and "a-file" in err,
           "demo --out FILE: exit %d %r" % (rc, err))
    rc, out, err = run("demo", "--bogus")
    report(rc == 2 and "unknown option '--bogus'" in err, "demo --bogus: exit %d %r" % (rc, err))


def main():
    global TMP
    if not BUILD_DIR or not os.path.exists(CLI):
        print("UPSAMPLE_BUILD_DIR must name the build directory holding 'upsample' (%r)" % CLI)
        print("0 passed, 1 failed")
        return 1
    TMP = tempfile.mkdtemp(prefix="upsample_cli_tools_")
    try:
        return run_checks([check_help, check_resize_modes, check_resize_gray_and_scales,
                           check_resize_dtypes, check_resize_alpha, check_resize_16bit,
                           check_resize_formats, check_resize_errors, check_check_json,
                           check_bench, check_demo])
    finally:
        shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
