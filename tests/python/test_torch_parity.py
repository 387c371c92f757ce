#!/usr/bin/python3
"""upsample.interpolate against torch.nn.functional.interpolate (PyTorch 1.13), values and
gradients, for every mode x dtype x layout x argument form.

* Modes: nearest, nearest-exact (1-D, 2-D, 3-D), linear, bilinear, bicubic, trilinear, area
  (1-D, 2-D, 3-D), bilinear and bicubic with antialias.
* Argument forms: size (larger, smaller, mixed, a bare int, 1), scale_factor (integer,
  non-integer, per-axis) with recompute_scale_factor None / False / True, align_corners None /
  False / True for the interpolating modes; also an input whose spatial size is 1.
* Layouts: contiguous, channels-last (4-D, 5-D), a strided view with an offset (N and C swapped
  in memory, every spatial dim stepped by 2); the result must have the input's memory format.
* dtypes and references: float32 / float64 against F.interpolate in the same dtype (tolerances
  of docs/numerics.md; nearest modes bit-exact); float16 / bfloat16 against F.interpolate in
  float32 rounded once to the dtype (one ulp plus the reference's rounding allowance; nearest
  modes bit-exact); uint8 against our float32 result rounded half to even once (bit-exact), and
  against PyTorch's uint8 result where PyTorch 1.13 has one (nearest modes: bit-exact) or its
  float32 result rounded (within 1).
* Gradients through autograd (y.backward(g)) against PyTorch's, float32 / float64 in the same
  dtype, float16 / bfloat16 against float32 rounded. The scales of these cases are chosen so
  that floor(in * scale) is never in or 2 * in for a scale other than 1 or 2: there PyTorch's
  bicubic backward copies grad_output (docs/numerics.md, deviation 5).
* PyTorch's nearest short-cuts (out == in copies, out == 2 * in takes out >> 1, even with a
  scale that maps otherwise): scales 1.1 and 2.1 on axes of 9, bitwise against F.interpolate
  (forward: short-cuts on channels-last contiguous inputs only, C = 1 included; backward: on
  every layout) and against the aten ops under upsample.install(), for 1-D / 2-D / 3-D,
  nearest and nearest-exact (which has none), every dtype, NumPy arrays too.
* NumPy arrays in, NumPy arrays out: strided, negative strides, channels-last, read-only and
  big-endian arrays; uint8 and uint16 for every mode x layout x argument form, bitwise the
  float32 result rounded half to even and saturated once.
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_helpers as th  # noqa: E402
from torch_helpers import np, torch  # noqa: E402

import pytest  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import upsample  # noqa: E402

SPATIAL = {1: (9,), 2: (6, 7), 3: (4, 5, 6)}
DTYPES = [torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.uint8]


def calls(mode, antialias, dims):
    """(description, kwargs) of every argument form for one mode."""
    rank = dims - 2
    sp = SPATIAL[rank]
    forms = [
        ("size up", dict(size=[math.floor(s * 1.7) + 1 for s in sp])),
        ("size down", dict(size=[max(1, math.ceil(s / 2.3)) for s in sp])),
        ("size mixed", dict(size=[sp[0] * 2 + 1] + [max(1, s // 2) for s in sp[1:]])),
        ("size int", dict(size=5)),
        ("size 1", dict(size=1)),
        ("scale 2", dict(scale_factor=2)),
        ("scale 1.7", dict(scale_factor=1.7)),
        ("scale per axis", dict(scale_factor=tuple([1.7, 0.6, 2.0][:rank]))),
        ("scale 0.6 recompute", dict(scale_factor=0.6, recompute_scale_factor=True)),
        ("scale 0.45 no recompute", dict(scale_factor=0.45, recompute_scale_factor=False)),
    ]
    out = []
    aligns = [None, False, True] if mode in th.INTERPOLATING else [None]
    for name, kw in forms:
        for align in aligns:
            kw2 = dict(kw, mode=mode, antialias=antialias)
            if align is not None:
                kw2["align_corners"] = align
            out.append(("%s align=%s" % (name, align), kw2))
    return out


def make_input(dims, layout, dtype, gen, spatial=None, channels=3):
    """[2, channels, spatial...] in the given layout; uint8 in [0, 255], floats in [-2, 2]."""
    sp = list(spatial or SPATIAL[dims - 2])
    n, c = 2, channels
    if layout == "view":
        base = torch.rand([c + 1, n] + [2 * s for s in sp], generator=gen, dtype=torch.float64)
        x = base.transpose(0, 1)[:, 1:]
        for d in range(len(sp)):
            x = x.narrow(2 + d, 1, 2 * sp[d] - 1)[(slice(None),) * (2 + d) + (slice(None, None, 2),)]
        assert list(x.shape) == [n, c] + sp and not x.is_contiguous()
    else:
        x = torch.rand([n, c] + sp, generator=gen, dtype=torch.float64)
    if dtype == torch.uint8:
        x = (x * 255.0).round()
    else:
        x = x * 4.0 - 2.0
    x = x.to(dtype) if layout == "view" else x.to(dtype).contiguous()
    if layout == "channels_last":
        fmt = torch.channels_last if dims == 4 else torch.channels_last_3d
        x = x.contiguous(memory_format=fmt)
    return x


def layouts(dims):
    return ["contiguous", "view"] + (["channels_last"] if dims in (4, 5) else [])


def check_format(y, x, layout, what):
    """Channels-last inputs give channels-last results; the other layouts of make_input
    (contiguous, the strided view) are contiguous-like and give contiguous results."""
    fmt = torch.contiguous_format
    if layout == "channels_last":
        fmt = torch.channels_last if x.dim() == 4 else torch.channels_last_3d
    assert y.is_contiguous(memory_format=fmt), "%s: result strides %s do not follow the " \
        "input's memory format %s (input strides %s)" % (what, y.stride(), fmt, x.stride())


def forward_reference(x, kw):
    """PyTorch's result, in x's dtype for float32 / float64, else in float32."""
    if x.dtype in (torch.float32, torch.float64):
        return F.interpolate(x, **kw)
    return F.interpolate(x.float(), **kw)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: str(d).replace("torch.", ""))
@pytest.mark.parametrize("mode,antialias,dims", th.MODES,
                         ids=[th.mode_id(*m) for m in th.MODES])
def test_forward(mode, antialias, dims, dtype):
    gen = torch.Generator().manual_seed(1000 * dims + DTYPES.index(dtype))
    for layout in layouts(dims):
        x = make_input(dims, layout, dtype, gen)
        for name, kw in calls(mode, antialias, dims):
            what = "%s %s %s %s" % (th.mode_id(mode, antialias, dims), dtype, layout, name)
            ours = upsample.interpolate(x, **kw)
            assert ours.dtype == dtype, what
            check_format(ours, x, layout, what)
            if dtype == torch.uint8:
                f32 = upsample.interpolate(x.float(), **kw)
                th.assert_bits(ours, th.round_to_uint8(f32), what + " vs our float32 rounded")
                if mode in th.NEAREST:
                    th.assert_bits(ours, F.interpolate(x, **kw), what + " vs torch uint8")
                else:
                    ref = th.round_to_uint8(F.interpolate(x.float(), **kw)).int()
                    assert (ours.int() - ref).abs().max() <= 1, what + " vs torch float32 rounded"
                continue
            ref = forward_reference(x, kw)
            if mode in th.NEAREST:
                th.assert_bits(ours, ref.to(dtype), what)
            else:
                th.assert_close(ours, ref, "forward", what, x=x, rank=dims - 2)


def test_input_of_size_one():
    gen = torch.Generator().manual_seed(7)
    for mode, antialias, dims in th.MODES:
        x = make_input(dims, "contiguous", torch.float64, gen, spatial=[1] * (dims - 2))
        for kw in (dict(size=[3] * (dims - 2)), dict(scale_factor=2.0)):
            aligns = [False, True] if mode in th.INTERPOLATING else [None]
            for align in aligns:
                kw2 = dict(kw, mode=mode, antialias=antialias)
                if align is not None:
                    kw2["align_corners"] = align
                what = "%s from size 1 %s" % (th.mode_id(mode, antialias, dims), kw2)
                th.assert_close(upsample.interpolate(x, **kw2), F.interpolate(x, **kw2),
                                "forward", what)


@pytest.mark.parametrize("dtype", DTYPES[:4], ids=lambda d: str(d).replace("torch.", ""))
@pytest.mark.parametrize("mode,antialias,dims", th.MODES,
                         ids=[th.mode_id(*m) for m in th.MODES])
def test_gradients(mode, antialias, dims, dtype):
    gen = torch.Generator().manual_seed(2000 * dims + DTYPES.index(dtype))
    for layout in ["contiguous", "view"]:
        for name, kw in calls(mode, antialias, dims)[::2]:
            what = "%s %s %s %s" % (th.mode_id(mode, antialias, dims), dtype, layout, name)
            x = make_input(dims, layout, dtype, gen).detach().requires_grad_()
            y = upsample.interpolate(x, **kw)
            assert y.requires_grad and y.grad_fn is not None, what
            g = (torch.rand(y.shape, generator=gen, dtype=torch.float64) * 2 - 1).to(dtype)
            y.backward(g)
            ref_dtype = dtype if dtype in (torch.float32, torch.float64) else torch.float32
            xr = x.detach().to(ref_dtype).requires_grad_()
            F.interpolate(xr, **kw).backward(g.to(ref_dtype))
            assert x.grad is not None and x.grad.dtype == dtype, what
            th.assert_close(x.grad, xr.grad, "backward", what + " grad", x=g, rank=dims - 2)


def test_channels_last_gradient_layout_and_values():
    gen = torch.Generator().manual_seed(11)
    x = make_input(4, "channels_last", torch.float32, gen).requires_grad_()
    y = upsample.interpolate(x, size=(11, 5), mode="bilinear")
    assert y.is_contiguous(memory_format=torch.channels_last)
    g = torch.rand(y.shape, generator=gen)
    y.backward(g)
    xr = x.detach().clone().requires_grad_()
    F.interpolate(xr, size=(11, 5), mode="bilinear").backward(g)
    th.assert_close(x.grad, xr.grad, "backward", "channels-last bilinear grad")


# ---------------------------------------------------------------------------------------------
# PyTorch 1.13's nearest short-cuts (nearest_idx): an axis with out == in copies and one with
# out == 2 * in takes index = out >> 1, even when a scale that maps otherwise reaches the
# kernel. Its backward always takes them; its forward only on inputs that are contiguous in the
# channels-last memory format (which every contiguous tensor with C = 1 is).

# Axes of 9: scale 1.1 gives out == in, 2.1 out == 2 * in; with the scale, nearest and
# nearest-exact map some outputs elsewhere than the short-cut would (checked below).
SHORTCUT_IN = 9
SHORTCUT_SCALES = {
    1: [(1.1,), (2.1,)],
    2: [(1.1, 2.1), (2.1, 0.6), (1.7, 1.1)],
    3: [(1.1, 2.1, 1.7), (2.1, 2.1, 0.6), (0.6, 1.1, 1.1)],
}
ATEN_NEAREST = {3: "upsample_nearest1d", 4: "upsample_nearest2d", 5: "upsample_nearest3d"}


def shortcut_inputs(dims, dtype, gen):
    """(layout, x, whether PyTorch's forward takes the short-cuts) for [2, C, 9, ...] inputs."""
    sp = [SHORTCUT_IN] * (dims - 2)
    out = [("contiguous", make_input(dims, "contiguous", dtype, gen, spatial=sp), False),
           ("C=1", make_input(dims, "contiguous", dtype, gen, spatial=sp, channels=1), dims > 3),
           ("view", make_input(dims, "view", dtype, gen, spatial=sp), False)]
    if dims > 3:
        out.append(("channels_last", make_input(dims, "channels_last", dtype, gen, spatial=sp),
                    True))
    for layout, x, shortcut in out:
        fmt = {4: torch.channels_last, 5: torch.channels_last_3d}.get(dims)
        assert shortcut == (fmt is not None and x.is_contiguous(memory_format=fmt)), layout
    return out


def integer_gradient(shape, gen, dtype):
    """Integers in [-8, 8]: their sums are exact in every dtype and every order, so gradients
    compare bitwise whatever order the kernels add in."""
    return torch.randint(-8, 9, shape, generator=gen).to(dtype)


def test_nearest_shortcut_cases_discriminate():
    # The cases move outputs: with the scale, PyTorch's contiguous forward maps differently
    # from its channels-last forward (nearest) and from the short-cut (nearest-exact), and its
    # backward is not the adjoint of its contiguous forward.
    for rank, cases in SHORTCUT_SCALES.items():
        shape = [1, 3] + [SHORTCUT_IN] * rank
        ids = torch.arange(math.prod(shape), dtype=torch.float64).reshape(shape)
        fmt = {2: torch.channels_last, 3: torch.channels_last_3d}.get(rank)
        for scales in cases:
            out = [math.floor(SHORTCUT_IN * s) for s in scales]
            assert any(o in (SHORTCUT_IN, 2 * SHORTCUT_IN) for o in out), scales
            src = F.interpolate(ids, scale_factor=scales, mode="nearest")
            if fmt is not None:
                assert not torch.equal(
                    src, F.interpolate(ids.contiguous(memory_format=fmt), scale_factor=scales,
                                       mode="nearest")), scales
            exact = F.interpolate(ids, scale_factor=scales, mode="nearest-exact")
            assert not torch.equal(exact, F.interpolate(ids, size=out, mode="nearest-exact")), \
                scales
            g = torch.rand(src.shape, dtype=torch.float64)
            adjoint = torch.zeros(ids.numel(), dtype=torch.float64).index_add_(
                0, src.long().flatten(), g.flatten())
            x = torch.zeros(shape, dtype=torch.float64, requires_grad=True)
            F.interpolate(x, scale_factor=scales, mode="nearest").backward(g)
            assert not torch.allclose(x.grad.flatten(), adjoint), scales


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: str(d).replace("torch.", ""))
@pytest.mark.parametrize("dims", [3, 4, 5])
def test_nearest_shortcuts_forward(dims, dtype):
    gen = torch.Generator().manual_seed(300 + dims)
    for layout, x, _ in shortcut_inputs(dims, dtype, gen):
        for mode in th.NEAREST:
            for scales in SHORTCUT_SCALES[dims - 2]:
                kw = dict(scale_factor=scales, mode=mode)
                what = "%s %dd %s %s %s" % (mode, dims - 2, dtype, layout, scales)
                ref = F.interpolate(x, **kw) if dtype == torch.uint8 else forward_reference(x, kw)
                ours = upsample.interpolate(x, **kw)
                th.assert_bits(ours, ref.to(dtype), what)
                if dtype in (torch.float32, torch.uint8):
                    a = upsample.interpolate(x.numpy(), **kw)
                    assert np.array_equal(a, ref.numpy()), what + " (NumPy)"


@pytest.mark.parametrize("dtype", DTYPES[:4], ids=lambda d: str(d).replace("torch.", ""))
@pytest.mark.parametrize("dims", [3, 4, 5])
def test_nearest_shortcuts_backward(dims, dtype):
    gen = torch.Generator().manual_seed(400 + dims)
    ref_dtype = dtype if dtype in (torch.float32, torch.float64) else torch.float32
    for layout, x0, _ in shortcut_inputs(dims, dtype, gen):
        for mode in th.NEAREST:
            for scales in SHORTCUT_SCALES[dims - 2]:
                kw = dict(scale_factor=scales, mode=mode)
                what = "%s %dd %s %s %s" % (mode, dims - 2, dtype, layout, scales)
                x = x0.detach().clone().requires_grad_()
                y = upsample.interpolate(x, **kw)
                g = integer_gradient(y.shape, gen, dtype)
                y.backward(g)
                xr = x0.detach().to(ref_dtype).requires_grad_()
                F.interpolate(xr, **kw).backward(g.to(ref_dtype))
                th.assert_bits(x.grad, xr.grad.to(dtype), what)


@pytest.mark.parametrize("dims", [3, 4, 5])
def test_nearest_shortcuts_installed(dims):
    # The aten ops, stock and installed: forward, .out, _backward, _backward.grad_input, and
    # F.interpolate's forward and gradient.
    gen = torch.Generator().manual_seed(500 + dims)
    op = getattr(torch.ops.aten, ATEN_NEAREST[dims])
    backward_op = getattr(torch.ops.aten, ATEN_NEAREST[dims] + "_backward")
    for layout, x, _ in shortcut_inputs(dims, torch.float32, gen):
        for scales in SHORTCUT_SCALES[dims - 2]:
            osize = [math.floor(SHORTCUT_IN * s) for s in scales]
            g = integer_gradient([2, x.shape[1]] + osize, gen, torch.float32)
            what = "%s %s %s" % (ATEN_NEAREST[dims], layout, scales)

            def calls():
                xr = x.detach().clone().requires_grad_()
                y = F.interpolate(xr, scale_factor=scales, mode="nearest")
                y.backward(g)
                out = torch.empty(0)
                grad_input = torch.empty(0)
                return [y.detach(), xr.grad, op(x, osize, *scales),
                        op.out(x, osize, *scales, out=out),
                        backward_op(g, osize, list(x.shape), *scales),
                        backward_op.grad_input(g, osize, list(x.shape), *scales,
                                               grad_input=grad_input)]

            stock = calls()
            with upsample.installed():
                ours = calls()
            names = ["F.interpolate", "gradient", "forward op", ".out", "_backward",
                     "_backward.grad_input"]
            for name, a, b in zip(names, ours, stock):
                th.assert_bits(a, b, "%s: %s" % (what, name))


# ---------------------------------------------------------------------------------------------
# NumPy.

def numpy_views(a):
    """Views of a C-contiguous [N, C, ...] array: strided, negative strides, transposed memory."""
    sl = (slice(None), slice(None)) + (slice(None, None, -1),) * (a.ndim - 2)
    yield "contiguous", a
    yield "negative strides", a[sl]
    yield "step 2", np.repeat(a, 2, axis=-1)[..., ::2]
    yield "N/C swapped in memory", np.ascontiguousarray(a.swapaxes(0, 1)).swapaxes(0, 1)
    if a.ndim in (4, 5):
        perm = (0,) + tuple(range(2, a.ndim)) + (1,)
        inverse = tuple(np.argsort(perm))
        yield "channels-last", np.ascontiguousarray(a.transpose(perm)).transpose(inverse)
    ro = a.copy()
    ro.setflags(write=False)
    yield "read-only", ro


@pytest.mark.parametrize("mode,antialias,dims", th.MODES,
                         ids=[th.mode_id(*m) for m in th.MODES])
def test_numpy(mode, antialias, dims):
    rng = np.random.default_rng(dims)
    base = rng.uniform(-2, 2, size=[2, 3] + list(SPATIAL[dims - 2])).astype(np.float32)
    original = base.copy()
    kw = dict(size=[5] * (dims - 2), mode=mode, antialias=antialias)
    for name, a in numpy_views(base):
        expected = upsample.interpolate(torch.from_numpy(np.array(a)), **kw).numpy()
        out = upsample.interpolate(a, **kw)
        assert isinstance(out, np.ndarray) and out.dtype == np.float32, name
        assert np.array_equal(out, expected), "%s %s: differs from the tensor result" % (
            th.mode_id(mode, antialias, dims), name)
        if name == "channels-last":
            assert out.strides[1] == out.itemsize, "channels-last input, result strides %s" % (
                out.strides,)
        else:
            assert out.flags.c_contiguous, name
    assert np.array_equal(base, original), "the input array was modified"


def test_numpy_dtypes():
    rng = np.random.default_rng(3)
    f = rng.uniform(0, 255, size=(1, 2, 6, 7))
    for dtype in (np.float16, np.float64, np.uint8, np.uint16, ">f4"):
        a = (f * (200 if dtype == np.uint16 else 1)).round().astype(dtype)
        out = upsample.interpolate(a, size=(9, 4), mode="bilinear", antialias=True)
        assert out.dtype == np.dtype(dtype).newbyteorder("="), dtype
        ref = upsample.interpolate(torch.from_numpy(a.astype(np.float32)), size=(9, 4),
                                   mode="bilinear", antialias=True).double().numpy()
        if np.dtype(dtype).kind == "u":
            limit = np.iinfo(dtype).max
            rounded = np.clip(np.round(ref), 0, limit)  # np.round: half to even
            assert np.array_equal(out.astype(np.float64), rounded), dtype
        elif dtype == np.float16:
            assert np.array_equal(out, ref.astype(np.float32).astype(np.float16)), dtype
        elif dtype == np.float64:
            t = upsample.interpolate(torch.from_numpy(a), size=(9, 4), mode="bilinear",
                                     antialias=True).numpy()
            assert np.array_equal(out, t)
        else:
            assert np.array_equal(out, ref.astype(np.float32)), dtype


def rounded_to(f32, dtype):
    """A float32 result stored as the unsigned integer `dtype` the engine's way: rounded half
    to even once (np.rint) and saturated to the dtype's range."""
    return np.clip(np.rint(f32.astype(np.float64)), 0, np.iinfo(dtype).max).astype(dtype)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16], ids=["uint8", "uint16"])
@pytest.mark.parametrize("mode,antialias,dims", th.MODES,
                         ids=[th.mode_id(*m) for m in th.MODES])
def test_numpy_unsigned_dtypes(mode, antialias, dims, dtype):
    # uint8 / uint16 storage for every mode, layout and argument form: computed in float32,
    # rounded half to even and saturated once, so bitwise the float32 result rounded.
    rng = np.random.default_rng(100 * dims + np.dtype(dtype).itemsize)
    limit = np.iinfo(dtype).max
    base = rng.integers(0, limit + 1, size=[2, 3] + list(SPATIAL[dims - 2]), dtype=dtype)
    for name, kw in calls(mode, antialias, dims):
        for layout, a in numpy_views(base):
            what = "%s %s %s %s" % (th.mode_id(mode, antialias, dims), dtype.__name__, layout,
                                    name)
            out = upsample.interpolate(a, **kw)
            assert out.dtype == dtype, what
            if layout == "channels-last":
                assert out.strides[1] == out.itemsize, what + ": layout not kept"
            f32 = upsample.interpolate(a.astype(np.float32), **kw)
            assert np.array_equal(out, rounded_to(f32, dtype)), what


def test_numpy_unsigned_ties_and_saturation():
    # The rounding cases the test above relies on occur: ties (x.5, to even) in linear modes,
    # results beyond both ends of the range in bicubic ones.
    rng = np.random.default_rng(5)
    for dtype in (np.uint8, np.uint16):
        limit = np.iinfo(dtype).max
        a = rng.integers(0, limit + 1, size=(1, 2, 40), dtype=dtype)
        f32 = upsample.interpolate(a.astype(np.float32), scale_factor=2, mode="linear")
        out = upsample.interpolate(a, scale_factor=2, mode="linear")
        ties = f32 - np.floor(f32) == 0.5
        assert ties.any(), dtype
        assert np.array_equal(out[ties], 2 * np.round(f32[ties] / 2)), dtype
        assert not np.array_equal(out[ties], np.floor(f32[ties] + 0.5)), dtype
        checker = (np.indices((6, 6)).sum(axis=0) % 2 * limit).astype(dtype)[None, None]
        f32 = upsample.interpolate(checker.astype(np.float32), size=(11, 11), mode="bicubic")
        out = upsample.interpolate(checker, size=(11, 11), mode="bicubic")
        assert (f32 < -0.5).any() and (f32 > limit + 0.5).any(), dtype
        assert (out[f32 < -0.5] == 0).all() and (out[f32 > limit + 0.5] == limit).all(), dtype


def test_numpy_errors():
    with pytest.raises(RuntimeError, match="int32"):
        upsample.interpolate(np.zeros((1, 1, 4, 4), np.int32), size=2)
    with pytest.raises(ValueError):
        upsample.interpolate(np.zeros((1, 1, 4, 4), np.float32), size=2, scale_factor=2)
    with pytest.raises(NotImplementedError):
        upsample.interpolate(np.zeros((1, 1, 4), np.float32), size=2, mode="bilinear")
    with pytest.raises(TypeError):
        upsample.interpolate([[[1.0, 2.0]]], size=2)


if __name__ == "__main__":
    sys.exit(th.run(__file__))
