#!/usr/bin/python3
"""Live-PyTorch parity of the aclnn linear family, driven through the exported C API (ctypes).

Entry points: aclnnUpsampleLinear1d, Linear1dBackward, Bilinear2d, Bilinear2dBackward,
Bilinear2dBackwardV2, Trilinear3d, Trilinear3dBackward; dtypes f32, f16, bf16, f64; every
layout each one accepts; contiguous and strided views for input and output; aclrtMalloc and
plain numpy memory; a stream and the NULL stream.

Reference: torch.ops.aten.upsample_{linear1d,bilinear2d,trilinear3d}[_backward] on the
float32 up-cast data (f32/f16/bf16) or on the float64 data (f64), scales passed straight
through (None when "not given"), following the library's scale rules:
  * a scale <= 0 means "not given";
  * Trilinear3d(+Backward): the scales are used only if all three are > 0;
  * Bilinear2dBackward (V1) ignores its scales; Bilinear2dBackwardV2 honours them.

Tolerances: f32 forward 1e-5*max(1,|ref|), f32 backward 1e-4*max(1,|ref|), f64 1e-12*max(1,|ref|),
f16 / bf16 within one ulp of the float32 reference rounded to that dtype, plus the float32
rounding allowance 16*2^-24*sum|w*x|. NaN positions and +-inf values must match the reference
exactly (axes that keep their size compared against torch with that axis copied, see README.md).

Also: bitwise determinism of every entry point across UPSAMPLE_NUM_THREADS=1/2/3 (subprocesses).

The machinery (sources, tensors over any view, the call, references, comparisons, determinism) is
the harness package's (tests/python/harness/); this script lists the operators, the linear
suite's cases and its determinism problems.

Default seed 20240611; how to run it, its environment variables and its output: README.md.
"""

import os
import sys

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import cases, parity  # noqa: E402
from harness.aclnn import (ACL_FORMAT_NCDHW, ACL_FORMAT_NCHW, ACL_FORMAT_NCL,  # noqa: E402
                           ACL_FORMAT_ND, ACL_FORMAT_NDHWC, ACL_FORMAT_NHWC)
from harness.cases import Case, random_sizes  # noqa: E402
from harness.storage import FLOAT_DTYPES  # noqa: E402

SEED = 20240611
NCL, ND = (ACL_FORMAT_NCL, False), (ACL_FORMAT_ND, False)
NCHW, NHWC = (ACL_FORMAT_NCHW, False), (ACL_FORMAT_NHWC, True)
NCDHW, NDHWC = (ACL_FORMAT_NCDHW, False), (ACL_FORMAT_NDHWC, True)


def linear_op(key, api, rank, backward, layouts, scale_rule, **kw):
    # Non-finite sources: +inf, -inf and NaN, up to six of each; the error summary (the table
    # of docs/numerics.md) counts the finite cases only.
    return cases.Op(key, api, "linear", rank, backward, layouts, FLOAT_DTYPES, scale_rule,
                 nonfinite_fill="inf-nan", summary_nonfinite=False, **kw)


OPS = [
    linear_op("linear1d", "aclnnUpsampleLinear1d", 1, False, [NCL, ND], "axis"),
    linear_op("linear1d_bw", "aclnnUpsampleLinear1dBackward", 1, True, [NCL, ND], "axis"),
    # Bilinear2d rejects negative scales (CANN's check, docs/ops.md)
    linear_op("bilinear2d", "aclnnUpsampleBilinear2d", 2, False, [NCHW, NHWC], "axis",
              nonneg=True),
    # inputSize in gradOut's format order
    linear_op("bilinear2d_bw", "aclnnUpsampleBilinear2dBackward", 2, True, [NCHW, NHWC],
              "ignore", in_order="grad"),
    linear_op("bilinear2d_bw_v2", "aclnnUpsampleBilinear2dBackwardV2", 2, True, [NCHW, NHWC],
              "axis", in_order="grad"),
    linear_op("trilinear3d", "aclnnUpsampleTrilinear3d", 3, False, [NCDHW, ND, NDHWC], "all"),
    linear_op("trilinear3d_bw", "aclnnUpsampleTrilinear3dBackward", 3, True, [NCDHW, ND, NDHWC],
              "all"),
]
# Sizes of the "large" cases (cases.large_case), larger than the other suites'.
LARGE_SIZES = {"c_hi": 19, 1: ((200, 1200), (100, 2400)), 2: ((30, 90), (20, 140)),
               3: ((6, 18), (4, 26))}
# The entry points that accept scales which disagree with floor(in * s).
SCALE_NOT_FLOOR = ("bilinear2d", "bilinear2d_bw_v2", "bilinear2d_bw")


def linear_cases(op, dtype, li, layout, add, rng):
    """The cases of one (op, dtype, layout)."""
    r = op.rank
    zero = [0.0] * r
    # random sizes, size-driven (scales 0, or -1 meaning "not given": CANN's Linear1d idiom,
    # where negative scales are accepted)
    for i in range(8):
        n, c, ins, outs = random_sizes(rng, r)
        unset = zero if i % 2 == 0 or op.nonneg else [-1.0] * r
        add(n, c, ins, outs, bool(i % 2), unset, "random")
    for align in (False, True):
        n, c, ins, outs = random_sizes(rng, r)
        add(n, c, ins, outs, align, zero, "random-wide", pattern="wide")
    cases.special_size_cases(add, rng, r, (False, True))
    cases.integer_ratio_cases(add, rng, r)
    for align in (False, True):
        cases.large_case(add, rng, r, LARGE_SIZES, align)
    cases.pattern_cases(add, rng, r, both_aligns=True)
    cases.scale_cases(add, rng, r, double=False, not_floor=op.key in SCALE_NOT_FLOOR)
    cases.strided_cases(add, rng, r, layout[1], True)
    cases.nonfinite_cases(add, rng, r, 4)
    # align_corners with exactly integral source coordinates: zero-weight taps
    ins = [int(v) for v in rng.integers(2, 7, r)]
    add(1, 2, ins, [2 * v - 1 for v in ins], True, zero, "nonfinite-align-2x-1", nonfinite=True)


def determinism_cases():
    """Fixed problems big enough to be split across threads."""
    rng = np.random.default_rng(cases.seed(SEED) + 7)
    out = []
    spec = {
        1: ([2, 24, [300]], [[1000], [77], [301]]),
        2: ([2, 6, [37, 53]], [[100, 71], [15, 20], [37, 106]]),
        3: ([2, 3, [9, 11, 13]], [[20, 7, 26], [9, 22, 5]]),
    }
    for op in OPS:
        n, c, ins = spec[op.rank][0]
        for outs in spec[op.rank][1]:
            for dtype in FLOAT_DTYPES:
                for layout in op.layouts[::2] if op.rank == 3 else op.layouts:
                    for align in (False, True):
                        out.append(Case(op, dtype, layout, n, c, ins, outs, align,
                                        [0.0] * op.rank, "determinism"))
    return out, rng


if __name__ == "__main__":
    sys.exit(parity.run_main("test_parity_linear", SEED, OPS, None, determinism_cases,
                         body=linear_cases))
