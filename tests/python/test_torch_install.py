#!/usr/bin/python3
"""upsample.install() / uninstall() / installed(): our kernels as the CPU kernels of the aten
upsample operators, through PyTorch's dispatcher.

After install(), unchanged code (F.interpolate, nn.Upsample, torchvision's Resize on tensors,
autograd, TorchScript, the aten .out / _backward / _backward.grad_input overloads) gives the
engine's bits, with the memory formats PyTorch's kernels give; after uninstall(), PyTorch's
bits again. The comparison is shown to discriminate: on bfloat16 data PyTorch's kernels and
ours differ, and float16 works only while installed (PyTorch 1.13 has no float16 CPU kernels).
"""

import os
import subprocess
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_helpers as th  # noqa: E402
from torch_helpers import torch  # noqa: E402

import pytest  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import upsample  # noqa: E402

A = torch.ops.aten

# (aten forward op, input dims, F.interpolate keyword arguments)
CASES = [
    ("upsample_nearest1d", 3, dict(size=11, mode="nearest")),
    ("upsample_nearest2d", 4, dict(scale_factor=1.7, mode="nearest")),
    ("upsample_nearest3d", 5, dict(size=(3, 7, 5), mode="nearest")),
    ("_upsample_nearest_exact1d", 3, dict(scale_factor=0.6, mode="nearest-exact")),
    ("_upsample_nearest_exact2d", 4, dict(size=(9, 4), mode="nearest-exact")),
    ("_upsample_nearest_exact3d", 5, dict(scale_factor=2, mode="nearest-exact")),
    ("upsample_linear1d", 3, dict(size=13, mode="linear", align_corners=True)),
    ("upsample_bilinear2d", 4, dict(size=(9, 4), mode="bilinear")),
    ("upsample_bilinear2d", 4, dict(scale_factor=(1.7, 0.6), mode="bilinear",
                                    align_corners=False)),
    ("upsample_bicubic2d", 4, dict(size=(9, 11), mode="bicubic", align_corners=True)),
    ("upsample_trilinear3d", 5, dict(scale_factor=1.7, mode="trilinear")),
    ("_upsample_bilinear2d_aa", 4, dict(size=(3, 4), mode="bilinear", antialias=True)),
    ("_upsample_bicubic2d_aa", 4, dict(scale_factor=0.45, mode="bicubic", antialias=True)),
]
SPATIAL = {3: (7,), 4: (6, 7), 5: (4, 5, 6)}


def inputs(dims, dtype=torch.float32):
    """A contiguous input and, for 4-D / 5-D, a channels-last one."""
    gen = torch.Generator().manual_seed(dims)
    x = (torch.rand([2, 3] + list(SPATIAL[dims]), generator=gen) * 4 - 2).to(dtype)
    out = [("contiguous", x)]
    if dims in (4, 5):
        fmt = torch.channels_last if dims == 4 else torch.channels_last_3d
        out.append(("channels-last", x.contiguous(memory_format=fmt)))
    return out


def forward_and_grad(x, kw):
    """F.interpolate's output and input gradient (g = a fixed ramp), and the strides of the
    aten backward op's own result."""
    xr = x.detach().clone(memory_format=torch.preserve_format).requires_grad_()
    y = F.interpolate(xr, **kw)
    g = torch.linspace(-1, 1, y.numel(), dtype=x.dtype).reshape(y.shape)
    g = g.contiguous(memory_format=torch.preserve_format)
    y.backward(g)
    return y.detach(), xr.grad


def ours(x, kw):
    xr = x.detach().clone(memory_format=torch.preserve_format).requires_grad_()
    y = upsample.interpolate(xr, **kw)
    g = torch.linspace(-1, 1, y.numel(), dtype=x.dtype).reshape(y.shape)
    y.backward(g)
    return y.detach(), xr.grad


def aten_backward_strides(op, y, x, kw):
    """Strides of aten.<op>_backward's result for a grad_output laid out like y."""
    g = torch.rand(y.shape).to(y.dtype).contiguous(memory_format=torch.preserve_format)
    g = torch.empty_strided(y.shape, y.stride(), dtype=y.dtype).copy_(g)
    out_size = list(y.shape[2:])
    extra = [kw.get("align_corners", False)] if "nearest" not in op else []
    return getattr(A, op + "_backward")(g, out_size, list(x.shape), *extra).stride()


def registered_file(op):
    """The file that registered the CPU kernel the dispatcher runs for `op`."""
    dump = torch._C._dispatch_dump_table("aten::" + op)
    for line in dump.splitlines():
        if line.startswith("CPU:"):
            return line
    raise AssertionError("no CPU kernel for " + op)


def test_install_switches_the_kernels_and_uninstall_restores_them():
    assert not upsample.is_installed()
    stock = {}
    for op, dims, kw in CASES:
        for layout, x in inputs(dims):
            y, gx = forward_and_grad(x, kw)
            stock[(op, str(kw), layout)] = (y, gx, aten_backward_strides(op, y, x, kw))
    stock_bf16 = F.interpolate(inputs(4, torch.bfloat16)[0][1], size=(9, 4), mode="bilinear")
    half = inputs(4, torch.float16)[0][1]
    with pytest.raises(RuntimeError, match="Half"):
        F.interpolate(half, size=(9, 4), mode="bilinear")
    names = upsample._C.installed_kernel_names()
    assert len(names) == 48 and "aten::upsample_bicubic2d_backward.grad_input" in names

    upsample.install()
    try:
        assert upsample.is_installed()
        for name in names:
            assert "aten_kernels.cpp" in registered_file(name[len("aten::"):]), name
        for op, dims, kw in CASES:
            for layout, x in inputs(dims):
                what = "%s %s %s" % (op, kw, layout)
                y, gx = forward_and_grad(x, kw)
                oy, ogx = ours(x, kw)
                s_y, s_gx, s_bwd = stock[(op, str(kw), layout)]
                th.assert_bits(y, oy, what + ": installed F.interpolate vs upsample.interpolate")
                th.assert_bits(gx, ogx, what + ": gradient")
                assert y.stride() == s_y.stride(), "%s: strides %s, PyTorch's %s" % (
                    what, y.stride(), s_y.stride())
                assert aten_backward_strides(op, y, x, kw) == s_bwd, what + ": backward strides"
                th.assert_close(y, s_y, "forward", what + ": installed vs stock values")
        # The comparison discriminates: PyTorch's bfloat16 kernels round differently.
        bf16 = F.interpolate(inputs(4, torch.bfloat16)[0][1], size=(9, 4), mode="bilinear")
        assert not torch.equal(bf16, stock_bf16), "bf16: installed and stock bits are equal"
        th.assert_bits(bf16, upsample.interpolate(inputs(4, torch.bfloat16)[0][1], size=(9, 4),
                                                  mode="bilinear"), "bf16 installed")
        th.assert_bits(F.interpolate(half, size=(9, 4), mode="bilinear"),
                       upsample.interpolate(half, size=(9, 4), mode="bilinear"), "float16")
    finally:
        upsample.uninstall()

    assert not upsample.is_installed()
    for name in names:
        assert "aten_kernels.cpp" not in registered_file(name[len("aten::"):]), name
    for op, dims, kw in CASES:
        for layout, x in inputs(dims):
            y, gx = forward_and_grad(x, kw)
            s_y, s_gx, _ = stock[(op, str(kw), layout)]
            th.assert_bits(y, s_y, "%s %s %s after uninstall" % (op, kw, layout))
            th.assert_bits(gx, s_gx, "%s %s %s gradient after uninstall" % (op, kw, layout))
    th.assert_bits(F.interpolate(inputs(4, torch.bfloat16)[0][1], size=(9, 4), mode="bilinear"),
                   stock_bf16, "bf16 after uninstall")
    with pytest.raises(RuntimeError, match="Half"):
        F.interpolate(half, size=(9, 4), mode="bilinear")


def test_installed_context_manager_restores_the_previous_state():
    assert not upsample.is_installed()
    with upsample.installed():
        assert upsample.is_installed()
        with upsample.installed():
            assert upsample.is_installed()
        assert upsample.is_installed()
    assert not upsample.is_installed()
    upsample.install()
    upsample.install()  # a second call does nothing
    try:
        with upsample.installed():
            pass
        assert upsample.is_installed()
    finally:
        upsample.uninstall()
    upsample.uninstall()  # nothing to remove
    assert not upsample.is_installed()
    with pytest.raises(KeyError):
        with upsample.installed():
            raise KeyError("inside")
    assert not upsample.is_installed()


def test_install_is_silent():
    code = ("import warnings; warnings.simplefilter('error'); import upsample; "
            "upsample.install(); upsample.uninstall(); upsample.install(); "
            "print(upsample.is_installed())")
    env = dict(os.environ, PYTHONPATH=th.PACKAGE_DIR)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "True"
    assert "Overriding" not in r.stderr and "Warning" not in r.stderr, r.stderr


def test_out_overloads():
    x = inputs(4)[1][1]  # channels-last
    with upsample.installed():
        ref = upsample.interpolate(x, size=(9, 4), mode="bilinear")
        # Right shape: written through its own strides.
        out = torch.empty(2, 3, 4, 9).transpose(2, 3)
        r = A.upsample_bilinear2d.out(x, [9, 4], False, None, None, out=out)
        assert r.data_ptr() == out.data_ptr() and out.stride() == (108, 36, 1, 9)
        th.assert_bits(out, ref, "upsample_bilinear2d.out into a transposed view")
        # Empty: resized, then given the input's memory format (as PyTorch's kernel does).
        out = torch.empty(0)
        A.upsample_bilinear2d.out(x, [9, 4], False, None, None, out=out)
        assert out.is_contiguous(memory_format=torch.channels_last)
        th.assert_bits(out, ref, "upsample_bilinear2d.out resized")
        with pytest.raises(RuntimeError, match="dtype"):
            A.upsample_bilinear2d.out(x, [9, 4], False, None, None, out=torch.empty(0).double())
        with pytest.raises(RuntimeError):
            A.upsample_nearest2d.out(x, [6, 7], None, None, out=x)  # overlaps the input
        g = torch.rand(2, 3, 9, 4)
        grad_input = torch.empty(2, 3, 6, 7)
        A.upsample_bilinear2d_backward.grad_input(g, [9, 4], [2, 3, 6, 7], False, None, None,
                                                  grad_input=grad_input)
        xr = x.detach().clone().requires_grad_()
        upsample.interpolate(xr, size=(9, 4), mode="bilinear").backward(g)
        th.assert_bits(grad_input, xr.grad, "upsample_bilinear2d_backward.grad_input")


def test_installed_error_types_match_pytorch():
    bad = [
        lambda: F.interpolate(torch.rand(2, 0, 4, 4), size=2, mode="bilinear"),
        lambda: F.interpolate(torch.rand(2, 3, 0, 4), size=2, mode="nearest"),
        lambda: A.upsample_bilinear2d(torch.rand(2, 3, 4), [2, 2], False),
        lambda: A.upsample_bilinear2d(torch.rand(2, 3, 4, 4), [2, 2, 2], False),
        lambda: A.upsample_nearest2d_backward(torch.rand(2, 3, 5, 5), [4, 4], [2, 3, 2, 2]),
        lambda: F.interpolate(torch.rand(2, 3, 4, 4).int(), size=2),
    ]
    stock = []
    for call in bad:
        with pytest.raises(Exception) as e:
            call()
        stock.append(e.type)
    with upsample.installed():
        for call, expected in zip(bad, stock):
            with pytest.raises(expected):
                call()


def test_unchanged_code_runs_on_the_engine():
    import torchvision.transforms as T
    import torchvision.transforms.functional as TF
    gen = torch.Generator().manual_seed(3)
    img = (torch.rand(3, 40, 50, generator=gen) * 255).round().to(torch.uint8)
    imgf = torch.rand(2, 3, 40, 50, generator=gen)
    up = torch.nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)

    @torch.jit.script
    def scripted(t: torch.Tensor) -> torch.Tensor:
        return F.interpolate(t, size=[17, 23], mode="bicubic", align_corners=False)

    with upsample.installed():
        th.assert_bits(up(imgf), upsample.interpolate(imgf, scale_factor=2, mode="bilinear"),
                       "nn.Upsample")
        th.assert_bits(scripted(imgf), upsample.interpolate(imgf, size=(17, 23), mode="bicubic"),
                       "TorchScript F.interpolate")
        for interp, mode in ((TF.InterpolationMode.BILINEAR, "bilinear"),
                             (TF.InterpolationMode.BICUBIC, "bicubic"),
                             (TF.InterpolationMode.NEAREST, "nearest")):
            aa = mode != "nearest"
            resized = T.Resize((17, 23), interpolation=interp, antialias=aa)(img)
            ours = upsample.interpolate(img.float()[None], size=(17, 23), mode=mode,
                                        antialias=aa)[0]
            if mode == "bicubic":
                ours = ours.clamp(0, 255)
            th.assert_bits(resized, ours.round().to(torch.uint8), "torchvision Resize " + mode)
            resized = T.Resize((17, 23), interpolation=interp, antialias=aa)(imgf)
            th.assert_bits(resized, upsample.interpolate(imgf, size=(17, 23), mode=mode,
                                                         antialias=aa),
                           "torchvision Resize float " + mode)
        x = torch.rand(1, 2, 4, 5, dtype=torch.float64, requires_grad=True)
        assert torch.autograd.gradcheck(
            lambda t: F.interpolate(t, size=(7, 3), mode="bicubic", align_corners=False), (x,))
        assert torch.autograd.gradgradcheck(
            lambda t: F.interpolate(t, scale_factor=1.7, mode="bilinear"), (x,))


if __name__ == "__main__":
    warnings.filterwarnings("ignore", category=UserWarning, module="torchvision")
    sys.exit(th.run(__file__))
