"""Shared machinery of the tests of the Python package (tests/python/test_torch_*.py).

* Import path: the package built in ``$UPSAMPLE_BUILD_DIR/python`` (CTest sets
  UPSAMPLE_BUILD_DIR; default: the repository's ``build/``).
* torch runs with ``ATEN_CPU_CAPABILITY=default`` (set here, before torch is imported): PyTorch's
  AVX2/AVX-512 kernel builds contract ``a*b + c`` into FMAs, the engine never does
  (docs/numerics.md), and the default kernels evaluate the same formulas without contraction.
* ``run(__file__)``: each test file is a script that runs its tests with pytest (Debian's
  python3-pytest) and exits non-zero on failure.
* Comparisons with the tolerances of docs/numerics.md: ``assert_close`` (float32, float64,
  float16 / bfloat16 against the float32 reference rounded once), ``assert_bits``.
* ``MODES``: every F.interpolate mode with the input ranks it takes.
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
os.environ.setdefault("ATEN_CPU_CAPABILITY", "default")

_HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("UPSAMPLE_SOURCE_DIR",
                            os.path.dirname(os.path.dirname(os.path.dirname(_HERE))))
BUILD_DIR = os.environ.get("UPSAMPLE_BUILD_DIR", os.path.join(SOURCE_DIR, "build"))
PACKAGE_DIR = os.path.join(BUILD_DIR, "python")
if PACKAGE_DIR not in sys.path:
    sys.path.insert(0, PACKAGE_DIR)

import warnings  # noqa: E402

warnings.filterwarnings("ignore", message="No CUDA runtime is found")
import numpy as np  # noqa: E402
import torch  # noqa: E402

# (mode, antialias, input dims) for every mode F.interpolate has.
MODES = [
    ("nearest", False, 3), ("nearest", False, 4), ("nearest", False, 5),
    ("nearest-exact", False, 3), ("nearest-exact", False, 4), ("nearest-exact", False, 5),
    ("linear", False, 3), ("bilinear", False, 4), ("bicubic", False, 4), ("trilinear", False, 5),
    ("area", False, 3), ("area", False, 4), ("area", False, 5),
    ("bilinear", True, 4), ("bicubic", True, 4),
]
INTERPOLATING = ("linear", "bilinear", "bicubic", "trilinear")
NEAREST = ("nearest", "nearest-exact")

# docs/numerics.md, "Tolerances used by the tests": relative to max(1, |ref|).
TOLERANCE = {
    (torch.float32, "forward"): 1e-5,
    (torch.float32, "backward"): 1e-4,
    (torch.float64, "forward"): 1e-12,
    (torch.float64, "backward"): 1e-12,
}
# float16 / bfloat16: the float32 reference's own rounding allowance, 16 * 2^-24 per unit of
# sum |w * x|, bounded here by 2^rank * max|x| (sum |w| <= 2 per axis for every mode's weights).
REF_ULPS = 16.0
_MANTISSA = {torch.float16: (10, -14), torch.bfloat16: (7, -126)}


def mode_id(mode, antialias, dims):
    return "%s%s-%dd" % (mode, "-aa" if antialias else "", dims - 2)


def ulp(ref, dtype):
    """One ulp of `dtype` at each value of `ref` (float64 numpy array)."""
    bits, min_exp = _MANTISSA[dtype]
    mag = np.abs(ref)
    exp = np.floor(np.log2(np.where(mag > 0, mag, 1.0)))
    exp = np.maximum(exp, min_exp)
    return np.ldexp(1.0, (exp - bits).astype(np.int64))


def assert_close(ours, ref, direction, what, x=None, rank=2):
    """ours: a tensor of any float dtype; ref: the float32 / float64 reference tensor.

    float32 / float64: |ours - ref| <= tol * max(1, |ref|) (docs/numerics.md). float16 /
    bfloat16: within one ulp of the dtype of ref rounded to the dtype, plus the float32
    rounding allowance of the reference (x: the input, to bound sum |w * x|)."""
    assert ours.shape == ref.shape, "%s: shape %s, expected %s" % (what, tuple(ours.shape),
                                                                   tuple(ref.shape))
    o = ours.detach().double().numpy()
    r = ref.detach().double().numpy()
    assert np.array_equal(np.isnan(o), np.isnan(r)), "%s: NaN positions differ" % what
    finite = np.isfinite(r)
    assert np.array_equal(o[~finite & ~np.isnan(r)], r[~finite & ~np.isnan(r)]), \
        "%s: infinities differ" % what
    o, r = o[finite], r[finite]
    if ours.dtype in (torch.float16, torch.bfloat16):
        rounded = torch.from_numpy(r).to(ours.dtype).double().numpy()
        scale = float(x.detach().abs().max()) if x is not None and x.numel() else 0.0
        allow = ulp(rounded, ours.dtype) + REF_ULPS * 2.0 ** -24 * (2.0 ** rank) * scale
        err = np.abs(o - rounded)
        bad = err > allow
        assert not bad.any(), "%s: %d of %d elements more than 1 ulp of %s away, worst %r vs " \
            "%r (f32 ref)" % (what, int(bad.sum()), bad.size, ours.dtype,
                              o[bad][np.argmax(err[bad])], r[bad][np.argmax(err[bad])])
        return
    tol = TOLERANCE[(ours.dtype, direction)]
    err = np.abs(o - r) / np.maximum(1.0, np.abs(r))
    assert err.size == 0 or err.max() <= tol, "%s: relative error %.3g > %.3g (at %r vs %r)" % (
        what, err.max(), tol, o[np.argmax(err)], r[np.argmax(err)])


def assert_bits(ours, ref, what):
    """Bitwise equality, values and shape (NaN payloads included)."""
    assert ours.dtype == ref.dtype and ours.shape == ref.shape, "%s: %s %s vs %s %s" % (
        what, ours.dtype, tuple(ours.shape), ref.dtype, tuple(ref.shape))
    a = ours.detach().contiguous()
    b = ref.detach().contiguous()
    if a.dtype in (torch.float16, torch.bfloat16):
        a, b = a.view(torch.int16), b.view(torch.int16)
    elif a.dtype == torch.float32:
        a, b = a.view(torch.int32), b.view(torch.int32)
    elif a.dtype == torch.float64:
        a, b = a.view(torch.int64), b.view(torch.int64)
    diff = int((a != b).sum())
    assert diff == 0, "%s: %d of %d elements differ bitwise" % (what, diff, a.numel())


def round_to_uint8(t):
    """float -> uint8 the engine's way: round half to even once, saturate to [0, 255]."""
    return t.round().clamp(0, 255).to(torch.uint8)


def run(path):
    """Runs the tests of `path` with pytest; returns the exit status."""
    import pytest
    return int(pytest.main([path, "-q", "-p", "no:cacheprovider", "-W",
                            "ignore:No CUDA runtime is found"]))
