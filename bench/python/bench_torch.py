#!/usr/bin/python3
"""The Python package against stock PyTorch, from Python, in one run.

For each standard workload W1-W19 (the table of bench/compare.py), these variants of the same
call are timed in one process, interleaved:

* stock:         torch.nn.functional.interpolate on PyTorch 1.13's CPU kernels;
* upsample:      upsample.interpolate (same arguments);
* installed:     torch.nn.functional.interpolate after upsample.install() (our kernels through
                 PyTorch's dispatcher);
* stock out / installed out: the aten .out / .grad_input overload into a preallocated output
                 (bench/compare.py's PyTorch call), before and after install(): the kernels
                 alone, without the output's allocation.

"fwd" rows time the call (for the first three, the output's allocation included, as a user sees
it); "bwd" rows build the graph untimed and time y.backward(g) (or time the .grad_input call).
Then the per-call overhead: 1x3x32x32 -> 64x64 bilinear and nearest forward, many calls,
microseconds per call.

Each variant runs in ROUNDS blocks, the variants alternating block by block so that load
changes hit all of them alike; two tables show the median and the minimum of all single-call
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
from compare import (WORKLOADS, fmt_ms, load_average, machine_name,  # noqa: E402
                     make_torch_call)

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
VARIANTS = ("stock", "upsample", "installed", "stock out", "installed out")
WARMUP = 2


def make_case(kind, direction, in_sizes, out_spatial, dtype, channels_last):
    """Per variant, a function that makes (inside the variant's install state) a timer: a
    zero-argument callable that runs one call and returns its time in ms."""
    kw = dict(KIND[kind], size=list(out_spatial))
    tdtype = getattr(torch, dtype)
    gen = torch.Generator().manual_seed(12345)
    fmt = torch.contiguous_format
    if channels_last:
        fmt = torch.channels_last if len(in_sizes) == 4 else torch.channels_last_3d
    x = (torch.rand(in_sizes, generator=gen) * 2 - 1).to(tdtype).contiguous(memory_format=fmt)
    g = (torch.rand(list(in_sizes[:2]) + list(out_spatial), generator=gen) * 2 - 1).to(tdtype)
    g = g.contiguous(memory_format=fmt)
    clock = time.perf_counter_ns

    def functional(fn):
        """fwd: the call (output allocation included); bwd: y.backward(g) after an untimed
        forward."""
        def make_timer():
            if direction == "fwd":
                def timer():
                    t0 = clock()
                    fn(x, **kw)
                    return (clock() - t0) * 1e-6
                return timer
            xr = x.detach().requires_grad_()

            def timer():
                xr.grad = None
                y = fn(xr, **kw)
                t0 = clock()
                y.backward(g)
                return (clock() - t0) * 1e-6
            return timer
        return make_timer

    def preallocated():
        """The aten .out / .grad_input overload into a preallocated output (bench/compare.py's
        PyTorch call): the kernel alone, through the dispatcher."""
        def make_timer():
            call = make_torch_call(torch, kind, direction, in_sizes, out_spatial, dtype,
                                   channels_last)

            def timer():
                t0 = clock()
                call()
                return (clock() - t0) * 1e-6
            return timer
        return make_timer

    return {"stock": functional(F.interpolate), "upsample": functional(upsample.interpolate),
            "installed": functional(F.interpolate), "stock out": preallocated(),
            "installed out": preallocated()}


def install_state(name):
    return upsample.installed() if name.startswith("installed") else _nothing()


def measure(variants, target_ms):
    """(median, min) ms per variant, or an error text where the call fails (stock float16)."""
    results, timers, times, reps = {}, {}, {}, None
    for name, make_timer in variants.items():
        try:
            with install_state(name):
                timers[name] = make_timer()
                for _ in range(WARMUP):
                    timers[name]()
                probe = timers[name]()
        except RuntimeError as e:
            results[name] = str(e).splitlines()[0]
            timers.pop(name, None)
            continue
        times[name] = []
        if reps is None:
            reps = int(min(2000, max(6, target_ms / max(probe, 1e-3))))
    for _ in range(ROUNDS):
        for name, timer in timers.items():
            with install_state(name):
                for _ in range(max(2, reps // ROUNDS)):
                    times[name].append(timer())
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
                with install_state(name):
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
                  "| speed-up upsample | speed-up installed | stock .out ms | installed .out ms "
                  "| speed-up .out | reps |")
    rule = "|---|---|---|---|---|---|---|---|---|---|---|"
    rows = []
    notes = []
    for name, what, kind, direction, in_sizes, out_spatial, dtype, cl in WORKLOADS:
        if wanted and name.upper() not in wanted:
            continue
        variants = make_case(kind, direction, in_sizes, out_spatial, dtype, cl)
        res, reps = measure(variants, args.target_ms)
        for v in VARIANTS:
            if isinstance(res[v], str):
                notes.append("%s %s: %s" % (name, v, res[v]))
        rows.append((name, what, res, reps))
        print(name, what, res, flush=True)

    def table(stat):
        out = [header_row, rule]
        for name, what, res, reps in rows:
            def ms(v):
                return "unsupported" if isinstance(res[v], str) else fmt_ms(res[v][stat])

            def speedup(base, v):
                if isinstance(res[base], str) or isinstance(res[v], str):
                    return "–"
                return "%.2f×" % (res[base][stat] / res[v][stat])
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d |" % (
                name, what, ms("stock"), ms("upsample"), ms("installed"),
                speedup("stock", "upsample"), speedup("stock", "installed"), ms("stock out"),
                ms("installed out"), speedup("stock out", "installed out"), reps))
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
