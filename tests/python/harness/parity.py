"""Running and judging one parity case, and the body of a parity suite.

`run_case` calls the entry point on tensors over any view of a storage whose elements outside
the view hold a sentinel (stray writes and input modification are failures); `evaluate` compares
the result with torch: bit for bit for the nearest forwards (the source bits gathered with torch's
float32 index map; uint8 against torch's uint8 result), within the tolerances of compare.py
otherwise, with the documented skips (torch's nearest backward short-cuts and its bicubic
backward copy, which are not the transpose of its forward) and the identity-copy deviation
(docs/numerics.md, deviation 1: the library copies axes whose size does not change at ratio 1,
where torch evaluates inf*1 + inf*0 = NaN; UPSAMPLE_TEST_IDENTITY_COPY=0 compares against
torch's arithmetic). `check_determinism` runs the suite's determinism cases in subprocesses with
UPSAMPLE_NUM_THREADS=1/2/3 and requires identical bits; `run_main` is the body of a suite.
"""

import hashlib
import json
import os
import subprocess
import sys
import time

import numpy as np

from . import aclnn
from .aclnn import CString, FloatArray, IntArray
from .cases import common_cases, gen_cases, make_source, seed
from .compare import compare_bits, compare_values, note_error
from .report import Reporter
from .storage import ACL_BF16, ACL_DOUBLE, ACL_FLOAT16, ACL_UINT8, bits, values_of
from .tensors import fmt_dims, from_format, make_output, make_tensor, to_format
from .torch_reference import (abs_weight_apply, gather_spatial, nearest_index_map,
                              torch_nearest_forward, torch_ref)

IDENTITY_COPY = os.environ.get("UPSAMPLE_TEST_IDENTITY_COPY", "1") not in ("", "0")


def build_args(case, src_t, dst_t):
    op = case.op
    if op.kind == "resize":
        fa = FloatArray(case.scales)
        ms = CString(case.mode)
        return [src_t, fa, ms, dst_t], [fa, ms]
    out_arr = IntArray(case.out_sz)
    keep = [out_arr]
    args = [src_t, out_arr]
    if op.backward:
        full = [case.n, case.c] + list(case.in_sz)
        if op.in_order == "grad":
            full = fmt_dims(full, case.src_cl)
        elif op.in_order == "out":
            full = fmt_dims(full, case.dst_cl)
        in_arr = IntArray(full)
        keep.append(in_arr)
        args.append(in_arr)
    if op.has_align:
        args.append(case.align)
    if op.scale_rule != "none":
        args += list(case.scales)
    args.append(dst_t)
    return args, keep


def run_case(acl, case, src_raw):
    """Runs the case on the logical raw source. Returns (raw result in logical layout or None,
    error string)."""
    src_t = make_tensor(to_format(src_raw, case.src_cl), case.dtype, case.src_fmt,
                        device=case.device, **case.in_view)
    src_before = src_t.storage.copy()
    dst_t = make_output(fmt_dims(case.dst_shape(), case.dst_cl), case.dtype, case.dst_fmt,
                        device=case.device, **case.out_view)
    dst_before = dst_t.storage.copy()
    args, keep = build_args(case, src_t, dst_t)
    r = acl.call(case.op.api, *args, stream=None if case.null_stream else "default",
                 workspace="host" if case.ws_host else "device")
    if not r.ok:
        return None, "call failed: %r" % r
    got = np.ascontiguousarray(from_format(np.array(dst_t.raw_view()), case.dst_cl))
    errs = []
    mask = dst_t.outside_view_mask()
    changed = bits(dst_t.storage[mask]) != bits(dst_before[mask])
    if changed.any():
        errs.append("wrote outside the output view (%d of %d storage elements changed)" % (
            int(changed.sum()), int(mask.sum())))
    src_t.sync_from_device()
    if src_t.storage.tobytes() != src_before.tobytes():
        errs.append("modified its input storage")
    src_t.destroy()
    dst_t.destroy()
    del keep
    return got, "; ".join(errs)


# ---------------------------------------------------------------------------------------------
# Judging a result.

def nearest_shortcut_differs(case):
    """torch's nearest backward uses nearest_idx: out == in -> dst, out == 2*in -> dst >> 1,
    whatever the scale; its forward (and the library, both directions) use the float32 rule.
    Returns the axes where a given scale makes the two maps differ."""
    axes = []
    sc = case.torch_scales()
    for a in range(case.op.rank):
        i, o = case.in_sz[a], case.out_sz[a]
        if sc[a] is None or (o != i and o != 2 * i):
            continue
        short = np.arange(o) if o == i else np.arange(o) >> 1
        rule = nearest_index_map("nearest", 1, (i,), (o,), (sc[a],))
        if not np.array_equal(short, rule):
            axes.append(a)
    return axes


def evaluate(case, src_raw, got_raw, report):
    """Compares the library's raw result with the reference. Returns (status, text) with
    status 'ok', 'fail' or 'skip'."""
    op = case.op
    kind = case.kind()
    rank = op.rank
    sc = case.torch_scales()
    dtype = case.dtype
    if kind in ("nearest", "exact") and not op.backward:
        idx = nearest_index_map(kind, rank, case.in_sz, case.out_sz, sc)
        exp = gather_spatial(src_raw, idx)
        if dtype == ACL_UINT8:
            tref = torch_nearest_forward(kind, rank, src_raw, list(case.out_sz), list(sc))
            differs = not np.array_equal(tref, exp)
            report.tally("uint8 %s forward: torch's uint8 result differs from the float32-index "
                         "gather" % kind, differs)
            if differs:
                report.note("uint8 %s forward: torch's uint8 result differs from the "
                            "float32-index gather" % kind, case.describe())
            msg = compare_bits(got_raw, tref, "torch uint8 result")
            note_error(op.api, dtype, None, None, exact=not msg)
        else:
            msg = compare_bits(got_raw, exp, "float32-index gather of the source bits")
            note_error(op.api, dtype, None, None, exact=not msg)
            if dtype == ACL_DOUBLE:
                t64 = torch_nearest_forward(kind, rank, values_of(src_raw, dtype),
                                            list(case.out_sz), list(sc))
                differs = not np.array_equal(t64, values_of(exp, dtype), equal_nan=True)
                report.tally("float64 %s forward: torch's own float64 result (index computed in "
                             "double) differs from the float32 index rule (not a failure)" % kind,
                             differs)
                if differs:
                    report.note("float64 %s forward: torch's own float64 result (index computed "
                                "in double) differs from the float32 index rule" % kind,
                                case.describe())
        return ("fail" if msg else "ok"), msg
    # arithmetic ops: values
    if kind == "nearest" and op.backward:
        if nearest_shortcut_differs(case):
            return "skip", ("torch nearest backward's nearest_idx short-cut (out == in or "
                            "out == 2*in with a scale given) is not the transpose of its forward")
    if kind == "cubic" and op.backward and case.in_sz == case.out_sz:
        if not all(case.ratio_is_one(a) for a in range(rank)):
            return "skip", ("torch bicubic backward copies grad_out when no size changes, "
                            "ignoring the scales")
        if case.nonfinite:
            return "skip", ("torch bicubic backward copies grad_out when no size changes; the "
                            "transpose evaluates the zero-weight taps (inf*0)")
    cdt = np.float64 if dtype == ACL_DOUBLE else np.float32
    x = values_of(src_raw, dtype).astype(cdt)
    got = values_of(got_raw, dtype)
    ref = torch_ref(kind, rank, op.backward, x, case.in_sz, case.out_sz, case.align, sc)
    refabs = None
    if dtype in (ACL_FLOAT16, ACL_BF16):
        ax = np.where(np.isfinite(x), np.abs(x), 0.0)
        refabs = abs_weight_apply(kind, rank, op.backward, ax, case.in_sz, case.out_sz,
                                  case.align, sc)
    # the error summary: finite elements, not of the cases compared with axes copied
    summary = not case.nonfinite or (op.summary_nonfinite and not case.identity_axes())
    cmp = compare_values(dtype, op.backward, got, ref, refabs, api=op.api if summary else None)
    ident = case.identity_axes()
    if cmp and case.nonfinite and ident:
        alt = torch_ref(kind, rank, op.backward, x, case.in_sz, case.out_sz, case.align, sc,
                        fold=ident)
        alt_cmp = compare_values(dtype, op.backward, got, alt, refabs)
        if IDENTITY_COPY:
            cmp = alt_cmp
            if not cmp:
                report.note("+-inf/NaN compared with torch with the unchanged axes copied "
                            "(identity-copy deviation)", case.describe())
        elif not alt_cmp:
            cmp += (" [axes %s keep their size: torch evaluates inf*1 + inf*0 = NaN there; the "
                    "result equals torch with those axes copied]" % ident)
    return ("fail" if cmp else "ok"), cmp


def check_case(acl, case, rng, report):
    src = make_source(case, rng)
    got, err = run_case(acl, case, src)
    if got is None:
        report(False, "%s: %s" % (case.describe(), err))
        return
    try:
        status, text = evaluate(case, src, got, report)
    except Exception as e:  # a bug in the test itself
        import traceback
        report(False, "%s: reference failed: %s %s" % (
            case.describe(), e, traceback.format_exc().strip().splitlines()[-3:]))
        return
    if status == "skip":
        report.note("skipped: " + text, case.describe())
        if err:
            report(False, "%s: %s" % (case.describe(), err))
        return
    if err:
        text = (text + "; " if text else "") + err
    report(not text, case.describe() + (": " + text if text else ""))


# ---------------------------------------------------------------------------------------------
# Determinism across thread counts (subprocesses running the same script).

def determinism_worker(cases, rng):
    acl = aclnn.Acl()
    digests = {}
    for i, case in enumerate(cases):
        src = make_source(case, rng)
        got, err = run_case(acl, case, src)
        digests[str(i)] = ("ERROR " + err) if got is None else \
            hashlib.sha256(bits(got).tobytes()).hexdigest()
    print(json.dumps(digests))
    return 0


def check_determinism(report, script, cases, threads=("1", "2", "3")):
    results = {}
    for t in threads:
        env = dict(os.environ)
        env["UPSAMPLE_NUM_THREADS"] = t
        p = subprocess.run([sys.executable, os.path.abspath(script), "--determinism-worker"],
                           env=env, capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            report(False, "determinism worker (threads=%s) failed rc=%d: %s" % (
                t, p.returncode, (p.stderr or p.stdout)[-2000:]))
            return
        results[t] = json.loads(p.stdout.strip().splitlines()[-1])
    for i, case in enumerate(cases):
        ds = {t: results[t][str(i)] for t in results}
        errs = [d for d in ds.values() if d.startswith("ERROR")]
        if errs:
            report(False, "determinism %s: %s" % (case.describe(), errs[0]))
        elif len(set(ds.values())) != 1:
            report(False, "determinism %s: results differ between UPSAMPLE_NUM_THREADS=%s "
                   "(sha256 %s)" % (case.describe(), "/".join(threads),
                                    {t: d[:12] for t, d in ds.items()}))
        else:
            report(True, "determinism " + case.describe())


def run_main(name, default_seed, ops, extra, determinism_cases, more_cases=None,
             body=common_cases):
    """The body of a parity script. ops: generated by gen_cases (with body and extra);
    more_cases(rng): further cases; determinism_cases() -> (cases, rng)."""
    if "--determinism-worker" in sys.argv:
        cases, rng = determinism_cases()
        return determinism_worker(cases, rng)
    t0 = time.time()
    sd = seed(default_seed)
    print("%s: seed %d (set UPSAMPLE_TEST_SEED to reproduce), library %s" % (
        name, sd, aclnn.lib_path()))
    report = Reporter()
    acl = aclnn.Acl()
    missing = [op.api for op in ops if not aclnn.has_op(op.api)]
    for api in missing:
        report(False, "%s / %sGetWorkspaceSize not exported by the library" % (api, api))
    rng = np.random.default_rng(sd)
    cases = gen_cases([o for o in ops if o.api not in missing and o.kind != "resize"], rng,
                      extra, body)
    if more_cases is not None:
        cases += [c for c in more_cases(rng) if c.op.api not in missing]
    print("%d parity cases" % len(cases))
    sys.stdout.flush()
    for case in cases:
        check_case(acl, case, rng, report)
    if not missing:
        dcases, _ = determinism_cases()
        check_determinism(report, sys.argv[0], dcases)
    acl.finalize()
    return report.finish(t0)
