"""The machinery of the API-contract tests (test_api_linear.py, test_api_family.py): an entry
point's contract (`Api`), one call's arguments as a mutable dict (`Call`), tensors over a fresh
storage with any storage dims / offset / NULL data (`tensor`), status checks that also require
aclGetRecentErrMsg to explain a failure (`expect_status`), argument mutators for validation
checks (`Validator`), the checks every entry point shares (NULL arguments, N = 0, phase-2
workspace, executor reuse, the error message's lifetime) and the body of a suite (`main`).

The suites list their entry points and the validation rules that differ between families.
"""

import numpy as np

from . import aclnn
from .aclnn import (ACL_FORMAT_NCDHW, ACL_FORMAT_NCHW, ACL_FORMAT_NCL, ACL_FORMAT_ND,
                    ACL_FORMAT_NDHWC, ACL_FORMAT_NHWC, ACLNN_ERR_PARAM_INVALID,
                    ACLNN_ERR_PARAM_NULLPTR, FORMAT_NAMES, CString, FloatArray, IntArray)
from .report import VERBOSE, Reporter
from .storage import (ACL_BF16, ACL_DOUBLE, ACL_FLOAT, ACL_FLOAT16, STORAGE_NP, from_storage,
                      to_storage)
from .tensors import fmt_dims, make_output, make_tensor

NP, INV = ACLNN_ERR_PARAM_NULLPTR, ACLNN_ERR_PARAM_INVALID
report = Reporter()

NCL, ND = (ACL_FORMAT_NCL, False), (ACL_FORMAT_ND, False)
NCHW, NHWC = (ACL_FORMAT_NCHW, False), (ACL_FORMAT_NHWC, True)
NCDHW, NDHWC = (ACL_FORMAT_NCDHW, False), (ACL_FORMAT_NDHWC, True)

# Default spatial sizes of a call (input, output).
IN_SP = {1: [7], 2: [5, 6], 3: [3, 4, 5]}
OUT_SP = {1: [11], 2: [10, 3], 3: [5, 3, 8]}
RESIZE_SCALES = [2.0, 0.5]  # aclnnResize: in [5, 6] -> out [10, 3]


class Api:
    """An entry point's contract (docs/ops.md).

    formats: the layouts (format, channels-last) the calls use: the accepted formats where a
    suite checks formats (None: any; dims read as N, C, spatial unless channels-last);
    in_order: how inputSize is ordered (logical | grad | out); n_positive: N = 0 rejected;
    null_status: {argument: expected status(es)} where a NULL argument is not
    ACLNN_ERR_PARAM_NULLPTR; in_sp / out_sp: the default spatial sizes. For the suites' own
    validation rules: equal: input and output formats must be equal; dtypes: the accepted ones;
    scale_rule: none | axis | all | ignored; nonneg: negative scales rejected."""

    def __init__(self, name, arg_names, rank, backward, formats, equal=True, dtypes=None,
                 scale_rule="axis", nonneg=False, n_positive=False, in_order="logical",
                 resize=False, null_status=None, in_sp=None, out_sp=None):
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
        self.null_status = null_status or {}
        self.in_sp = list(in_sp or IN_SP[rank])
        self.out_sp = list(out_sp or OUT_SP[rank])
        self.src_name = arg_names[0]
        self.dst_name = arg_names[-1]
        self.scale_names = [] if resize else [a for a in arg_names if a.startswith("scale")]
        self.has_align = "alignCorners" in arg_names

    def layouts(self):
        if self.formats is None:
            return {1: [NCL], 2: [NCHW, NHWC], 3: [NCDHW, NDHWC, ND]}[self.rank]
        return self.formats


def tensor(shape, dtype=ACL_FLOAT, fmt=ACL_FORMAT_ND, storage_dims=None, offset=0,
           null_data=False, rng=None):
    """A tensor over a fresh storage (random values, zeros for integer dtypes or without rng);
    storage_dims / offset / null_data re-create the aclTensor with those."""
    if dtype in (ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE) and rng is not None:
        raw = to_storage(rng.standard_normal(shape).astype(np.float32), dtype)
    else:
        raw = np.zeros(shape, dtype=STORAGE_NP[dtype])
    t = make_tensor(np.asarray(raw).reshape(shape), dtype, fmt)
    if storage_dims is not None or offset or null_data:
        aclnn.load().aclDestroyTensor(t.handle)
        sd = storage_dims if storage_dims is not None else t.storage_dims
        t.handle = aclnn.create_tensor(t.view_dims, dtype, t.strides, offset, fmt, sd,
                                       None if null_data else t.storage.ctypes.data)
        t.storage_dims = sd
    return t


class Call:
    """The arguments of one valid call as a mutable dict keyed by parameter name."""

    def __init__(self, api, n=2, c=3, in_sp=None, out_sp=None, dtype=ACL_FLOAT, out_dtype=None,
                 layout=None, out_layout=None, align=False, scales=None, mode="bilinear",
                 rng=None):
        self.api = api
        rng = rng or np.random.default_rng(1)
        in_sp = list(in_sp or api.in_sp)
        out_sp = list(out_sp or api.out_sp)
        layout = layout or api.layouts()[0]
        out_layout = out_layout or layout
        (fmt, cl), (ofmt, ocl) = layout, out_layout
        self.keep = []
        src_sp, dst_sp = (out_sp, in_sp) if api.backward else (in_sp, out_sp)
        self.src = tensor(fmt_dims([n, c] + src_sp, cl), dtype, fmt, rng=rng)
        self.dst = make_output(fmt_dims([n, c] + dst_sp, ocl),
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
                full = fmt_dims(full, cl)
            elif api.in_order == "out":
                full = fmt_dims(full, ocl)
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
    """Lower case without underscores: 'output_size' names 'outputSize'."""
    return text.lower().replace("_", "")


def expect_status(desc, status, msg, expected, must_name=None):
    """expected: an int or a tuple of accepted ints (None = any non-zero). A failure status
    also needs a message (naming must_name when given)."""
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


def run_executor(api_name, ws, ex, stream=None):
    """Phase 2 with a workspace of the size asked for (alive until the run returns)."""
    buf = aclnn.DeviceBuffer(ws) if ws else None
    st, msg = aclnn.launch(api_name, buf.ptr if buf else None, ws, ex, stream)
    return st, msg


# ---------------------------------------------------------------------------------------------
# Validation: a valid call with one thing changed must fail GetWorkspaceSize.

def both(*fs):
    """One mutator applying several."""
    def f(call):
        for g in fs:
            g(call)
    return f


class Validator:
    """run(desc, mutate, expected=INV, must_name=None, **Call kwargs) builds a valid call,
    applies `mutate` and checks GetWorkspaceSize's status; src / dst / arr / arg make the
    mutators (a source / destination tensor of another shape, dtype, format or storage, an
    aclIntArray, a plain argument). Tensors default to float32 in the first layout's format.
    n, c, src_sp / dst_sp, src_shape / dst_shape: the valid call's (logical) sizes."""

    def __init__(self, api):
        self.api = api
        self.fmt0 = api.layouts()[0][0]
        self.n, self.c = 2, 3
        self.src_sp, self.dst_sp = (api.out_sp, api.in_sp) if api.backward else \
            (api.in_sp, api.out_sp)
        self.src_shape = [self.n, self.c] + self.src_sp
        self.dst_shape = [self.n, self.c] + self.dst_sp

    def run(self, desc, mutate, expected=INV, must_name=None, **call_kw):
        call = Call(self.api, **call_kw)
        mutate(call)
        st, ws, ex, msg = call.gws()
        ok = expect_status("%s: %s" % (self.api.name, desc), st, msg, expected, must_name)
        if st == 0 and ex:
            aclnn.load().aclDestroyAclOpExecutor(ex)
        return ok

    def src(self, shape, dtype=ACL_FLOAT, fmt=None, **kw):
        def f(call):
            call.args[self.api.src_name] = call.keep_t = tensor(
                shape, dtype, self.fmt0 if fmt is None else fmt, **kw)
        return f

    def dst(self, shape, dtype=ACL_FLOAT, fmt=None, **kw):
        def f(call):
            call.args[self.api.dst_name] = call.keep_d = tensor(
                shape, dtype, self.fmt0 if fmt is None else fmt, **kw)
        return f

    @staticmethod
    def arr(key, values):
        def f(call):
            call.args[key] = call.keep_a = IntArray(values)
        return f

    @staticmethod
    def arg(key, value):
        def f(call):
            call.args[key] = value
        return f


def check_dtype_mismatch(api, v):
    """Source and destination dtypes must be equal."""
    s, d = api.src_name, api.dst_name
    v.run("%s f32, %s f16" % (s, d), v.dst(v.dst_shape, ACL_FLOAT16))
    v.run("%s f32, %s f64" % (s, d), v.dst(v.dst_shape, ACL_DOUBLE))
    v.run("%s bf16, %s f32" % (s, d), v.src(v.src_shape, ACL_BF16))


def check_input_size(api, v):
    """Backward: inputSize must match the destination, gradOut outputSize, and inputSize's N / C
    the source's."""
    s, d = api.src_name, api.dst_name
    n, c = v.n, v.c
    bad_in = [n, c] + list(api.in_sp)
    bad_in[-1] += 1
    v.run("%s shape does not match inputSize %s" % (d, bad_in), v.arr("inputSize", bad_in))
    bad_g = [n, c] + list(api.out_sp)
    bad_g[2] += 1
    v.run("%s shape %s does not match outputSize" % (s, bad_g), v.src(bad_g))
    v.run("inputSize N differs from %s" % s, v.arr("inputSize", [n + 1, c] + api.in_sp))
    v.run("inputSize C differs from %s" % s, v.arr("inputSize", [n, c + 1] + api.in_sp))


def check_nc_mismatch(api, v):
    """Source and destination N / C must be equal."""
    s, d = api.src_name, api.dst_name
    n, c, dst_sp = v.n, v.c, v.dst_sp
    v.run("%s N=%d, %s N=%d" % (s, n, d, n + 1), v.dst([n + 1, c] + dst_sp))
    v.run("%s C=%d, %s C=%d" % (s, c, d, c + 1), v.dst([n, c + 1] + dst_sp))


def check_zero_sizes(api, v):
    """A spatial size 0 on either side (and C = 0 for a forward) is rejected."""
    n, c, in_sp, out_sp = v.n, v.c, api.in_sp, api.out_sp
    zin = list(in_sp)
    zin[0] = 0
    zout = list(out_sp)
    zout[-1] = 0
    if api.backward:
        v.run("inputSize spatial 0", both(v.arr("inputSize", [n, c] + zin), v.dst([n, c] + zin)))
        v.run("outputSize spatial 0", both(v.arr("outputSize", zout), v.src([n, c] + zout)))
    else:
        v.run("%s spatial size 0" % api.src_name, v.src([n, c] + zin))
        v.run("outputSize spatial 0", both(v.arr("outputSize", zout), v.dst([n, c] + zout)))
        v.run("C = 0", both(v.src([n, 0] + in_sp), v.dst([n, 0] + out_sp)))


def check_storage_too_small(api, v):
    """Views that need more elements than their storage dims hold."""
    for name, mut, shape in ((api.src_name, v.src, v.src_shape),
                             (api.dst_name, v.dst, v.dst_shape)):
        v.run("%s storageDims too small" % name,
              mut(shape, storage_dims=[int(np.prod(shape)) - 1]), must_name=name)


# ---------------------------------------------------------------------------------------------
# The checks every entry point shares.

def check_nulls(api):
    """NULL tensors / arrays, NULL workspaceSize / executor outputs, NULL data under a
    non-empty view."""
    names = [api.src_name, api.dst_name] + (["scales", "mode"] if api.resize else
                                            ["outputSize"] + (["inputSize"] if api.backward
                                                              else []))
    for name in names:
        call = Call(api)
        call.args[name] = None
        st, _, _, msg = call.gws()
        expect_status("%s: %s = NULL" % (api.name, name), st, msg,
                      api.null_status.get(name, NP), must_name=name)
    call = Call(api)
    st, _, _, msg = call.gws(ws_ptr=None)
    expect_status("%s: workspaceSize = NULL" % api.name, st, msg, NP, must_name="workspaceSize")
    st, _, _, msg = call.gws(exec_ptr=None)
    expect_status("%s: executor = NULL" % api.name, st, msg, NP, must_name="executor")
    for which in (api.src_name, api.dst_name):
        call = Call(api)
        t = call.args[which]
        call.args[which] = call.keep_t = tensor(t.view_dims, t.acl_dtype, t.fmt, null_data=True)
        st, _, _, msg = call.gws()
        expect_status("%s: %s with NULL data and elements" % (api.name, which), st, msg,
                      (NP, INV), must_name=which)


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
    """Phase 2 with a missing or short workspace fails cleanly (when one is needed), and the
    right one works afterwards."""
    for layout in api.layouts():
        for in_sp, out_sp in [(api.in_sp, api.out_sp),
                              ([17] * api.rank, [29] * api.rank),
                              ([40] * api.rank, [23] * api.rank)]:
            if api.resize:
                if in_sp == api.in_sp:
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
            # the executors of failed launches: a valid launch afterwards still works
            st3, ws3, ex3, _ = call.gws()
            buf3 = aclnn.DeviceBuffer(ws3)
            st, msg = aclnn.launch(api.name, buf3.ptr, ws3, ex3)
            report(st == 0, "%s: phase 2 with the right workspace -> %d %s" % (api.name, st, msg))
            return
    if VERBOSE:
        print("note %s: no tried shape needs a workspace; phase-2 workspace checks skipped"
              % api.name)


def check_executor_reuse(api):
    """A non-repeatable executor runs once; a repeatable one runs again (also on a stream) with
    identical results, re-reads its input, and is gone after aclDestroyAclOpExecutor."""
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
    call.src.storage[...] = to_storage(np.zeros(call.src.storage.size), call.src.acl_dtype)
    st1, m1 = aclnn.launch(api.name, buf.ptr if ws else None, ws, ex)
    report(st1 == 0 and np.all(call.dst.to_numpy() == 0),
           "%s: repeatable executor re-reads its input (zeros in -> zeros out) -> %d %s" % (
               api.name, st1, m1))
    rd = lib.aclDestroyAclOpExecutor(ex)
    report(rd == 0, "%s: aclDestroyAclOpExecutor -> %d" % (api.name, rd))
    st1, m1 = aclnn.launch(api.name, buf.ptr if ws else None, ws, ex)
    expect_status("%s: run after aclDestroyAclOpExecutor" % api.name, st1, m1, INV,
                  must_name="executor")


def check_extreme_scales(api):
    """Every finite positive scale is either accepted (finite results on finite data) or refused
    with 161002 and a message naming the bound: scales below 2^-100 (denormals included), whose
    reciprocal would not be representable. Entry points that ignore their scales accept all."""
    if api.resize or not api.scale_names:
        return
    float_params = "f" in aclnn.OP_SIGNATURES[api.name]
    used = api.scale_rule in ("axis", "all")
    values = [(1e-30, True), (1e30, True), (1e-39, not used), (1e-40, not used)]
    if not float_params:  # a float parameter rounds these to 0 ("not given") or inf
        values += [(1e300, True), (1e-310, not used), (5e-324, not used)]
    for value, accepted in values:
        call = Call(api, n=1, c=2, scales=[value] * len(api.scale_names),
                    rng=np.random.default_rng(8))
        st, ws, ex, msg = call.gws()
        desc = "%s: every scale = %g" % (api.name, value)
        if not accepted:
            expect_status(desc, st, msg, INV, must_name="2^-100")
            continue
        report(st == 0, "%s -> %d %s" % (desc, st, msg))
        if st != 0:
            continue
        buf = aclnn.DeviceBuffer(max(ws, 1))
        rr, m = aclnn.launch(api.name, buf.ptr if ws else None, ws, ex)
        vals = call.dst.to_numpy()
        report(rr == 0 and np.isfinite(vals).all(),
               "%s: run -> %d %s (finite: %s)" % (desc, rr, m, bool(np.isfinite(vals).all())))


def check_overlap(api):
    """An output view over memory the input view reads is refused (161002 naming the overlap);
    the same two views side by side in one buffer run and give the separate buffers' result."""
    call = Call(api, n=1, c=2, rng=np.random.default_rng(9))
    src, dst = call.src, call.dst
    n_src, n_dst = int(np.prod(src.view_dims)), int(np.prod(dst.view_dims))
    st, ws, ex, _ = call.gws()
    if st != 0:
        report(False, "%s: the baseline call for the overlap check failed (%d)" % (api.name, st))
        return
    buf = aclnn.DeviceBuffer(max(ws, 1))
    aclnn.launch(api.name, buf.ptr if ws else None, ws, ex)
    separate = dst.to_numpy().copy()
    lib = aclnn.load()
    shared = np.zeros(n_src + n_dst, dtype=src.storage.dtype)
    shared[:n_src] = src.storage[:n_src]
    for dst_offset, overlapping in ((0, True), (n_src // 2, True), (n_src, False)):
        handles = []
        for t, offset in ((src, 0), (dst, dst_offset)):
            handles.append(aclnn.create_tensor(t.view_dims, t.acl_dtype, t.strides, offset,
                                               t.fmt, [n_src + n_dst], shared.ctypes.data))
        args = dict(call.args)
        args[api.src_name], args[api.dst_name] = handles[0], handles[1]  # raw handles
        st, ws, ex, msg = aclnn.get_workspace_size(api.name, *[args[k] for k in api.arg_names])
        desc = "%s: output view at element %d of the input's buffer" % (api.name, dst_offset)
        if overlapping:
            expect_status(desc, st, msg, INV, must_name="overlap")
        else:
            report(st == 0, "%s -> %d %s" % (desc, st, msg))
            if st == 0:
                buf = aclnn.DeviceBuffer(max(ws, 1))
                aclnn.launch(api.name, buf.ptr if ws else None, ws, ex)
                got = from_storage(shared[n_src:], dst.acl_dtype).reshape(separate.shape)
                report(np.array_equal(got, separate, equal_nan=True),
                       "%s: equals the result in a separate buffer" % desc)
        for h in handles:
            lib.aclDestroyTensor(h)


def check_recent_err_msg(api):
    """After a failure the message is there once, then cleared; a success leaves none."""
    call = Call(api)
    call.args["outputSize"] = None
    aclnn.get_workspace_size(api.name, *call.arglist())  # reads (and clears) the message
    again = aclnn.recent_err_msg()
    report(again == "", "aclGetRecentErrMsg is cleared after being read (second read %r)" % again)
    call = Call(api)
    st, ws, ex, msg = call.gws()
    m = aclnn.recent_err_msg()
    report(st == 0 and m == "", "aclGetRecentErrMsg after a successful call: %r" % m)
    if st == 0:
        aclnn.load().aclDestroyAclOpExecutor(ex)


# ---------------------------------------------------------------------------------------------

def main(name, apis, checks, misc=None):
    """The body of an API suite: every check on every exported entry point (a crash in the
    harness is a failure), then misc(), then the `N passed, N failed` line."""
    print("%s: library %s" % (name, aclnn.lib_path()))
    acl = aclnn.Acl()
    for api in apis:
        if not aclnn.has_op(api.name):
            report(False, "%s / %sGetWorkspaceSize not exported by the library" % (
                api.name, api.name))
            continue
        for check in checks:
            try:
                check(api)
            except Exception as e:  # a crash in the harness, reported as a failure
                import traceback
                report(False, "%s: %s raised %s: %s" % (
                    api.name, check.__name__, type(e).__name__,
                    traceback.format_exc().strip().splitlines()[-3:]))
    if misc is not None:
        misc()
    acl.finalize()
    print("%d passed, %d failed" % (report.passed, report.failed))
    return 1 if report.failed else 0
