#!/usr/bin/python3
"""bench/compare.py end to end on a few workloads (3 timed calls per side), and its semantics
checks: they accept the peers that compute the workload's function and reject one that does
not. No timing is asserted beyond "measured" (positive).

Needs UPSAMPLE_BUILD_DIR (the build directory with upsample_bench; onednn_bench is used when it
was built). Prints one line per check and "N passed, M failed"; exit status 1 on a failure.
"""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402

BUILD_DIR = os.environ.get("UPSAMPLE_BUILD_DIR", "")
BENCH = os.path.join(BUILD_DIR, "upsample_bench")
ONEDNN = os.path.join(BUILD_DIR, "onednn_bench")
RESULTS = {"passed": 0, "failed": 0}


def report(ok, what):
    RESULTS["passed" if ok else "failed"] += 1
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    return ok


def check_end_to_end():
    out = os.path.join(tempfile.mkdtemp(prefix="upsample_compare_"), "r.json")
    p = subprocess.run([sys.executable, os.path.join(HERE, "compare.py"), "--bench-binary",
                        BENCH, "--onednn-binary", ONEDNN, "--workloads", "W1,W5e,W4,C2,C3",
                        "--reps", "3", "--json-out", out], capture_output=True, text=True,
                       timeout=900)
    if not report(p.returncode == 0, "compare.py exit %d: %s" % (p.returncode, p.stderr[-800:])):
        return
    rows = {r["workload"]: r for r in json.load(open(out))["results"]}
    report(sorted(rows) == ["C2", "C3", "W1", "W4", "W5e"], "one row per workload: %s"
           % sorted(rows))
    for name, r in rows.items():
        report(r.get("ours_ms", 0) > 0 and r.get("floor_ms", 0) > 0 and r.get("torch_ms", 0) > 0
               and r.get("ours_error") is None,
               "%s: ours, floor and PyTorch measured (%s)" % (
                   name, {k: r.get(k) for k in ("ours_ms", "floor_ms", "torch_ms")}))
        report(r["floor_ms"] == min(r["floor_normal_ms"], r["floor_streaming_ms"]),
               "%s: the floor is the faster store variant" % name)
    w1, w5e, w4 = rows["W1"], rows["W5e"], rows["W4"]
    report(w1.get("cv2_same") is True and w1.get("cv2_ms", 0) > 0 and w1["cv2_diff"] <= 1e-4,
           "W1: OpenCV INTER_LINEAR computes the same function (%s)" % w1.get("cv2_diff"))
    report(w5e.get("cv2_same") is True and w5e["cv2_diff"] == 0,
           "W5e: OpenCV INTER_NEAREST_EXACT is the same function (%s)" % w5e.get("cv2_diff"))
    report(w4.get("cv2_skip") and w4.get("onednn_skip"),
           "W4 (bicubic backward): neither OpenCV nor oneDNN computes it")
    if os.path.exists(ONEDNN):
        report(w1.get("onednn_same") is True and w1.get("onednn_ms", 0) > 0 and
               w1.get("onednn_layout") in ("nchw", "blocked"),
               "W1: oneDNN linear matches ours (%s)" % w1.get("onednn_layouts"))
        report(w5e.get("onednn_same") is True, "W5e: oneDNN nearest at 2x matches nearest-exact")
    report(rows["C3"].get("cv2_skip") and rows["C3"].get("onednn_skip"),
           "C3: PyTorch is the only reference")


def check_semantics_checks():
    # At 16 -> 24, legacy nearest (floor(o * in / out)) and nearest-exact differ.
    row = ("X", "test", "nearest", "fwd", [1, 8, 16, 16], [24, 40], "float32", False)
    import cv2
    import numpy as np
    import torch
    compare.OPENCV["X"] = "INTER_NEAREST"
    diff, _ = compare.check_cv2(torch, cv2, np, row)
    report(diff == 0, "OpenCV INTER_NEAREST == PyTorch nearest at 16->24 (%g)" % diff)
    compare.OPENCV["X"] = "INTER_NEAREST_EXACT"
    diff, _ = compare.check_cv2(torch, cv2, np, row)
    report(diff > compare.TOLERANCE["float32"],
           "OpenCV INTER_NEAREST_EXACT != PyTorch nearest at 16->24: rejected (%g)" % diff)
    if os.path.exists(ONEDNN):
        compare.ONEDNN["X"] = ("nearest", "nearest")
        r = compare.measure_onednn(ONEDNN, row, 2, 3)
        report(r.get("onednn_same") is False and r.get("onednn_diff", 0) > 0.1,
               "oneDNN nearest != our legacy nearest at 16->24: rejected (%s)"
               % r.get("onednn_layouts"))
        compare.ONEDNN["X"] = ("nearest", "nearest-exact")
        r = compare.measure_onednn(ONEDNN, row, 2, 3)
        report(r.get("onednn_same") is True, "oneDNN nearest == our nearest-exact at 16->24")


def check_rounds():
    # combine_rounds: medians of medians, least minima, the floor the faster variant of those.
    rounds = [{"workload": "X", "ours_ms": v, "ours_min_ms": m, "torch_ms": t,
               "floor_normal_ms": fn, "floor_streaming_ms": fs, "floor_normal_min_ms": fn,
               "floor_streaming_min_ms": fs, "floor_ms": min(fn, fs), "floor_min_ms": min(fn, fs)}
              for v, m, t, fn, fs in ((1.0, 0.5, 4.0, 2.0, 3.0), (3.0, 0.4, None, 2.5, 1.0),
                                      (2.0, 0.6, 6.0, 2.2, 2.9))]
    r = compare.combine_rounds(rounds)
    report(r["ours_ms"] == 2.0 and r["ours_min_ms"] == 0.4,
           "rounds: median of the medians, least minimum (%s, %s)" % (r["ours_ms"],
                                                                      r["ours_min_ms"]))
    report(r["torch_ms"] == 5.0 and r["round_values"]["torch_ms"] == [4.0, None, 6.0],
           "rounds: a side a round did not measure is left out (%s)" % r["torch_ms"])
    report(r["floor_ms"] == 2.2 and r["floor_variant"] == "normal" and r["floor_min_ms"] == 1.0,
           "rounds: the floor is the faster variant of the combined ones (%s, %s, %s)"
           % (r["floor_ms"], r["floor_variant"], r["floor_min_ms"]))
    # End to end: two rounds of one workload.
    out = os.path.join(tempfile.mkdtemp(prefix="upsample_compare_"), "r.json")
    p = subprocess.run([sys.executable, os.path.join(HERE, "compare.py"), "--bench-binary",
                        BENCH, "--onednn-binary", ONEDNN, "--workloads", "W5e", "--reps", "3",
                        "--rounds", "2", "--json-out", out], capture_output=True, text=True,
                       timeout=600)
    if not report(p.returncode == 0, "compare.py --rounds 2 exit %d: %s" % (p.returncode,
                                                                          p.stderr[-800:])):
        return
    doc = json.load(open(out))
    r = doc["results"][0]
    ours = r["round_values"]["ours_ms"]
    report(doc["meta"]["rounds"] == 2 and r["rounds"] == 2 and len(ours) == 2 and
           abs(r["ours_ms"] - (ours[0] + ours[1]) / 2) < 1e-12 and
           r["ours_min_ms"] == min(r["round_values"]["ours_min_ms"]),
           "compare.py --rounds 2: both rounds kept, ours the median of them (%s)" % ours)


def check_paired_rows():
    # C1 and C2 are measured round by round in turn (the first of a round alternating), the
    # other rows whole, in the order asked; C1 / C2 is the median of the rounds' ratios.
    order = []

    def fake_round(row, k, binary, args, peers, meta):
        order.append((row[0], k))
        return {"workload": row[0], "operator": "", "shape": "", "ours_ms": 2.0 + k,
                "ours_min_ms": 1.0 + k}

    class Args:
        rounds, order = 3, "ours-first"

    saved = compare.measure_round
    compare.measure_round = fake_round
    try:
        rows = [w for w in compare.WORKLOADS if w[0] in ("W1", "C1", "C2", "C3")]
        got = compare.measure_rows(rows, None, Args, None, {})
    finally:
        compare.measure_round = saved
    report([r["workload"] for r in got] == ["W1", "C1", "C2", "C3"],
           "paired rows: results in the order asked (%s)" % [r["workload"] for r in got])
    report(order == [("W1", 0), ("W1", 1), ("W1", 2), ("C1", 0), ("C2", 0), ("C2", 1),
                     ("C1", 1), ("C1", 2), ("C2", 2), ("C3", 0), ("C3", 1), ("C3", 2)],
           "paired rows: C1 and C2 in turn, round by round (%s)" % order)
    c1 = {"ours_ms": 3.0, "round_values": {"ours_ms": [1.1, 5.0, 1.2]}}
    c2 = {"ours_ms": 2.0, "round_values": {"ours_ms": [1.0, 1.0, 1.0]}}
    ratio, rounds = compare.paired_ratio(c1, c2, "median")
    report(abs(ratio - 1.2) < 1e-12 and rounds == 3,
           "paired ratio: the median of the rounds' ratios (%s over %d)" % (ratio, rounds))
    ratio, rounds = compare.paired_ratio({"ours_ms": 3.0}, {"ours_ms": 2.0}, "median")
    report(ratio == 1.5 and rounds == 1, "paired ratio without rounds: the values' ratio")


def main():
    if not os.path.exists(BENCH):
        print("UPSAMPLE_BUILD_DIR must name the build directory holding upsample_bench (%r)"
              % BENCH)
        print("0 passed, 1 failed")
        return 1
    for check in (check_semantics_checks, check_rounds, check_paired_rows, check_end_to_end):
        try:
            check()
        except Exception as e:  # one crashing group must not hide the others
            import traceback
            traceback.print_exc()
            report(False, "%s raised %s" % (check.__name__, e))
    print("%d passed, %d failed" % (RESULTS["passed"], RESULTS["failed"]))
    return 1 if RESULTS["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
