"""upsample: PyTorch's ``F.interpolate`` on a faster, deterministic CPU engine.

``upsample.interpolate`` takes the arguments of ``torch.nn.functional.interpolate`` and follows
its rules (output size, scales, ``align_corners``, ``recompute_scale_factor``, ``antialias``,
the exception raised for each bad call) for every mode: ``nearest``, ``nearest-exact``,
``linear``, ``bilinear``, ``bicubic``, ``trilinear``, ``area``. It accepts CPU tensors of
float32, float64, float16 and bfloat16 (uint8 too, forward only) in any strides, and NumPy
arrays. Gradients flow through ``torch.autograd``; every backward is bitwise reproducible for
any thread count.

``upsample.install()`` makes the engine the CPU implementation of PyTorch's own upsample
operators, through PyTorch's dispatcher, so unchanged code (``F.interpolate``,
``nn.Upsample``, torchvision's ``Resize`` on tensors) runs on it; ``upsample.uninstall()``
gives PyTorch's kernels back, and ``with upsample.installed():`` does both.

TorchScript and ``torch.jit.trace`` see the operators ``torch.ops.upsample.resample`` and
``torch.ops.upsample.resample_backward`` (docs/python.md).
"""

import contextlib
import math

import numpy as np
import torch

from . import _C
from ._version import __version__

__all__ = [
    "interpolate",
    "install",
    "uninstall",
    "installed",
    "is_installed",
    "set_num_threads",
    "get_num_threads",
    "__version__",
]

# Modes without align_corners, and the input rank each other mode requires.
_NEAREST_LIKE = ("nearest", "nearest-exact", "area")
_INPUT_DIMS = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


def _resolve(shape, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias):
    """F.interpolate's argument rules, in F.interpolate's order, for an input of `shape`.

    Returns (output_size or None, scale_factors or None, align_corners): the output's spatial
    sizes and the scales that reach the kernel, as F.interpolate passes them to its aten op.
    Element types are checked later, by upsample._C (TypeError, as PyTorch's argument parser).
    """
    if mode in _NEAREST_LIKE:
        if align_corners is not None:
            raise ValueError(
                "upsample.interpolate: align_corners can only be set with the interpolating "
                "modes linear, bilinear, bicubic and trilinear, not with mode=%r" % (mode,))
    elif align_corners is None:
        align_corners = False

    ndim = len(shape)
    dim = ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError("upsample.interpolate: only one of size or scale_factor may be given")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "upsample.interpolate: size must have one element per spatial dim of the "
                    "input (sizes %s): got size=%r" % (list(shape[2:]), size))
            output_size = list(size)
        else:
            output_size = [size] * dim
        scales = None
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "upsample.interpolate: scale_factor must have one element per spatial dim "
                    "of the input (sizes %s): got scale_factor=%r" % (list(shape[2:]),
                                                                      scale_factor))
            scales = list(scale_factor)
        else:
            scales = [scale_factor] * dim
        output_size = None
    else:
        raise ValueError("upsample.interpolate: either size or scale_factor must be given")

    if recompute_scale_factor and size is not None:
        raise ValueError("upsample.interpolate: recompute_scale_factor=True is not meaningful "
                         "with an explicit size")
    # area mode (adaptive average pooling) always works from an output size.
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [math.floor(float(shape[i + 2]) * scales[i]) for i in range(dim)]
        scales = None

    if antialias and not (mode in ("bilinear", "bicubic") and ndim == 4):
        raise ValueError("upsample.interpolate: antialias=True is only supported for the "
                         "bilinear and bicubic modes on 4-D inputs, got mode=%r on a %d-D input"
                         % (mode, ndim))

    if mode in _NEAREST_LIKE:
        fits = 3 <= ndim <= 5
    else:
        fits = _INPUT_DIMS.get(mode) == ndim if isinstance(mode, str) else False
    if not fits:
        if isinstance(mode, str) and mode in _INPUT_DIMS and 3 <= ndim <= 5:
            raise NotImplementedError(
                "upsample.interpolate: got a %dD input, but %s mode needs a %dD input"
                % (ndim, mode, _INPUT_DIMS[mode]))
        raise NotImplementedError(
            "upsample.interpolate: only 3D, 4D and 5D inputs are supported, for the modes "
            "nearest, nearest-exact, linear (3D), bilinear (4D), bicubic (4D), trilinear (5D) "
            "and area; got a %dD input and mode=%r" % (ndim, mode))

    # Adaptive pooling keeps the input's size where a 2-D / 3-D size element is None.
    if mode == "area" and ndim >= 4 and output_size is not None:
        output_size = [shape[i + 2] if s is None else s for i, s in enumerate(output_size)]
    return output_size, scales, align_corners


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Down/up-samples `input` exactly as ``torch.nn.functional.interpolate`` does.

    Args:
        input: a CPU ``torch.Tensor`` [N, C, W], [N, C, H, W] or [N, C, D, H, W] of float32,
            float64, float16 or bfloat16 (uint8 in the forward direction), in any strides; or
            a ``numpy.ndarray`` of float16, float32, float64, uint8 or uint16 (any strides,
            negative ones included).
        size (int or sequence of ints): the output's spatial size.
        scale_factor (float or sequence of floats): multiplier of the spatial size; the output
            size is ``floor(in * scale_factor)``, and unless `recompute_scale_factor` is true
            the kernel uses ``1 / scale_factor`` as the coordinate ratio, as PyTorch does.
        mode (str): ``'nearest'`` | ``'nearest-exact'`` | ``'linear'`` | ``'bilinear'`` |
            ``'bicubic'`` | ``'trilinear'`` | ``'area'``. Default: ``'nearest'``.
        align_corners (bool, optional): linear and cubic modes only; ``None`` means False.
        recompute_scale_factor (bool, optional): compute the output size from
            `scale_factor`, then forget the scale (the ratio comes from the sizes).
        antialias (bool): antialiasing filter (bilinear and bicubic on 4-D inputs); it
            matters when downsampling.

    Returns:
        A new tensor [N, C, out...] of the input's dtype, in the input's memory format
        (channels-last inputs give channels-last outputs), or a NumPy array (C-contiguous, or
        channels-last when the input's channel dim has the smallest stride).

    ``mode='nearest'`` follows PyTorch 1.13's index rule with its short-cuts: an axis whose
    output size is its input size (or twice it) copies (or repeats each input twice) even when
    `scale_factor` maps otherwise, in the backward always and in the forward for channels-last
    contiguous inputs (C = 1 contiguous ones included), as PyTorch's kernels do.

    Tensors are read in place through their strides (no copy, whatever the layout). The
    result requires grad when `input` does (and grad mode is on); its backward runs the
    engine's backward kernels, bitwise identical for any thread count. NumPy arrays have no
    autograd.

    Exceptions are those ``F.interpolate`` raises for the same call: ValueError for
    conflicting or missing arguments, NotImplementedError for a mode that does not fit the
    input's rank, TypeError for elements of `size` / `scale_factor` of the wrong type,
    RuntimeError for sizes that are not > 0 and for unsupported dtypes (float16, uint8 with
    every mode, and bfloat16 with every mode are supported here even where PyTorch 1.13's CPU
    kernels refuse them). An input that is neither a tensor nor an array raises TypeError.
    """
    if isinstance(input, torch.Tensor):
        output_size, scales, align = _resolve(input.shape, size, scale_factor, mode,
                                              align_corners, recompute_scale_factor, antialias)
        return _C.resample(input, output_size, scales, mode, align, bool(antialias))
    if isinstance(input, np.ndarray):
        output_size, scales, align = _resolve(input.shape, size, scale_factor, mode,
                                              align_corners, recompute_scale_factor, antialias)
        if not input.dtype.isnative:
            input = input.astype(input.dtype.newbyteorder("="))
        if any(s % input.itemsize for s in input.strides):
            input = np.ascontiguousarray(input)
        return _C.resample_numpy(input, output_size, scales, mode, align, bool(antialias))
    raise TypeError("upsample.interpolate: input must be a torch.Tensor or a numpy.ndarray, got "
                    + type(input).__name__)


def install():
    """Makes upsample's engine the CPU kernel of PyTorch's aten upsample operators.

    Registers, through PyTorch's dispatcher (a ``torch::Library`` of kind IMPL for the aten
    namespace and the CPU dispatch key), kernels for ``upsample_nearest{1,2,3}d``,
    ``_upsample_nearest_exact{1,2,3}d``, ``upsample_linear1d``, ``upsample_bilinear2d``,
    ``upsample_bicubic2d``, ``upsample_trilinear3d``, ``_upsample_bilinear2d_aa``,
    ``_upsample_bicubic2d_aa``, their ``.out`` overloads, their ``_backward`` ops and the
    ``_backward.grad_input`` overloads. From then on every caller of these operators on CPU
    tensors runs the engine: ``F.interpolate`` (its ``.vec`` overloads decompose into these
    ops), ``nn.Upsample``, torchvision's tensor ``Resize``, autograd's backward formulas and
    TorchScript. Output memory formats follow each PyTorch kernel's rule. ``mode='area'``
    (adaptive average pooling) is not an upsample operator and stays PyTorch's.

    Calling it again does nothing. Install before starting threads that resample.
    """
    _C.install()


def uninstall():
    """Removes the kernels of :func:`install`: PyTorch's own kernels run again."""
    _C.uninstall()


def is_installed():
    """Whether the engine's kernels are installed as the CPU kernels of PyTorch's aten upsample
    operators (see :func:`install`)."""
    return _C.is_installed()


@contextlib.contextmanager
def installed():
    """Context manager: the engine's kernels are installed inside the block; on exit the
    previous state is restored (uninstalled unless they were installed before)."""
    was_installed = _C.is_installed()
    _C.install()
    try:
        yield
    finally:
        if not was_installed:
            _C.uninstall()


def set_num_threads(n):
    """Sets the number of threads the engine uses (n > 0); ``n = 0`` restores the default,
    ``torch.get_num_threads()`` read at each call (so ``torch.set_num_threads`` applies).

    In a child process created by ``fork()`` (DataLoader workers, for example) the parent's
    setting is dropped and the engine runs single-threaded unless set_num_threads(n > 0) is
    called in the child: GNU OpenMP cannot run parallel regions in a forked child of a process
    that used them.
    """
    _C.set_num_threads(n)


def get_num_threads():
    """The number of threads the next call will use."""
    return _C.get_num_threads()
