"""The parity cases: an entry point's rules as the parity suites state them (`Op`), one call
(`Case`), its source data as raw storage bits (`make_source`: NaN payloads, signalling NaNs and
signed zeros go through untouched), and the common case list (`gen_cases` = `common_cases`,
built from blocks: `special_size_cases`, `integer_ratio_cases`, `large_case`, `pattern_cases`,
`scale_cases`, `strided_cases`, `nonfinite_cases`) that a suite with its own list
(test_parity_linear.py) combines itself. Nothing here knows one particular entry point: the
suites list the operators and their rules.
"""

import math
import os

import numpy as np

from .aclnn import FORMAT_NAMES
from .storage import (ACL_DOUBLE, ACL_UINT8, DEFAULT_NAN_BITS, DTYPE_NAMES, SPECIAL_BITS,
                      to_storage)


def seed(default):
    return int(os.environ.get("UPSAMPLE_TEST_SEED", str(default)))


# ---------------------------------------------------------------------------------------------
# Operators and cases.

class Op:
    """An entry point's rules.

    kind: linear | nearest | exact | cubic | aa_linear | aa_cubic | resize
    scale_rule: none (no scale parameters) | axis | all (used only if every one is > 0) |
      ignore (passed to the library, which ignores them: torch gets None)
    scale_type: "d" (double), "f" (float: values are rounded to float32) or None
    in_order: inputSize order: logical | grad (gradOut's format) | out (gradInput's format)
    equal_formats: input and output formats must be equal
    nonfinite_fill: what a non-finite case puts into the source (see make_source): "special"
      (+-inf, NaNs with payloads, signalling NaN where nothing computes with it, -0.0) or
      "inf-nan" (+inf, -inf and the default NaN, up to six of each)
    summary_nonfinite: whether the finite elements of non-finite cases count in the error
      summary (print_error_summary)"""

    def __init__(self, key, api, kind, rank, backward, layouts, dtypes, scale_rule="axis",
                 scale_type="d", in_order="logical", equal_formats=True, nonneg=False,
                 nonfinite_fill="special", summary_nonfinite=True):
        self.key = key
        self.api = api
        self.kind = kind
        self.rank = rank
        self.backward = backward
        self.layouts = layouts
        self.dtypes = dtypes
        self.scale_rule = scale_rule
        self.scale_type = scale_type if scale_rule != "none" else None
        self.has_align = kind in ("linear", "cubic", "aa_linear", "aa_cubic")
        self.in_order = in_order
        self.equal_formats = equal_formats
        self.nonneg = nonneg  # negative scales are rejected (else they mean "not given")
        self.nonfinite_fill = nonfinite_fill
        self.summary_nonfinite = summary_nonfinite


class Case:
    """One call. Sizes are logical (N, C, spatial in D, H, W order). scales: what the library
    receives (per spatial axis; for Resize the 4 floats of the aclFloatArray)."""

    def __init__(self, op, dtype, layout, n, c, in_sz, out_sz, align, scales, label,
                 pattern="normal", nonfinite=False, in_view=None, out_view=None, device=False,
                 null_stream=False, ws_host=False, out_layout=None, mode=None):
        self.op = op
        self.dtype = dtype
        self.src_fmt, self.src_cl = layout
        self.dst_fmt, self.dst_cl = out_layout if out_layout is not None else layout
        self.n, self.c = n, c
        self.in_sz = tuple(int(v) for v in in_sz)
        self.out_sz = tuple(int(v) for v in out_sz)
        self.align = bool(align) and op.has_align
        if op.scale_type == "f" or op.kind == "resize":
            scales = [float(np.float32(s)) for s in scales]
        self.scales = tuple(scales) if op.scale_rule != "none" or op.kind == "resize" else ()
        self.label = label
        self.pattern = pattern
        self.nonfinite = nonfinite
        self.in_view = in_view or {}
        self.out_view = out_view or {}
        self.device = device
        self.null_stream = null_stream
        self.ws_host = ws_host
        self.mode = mode  # Resize: "nearest" or "bilinear"

    def kind(self):
        """The torch kind of the computation."""
        if self.op.kind == "resize":
            return "nearest" if self.mode == "nearest" else "linear"
        return self.op.kind

    def describe(self):
        v = []
        if self.in_view:
            v.append("in_view=%s" % self.in_view)
        if self.out_view:
            v.append("out_view=%s" % self.out_view)
        fmts = FORMAT_NAMES[self.src_fmt]
        if (self.dst_fmt, self.dst_cl) != (self.src_fmt, self.src_cl):
            fmts += "->" + FORMAT_NAMES[self.dst_fmt]
        extra = ""
        if self.op.has_align:
            extra += " align=%s" % self.align
        if self.scales:
            extra += " scales=%s" % list(self.scales)
        if self.mode:
            extra += " mode=%s" % self.mode
        return ("%s %s %s [%s] N=%d C=%d in=%s out=%s%s pattern=%s%s%s%s %s" % (
            self.op.key, DTYPE_NAMES[self.dtype], fmts, self.label, self.n, self.c,
            list(self.in_sz), list(self.out_sz), extra, self.pattern,
            " nonfinite" if self.nonfinite else "", " device-mem" if self.device else
            " numpy-mem", " null-stream" if self.null_stream else "", " ".join(v))).rstrip()

    def src_shape(self):
        return (self.n, self.c) + (self.out_sz if self.op.backward else self.in_sz)

    def dst_shape(self):
        return (self.n, self.c) + (self.in_sz if self.op.backward else self.out_sz)

    def torch_scales(self):
        """The scales torch receives (None = not given), following the op's scale rule."""
        op = self.op
        r = op.rank
        if op.kind == "resize" or op.scale_rule in ("none", "ignore"):
            return (None,) * r
        if op.scale_rule == "all":
            if all(s > 0 for s in self.scales):
                return tuple(float(s) for s in self.scales)
            return (None,) * r
        return tuple(float(s) if s > 0 else None for s in self.scales)

    def ratio_is_one(self, a):
        """Whether spatial axis a keeps its size at ratio 1 (the library's identity copy)."""
        if self.in_sz[a] != self.out_sz[a]:
            return False
        if self.align:
            return True
        s = self.torch_scales()[a]
        if s is None:
            return True
        ct = np.float64 if self.dtype == ACL_DOUBLE else np.float32
        return ct(1.0 / s) == ct(1.0)

    def identity_axes(self):
        """Axes the library copies where torch evaluates weights (1, 0)."""
        if self.kind() not in ("linear", "aa_linear", "aa_cubic"):
            return []
        return [a for a in range(self.op.rank) if self.ratio_is_one(a)]


# ---------------------------------------------------------------------------------------------
# Source data.

def make_source(case, rng):
    """Logical source data as raw storage of the case's dtype."""
    shape = case.src_shape()
    rank = case.op.rank
    dtype = case.dtype
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
        if dtype == ACL_UINT8:
            x = np.mod(x, 256)
    elif dtype == ACL_UINT8:
        x = rng.integers(0, 256, size=shape).astype(np.float64)
    else:
        x = rng.standard_normal(shape)
        if case.pattern == "wide":
            x *= 10.0 ** rng.integers(-3, 4, size=shape)
    raw = np.ascontiguousarray(to_storage(
        x if dtype in (ACL_DOUBLE, ACL_UINT8) else x.astype(np.float32), dtype))
    if case.nonfinite and dtype != ACL_UINT8:
        flat = raw.reshape(-1)
        ut, pats = SPECIAL_BITS[dtype]
        if case.op.nonfinite_fill == "inf-nan":
            pats = pats[:2] + [DEFAULT_NAN_BITS[dtype]]
            k = 3 * max(1, min(6, flat.size // 4))
        else:
            if not (case.op.kind in ("nearest", "exact") and not case.op.backward) and \
                    not (case.op.kind == "resize" and case.mode == "nearest"):
                pats = pats[:4] + pats[5:]  # arithmetic: no signalling NaN
            k = max(1, min(len(pats) * 2, flat.size // 4))
        pos = rng.choice(flat.size, size=min(flat.size, k), replace=False)
        fb = flat.view(ut)
        for i, p in enumerate(pos):
            fb[p] = pats[i % len(pats)]
    return raw


# ---------------------------------------------------------------------------------------------
# Case generation.

SCALE_CHOICES = [1.3, 2.0, 0.7, 2.5, 1.1, 0.45, 1.75, 3.0]
# Non-integer ratios that separate nearest from nearest-exact (26 -> 11: flagos-ai/FlagGems#5229).
ODD_RATIOS = [(26, 11), (11, 26), (7, 3), (3, 7), (10, 4), (5, 13), (23, 9), (9, 16)]


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
    if kind == 0:
        step = [1] * ndim
        step[-1] = 2
        return {"step": step, "pad": pad}
    if kind == 1:
        step = [int(v) for v in rng.integers(1, 3, ndim)]
        w_axis = ndim - 2 if channels_last else ndim - 1
        step[w_axis] = 2
        return {"step": step, "pad": pad}
    order = list(rng.permutation(ndim))
    step = [1] * ndim
    step[int(rng.integers(0, ndim))] = 2
    return {"order": [int(o) for o in order], "step": step, "pad": pad}


def case_adder(cases, op, dtype, layout):
    """add(n, c, ins, outs, align, scales, label, **Case kwargs): appends a Case of (op, dtype,
    layout), cycling device / numpy memory, the NULL stream and a host workspace over the cases;
    `src_layout=` overrides the input layout. add.append(case) appends a ready Case as is."""
    k = [0]
    scaled = op.scale_rule != "none"

    def add(n, c, ins, outs, align, scales, label, **kw):
        kw.setdefault("device", k[0] % 2 == 0)
        kw.setdefault("null_stream", k[0] % 5 == 3)
        kw.setdefault("ws_host", k[0] % 7 == 4)
        k[0] += 1
        if not scaled:
            scales = [0.0] * op.rank
        lay = kw.pop("src_layout", layout)
        cases.append(Case(op, dtype, lay, n, c, ins, outs, align, scales, label, **kw))

    add.append = cases.append
    return add


def special_size_cases(add, rng, r, aligns):
    """out = 1, in = 1, same size, 1x1 and (rank > 1) one axis keeping its size, per align."""
    zero = [0.0] * r
    for align in aligns:
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


def integer_ratio_cases(add, rng, r):
    """Exact integer ratios 2 and 3, up (align_corners False) and down (True)."""
    zero = [0.0] * r
    for f in (2, 3):
        n, c, ins, _ = random_sizes(rng, r)
        ins = [min(v, 12 if r < 3 else 5) for v in ins]
        add(n, c, ins, [v * f for v in ins], False, zero, "up-x%d" % f)
        add(n, c, [v * f for v in ins], ins, True, zero, "down-x%d" % f)


# Sizes of the "large" cases: C in [5, c_hi), and per rank the input / output size ranges.
LARGE_SIZES = {"c_hi": 13, 1: ((200, 1000), (100, 1500)), 2: ((30, 70), (20, 100)),
               3: ((6, 14), (4, 20))}


def large_case(add, rng, r, sizes, align=None):
    """A larger problem (SIMD bodies and tails, several threads' worth of work), N = 2; align
    None: a random align_corners."""
    c = int(rng.integers(5, sizes["c_hi"]))
    (ilo, ihi), (olo, ohi) = sizes[r]
    if r == 1:
        ins, outs = [int(rng.integers(ilo, ihi))], [int(rng.integers(olo, ohi))]
    else:
        ins = [int(v) for v in rng.integers(ilo, ihi, r)]
        outs = [int(v) for v in rng.integers(olo, ohi, r)]
    add(2, c, ins, outs, bool(rng.integers(0, 2)) if align is None else align, [0.0] * r,
        "large")


def pattern_cases(add, rng, r, both_aligns=False):
    """Structural patterns (zeros, ones, ramps along each spatial axis): align_corners
    alternating, or both_aligns: each pattern with either."""
    patterns = ["zeros", "ones", "rampW"] + (["rampH"] if r >= 2 else []) + \
        (["rampD"] if r >= 3 else [])
    for pi, p in enumerate(patterns):
        for align in (False, True) if both_aligns else (bool(pi % 2),):
            n, c, ins, outs = random_sizes(rng, r)
            add(n, c, ins, outs, align, [0.0] * r, "pattern", pattern=p)


def scale_cases(add, rng, r, double=True, not_floor=True):
    """Scale-driven calls: out = floor(in * s); scale 1.1 with out == in; (double) scale 2.1 with
    out == 2*in; (rank > 1) some axes given, others not; (not_floor) scales that disagree with
    floor(in*s) but keep every source coordinate inside the input (torch reads out of bounds
    otherwise)."""
    for j, s in enumerate(SCALE_CHOICES):
        sc = [s] * r if j % 2 == 0 else \
            [SCALE_CHOICES[(j + a) % len(SCALE_CHOICES)] for a in range(r)]
        ins, outs = scaled_sizes(rng, r, sc)
        add(int(rng.integers(1, 3)), int(rng.integers(1, 4)), ins, outs, j % 4 == 3, sc,
            "scaled")
    # a scale with out == in (1.1, small input) and out == 2*in (2.1): the ratio must follow
    # torch (identity on that axis); torch's nearest backward short-cuts; AA resamples with
    # 1/scale
    ins = [int(v) for v in rng.integers(2, 9, r)]
    add(1, 2, ins, [int(math.floor(v * 1.1)) for v in ins], False, [1.1] * r, "scaled-1.1-same")
    if double:
        ins = [int(v) for v in rng.integers(2, 9, r)]
        add(1, 2, ins, [int(math.floor(v * 2.1)) for v in ins], False, [2.1] * r,
            "scaled-2.1-double")
    if r > 1:  # some axes given, others not (an all-or-none rule: all treated as not given)
        sc = [2.5] * r
        sc[int(rng.integers(0, r))] = 0.0
        ins, outs = scaled_sizes(rng, r, sc)
        add(1, 2, ins, outs, False, sc, "scaled-partial")
    if not_floor:
        for _ in range(2):
            n, c, ins, outs = random_sizes(rng, r)
            sc = [round(o / i * float(rng.uniform(1.05, 1.6)), 3) for i, o in zip(ins, outs)]
            add(n, c, ins, outs, False, sc, "scale-not-floor")
        # an extreme but finite scale: every source coordinate collapses onto the first inputs
        # (torch's result is defined there; tiny scales make torch 1.13 read out of bounds)
        n, c, ins, outs = random_sizes(rng, r)
        add(n, c, ins, outs, False, [1e30] * r, "scale-1e30")


def strided_cases(add, rng, r, channels_last, scaled):
    """Non-contiguous input, output, or both (one of them scale-driven where the op has
    scales: with align_corners False the scale matters)."""
    nd = r + 2
    for i in range(4):
        n, c, ins, outs = random_sizes(rng, r)
        sc = [0.0] * r
        if i == 2 and scaled:
            sc = [1.3] * r
            ins, outs = scaled_sizes(rng, r, sc)
        add(n, c, ins, outs, bool(i % 2), sc, "strided",
            in_view=view_variants(rng, nd, channels_last) if i != 1 else None,
            out_view=view_variants(rng, nd, channels_last) if i != 0 else None)


def nonfinite_cases(add, rng, r, count):
    """+-inf / NaN sources: `count` random problems (align_corners alternating), an exact
    upscale by 2 and a same-size call."""
    zero = [0.0] * r
    for i in range(count):
        n, c, ins, outs = random_sizes(rng, r)
        add(n, c, ins, outs, bool(i % 2), zero, "nonfinite", nonfinite=True)
    n, c, ins, _ = random_sizes(rng, r)
    add(n, c, ins, [v * 2 for v in ins], False, zero, "nonfinite-up2", nonfinite=True)
    n, c, ins, _ = random_sizes(rng, r)
    add(n, c, ins, ins, False, zero, "nonfinite-same-size", nonfinite=True)


def common_cases(op, dtype, li, layout, add, rng):
    """The common case list of one (op, dtype, layout); li = the layout's index in op.layouts."""
    r = op.rank
    scaled = op.scale_rule != "none"
    cl = layout[1]
    aligns = (False, True) if op.has_align else (False,)
    zero = [0.0] * r
    for i in range(10):
        n, c, ins, outs = random_sizes(rng, r)
        # "not given": 0, or -1 where negative scales are accepted
        unset = [-1.0] * r if i % 3 == 2 and not op.nonneg else zero
        add(n, c, ins, outs, bool(i % 2), unset, "random")
    # values over six decades. Not for the cubic / antialias backward: torch scatters
    # g*wy*wx per output while the library gathers separably, and with the negative
    # cubic weights the cancellation of 1e3-sized terms leaves both float32 results
    # ~1e-3 from the exact value, beyond any meaningful 1e-4 comparison.
    if dtype != ACL_UINT8 and not (op.backward and op.kind in ("cubic", "aa_linear", "aa_cubic")):
        n, c, ins, outs = random_sizes(rng, r)
        add(n, c, ins, outs, False, zero, "random-wide", pattern="wide")
    special_size_cases(add, rng, r, aligns)
    # non-integer ratios (nearest vs nearest-exact)
    for j in range(2):
        pairs = [ODD_RATIOS[(2 * j + a + li) % len(ODD_RATIOS)] for a in range(r)]
        add(int(rng.integers(1, 3)), int(rng.integers(1, 4)), [p[0] for p in pairs],
            [p[1] for p in pairs], bool(j), zero, "odd-ratio")
    integer_ratio_cases(add, rng, r)
    large_case(add, rng, r, LARGE_SIZES)
    pattern_cases(add, rng, r)
    if scaled:
        scale_cases(add, rng, r)
    strided_cases(add, rng, r, cl, scaled)
    # +-inf / NaN (payloads, signalling NaN, -0.0)
    if dtype != ACL_UINT8:
        nonfinite_cases(add, rng, r, 3)
        if r > 1:
            n, c, ins, outs = random_sizes(rng, r)
            outs[r - 1] = ins[r - 1]
            add(n, c, ins, outs, True, zero, "nonfinite-one-axis-same", nonfinite=True)
        n, c, ins, outs = random_sizes(rng, r)
        add(n, c, ins, outs, False, zero, "nonfinite-strided", nonfinite=True,
            in_view=view_variants(rng, r + 2, cl), out_view=view_variants(rng, r + 2, cl))
    # mixed input / output formats where the entry point allows them
    if not op.equal_formats:
        for ol in op.layouts:
            if ol != layout:
                n, c, ins, outs = random_sizes(rng, r)
                add.append(Case(op, dtype, layout, n, c, ins, outs, bool(rng.integers(0, 2)),
                                zero, "mixed-format", out_layout=ol,
                                device=bool(rng.integers(0, 2))))


def gen_cases(ops, rng, extra=None, body=common_cases):
    """The case list: body(op, dtype, layout index, layout, add, rng) for every (op, dtype,
    layout) (default: common_cases), then extra(op, dtype, layout, add, rng) for
    family-specific cases."""
    cases = []
    for op in ops:
        for dtype in op.dtypes:
            for li, layout in enumerate(op.layouts):
                add = case_adder(cases, op, dtype, layout)
                body(op, dtype, li, layout, add, rng)
                if extra is not None:
                    extra(op, dtype, layout, add, rng)
    return cases
