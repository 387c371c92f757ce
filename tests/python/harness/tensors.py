"""Tensors over raw storage: an aclTensor whose view holds given raw values while every storage
element outside the view holds the dtype's sentinel (stray writes and reads show up), and the
dims of a logical [N, C, spatial...] shape in a format's order."""

import numpy as np

from .aclnn import TensorBuf
from .storage import SENTINEL_BITS, raw_from_bits


def fmt_dims(shape, cl):
    """A logical shape's dims in the format's order: N, spatial..., C when channels-last."""
    shape = list(shape)
    return [shape[0]] + shape[2:] + [shape[1]] if cl else shape


def to_format(logical, cl):
    return np.moveaxis(logical, 1, -1) if cl else logical


def from_format(arr, cl):
    return np.moveaxis(arr, -1, 1) if cl else arr


def make_tensor(raw, dtype, fmt, step=None, order=None, pad=0, device=False):
    """An aclTensor whose view (shape = raw.shape, in the format's dim order) holds the raw
    values; the rest of the storage holds the dtype's sentinel. step / order / pad: see
    TensorBuf.from_raw."""
    sentinel = raw_from_bits(SENTINEL_BITS.get(dtype, 0), dtype)
    return TensorBuf.from_raw(raw, dtype, fmt, sentinel, step=step, order=order, pad=pad,
                              device=device)


def make_output(shape, dtype, fmt, step=None, order=None, pad=0, device=False):
    """An output tensor: view and storage all sentinel."""
    raw = raw_from_bits(np.full(shape, SENTINEL_BITS.get(dtype, 0)), dtype)
    return make_tensor(raw, dtype, fmt, step=step, order=order, pad=pad, device=device)
