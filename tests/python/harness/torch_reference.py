"""The torch 1.13 references of the parity suites: the aten ops (`aten`), torch's result with
the library's identity-copied axes folded away (`torch_ref(fold=...)`), the float32 nearest
index map that the library and torch's forward share (`nearest_index_map`), and per-axis weight
matrices read off torch (`axis_matrix`, `abs_weight_apply`: the float16 / bfloat16 allowance
sum|w*x|, also where weights are negative).

torch runs with ATEN_CPU_CAPABILITY=default, one thread: PyTorch's AVX2/AVX512 kernel builds let
the compiler fuse `a*b + c` into FMAs (in the double source coordinate and in the float
interpolation), so their last bits depend on the build; the library evaluates the formulas
literally, and ATen's plain C++ "default" kernels evaluate the same formulas without contraction.
"""

import functools
import os

import numpy as np

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
