#!/usr/bin/python3
"""Live-PyTorch parity of the aclnn linear family, driven through the exported C API (ctypes).

Entry points: aclnnUpsampleLinear1d, Linear1dBackward, Bilinear2d, Bilinear2dBackward,
Bilinear2dBackwardV2, Trilinear3d, Trilinear3dBackward; dtypes f32, f16, bf16, f64; every
layout each one accepts; contiguous and strided views for input and output; aclrtMalloc and
plain numpy memory; a stream and the NULL stream.

Reference: torch.ops.aten.upsample_{linear1d,bilinear2d,trilinear3d}[_backward] on the
float32 up-cast data (f32/f16/bf16) or on the float64 data (f64), scales passed straight
through (None when "not given"), following the library's scale rules:
  * a scale <= 0 means "not given";
  * Trilinear3d(+Backward): the scales are used only if all three are > 0;
  * Bilinear2dBackward (V1) ignores its scales; Bilinear2dBackwardV2 honours them.

Tolerances: f32 forward 1e-5*max(1,|ref|), f32 backward 1e-4*max(1,|ref|), f64 1e-12*max(1,|ref|),
f16 / bf16 within one ulp of the float32 reference rounded to that dtype. NaN positions and
+-inf values must match the reference exactly.

Also: bitwise determinism of every entry point across UPSAMPLE_NUM_THREADS=1/2/3 (subprocesses).

Run:  UPSAMPLE_LIB=build/libupsample.so /usr/bin/python3 tests/python/test_parity_linear.py
Env:  UPSAMPLE_TEST_SEED (default 20240611), UPSAMPLE_TEST_VERBOSE=1 (print every case).
Last line: "N passed, N failed"; exit status 1 if any case failed.
"""

import hashlib
import json
import math
import os
import subprocess
import sys
import time

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aclnn  # noqa: E402
import parity_common  # noqa: E402  (the per-entry-point error summary)
from aclnn import (ACL_BF16, ACL_DOUBLE, ACL_FLOAT, ACL_FLOAT16, ACL_FORMAT_NCDHW,  # noqa: E402
                   ACL_FORMAT_NCHW, ACL_FORMAT_NCL, ACL_FORMAT_ND, ACL_FORMAT_NDHWC,
                   ACL_FORMAT_NHWC, DTYPE_NAMES, FORMAT_NAMES, IntArray, TensorBuf)

SEED = int(os.environ.get("UPSAMPLE_TEST_SEED", "20240611"))
VERBOSE = os.environ.get("UPSAMPLE_TEST_VERBOSE", "") not in ("", "0")
# The library copies axes whose size does not change (docs/numerics.md, deviation 1), where torch
# evaluates inf*1 + inf*0 = NaN: +-inf / NaN results on such axes are compared against torch with
# those axes copied. UPSAMPLE_TEST_IDENTITY_COPY=0 compares against torch's arithmetic instead.
IDENTITY_COPY = os.environ.get("UPSAMPLE_TEST_IDENTITY_COPY", "1") not in ("", "0")
DTYPES = [ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE]


# ---------------------------------------------------------------------------------------------
# The operators under test.

class Op:
    def __init__(self, key, api, rank, backward, layouts, scale_rule):
        self.key = key
        self.api = api
        self.rank = rank                  # spatial rank
        self.backward = backward
        self.layouts = layouts            # [(format, channels_last)]
        self.scale_rule = scale_rule      # "axis", "all3" or "ignore"


OPS = [
    Op("linear1d", "aclnnUpsampleLinear1d", 1, False,
       [(ACL_FORMAT_NCL, False), (ACL_FORMAT_ND, False)], "axis"),
    Op("linear1d_bw", "aclnnUpsampleLinear1dBackward", 1, True,
       [(ACL_FORMAT_NCL, False), (ACL_FORMAT_ND, False)], "axis"),
    Op("bilinear2d", "aclnnUpsampleBilinear2d", 2, False,
       [(ACL_FORMAT_NCHW, False), (ACL_FORMAT_NHWC, True)], "axis"),
    Op("bilinear2d_bw", "aclnnUpsampleBilinear2dBackward", 2, True,
       [(ACL_FORMAT_NCHW, False), (ACL_FORMAT_NHWC, True)], "ignore"),
    Op("bilinear2d_bw_v2", "aclnnUpsampleBilinear2dBackwardV2", 2, True,
       [(ACL_FORMAT_NCHW, False), (ACL_FORMAT_NHWC, True)], "axis"),
    Op("trilinear3d", "aclnnUpsampleTrilinear3d", 3, False,
       [(ACL_FORMAT_NCDHW, False), (ACL_FORMAT_ND, False), (ACL_FORMAT_NDHWC, True)], "all3"),
    Op("trilinear3d_bw", "aclnnUpsampleTrilinear3dBackward", 3, True,
       [(ACL_FORMAT_NCDHW, False), (ACL_FORMAT_ND, False), (ACL_FORMAT_NDHWC, True)], "all3"),
]


def torch_scales(op, scales, align):
    """The scales the reference aten op receives (None = not given)."""
    if op.scale_rule == "ignore":
        return [None] * op.rank
    if op.scale_rule == "all3":
        if all(s > 0 for s in scales):
            return [float(s) for s in scales]
        return [None] * op.rank
    return [float(s) if s > 0 else None for s in scales]


# ---------------------------------------------------------------------------------------------
# A case.

class Case:
    """One call. Sizes are logical (N, C, spatial in D,H,W order)."""

    def __init__(self, op, dtype, layout, n, c, in_sz, out_sz, align, scales, label,
                 pattern="normal", nonfinite=False, in_view=None, out_view=None, device=False,
                 null_stream=False, ws_host=False):
        self.op = op
        self.dtype = dtype
        self.fmt, self.channels_last = layout
        self.n, self.c = n, c
        self.in_sz = tuple(in_sz)
        self.out_sz = tuple(out_sz)
        self.align = align
        self.scales = tuple(scales)
        self.label = label
        self.pattern = pattern
        self.nonfinite = nonfinite
        self.in_view = in_view or {}      # TensorBuf.from_values kwargs: step / order / pad
        self.out_view = out_view or {}
        self.device = device
        self.null_stream = null_stream
        self.ws_host = ws_host

    def describe(self):
        v = []
        if self.in_view:
            v.append("in_view=%s" % self.in_view)
        if self.out_view:
            v.append("out_view=%s" % self.out_view)
        return ("%s %s %s [%s] N=%d C=%d in=%s out=%s align=%s scales=%s pattern=%s%s%s%s %s" % (
            self.op.key, DTYPE_NAMES[self.dtype], FORMAT_NAMES[self.fmt], self.label, self.n,
            self.c, list(self.in_sz), list(self.out_sz), self.align, list(self.scales),
            self.pattern, " nonfinite" if self.nonfinite else "",
            " device-mem" if self.device else " numpy-mem",
            " null-stream" if self.null_stream else "", " ".join(v))).rstrip()

    # logical shapes of the op's source / destination
    def src_shape(self):
        sp = self.out_sz if self.op.backward else self.in_sz
        return (self.n, self.c) + sp

    def dst_shape(self):
        sp = self.in_sz if self.op.backward else self.out_sz
        return (self.n, self.c) + sp


def to_format(logical, channels_last):
    return np.moveaxis(logical, 1, -1) if channels_last else logical


def from_format(arr, channels_last):
    return np.moveaxis(arr, -1, 1) if channels_last else arr


def fmt_shape(shape, channels_last):
    shape = list(shape)
    return [shape[0]] + shape[2:] + [shape[1]] if channels_last else shape


def make_source(case, rng):
    """Logical source data (float64 array holding values exactly representable in the dtype)."""
    shape = case.src_shape()
    rank = case.op.rank
    if case.pattern == "zeros":
        x = np.zeros(shape)
    elif case.pattern == "ones":
        x = np.ones(shape)
    elif case.pattern.startswith("ramp"):
        axis = {"rampW": -1, "rampH": -2, "rampD": -3}[case.pattern]
        assert -axis <= rank
        idx = np.arange(shape[axis], dtype=np.float64)
        bshape = [1] * len(shape)
        bshape[axis] = shape[axis]
        x = np.broadcast_to(idx.reshape(bshape), shape).copy()
    else:
        x = rng.standard_normal(shape)
        if case.pattern == "wide":
            x *= 10.0 ** rng.integers(-3, 4, size=shape)
    if case.nonfinite:
        flat = x.reshape(-1)
        k = max(1, min(6, flat.size // 4))
        pos = rng.choice(flat.size, size=min(flat.size, 3 * k), replace=False)
        vals = [np.inf, -np.inf, np.nan]
        for i, p in enumerate(pos):
            flat[p] = vals[i % 3]
    # round to the dtype
    if case.dtype == ACL_DOUBLE:
        return x
    return aclnn.round_to_dtype(x.astype(np.float32), case.dtype).astype(np.float64)


# ---------------------------------------------------------------------------------------------
# Reference.

_torch = None


def torch_mod():
    global _torch
    if _torch is None:
        # PyTorch's AVX2/AVX512 kernel builds let the compiler fuse `a*b + c` into FMAs (in the
        # double source-coordinate and in the float interpolation), so their last bits depend on
        # the build; the library evaluates the formulas literally (no FMA). The "default" CPU
        # capability runs ATen's plain C++ kernels: the same formulas without contraction.
        os.environ.setdefault("ATEN_CPU_CAPABILITY", "default")
        import torch
        torch.set_num_threads(1)
        _torch = torch
    return _torch


def _aten_linear(torch, rank, backward, t, out, full_in, align, sc):
    A = torch.ops.aten
    fn = {1: "upsample_linear1d", 2: "upsample_bilinear2d", 3: "upsample_trilinear3d"}[rank]
    if backward:
        return getattr(A, fn + "_backward").default(t, list(out), list(full_in), align, *sc)
    return getattr(A, fn).default(t, list(out), align, *sc)


def identity_axes(case):
    return [a for a in range(case.op.rank) if case.in_sz[a] == case.out_sz[a]]


def reference(case, src, identity_copy=False):
    """torch's result for `case` on the logical source `src` (float32 or float64 compute).

    identity_copy=True emulates a library that copies along every axis whose size does not
    change (torch instead evaluates both taps there, weights 1 and 0, so an inf on such an axis
    becomes inf*1 + inf*0 = NaN): those axes are folded into the channel dim and torch resamples
    only the others."""
    torch = torch_mod()
    op = case.op
    cdt = np.float64 if case.dtype == ACL_DOUBLE else np.float32
    x = np.ascontiguousarray(src.astype(cdt))
    sc = torch_scales(op, case.scales, case.align)
    same = identity_axes(case) if identity_copy else []
    if not same:
        t = torch.from_numpy(x)
        full_in = [case.n, case.c] + list(case.in_sz)
        return _aten_linear(torch, op.rank, op.backward, t, case.out_sz, full_in, case.align,
                            sc).numpy()
    keep = [a for a in range(op.rank) if a not in same]
    if not keep:
        return x.copy()
    # [N, C, s0, s1, s2] -> [N, C, same..., keep...] -> [N, C*prod(same), keep...]
    perm = [0, 1] + [2 + a for a in same] + [2 + a for a in keep]
    xp = np.transpose(x, perm)
    lead = xp.shape[:2 + len(same)]
    xr = np.ascontiguousarray(xp.reshape((case.n, -1) + xp.shape[2 + len(same):]))
    sub_in = [case.in_sz[a] for a in keep]
    sub_out = [case.out_sz[a] for a in keep]
    sub_sc = [sc[a] for a in keep]
    full_in = [case.n, xr.shape[1]] + sub_in
    r = _aten_linear(torch, len(keep), op.backward, torch.from_numpy(xr), sub_out, full_in,
                     case.align, sub_sc).numpy()
    dst_sp = sub_in if op.backward else sub_out
    r = r.reshape(tuple(lead) + tuple(dst_sp))
    return np.ascontiguousarray(np.transpose(r, np.argsort(perm)))


# ---------------------------------------------------------------------------------------------
# Comparison.

def _ordinal(vals, dtype):
    """Monotone integer encoding of float16 / bfloat16 values (for ulp distances)."""
    if dtype == ACL_FLOAT16:
        bits = np.asarray(vals, dtype=np.float16).view(np.uint16).astype(np.int64)
    else:
        bits = aclnn.f32_to_bf16_bits(np.asarray(vals, dtype=np.float32)).astype(np.int64)
    mag = bits & 0x7FFF
    return np.where(bits & 0x8000, -mag, mag)


# f16 / bf16: besides one ulp of the dtype, allow the float32 reference's own rounding
# uncertainty, REF_ULPS * 2^-24 * sum|w * x| (sum|w * x| = the same op applied to |x|, all weights
# being >= 0). torch evaluates the taps nested / scattered, the library in separable passes /
# gathers: both are correctly rounded float32 evaluations that differ by up to ~6 such units,
# which exceeds a dtype ulp only where the result is tiny after cancellation.
# UPSAMPLE_TEST_STRICT_ULP=1 drops the allowance (pure one-ulp criterion).
REF_ULPS = 16.0
STRICT_ULP = os.environ.get("UPSAMPLE_TEST_STRICT_ULP", "") not in ("", "0")


def compare(case, got, ref, refabs=None):
    """got: the library's values (logical layout, in the dtype's value type); ref: reference
    (float32 or float64); refabs: the reference op applied to |source| (f16 / bf16 only).
    Returns '' when they agree, else a description."""
    got = np.asarray(got, dtype=np.float64)
    if case.dtype in (ACL_FLOAT16, ACL_BF16):
        ref_d = aclnn.round_to_dtype(ref.astype(np.float32), case.dtype).astype(np.float64)
    else:
        ref_d = ref.astype(np.float64)
    if got.shape != ref_d.shape:
        return "shape %s vs reference %s" % (got.shape, ref_d.shape)
    if not case.nonfinite:
        parity_common.note_error(case.op.api, case.dtype, got, ref_d)
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
    if case.dtype in (ACL_FLOAT16, ACL_BF16):
        dist = np.zeros(got.shape, dtype=np.int64)
        dist[fin] = np.abs(_ordinal(got[fin], case.dtype) - _ordinal(ref_d[fin], case.dtype))
        bad = dist > 1
        if bad.any() and not STRICT_ULP and refabs is not None:
            # one dtype ulp at the reference, plus the float32 reference's uncertainty
            ulp = _ulp(ref_d, case.dtype)
            allow = ulp + REF_ULPS * 2.0 ** -24 * np.abs(refabs.astype(np.float64))
            with np.errstate(invalid="ignore"):
                bad &= ~(np.abs(got - ref.astype(np.float64)) <= allow)
        if bad.any():
            i = tuple(np.argwhere(bad)[np.argmax(dist[bad])])
            problems.append("%d elements off by more than 1 ulp, worst %s: got %r ref %r "
                            "(f32 ref %r, sum|w*x| %r) = %d ulp" % (
                                bad.sum(), list(i), got[i], ref_d[i], float(ref[i]),
                                None if refabs is None else float(refabs[i]), dist[i]))
    else:
        if case.dtype == ACL_DOUBLE:
            tol = 1e-12
        else:
            tol = 1e-4 if case.op.backward else 1e-5
        err = np.zeros(got.shape)
        err[fin] = np.abs(got[fin] - ref_d[fin]) / np.maximum(1.0, np.abs(ref_d[fin]))
        bad = err > tol
        if bad.any():
            i = tuple(np.argwhere(bad)[np.argmax(err[bad])])
            problems.append("%d elements beyond %g, worst %s: got %r ref %r (rel err %.3g)" % (
                bad.sum(), tol, list(i), got[i], ref_d[i], err[i]))
    return "; ".join(problems)


def _ulp(vals, dtype):
    """The dtype's ulp at each (dtype-representable) value: the gap to the next value away
    from zero (subnormal spacing near 0)."""
    a = np.abs(np.asarray(vals, dtype=np.float64))
    mant, min_exp = (10, -14) if dtype == ACL_FLOAT16 else (7, -126)
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.floor(np.log2(np.where(a > 0, a, 1.0)))
    e = np.maximum(e, min_exp)
    return np.exp2(e - mant)


# ---------------------------------------------------------------------------------------------
# Running one case through the C API.

def build_args(case, src_t, dst_t):
    op = case.op
    out_arr = IntArray(case.out_sz)
    if op.backward:
        if op.rank == 2 and case.channels_last:
            in_list = [case.n] + list(case.in_sz) + [case.c]
        else:
            in_list = [case.n, case.c] + list(case.in_sz)
        in_arr = IntArray(in_list)
        args = [src_t, out_arr, in_arr, case.align] + list(case.scales) + [dst_t]
        keep = [out_arr, in_arr]
    else:
        args = [src_t, out_arr, case.align] + list(case.scales) + [dst_t]
        keep = [out_arr]
    return args, keep


def _bits(a):
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize])


def run_case(acl, case, src):
    """Returns (result values in logical layout, error string)."""
    cl = case.channels_last
    src_t = TensorBuf.from_values(to_format(src, cl), case.dtype, case.fmt, device=case.device,
                                  **case.in_view)
    src_before = src_t.storage.copy()
    dst_t = TensorBuf.empty(fmt_shape(case.dst_shape(), cl), case.dtype, case.fmt,
                            device=case.device, **case.out_view)
    dst_before = dst_t.storage.copy()
    args, keep = build_args(case, src_t, dst_t)
    r = acl.call(case.op.api, *args, stream=None if case.null_stream else "default",
                 workspace="host" if case.ws_host else "device")
    if not r.ok:
        return None, "call failed: %r" % r
    got = from_format(dst_t.to_numpy(), cl)
    errs = []
    mask = dst_t.outside_view_mask()
    changed = _bits(dst_t.storage[mask]) != _bits(dst_before[mask])
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
# Case generation.

SCALE_CHOICES = [1.3, 2.0, 0.7, 2.5, 1.1, 0.45, 1.75, 3.0]


def random_sizes(rng, rank):
    if rank == 1:
        n, c = int(rng.integers(1, 4)), int(rng.integers(1, 5))
        return n, c, [int(rng.integers(1, 41))], [int(rng.integers(1, 61))]
    if rank == 2:
        n, c = int(rng.integers(1, 3)), int(rng.integers(1, 4))
        return (n, c, [int(v) for v in rng.integers(1, 25, 2)],
                [int(v) for v in rng.integers(1, 33, 2)])
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    return n, c, [int(v) for v in rng.integers(1, 9, 3)], [int(v) for v in rng.integers(1, 11, 3)]


def scaled_sizes(rng, rank, scales):
    """Input sizes with floor(in*s) >= 1 for every axis, and the outputs floor(in*s)."""
    ins, outs = [], []
    hi = {1: 30, 2: 16, 3: 7}[rank]
    for s in scales:
        lo = max(1, int(math.ceil(1.0 / s))) if s > 0 else 1
        i = int(rng.integers(lo, max(lo, hi) + 1))
        ins.append(i)
        outs.append(int(math.floor(i * s)) if s > 0 else int(rng.integers(1, hi * 2)))
    return ins, outs


def view_variants(rng, ndim, channels_last):
    """Random non-contiguous view kwargs (step / order / pad) for a tensor of ndim dims."""
    kind = int(rng.integers(0, 3))
    pad = int(rng.integers(1, 17))
    if kind == 0:  # every other element along the innermost (W, or C for channels-last) dim
        step = [1] * ndim
        step[-1] = 2
        return {"step": step, "pad": pad}
    if kind == 1:  # every other element along the W axis, plus other random steps
        step = [int(v) for v in rng.integers(1, 3, ndim)]
        w_axis = ndim - 2 if channels_last else ndim - 1
        step[w_axis] = 2
        return {"step": step, "pad": pad}
    # permuted physical order (e.g. channels-last strides under a channels-first format) + step
    order = list(rng.permutation(ndim))
    step = [1] * ndim
    step[int(rng.integers(0, ndim))] = 2
    return {"order": [int(o) for o in order], "step": step, "pad": pad}


def gen_cases(rng):
    cases = []
    for op in OPS:
        r = op.rank
        for dtype in DTYPES:
            for layout in op.layouts:
                cl = layout[1]
                k = [0]

                def add(n, c, ins, outs, align, scales, label, **kw):
                    kw.setdefault("device", k[0] % 2 == 0)
                    kw.setdefault("null_stream", k[0] % 5 == 3)
                    kw.setdefault("ws_host", k[0] % 7 == 4)
                    k[0] += 1
                    cases.append(Case(op, dtype, layout, n, c, ins, outs, align, scales,
                                      label, **kw))

                zero = [0.0] * r
                # random sizes, size-driven (scales 0, or -1 meaning "not given")
                for i in range(8):
                    n, c, ins, outs = random_sizes(rng, r)
                    # "not given": 0, or -1 (CANN's Linear1d idiom) where negative scales are
                    # accepted (Bilinear2d rejects them: spec 2.2 #17)
                    unset = zero if i % 2 == 0 or op.key == "bilinear2d" else [-1.0] * r
                    add(n, c, ins, outs, bool(i % 2), unset, "random")
                for align in (False, True):
                    n, c, ins, outs = random_sizes(rng, r)
                    add(n, c, ins, outs, align, zero, "random-wide", pattern="wide")
                # special sizes
                for align in (False, True):
                    n, c, ins, _ = random_sizes(rng, r)
                    add(n, c, ins, [1] * r, align, zero, "out=1")
                    n, c, _, outs = random_sizes(rng, r)
                    add(n, c, [1] * r, outs, align, zero, "in=1")
                    n, c, ins, _ = random_sizes(rng, r)
                    add(n, c, ins, ins, align, zero, "same-size")
                    add(1, 1, [1] * r, [1] * r, align, zero, "1x1")
                    if r > 1:  # one axis keeps its size, the others change
                        n, c, ins, outs = random_sizes(rng, r)
                        ax = int(rng.integers(0, r))
                        outs[ax] = ins[ax]
                        add(n, c, ins, outs, align, zero, "one-axis-same")
                # exact integer ratios (up and down)
                for f in (2, 3):
                    n, c, ins, _ = random_sizes(rng, r)
                    ins = [min(v, 12 if r < 3 else 5) for v in ins]
                    add(n, c, ins, [v * f for v in ins], False, zero, "up-x%d" % f)
                    add(n, c, [v * f for v in ins], ins, True, zero, "down-x%d" % f)
                # larger problems (SIMD bodies and tails, several threads' worth of work)
                for align in (False, True):
                    c = int(rng.integers(5, 19))
                    if r == 1:
                        ins, outs = [int(rng.integers(200, 1200))], [int(rng.integers(100, 2400))]
                    elif r == 2:
                        ins = [int(v) for v in rng.integers(30, 90, 2)]
                        outs = [int(v) for v in rng.integers(20, 140, 2)]
                    else:
                        ins = [int(v) for v in rng.integers(6, 18, 3)]
                        outs = [int(v) for v in rng.integers(4, 26, 3)]
                    add(2, c, ins, outs, align, zero, "large")
                # structural patterns
                patterns = ["zeros", "ones", "rampW"] + (["rampH"] if r >= 2 else []) + \
                    (["rampD"] if r >= 3 else [])
                for p in patterns:
                    for align in (False, True):
                        n, c, ins, outs = random_sizes(rng, r)
                        add(n, c, ins, outs, align, zero, "pattern", pattern=p)
                # scale-driven: out = floor(in * s)
                for j, s in enumerate(SCALE_CHOICES):
                    sc = [s] * r if j % 2 == 0 else \
                        [SCALE_CHOICES[(j + a) % len(SCALE_CHOICES)] for a in range(r)]
                    ins, outs = scaled_sizes(rng, r, sc)
                    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 4))
                    add(n, c, ins, outs, j % 4 == 3, sc, "scaled")
                # scale 1.1 with an input small enough that floor(in*1.1) == in: the ratio must
                # follow torch (identity on that axis).
                ins = [int(v) for v in rng.integers(2, 9, r)]
                add(1, 2, ins, [int(math.floor(v * 1.1)) for v in ins], False, [1.1] * r,
                    "scaled-1.1-same")
                if r > 1:  # some axes given, others not (Trilinear: all treated as not given)
                    sc = [2.5] * r
                    sc[int(rng.integers(0, r))] = 0.0
                    ins, outs = scaled_sizes(rng, r, sc)
                    add(1, 2, ins, outs, False, sc, "scaled-partial")
                # scales that disagree with floor(in*s), for the APIs that accept that. The
                # scale is kept >= out/in so that every source coordinate stays inside the
                # input (torch reads out of bounds otherwise).
                if op.key in ("bilinear2d", "bilinear2d_bw_v2", "bilinear2d_bw"):
                    for _ in range(2):
                        n, c, ins, outs = random_sizes(rng, r)
                        sc = [round(o / i * float(rng.uniform(1.05, 1.6)), 3)
                              for i, o in zip(ins, outs)]
                        add(n, c, ins, outs, False, sc, "scale-not-floor")
                # non-contiguous input and / or output
                nd = r + 2
                for i in range(4):
                    n, c, ins, outs = random_sizes(rng, r)
                    sc = zero
                    if i == 2:  # scale-driven (align_corners False: the scale matters)
                        sc = [1.3] * r
                        ins, outs = scaled_sizes(rng, r, sc)
                    add(n, c, ins, outs, bool(i % 2), sc, "strided",
                        in_view=view_variants(rng, nd, cl) if i != 1 else None,
                        out_view=view_variants(rng, nd, cl) if i != 0 else None)
                # +-inf / NaN inputs
                for i in range(4):
                    n, c, ins, outs = random_sizes(rng, r)
                    add(n, c, ins, outs, bool(i % 2), zero, "nonfinite", nonfinite=True)
                n, c, ins, outs = random_sizes(rng, r)
                outs = [v * 2 for v in ins]
                add(n, c, ins, outs, False, zero, "nonfinite-up2", nonfinite=True)
                n, c, ins, outs = random_sizes(rng, r)
                add(n, c, ins, ins, False, zero, "nonfinite-same-size", nonfinite=True)
                # align_corners with exactly integral source coordinates: zero-weight taps
                ins = [int(v) for v in rng.integers(2, 7, r)]
                add(1, 2, ins, [2 * v - 1 for v in ins], True, zero, "nonfinite-align-2x-1",
                    nonfinite=True)
    return cases


# ---------------------------------------------------------------------------------------------
# Determinism across thread counts (subprocesses).

def determinism_cases():
    """Fixed problems big enough to be split across threads."""
    rng = np.random.default_rng(SEED + 7)
    out = []
    spec = {
        1: ([2, 24, [300]], [[1000], [77], [301]]),
        2: ([2, 6, [37, 53]], [[100, 71], [15, 20], [37, 106]]),
        3: ([2, 3, [9, 11, 13]], [[20, 7, 26], [9, 22, 5]]),
    }
    for op in OPS:
        n, c, ins = spec[op.rank][0]
        for outs in spec[op.rank][1]:
            for dtype in (ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE):
                for layout in op.layouts[::2] if op.rank == 3 else op.layouts:
                    for align in (False, True):
                        c_ = Case(op, dtype, layout, n, c, ins, outs, align, [0.0] * op.rank,
                                  "determinism")
                        out.append(c_)
    return out, rng


def determinism_worker():
    acl = aclnn.Acl()
    cases, rng = determinism_cases()
    digests = {}
    for i, case in enumerate(cases):
        src = make_source(case, rng)
        got, err = run_case(acl, case, src)
        if got is None:
            digests[str(i)] = "ERROR " + err
        else:
            digests[str(i)] = hashlib.sha256(np.ascontiguousarray(got).tobytes()).hexdigest()
    print(json.dumps(digests))
    return 0


def check_determinism(report):
    cases, _ = determinism_cases()
    results = {}
    for threads in ("1", "2", "3"):
        env = dict(os.environ)
        env["UPSAMPLE_NUM_THREADS"] = threads
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--determinism-worker"],
                           env=env, capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            report(False, "determinism worker (threads=%s) failed rc=%d: %s" % (
                threads, p.returncode, (p.stderr or p.stdout)[-2000:]))
            return
        results[threads] = json.loads(p.stdout.strip().splitlines()[-1])
    for i, case in enumerate(cases):
        ds = {t: results[t][str(i)] for t in results}
        errs = [d for d in ds.values() if d.startswith("ERROR")]
        if errs:
            report(False, "determinism %s: %s" % (case.describe(), errs[0]))
        elif len(set(ds.values())) != 1:
            report(False, "determinism %s: results differ between UPSAMPLE_NUM_THREADS=1/2/3 "
                   "(sha256 %s)" % (case.describe(), {t: d[:12] for t, d in ds.items()}))
        else:
            report(True, "determinism " + case.describe())


# ---------------------------------------------------------------------------------------------

def main():
    if "--determinism-worker" in sys.argv:
        return determinism_worker()
    t0 = time.time()
    print("test_parity_linear: seed %d (set UPSAMPLE_TEST_SEED to reproduce), library %s" % (
        SEED, aclnn._lib_path()))
    counts = {"passed": 0, "failed": 0}

    def report(ok, text):
        if ok:
            counts["passed"] += 1
            if VERBOSE:
                print("ok   " + text)
        else:
            counts["failed"] += 1
            print("FAIL " + text)
        sys.stdout.flush()

    acl = aclnn.Acl()
    missing = [op.api for op in OPS if not aclnn.has_op(op.api)]
    for api in missing:
        report(False, "%s / %sGetWorkspaceSize not exported by the library" % (api, api))
    rng = np.random.default_rng(SEED)
    cases = [c for c in gen_cases(rng) if c.op.api not in missing]
    print("%d parity cases" % len(cases))
    for case in cases:
        src = make_source(case, rng)
        try:
            ref = reference(case, src)
        except Exception as e:  # a bug in the test itself
            report(False, "%s: reference failed: %s" % (case.describe(), e))
            continue
        got, err = run_case(acl, case, src)
        if got is None:
            report(False, "%s: %s" % (case.describe(), err))
            continue
        refabs = None
        if case.dtype in (ACL_FLOAT16, ACL_BF16):
            refabs = reference(case, np.abs(src))
        cmp = compare(case, got, ref, refabs)
        if cmp and case.nonfinite and identity_axes(case):
            # Say whether the difference is only torch's inf*0 on the unchanged axes.
            alt = reference(case, src, identity_copy=True)
            alt_abs = reference(case, np.abs(src), identity_copy=True) if refabs is not None \
                else None
            if IDENTITY_COPY:
                cmp = compare(case, got, alt, alt_abs)
            elif not compare(case, got, alt, alt_abs):
                cmp += (" [axes %s keep their size: torch evaluates inf*1 + inf*0 = NaN there;"
                        " the result equals torch with those axes copied]" % identity_axes(case))
        if err:
            cmp = (cmp + "; " if cmp else "") + err
        report(not cmp, case.describe() + (": " + cmp if cmp else ""))
    if not missing:
        check_determinism(report)
    acl.finalize()
    parity_common.print_error_summary()
    print("time %.1f s" % (time.time() - t0))
    print("%d passed, %d failed" % (counts["passed"], counts["failed"]))
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
