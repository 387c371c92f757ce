#!/usr/bin/python3
"""Autograd of upsample.interpolate: torch.autograd.gradcheck and gradgradcheck in float64 for
every mode (size- and scale-driven, align_corners both ways where it applies), and at the
scales where PyTorch's nearest backward takes short-cuts its contiguous forward does not; no
graph under no_grad / inference_mode / for inputs that do not require grad, derivatives of any
order, and bitwise identical forward and backward results for any thread count."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_helpers as th  # noqa: E402
from torch_helpers import torch  # noqa: E402

import pytest  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import upsample  # noqa: E402

SPATIAL = {1: (5,), 2: (4, 5), 3: (3, 4, 3)}


def variants(mode, antialias, dims):
    """Keyword arguments of the calls checked for one mode."""
    rank = dims - 2
    out = [dict(size=[7, 3, 5][:rank]), dict(scale_factor=[1.7, 0.6, 2.0][:rank])]
    if mode in th.INTERPOLATING:
        out += [dict(size=[7, 3, 5][:rank], align_corners=True),
                dict(scale_factor=[0.6, 1.7, 2.0][:rank], align_corners=False)]
    for kw in out:
        kw.update(mode=mode, antialias=antialias)
    return out


@pytest.mark.parametrize("mode,antialias,dims", th.MODES,
                         ids=[th.mode_id(*m) for m in th.MODES])
def test_gradcheck_and_gradgradcheck(mode, antialias, dims):
    gen = torch.Generator().manual_seed(dims)
    for kw in variants(mode, antialias, dims):
        x = torch.rand([1, 2] + list(SPATIAL[dims - 2]), generator=gen, dtype=torch.float64)
        x.requires_grad_()

        def fn(t):
            return upsample.interpolate(t, **kw)

        assert torch.autograd.gradcheck(fn, (x,), eps=1e-6, atol=1e-8, rtol=1e-6), kw
        assert torch.autograd.gradgradcheck(fn, (x,), eps=1e-6, atol=1e-8, rtol=1e-6), kw


def test_no_graph_without_grad():
    x = torch.rand(1, 2, 4, 4)
    y = upsample.interpolate(x, size=(6, 6), mode="bilinear")
    assert not y.requires_grad and y.grad_fn is None
    xr = x.clone().requires_grad_()
    with torch.no_grad():
        y = upsample.interpolate(xr, size=(6, 6), mode="bilinear")
    assert not y.requires_grad and y.grad_fn is None
    with torch.inference_mode():
        y = upsample.interpolate(xr, size=(6, 6), mode="bicubic")
    assert not y.requires_grad and y.grad_fn is None
    y = upsample.interpolate(xr, size=(6, 6), mode="bilinear")
    assert y.requires_grad and y.grad_fn is not None
    # The graph refers to the upsample operator, not to PyTorch's upsample backward.
    assert "Upsample" not in type(y.grad_fn).__name__


def test_higher_order_derivatives():
    # resample is linear in its input: the derivative of its backward w.r.t. grad_output is the
    # forward again, and that one's derivative is the backward.
    kw = dict(size=(7, 3), mode="bicubic", align_corners=False)
    x = torch.rand(1, 2, 4, 5, dtype=torch.float64, requires_grad=True)
    y = upsample.interpolate(x, **kw)
    g = torch.rand(y.shape, dtype=torch.float64, requires_grad=True)
    (gx,) = torch.autograd.grad(y, x, g, create_graph=True)
    assert gx.requires_grad and gx.grad_fn is not None

    def backward_of(t):
        xr = x.detach().clone().requires_grad_()
        upsample.interpolate(xr, **kw).backward(t)
        return xr.grad

    th.assert_bits(gx, backward_of(g.detach()), "first derivative")
    v = torch.rand(x.shape, dtype=torch.float64, requires_grad=True)
    (ggo,) = torch.autograd.grad(gx, g, v, create_graph=True)
    th.assert_bits(ggo, upsample.interpolate(v.detach(), **kw), "second derivative = forward")
    w = torch.rand(y.shape, dtype=torch.float64)
    (third,) = torch.autograd.grad(ggo, v, w)
    th.assert_bits(third, backward_of(w), "third derivative = backward")


@pytest.mark.parametrize("dims", [3, 4, 5])
def test_nearest_shortcut_derivatives(dims):
    # Scales 1.1 and 2.1 on axes of 9 give out == in and out == 2 * in, where PyTorch's nearest
    # backward takes its short-cuts on every layout and its forward only on channels-last
    # inputs (docs/python.md). gradcheck's verdict is therefore PyTorch's: it passes where the
    # forward takes them too (channels-last; never in 1-D) and fails elsewhere, for
    # F.interpolate and upsample.interpolate alike. The second derivative is the adjoint of
    # the backward, so gradgradcheck passes on every layout.
    rank = dims - 2
    kw = dict(scale_factor=[1.1, 2.1, 2.1][:rank], mode="nearest")
    gen = torch.Generator().manual_seed(50 + dims)
    x = torch.rand([1, 2] + [9] * rank, generator=gen, dtype=torch.float64)
    layouts = [("contiguous", x, False)]
    if dims > 3:
        fmt = torch.channels_last if dims == 4 else torch.channels_last_3d
        layouts.append(("channels-last", x.contiguous(memory_format=fmt), True))
    for layout, t, adjoint in layouts:
        t = t.detach().requires_grad_()
        for name, fn in (("upsample", lambda u: upsample.interpolate(u, **kw)),
                         ("torch", lambda u: F.interpolate(u, **kw))):
            verdict = torch.autograd.gradcheck(fn, (t,), eps=1e-6, atol=1e-8, rtol=1e-6,
                                               raise_exception=False)
            assert verdict == adjoint, (name, layout, kw)
        assert torch.autograd.gradgradcheck(lambda u: upsample.interpolate(u, **kw), (t,),
                                            eps=1e-6, atol=1e-8, rtol=1e-6), (layout, kw)


def _run_threads(n, fn):
    upsample.set_num_threads(n)
    try:
        return fn()
    finally:
        upsample.set_num_threads(0)


@pytest.mark.parametrize("mode,antialias,dims", [m for m in th.MODES if m[2] >= 4],
                         ids=[th.mode_id(*m) for m in th.MODES if m[2] >= 4])
def test_bitwise_identical_for_any_thread_count(mode, antialias, dims):
    gen = torch.Generator().manual_seed(5)
    shape = [2, 8, 48, 40] if dims == 4 else [2, 4, 16, 24, 20]
    x = torch.rand(shape, generator=gen)
    size = [int(s * 1.5) + 1 for s in shape[2:]]
    kw = dict(size=size, mode=mode, antialias=antialias)
    g = torch.rand([2, shape[1]] + size, generator=gen)

    def forward_backward():
        xr = x.clone().requires_grad_()
        y = upsample.interpolate(xr, **kw)
        y.backward(g)
        return y.detach(), xr.grad

    one = _run_threads(1, forward_backward)
    assert upsample.get_num_threads() == torch.get_num_threads()
    for n in (2, 3):
        other = _run_threads(n, forward_backward)
        th.assert_bits(other[0], one[0], "forward, %d threads vs 1" % n)
        th.assert_bits(other[1], one[1], "backward, %d threads vs 1" % n)


def test_threads_follow_torch_unless_set():
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        assert upsample.get_num_threads() == 1
        upsample.set_num_threads(3)
        assert upsample.get_num_threads() == 3
        upsample.set_num_threads(0)
        torch.set_num_threads(2)
        assert upsample.get_num_threads() == 2
        with pytest.raises(ValueError):
            upsample.set_num_threads(-1)
        with pytest.raises(TypeError):
            upsample.set_num_threads("2")
    finally:
        upsample.set_num_threads(0)
        torch.set_num_threads(before)


def test_uint8_forward_only():
    x = torch.randint(0, 256, (1, 1, 4, 4), dtype=torch.uint8)
    y = upsample.interpolate(x, size=(6, 6), mode="bilinear")
    assert y.dtype == torch.uint8 and not y.requires_grad
    with pytest.raises(RuntimeError, match="Byte"):
        torch.ops.upsample.resample_backward(x, [1, 1, 2, 2], None, "bilinear")


if __name__ == "__main__":
    sys.exit(th.run(__file__))
