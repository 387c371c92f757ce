"""Shared machinery of the live-PyTorch parity tests of every entry point: linear family
(test_parity_linear.py), nearest, nearest-exact and Resize (test_parity_nearest.py), bicubic and
antialias (test_parity_cubic_aa.py).

What is here (nothing knows about one particular entry point; the test scripts list the
operators, their rules and their cases):

* `Op` / `Case`: an entry point's rules (mode, rank, direction, layouts, dtypes, scale rule,
  scale parameter type, align_corners, inputSize order) and one call of it;
* source data as raw storage bits (so that NaN payloads, signalling NaNs and signed zeros go
  through untouched), tensors over any view of a storage (`make_tensor`, `make_output`),
  `FloatArray` / `CString` arguments (aclnnResize), `run_case` (both phases, stray-write and
  input-modification checks);
* the references: the torch 1.13 aten ops (`aten`), torch with the library's identity-copied
  axes folded away (`torch_ref(fold=...)`), the float32 nearest index map that the library and
  torch's forward share (`nearest_index_map`), per-axis weight matrices (for the f16 / bf16
  allowance `sum|w*x|` also where weights are negative);
* `evaluate`: bit-exact comparison (nearest forward) or the tolerances of docs/numerics.md, the
  documented skips (torch's nearest backward short-cuts, torch's bicubic backward copy) and the
  identity-copy deviation;
* `gen_cases`: the common case list (random / structural / ratio / scale / view / non-finite),
  built from blocks (`special_size_cases`, `integer_ratio_cases`, `large_case`, `pattern_cases`,
  `scale_cases`, `strided_cases`, `nonfinite_cases`) that a suite with its own list
  (test_parity_linear.py) combines itself;
* the determinism check across UPSAMPLE_NUM_THREADS (subprocesses) and `run_main`, the body of
  every parity script.

torch runs with ATEN_CPU_CAPABILITY=default, one thread: PyTorch's AVX2/AVX512 kernel builds let
the compiler fuse `a*b + c` into FMAs (in the double source coordinate and in the float
interpolation), so their last bits depend on the build; the library evaluates the formulas
literally, and ATen's plain C++ "default" kernels evaluate the same formulas without contraction.
"""

import ctypes
import functools
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
from aclnn import (ACL_BF16, ACL_DOUBLE, ACL_FLOAT, ACL_FLOAT16, ACL_UINT8,  # noqa: E402
                   DTYPE_NAMES, FORMAT_NAMES, IntArray, STORAGE_NP, TensorBuf)

VERBOSE = os.environ.get("UPSAMPLE_TEST_VERBOSE", "") not in ("", "0")
# The library copies axes whose size does not change at ratio 1 (docs/numerics.md, deviation 1)
# where torch evaluates inf*1 + inf*0 = NaN: +-inf / NaN results on such axes are compared against
# torch with those axes copied. UPSAMPLE_TEST_IDENTITY_COPY=0 compares against torch's arithmetic.
IDENTITY_COPY = os.environ.get("UPSAMPLE_TEST_IDENTITY_COPY", "1") not in ("", "0")
STRICT_ULP = os.environ.get("UPSAMPLE_TEST_STRICT_ULP", "") not in ("", "0")
REF_ULPS = 16.0

FLOAT_DTYPES = [ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE]
NEAREST_FWD_DTYPES = FLOAT_DTYPES + [ACL_UINT8]


def seed(default):
    return int(os.environ.get("UPSAMPLE_TEST_SEED", str(default)))


# ---------------------------------------------------------------------------------------------
# Reporting.

class Reporter:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.notes = {}  # counters printed at the end (skips, torch observations)
        self.tallies = {}  # observation -> [hits, cases looked at]

    def __call__(self, ok, text):
        if ok:
            self.passed += 1
            if VERBOSE:
                print("ok   " + text)
        else:
            self.failed += 1
            print("FAIL " + text)
        sys.stdout.flush()

    def note(self, key, example=None):
        n, ex = self.notes.get(key, (0, None))
        self.notes[key] = (n + 1, ex if ex is not None else example)

    def tally(self, key, hit):
        t = self.tallies.setdefault(key, [0, 0])
        t[0] += int(bool(hit))
        t[1] += 1

    def finish(self, t0):
        for key in sorted(self.tallies):
            hits, total = self.tallies[key]
            print("report: %s: %d of %d case(s)" % (key, hits, total))
        for key in sorted(self.notes):
            n, ex = self.notes[key]
            print("note: %s: %d case(s)%s" % (key, n, ("; e.g. " + ex) if ex else ""))
        print_error_summary()
        print("time %.1f s" % (time.time() - t0))
        print("%d passed, %d failed" % (self.passed, self.failed))
        return 1 if self.failed else 0


# ---------------------------------------------------------------------------------------------
# torch.

_torch = None


def torch_mod():
    global _torch
    if _torch is None:
        # ATen's "default" kernels evaluate the formulas without FMA contraction, as the library.
        os.environ.setdefault("ATEN_CPU_CAPABILITY", "default")
        import torch
        torch.set_num_threads(1)
        _torch = torch
    return _torch


_ATEN_FWD = {
    "nearest": {1: "upsample_nearest1d", 2: "upsample_nearest2d", 3: "upsample_nearest3d"},
    "exact": {1: "_upsample_nearest_exact1d", 2: "_upsample_nearest_exact2d",
              3: "_upsample_nearest_exact3d"},
    "linear": {1: "upsample_linear1d", 2: "upsample_bilinear2d", 3: "upsample_trilinear3d"},
    "cubic": {2: "upsample_bicubic2d"},
    "aa_linear": {2: "_upsample_bilinear2d_aa"},
    "aa_cubic": {2: "_upsample_bicubic2d_aa"},
}
HAS_ALIGN = {"nearest": False, "exact": False, "linear": True, "cubic": True, "aa_linear": True,
             "aa_cubic": True}


def aten(kind, rank, backward, t, out_sz, full_in, align, sc):
    """torch.ops.aten.<kind op> (forward: t -> out_sz; backward: grad t -> full_in)."""
    A = torch_mod().ops.aten
    name = _ATEN_FWD[kind][rank]
    extra = [bool(align)] if HAS_ALIGN[kind] else []
    sc = [None if s is None else float(s) for s in sc]
    if backward:
        return getattr(A, name + "_backward").default(t, list(out_sz), list(full_in), *extra, *sc)
    return getattr(A, name).default(t, list(out_sz), *extra, *sc)


def torch_ref(kind, rank, backward, x, in_sz, out_sz, align, sc, fold=()):
    """torch's result on the logical array x ([N, C, spatial...], float32 or float64).

    fold: spatial axes that the library copies (same size, ratio 1): they are folded into the
    channel dim so that torch resamples only the others (torch evaluates weights 1 and 0 there,
    which turns an inf into NaN). 2-D-only ops keep their rank with size-1 dummy axes."""
    torch = torch_mod()
    x = np.ascontiguousarray(x)
    n, c = x.shape[0], x.shape[1]
    if not fold:
        full_in = [n, c] + list(in_sz)
        return aten(kind, rank, backward, torch.from_numpy(x), out_sz, full_in, align,
                    sc).numpy()
    fold = sorted(fold)
    keep = [a for a in range(rank) if a not in fold]
    if not keep:
        return x.copy()
    perm = [0, 1] + [2 + a for a in fold] + [2 + a for a in keep]
    xp = np.transpose(x, perm)
    lead = xp.shape[:2 + len(fold)]
    c2 = int(np.prod(lead[1:]))
    src_keep = list(xp.shape[2 + len(fold):])
    dst_keep = [(in_sz if backward else out_sz)[a] for a in keep]
    if kind in ("cubic", "aa_linear", "aa_cubic"):  # 2-D only: dummy size-1 axes
        sub_in = [in_sz[a] if a in keep else 1 for a in range(rank)]
        sub_out = [out_sz[a] if a in keep else 1 for a in range(rank)]
        sub_sc = [sc[a] if a in keep else None for a in range(rank)]
        src_shape = [n, c2] + [(sub_out if backward else sub_in)[a] for a in range(rank)]
        xr = np.ascontiguousarray(xp.reshape(src_shape))
        r = aten(kind, rank, backward, torch.from_numpy(xr), sub_out, [n, c2] + sub_in, align,
                 sub_sc).numpy()
    else:
        sub_in = [in_sz[a] for a in keep]
        sub_out = [out_sz[a] for a in keep]
        sub_sc = [sc[a] for a in keep]
        xr = np.ascontiguousarray(xp.reshape([n, c2] + src_keep))
        r = aten(kind, len(keep), backward, torch.from_numpy(xr), sub_out, [n, c2] + sub_in,
                 align, sub_sc).numpy()
    r = r.reshape(tuple(lead) + tuple(dst_keep))
    return np.ascontiguousarray(np.transpose(r, np.argsort(perm)))


def _pad_channels(x):
    """[N, C, ...] -> [N, max(C, 2), ...]: a contiguous tensor with C == 1 is also channels-last
    contiguous, which sends torch's nearest forward to its channels-last kernel (nearest_idx
    short-cuts); with C >= 2 it takes the generic kernel (the float32 index rule)."""
    if x.shape[1] >= 2:
        return np.ascontiguousarray(x)
    return np.ascontiguousarray(np.concatenate([x, np.zeros_like(x)], axis=1))


def torch_nearest_forward(kind, rank, x, out_sz, sc):
    """torch's nearest / nearest-exact forward of x in x's own dtype (generic NC... kernel)."""
    torch = torch_mod()
    c = x.shape[1]
    xp = _pad_channels(x)
    r = aten(kind, rank, False, torch.from_numpy(xp), out_sz, None, False, sc).numpy()
    return np.ascontiguousarray(r[:, :c])


@functools.lru_cache(maxsize=4096)
def nearest_index_map(kind, rank, in_sz, out_sz, sc):
    """Flat source index (into the spatial dims) of every output element, as torch's forward
    computes it on float32 data: a float32 ramp of element numbers is resampled."""
    numel = int(np.prod(in_sz))
    assert numel < (1 << 24)
    ramp = np.arange(numel, dtype=np.float32).reshape((1, 1) + tuple(in_sz))
    r = torch_nearest_forward(kind, rank, ramp, list(out_sz), list(sc))
    idx = r[0, 0].astype(np.int64)
    assert np.array_equal(idx.astype(np.float32), r[0, 0])
    return idx


def gather_spatial(src, idx):
    """src [N, C, in...] (any dtype, raw bits kept), idx [out...] flat spatial indices."""
    n, c = src.shape[:2]
    return np.ascontiguousarray(src.reshape(n, c, -1)[:, :, idx.reshape(-1)].reshape(
        (n, c) + idx.shape))


@functools.lru_cache(maxsize=4096)
def axis_matrix(kind, rank, axis, in_len, out_len, align, s):
    """The forward weights of one axis as a dense [out_len, in_len] float64 matrix, read off
    torch (float32) by resampling basis vectors stored in the channel dim; the other axes are
    1 -> 1 (identity weights)."""
    torch = torch_mod()
    shape = [1, in_len] + [1] * rank
    shape[2 + axis] = in_len
    x = np.zeros(shape, dtype=np.float32)
    for j in range(in_len):
        ix = [0, j] + [0] * rank
        ix[2 + axis] = j
        x[tuple(ix)] = 1.0
    out = [1] * rank
    out[axis] = out_len
    sc = [None] * rank
    sc[axis] = s
    r = aten(kind, rank, False, torch.from_numpy(x), out, None, align, sc).numpy()
    r = r.reshape(in_len, out_len)
    return np.ascontiguousarray(r.T.astype(np.float64))


def abs_weight_apply(kind, rank, backward, absx, in_sz, out_sz, align, sc):
    """sum |w * x| for every destination element: the op with |weights| applied to |x|
    (float64)."""
    y = np.asarray(absx, dtype=np.float64)
    for a in range(rank):
        m = np.abs(axis_matrix(kind, rank, a, in_sz[a], out_sz[a], align, sc[a]))
        y = np.moveaxis(y, 2 + a, -1)
        y = y @ (m if backward else m.T)
        y = np.moveaxis(y, -1, 2 + a)
    return y


# ---------------------------------------------------------------------------------------------
# aclnn extras: aclFloatArray and char* arguments.

_float_array_declared = False


def _declare_float_array():
    global _float_array_declared
    if _float_array_declared:
        return
    lib = aclnn.load()
    lib.aclCreateFloatArray.restype = ctypes.c_void_p
    lib.aclCreateFloatArray.argtypes = [ctypes.POINTER(ctypes.c_float), ctypes.c_uint64]
    lib.aclDestroyFloatArray.restype = ctypes.c_int32
    lib.aclDestroyFloatArray.argtypes = [ctypes.c_void_p]
    _float_array_declared = True


class FloatArray:
    """An aclFloatArray (aclCreateFloatArray), destroyed with the object."""

    def __init__(self, values):
        _declare_float_array()
        self.values = [float(np.float32(v)) for v in values]
        arr = (ctypes.c_float * max(1, len(self.values)))(*self.values)
        self.handle = aclnn.load().aclCreateFloatArray(arr, len(self.values))
        if not self.handle:
            raise RuntimeError("aclCreateFloatArray failed: " + aclnn.recent_err_msg())

    def destroy(self):
        if self.handle:
            aclnn.load().aclDestroyFloatArray(self.handle)
            self.handle = None

    def __del__(self):
        try:
            self.destroy()
        except Exception:
            pass


class CString:
    """A NUL-terminated char* argument (passed where aclnn.py expects a handle)."""

    def __init__(self, text):
        self.buf = ctypes.create_string_buffer(text.encode())
        self.handle = ctypes.cast(self.buf, ctypes.c_void_p).value


# aclnnResize(const aclTensor* self, const aclFloatArray* scales, const char* mode, aclTensor* out)
aclnn.OP_SIGNATURES.setdefault("aclnnResize", "TAAT")


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


def fmt_dims(shape, cl):
    shape = list(shape)
    return [shape[0]] + shape[2:] + [shape[1]] if cl else shape


def to_format(logical, cl):
    return np.moveaxis(logical, 1, -1) if cl else logical


def from_format(arr, cl):
    return np.moveaxis(arr, -1, 1) if cl else arr


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
# Source data as raw storage.

# Special bit patterns: +inf, -inf, quiet NaN with a payload, negative quiet NaN with a payload,
# signalling NaN, -0.0.
SPECIAL_BITS = {
    ACL_FLOAT: (np.uint32, [0x7F800000, 0xFF800000, 0x7FC12345, 0xFFC00077, 0x7F800123,
                            0x80000000]),
    ACL_FLOAT16: (np.uint16, [0x7C00, 0xFC00, 0x7E55, 0xFE01, 0x7C05, 0x8000]),
    ACL_BF16: (np.uint16, [0x7F80, 0xFF80, 0x7FC5, 0xFFC1, 0x7F81, 0x8000]),
    ACL_DOUBLE: (np.uint64, [0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8123456789ABC,
                             0xFFF8000000000077, 0x7FF0000000000123, 0x8000000000000000]),
}
# numpy's NaN (positive, quiet, no payload) in each dtype.
DEFAULT_NAN_BITS = {ACL_FLOAT: 0x7FC00000, ACL_FLOAT16: 0x7E00, ACL_BF16: 0x7FC0,
                    ACL_DOUBLE: 0x7FF8000000000000}
# A sentinel that no source holds, for the output storage.
SENTINEL_BITS = {ACL_FLOAT: 0xFFA5A5A5, ACL_FLOAT16: 0xFDA5, ACL_BF16: 0xFFA5,
                 ACL_DOUBLE: 0xFFF5A5A5A5A5A5A5, ACL_UINT8: 0xA5}


def bits(a):
    a = np.ascontiguousarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize])


def raw_from_bits(bit_values, dtype):
    st = STORAGE_NP[dtype]
    return np.asarray(bit_values, dtype={1: np.uint8, 2: np.uint16, 4: np.uint32,
                                         8: np.uint64}[np.dtype(st).itemsize]).view(st)


def values_of(raw, dtype):
    """Raw storage -> float64 values."""
    return aclnn.from_storage(raw, dtype).astype(np.float64)


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
    raw = np.ascontiguousarray(aclnn.to_storage(
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
# Tensors over raw storage.

def make_tensor(raw, dtype, fmt, step=None, order=None, pad=0, device=False):
    """An aclTensor whose view (shape = raw.shape, in the format's dim order) holds the raw
    values; the rest of the storage holds the dtype's sentinel."""
    raw = np.asarray(raw)
    shape = list(raw.shape)
    phys_shape, strides, numel = TensorBuf._layout(shape, step, order)
    st = STORAGE_NP[dtype]
    storage = np.empty(pad + numel, dtype=st)
    bits(storage)[...] = SENTINEL_BITS.get(dtype, 0)
    if raw.size:
        bview = np.lib.stride_tricks.as_strided(
            bits(storage)[pad:], shape=shape, strides=[s * storage.itemsize for s in strides])
        bview[...] = bits(raw)
    storage_dims = [pad + numel] if pad else phys_shape
    return TensorBuf(storage, dtype, fmt, shape, strides, pad, storage_dims, device)


def make_output(shape, dtype, fmt, step=None, order=None, pad=0, device=False):
    raw = raw_from_bits(np.full(shape, SENTINEL_BITS.get(dtype, 0)), dtype)
    return make_tensor(raw, dtype, fmt, step=step, order=order, pad=pad, device=device)


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
# Comparison.

def _ordinal(vals, dtype):
    """Monotone integer encoding of float16 / bfloat16 values (for ulp distances)."""
    if dtype == ACL_FLOAT16:
        b = np.asarray(vals, dtype=np.float16).view(np.uint16).astype(np.int64)
    else:
        b = aclnn.f32_to_bf16_bits(np.asarray(vals, dtype=np.float32)).astype(np.int64)
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
        ref_d = aclnn.round_to_dtype(ref.astype(np.float32), dtype).astype(np.float64)
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
        name, sd, aclnn._lib_path()))
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
