#!/usr/bin/python3
"""The Python package against stock PyTorch, from Python, in one run.

For each standard workload W1-W19 (the table of bench/compare.py), three variants of the same
call are timed in one process, interleaved:

* stock:     torch.nn.functional.interpolate, PyTorch 1.13's CPU kernels;
* upsample:  upsample.interpolate (same arguments);
* installed: torch.nn.functional.interpolate after upsample.install() (our kernels through
             PyTorch's dispatcher).

"fwd" rows time the call (output allocation included, as a user sees it); "bwd" rows build the
graph untimed and time y.backward(g). Then the per-call overhead: 1x3x32x32 -> 64x64 bilinear
and nearest forward, many calls, microseconds per call.

Each variant runs in ROUNDS blocks, the variants alternating block by block so that load
changes hit all three alike; two tables show the median and the minimum of all single-call
timings (the minimum is less sensitive to load on a shared machine). Threads:
torch.set_num_threads(--threads) (the engine follows torch's count).

    PYTHONPATH=build/python /usr/bin/python3 bench/python/bench_torch.py \
        [--workloads W1,W2] [--threads 2] [--target-ms 300] [--markdown-out FILE]
"""

import argparse
import datetime
import os
import statistics
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
sys.path.insert(0, BENCH)
from compare import WORKLOADS, fmt_ms, load_average, machine_name  # noqa: E402

warnings.filterwarnings("ignore", message="No CUDA runtime is found")
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(BENCH), "build", "python"))
import upsample  # noqa: E402

# bench/compare.py's kinds -> F.interpolate arguments.
KIND = {
    "bilinear": dict(mode="bilinear", align_corners=False),
    "bicubic": dict(mode="bicubic", align_corners=False),
    "nearest": dict(mode="nearest"),
    "nearest_exact": dict(mode="nearest-exact"),
    "bilinear_aa": dict(mode="bilinear", align_corners=False, antialias=True),
    "bicubic_aa": dict(mode="bicubic", align_corners=False, antialias=True),
    "linear1d": dict(mode="linear", align_corners=False),
    "trilinear": dict(mode="trilinear", align_corners=False),
}
ROUNDS = 3
WARMUP = 2


def make_case(kind, direction, in_sizes, out_spatial, dtype, channels_last):
    """A callable per variant: fwd -> run the call; bwd -> (untimed setup, timed backward)."""
    kw = dict(KIND[kind], size=list(out_spatial))
    tdtype = getattr(torch, dtype)
    gen = torch.Generator().manual_seed(12345)
    fmt = torch.contiguous_format
    if channels_last:
        fmt = torch.channels_last if len(in_sizes) == 4 else torch.channels_last_3d
    x = (torch.rand(in_sizes, generator=gen) * 2 - 1).to(tdtype).contiguous(memory_format=fmt)
    g = (torch.rand(list(in_sizes[:2]) + list(out_spatial), generator=gen) * 2 - 1).to(tdtype)
    g = g.contiguous(memory_format=fmt)

    def variant(fn):
        if direction == "fwd":
            return lambda: (fn(x, **kw), None)
        xr = x.detach().requires_grad_()

        def setup_and_backward():
            xr.grad = None
            y = fn(xr, **kw)
            return y, lambda: y.backward(g)
        return setup_and_backward

    return {"stock": variant(F.interpolate), "upsample": variant(upsample.interpolate),
            "installed": variant(F.interpolate)}


def time_one(call, direction):
    """One timed call in ms: the forward, or the backward after an untimed forward."""
    clock = time.perf_counter_ns
    if direction == "fwd":
        t0 = clock()
        call()
        return (clock() - t0) * 1e-6
    _, backward = call()
    t0 = clock()
    backward()
    return (clock() - t0) * 1e-6


def measure(variants, direction, target_ms):
    """(median, min) ms per variant, or an error text where the call fails (stock float16)."""
    results, times, reps = {}, {}, None
    for name, call in variants.items():
        try:
            with (upsample.installed() if name == "installed" else _nothing()):
                for _ in range(WARMUP):
                    time_one(call, direction)
                probe = time_one(call, direction)
        except RuntimeError as e:
            results[name] = str(e).splitlines()[0]
            continue
        times[name] = []
        if reps is None:
            reps = int(min(2000, max(6, target_ms / max(probe, 1e-3))))
    for _ in range(ROUNDS):
        for name in times:
            with (upsample.installed() if name == "installed" else _nothing()):
                for _ in range(max(2, reps // ROUNDS)):
                    times[name].append(time_one(variants[name], direction))
    for name, t in times.items():
        results[name] = (statistics.median(t), min(t))
    return results, reps


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def overhead_rows(rounds=5, calls=2000):
    """Microseconds per call at 1x3x32x32 -> 64x64, best block of `calls` calls per variant."""
    x = torch.rand(1, 3, 32, 32)
    rows = []
    for kw in (dict(mode="bilinear", align_corners=False), dict(mode="nearest")):
        per = {"stock": [], "upsample": [], "installed": []}
        for _ in range(rounds):
            for name, fn in (("stock", F.interpolate), ("upsample", upsample.interpolate),
                             ("installed", F.interpolate)):
                with (upsample.installed() if name == "installed" else _nothing()):
                    for _ in range(200):
                        fn(x, size=(64, 64), **kw)
                    t0 = time.perf_counter_ns()
                    for _ in range(calls):
                        fn(x, size=(64, 64), **kw)
                    per[name].append((time.perf_counter_ns() - t0) / calls / 1e3)
        rows.append((kw["mode"], {k: min(v) for k, v in per.items()}))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workloads", default="", help="comma-separated names (default: all)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--target-ms", type=float, default=300.0,
                    help="approximate time per variant and workload (default 300)")
    ap.add_argument("--markdown-out", default="")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    wanted = {w.strip().upper() for w in args.workloads.split(",") if w.strip()}
    load_before = load_average()
    started = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")

    header_row = ("| W | operator | stock ms | upsample.interpolate ms | installed F.interpolate ms "
                  "| speed-up upsample | speed-up installed | reps |")
    rule = "|---|---|---|---|---|---|---|---|"
    rows = []
    notes = []
    for name, what, kind, direction, in_sizes, out_spatial, dtype, cl in WORKLOADS:
        if wanted and name.upper() not in wanted:
            continue
        variants = make_case(kind, direction, in_sizes, out_spatial, dtype, cl)
        res, reps = measure(variants, direction, args.target_ms)
        for v in ("stock", "upsample", "installed"):
            if isinstance(res[v], str):
                notes.append("%s %s: %s" % (name, v, res[v]))
        rows.append((name, what, res, reps))
        print(name, what, res, flush=True)

    def table(stat):
        out = [header_row, rule]
        for name, what, res, reps in rows:
            cells = ["unsupported" if isinstance(res[v], str) else fmt_ms(res[v][stat])
                     for v in ("stock", "upsample", "installed")]
            speed = ["–" if isinstance(res["stock"], str) or isinstance(res[v], str)
                     else "%.2f×" % (res["stock"][stat] / res[v][stat])
                     for v in ("upsample", "installed")]
            out.append("| %s | %s | %s | %s | %s | %s | %s | %d |" % (
                name, what, cells[0], cells[1], cells[2], speed[0], speed[1], reps))
        return out

    lines = ["Median of the single-call timings:", ""] + table(0)
    lines += ["", "Minimum of the single-call timings:", ""] + table(1)
    lines += ["", "Per-call overhead, 1x3x32x32 -> 64x64 forward (µs per call, best of 5 blocks "
              "of 2000 calls):", "",
              "| mode | stock µs | upsample.interpolate µs | installed F.interpolate µs "
              "| upsample / stock | installed / stock |", "|---|---|---|---|---|---|"]
    for mode, r in overhead_rows():
        line = "| %s | %.1f | %.1f | %.1f | %.2f | %.2f |" % (
            mode, r["stock"], r["upsample"], r["installed"], r["upsample"] / r["stock"],
            r["installed"] / r["stock"])
        lines.append(line)
        print(line, flush=True)
    header = ["%s, %s, torch %s, upsample %s, %d threads, load average %s before, %s after" % (
        started, machine_name(), torch.__version__, upsample.__version__, args.threads,
        load_before, load_average()), ""]
    if notes:
        lines += ["", "Notes:"] + ["- " + n for n in notes]
    report = "\n".join(header + lines) + "\n"
    print()
    print(report)
    if args.markdown_out:
        with open(args.markdown_out, "w") as f:
            f.write(report)


if __name__ == "__main__":
    main()
