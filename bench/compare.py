#!/usr/bin/python3
"""Side-by-side benchmark: upsample (build/upsample_bench) vs PyTorch 1.13 CPU, workloads W1-W19.

Run with the system Python that has PyTorch 1.13:

    /usr/bin/python3 bench/compare.py [--bench-binary build/upsample_bench] [--workloads W1,W2]
                                      [--threads 2] [--reps N] [--order ours-first|torch-first]
                                      [--markdown-out FILE] [--json-out FILE]

Order of measurement (interleaved per workload, default --order ours-first): for each workload,
first `upsample_bench --workload W --json` runs in a subprocess (plan, allocate, 3 warm-up runs,
R timed runs of the library, then 3 warm-up + R timed runs of the floor kernel), then PyTorch
runs the same workload in this process (3 warm-up calls, then the same R timed calls). R is the
count the bench binary chose (adaptive, >= 20, ~0.5 s of the library's runs) unless --reps fixes
it. Both sides report the median of R single-call timings.

PyTorch side: the aten kernels directly, with outputs preallocated through the out= / grad_input=
overloads (the output is allocated once, like the functional op would, then reused), so neither
allocation nor autograd is timed. A per-call Python dispatch overhead of a few microseconds is
included in PyTorch's times.
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

WORKLOADS = [
    # name, operator, kind, direction, input sizes, output sizes, dtype, channels_last
    ("W1", "bilinear2d fwd", "bilinear", "fwd", [8, 32, 64, 64], [128, 128], "float32", False),
    ("W2", "bilinear2d bwd", "bilinear", "bwd", [8, 32, 64, 64], [128, 128], "float32", False),
    ("W3", "bicubic2d fwd", "bicubic", "fwd", [1, 3, 512, 512], [1024, 1024], "float32", False),
    ("W4", "bicubic2d bwd", "bicubic", "bwd", [1, 3, 512, 512], [1024, 1024], "float32", False),
    ("W5", "nearest2d fwd", "nearest", "fwd", [8, 32, 64, 64], [128, 128], "float32", False),
    ("W5e", "nearest-exact2d fwd", "nearest_exact", "fwd", [8, 32, 64, 64], [128, 128], "float32",
     False),
    ("W6", "nearest2d bwd", "nearest", "bwd", [8, 32, 64, 64], [128, 128], "float32", False),
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
    ("W15", "bilinear2d fwd NHWC", "bilinear", "fwd", [8, 32, 64, 64], [128, 128], "float32", True),
    ("W16", "bilinear2d bwd NHWC", "bilinear", "bwd", [8, 32, 64, 64], [128, 128], "float32", True),
    ("W17", "bilinear2d fwd bf16", "bilinear", "fwd", [8, 32, 64, 64], [128, 128], "bfloat16",
     False),
    ("W18", "bilinear2d fwd fp16", "bilinear", "fwd", [8, 32, 64, 64], [128, 128], "float16",
     False),
    ("W19", "bilinear2d fwd large", "bilinear", "fwd", [1, 3, 2048, 2048], [4096, 4096], "float32",
     False),
]

# kind -> (forward aten op, backward aten op, takes align_corners, number of scale arguments)
ATEN = {
    "bilinear": ("upsample_bilinear2d", "upsample_bilinear2d_backward", True, 2),
    "bicubic": ("upsample_bicubic2d", "upsample_bicubic2d_backward", True, 2),
    "nearest": ("upsample_nearest2d", "upsample_nearest2d_backward", False, 2),
    "nearest_exact": ("_upsample_nearest_exact2d", "_upsample_nearest_exact2d_backward", False, 2),
    "bilinear_aa": ("_upsample_bilinear2d_aa", "_upsample_bilinear2d_aa_backward", True, 2),
    "bicubic_aa": ("_upsample_bicubic2d_aa", "_upsample_bicubic2d_aa_backward", True, 2),
    "linear1d": ("upsample_linear1d", "upsample_linear1d_backward", True, 1),
    "trilinear": ("upsample_trilinear3d", "upsample_trilinear3d_backward", True, 3),
}

WARMUP = 3


def repo_root():
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def machine_name():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return platform.processor() or platform.machine()


def run_ours(binary, name, threads, reps):
    cmd = [binary, "--workload", name, "--json", "--threads", str(threads)]
    if reps:
        cmd += ["--reps", str(reps)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("%s failed (rc %d): %s" % (" ".join(cmd), proc.returncode,
                                                      proc.stderr.strip()))
    doc = json.loads(proc.stdout)
    return doc, doc["results"][0]


def make_torch_call(torch, kind, direction, in_sizes, out_spatial, dtype, channels_last):
    """Returns a zero-argument callable running the aten kernel into a preallocated output."""
    fwd_name, bwd_name, has_ac, n_scales = ATEN[kind]
    aten = torch.ops.aten
    tdtype = getattr(torch, dtype)
    fmt = None
    if channels_last:
        fmt = torch.channels_last if len(in_sizes) == 4 else torch.channels_last_3d
    ac = [False] if has_ac else []
    scales = [None] * n_scales
    out_spatial = list(out_spatial)
    gen = torch.Generator().manual_seed(12345)

    def rand(sizes):
        t = (torch.rand(sizes, generator=gen, dtype=torch.float32) * 2 - 1).to(tdtype)
        return t.contiguous(memory_format=fmt) if fmt is not None else t

    if direction == "fwd":
        x = rand(in_sizes)
        op = getattr(aten, fwd_name)
        y = torch.empty_like(op.default(x, out_spatial, *ac, *scales))
        out_op = op.out

        def call():
            out_op(x, out_spatial, *ac, *scales, out=y)
    else:
        g = rand(list(in_sizes[:2]) + out_spatial)
        op = getattr(aten, bwd_name)
        gi = torch.empty_like(op.default(g, out_spatial, list(in_sizes), *ac, *scales))
        gi_op = op.grad_input
        in_list = list(in_sizes)

        def call():
            gi_op(g, out_spatial, in_list, *ac, *scales, grad_input=gi)
    return call


def time_torch(call, reps):
    for _ in range(WARMUP):
        call()
    times = []
    clock = time.perf_counter_ns
    for _ in range(reps):
        t0 = clock()
        call()
        times.append((clock() - t0) * 1e-6)
    return statistics.median(times), min(times)


def load_average():
    try:
        return "%.2f" % os.getloadavg()[0]
    except OSError:
        return "?"


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


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench-binary", default="build/upsample_bench",
                    help="path of upsample_bench (relative paths: to the cwd, then to the repo "
                         "root); default build/upsample_bench")
    ap.add_argument("--workloads", default="", help="comma-separated workloads (default: all)")
    ap.add_argument("--threads", type=int, default=2, help="threads for both sides (default 2)")
    ap.add_argument("--reps", type=int, default=0,
                    help="timed repetitions for both sides (default: the bench binary's "
                         "adaptive count)")
    ap.add_argument("--order", choices=["ours-first", "torch-first"], default="ours-first",
                    help="within each workload, which side is measured first")
    ap.add_argument("--stat", choices=["median", "min"], default="median",
                    help="statistic shown in the table for both sides (default median; min is "
                         "less sensitive to a loaded machine)")
    ap.add_argument("--markdown-out", default="", help="also write the Markdown report here")
    ap.add_argument("--json-out", default="", help="also write raw results as JSON here")
    args = ap.parse_args()

    binary = args.bench_binary
    if not os.path.isabs(binary) and not os.path.exists(binary):
        candidate = os.path.join(repo_root(), binary)
        if os.path.exists(candidate):
            binary = candidate
    if not os.path.exists(binary):
        sys.exit("bench binary not found: %s (build it: cmake --build build --target "
                 "upsample_bench)" % args.bench_binary)

    selected = WORKLOADS
    if args.workloads:
        wanted = [w.strip().upper() for w in args.workloads.split(",") if w.strip()]
        known = {w[0].upper(): w for w in WORKLOADS}
        unknown = [w for w in wanted if w not in known]
        if unknown:
            sys.exit("unknown workloads: %s" % ", ".join(unknown))
        selected = [known[w] for w in wanted]

    import torch  # after argument parsing, so --help is fast
    load_before = load_average()
    torch.set_num_threads(args.threads)

    simd = ""
    rows = []
    for (name, what, kind, direction, in_sizes, out_spatial, dtype, cl) in selected:
        row = {"workload": name, "operator": what}
        try:
            call = make_torch_call(torch, kind, direction, in_sizes, out_spatial, dtype, cl)
            torch_error = None
        except (RuntimeError, NotImplementedError) as e:
            call, torch_error = None, str(e).splitlines()[0]

        def measure_ours():
            nonlocal simd
            doc, res = run_ours(binary, name, args.threads, args.reps)
            simd = simd or doc.get("simd", "")
            row.update(ours_ms=res.get("ms_median"), ours_min_ms=res.get("ms_min"),
                       floor_ms=res.get("floor_ms"), floor_min_ms=res.get("floor_min_ms"),
                       bytes=res.get("bytes"),
                       reps=res.get("reps"), ours_error=res.get("error"))

        def measure_torch(reps):
            if call is None:
                row.update(torch_ms=None, torch_error=torch_error)
                return
            try:
                med, mn = time_torch(call, reps)
                row.update(torch_ms=med, torch_min_ms=mn, torch_error=None)
            except (RuntimeError, NotImplementedError) as e:
                row.update(torch_ms=None, torch_error=str(e).splitlines()[0])

        if args.order == "ours-first":
            measure_ours()
            measure_torch(row["reps"] or args.reps or 20)
        else:
            measure_torch(args.reps or 20)
            measure_ours()
        rows.append(row)
        print("%-4s ours %s ms  torch %s  floor %s ms  (R=%s)%s" % (
            name, fmt_ms(row["ours_ms"]),
            fmt_ms(row["torch_ms"]) + " ms" if row["torch_ms"] is not None else "unsupported",
            fmt_ms(row["floor_ms"]), row["reps"],
            ("  ours error: " + row["ours_error"]) if row["ours_error"] else ""),
            file=sys.stderr, flush=True)

    load_after = load_average()
    shown = [dict(r) for r in rows]  # the table's copy; --json-out keeps both statistics
    if args.stat == "min":
        for r in shown:
            r["ours_ms"], r["torch_ms"] = r.get("ours_min_ms"), r.get("torch_min_ms")
            r["floor_ms"] = r.get("floor_min_ms")
    lines = []
    lines.append("# upsample vs PyTorch %s (CPU)" % torch.__version__)
    lines.append("")
    lines.append("- machine: %s, %d CPUs online" % (machine_name(), os.cpu_count() or 0))
    lines.append("- date: %s" % datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S %Z").strip())
    lines.append("- threads: %d (ExecContext::num_threads, torch.set_num_threads, floor)"
                 % args.threads)
    lines.append("- SIMD target: %s" % (simd or "unknown"))
    lines.append("- 1-min load average: %s before, %s after (%d CPUs)"
                 % (load_before, load_after, os.cpu_count() or 0))
    lines.append("- order: per workload, %s; %s of R single-call timings on each side "
                 "(R in the last column)" % ("upsample (+ floor) first, then PyTorch"
                                             if args.order == "ours-first"
                                             else "PyTorch first, then upsample (+ floor)",
                                             args.stat))
    lines.append("- GB/s = (input bytes + output bytes) / our %s; floor = read input once + "
                 "write output once, same threads" % args.stat)
    lines.append("")
    lines.append("| W | operator | ours ms | PyTorch ms | speed-up (PyTorch/ours) | floor ms | "
                 "ours/floor | GB/s | R |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    notes = []
    for r in shown:
        ours = r["ours_ms"]
        tms = r["torch_ms"]
        if r["ours_error"]:
            ours_s = "error"
            notes.append("%s ours: %s" % (r["workload"], r["ours_error"]))
        else:
            ours_s = fmt_ms(ours)
        if tms is None:
            torch_s = "unsupported"
            notes.append("%s PyTorch: %s" % (r["workload"], r["torch_error"]))
        else:
            torch_s = fmt_ms(tms)
        speed = "%.2f×" % (tms / ours) if (tms is not None and ours) else "–"
        floor = r["floor_ms"]
        vs_floor = "%.1f×" % (ours / floor) if (ours and floor) else "–"
        gbs = "%.1f" % (r["bytes"] / (ours * 1e-3) / 1e9) if ours else "–"
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["workload"], r["operator"], ours_s, torch_s, speed, fmt_ms(floor), vs_floor, gbs,
            r["reps"]))
    if notes:
        lines.append("")
        lines.append("Notes:")
        for n in notes:
            lines.append("- " + n)
    report = "\n".join(lines) + "\n"
    print(report)
    if args.markdown_out:
        with open(args.markdown_out, "w") as f:
            f.write(report)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({"simd": simd, "threads": args.threads, "torch": torch.__version__,
                       "machine": machine_name(), "results": rows}, f, indent=2)


if __name__ == "__main__":
    main()
