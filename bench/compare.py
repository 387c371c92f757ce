#!/usr/bin/python3
"""Side-by-side benchmark: upsample against PyTorch, OpenCV and oneDNN, in the same run.

Run with the system Python (Debian's python3-torch and python3-opencv):

    /usr/bin/python3 bench/compare.py [--bench-binary build/upsample_bench]
                                      [--onednn-binary build/onednn_bench] [--workloads W1,C3]
                                      [--threads 2] [--reps N] [--rounds K]
                                      [--order ours-first|peers-first]
                                      [--stat median|min] [--markdown-out F] [--json-out F]
    /usr/bin/python3 bench/compare.py --from-json F [--stat min]   # a saved run's report again

For each workload, one after the other (interleaved, so that the sides of one workload are
measured seconds apart): `upsample_bench --workload W --json` (our calls, then the floor with
ordinary and with non-temporal stores), then PyTorch (in this process), OpenCV (cv2.resize, in
this process) and oneDNN (bench/onednn_bench.cpp, a subprocess) where they compute the workload.
Every side times single calls: 3 warm-up calls (more, up to 50, until ~30 ms are spent), then R
timed calls, R = about 0.5 s of calls, at least 20 and at most 5000 (--reps fixes R for every
side); the median (and min) of the R calls is reported. --rounds K measures each workload K
times in a row, the side that goes first alternating, and reports per side the median of the
K medians and the least of the K minima (a shared host's slow phases last seconds: one round
can catch one side in one), with each round's values in the JSON ("round_values"). C1 and C2
are measured round by round in turn, and C1 / C2 is the median of the rounds' ratios.

Same semantics. A peer counts for the speed-up only where it computes the same function as the
workload, which is checked numerically in the same run on a small case with the workload's
ratios, channels and dtype: OpenCV against PyTorch's F.interpolate (the library's semantics, which
its parity suites check bit for bit or to the rounding of float32), oneDNN against the library
itself (onednn_bench --check). Rows where the check fails are marked with a dagger and left out.
See bench/README.md.
"""

import argparse
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

from report_output import write_report

# name, operator, kind, direction, input sizes, output spatial sizes, dtype, channels_last.
# Direction "call": the aclnn call-cost rows (bench/calls.cpp); PyTorch's reference for them is
# F.interpolate, output allocation included.
W1_IN, W1_OUT = [8, 32, 64, 64], [128, 128]
WORKLOADS = [
    ("W1", "bilinear2d fwd", "bilinear", "fwd", W1_IN, W1_OUT, "float32", False),
    ("W2", "bilinear2d bwd", "bilinear", "bwd", W1_IN, W1_OUT, "float32", False),
    ("W3", "bicubic2d fwd", "bicubic", "fwd", [1, 3, 512, 512], [1024, 1024], "float32", False),
    ("W4", "bicubic2d bwd", "bicubic", "bwd", [1, 3, 512, 512], [1024, 1024], "float32", False),
    ("W5", "nearest2d fwd", "nearest", "fwd", W1_IN, W1_OUT, "float32", False),
    ("W5e", "nearest-exact2d fwd", "nearest_exact", "fwd", W1_IN, W1_OUT, "float32", False),
    ("W6", "nearest2d bwd", "nearest", "bwd", W1_IN, W1_OUT, "float32", False),
    ("W7", "bilinear AA fwd", "bilinear_aa", "fwd", [1, 3, 1024, 1024], [256, 256], "float32",
     False),
    ("W8", "bilinear AA bwd", "bilinear_aa", "bwd", [1, 3, 1024, 1024], [256, 256], "float32",
     False),
    ("W9", "bicubic AA fwd", "bicubic_aa", "fwd", [1, 3, 1024, 1024], [224, 224], "float32", False),
    ("W10", "bicubic AA bwd", "bicubic_aa", "bwd", [1, 3, 1024, 1024], [224, 224], "float32",
     False),
    ("W11", "linear1d fwd", "linear1d", "fwd", [16, 64, 4096], [8192], "float32", False),
    ("W12", "linear1d bwd", "linear1d", "bwd", [16, 64, 4096], [8192], "float32", False),
    ("W13", "trilinear3d fwd", "trilinear", "fwd", [2, 16, 32, 32, 32], [64, 64, 64], "float32",
     False),
    ("W14", "trilinear3d bwd", "trilinear", "bwd", [2, 16, 32, 32, 32], [64, 64, 64], "float32",
     False),
    ("W15", "bilinear2d fwd NHWC", "bilinear", "fwd", W1_IN, W1_OUT, "float32", True),
    ("W16", "bilinear2d bwd NHWC", "bilinear", "bwd", W1_IN, W1_OUT, "float32", True),
    ("W17", "bilinear2d fwd bf16", "bilinear", "fwd", W1_IN, W1_OUT, "bfloat16", False),
    ("W18", "bilinear2d fwd fp16", "bilinear", "fwd", W1_IN, W1_OUT, "float16", False),
    ("W19", "bilinear2d fwd large", "bilinear", "fwd", [1, 3, 2048, 2048], [4096, 4096], "float32",
     False),
    ("C1", "aclnn call: GetWorkspaceSize, aclrtMalloc, launch, sync, aclrtFree", "bilinear",
     "call", W1_IN, W1_OUT, "float32", False),
    ("C2", "aclnn phase 2 + sync (repeatable executor)", "bilinear", "call", W1_IN, W1_OUT,
     "float32", False),
    ("C3", "aclnn phase 2 + sync, small", "bilinear", "call", [1, 3, 32, 32], [64, 64], "float32",
     False),
    ("C4", "aclnn phase 2 + sync, small", "bilinear", "call", [1, 16, 8, 8], [16, 16], "float32",
     False),
]

# kind -> (forward aten op, backward aten op, takes align_corners, number of scale arguments,
# F.interpolate mode, antialias)
ATEN = {
    "bilinear": ("upsample_bilinear2d", "upsample_bilinear2d_backward", True, 2, "bilinear", False),
    "bicubic": ("upsample_bicubic2d", "upsample_bicubic2d_backward", True, 2, "bicubic", False),
    "nearest": ("upsample_nearest2d", "upsample_nearest2d_backward", False, 2, "nearest", False),
    "nearest_exact": ("_upsample_nearest_exact2d", "_upsample_nearest_exact2d_backward", False, 2,
                      "nearest-exact", False),
    "bilinear_aa": ("_upsample_bilinear2d_aa", "_upsample_bilinear2d_aa_backward", True, 2,
                    "bilinear", True),
    "bicubic_aa": ("_upsample_bicubic2d_aa", "_upsample_bicubic2d_aa_backward", True, 2,
                   "bicubic", True),
    "linear1d": ("upsample_linear1d", "upsample_linear1d_backward", True, 1, "linear", False),
    "trilinear": ("upsample_trilinear3d", "upsample_trilinear3d_backward", True, 3, "trilinear",
                  False),
}

# Workloads cv2.resize computes (forward, float32, no antialias) -> its interpolation flag.
OPENCV = {"W1": "INTER_LINEAR", "W3": "INTER_CUBIC", "W5": "INTER_NEAREST",
          "W5e": "INTER_NEAREST_EXACT", "W11": "INTER_LINEAR", "W15": "INTER_LINEAR",
          "W19": "INTER_LINEAR"}
# Workloads oneDNN's resampling primitive computes -> (algorithm, the library's mode to check
# it against).
ONEDNN = {"W1": ("linear", "linear"), "W2": ("linear", "linear"), "W5": ("nearest", "nearest"),
          "W5e": ("nearest", "nearest-exact"), "W6": ("nearest", "nearest")}
ONEDNN.update({w: ("linear", "linear") for w in
               ("W11", "W12", "W13", "W14", "W15", "W16", "W17", "W18", "W19")})
ONEDNN_DTYPE = {"float32": "f32", "bfloat16": "bf16", "float16": "f16"}
# Largest absolute difference, for values in [-1, 1], under which a peer computes "the same
# function": float32 rounding differences, or one rounding step of the 16-bit types.
TOLERANCE = {"float32": 1e-4, "bfloat16": 2.0 ** -7, "float16": 2.0 ** -10}

WARMUP, WARMUP_MAX, WARMUP_MS, TARGET_MS, MIN_REPS, MAX_REPS = 3, 50, 30.0, 500.0, 20, 5000
PEERS = ("torch", "cv2", "onednn")
PEER_NAMES = {"torch": "PyTorch", "cv2": "OpenCV", "onednn": "oneDNN"}


def repo_root():
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def find_binary(path):
    if not os.path.isabs(path) and not os.path.exists(path):
        candidate = os.path.join(repo_root(), path)
        if os.path.exists(candidate):
            return candidate
    return path


def machine_name():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return platform.processor() or platform.machine()


def load_average():
    try:
        return "%.2f" % os.getloadavg()[0]
    except OSError:
        return "?"


def shape_label(in_sizes, out_spatial):
    return "x".join(map(str, in_sizes)) + "->" + "x".join(map(str, out_spatial))


def small_case(in_sizes, out_spatial):
    """The workload's ratios and channels on a small tensor: N = 1, spatial sizes divided by the
    largest k that keeps the smallest one at 16 or more (exact for every workload)."""
    spatial = in_sizes[2:]
    k = max(1, min(spatial) // 16)
    while any(s % k for s in list(spatial) + list(out_spatial)):
        k -= 1
    return [1, in_sizes[1]] + [s // k for s in spatial], [o // k for o in out_spatial]


# ---------------------------------------------------------------------------------------------
# Timing, the same rule for every side (and as upsample_bench's).

def time_calls(call, reps):
    """Warm-up calls, then R timed calls of `call`; returns (median ms, min ms, R)."""
    clock = time.perf_counter_ns
    warm = []
    while len(warm) < WARMUP or (not reps and len(warm) < WARMUP_MAX and
                                 sum(warm) < WARMUP_MS):
        t0 = clock()
        call()
        warm.append((clock() - t0) * 1e-6)
    if not reps:
        reps = math.ceil(TARGET_MS / max(statistics.median(warm), 1e-3))
        reps = min(max(reps, MIN_REPS), MAX_REPS)
    times = []
    for _ in range(reps):
        t0 = clock()
        call()
        times.append((clock() - t0) * 1e-6)
    return statistics.median(times), min(times), reps


# ---------------------------------------------------------------------------------------------
# The sides.

def run_ours(binary, name, threads, reps):
    cmd = [binary, "--workload", name, "--json", "--threads", str(threads)]
    if reps:
        cmd += ["--reps", str(reps)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    try:
        doc = json.loads(proc.stdout)
    except ValueError:
        raise RuntimeError("%s failed (rc %d): %s" % (" ".join(cmd), proc.returncode,
                                                      proc.stderr.strip()))
    return doc, doc["results"][0]


def random_tensor(torch, sizes, dtype, channels_last, seed=12345):
    gen = torch.Generator().manual_seed(seed)
    t = (torch.rand(sizes, generator=gen, dtype=torch.float32) * 2 - 1).to(getattr(torch, dtype))
    if channels_last:
        fmt = torch.channels_last if len(sizes) == 4 else torch.channels_last_3d
        t = t.contiguous(memory_format=fmt)
    return t


def make_torch_call(torch, kind, direction, in_sizes, out_spatial, dtype, channels_last):
    """A zero-argument callable running the workload in PyTorch: the aten kernel into a
    preallocated output for W rows, F.interpolate (allocating its output) for call rows."""
    fwd_name, bwd_name, has_ac, n_scales, mode, antialias = ATEN[kind]
    aten = torch.ops.aten
    ac = [False] if has_ac else []
    scales = [None] * n_scales
    out_spatial = list(out_spatial)
    if direction == "call":
        x = random_tensor(torch, in_sizes, dtype, channels_last)
        interpolate = torch.nn.functional.interpolate
        return lambda: interpolate(x, size=out_spatial, mode=mode, align_corners=False)
    if direction == "fwd":
        x = random_tensor(torch, in_sizes, dtype, channels_last)
        op = getattr(aten, fwd_name)
        y = torch.empty_like(op.default(x, out_spatial, *ac, *scales))
        out_op = op.out
        return lambda: out_op(x, out_spatial, *ac, *scales, out=y)
    g = random_tensor(torch, list(in_sizes[:2]) + out_spatial, dtype, channels_last)
    op = getattr(aten, bwd_name)
    in_list = list(in_sizes)
    gi = torch.empty_like(op.default(g, out_spatial, in_list, *ac, *scales))
    gi_op = op.grad_input
    return lambda: gi_op(g, out_spatial, in_list, *ac, *scales, grad_input=gi)


def make_cv2_call(cv2, np, flag, x):
    """cv2.resize of the NC... array `x` (float32 numpy) as HWC images: one image of H x W x C
    per n for 2-D, one single-channel image of (N*C) x L for 1-D. Returns (call, result) where
    result() gives the last output back in x's NC... order."""
    interpolation = getattr(cv2, flag)

    def prepare(out_spatial):
        if x.ndim == 4:
            images = [np.ascontiguousarray(x[n].transpose(1, 2, 0)) for n in range(x.shape[0])]
            oh, ow = out_spatial
            outs = [np.empty((oh, ow, x.shape[1]), np.float32) for _ in images]
            dsize = (ow, oh)
        else:
            images = [np.ascontiguousarray(x.reshape(-1, x.shape[-1]))]
            outs = [np.empty((images[0].shape[0], out_spatial[0]), np.float32)]
            dsize = (out_spatial[0], images[0].shape[0])

        def call():
            for image, out in zip(images, outs):
                cv2.resize(image, dsize, dst=out, interpolation=interpolation)

        def result():
            if x.ndim == 4:
                return np.stack([o.reshape(o.shape[0], o.shape[1], -1).transpose(2, 0, 1)
                                 for o in outs])
            return outs[0].reshape(x.shape[0], x.shape[1], -1)
        return call, result
    return prepare


def check_cv2(torch, cv2, np, row):
    """Max |cv2 - F.interpolate| on the small case of `row` (see small_case)."""
    name, _, kind, _, in_sizes, out_spatial, dtype, _ = row
    small_in, small_out = small_case(in_sizes, out_spatial)
    x = random_tensor(torch, small_in, dtype, False, seed=7)
    _, _, _, _, mode, antialias = ATEN[kind]
    kwargs = {"align_corners": False} if mode in ("linear", "bilinear", "bicubic",
                                                   "trilinear") else {}
    ref = torch.nn.functional.interpolate(x, size=small_out, mode=mode, **kwargs).numpy()
    call, result = make_cv2_call(cv2, np, OPENCV[name], x.numpy())(small_out)
    call()
    return float(np.abs(result() - ref).max()), shape_label(small_in, small_out)


def run_onednn(binary, row, threads, reps, check=None):
    name, _, _, direction, in_sizes, out_spatial, dtype, channels_last = row
    alg, mode = ONEDNN[name]
    if check:
        in_sizes, out_spatial = small_case(in_sizes, out_spatial)
    cmd = [binary, "--alg", alg, "--dir", direction, "--in", ",".join(map(str, in_sizes)),
           "--out", ",".join(map(str, out_spatial)),
           "--layouts", "nhwc,blocked" if channels_last else "nchw,blocked",
           "--dtype", ONEDNN_DTYPE[dtype], "--threads", str(threads)]
    if check:
        cmd += ["--check", mode, "--reps", "1"]
    elif reps:
        cmd += ["--reps", str(reps)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("%s failed (rc %d): %s" % (" ".join(cmd), proc.returncode,
                                                      proc.stderr.strip()))
    return json.loads(proc.stdout), shape_label(in_sizes, out_spatial)


def measure_onednn(binary, row, threads, reps):
    """oneDNN's fastest layout among those that pass the semantics check."""
    dtype = row[6]
    checked, small = run_onednn(binary, row, threads, 0, check=True)
    timed, _ = run_onednn(binary, row, threads, reps)
    out = {"onednn_check_case": small, "onednn_layouts": {},
           "onednn_version": timed.get("version")}
    same_layouts = []
    for c, t in zip(checked["results"], timed["results"]):
        entry = {"ms_median": t.get("ms_median"), "ms_min": t.get("ms_min"),
                 "reps": t.get("reps"), "error": t.get("error") or c.get("error"),
                 "max_abs_diff": c.get("max_abs_diff")}
        entry["same"] = (entry["error"] is None and c.get("max_abs_diff") is not None and
                         c["max_abs_diff"] <= TOLERANCE[dtype])
        out["onednn_layouts"][t["layout"]] = entry
        if entry["error"] is None:
            same_layouts.append((not entry["same"], t["ms_median"], t["layout"]))
    if not same_layouts:
        errors = {k: v["error"] for k, v in out["onednn_layouts"].items()}
        out.update(onednn_ms=None, onednn_error="; ".join("%s: %s" % kv for kv in errors.items()))
        return out
    different, _, best = min(same_layouts)  # a same-semantics layout first, then the fastest
    e = out["onednn_layouts"][best]
    out.update(onednn_ms=e["ms_median"], onednn_min_ms=e["ms_min"], onednn_reps=e["reps"],
               onednn_layout=best, onednn_same=not different, onednn_diff=e["max_abs_diff"],
               onednn_error=None)
    return out


# ---------------------------------------------------------------------------------------------
# Report.

def fmt_ms(v):
    if v is None:
        return "–"
    if v >= 100:
        return "%.1f" % v
    if v >= 10:
        return "%.2f" % v
    if v >= 1:
        return "%.3f" % v
    return "%.4f" % v


def fmt_us(v_ms):
    return "–" if v_ms is None else "%.1f" % (v_ms * 1e3)


def pick(row, key, stat):
    """The row's `key` value in the chosen statistic (key_ms or key_min_ms); the floor is the
    faster store variant in that statistic."""
    if key == "floor":
        variants = [pick(row, k, stat) for k in ("floor_normal", "floor_streaming")]
        variants = [v for v in variants if v is not None]
        return min(variants) if variants else None
    return row.get(key + ("_min_ms" if stat == "min" else "_ms"))


def fastest_peer(r, stat):
    best = None
    for p in PEERS:
        v = pick(r, p, stat)
        if v is not None and r.get(p + "_same", p == "torch"):
            if best is None or v < best[1]:
                best = (p, v)
    return best


def peer_cell(r, p, stat, notes):
    v = pick(r, p, stat)
    if r.get(p + "_skip"):
        return "–"
    if v is None:
        err = r.get(p + "_error")
        if err:
            notes.append("%s %s: %s" % (r["workload"], PEER_NAMES[p], err))
        return "unsupported" if err else "–"
    cell = fmt_ms(v)
    if p == "onednn" and r.get("onednn_layout"):
        cell += " (%s)" % r["onednn_layout"]
    if not r.get(p + "_same", p == "torch"):
        cell += " †"
    return cell


def report_header(args, meta):
    stat = args.stat
    lines = ["# upsample vs PyTorch %s, OpenCV %s, oneDNN %s (CPU)" % (
        meta["torch"], meta["cv2"], meta["onednn"]), ""]
    lines.append("- machine: %s, %d CPUs online" % (machine_name(), os.cpu_count() or 0))
    lines.append("- date: %s" % meta["date"])
    lines.append("- threads: %d (ExecContext::num_threads / UPSAMPLE_NUM_THREADS, "
                 "torch.set_num_threads, cv2.setNumThreads, OpenMP for oneDNN, the floor)"
                 % args.threads)
    lines.append("- SIMD target: %s; floor: %s-byte vectors (%s)" % (
        meta["simd"] or "unknown", meta.get("floor_vector_bytes", "?"),
        meta.get("floor_target", "?")))
    lines.append("- 1-min load average: %s before, %s after (%d CPUs)" % (
        meta["load_before"], meta["load_after"], os.cpu_count() or 0))
    lines.append("- per workload: %s; %s of R single-call timings per side" % (
        "upsample (+ floor) first, then PyTorch, OpenCV, oneDNN" if args.order == "ours-first"
        else "PyTorch, OpenCV, oneDNN first, then upsample (+ floor)", stat))
    rounds = meta.get("rounds", 1)
    if rounds > 1:
        lines.append("- %d rounds per workload, the side that goes first alternating; per side "
                     "the %s" % (rounds, "median of the rounds' medians" if stat == "median"
                                 else "least of the rounds' minima"))
    lines.append("- floor: read every input byte once and write every output byte once, same "
                 "threads, the faster of ordinary and non-temporal (NT) stores")
    lines.append("- †: the peer computes a different function here (semantics check failed); "
                 "not counted")
    return lines


def workload_table(rows, stat, notes):
    lines = ["| W | operator | ours ms | PyTorch ms | OpenCV ms | oneDNN ms | "
             "fastest same-semantics peer | speed-up | floor ms (normal / NT) | "
             "ours/floor |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["workload"].startswith("C"):
            continue
        ours = pick(r, "ours", stat)
        if r.get("ours_error"):
            notes.append("%s ours: %s" % (r["workload"], r["ours_error"]))
        cells = [peer_cell(r, p, stat, notes) for p in PEERS]
        best = fastest_peer(r, stat)
        if best and ours:
            fastest = "%s %s" % (PEER_NAMES[best[0]], fmt_ms(best[1]))
            speed = "%.2f×" % (best[1] / ours)
        else:
            fastest, speed = "none", "–"
        floor = pick(r, "floor", stat)
        floors = "%s (%s / %s)" % (fmt_ms(floor), fmt_ms(pick(r, "floor_normal", stat)),
                                   fmt_ms(pick(r, "floor_streaming", stat)))
        vs_floor = "%.1f×" % (ours / floor) if (ours and floor) else "–"
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["workload"], r["operator"], fmt_ms(ours) if ours else "error", cells[0], cells[1],
            cells[2], fastest, speed, floors, vs_floor))
    return lines


def calls_table(rows, stat, notes, meta):
    calls = [r for r in rows if r["workload"].startswith("C")]
    if not calls:
        return []
    lines = ["", "Calls through the aclnn C API (bilinear2d fwd float32 NCHW), µs; PyTorch: "
             "F.interpolate (allocates its output), as a reference:", "",
             "| C | what | shape | ours µs | PyTorch F.interpolate µs | floor µs |",
             "|---|---|---|---|---|---|"]
    for r in calls:
        if r.get("ours_error"):
            notes.append("%s ours: %s" % (r["workload"], r["ours_error"]))
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            r["workload"], r["operator"], r["shape"], fmt_us(pick(r, "ours", stat)),
            fmt_us(pick(r, "torch", stat)), fmt_us(pick(r, "floor", stat))))
    by_name = {r["workload"]: r for r in calls}
    c1, c2 = by_name.get("C1"), by_name.get("C2")
    if c1 and c2 and pick(c1, "ours", stat) and pick(c2, "ours", stat):
        lines.append("")
        ratio, rounds = paired_ratio(c1, c2, stat)
        how = ""
        if rounds > 1:
            how = " (the median of %d rounds' ratios%s)" % (
                rounds, ", C1 and C2 measured in turn" if meta.get("calls_in_turn") else "")
        lines.append("C1 / C2 (a CANN-style call over phase 2 alone, on W1): %.2f×%s" % (
            ratio, how))
    return lines


def semantics_checks(rows):
    checks = []
    for r in rows:
        if r.get("cv2_diff") is not None:
            checks.append("%s OpenCV %s on %s: max |diff| %.2g → %s" % (
                r["workload"], OPENCV[r["workload"]], r["cv2_check_case"], r["cv2_diff"],
                "same" if r["cv2_same"] else "DIFFERENT"))
        for layout, e in sorted(r.get("onednn_layouts", {}).items()):
            if e.get("max_abs_diff") is not None:
                checks.append("%s oneDNN %s on %s: max |diff| %.2g vs ours → %s" % (
                    r["workload"], layout, r["onednn_check_case"], e["max_abs_diff"],
                    "same" if e["same"] else "DIFFERENT"))
    return checks


def report(rows, args, meta):
    notes = []
    lines = report_header(args, meta) + [""] + workload_table(rows, args.stat, notes)
    lines += calls_table(rows, args.stat, notes, meta)
    checks = semantics_checks(rows)
    if checks:
        lines.append("")
        lines.append("Semantics checks (this run):")
        lines.extend("- " + c for c in checks)
    if notes:
        lines.append("")
        lines.append("Notes:")
        lines.extend("- " + n for n in notes)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------

def parse_args():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench-binary", default="build/upsample_bench",
                    help="upsample_bench (relative: to the cwd, then to the repository root)")
    ap.add_argument("--onednn-binary", default="build/onednn_bench",
                    help="onednn_bench (built when oneDNN is installed); without it the oneDNN "
                         "column is empty")
    ap.add_argument("--workloads", default="", help="comma-separated workloads (default: all)")
    ap.add_argument("--threads", type=int, default=2, help="threads for every side (default 2)")
    ap.add_argument("--reps", type=int, default=0,
                    help="timed calls per side (default: adaptive, ~0.5 s, 20 to 5000)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="measure each workload this many times, alternating which side goes "
                         "first; report the median of the medians and the least minimum "
                         "(default 1)")
    ap.add_argument("--order", choices=["ours-first", "peers-first"], default="ours-first",
                    help="within each workload, which side is measured first (in the first "
                         "round)")
    ap.add_argument("--stat", choices=["median", "min"], default="median",
                    help="statistic of the tables (default median; min is less sensitive to a "
                         "loaded machine)")
    ap.add_argument("--no-peers", action="store_true",
                    help="skip OpenCV and oneDNN (PyTorch only)")
    ap.add_argument("--markdown-out", default="", help="also write the Markdown report here")
    ap.add_argument("--json-out", default="", help="also write the raw results as JSON here")
    ap.add_argument("--from-json", default="",
                    help="measure nothing: print the report of a --json-out file (e.g. again "
                         "with --stat min)")
    return ap.parse_args()


def selected_workloads(args):
    if not args.workloads:
        return WORKLOADS
    wanted = [w.strip().upper() for w in args.workloads.split(",") if w.strip()]
    known = {w[0].upper(): w for w in WORKLOADS}
    unknown = [w for w in wanted if w not in known]
    if unknown:
        sys.exit("unknown workloads: %s" % ", ".join(unknown))
    return [known[w] for w in wanted]


class Peers:
    """The modules and binaries of the sides measured besides ours."""

    def __init__(self, args, onednn):
        import numpy as np
        import torch  # after argument parsing, so --help is fast
        try:
            import cv2
        except ImportError:
            cv2 = None
        if args.no_peers:
            cv2 = None
        torch.set_num_threads(args.threads)
        if cv2 is not None:
            cv2.setNumThreads(args.threads)
        self.np, self.torch, self.cv2, self.onednn = np, torch, cv2, onednn


def measure_ours(r, binary, args, meta):
    name = r["workload"]
    doc, res = run_ours(binary, name, args.threads, args.reps)
    meta["simd"] = meta["simd"] or doc.get("simd", "")
    meta.setdefault("floor_target", doc.get("floor_target"))
    meta.setdefault("floor_vector_bytes", doc.get("floor_vector_bytes"))
    if res.get("shape") != r["shape"]:
        raise RuntimeError("%s: upsample_bench runs %s, compare.py expects %s" % (
            name, res.get("shape"), r["shape"]))
    r.update(ours_ms=res.get("ms_median"), ours_min_ms=res.get("ms_min"),
             floor_ms=res.get("floor_ms"), floor_min_ms=res.get("floor_min_ms"),
             floor_variant=res.get("floor_variant"),
             floor_normal_ms=res.get("floor_normal_ms"),
             floor_normal_min_ms=res.get("floor_normal_min_ms"),
             floor_streaming_ms=res.get("floor_streaming_ms"),
             floor_streaming_min_ms=res.get("floor_streaming_min_ms"),
             bytes=res.get("bytes"), reps=res.get("reps"), ours_error=res.get("error"))


def measure_peers(r, row, args, peers, meta):
    name, _, kind, direction, in_sizes, out_spatial, dtype, cl = row
    torch, cv2, np = peers.torch, peers.cv2, peers.np
    try:
        call = make_torch_call(torch, kind, direction, in_sizes, out_spatial, dtype, cl)
        med, mn, reps = time_calls(call, args.reps)
        r.update(torch_ms=med, torch_min_ms=mn, torch_reps=reps, torch_error=None)
    except (RuntimeError, NotImplementedError) as e:
        r.update(torch_ms=None, torch_error=str(e).splitlines()[0])
    if cv2 is not None and name in OPENCV:
        diff, case = check_cv2(torch, cv2, np, row)
        x = random_tensor(torch, in_sizes, dtype, False).numpy()
        call, _ = make_cv2_call(cv2, np, OPENCV[name], x)(out_spatial)
        med, mn, reps = time_calls(call, args.reps)
        r.update(cv2_ms=med, cv2_min_ms=mn, cv2_reps=reps, cv2_diff=diff,
                 cv2_check_case=case, cv2_same=diff <= TOLERANCE[dtype])
    else:
        r["cv2_skip"] = True
    if peers.onednn is not None and name in ONEDNN:
        try:
            r.update(measure_onednn(peers.onednn, row, args.threads, args.reps))
            meta["onednn"] = r.get("onednn_version") or meta["onednn"]
        except (RuntimeError, ValueError) as e:
            r.update(onednn_ms=None, onednn_error=str(e).splitlines()[0])
    else:
        r["onednn_skip"] = True


def combine_rounds(rounds):
    """One row from the rounds of a workload: the first round's fields, then per timing the
    median of the rounds' medians (keys ending in _ms) and the least of their minima (_min_ms),
    over the rounds that measured it; each round's timings under "round_values"."""
    r = dict(rounds[0])
    values = {}
    for key in sorted({k for rd in rounds for k in rd if k.endswith("_ms")}):
        got = [rd.get(key) for rd in rounds]
        values[key] = got
        measured = [v for v in got if isinstance(v, (int, float))]
        if measured:
            r[key] = min(measured) if key.endswith("_min_ms") else statistics.median(measured)
    for key in ("floor_ms", "floor_min_ms"):  # the faster store variant, as in one round
        stat = key[len("floor"):]
        variants = [(r.get(v + stat), v) for v in ("floor_normal", "floor_streaming")]
        variants = [(t, v) for t, v in variants if isinstance(t, (int, float))]
        if variants:
            r[key] = min(variants)[0]
            if key == "floor_ms":
                r["floor_variant"] = ("normal" if min(variants)[1] == "floor_normal"
                                      else "non-temporal")
    r["rounds"] = len(rounds)
    r["round_values"] = values
    return r


def measure_round(row, k, binary, args, peers, meta):
    """Round k of a workload: ours and the peers, the side that goes first alternating."""
    name, what, _, _, in_sizes, out_spatial, _, _ = row
    r = {"workload": name, "operator": what, "shape": shape_label(in_sizes, out_spatial)}
    if (args.order == "ours-first") == (k % 2 == 0):
        measure_ours(r, binary, args, meta)
        measure_peers(r, row, args, peers, meta)
    else:
        measure_peers(r, row, args, peers, meta)
        measure_ours(r, binary, args, meta)
    return r


def finish_row(rounds):
    r = combine_rounds(rounds) if len(rounds) > 1 else rounds[0]
    best = fastest_peer(r, "median")
    print("%-4s ours %s ms  floor %s ms  fastest peer %s  (R=%s)%s" % (
        r["workload"], fmt_ms(r.get("ours_ms")), fmt_ms(r.get("floor_ms")),
        "%s %s ms" % (PEER_NAMES[best[0]], fmt_ms(best[1])) if best else "none",
        r.get("reps"), ("  ours error: " + r["ours_error"]) if r.get("ours_error") else ""),
        file=sys.stderr, flush=True)
    return r


def measure_row(row, binary, args, peers, meta):
    return finish_row([measure_round(row, k, binary, args, peers, meta)
                       for k in range(max(1, args.rounds))])


# Rows measured round by round in turn, so that each round of one is seconds from the same round
# of the others: C1 over C2 is a ratio of two rows, and a shared host's slow phase that caught
# all the rounds of one row would otherwise decide it.
PAIRED = ("C1", "C2")


def measure_rows(selected, binary, args, peers, meta):
    paired = [row for row in selected if row[0] in PAIRED]
    if len(paired) < 2:
        return [measure_row(row, binary, args, peers, meta) for row in selected]
    rounds = {row[0]: [] for row in paired}
    results = {}
    for row in selected:
        if row[0] not in PAIRED:
            results[row[0]] = measure_row(row, binary, args, peers, meta)
        elif not rounds[row[0]]:  # the first paired row measures all of them, round by round
            for k in range(max(1, args.rounds)):
                turn = paired if k % 2 == 0 else paired[::-1]
                for p in turn:
                    rounds[p[0]].append(measure_round(p, k, binary, args, peers, meta))
            for p in paired:
                results[p[0]] = finish_row(rounds[p[0]])
    return [results[row[0]] for row in selected]


def paired_ratio(a, b, stat):
    """a over b, as the median of the rounds' ratios when both have per-round values (rounds
    measured in turn, measure_rows), else the ratio of their combined values."""
    key = "ours_min_ms" if stat == "min" else "ours_ms"
    va = a.get("round_values", {}).get(key)
    vb = b.get("round_values", {}).get(key)
    if va and vb and len(va) == len(vb) and all(isinstance(v, (int, float)) and v > 0
                                                for v in va + vb):
        return statistics.median(x / y for x, y in zip(va, vb)), len(va)
    return pick(a, "ours", stat) / pick(b, "ours", stat), 1


def main():
    args = parse_args()
    if args.from_json:
        with open(args.from_json) as f:
            doc = json.load(f)
        args.threads, args.order = doc["threads"], doc["meta"].get("order", args.order)
        print(report(doc["results"], args, doc["meta"]), end="")
        return

    binary = find_binary(args.bench_binary)
    if not os.path.exists(binary):
        sys.exit("bench binary not found: %s (build it: cmake --build build --target "
                 "upsample_bench)" % args.bench_binary)
    onednn = find_binary(args.onednn_binary)
    if args.no_peers or not os.path.exists(onednn):
        onednn = None
    selected = selected_workloads(args)
    peers = Peers(args, onednn)
    meta = {"order": args.order, "rounds": max(1, args.rounds), "calls_in_turn": True,
            "torch": peers.torch.__version__,
            "cv2": peers.cv2.__version__ if peers.cv2 else "(absent)",
            "onednn": "(absent)" if onednn is None else "(not run)",
            "simd": "", "load_before": load_average(),
            "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S %Z").strip()}
    rows = measure_rows(selected, binary, args, peers, meta)
    meta["load_after"] = load_average()
    write_report(report(rows, args, meta), args.markdown_out, args.json_out,
                 {"meta": meta, "threads": args.threads, "machine": machine_name(),
                  "results": rows}, indent=2)


if __name__ == "__main__":
    main()
