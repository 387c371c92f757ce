#!/usr/bin/python3
"""Live-PyTorch parity of the bicubic and antialias entry points, driven through the exported
C API (ctypes).

Entry points: aclnnUpsampleBicubic2d, Bicubic2dBackward, Bilinear2dAA, Bilinear2dAABackward,
Bicubic2dAA, Bicubic2dAAGrad; dtypes f32, f16, bf16, f64; every layout each accepts
(docs/ops.md: NCHW / ND / NHWC for bicubic, NCHW / ND for antialias, mixed input / output
formats where they need not be equal), contiguous and strided views for input and output,
aclrtMalloc and numpy memory, a stream and the NULL stream, align_corners both ways.

Reference: torch 1.13 upsample_bicubic2d(_backward), _upsample_bilinear2d_aa(_backward),
_upsample_bicubic2d_aa(_backward) on float32 (f32 / f16 / bf16, up-cast) or float64 data,
scales passed straight through (None when <= 0). Skipped and counted: bicubic backward where no
spatial size changes, which torch implements as a copy of grad_out whatever the scales (not the
transpose of its forward). torch's antialias with out == in and a scale given resamples with
1/scale, as the library does; only out == in at ratio 1 is a copy.

Tolerances: f32 forward 1e-5*max(1,|ref|), backward 1e-4*max(1,|ref|), f64 1e-12*max(1,|ref|),
f16 / bf16 one ulp of the dtype from the rounded float32 reference plus the float32 rounding
allowance 16*2^-24*sum|w*x| (|w| from torch's per-axis weights, the cubic weights being partly
negative). NaN positions and +-inf values exact; on axes that keep their size at ratio 1 the
antialias ops are compared against torch with that axis copied (docs/numerics.md deviation 1).

Also: bitwise determinism of every entry point across UPSAMPLE_NUM_THREADS=1/2/3.

Default seed 20240613; how to run it, its environment variables and its output: README.md.
"""

import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import parity  # noqa: E402
from harness.aclnn import ACL_FORMAT_NCHW, ACL_FORMAT_ND, ACL_FORMAT_NHWC  # noqa: E402
from harness.cases import Case, Op, seed, view_variants  # noqa: E402
from harness.storage import FLOAT_DTYPES  # noqa: E402

NCHW, NHWC, ND = (ACL_FORMAT_NCHW, False), (ACL_FORMAT_NHWC, True), (ACL_FORMAT_ND, False)

OPS = [
    Op("bicubic2d", "aclnnUpsampleBicubic2d", "cubic", 2, False, [NCHW, ND, NHWC],
       FLOAT_DTYPES, "axis"),
    Op("bicubic2d_bw", "aclnnUpsampleBicubic2dBackward", "cubic", 2, True, [NCHW, ND, NHWC],
       FLOAT_DTYPES, "axis", in_order="out", equal_formats=False),
    Op("bilinear2d_aa", "aclnnUpsampleBilinear2dAA", "aa_linear", 2, False, [NCHW, ND],
       FLOAT_DTYPES, "axis", nonneg=True),
    Op("bilinear2d_aa_bw", "aclnnUpsampleBilinear2dAABackward", "aa_linear", 2, True,
       [NCHW, ND], FLOAT_DTYPES, "axis", nonneg=True),
    Op("bicubic2d_aa", "aclnnUpsampleBicubic2dAA", "aa_cubic", 2, False, [NCHW, ND],
       FLOAT_DTYPES, "axis", equal_formats=False),
    Op("bicubic2d_aa_grad", "aclnnUpsampleBicubic2dAAGrad", "aa_cubic", 2, True, [NCHW, ND],
       FLOAT_DTYPES, "axis", nonneg=True),
]


def extra(op, dtype, layout, add, rng):
    zero = [0.0, 0.0]
    cl = layout[1]
    for align in (False, True):
        # strong downscales (antialias: down to 1/20) and upscales
        add(1, 2, [100, 60], [5, 3], align, zero, "down-1/20")
        add(2, 3, [100, 7], [5, 19], align, zero, "down-1/20-up")
        add(1, 3, [5, 3], [17, 50], align, zero, "up")
        add(1, 2, [41, 23], [9, 23], align, zero, "down-one-axis-same")
    # scale-driven strong ratios
    add(1, 2, [100, 80], [5, 4], False, [0.05, 0.05], "scaled-1/20")
    add(1, 2, [6, 4], [21, 14], False, [3.5, 3.5], "scaled-up-3.5")
    add(2, 2, [37, 29], [11, 29], False, [0.3, 1.0], "scaled-one-axis-1")
    # a scale on a same-size axis with align_corners (the scale is ignored: ratio 1)
    add(1, 2, [9, 7], [9, 12], True, [1.3, 1.7], "align-same-with-scale")
    # non-finite with a strong downscale (wide antialias windows)
    add(1, 2, [60, 40], [3, 2], False, zero, "nonfinite-down", nonfinite=True)
    add(1, 2, [20, 30], [20, 6], True, zero, "nonfinite-down-one-axis-same", nonfinite=True)
    # strided views on a big downscale
    add(1, 3, [64, 48], [7, 5], False, zero, "strided-down",
        in_view=view_variants(rng, 4, cl), out_view=view_variants(rng, 4, cl))


def determinism_cases():
    rng = np.random.default_rng(seed(20240613) + 7)
    out = []
    n, c, ins = 2, 6, [37, 53]
    for op in OPS:
        for j, outs in enumerate([[100, 71], [15, 20], [37, 106]]):
            for dtype in FLOAT_DTYPES:
                for layout in op.layouts[:2]:
                    sc = [0.0, 0.0] if j != 1 else [o / i * 1.02 for i, o in zip(ins, outs)]
                    out.append(Case(op, dtype, layout, n, c, ins, outs, j == 2, sc,
                                    "determinism"))
    return out, rng


if __name__ == "__main__":
    sys.exit(parity.run_main("test_parity_cubic_aa", 20240613, OPS, extra, determinism_cases))
