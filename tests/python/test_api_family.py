#!/usr/bin/python3
"""API contract of the nearest, nearest-exact, bicubic, antialias and Resize entry points through
the exported C API (ctypes): null arguments, the validation rules of docs/ops.md, empty batches,
workspaces, executor reuse, error messages.

Entry points (21): aclnnUpsampleNearest1d, Nearest2d, Nearest1dV2, Nearest2dV2, Nearest3d,
NearestExact1d/2d/3d, Nearest1d/2d/3dBackward, NearestExact1d/2d/3dBackward, Bilinear2dAA,
Bilinear2dAABackward, Bicubic2d, Bicubic2dBackward, Bicubic2dAA, Bicubic2dAAGrad, Resize.

The calls, the shared checks (NULL arguments, N = 0, workspaces, executor reuse, the error
message) and the suite's body are the harness package's (harness/api.py); this script lists the
entry points and their valid calls and validation rules.

Run:  UPSAMPLE_LIB=build/libupsample.so /usr/bin/python3 tests/python/test_api_family.py
Env:  UPSAMPLE_TEST_VERBOSE=1 prints every check with the library's error text.
Last line: "N passed, N failed"; exit status 1 if any check failed.
"""

import os
import sys

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import api as ac  # noqa: E402
from harness.aclnn import (ACL_FORMAT_NC1HWC0, ACL_FORMAT_NCDHW, ACL_FORMAT_NCHW,  # noqa: E402
                           ACL_FORMAT_NCL, ACL_FORMAT_ND, ACL_FORMAT_NDHWC, ACL_FORMAT_NHWC,
                           FORMAT_NAMES, CString, FloatArray)
from harness.api import (NCDHW, NCHW, NCL, ND, NDHWC, NHWC, RESIZE_SCALES,  # noqa: E402
                         Api, Call, both, report, run_executor)
from harness.storage import (ACL_BF16, ACL_DOUBLE, ACL_FLOAT, ACL_FLOAT16, ACL_INT8,  # noqa: E402
                             ACL_INT32, ACL_UINT8, DTYPE_NAMES)

FLOATS = [ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE]
FWD_NEAREST = FLOATS + [ACL_UINT8]

S1 = ["scales"]
S2 = ["scalesH", "scalesW"]
S3 = ["scalesD", "scalesH", "scalesW"]


# The parameter names of the four signature shapes: forward / backward, with or without
# alignCorners (src, the scale names, dst).
def fwd(src, sc, dst="out"):
    return [src, "outputSize"] + sc + [dst]


def bwd(src, sc, dst):
    return [src, "outputSize", "inputSize"] + sc + [dst]


def fwd_ac(src, sc, dst="out"):
    return [src, "outputSize", "alignCorners"] + sc + [dst]


def bwd_ac(src, sc, dst):
    return [src, "outputSize", "inputSize", "alignCorners"] + sc + [dst]


APIS = [
    Api("aclnnUpsampleNearest1d", fwd("self", []), 1, False, [NCL], True, FWD_NEAREST, "none"),
    Api("aclnnUpsampleNearest2d", fwd("self", []), 2, False, [NCHW, NHWC], True, FWD_NEAREST,
        "none"),
    Api("aclnnUpsampleNearest1dV2", fwd("self", ["scaleL"]), 1, False, [NCL], True, FWD_NEAREST,
        "axis"),
    Api("aclnnUpsampleNearest2dV2", fwd("self", S2), 2, False, [NCHW, NHWC], True, FWD_NEAREST,
        "axis"),
    Api("aclnnUpsampleNearest3d", fwd("self", S3), 3, False, [NCDHW, NDHWC, ND], False,
        FWD_NEAREST, "all"),
    Api("aclnnUpsampleNearestExact1d", fwd("self", S1), 1, False, [NCL, ND], False, FWD_NEAREST,
        "axis", n_positive=True),
    Api("aclnnUpsampleNearestExact2d", fwd("self", S2), 2, False, [NCHW, NHWC, ND], True,
        FWD_NEAREST, "axis"),
    Api("aclnnUpsampleNearestExact3d", fwd("self", S3), 3, False, [NCDHW, NDHWC, ND], False,
        FWD_NEAREST, "axis"),
    Api("aclnnUpsampleNearest1dBackward", bwd("gradOut", S1, "out"), 1, True, [NCL, ND], False,
        FLOATS, "axis"),
    Api("aclnnUpsampleNearest2dBackward", bwd("gradOut", S2, "gradInput"), 2, True,
        [NCHW, NHWC], False, FLOATS, "axis", in_order="grad"),
    Api("aclnnUpsampleNearest3dBackward", bwd("gradOut", S3, "gradInput"), 3, True, None, False,
        FLOATS, "all"),
    Api("aclnnUpsampleNearestExact1dBackward", bwd("gradOutput", S1, "out"), 1, True, [NCL, ND],
        True, FLOATS, "axis", nonneg=True, n_positive=True),
    Api("aclnnUpsampleNearestExact2dBackward", bwd("gradOutput", S2, "out"), 2, True, [NCHW, ND],
        True, FLOATS, "axis", nonneg=True),
    Api("aclnnUpsampleNearestExact3dBackward", bwd("gradOut", S3, "gradInput"), 3, True,
        [NCDHW, NDHWC], False, FLOATS, "axis"),
    Api("aclnnUpsampleBilinear2dAA", fwd_ac("input", S2), 2, False, [NCHW, ND], True, FLOATS,
        "axis", nonneg=True, n_positive=True),
    # An empty batch is accepted (workspace 0), as by every backward entry point but the cubic one.
    Api("aclnnUpsampleBilinear2dAABackward", bwd_ac("gradOutput", S2, "out"), 2, True, [NCHW, ND],
        True, FLOATS, "axis", nonneg=True),
    Api("aclnnUpsampleBicubic2d", fwd_ac("self", S2), 2, False, [NCHW, ND, NHWC], True, FLOATS,
        "axis"),
    Api("aclnnUpsampleBicubic2dBackward", bwd_ac("gradOut", S2, "gradInput"), 2, True,
        [NCHW, ND, NHWC], False, FLOATS, "axis", in_order="out"),
    Api("aclnnUpsampleBicubic2dAA", fwd_ac("x", S2), 2, False, [NCHW, ND], False, FLOATS, "axis"),
    Api("aclnnUpsampleBicubic2dAAGrad", bwd_ac("gradOutput", S2, "out"), 2, True, [NCHW, ND], True,
        FLOATS, "axis", nonneg=True, n_positive=True),
    Api("aclnnResize", ["self", "scales", "mode", "out"], 2, False, [NCHW, NHWC], True, FLOATS,
        "none", resize=True),
]



def check_valid(api):
    """Calls that must succeed (and run)."""
    def ok_call(desc, call):
        st, ws, ex, msg = call.gws()
        report(st == 0, "%s: %s -> %d %s" % (api.name, desc, st, msg))
        if st == 0:
            rr, m = run_executor(api.name, ws, ex)
            report(rr == 0, "%s: %s runs -> %d %s" % (api.name, desc, rr, m))
            if rr == 0 and call.dst.acl_dtype != ACL_UINT8:
                vals = call.dst.to_numpy()
                report(np.isfinite(vals).all(), "%s: %s writes finite values" % (api.name, desc))

    for layout in api.layouts():
        for dtype in api.dtypes:
            ok_call("valid %s %s" % (DTYPE_NAMES[dtype], FORMAT_NAMES[layout[0]]),
                    Call(api, dtype=dtype, layout=layout))
    if not api.equal and api.formats is not None:
        for a in api.formats:
            for b in api.formats:
                if a != b:
                    ok_call("%s -> %s formats (need not be equal)" % (
                        FORMAT_NAMES[a[0]], FORMAT_NAMES[b[0]]), Call(api, layout=a, out_layout=b))
    if api.formats is None:  # "any": other format tags are read as N, C, spatial
        for f in (ACL_FORMAT_NCHW, ACL_FORMAT_NCL, ACL_FORMAT_NC1HWC0):
            ok_call("format %s (any format accepted)" % FORMAT_NAMES[f],
                    Call(api, layout=(f, False)))
    if api.has_align:
        ok_call("alignCorners true", Call(api, align=True))
    if api.scale_rule != "none":
        nsc = len(api.scale_names)
        ok_call("positive scales", Call(api, scales=[1.7] * nsc))
        if not api.nonneg:
            ok_call("negative scales (not given)", Call(api, scales=[-1.0] * nsc))
    if api.resize:
        ok_call("mode nearest", Call(api, mode="nearest"))
        # the 1e-5 band: in 100, scale 0.029999 -> trunc(100 * (s + 1e-5)) = 3
        ok_call("scale within the 1e-5 band", Call(api, in_sp=[100, 6], out_sp=[3, 3],
                                                    scales=[0.029999, 0.5]))
        ok_call("N and C scales not validated", _resize_with_nc(api, 3.0, 0.25))


def _resize_with_nc(api, sn, sc):
    call = Call(api)
    call.args["scales"] = call.keep_s = FloatArray([sn, sc] + RESIZE_SCALES)
    return call


def check_validation(api):
    v = ac.Validator(api)
    run, set_src, set_dst, set_arr, set_arg = v.run, v.src, v.dst, v.arr, v.arg
    r, n, c, in_sp, out_sp = api.rank, v.n, v.c, api.in_sp, api.out_sp
    src_name, dst_name, src_sp = api.src_name, api.dst_name, v.src_sp
    src_shape, dst_shape = v.src_shape, v.dst_shape
    # ranks
    run("%s of rank %d" % (src_name, r + 3), set_src(src_shape + [2]))
    run("%s of rank %d" % (src_name, r + 1), set_src([n * c] + src_sp))
    run("%s of rank %d" % (dst_name, r + 3), set_dst(dst_shape + [2]))
    # dtypes
    ac.check_dtype_mismatch(api, v)
    bad_types = [ACL_INT32, ACL_INT8] + ([] if ACL_UINT8 in api.dtypes else [ACL_UINT8])
    for bt in bad_types:
        run("%s and %s %s (unsupported)" % (src_name, dst_name, DTYPE_NAMES[bt]),
            both(set_src(src_shape, bt), set_dst(dst_shape, bt)), must_name=src_name)
    if ACL_UINT8 in api.dtypes:
        run("%s u8, %s f32" % (src_name, dst_name), set_src(src_shape, ACL_UINT8))
    # formats
    all_fmts = {1: [ACL_FORMAT_NCL, ACL_FORMAT_ND, ACL_FORMAT_NCHW],
                2: [ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_ND, ACL_FORMAT_NCL,
                    ACL_FORMAT_NC1HWC0],
                3: [ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC, ACL_FORMAT_ND, ACL_FORMAT_NCHW]}[r]
    if api.formats is not None:
        accepted = [f for f, _ in api.formats]
        for f in all_fmts:
            if f not in accepted:
                run("%s and %s format %s (unsupported)" % (src_name, dst_name, FORMAT_NAMES[f]),
                    both(set_src(src_shape, fmt=f), set_dst(dst_shape, fmt=f)))
                run("%s format %s (unsupported)" % (dst_name, FORMAT_NAMES[f]),
                    set_dst(dst_shape, fmt=f), must_name=dst_name)
        if api.equal and len(api.formats) > 1:
            for a in api.formats:
                for b in api.formats:
                    if a != b:
                        run("%s %s, %s %s (formats must be equal)" % (
                            src_name, FORMAT_NAMES[a[0]], dst_name, FORMAT_NAMES[b[0]]),
                            lambda call: None, layout=a, out_layout=b)
    if api.resize:
        check_resize(api, run, set_src, set_dst, both)
        return
    # outputSize / inputSize
    run("outputSize of length %d" % (r + 1), set_arr("outputSize", out_sp + [3]))
    run("outputSize = []", set_arr("outputSize", []))
    bad_out = list(out_sp)
    bad_out[-1] += 1
    what = "gradOut" if api.backward else dst_name
    run("%s shape does not match outputSize %s" % (what, bad_out),
        set_arr("outputSize", bad_out))
    neg = list(out_sp)
    neg[0] = -out_sp[0]
    run("negative outputSize %s" % neg, set_arr("outputSize", neg))
    if api.backward:
        run("inputSize of length %d" % (r + 3), set_arr("inputSize", [n, c] + in_sp + [1]))
        run("inputSize of length %d" % (r + 1), set_arr("inputSize", [n] + in_sp))
        ac.check_input_size(api, v)
    # N / C mismatch between source and destination
    ac.check_nc_mismatch(api, v)
    # zero sizes
    ac.check_zero_sizes(api, v)
    if api.backward:
        run("C = 0", both(set_arr("inputSize", [n, 0] + in_sp), set_src([n, 0] + out_sp),
                          set_dst([n, 0] + in_sp)))
    # negative scales
    if api.nonneg:
        for k in api.scale_names:
            run("%s = -1.5 (must be >= 0)" % k, set_arg(k, -1.5), must_name="scale")
    # N = 0 where an empty batch is rejected
    if api.n_positive:
        run("N = 0 (N > 0 required)", lambda call: None, n=0)
    # views that do not fit their storage
    ac.check_storage_too_small(api, v)
    run("%s offset 1 past a storage of exactly the view's size" % src_name,
        set_src(src_shape, storage_dims=[int(np.prod(src_shape))], offset=1), must_name=src_name)
    run("%s offset 1 past a storage of exactly the view's size" % dst_name,
        set_dst(dst_shape, storage_dims=[int(np.prod(dst_shape))], offset=1), must_name=dst_name)


def check_resize(api, run, set_src, set_dst, both):
    def set_scales(values):
        def f(call):
            call.args["scales"] = call.keep_s = FloatArray(values)
        return f

    def set_mode(text):
        def f(call):
            call.args["mode"] = call.keep_m = CString(text)
        return f

    for m in ("nearest-exact", "linear", "", "Nearest", "bilinear ", "bicubic", "area"):
        run("mode %r" % m, set_mode(m), must_name="mode")
    run("scales of length 3", set_scales([1.0] + RESIZE_SCALES), must_name="scales")
    run("scales of length 5", set_scales([1.0, 1.0] + RESIZE_SCALES + [1.0]), must_name="scales")
    run("scales of length 0", set_scales([]), must_name="scales")
    run("scale H 3.0 with out H 10 from in H 5", set_scales([1.0, 1.0, 3.0, 0.5]),
        must_name="scale")
    run("scale W 1.0 with out W 3 from in W 6", set_scales([1.0, 1.0, 2.0, 1.0]),
        must_name="scale")
    run("scale H negative", set_scales([1.0, 1.0, -2.0, 0.5]), must_name="scale")
    run("scale H NaN", set_scales([1.0, 1.0, float("nan"), 0.5]), must_name="scale")
    run("scale H 0", set_scales([1.0, 1.0, 0.0, 0.5]), must_name="scale")
    run("NHWC tensors with NCHW-ordered scales", set_scales([1.0, 1.0] + RESIZE_SCALES),
        layout=NHWC, must_name="scale")
    run("scale outside the 1e-5 band (in 100, s 0.029999, out 4)", lambda call: None,
        in_sp=[100, 6], out_sp=[4, 3], scales=[0.029999, 0.5])
    n, c = 2, 3
    run("self N=2, out N=3", set_dst([n + 1, c, 10, 3]))
    run("self C=3, out C=4", set_dst([n, c + 1, 10, 3]))
    run("self rank 5", set_src([n, c, 5, 6, 1]))
    run("self H = 0", both(set_src([n, c, 0, 6]), set_dst([n, c, 0, 3])))
    run("self storageDims too small", set_src([n, c, 5, 6], storage_dims=[n * c * 30 - 1]),
        must_name="self")
    run("out storageDims too small", set_dst([n, c, 10, 3], storage_dims=[n * c * 30 - 1]),
        must_name="out")


def check_misc():
    ac.check_recent_err_msg(APIS[0])


if __name__ == "__main__":
    sys.exit(ac.main("test_api_family", APIS,
                     (ac.check_nulls, check_valid, check_validation, ac.check_empty,
                      ac.check_workspace, ac.check_executor_reuse, ac.check_extreme_scales,
                      ac.check_overlap), check_misc))
