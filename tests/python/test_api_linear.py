#!/usr/bin/python3
"""API contract of the aclnn linear family through the exported C API (ctypes):
null arguments, validation rules, empty tensors, workspaces, executor reuse, error messages.

Entry points: aclnnUpsampleLinear1d, Linear1dBackward, Bilinear2d, Bilinear2dBackward,
Bilinear2dBackwardV2, Trilinear3d, Trilinear3dBackward.

Run:  UPSAMPLE_LIB=build/libupsample.so /usr/bin/python3 tests/python/test_api_linear.py
Env:  UPSAMPLE_TEST_VERBOSE=1 prints every check with the library's error text.
Last line: "N passed, N failed"; exit status 1 if any check failed.
"""

import os
import sys

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aclnn  # noqa: E402
from aclnn import (ACL_BF16, ACL_DOUBLE, ACL_FLOAT, ACL_FLOAT16, ACL_FORMAT_NC1HWC0,  # noqa: E402
                   ACL_FORMAT_NCDHW, ACL_FORMAT_NCHW, ACL_FORMAT_NCL, ACL_FORMAT_ND,
                   ACL_FORMAT_NDHWC, ACL_FORMAT_NHWC, ACL_INT32, ACLNN_ERR_INNER_NULLPTR,
                   ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_PARAM_NULLPTR, IntArray, TensorBuf)

VERBOSE = os.environ.get("UPSAMPLE_TEST_VERBOSE", "") not in ("", "0")
NP, INV = ACLNN_ERR_PARAM_NULLPTR, ACLNN_ERR_PARAM_INVALID

counts = {"passed": 0, "failed": 0}


def report(ok, text):
    if ok:
        counts["passed"] += 1
        if VERBOSE:
            print("ok   " + text)
    else:
        counts["failed"] += 1
        print("FAIL " + text)
    sys.stdout.flush()


# ---------------------------------------------------------------------------------------------
# A valid baseline call per entry point; each check mutates one argument.

class Api:
    """name, argument names (leading GetWorkspaceSize params) and a builder of valid args."""

    def __init__(self, name, arg_names, rank, backward, fmt, cl_fmt=None):
        self.name = name
        self.arg_names = arg_names
        self.rank = rank
        self.backward = backward
        self.fmt = fmt
        self.cl_fmt = cl_fmt


APIS = [
    Api("aclnnUpsampleLinear1d", ["self", "outputSize", "alignCorners", "scales", "out"],
        1, False, ACL_FORMAT_NCL),
    Api("aclnnUpsampleLinear1dBackward",
        ["gradOut", "outputSize", "inputSize", "alignCorners", "scales", "out"],
        1, True, ACL_FORMAT_NCL),
    Api("aclnnUpsampleBilinear2d",
        ["self", "outputSize", "alignCorners", "scalesH", "scalesW", "out"],
        2, False, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC),
    Api("aclnnUpsampleBilinear2dBackward",
        ["gradOut", "outputSize", "inputSize", "alignCorners", "scalesH", "scalesW", "out"],
        2, True, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC),
    Api("aclnnUpsampleBilinear2dBackwardV2",
        ["gradOut", "outputSize", "inputSize", "alignCorners", "scalesH", "scalesW", "out"],
        2, True, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC),
    Api("aclnnUpsampleTrilinear3d",
        ["self", "outputSize", "alignCorners", "scalesD", "scalesH", "scalesW", "out"],
        3, False, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC),
    Api("aclnnUpsampleTrilinear3dBackward",
        ["gradOut", "outputSize", "inputSize", "alignCorners", "scalesD", "scalesH", "scalesW",
         "gradInput"],
        3, True, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC),
]

IN_SP = {1: [7], 2: [5, 6], 3: [3, 4, 5]}
OUT_SP = {1: [11], 2: [9, 4], 3: [5, 3, 8]}


def fmt_dims(n, c, sp, channels_last):
    return [n] + list(sp) + [c] if channels_last else [n, c] + list(sp)


class Call:
    """The arguments of one call, as a mutable dict keyed by argument name."""

    def __init__(self, api, n=2, c=3, in_sp=None, out_sp=None, dtype=ACL_FLOAT, out_dtype=None,
                 channels_last=False, align=False, scales=None, rng=None):
        self.api = api
        rng = rng or np.random.default_rng(1)
        in_sp = list(in_sp or IN_SP[api.rank])
        out_sp = list(out_sp or OUT_SP[api.rank])
        fmt = api.cl_fmt if channels_last else api.fmt
        self.keep = []
        src_sp, dst_sp = (out_sp, in_sp) if api.backward else (in_sp, out_sp)
        src_shape = fmt_dims(n, c, src_sp, channels_last)
        dst_shape = fmt_dims(n, c, dst_sp, channels_last)
        self.src = TensorBuf.from_values(rng.standard_normal(src_shape), dtype, fmt)
        self.dst = TensorBuf.empty(dst_shape, out_dtype if out_dtype is not None else dtype, fmt)
        self.args = {}
        names = api.arg_names
        self.args[names[0]] = self.src
        self.args[names[-1]] = self.dst
        self.args["outputSize"] = IntArray(out_sp)
        if api.backward:
            if api.rank == 2:
                self.args["inputSize"] = IntArray(fmt_dims(n, c, in_sp, channels_last))
            else:
                self.args["inputSize"] = IntArray([n, c] + in_sp)
        self.args["alignCorners"] = align
        scale_names = [a for a in names if a.startswith("scales")]
        scales = scales if scales is not None else [0.0] * len(scale_names)
        for k, s in zip(scale_names, scales):
            self.args[k] = s

    def arglist(self):
        return [self.args[k] for k in self.api.arg_names]

    def gws(self, **kw):
        return aclnn.get_workspace_size(self.api.name, *self.arglist(), **kw)


def tensor(shape, dtype=ACL_FLOAT, fmt=ACL_FORMAT_ND, storage_dims=None):
    vals = np.zeros(shape)
    t = TensorBuf.from_values(vals, dtype, fmt)
    if storage_dims is not None:  # re-create the handle with the given storage dims
        aclnn.load().aclDestroyTensor(t.handle)
        t.handle = aclnn.create_tensor(t.view_dims, dtype, t.strides, t.offset, fmt,
                                       storage_dims, t.storage.ctypes.data)
        t.storage_dims = storage_dims
    return t


def _norm(text):
    """Lower case without underscores: 'output_size' names 'outputSize'."""
    return text.lower().replace("_", "")


def expect_status(desc, status, msg, expected, must_name=None):
    """expected: an int or a tuple of accepted ints (None = any non-zero)."""
    if expected is None:
        ok = status != 0
    elif isinstance(expected, tuple):
        ok = status in expected
    else:
        ok = status == expected
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


# ---------------------------------------------------------------------------------------------

def check_nulls(api):
    tensors = [api.arg_names[0], api.arg_names[-1]]
    arrays = ["outputSize"] + (["inputSize"] if api.backward else [])
    for name in tensors + arrays:
        call = Call(api)
        call.args[name] = None
        st, _, _, msg = call.gws()
        expected = NP
        if api.name == "aclnnUpsampleBilinear2d":
            # CANN: self/out null -> 561103, outputSize null -> 161002 (spec 2.2 #17, 2.3.1).
            expected = (NP, ACLNN_ERR_INNER_NULLPTR) if name != "outputSize" else (NP, INV)
        expect_status("%s: %s = NULL" % (api.name, name), st, msg, expected, must_name=name)
    call = Call(api)
    st, _, _, msg = call.gws(ws_ptr=None)
    expect_status("%s: workspaceSize = NULL" % api.name, st, msg, NP, must_name="workspaceSize")
    st, _, _, msg = call.gws(exec_ptr=None)
    expect_status("%s: executor = NULL" % api.name, st, msg, NP, must_name="executor")


def check_validation(api):
    r = api.rank
    name = api.name
    src_name, dst_name = api.arg_names[0], api.arg_names[-1]
    n, c = 2, 3
    in_sp, out_sp = IN_SP[r], OUT_SP[r]
    src_sp, dst_sp = (out_sp, in_sp) if api.backward else (in_sp, out_sp)

    def run(desc, mutate, expected=INV, must_name=None, **call_kw):
        call = Call(api, **call_kw)
        mutate(call)
        st, ws, ex, msg = call.gws()
        ok = expect_status("%s: %s" % (name, desc), st, msg, expected, must_name)
        if st == 0 and ex:
            aclnn.load().aclDestroyAclOpExecutor(ex)
        return ok

    # the valid baseline itself
    for cl in ([False, True] if api.cl_fmt is not None else [False]):
        call = Call(api, channels_last=cl)
        st, ws, ex, msg = call.gws()
        report(st == 0, "%s: valid baseline (%s) -> %d %s" % (
            name, "channels-last" if cl else "channels-first", st, msg))
        if st == 0:
            wbuf = aclnn.DeviceBuffer(ws) if ws else None  # alive until the run returns
            rr, m = aclnn.launch(name, wbuf.ptr if wbuf else None, ws, ex)
            del wbuf
            report(rr == 0, "%s: valid baseline runs -> %d %s" % (name, rr, m))

    # wrong rank
    def set_src(shape, dtype=ACL_FLOAT, fmt=None, **kw):
        def f(call):
            fmt_ = api.fmt if fmt is None else fmt
            call.args[src_name] = call.keep_t = tensor(shape, dtype, fmt_, **kw)
        return f

    def set_dst(shape, dtype=ACL_FLOAT, fmt=None, **kw):
        def f(call):
            fmt_ = api.fmt if fmt is None else fmt
            call.args[dst_name] = call.keep_d = tensor(shape, dtype, fmt_, **kw)
        return f

    def set_arr(key, values):
        def f(call):
            call.args[key] = call.keep_a = IntArray(values)
        return f

    def set_arg(key, value):
        def f(call):
            call.args[key] = value
        return f

    run("%s of rank %d" % (src_name, r + 1), set_src([n, c] + src_sp + [2]))
    run("%s of rank %d" % (src_name, r + 1), set_src([n, c] + src_sp[1:]) if r > 1 else
        set_src([n * c] + src_sp))
    run("%s of rank %d" % (dst_name, r + 1), set_dst([n, c] + dst_sp + [2]))
    # dtypes
    run("%s f32, %s f16" % (src_name, dst_name), set_dst([n, c] + dst_sp, ACL_FLOAT16))
    run("%s f32, %s f64" % (src_name, dst_name), set_dst([n, c] + dst_sp, ACL_DOUBLE))
    run("%s bf16, %s f32" % (src_name, dst_name), set_src([n, c] + src_sp, ACL_BF16))
    run("int32 %s and %s" % (src_name, dst_name),
        lambda call: (set_src([n, c] + src_sp, ACL_INT32)(call),
                      set_dst([n, c] + dst_sp, ACL_INT32)(call)))
    # outputSize / inputSize lengths and values
    run("outputSize of length %d" % (r + 1), set_arr("outputSize", out_sp + [3]))
    if r > 1:
        run("outputSize of length %d" % (r - 1), set_arr("outputSize", out_sp[1:]))
    run("outputSize = [] ", set_arr("outputSize", []))
    bad_out = list(out_sp)
    bad_out[-1] += 1
    run("out shape does not match outputSize %s" % bad_out, set_arr("outputSize", bad_out))
    if api.backward:
        run("inputSize of length %d" % (r + 1), set_arr("inputSize", [n, c] + in_sp + [1]))
        bad_in = [n, c] + list(in_sp)
        bad_in[-1] += 1
        run("gradInput shape does not match inputSize %s" % bad_in, set_arr("inputSize", bad_in))
        bad_g = [n, c] + list(out_sp)
        bad_g[2] += 1
        run("gradOut shape %s does not match outputSize" % bad_g, set_src(bad_g))
        run("inputSize N differs from gradOut", set_arr("inputSize", [n + 1, c] + in_sp))
        run("inputSize C differs from gradOut", set_arr("inputSize", [n, c + 1] + in_sp))
    # N / C mismatch between source and destination
    run("%s N=%d, %s N=%d" % (src_name, n, dst_name, n + 1), set_dst([n + 1, c] + dst_sp))
    run("%s C=%d, %s C=%d" % (src_name, c, dst_name, c + 1), set_dst([n, c + 1] + dst_sp))
    # zero spatial sizes
    zin = list(in_sp)
    zin[0] = 0
    zout = list(out_sp)
    zout[-1] = 0
    if api.backward:
        run("inputSize spatial 0", lambda call: (set_arr("inputSize", [n, c] + zin)(call),
                                                 set_dst([n, c] + zin)(call)))
        run("outputSize spatial 0", lambda call: (set_arr("outputSize", zout)(call),
                                                  set_src([n, c] + zout)(call)))
    else:
        run("%s spatial size 0" % src_name, set_src([n, c] + zin))
        run("outputSize spatial 0", lambda call: (set_arr("outputSize", zout)(call),
                                                  set_dst([n, c] + zout)(call)))
        run("C = 0", lambda call: (set_src([n, 0] + src_sp)(call),
                                   set_dst([n, 0] + dst_sp)(call)))
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
        run("%s NCL format" % src_name, set_src([n, c] + src_sp, fmt=ACL_FORMAT_NCL))
        run("%s NC1HWC0 format" % src_name, set_src([n, c] + src_sp, fmt=ACL_FORMAT_NC1HWC0))
        if not api.backward:
            run("self NCHW, out NHWC", set_dst([n] + dst_sp + [c], fmt=ACL_FORMAT_NHWC))
    if r == 3 and not api.backward:
        run("self NCHW format (rank 5)", set_src([n, c] + src_sp, fmt=ACL_FORMAT_NCHW))
    # view that does not fit in its storage
    src_shape = [n, c] + src_sp
    dst_shape = [n, c] + dst_sp
    run("%s storageDims too small" % src_name,
        set_src(src_shape, storage_dims=[int(np.prod(src_shape)) - 1]), must_name=src_name)
    run("%s storageDims too small" % dst_name,
        set_dst(dst_shape, storage_dims=[int(np.prod(dst_shape)) - 1]), must_name=dst_name)

    def offset_too_big(call):
        t = tensor(src_shape)
        aclnn.load().aclDestroyTensor(t.handle)
        t.handle = aclnn.create_tensor(t.view_dims, ACL_FLOAT, t.strides, 1, api.fmt,
                                       [int(np.prod(src_shape))], t.storage.ctypes.data)
        call.args[src_name] = call.keep_t = t
    run("%s offset 1 past a storage of exactly the view's size" % src_name, offset_too_big,
        must_name=src_name)

    def null_data(call):
        t = tensor(src_shape)
        aclnn.load().aclDestroyTensor(t.handle)
        t.handle = aclnn.create_tensor(t.view_dims, ACL_FLOAT, t.strides, 0, api.fmt,
                                       [int(np.prod(src_shape))], None)
        call.args[src_name] = call.keep_t = t
    run("%s with NULL data and elements" % src_name, null_data, expected=(NP, INV))


def check_empty(api):
    for cl in ([False, True] if api.cl_fmt is not None else [False]):
        call = Call(api, n=0, channels_last=cl)
        st, ws, ex, msg = call.gws()
        ok = st == 0 and ws == 0
        report(ok, "%s: N=0 (%s) -> status %d workspaceSize %s %s" % (
            api.name, "channels-last" if cl else "channels-first", st, ws, msg))
        if st == 0:
            rr, m = aclnn.launch(api.name, None, 0, ex)
            report(rr == 0, "%s: N=0 run -> %d %s" % (api.name, rr, m))


def find_workspace_case(api):
    """A valid call that needs a workspace, if any of a few shapes does."""
    for cl in ([False, True] if api.cl_fmt is not None else [False]):
        for in_sp, out_sp in [(IN_SP[api.rank], OUT_SP[api.rank]),
                              ([17] * api.rank, [29] * api.rank),
                              ([40] * api.rank, [23] * api.rank)]:
            call = Call(api, in_sp=in_sp, out_sp=out_sp, channels_last=cl)
            st, ws, ex, msg = call.gws()
            if st == 0 and ws > 0:
                return call, ws, ex
            if st == 0 and ex:
                aclnn.load().aclDestroyAclOpExecutor(ex)
    return None, 0, None


def check_workspace(api):
    call, ws, ex = find_workspace_case(api)
    if call is None:
        if VERBOSE:
            print("note %s: no tried shape needs a workspace; phase-2 workspace checks skipped"
                  % api.name)
        return
    st, msg = aclnn.launch(api.name, None, ws, ex)
    expect_status("%s: phase 2 with workspace NULL (size %d needed)" % (api.name, ws), st, msg,
                  INV)
    call2 = call
    st2, ws2, ex2, _ = call2.gws()
    buf = aclnn.DeviceBuffer(ws2)
    st, msg = aclnn.launch(api.name, buf.ptr, ws2 - 1, ex2)
    expect_status("%s: phase 2 with workspaceSize %d < %d" % (api.name, ws2 - 1, ws2), st, msg,
                  INV)
    # the executors of failed launches: a valid launch afterwards still works
    st3, ws3, ex3, _ = call2.gws()
    buf3 = aclnn.DeviceBuffer(ws3)
    st, msg = aclnn.launch(api.name, buf3.ptr, ws3, ex3)
    report(st == 0, "%s: phase 2 with the right workspace -> %d %s" % (api.name, st, msg))


def check_executor_reuse(api):
    lib = aclnn.load()
    # without aclSetAclOpExecutorRepeatable: the second run must fail cleanly
    call = Call(api, rng=np.random.default_rng(5))
    st, ws, ex, msg = call.gws()
    if st != 0:
        report(False, "%s: executor reuse: GetWorkspaceSize -> %d %s" % (api.name, st, msg))
        return
    buf = aclnn.DeviceBuffer(max(ws, 1))
    st1, m1 = aclnn.launch(api.name, buf.ptr if ws else None, ws, ex)
    report(st1 == 0, "%s: first run -> %d %s" % (api.name, st1, m1))
    st2, m2 = aclnn.launch(api.name, buf.ptr if ws else None, ws, ex)
    report(st2 != 0, "%s: second run of a non-repeatable executor -> %d (expected non-zero), "
           "message: %r" % (api.name, st2, m2))
    # with it: two runs, identical results, then destroy
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
    same = all(np.array_equal(results[0], r, equal_nan=True) for r in results[1:])
    report(same and np.isfinite(results[0]).all(),
           "%s: repeatable executor gives identical finite results on every run" % api.name)
    # new input data in the same buffers: the re-run must read it
    call.src.storage[...] = aclnn.to_storage(np.zeros(call.src.storage.size), call.src.acl_dtype)
    st1, m1 = aclnn.launch(api.name, buf.ptr if ws else None, ws, ex)
    report(st1 == 0 and np.all(call.dst.to_numpy() == 0),
           "%s: repeatable executor re-reads its input (zeros in -> zeros out) -> %d %s" % (
               api.name, st1, m1))
    rd = lib.aclDestroyAclOpExecutor(ex)
    report(rd == 0, "%s: aclDestroyAclOpExecutor -> %d" % (api.name, rd))


def check_misc():
    lib = aclnn.load()
    st = lib.aclSetAclOpExecutorRepeatable(None)
    report(st == ACLNN_ERR_INNER_NULLPTR, "aclSetAclOpExecutorRepeatable(NULL) -> %d "
           "(expected %d)" % (st, ACLNN_ERR_INNER_NULLPTR))
    aclnn.recent_err_msg()
    # After a failure the message is there once, then cleared.
    call = Call(APIS[0])
    call.args["outputSize"] = None
    aclnn.get_workspace_size(APIS[0].name, *call.arglist())  # reads (and clears) the message
    again = aclnn.recent_err_msg()
    report(again == "", "aclGetRecentErrMsg is cleared after being read (second read %r)" % again)
    # Linear1d: scale 0 and -1 both mean "not given" (size-driven)
    for s in (0.0, -1.0):
        call = Call(APIS[0], scales=[s])
        st, ws, ex, msg = call.gws()
        report(st == 0, "aclnnUpsampleLinear1d: scales=%g (not given; CANN non-950 rejects 0) "
               "with L=7, outputSize [11] -> %d %s" % (s, st, msg))
        if st == 0:
            aclnn.load().aclDestroyAclOpExecutor(ex)
    # A scale that maps past the end of the input (torch 1.13 reads out of bounds there): no
    # crash; either a validation error or finite values.
    for api in (APIS[2], APIS[4]):
        call = Call(api, n=1, c=1, in_sp=[3, 1], out_sp=[4, 5], scales=[0.3, 0.6])
        st, ws, ex, msg = call.gws()
        if st == 0:
            buf = aclnn.DeviceBuffer(max(ws, 1))
            st, msg = aclnn.launch(api.name, buf.ptr if ws else None, ws, ex)
        vals = call.dst.to_numpy()
        report(st == INV or (st == 0 and np.isfinite(vals).all()),
               "%s: scales that point past the input end -> %d %r (finite: %s)" % (
                   api.name, st, msg, bool(np.isfinite(vals).all())))


def main():
    print("test_api_linear: library %s" % aclnn._lib_path())
    acl = aclnn.Acl()
    for api in APIS:
        if not aclnn.has_op(api.name):
            report(False, "%s / %sGetWorkspaceSize not exported by the library" % (
                api.name, api.name))
            continue
        for check in (check_nulls, check_validation, check_empty, check_workspace,
                      check_executor_reuse):
            try:
                check(api)
            except Exception as e:  # a crash in the harness, reported as a failure
                import traceback
                report(False, "%s: %s raised %s: %s" % (
                    api.name, check.__name__, type(e).__name__,
                    traceback.format_exc().strip().splitlines()[-3:]))
    if all(aclnn.has_op(a.name) for a in APIS[:1] + APIS[2:5:2]):
        check_misc()
    acl.finalize()
    print("%d passed, %d failed" % (counts["passed"], counts["failed"]))
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
