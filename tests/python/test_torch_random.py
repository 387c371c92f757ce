#!/usr/bin/python3
"""Random calls, drawn with fixed seeds, through F.interpolate and through upsample.interpolate
(and F.interpolate with our kernels installed): every mode and input rank (the ranks a mode does
not take included), size / scale_factor / recompute_scale_factor / align_corners / antialias
forms, contiguous, channels-last, transposed and strided inputs, float32 and float64, and bad
arguments (zero, negative, non-finite and wrong-length sizes and scales, both or neither given,
an unknown mode). Both sides must raise the same exception type with the same warnings, or
return the same shape, dtype and memory format with values within float32 / float64 rounding;
float64 gradients through autograd must agree too."""

import os
import random
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_helpers as th  # noqa: E402
from torch_helpers import torch  # noqa: E402

import pytest  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import upsample  # noqa: E402

RANKS = {"nearest": (1, 2, 3), "nearest-exact": (1, 2, 3), "linear": (1,), "bilinear": (2,),
         "bicubic": (2,), "trilinear": (3,), "area": (1, 2, 3)}
INTERPOLATING = ("linear", "bilinear", "bicubic", "trilinear")
SCALES = [0.5, 0.3, 1.0, 1.5, 2.0, 2.7, 3.0, 0.75, 1 / 3]


def draw_input(rng, nd, dtype):
    shape = [rng.randint(0 if rng.random() < 0.03 else 1, 3), rng.randint(1, 4)]
    shape += [rng.randint(1, 9) for _ in range(nd)]
    gen = torch.Generator().manual_seed(rng.randrange(1 << 30))
    x = torch.randn(shape, dtype=torch.float64, generator=gen).to(dtype)
    r = rng.random()
    if r < 0.2 and x.dim() == 4:
        return x.contiguous(memory_format=torch.channels_last)
    if r < 0.35 and x.dim() > 3:
        return x.transpose(-1, -2)
    if r < 0.45:
        big = torch.randn([2 * s for s in shape], dtype=torch.float64, generator=gen).to(dtype)
        return big[tuple(slice(None, None, 2) for _ in shape)]
    return x


def draw_arguments(rng, mode, nd):
    kw = {"mode": mode}
    if rng.random() < 0.5:
        kw["size"] = ([rng.randint(1, 20) for _ in range(nd)] if rng.random() < 0.8
                      else rng.randint(1, 20))
    else:
        sf = [rng.choice(SCALES) for _ in range(nd)]
        kw["scale_factor"] = sf if rng.random() < 0.7 else sf[0]
        if rng.random() < 0.5:
            kw["recompute_scale_factor"] = rng.choice([True, False, None])
    if mode in INTERPOLATING:
        if rng.random() < 0.5:
            kw["align_corners"] = rng.choice([True, False])
        if mode in ("bilinear", "bicubic") and rng.random() < 0.3:
            kw["antialias"] = True
    elif rng.random() < 0.03:
        kw["align_corners"] = False
    if rng.random() < 0.02:
        kw["antialias"] = True
    h = rng.random()  # bad arguments
    if h < 0.04:
        kw["size"] = rng.choice([0, -1, [0, 2], [2.5], (3,) * (nd + 1), "a"])
    elif h < 0.08:
        kw["scale_factor"] = rng.choice([0.0, -1.0, float("nan"), float("inf"),
                                         [1.0] * (nd + 1), 1e-30])
    elif h < 0.10:
        kw["size"], kw["scale_factor"] = 4, 2.0
    elif h < 0.12:
        kw.pop("size", None)
        kw.pop("scale_factor", None)
    elif h < 0.13:
        kw["mode"] = "bogus"
    return kw


def call(fn, x, kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return fn(x, **kw), None, sorted(str(w.message) for w in caught)
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            return None, e, sorted(str(w.message) for w in caught)


def installed_interpolate(x, **kw):
    with upsample.installed():
        return F.interpolate(x, **kw)


def channels_last(t):
    return t.dim() == 4 and t.is_contiguous(memory_format=torch.channels_last)


def check_case(rng, ours):
    mode = rng.choice(list(RANKS))
    nd = rng.choice(RANKS[mode]) if rng.random() > 0.05 else rng.randint(1, 3)
    dtype = rng.choice([torch.float32, torch.float64])
    x = draw_input(rng, nd, dtype)
    kw = draw_arguments(rng, mode, nd)
    what = "%s %s %s %s" % (list(x.shape), x.stride(), dtype, kw)
    ref, ref_err, ref_warn = call(F.interpolate, x, kw)
    got, got_err, got_warn = call(ours, x, kw)
    assert type(got_err) is type(ref_err), "%s: %r vs %r" % (what, got_err, ref_err)
    assert got_warn == ref_warn, what
    if ref_err is not None:
        return
    assert got.shape == ref.shape and got.dtype == ref.dtype, what
    # bicubic keeps channels-last (docs/python.md); PyTorch 1.13 returns it contiguous.
    if kw["mode"] != "bicubic" and ref.numel() > 1 and ref.dim() == 4 and ref.shape[1] > 1:
        assert channels_last(got) == channels_last(ref), what
    if ref.numel() == 0:
        return
    scale = max(1.0, ref.double().abs().max().item())
    tol = (1e-5 if dtype == torch.float32 else 1e-12) * scale * (8 if mode == "bicubic" else 1)
    err = (got.double() - ref.double()).abs().max().item()
    assert err <= tol, "%s: max error %g > %g" % (what, err, tol)
    if dtype == torch.float64 and rng.random() < 0.5:
        a = x.detach().clone().requires_grad_(True)
        b = x.detach().clone().requires_grad_(True)
        grad = torch.randn(ref.shape, dtype=torch.float64,
                           generator=torch.Generator().manual_seed(rng.randrange(1 << 30)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            F.interpolate(a, **kw).backward(grad)
            ours(b, **kw).backward(grad)
        gerr = (a.grad - b.grad).abs().max().item()
        assert gerr <= 1e-10 * max(1.0, a.grad.abs().max().item()), "%s: grad %g" % (what, gerr)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ours", [upsample.interpolate, installed_interpolate],
                         ids=["upsample.interpolate", "installed F.interpolate"])
def test_random_calls_agree_with_f_interpolate(seed, ours):
    rng = random.Random(1000 + seed)
    for _ in range(150):
        check_case(rng, ours)


if __name__ == "__main__":
    sys.exit(th.run(__file__))
