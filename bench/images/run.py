#!/usr/bin/python3
"""End-to-end image benchmark: `upsample resize` against libvips, Pillow, OpenCV and ImageMagick.

Whole processes (start, decode, resample, encode, exit) timed side by side in one run on the
project's standard image workloads I1-I3:

  I1  4000x3000 RGB JPEG (quality 92, photo-like) -> 1000x750, bicubic antialias, JPEG q95
  I2  the same image as PNG -> 1000x750 PNG
  I3  a folder of 200 such 1600x1200 JPEGs -> 400x300 JPEG q95

Each command runs --reps times, the tools taking turns (round robin) so that drift in the
machine's load spreads over all of them; the table gives the median wall time, and the peak
memory (maximum resident set size from /usr/bin/time -v, the largest over the runs). For
upsample it also gives the -v split of the exact I1/I2 runs (decode / resample / encode, medians)
next to the library's own time for the same resample (`upsample bench --shape ... --dtype uint8
--channels-last`), and the output file sizes of I2 (PNG) for every tool.

Run:   /usr/bin/python3 bench/images/run.py [--build-dir build] [--reps 5] [--markdown-out F]
Needs: Debian packages libvips-tools, imagemagick, python3-pil, python3-opencv (see `dev`);
       a missing peer is reported and skipped.
The inputs are generated once into --work-dir (default /tmp/upsample-image-bench).
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PY = "/usr/bin/python3"
sys.path.insert(0, os.path.join(ROOT, "bench"))
from report_output import write_report  # noqa: E402

PILLOW_ONE = """import sys
from PIL import Image
im = Image.open(sys.argv[1])
im = im.resize((int(sys.argv[3]), int(sys.argv[4])), Image.BICUBIC)
im.save(sys.argv[2], quality=95)
"""
PILLOW_DIR = """import os, sys
from PIL import Image
for name in sorted(os.listdir(sys.argv[1])):
    im = Image.open(os.path.join(sys.argv[1], name))
    im.resize((int(sys.argv[3]), int(sys.argv[4])), Image.BICUBIC).save(
        os.path.join(sys.argv[2], name), quality=95)
"""
OPENCV_ONE = """import sys, cv2
im = cv2.imread(sys.argv[1], cv2.IMREAD_UNCHANGED)
im = cv2.resize(im, (int(sys.argv[3]), int(sys.argv[4])), interpolation=cv2.INTER_AREA)
cv2.imwrite(sys.argv[2], im, [cv2.IMWRITE_JPEG_QUALITY, 95])
"""
OPENCV_DIR = """import os, sys, cv2
for name in sorted(os.listdir(sys.argv[1])):
    im = cv2.imread(os.path.join(sys.argv[1], name), cv2.IMREAD_UNCHANGED)
    im = cv2.resize(im, (int(sys.argv[3]), int(sys.argv[4])), interpolation=cv2.INTER_AREA)
    cv2.imwrite(os.path.join(sys.argv[2], name), im, [cv2.IMWRITE_JPEG_QUALITY, 95])
"""


def photo(h, w, seed):
    """Photo-like RGB: a smooth colour field plus Gaussian noise (sigma 8)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    img = np.empty((h, w, 3), np.float32)
    for k in range(3):
        img[:, :, k] = (128 + 60 * np.sin(xx / (0.075 * w + 12 * k) + k) *
                        np.cos(yy / (0.083 * h + 10 * k)) + 40 * np.sin((xx + yy) / (0.17 * w)))
    img += rng.normal(0, 8, img.shape).astype(np.float32)
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def make_inputs(work):
    from PIL import Image
    os.makedirs(work, exist_ok=True)
    if not os.path.exists(os.path.join(work, "photo.png")):
        print("generating I1/I2: a 4000x3000 photo-like image", file=sys.stderr)
        img = Image.fromarray(photo(3000, 4000, seed=1))
        img.save(os.path.join(work, "photo.jpg"), quality=92)
        img.save(os.path.join(work, "photo.png"))
    folder = os.path.join(work, "folder")
    if not os.path.exists(os.path.join(folder, "199.jpg")):
        print("generating I3: 200 photo-like 1600x1200 JPEGs", file=sys.stderr)
        os.makedirs(folder, exist_ok=True)
        base = photo(1200, 1600, seed=2)
        rng = np.random.default_rng(3)
        for i in range(200):
            # Each file different: the base shifted and re-noised.
            shifted = np.roll(base, (7 * i, 13 * i), axis=(0, 1)).astype(np.int16)
            shifted += rng.integers(-3, 4, shifted.shape, dtype=np.int16)
            Image.fromarray(np.clip(shifted, 0, 255).astype(np.uint8)).save(
                os.path.join(folder, "%03d.jpg" % i), quality=92)


def commands(task, upsample, work, out):
    """Tool name -> (argv, output path or folder) for one task."""
    img = os.path.join(work, "photo.jpg" if task == "I1" else "photo.png")
    ext = "jpg" if task == "I1" else "png"
    if task in ("I1", "I2"):
        o = os.path.join(out, "%s_%%s.%s" % (task, ext))
        aa = ["--size", "1000x750", "--mode", "bicubic", "--antialias", "--quality", "95"]
        cmds = {
            "upsample": ([upsample, "resize", img, o % "upsample"] + aa, o % "upsample"),
            "upsample --fast": ([upsample, "resize", img, o % "upsample_fast", "--fast"] + aa,
                                o % "upsample_fast"),
            "vips resize": (["vips", "resize", img, o % "vips" + ("[Q=95]" if ext == "jpg"
                                                                     else ""),
                             "0.25", "--kernel", "cubic"], o % "vips"),
            "vipsthumbnail": (["vipsthumbnail", img, "-s", "1000x750", "-o",
                               o % "vipsthumbnail" + ("[Q=95]" if ext == "jpg" else "")],
                              o % "vipsthumbnail"),
            "Pillow": ([PY, "-c", PILLOW_ONE, img, o % "pillow", "1000", "750"], o % "pillow"),
            "OpenCV (INTER_AREA)": ([PY, "-c", OPENCV_ONE, img, o % "opencv", "1000", "750"],
                                    o % "opencv"),
            "ImageMagick convert": (["/usr/bin/convert", img, "-filter", "Catrom", "-resize",
                                     "1000x750", "-quality", "95", o % "magick"], o % "magick"),
        }
        if task == "I2":
            del cmds["upsample --fast"]  # PNG has no shrink-on-load: identical to exact
        return cmds
    src = os.path.join(work, "folder")
    d = lambda name: os.path.join(out, "I3_" + name)  # noqa: E731
    files = sorted(os.path.join(src, f) for f in os.listdir(src))
    aa = ["--size", "400x300", "--mode", "bicubic", "--antialias", "--quality", "95"]
    return {
        "upsample": ([upsample, "resize", src, "-o", d("upsample")] + aa, d("upsample")),
        "upsample --fast": ([upsample, "resize", src, "-o", d("upsample_fast"), "--fast"] + aa,
                            d("upsample_fast")),
        "vipsthumbnail": (["vipsthumbnail"] + files + ["-s", "400x300", "-o",
                                                       d("vipsthumbnail") + "/%s.jpg[Q=95]"],
                          d("vipsthumbnail")),
        "Pillow loop": ([PY, "-c", PILLOW_DIR, src, d("pillow"), "400", "300"], d("pillow")),
        "OpenCV loop (INTER_AREA)": ([PY, "-c", OPENCV_DIR, src, d("opencv"), "400", "300"],
                                     d("opencv")),
        "ImageMagick mogrify": (["/usr/bin/mogrify", "-path", d("magick"), "-filter", "Catrom",
                                 "-resize", "400x300", "-quality", "95"] + files, d("magick")),
    }


def available(argv):
    exe = argv[0]
    if exe == PY:
        mod = "cv2" if "cv2" in argv[2] else "PIL"
        return subprocess.run([PY, "-c", "import " + mod], capture_output=True).returncode == 0
    return shutil.which(exe) is not None


def timed(argv, out_path, folder):
    """Runs argv under /usr/bin/time -v; returns (wall seconds, max RSS in KiB)."""
    if folder:
        shutil.rmtree(out_path, ignore_errors=True)
        os.makedirs(out_path)
    elif os.path.exists(out_path):
        os.remove(out_path)
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-v", "-o", tf.name] + argv,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - t0
        text = tf.read()
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(argv[:3]), p.returncode,
                                                    p.stderr[-300:]))
    produced = (len(os.listdir(out_path)) if folder else os.path.exists(out_path))
    if not produced:
        raise RuntimeError("%s wrote no output" % " ".join(argv[:3]))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
    return wall, rss


def upsample_split(upsample, work, out, reps):
    """Median -v times of the exact I1 / I2 runs, and the library's own time for the resample."""
    split = {}
    for task, name in (("I1", "photo.jpg"), ("I2", "photo.png")):
        ext = "jpg" if task == "I1" else "png"
        runs = []
        for _ in range(reps):
            p = subprocess.run([upsample, "resize", os.path.join(work, name),
                                os.path.join(out, "split." + ext), "--size", "1000x750", "--mode",
                                "bicubic", "--antialias", "--quality", "95", "-v"],
                               capture_output=True, text=True, check=True)
            m = re.search(r"decode ([\d.]+) ms.*resample ([\d.]+) ms, encode ([\d.]+) ms",
                          p.stdout)
            runs.append([float(v) for v in m.groups()])
        split[task] = [statistics.median(r[i] for r in runs) for i in range(3)]
    p = subprocess.run([upsample, "bench", "--shape", "1x3x3000x4000:750x1000", "--mode",
                        "bicubic", "--antialias", "--dtype", "uint8", "--channels-last",
                        "--json"], capture_output=True, text=True, check=True)
    kernel_ms = json.loads(p.stdout)["results"][0]["ms_median"]
    return split, kernel_ms


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work-dir", default="/tmp/upsample-image-bench")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--tasks", default="I1,I2,I3")
    ap.add_argument("--markdown-out")
    ap.add_argument("--json-out")
    args = ap.parse_args()
    upsample = os.path.abspath(os.path.join(args.build_dir, "upsample"))
    if not os.path.exists(upsample):
        sys.exit("no upsample tool at %s (build it, or pass --build-dir)" % upsample)
    make_inputs(args.work_dir)
    out = os.path.join(args.work_dir, "out")
    os.makedirs(out, exist_ok=True)
    tasks = args.tasks.split(",")
    load_before = os.getloadavg()
    results = {}
    for task in tasks:
        cmds = commands(task, upsample, args.work_dir, out)
        missing = [name for name, (argv, _) in cmds.items() if not available(argv)]
        for name in missing:
            print("skipping %s: %s is not installed" % (name, cmds[name][0][0]), file=sys.stderr)
            del cmds[name]
        times = {name: [] for name in cmds}
        rss = {name: 0 for name in cmds}
        for rep in range(args.reps):
            for name, (argv, path) in cmds.items():
                wall, kib = timed(argv, path, task == "I3")
                times[name].append(wall)
                rss[name] = max(rss[name], kib)
            print("%s: run %d of %d done" % (task, rep + 1, args.reps), file=sys.stderr)
        sizes = {name: os.path.getsize(path) for name, (_, path) in cmds.items()
                 if task != "I3"}
        results[task] = {name: {"median_s": statistics.median(times[name]),
                                "min_s": min(times[name]), "max_rss_mib": rss[name] / 1024.0,
                                "output_bytes": sizes.get(name)} for name in cmds}
    split, kernel_ms = upsample_split(upsample, args.work_dir, out, args.reps)

    titles = {"I1": "I1: 4000x3000 JPEG q92 -> 1000x750 JPEG q95, bicubic antialias",
              "I2": "I2: 4000x3000 PNG -> 1000x750 PNG, bicubic antialias",
              "I3": "I3: 200 JPEGs 1600x1200 -> 400x300 JPEG q95, bicubic antialias"}
    load = lambda v: "/".join("%.2f" % x for x in v)  # noqa: E731
    lines = ["simd/threads: the tools' defaults on %d cores; %d runs each, round robin; "
             "median wall time of the whole process; load average (1/5/15 min) %s before, %s "
             "after" % (os.cpu_count(), args.reps, load(load_before), load(os.getloadavg())), ""]
    for task in tasks:
        r = results[task]
        ref = r["upsample"]["median_s"]
        lines += ["**%s**" % titles[task], "",
                  "| tool | median s | min s | vs upsample | peak RSS MiB |%s" % (
                      " output bytes |" if task != "I3" else ""),
                  "|---|---|---|---|---|%s" % ("---|" if task != "I3" else "")]
        for name, v in sorted(r.items(), key=lambda kv: kv[1]["median_s"]):
            lines.append("| %s | %.3f | %.3f | %.2fx | %.1f |%s" % (
                name, v["median_s"], v["min_s"], v["median_s"] / ref, v["max_rss_mib"],
                " %d |" % v["output_bytes"] if task != "I3" else ""))
        lines.append("")
    lines += ["**upsample -v split (exact mode, medians, ms)**", "",
              "| task | decode | resample | encode | library alone (`upsample bench`, same "
              "resample) | resample / library |", "|---|---|---|---|---|---|"]
    for task in ("I1", "I2"):
        d, r, e = split[task]
        lines.append("| %s | %.1f | %.1f | %.1f | %.1f | %.2fx |" % (task, d, r, e, kernel_ms,
                                                                      r / kernel_ms))
    write_report("\n".join(lines) + "\n", args.markdown_out, args.json_out,
                 {"results": results, "split_ms": split, "kernel_ms": kernel_ms,
                  "load_before": load_before, "load_after": os.getloadavg()}, indent=1)


if __name__ == "__main__":
    main()
