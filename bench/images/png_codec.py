#!/usr/bin/python3
"""PNG sizes and codec times: upsample's PNG writer and reader next to Pillow's, image by image.

For each image: the file Pillow's default Image.save writes and the one `upsample resize IN OUT
--scale 1 --mode nearest` writes from it (the same pixels, checked), their sizes, and median
times: Pillow's save and open + load, timed around the calls in one process; upsample's encode
(with --threads 1 and with its default threads) and decode, from `-v`.

The images: the I2 result (the 4000x3000 photo of bench/images/run.py resized by upsample to
1000x750, bicubic antialias: what I2 encodes), the I2 input itself (what I2 decodes), smaller
photo-like images in RGB, RGBA, gray and 16-bit gray, a large flat gradient, and
docs/images/contact_sheet.png (drawn: flat areas, text, sharp edges).

Run:   /usr/bin/python3 bench/images/png_codec.py [--build-dir build] [--reps 5] [--markdown-out F]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import run as image_bench  # noqa: E402  (the I1-I3 inputs)


def images(upsample, work):
    image_bench.make_inputs(work)
    i2_in = os.path.join(work, "photo.png")
    i2_out = os.path.join(work, "png_codec_i2.png")
    subprocess.run([upsample, "resize", i2_in, i2_out, "--size", "1000x750", "--mode", "bicubic",
                    "--antialias"], check=True)
    photo = image_bench.photo(600, 800, seed=11)
    yield "I2 result, RGB 1000x750", np.asarray(Image.open(i2_out))
    yield "I2 input, RGB 4000x3000", np.asarray(Image.open(i2_in))
    yield "photo, RGB 800x600", photo
    yield "photo, RGBA 800x600 (alpha 200)", np.concatenate(
        [photo, np.full(photo.shape[:2] + (1,), 200, np.uint8)], 2)
    yield "photo, gray 800x600", photo[:, :, 1]
    yield "photo, 16-bit gray 800x600", (photo[:, :, 1].astype(np.uint16) * 257 +
                                        np.arange(800, dtype=np.uint16)[None, :])
    yield "gradient, RGB 2000x1500", np.stack(np.mgrid[0:1500, 0:2000] // 8, -1)[:, :, [1, 0, 1]] \
        .astype(np.uint8)
    yield "contact sheet, RGB 1074x1030", np.asarray(
        Image.open(os.path.join(ROOT, "docs", "images", "contact_sheet.png")).convert("RGB"))


def timed_ms(fn, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(1000 * (time.perf_counter() - t0))
    return statistics.median(times)


def upsample_ms(upsample, src, dst, reps, *args):
    """Median -v decode and encode times of `upsample resize src dst --scale 1`."""
    decode, encode = [], []
    for _ in range(reps):
        p = subprocess.run([upsample, "resize", src, dst, "--scale", "1", "--mode", "nearest",
                            "-v"] + list(args), capture_output=True, text=True, check=True)
        m = re.search(r"decode ([\d.]+) ms.*encode ([\d.]+) ms", p.stdout)
        decode.append(float(m.group(1)))
        encode.append(float(m.group(2)))
    return statistics.median(decode), statistics.median(encode)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work-dir", default="/tmp/upsample-image-bench")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--markdown-out")
    args = ap.parse_args()
    upsample = os.path.abspath(os.path.join(args.build_dir, "upsample"))
    if not os.path.exists(upsample):
        sys.exit("no upsample tool at %s (build it, or pass --build-dir)" % upsample)
    pil_path = os.path.join(args.work_dir, "png_codec_pillow.png")
    our_path = os.path.join(args.work_dir, "png_codec_upsample.png")
    lines = ["%d cores; medians of %d runs; load average before: %s" % (
                 os.cpu_count(), args.reps, " ".join("%.2f" % v for v in os.getloadavg())), "",
             "| image | Pillow bytes | upsample bytes | upsample / Pillow | Pillow save ms | "
             "upsample encode ms, 1 thread | upsample encode ms | Pillow load ms | "
             "upsample decode ms |", "|---|---|---|---|---|---|---|---|---|"]
    for name, pixels in images(upsample, args.work_dir):
        im = Image.fromarray(pixels)
        save_ms = timed_ms(lambda: im.save(pil_path), args.reps)
        load_ms = timed_ms(lambda: Image.open(pil_path).load(), args.reps)
        _, encode_1 = upsample_ms(upsample, pil_path, our_path, args.reps, "--threads", "1")
        decode, encode = upsample_ms(upsample, pil_path, our_path, args.reps)
        if not np.array_equal(np.asarray(Image.open(our_path)), pixels):
            sys.exit("%s: upsample's PNG does not hold the same pixels" % name)
        ours, pil = os.path.getsize(our_path), os.path.getsize(pil_path)
        lines.append("| %s | %d | %d | %.4f | %.1f | %.1f | %.1f | %.1f | %.1f |" % (
            name, pil, ours, ours / pil, save_ms, encode_1, encode, load_ms, decode))
        print(lines[-1], file=sys.stderr)
    lines.append("")
    lines.append("load average after: %s" % " ".join("%.2f" % v for v in os.getloadavg()))
    text = "\n".join(lines) + "\n"
    image_bench.report(text, args.markdown_out)


if __name__ == "__main__":
    main()
