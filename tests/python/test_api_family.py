#!/usr/bin/python3
"""API contract of the nearest, nearest-exact, bicubic, antialias and Resize entry points through
the exported C API (ctypes): null arguments, the validation rules of docs/ops.md, empty batches,
workspaces, executor reuse, error messages.

Entry points (21): aclnnUpsampleNearest1d, Nearest2d, Nearest1dV2, Nearest2dV2, Nearest3d,
NearestExact1d/2d/3d, Nearest1d/2d/3dBackward, NearestExact1d/2d/3dBackward, Bilinear2dAA,
Bilinear2dAABackward, Bicubic2d, Bicubic2dBackward, Bicubic2dAA, Bicubic2dAAGrad, Resize.

Run:  UPSAMPLE_LIB=build/libupsample.so /usr/bin/python3 tests/python/test_api_family.py
Env:  UPSAMPLE_TEST_VERBOSE=1 prints every check with the library's error text.
Last line: "N passed, N failed"; exit status 1 if any check failed.
"""

import os
import sys

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aclnn  # noqa: E402
import parity_common as pc  # noqa: E402
from aclnn import (ACL_BF16, ACL_DOUBLE, ACL_FLOAT, ACL_FLOAT16, ACL_FORMAT_NC1HWC0,  # noqa: E402
                   ACL_FORMAT_NCDHW, ACL_FORMAT_NCHW, ACL_FORMAT_NCL, ACL_FORMAT_ND,
                   ACL_FORMAT_NDHWC, ACL_FORMAT_NHWC, ACL_INT8, ACL_INT32, ACL_UINT8,
                   ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, FORMAT_NAMES, DTYPE_NAMES,
                   IntArray)
from parity_common import CString, FloatArray  # noqa: E402

VERBOSE = os.environ.get("UPSAMPLE_TEST_VERBOSE", "") not in ("", "0")
NP, INV = ACLNN_ERR_PARAM_NULLPTR, ACLNN_ERR_PARAM_INVALID
report = pc.Reporter()

NCL, ND = (ACL_FORMAT_NCL, False), (ACL_FORMAT_ND, False)
NCHW, NHWC = (ACL_FORMAT_NCHW, False), (ACL_FORMAT_NHWC, True)
NCDHW, NDHWC = (ACL_FORMAT_NCDHW, False), (ACL_FORMAT_NDHWC, True)
FLOATS = [ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE]
FWD_NEAREST = FLOATS + [ACL_UINT8]


class Api:
    """An entry point's contract (docs/ops.md).

    formats: the accepted formats (None: any; dims read as N, C, spatial unless channels-last);
    equal: input and output formats must be equal; scale_rule: none | axis | all;
    nonneg: negative scales rejected; n_positive: N = 0 rejected; in_order: how inputSize is
    ordered (logical | grad | out)."""

    def __init__(self, name, arg_names, rank, backward, formats, equal, dtypes, scale_rule,
                 nonneg=False, n_positive=False, in_order="logical", resize=False):
        self.name = name
        self.arg_names = arg_names
        self.rank = rank
        self.backward = backward
        self.formats = formats
        self.equal = equal
        self.dtypes = dtypes
        self.scale_rule = scale_rule
        self.nonneg = nonneg
        self.n_positive = n_positive
        self.in_order = in_order
        self.resize = resize
        self.src_name = arg_names[0]
        self.dst_name = arg_names[-1]
        self.scale_names = [] if resize else [a for a in arg_names if a.startswith("scale")]
        self.has_align = "alignCorners" in arg_names

    def layouts(self):
        if self.formats is None:
            return {1: [NCL], 2: [NCHW, NHWC], 3: [NCDHW, NDHWC, ND]}[self.rank]
        return self.formats


S1 = ["scales"]
S2 = ["scalesH", "scalesW"]
S3 = ["scalesD", "scalesH", "scalesW"]
FWD = lambda src, sc, dst="out": [src, "outputSize"] + sc + [dst]  # noqa: E731
BWD = lambda src, sc, dst: [src, "outputSize", "inputSize"] + sc + [dst]  # noqa: E731
AL = lambda src, sc, dst="out": [src, "outputSize", "alignCorners"] + sc + [dst]  # noqa: E731
ALB = lambda src, sc, dst: [src, "outputSize", "inputSize", "alignCorners"] + sc + [dst]  # noqa

APIS = [
    Api("aclnnUpsampleNearest1d", FWD("self", []), 1, False, [NCL], True, FWD_NEAREST, "none"),
    Api("aclnnUpsampleNearest2d", FWD("self", []), 2, False, [NCHW, NHWC], True, FWD_NEAREST,
        "none"),
    Api("aclnnUpsampleNearest1dV2", FWD("self", ["scaleL"]), 1, False, [NCL], True, FWD_NEAREST,
        "axis"),
    Api("aclnnUpsampleNearest2dV2", FWD("self", S2), 2, False, [NCHW, NHWC], True, FWD_NEAREST,
        "axis"),
    Api("aclnnUpsampleNearest3d", FWD("self", S3), 3, False, [NCDHW, NDHWC, ND], False,
        FWD_NEAREST, "all"),
    Api("aclnnUpsampleNearestExact1d", FWD("self", S1), 1, False, [NCL, ND], False, FWD_NEAREST,
        "axis", n_positive=True),
    Api("aclnnUpsampleNearestExact2d", FWD("self", S2), 2, False, [NCHW, NHWC, ND], True,
        FWD_NEAREST, "axis"),
    Api("aclnnUpsampleNearestExact3d", FWD("self", S3), 3, False, [NCDHW, NDHWC, ND], False,
        FWD_NEAREST, "axis"),
    Api("aclnnUpsampleNearest1dBackward", BWD("gradOut", S1, "out"), 1, True, [NCL, ND], False,
        FLOATS, "axis"),
    Api("aclnnUpsampleNearest2dBackward", BWD("gradOut", S2, "gradInput"), 2, True,
        [NCHW, NHWC], False, FLOATS, "axis", in_order="grad"),
    Api("aclnnUpsampleNearest3dBackward", BWD("gradOut", S3, "gradInput"), 3, True, None, False,
        FLOATS, "all"),
    Api("aclnnUpsampleNearestExact1dBackward", BWD("gradOutput", S1, "out"), 1, True, [NCL, ND],
        True, FLOATS, "axis", nonneg=True, n_positive=True),
    Api("aclnnUpsampleNearestExact2dBackward", BWD("gradOutput", S2, "out"), 2, True, [NCHW, ND],
        True, FLOATS, "axis", nonneg=True),
    Api("aclnnUpsampleNearestExact3dBackward", BWD("gradOut", S3, "gradInput"), 3, True,
        [NCDHW, NDHWC], False, FLOATS, "axis"),
    Api("aclnnUpsampleBilinear2dAA", AL("input", S2), 2, False, [NCHW, ND], True, FLOATS, "axis",
        nonneg=True, n_positive=True),
    Api("aclnnUpsampleBilinear2dAABackward", ALB("gradOutput", S2, "out"), 2, True, [NCHW, ND],
        True, FLOATS, "axis", nonneg=True, n_positive=True),
    Api("aclnnUpsampleBicubic2d", AL("self", S2), 2, False, [NCHW, ND, NHWC], True, FLOATS,
        "axis"),
    Api("aclnnUpsampleBicubic2dBackward", ALB("gradOut", S2, "gradInput"), 2, True,
        [NCHW, ND, NHWC], False, FLOATS, "axis", in_order="out"),
    Api("aclnnUpsampleBicubic2dAA", AL("x", S2), 2, False, [NCHW, ND], False, FLOATS, "axis"),
    Api("aclnnUpsampleBicubic2dAAGrad", ALB("gradOutput", S2, "out"), 2, True, [NCHW, ND], True,
        FLOATS, "axis", nonneg=True, n_positive=True),
    Api("aclnnResize", ["self", "scales", "mode", "out"], 2, False, [NCHW, NHWC], True, FLOATS,
        "none", resize=True),
]

IN_SP = {1: [7], 2: [5, 6], 3: [3, 4, 5]}
OUT_SP = {1: [11], 2: [10, 3], 3: [5, 3, 8]}
RESIZE_SCALES = [2.0, 0.5]  # in [5, 6] -> out [10, 3]


def fmt_dims(n, c, sp, cl):
    return [n] + list(sp) + [c] if cl else [n, c] + list(sp)


def tensor(shape, dtype=ACL_FLOAT, fmt=ACL_FORMAT_ND, storage_dims=None, offset=0,
           null_data=False, rng=None):
    """A tensor over a fresh storage (random values, zeros for integer dtypes)."""
    if dtype in (ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE) and rng is not None:
        raw = aclnn.to_storage(rng.standard_normal(shape).astype(np.float32), dtype)
    else:
        raw = np.zeros(shape, dtype=aclnn.STORAGE_NP[dtype])
    t = pc.make_tensor(np.asarray(raw).reshape(shape), dtype, fmt)
    if storage_dims is not None or offset or null_data:
        aclnn.load().aclDestroyTensor(t.handle)
        sd = storage_dims if storage_dims is not None else t.storage_dims
        t.handle = aclnn.create_tensor(t.view_dims, dtype, t.strides, offset, fmt, sd,
                                       None if null_data else t.storage.ctypes.data)
        t.storage_dims = sd
    return t


class Call:
    """The arguments of one call as a mutable dict keyed by parameter name."""

    def __init__(self, api, n=2, c=3, in_sp=None, out_sp=None, dtype=ACL_FLOAT, out_dtype=None,
                 layout=None, out_layout=None, align=False, scales=None, mode="bilinear",
                 rng=None):
        self.api = api
        rng = rng or np.random.default_rng(1)
        r = api.rank
        in_sp = list(in_sp or IN_SP[r])
        out_sp = list(out_sp or OUT_SP[r])
        layout = layout or api.layouts()[0]
        out_layout = out_layout or layout
        (fmt, cl), (ofmt, ocl) = layout, out_layout
        self.keep = []
        src_sp, dst_sp = (out_sp, in_sp) if api.backward else (in_sp, out_sp)
        self.src = tensor(fmt_dims(n, c, src_sp, cl), dtype, fmt, rng=rng)
        self.dst = pc.make_output(fmt_dims(n, c, dst_sp, ocl),
                                  out_dtype if out_dtype is not None else dtype, ofmt)
        self.args = {api.src_name: self.src, api.dst_name: self.dst}
        if api.resize:
            sc = scales if scales is not None else RESIZE_SCALES
            self.args["scales"] = FloatArray([1.0] + list(sc) + [1.0] if cl else
                                             [1.0, 1.0] + list(sc))
            self.args["mode"] = CString(mode)
            return
        self.args["outputSize"] = IntArray(out_sp)
        if api.backward:
            full = [n, c] + in_sp
            if api.in_order == "grad":
                full = fmt_dims(n, c, in_sp, cl)
            elif api.in_order == "out":
                full = fmt_dims(n, c, in_sp, ocl)
            self.args["inputSize"] = IntArray(full)
        if api.has_align:
            self.args["alignCorners"] = align
        scales = scales if scales is not None else [0.0] * len(api.scale_names)
        for k, s in zip(api.scale_names, scales):
            self.args[k] = s

    def arglist(self):
        return [self.args[k] for k in self.api.arg_names]

    def gws(self, **kw):
        return aclnn.get_workspace_size(self.api.name, *self.arglist(), **kw)


def _norm(text):
    return text.lower().replace("_", "")


def expect_status(desc, status, msg, expected, must_name=None):
    """expected: an int or a tuple of accepted ints."""
    ok = status in expected if isinstance(expected, tuple) else status == expected
    text = "%s -> %d (expected %s), message: %r" % (desc, status, expected, msg)
    if ok and status != 0:
        if not msg:
            ok = False
            text += " [aclGetRecentErrMsg is empty after a failure]"
        elif must_name and _norm(must_name) not in _norm(msg):
            ok = False
            text += " [message does not name %r]" % must_name
    report(ok, text)
    return ok


def run_executor(api_name, ws, ex, stream=None):
    buf = aclnn.DeviceBuffer(ws) if ws else None
    st, msg = aclnn.launch(api_name, buf.ptr if buf else None, ws, ex, stream)
    return st, msg


# ---------------------------------------------------------------------------------------------

def check_nulls(api):
    names = [api.src_name, api.dst_name] + (["scales", "mode"] if api.resize else
                                            ["outputSize"] + (["inputSize"] if api.backward
                                                              else []))
    for name in names:
        call = Call(api)
        call.args[name] = None
        st, _, _, msg = call.gws()
        expect_status("%s: %s = NULL" % (api.name, name), st, msg, NP, must_name=name)
    call = Call(api)
    st, _, _, msg = call.gws(ws_ptr=None)
    expect_status("%s: workspaceSize = NULL" % api.name, st, msg, NP, must_name="workspaceSize")
    st, _, _, msg = call.gws(exec_ptr=None)
    expect_status("%s: executor = NULL" % api.name, st, msg, NP, must_name="executor")
    # a NULL data address under a non-empty view
    for which in (api.src_name, api.dst_name):
        call = Call(api)
        t = call.args[which]
        call.args[which] = call.keep_t = tensor(t.view_dims, t.acl_dtype, t.fmt, null_data=True)
        st, _, _, msg = call.gws()
        expect_status("%s: %s with NULL data and elements" % (api.name, which), st, msg,
                      (NP, INV), must_name=which)


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
    r = api.rank
    name = api.name
    src_name, dst_name = api.src_name, api.dst_name
    n, c = 2, 3
    in_sp, out_sp = IN_SP[r], OUT_SP[r]
    src_sp, dst_sp = (out_sp, in_sp) if api.backward else (in_sp, out_sp)
    fmt0 = api.layouts()[0][0]

    def run(desc, mutate, expected=INV, must_name=None, **call_kw):
        call = Call(api, **call_kw)
        mutate(call)
        st, ws, ex, msg = call.gws()
        ok = expect_status("%s: %s" % (name, desc), st, msg, expected, must_name)
        if st == 0 and ex:
            aclnn.load().aclDestroyAclOpExecutor(ex)
        return ok

    def set_src(shape, dtype=ACL_FLOAT, fmt=None, **kw):
        def f(call):
            call.args[src_name] = call.keep_t = tensor(shape, dtype, fmt0 if fmt is None else fmt,
                                                       **kw)
        return f

    def set_dst(shape, dtype=ACL_FLOAT, fmt=None, **kw):
        def f(call):
            call.args[dst_name] = call.keep_d = tensor(shape, dtype, fmt0 if fmt is None else fmt,
                                                       **kw)
        return f

    def set_arr(key, values):
        def f(call):
            call.args[key] = call.keep_a = IntArray(values)
        return f

    def set_arg(key, value):
        def f(call):
            call.args[key] = value
        return f

    def both(*fs):
        def f(call):
            for g in fs:
                g(call)
        return f

    src_shape, dst_shape = [n, c] + src_sp, [n, c] + dst_sp
    # ranks
    run("%s of rank %d" % (src_name, r + 3), set_src(src_shape + [2]))
    run("%s of rank %d" % (src_name, r + 1), set_src([n * c] + src_sp))
    run("%s of rank %d" % (dst_name, r + 3), set_dst(dst_shape + [2]))
    # dtypes
    run("%s f32, %s f16" % (src_name, dst_name), set_dst(dst_shape, ACL_FLOAT16))
    run("%s f32, %s f64" % (src_name, dst_name), set_dst(dst_shape, ACL_DOUBLE))
    run("%s bf16, %s f32" % (src_name, dst_name), set_src(src_shape, ACL_BF16))
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
        bad_in = [n, c] + list(in_sp)
        bad_in[-1] += 1
        run("%s shape does not match inputSize %s" % (dst_name, bad_in),
            set_arr("inputSize", bad_in))
        bad_g = [n, c] + list(out_sp)
        bad_g[2] += 1
        run("%s shape %s does not match outputSize" % (src_name, bad_g), set_src(bad_g))
        run("inputSize N differs from %s" % src_name, set_arr("inputSize", [n + 1, c] + in_sp))
        run("inputSize C differs from %s" % src_name, set_arr("inputSize", [n, c + 1] + in_sp))
    # N / C mismatch between source and destination
    run("%s N=%d, %s N=%d" % (src_name, n, dst_name, n + 1), set_dst([n + 1, c] + dst_sp))
    run("%s C=%d, %s C=%d" % (src_name, c, dst_name, c + 1), set_dst([n, c + 1] + dst_sp))
    # zero sizes
    zin = list(in_sp)
    zin[0] = 0
    zout = list(out_sp)
    zout[-1] = 0
    if api.backward:
        run("inputSize spatial 0", both(set_arr("inputSize", [n, c] + zin), set_dst([n, c] + zin)))
        run("outputSize spatial 0", both(set_arr("outputSize", zout), set_src([n, c] + zout)))
        run("C = 0", both(set_arr("inputSize", [n, 0] + in_sp), set_src([n, 0] + out_sp),
                          set_dst([n, 0] + in_sp)))
    else:
        run("%s spatial size 0" % src_name, set_src([n, c] + zin))
        run("outputSize spatial 0", both(set_arr("outputSize", zout), set_dst([n, c] + zout)))
        run("C = 0", both(set_src([n, 0] + src_sp), set_dst([n, 0] + dst_sp)))
    # negative scales
    if api.nonneg:
        for k in api.scale_names:
            run("%s = -1.5 (must be >= 0)" % k, set_arg(k, -1.5), must_name="scale")
    # N = 0 where an empty batch is rejected
    if api.n_positive:
        run("N = 0 (N > 0 required)", lambda call: None, n=0)
    # views that do not fit their storage
    run("%s storageDims too small" % src_name,
        set_src(src_shape, storage_dims=[int(np.prod(src_shape)) - 1]), must_name=src_name)
    run("%s storageDims too small" % dst_name,
        set_dst(dst_shape, storage_dims=[int(np.prod(dst_shape)) - 1]), must_name=dst_name)
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


def check_empty(api):
    """N = 0: workspace 0 and a no-op executor, unless the entry point requires N > 0."""
    if api.n_positive:
        return
    for layout in api.layouts():
        call = Call(api, n=0, layout=layout)
        st, ws, ex, msg = call.gws()
        report(st == 0 and ws == 0, "%s: N=0 (%s) -> status %d workspaceSize %s %s" % (
            api.name, FORMAT_NAMES[layout[0]], st, ws, msg))
        if st == 0:
            rr, m = aclnn.launch(api.name, None, 0, ex)
            report(rr == 0, "%s: N=0 run -> %d %s" % (api.name, rr, m))


def check_workspace(api):
    """Phase 2 with a missing or short workspace fails cleanly (when one is needed)."""
    for layout in api.layouts():
        for in_sp, out_sp in [(IN_SP[api.rank], OUT_SP[api.rank]),
                              ([17] * api.rank, [29] * api.rank),
                              ([40] * api.rank, [23] * api.rank)]:
            if api.resize:
                if in_sp == IN_SP[2]:
                    continue
                scales = [o / i for i, o in zip(in_sp, out_sp)]
                call = Call(api, in_sp=in_sp, out_sp=out_sp, layout=layout, scales=scales)
            else:
                call = Call(api, in_sp=in_sp, out_sp=out_sp, layout=layout)
            st, ws, ex, msg = call.gws()
            if st != 0:
                report(False, "%s: workspace probe %s -> %s failed: %d %s" % (
                    api.name, in_sp, out_sp, st, msg))
                return
            if ws == 0:
                aclnn.load().aclDestroyAclOpExecutor(ex)
                continue
            st, msg = aclnn.launch(api.name, None, ws, ex)
            expect_status("%s: phase 2 with workspace NULL (size %d needed)" % (api.name, ws),
                          st, msg, INV)
            st2, ws2, ex2, _ = call.gws()
            buf = aclnn.DeviceBuffer(ws2)
            st, msg = aclnn.launch(api.name, buf.ptr, ws2 - 1, ex2)
            expect_status("%s: phase 2 with workspaceSize %d < %d" % (api.name, ws2 - 1, ws2),
                          st, msg, INV)
            st3, ws3, ex3, _ = call.gws()
            buf3 = aclnn.DeviceBuffer(ws3)
            st, msg = aclnn.launch(api.name, buf3.ptr, ws3, ex3)
            report(st == 0, "%s: phase 2 with the right workspace -> %d %s" % (api.name, st, msg))
            return
    if VERBOSE:
        print("note %s: no tried shape needs a workspace" % api.name)


def check_executor_reuse(api):
    lib = aclnn.load()
    call = Call(api, rng=np.random.default_rng(5))
    st, ws, ex, msg = call.gws()
    if st != 0:
        report(False, "%s: executor reuse: GetWorkspaceSize -> %d %s" % (api.name, st, msg))
        return
    buf = aclnn.DeviceBuffer(max(ws, 1))
    st1, m1 = aclnn.launch(api.name, buf.ptr if ws else None, ws, ex)
    report(st1 == 0, "%s: first run -> %d %s" % (api.name, st1, m1))
    st2, m2 = aclnn.launch(api.name, buf.ptr if ws else None, ws, ex)
    expect_status("%s: second run of a non-repeatable executor" % api.name, st2, m2, INV,
                  must_name="executor")
    rd = lib.aclDestroyAclOpExecutor(ex)
    m3 = aclnn.recent_err_msg()
    expect_status("%s: aclDestroyAclOpExecutor of a consumed executor" % api.name, rd, m3, INV)
    # repeatable: three runs (the last on a stream), identical results, new data re-read
    call = Call(api, rng=np.random.default_rng(6))
    st, ws, ex, msg = call.gws()
    rs = lib.aclSetAclOpExecutorRepeatable(ex)
    report(rs == 0, "%s: aclSetAclOpExecutorRepeatable -> %d" % (api.name, rs))
    buf = aclnn.DeviceBuffer(max(ws, 1))
    results = []
    stream = aclnn.Stream()
    for i in range(3):
        s = stream.handle if i == 2 else None
        st1, m1 = aclnn.launch(api.name, buf.ptr if ws else None, ws, ex, s)
        if s is not None:
            st1 = st1 or stream.sync()
        results.append(call.dst.to_numpy().copy())
        report(st1 == 0, "%s: repeatable executor run %d%s -> %d %s" % (
            api.name, i + 1, " (on a stream)" if s else "", st1, m1))
    stream.destroy()
    same = all(np.array_equal(results[0], x, equal_nan=True) for x in results[1:])
    report(same and np.isfinite(results[0]).all(),
           "%s: repeatable executor gives identical finite results on every run" % api.name)
    call.src.storage[...] = aclnn.to_storage(np.zeros(call.src.storage.size), call.src.acl_dtype)
    st1, m1 = aclnn.launch(api.name, buf.ptr if ws else None, ws, ex)
    report(st1 == 0 and np.all(call.dst.to_numpy() == 0),
           "%s: repeatable executor re-reads its input (zeros in -> zeros out) -> %d %s" % (
               api.name, st1, m1))
    rd = lib.aclDestroyAclOpExecutor(ex)
    report(rd == 0, "%s: aclDestroyAclOpExecutor -> %d" % (api.name, rd))
    st1, m1 = aclnn.launch(api.name, buf.ptr if ws else None, ws, ex)
    expect_status("%s: run after aclDestroyAclOpExecutor" % api.name, st1, m1, INV,
                  must_name="executor")


def check_misc():
    # After a failure the message is there once, then cleared.
    api = APIS[0]
    call = Call(api)
    call.args["outputSize"] = None
    aclnn.get_workspace_size(api.name, *call.arglist())  # reads (and clears) the message
    again = aclnn.recent_err_msg()
    report(again == "", "aclGetRecentErrMsg is cleared after being read (second read %r)" % again)
    # A success does not leave a stale message behind.
    call = Call(api)
    st, ws, ex, msg = call.gws()
    m = aclnn.recent_err_msg()
    report(st == 0 and m == "", "aclGetRecentErrMsg after a successful call: %r" % m)
    if st == 0:
        aclnn.load().aclDestroyAclOpExecutor(ex)


def main():
    print("test_api_family: library %s" % aclnn._lib_path())
    acl = aclnn.Acl()
    for api in APIS:
        if not aclnn.has_op(api.name):
            report(False, "%s / %sGetWorkspaceSize not exported by the library" % (
                api.name, api.name))
            continue
        for check in (check_nulls, check_valid, check_validation, check_empty, check_workspace,
                      check_executor_reuse):
            try:
                check(api)
            except Exception as e:  # a crash in the harness, reported as a failure
                import traceback
                report(False, "%s: %s raised %s: %s" % (
                    api.name, check.__name__, type(e).__name__,
                    traceback.format_exc().strip().splitlines()[-3:]))
    check_misc()
    acl.finalize()
    print("%d passed, %d failed" % (report.passed, report.failed))
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
