"""Comparisons of the library's results with a reference: bit for bit (`compare_bits`) or within
the tolerances of docs/numerics.md (`compare_values`), and the largest error seen per entry point
and dtype (`note_error`, `print_error_summary`).

Tolerances: float32 1e-5 * max(1, |ref|) forward, 1e-4 * max(1, |ref|) backward; float64
1e-12 * max(1, |ref|); float16 / bfloat16 one ulp of the dtype from the float32 reference rounded
to the dtype, plus the float32 reference's own rounding uncertainty REF_ULPS * 2^-24 * sum|w*x|
(UPSAMPLE_TEST_STRICT_ULP=1 drops it); NaN positions and +-inf values exact.
"""

import os

import numpy as np

from .storage import (ACL_BF16, ACL_DOUBLE, ACL_FLOAT16, DTYPE_NAMES, bits, f32_to_bf16_bits,
                      round_to_dtype)

STRICT_ULP = os.environ.get("UPSAMPLE_TEST_STRICT_ULP", "") not in ("", "0")
REF_ULPS = 16.0


def _ordinal(vals, dtype):
    """Monotone integer encoding of float16 / bfloat16 values (for ulp distances)."""
    if dtype == ACL_FLOAT16:
        b = np.asarray(vals, dtype=np.float16).view(np.uint16).astype(np.int64)
    else:
        b = f32_to_bf16_bits(np.asarray(vals, dtype=np.float32)).astype(np.int64)
    mag = b & 0x7FFF
    return np.where(b & 0x8000, -mag, mag)


def _ulp(vals, dtype):
    a = np.abs(np.asarray(vals, dtype=np.float64))
    mant, min_exp = (10, -14) if dtype == ACL_FLOAT16 else (7, -126)
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.floor(np.log2(np.where(a > 0, a, 1.0)))
    e = np.maximum(e, min_exp)
    return np.exp2(e - mant)


# Largest error observed per (entry point, dtype): the evidence behind "matches PyTorch within ...".
# Relative error is |ours - ref| / max(1, |ref|) over finite elements; for float16/bfloat16 also
# the distance in ulps of the dtype; bit-exact comparisons record 0.
MAX_ERRORS = {}


def note_error(api, dtype, got, ref_d, exact=False):
    key = (api, DTYPE_NAMES.get(dtype, str(dtype)))
    entry = MAX_ERRORS.setdefault(key, {"rel": 0.0, "ulp": 0, "exact": exact, "cases": 0})
    entry["cases"] += 1
    entry["exact"] = entry["exact"] and exact
    if exact:
        return
    got = np.asarray(got, dtype=np.float64)
    ref_d = np.asarray(ref_d, dtype=np.float64)
    fin = np.isfinite(got) & np.isfinite(ref_d)
    if fin.any():
        rel = np.abs(got[fin] - ref_d[fin]) / np.maximum(1.0, np.abs(ref_d[fin]))
        entry["rel"] = max(entry["rel"], float(rel.max()))
        if dtype in (ACL_FLOAT16, ACL_BF16):
            dist = np.abs(_ordinal(got[fin], dtype) - _ordinal(ref_d[fin], dtype))
            entry["ulp"] = max(entry["ulp"], int(dist.max()))


def print_error_summary():
    print("largest error against PyTorch, per entry point and dtype "
          "(rel = |ours - ref| / max(1, |ref|); ulp = float16/bfloat16 distance):")
    for (api, dt), e in sorted(MAX_ERRORS.items()):
        what = "bit-exact" if e["exact"] else "rel %.3g%s" % (
            e["rel"], (", %d ulp" % e["ulp"]) if dt in ("f16", "bf16", "float16", "bfloat16")
            else "")
        print("  %-38s %-9s %5d cases  %s" % (api, dt, e["cases"], what))


def compare_bits(got_raw, exp_raw, what="reference"):
    if got_raw.shape != exp_raw.shape:
        return "shape %s vs %s %s" % (got_raw.shape, what, exp_raw.shape)
    g, e = bits(got_raw), bits(exp_raw)
    bad = g != e
    if not bad.any():
        return ""
    i = tuple(np.argwhere(bad)[0])
    w = 2 * got_raw.itemsize
    return "%d of %d elements differ bitwise from the %s, first %s: got 0x%0*x (%r) expected " \
           "0x%0*x (%r)" % (bad.sum(), bad.size, what, list(i), w, int(g[i]), got_raw[i], w,
                            int(e[i]), exp_raw[i])


def compare_values(dtype, backward, got, ref, refabs=None, api=None):
    """got: the library's values (float64), ref: the float32 / float64 reference, refabs:
    sum|w*x| (f16 / bf16 allowance). '' when they agree, else a description. With `api`, the
    error is recorded for print_error_summary()."""
    got = np.asarray(got, dtype=np.float64)
    if dtype in (ACL_FLOAT16, ACL_BF16):
        ref_d = round_to_dtype(ref.astype(np.float32), dtype).astype(np.float64)
    else:
        ref_d = ref.astype(np.float64)
    if api is not None and got.shape == ref_d.shape:
        note_error(api, dtype, got, ref_d)
    if got.shape != ref_d.shape:
        return "shape %s vs reference %s" % (got.shape, ref_d.shape)
    problems = []
    gnan, rnan = np.isnan(got), np.isnan(ref_d)
    bad_nan = gnan != rnan
    if bad_nan.any():
        i = tuple(np.argwhere(bad_nan)[0])
        problems.append("NaN mismatch at %d positions, first %s: got %r ref %r" % (
            bad_nan.sum(), list(i), got[i], ref_d[i]))
    ginf, rinf = np.isinf(got), np.isinf(ref_d)
    bad_inf = ((ginf | rinf) & ~(gnan | rnan)) & (got != ref_d)
    if bad_inf.any():
        i = tuple(np.argwhere(bad_inf)[0])
        problems.append("inf mismatch at %d positions, first %s: got %r ref %r" % (
            bad_inf.sum(), list(i), got[i], ref_d[i]))
    fin = np.isfinite(got) & np.isfinite(ref_d)
    if dtype in (ACL_FLOAT16, ACL_BF16):
        dist = np.zeros(got.shape, dtype=np.int64)
        dist[fin] = np.abs(_ordinal(got[fin], dtype) - _ordinal(ref_d[fin], dtype))
        bad = dist > 1
        if bad.any() and not STRICT_ULP and refabs is not None:
            allow = _ulp(ref_d, dtype) + REF_ULPS * 2.0 ** -24 * np.abs(refabs)
            with np.errstate(invalid="ignore"):
                bad &= ~(np.abs(got - ref.astype(np.float64)) <= allow)
        if bad.any():
            i = tuple(np.argwhere(bad)[np.argmax(dist[bad])])
            problems.append("%d elements off by more than 1 ulp, worst %s: got %r ref %r "
                            "(f32 ref %r, sum|w*x| %r) = %d ulp" % (
                                bad.sum(), list(i), got[i], ref_d[i], float(ref[i]),
                                None if refabs is None else float(refabs[i]), dist[i]))
    else:
        tol = 1e-12 if dtype == ACL_DOUBLE else (1e-4 if backward else 1e-5)
        err = np.zeros(got.shape)
        err[fin] = np.abs(got[fin] - ref_d[fin]) / np.maximum(1.0, np.abs(ref_d[fin]))
        bad = err > tol
        if bad.any():
            i = tuple(np.argwhere(bad)[np.argmax(err[bad])])
            problems.append("%d elements beyond %g, worst %s: got %r ref %r (rel err %.3g)" % (
                bad.sum(), tol, list(i), got[i], ref_d[i], err[i]))
    return "; ".join(problems)
