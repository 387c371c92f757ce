#!/usr/bin/python3
"""API contract of the aclnn linear family through the exported C API (ctypes):
null arguments, validation rules, empty tensors, workspaces, executor reuse, error messages.

Entry points: aclnnUpsampleLinear1d, Linear1dBackward, Bilinear2d, Bilinear2dBackward,
Bilinear2dBackwardV2, Trilinear3d, Trilinear3dBackward.

The calls, the shared checks (NULL arguments, N = 0, workspaces, executor reuse, the error
message) and the suite's body are the harness package's (harness/api.py); this script lists the
entry points and their validation rules.

Run:  UPSAMPLE_LIB=build/libupsample.so /usr/bin/python3 tests/python/test_api_linear.py
Env:  UPSAMPLE_TEST_VERBOSE=1 prints every check with the library's error text.
Last line: "N passed, N failed"; exit status 1 if any check failed.
"""

import os
import sys

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import aclnn  # noqa: E402
from harness import api as ac  # noqa: E402
from harness.aclnn import (ACL_FORMAT_NC1HWC0, ACL_FORMAT_NCHW, ACL_FORMAT_NCL,  # noqa: E402
                           ACL_FORMAT_NHWC, ACLNN_ERR_INNER_NULLPTR, FORMAT_NAMES)
from harness.api import (INV, NCDHW, NCHW, NCL, NDHWC, NHWC, NP, Call, both,  # noqa: E402
                         report, run_executor)
from harness.storage import ACL_INT32  # noqa: E402

OUT_SP = {1: [11], 2: [9, 4], 3: [5, 3, 8]}


def linear_api(name, arg_names, rank, backward, formats, **kw):
    # formats: the layouts the calls use (channels-first, and channels-last where accepted)
    return ac.Api(name, arg_names, rank, backward, formats, out_sp=OUT_SP[rank], **kw)


APIS = [
    linear_api("aclnnUpsampleLinear1d", ["self", "outputSize", "alignCorners", "scales", "out"],
               1, False, [NCL]),
    linear_api("aclnnUpsampleLinear1dBackward",
               ["gradOut", "outputSize", "inputSize", "alignCorners", "scales", "out"],
               1, True, [NCL]),
    # CANN returns 561103 for a null self / out and 161002 for a null outputSize; the library
    # returns 161001 (docs/compat.md).
    linear_api("aclnnUpsampleBilinear2d",
               ["self", "outputSize", "alignCorners", "scalesH", "scalesW", "out"],
               2, False, [NCHW, NHWC],
               null_status={"self": (NP, ACLNN_ERR_INNER_NULLPTR),
                            "out": (NP, ACLNN_ERR_INNER_NULLPTR), "outputSize": (NP, INV)}),
    # inputSize in gradOut's format order
    linear_api("aclnnUpsampleBilinear2dBackward",
               ["gradOut", "outputSize", "inputSize", "alignCorners", "scalesH", "scalesW", "out"],
               2, True, [NCHW, NHWC], in_order="grad", scale_rule="ignored"),
    linear_api("aclnnUpsampleBilinear2dBackwardV2",
               ["gradOut", "outputSize", "inputSize", "alignCorners", "scalesH", "scalesW", "out"],
               2, True, [NCHW, NHWC], in_order="grad"),
    linear_api("aclnnUpsampleTrilinear3d",
               ["self", "outputSize", "alignCorners", "scalesD", "scalesH", "scalesW", "out"],
               3, False, [NCDHW, NDHWC], scale_rule="all"),
    linear_api("aclnnUpsampleTrilinear3dBackward",
               ["gradOut", "outputSize", "inputSize", "alignCorners", "scalesD", "scalesH",
                "scalesW", "gradInput"],
               3, True, [NCDHW, NDHWC], scale_rule="all"),
]


def check_validation(api):
    name = api.name
    # the valid baseline itself
    for layout in api.layouts():
        call = Call(api, layout=layout)
        st, ws, ex, msg = call.gws()
        report(st == 0, "%s: valid baseline (%s) -> %d %s" % (
            name, FORMAT_NAMES[layout[0]], st, msg))
        if st == 0:
            rr, m = run_executor(name, ws, ex)
            report(rr == 0, "%s: valid baseline runs -> %d %s" % (name, rr, m))

    v = ac.Validator(api)
    run, set_src, set_dst, set_arr, set_arg = v.run, v.src, v.dst, v.arr, v.arg
    r, n, c, in_sp, out_sp = api.rank, v.n, v.c, api.in_sp, api.out_sp
    src_name, dst_name, src_sp, dst_sp = api.src_name, api.dst_name, v.src_sp, v.dst_sp
    src_shape, dst_shape = v.src_shape, v.dst_shape
    # wrong rank
    run("%s of rank %d" % (src_name, r + 3), set_src(src_shape + [2]))
    run("%s of rank %d" % (src_name, r + 1), set_src([n, c] + src_sp[1:]) if r > 1 else
        set_src([n * c] + src_sp))
    run("%s of rank %d" % (dst_name, r + 3), set_dst(dst_shape + [2]))
    # dtypes
    ac.check_dtype_mismatch(api, v)
    run("int32 %s and %s" % (src_name, dst_name),
        both(set_src(src_shape, ACL_INT32), set_dst(dst_shape, ACL_INT32)))
    # outputSize / inputSize lengths and values
    run("outputSize of length %d" % (r + 1), set_arr("outputSize", out_sp + [3]))
    if r > 1:
        run("outputSize of length %d" % (r - 1), set_arr("outputSize", out_sp[1:]))
    run("outputSize = []", set_arr("outputSize", []))
    bad_out = list(out_sp)
    bad_out[-1] += 1
    run("%s shape does not match outputSize %s" % (src_name if api.backward else dst_name,
                                                  bad_out), set_arr("outputSize", bad_out))
    if api.backward:
        run("inputSize of length %d" % (r + 3), set_arr("inputSize", [n, c] + in_sp + [1]))
        ac.check_input_size(api, v)
    # N / C mismatch between source and destination
    ac.check_nc_mismatch(api, v)
    # zero spatial sizes
    ac.check_zero_sizes(api, v)
    # negative outputSize
    neg = list(out_sp)
    neg[0] = -out_sp[0]
    run("negative outputSize %s" % neg, set_arr("outputSize", neg))
    # negative scale (CANN: Bilinear2d rejects it)
    if name == "aclnnUpsampleBilinear2d":
        run("scalesH = -1.5", set_arg("scalesH", -1.5), must_name="scale")
        run("scalesW = -0.5", set_arg("scalesW", -0.5), must_name="scale")
    # formats
    if r == 2:
        run("%s NCL format" % src_name, set_src(src_shape, fmt=ACL_FORMAT_NCL))
        run("%s NC1HWC0 format" % src_name, set_src(src_shape, fmt=ACL_FORMAT_NC1HWC0))
        if not api.backward:
            run("self NCHW, out NHWC", set_dst([n] + dst_sp + [c], fmt=ACL_FORMAT_NHWC))
    if r == 3 and not api.backward:
        run("self NCHW format (rank 5)", set_src(src_shape, fmt=ACL_FORMAT_NCHW))
    # views that do not fit their storage (NULL data: ac.check_nulls)
    ac.check_storage_too_small(api, v)
    run("%s offset 1 past a storage of exactly the view's size" % src_name,
        set_src(src_shape, storage_dims=[int(np.prod(src_shape))], offset=1), must_name=src_name)


def check_misc():
    if not all(aclnn.has_op(a.name) for a in APIS[:1] + APIS[2:5:2]):
        return
    lib = aclnn.load()
    st = lib.aclSetAclOpExecutorRepeatable(None)
    report(st == ACLNN_ERR_INNER_NULLPTR, "aclSetAclOpExecutorRepeatable(NULL) -> %d "
           "(expected %d)" % (st, ACLNN_ERR_INNER_NULLPTR))
    aclnn.recent_err_msg()
    ac.check_recent_err_msg(APIS[0])
    # Linear1d: scale 0 and -1 both mean "not given" (size-driven)
    for s in (0.0, -1.0):
        call = Call(APIS[0], scales=[s])
        st, ws, ex, msg = call.gws()
        report(st == 0, "aclnnUpsampleLinear1d: scales=%g (not given; CANN non-950 rejects 0) "
               "with L=7, outputSize [11] -> %d %s" % (s, st, msg))
        if st == 0:
            lib.aclDestroyAclOpExecutor(ex)
    # A scale that maps past the end of the input (torch 1.13 reads out of bounds there): no
    # crash; either a validation error or finite values.
    for api in (APIS[2], APIS[4]):
        call = Call(api, n=1, c=1, in_sp=[3, 1], out_sp=[4, 5], scales=[0.3, 0.6])
        st, ws, ex, msg = call.gws()
        if st == 0:
            st, msg = run_executor(api.name, ws, ex)
        vals = call.dst.to_numpy()
        report(st == INV or (st == 0 and np.isfinite(vals).all()),
               "%s: scales that point past the input end -> %d %r (finite: %s)" % (
                   api.name, st, msg, bool(np.isfinite(vals).all())))


if __name__ == "__main__":
    sys.exit(ac.main("test_api_linear", APIS,
                     (ac.check_nulls, check_validation, ac.check_empty, ac.check_workspace,
                      ac.check_executor_reuse, ac.check_extreme_scales, ac.check_overlap),
                     check_misc))
