#!/usr/bin/python3
"""Live-PyTorch parity of the nearest and nearest-exact entry points and of aclnnResize, driven
through the exported C API (ctypes).

Entry points: aclnnUpsampleNearest1d, Nearest2d, Nearest1dV2, Nearest2dV2, Nearest3d,
NearestExact1d/2d/3d, Nearest1d/2d/3dBackward, NearestExact1d/2d/3dBackward, Resize
("nearest" and "bilinear"); every dtype (f32, f16, bf16, f64, and uint8 for the nearest
forwards) and layout each accepts (docs/ops.md), contiguous and strided views for input and
output, aclrtMalloc and numpy memory, a stream and the NULL stream.

References (torch 1.13, scales passed straight through, None when "not given" by the op's
scale rule):
  * forward nearest / nearest-exact: BIT-EXACT. The expected result gathers the source's raw
    bits (NaN payloads, signalling NaNs, signed zeros) with the index map torch's forward
    produces on a float32 ramp (the float32 index rule the library uses for every dtype,
    docs/numerics.md). uint8 is compared with torch's uint8 result directly. For float64,
    torch's own result (index computed in double) is compared with the gather too and the
    number of differing cases is printed as a note, not failed.
  * backward: torch upsample_nearest*_backward / _upsample_nearest_exact*_backward on float32
    (f32 / f16 / bf16, up-cast) or float64 data. Skipped (and counted): nearest backward with a
    scale given where out == in or out == 2*in makes torch's nearest_idx short-cut differ from
    the float32 rule (docs/numerics.md deviation 5).
  * Resize: "nearest" = upsample_nearest2d without scales (bit-exact as above), "bilinear" =
    upsample_bilinear2d(align_corners=False) without scales; scales = an aclFloatArray of 4
    floats in the tensor's dim order, out H/W = trunc(in * scale).
Tolerances: backward f32 1e-4*max(1,|ref|), f64 1e-12*max(1,|ref|); Resize bilinear f32
1e-5*max(1,|ref|); f16 / bf16 one ulp of the dtype from the rounded float32 reference plus the
float32 rounding allowance 16*2^-24*sum|w*x|. NaN positions and +-inf values exact (axes that
keep their size at ratio 1 compared against torch with that axis copied, deviation 1).

Also: bitwise determinism of every entry point across UPSAMPLE_NUM_THREADS=1/2/3.

Default seed 20240612; how to run it, its environment variables and its output: README.md.
"""

import math
import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import parity  # noqa: E402
from harness.aclnn import (ACL_FORMAT_NCDHW, ACL_FORMAT_NCHW, ACL_FORMAT_NCL,  # noqa: E402
                           ACL_FORMAT_ND, ACL_FORMAT_NDHWC, ACL_FORMAT_NHWC)
from harness.cases import Case, Op, random_sizes, seed, view_variants  # noqa: E402
from harness.storage import (ACL_BF16, ACL_FLOAT, ACL_UINT8, FLOAT_DTYPES,  # noqa: E402
                             NEAREST_FWD_DTYPES)

NCL, ND1 = (ACL_FORMAT_NCL, False), (ACL_FORMAT_ND, False)
NCHW, NHWC, ND = (ACL_FORMAT_NCHW, False), (ACL_FORMAT_NHWC, True), (ACL_FORMAT_ND, False)
NCDHW, NDHWC = (ACL_FORMAT_NCDHW, False), (ACL_FORMAT_NDHWC, True)

FWD, BWD = NEAREST_FWD_DTYPES, FLOAT_DTYPES
OPS = [
    Op("nearest1d", "aclnnUpsampleNearest1d", "nearest", 1, False, [NCL], FWD, "none"),
    Op("nearest2d", "aclnnUpsampleNearest2d", "nearest", 2, False, [NCHW, NHWC], FWD, "none"),
    Op("nearest1d_v2", "aclnnUpsampleNearest1dV2", "nearest", 1, False, [NCL], FWD, "axis", "f"),
    Op("nearest2d_v2", "aclnnUpsampleNearest2dV2", "nearest", 2, False, [NCHW, NHWC], FWD,
       "axis", "f"),
    Op("nearest3d", "aclnnUpsampleNearest3d", "nearest", 3, False, [NCDHW, NDHWC, ND], FWD,
       "all", equal_formats=False),
    Op("nearest_exact1d", "aclnnUpsampleNearestExact1d", "exact", 1, False, [NCL, ND1], FWD,
       "axis", equal_formats=False),
    Op("nearest_exact2d", "aclnnUpsampleNearestExact2d", "exact", 2, False, [NCHW, NHWC, ND],
       FWD, "axis"),
    Op("nearest_exact3d", "aclnnUpsampleNearestExact3d", "exact", 3, False, [NCDHW, NDHWC, ND],
       FWD, "axis", equal_formats=False),
    Op("nearest1d_bw", "aclnnUpsampleNearest1dBackward", "nearest", 1, True, [NCL, ND1], BWD,
       "axis", equal_formats=False),
    Op("nearest2d_bw", "aclnnUpsampleNearest2dBackward", "nearest", 2, True, [NCHW, NHWC], BWD,
       "axis", in_order="grad", equal_formats=False),
    Op("nearest3d_bw", "aclnnUpsampleNearest3dBackward", "nearest", 3, True, [NCDHW, NDHWC, ND],
       BWD, "all", equal_formats=False),
    Op("nearest_exact1d_bw", "aclnnUpsampleNearestExact1dBackward", "exact", 1, True,
       [NCL, ND1], BWD, "axis", nonneg=True),
    Op("nearest_exact2d_bw", "aclnnUpsampleNearestExact2dBackward", "exact", 2, True,
       [NCHW, ND], BWD, "axis", nonneg=True),
    Op("nearest_exact3d_bw", "aclnnUpsampleNearestExact3dBackward", "exact", 3, True,
       [NCDHW, NDHWC], BWD, "axis", equal_formats=False),
]
RESIZE = Op("resize", "aclnnResize", "resize", 2, False, [NCHW, NHWC], FLOAT_DTYPES, "none")


def extra(op, dtype, layout, add, rng):
    r = op.rank
    zero = [0.0] * r
    # torch's nearest_idx short-cut sizes without a scale (the short-cut equals the rule there)
    ins = [int(v) for v in rng.integers(2, 9, r)]
    add(1, 3, ins, [2 * v for v in ins], False, zero, "double-no-scale")
    if op.scale_rule != "none":
        # float ratios exactly at index boundaries: 1/3, 3 (floor(dst * 0.33333334))
        ins = [int(v) for v in rng.integers(3, 12, r)]
        add(1, 2, ins, [3 * v for v in ins], False, [3.0] * r, "scaled-x3")
        ins = [3 * int(v) for v in rng.integers(2, 7, r)]
        add(1, 2, ins, [v // 3 for v in ins], False, [1.0 / 3.0] * r, "scaled-third")
        # scale 1 and scale 2 given explicitly
        ins = [int(v) for v in rng.integers(2, 9, r)]
        add(1, 2, ins, ins, False, [1.0] * r, "scaled-1")
        add(1, 2, ins, [2 * v for v in ins], False, [2.0] * r, "scaled-2")
    # sizes where an index computed in double (torch's float64 forward) differs from the float32
    # rule the library uses for every dtype
    pairs = [(26, 22), (39, 33), (14, 46)] if op.kind == "nearest" else [(14, 23), (6, 37),
                                                                          (2, 41)]
    add(1, 2, [p[0] for p in pairs[:r]], [p[1] for p in pairs[:r]], False, zero,
        "double-index-differs")
    if op.key == "nearest3d_bw" and layout == NCDHW:
        # "any" format: a 5-D tensor tagged NCHW is read as NCDHW
        n, c, ins, outs = random_sizes(rng, 3)
        add(n, c, ins, outs, False, zero, "format-NCHW-as-NCDHW",
            src_layout=(ACL_FORMAT_NCHW, False), out_layout=(ACL_FORMAT_NCHW, False))
    if dtype == ACL_UINT8 and r == 1:
        # long rows: every uint8 value, SIMD bodies
        add(2, 3, [256], [777], False, zero, "u8-long", pattern="rampW")


def resize_cases(rng):
    cases = []
    op = RESIZE
    choices = [1.0, 2.0, 0.5, 1.5, 0.75, 3.0, 0.3, 1.3, 11.0 / 26.0, 26.0 / 11.0, 0.05, 4.0]
    for dtype in op.dtypes:
        for layout in op.layouts:
            cl = layout[1]
            for mode in ("nearest", "bilinear"):
                k = [0]

                def add(n, c, ins, sc, label, **kw):
                    sc = [float(np.float32(s)) for s in sc]
                    outs = [int(math.trunc(i * s)) for i, s in zip(ins, sc)]
                    if min(outs) < 1:
                        return
                    arr = [1.0, sc[0], sc[1], 1.0] if cl else [1.0, 1.0, sc[0], sc[1]]
                    kw.setdefault("device", k[0] % 2 == 0)
                    kw.setdefault("null_stream", k[0] % 5 == 3)
                    kw.setdefault("ws_host", k[0] % 7 == 4)
                    k[0] += 1
                    cases.append(Case(op, dtype, layout, n, c, ins, outs, False, arr, label,
                                      mode=mode, **kw))

                for i in range(8):
                    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 4))
                    ins = [int(v) for v in rng.integers(1, 30, 2)]
                    sc = [choices[int(j)] for j in rng.integers(0, len(choices), 2)]
                    add(n, c, ins, sc, "random")
                add(2, 3, [26, 26], [11.0 / 26.0, 26.0 / 11.0], "odd-ratio")
                add(1, 2, [13, 9], [1.0, 1.0], "same-size")
                add(1, 2, [13, 9], [1.0, 2.0], "one-axis-same")
                add(1, 2, [1, 1], [1.0, 1.0], "1x1")
                add(1, 2, [1, 1], [7.0, 5.0], "in=1")
                add(1, 2, [7, 9], [0.2, 0.12], "out=1")
                add(2, 7, [100, 60], [0.05, 1.0 / 3.0], "down")
                add(2, 9, [41, 57], [1.7, 0.8], "large")
                for p in ("zeros", "ones", "rampW", "rampH"):
                    add(1, 2, [int(v) for v in rng.integers(2, 20, 2)],
                        [choices[int(j)] for j in rng.integers(0, len(choices), 2)], "pattern",
                        pattern=p)
                for i in range(3):
                    ins = [int(v) for v in rng.integers(2, 20, 2)]
                    add(2, 3, ins, [1.5, 0.75], "strided",
                        in_view=view_variants(rng, 4, cl) if i != 1 else None,
                        out_view=view_variants(rng, 4, cl) if i != 0 else None)
                for i in range(3):
                    ins = [int(v) for v in rng.integers(2, 20, 2)]
                    sc = [[2.0, 1.5], [1.0, 0.6], [1.0, 1.0]][i]
                    add(2, 3, ins, sc, "nonfinite", nonfinite=True)
    return cases


def determinism_cases():
    rng = np.random.default_rng(seed(20240612) + 7)
    out = []
    spec = {
        1: ([2, 24, [300]], [[1000], [77]]),
        2: ([2, 6, [37, 53]], [[100, 71], [15, 20]]),
        3: ([2, 3, [9, 11, 13]], [[20, 7, 26], [9, 22, 5]]),
    }
    for op in OPS:
        n, c, ins = spec[op.rank][0]
        dtypes = op.dtypes if op.backward else [ACL_FLOAT, ACL_BF16, ACL_UINT8]
        for outs in spec[op.rank][1]:
            for dtype in dtypes:
                for layout in op.layouts[:2]:
                    sc = [0.0] * op.rank
                    if op.scale_rule != "none":
                        sc = [o / i * 1.01 for i, o in zip(ins, outs)]  # scale-driven ratio
                    out.append(Case(op, dtype, layout, n, c, ins, outs, False, sc,
                                    "determinism"))
    for dtype in FLOAT_DTYPES:
        for mode in ("nearest", "bilinear"):
            out.append(Case(RESIZE, dtype, NCHW, 2, 6, [37, 53], [74, 26], False,
                            [1.0, 1.0, 2.0, 0.5], "determinism", mode=mode))
    return out, rng


if __name__ == "__main__":
    sys.exit(parity.run_main("test_parity_nearest", 20240612, OPS, extra, determinism_cases,
                         resize_cases))
