"""ctypes bindings of libupsample.so: the acl runtime, the aclnn meta objects and the aclnn
upsample operators, driven exactly as a CANN program drives them. Nothing here knows about a
particular operator's semantics.

    from harness import aclnn
    acl = aclnn.Acl()                                  # loads $UPSAMPLE_LIB, aclInit, SetDevice
    x = aclnn.TensorBuf.from_values(arr, aclnn.ACL_FLOAT, aclnn.ACL_FORMAT_NCHW)
    y = aclnn.TensorBuf.empty([1, 3, 8, 8], aclnn.ACL_FLOAT, aclnn.ACL_FORMAT_NCHW)
    out_size = aclnn.IntArray([8, 8])
    r = acl.call("aclnnUpsampleBilinear2d", x, out_size, False, 0.0, 0.0, y)
    assert r.ok, r
    result = y.to_numpy()

Tensor memory: the library's "device" memory is host memory, so a TensorBuf either points the
aclTensor at a numpy buffer directly (device=False) or allocates an aclrtMalloc buffer and
copies in / out with aclrtMemcpy (device=True), like the CANN examples do.
"""

import ctypes
import os

import numpy as np

# The dtype codes, re-exported: a test using the bindings names dtypes as aclnn.ACL_FLOAT.
from .storage import (ACL_BF16, ACL_DOUBLE, ACL_DT_UNDEFINED, ACL_FLOAT,  # noqa: F401
                      ACL_FLOAT16, ACL_INT8, ACL_INT32, ACL_INT64, ACL_UINT8, DTYPE_NAMES,
                      STORAGE_NP, bits, from_storage, to_storage)

# ---------------------------------------------------------------------------------------------
# Enum values (CANN acl_base_rt.h / acl_meta.h).
ACL_FORMAT_UNDEFINED = -1
ACL_FORMAT_NCHW = 0
ACL_FORMAT_NHWC = 1
ACL_FORMAT_ND = 2
ACL_FORMAT_NC1HWC0 = 3
ACL_FORMAT_NDHWC = 27
ACL_FORMAT_NCDHW = 30
ACL_FORMAT_NCL = 47

ACL_MEMCPY_HOST_TO_HOST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_MEMCPY_DEVICE_TO_DEVICE = 3

ACL_MEM_MALLOC_HUGE_FIRST = 0

ACL_SUCCESS = 0
ACLNN_SUCCESS = 0
ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002
ACLNN_ERR_RUNTIME_ERROR = 361001
ACLNN_ERR_INNER = 561000
ACLNN_ERR_INNER_NULLPTR = 561103

FORMAT_NAMES = {ACL_FORMAT_NCHW: "NCHW", ACL_FORMAT_NHWC: "NHWC", ACL_FORMAT_ND: "ND",
                ACL_FORMAT_NDHWC: "NDHWC", ACL_FORMAT_NCDHW: "NCDHW", ACL_FORMAT_NCL: "NCL",
                ACL_FORMAT_NC1HWC0: "NC1HWC0"}

# ---------------------------------------------------------------------------------------------
# The library.

c_int64_p = ctypes.POINTER(ctypes.c_int64)
c_void_pp = ctypes.POINTER(ctypes.c_void_p)


def lib_path():
    """$UPSAMPLE_LIB, else libupsample.so in $UPSAMPLE_BUILD_DIR (default: the source tree's
    build/)."""
    path = os.environ.get("UPSAMPLE_LIB")
    if not path:
        build = os.environ.get("UPSAMPLE_BUILD_DIR", os.path.join(os.path.dirname(
            os.path.abspath(__file__)), "..", "..", "..", "build"))
        path = os.path.join(build, "libupsample.so")
    return path


_LIB = None
MISSING_SYMBOLS = []  # runtime / meta functions the library does not export


def load():
    """Loads the library once and declares the runtime / meta signatures."""
    global _LIB
    if _LIB is not None:
        return _LIB
    lib = ctypes.CDLL(os.path.abspath(lib_path()))
    sig = {
        "aclInit": (ctypes.c_int, [ctypes.c_char_p]),
        "aclFinalize": (ctypes.c_int, []),
        "aclrtSetDevice": (ctypes.c_int, [ctypes.c_int32]),
        "aclrtResetDevice": (ctypes.c_int, [ctypes.c_int32]),
        "aclrtCreateStream": (ctypes.c_int, [c_void_pp]),
        "aclrtDestroyStream": (ctypes.c_int, [ctypes.c_void_p]),
        "aclrtSynchronizeStream": (ctypes.c_int, [ctypes.c_void_p]),
        "aclrtMalloc": (ctypes.c_int, [c_void_pp, ctypes.c_size_t, ctypes.c_int]),
        "aclrtFree": (ctypes.c_int, [ctypes.c_void_p]),
        "aclrtMemcpy": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                                       ctypes.c_size_t, ctypes.c_int]),
        "aclCreateTensor": (ctypes.c_void_p, [c_int64_p, ctypes.c_uint64, ctypes.c_int,
                                              c_int64_p, ctypes.c_int64, ctypes.c_int,
                                              c_int64_p, ctypes.c_uint64, ctypes.c_void_p]),
        "aclDestroyTensor": (ctypes.c_int32, [ctypes.c_void_p]),
        "aclCreateIntArray": (ctypes.c_void_p, [c_int64_p, ctypes.c_uint64]),
        "aclDestroyIntArray": (ctypes.c_int32, [ctypes.c_void_p]),
        "aclCreateFloatArray": (ctypes.c_void_p, [ctypes.POINTER(ctypes.c_float),
                                                  ctypes.c_uint64]),
        "aclDestroyFloatArray": (ctypes.c_int32, [ctypes.c_void_p]),
        "aclGetRecentErrMsg": (ctypes.c_char_p, []),
        "aclSetAclOpExecutorRepeatable": (ctypes.c_int32, [ctypes.c_void_p]),
        "aclDestroyAclOpExecutor": (ctypes.c_int32, [ctypes.c_void_p]),
    }
    for name, (restype, argtypes) in sig.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:  # not exported: an AttributeError when a test calls it
            MISSING_SYMBOLS.append(name)
            continue
        fn.restype = restype
        fn.argtypes = argtypes
    _LIB = lib
    return lib


def recent_err_msg():
    """aclGetRecentErrMsg() as a str ('' when NULL). Reading it clears it."""
    msg = load().aclGetRecentErrMsg()
    return msg.decode("utf-8", "replace") if msg else ""


def _i64_array(values):
    values = [int(v) for v in values]
    return (ctypes.c_int64 * max(1, len(values)))(*values)


# ---------------------------------------------------------------------------------------------
# Operator signatures: the leading GetWorkspaceSize parameters (the trailing
# `uint64_t* workspaceSize, aclOpExecutor** executor` are implied). "T" = aclTensor*,
# "A" = aclIntArray* (or aclFloatArray*, char*: any handle), "b" = bool, "d" = double,
# "f" = float.

OP_SIGNATURES = {
    "aclnnUpsampleLinear1d": "TAbdT",
    "aclnnUpsampleLinear1dBackward": "TAAbdT",
    "aclnnUpsampleBilinear2d": "TAbddT",
    "aclnnUpsampleBilinear2dBackward": "TAAbddT",
    "aclnnUpsampleBilinear2dBackwardV2": "TAAbddT",
    "aclnnUpsampleTrilinear3d": "TAbdddT",
    "aclnnUpsampleTrilinear3dBackward": "TAAbdddT",
    "aclnnUpsampleNearest1d": "TAT",
    "aclnnUpsampleNearest2d": "TAT",
    "aclnnUpsampleNearest1dV2": "TAfT",
    "aclnnUpsampleNearest2dV2": "TAffT",
    "aclnnUpsampleNearest3d": "TAdddT",
    "aclnnUpsampleNearestExact1d": "TAdT",
    "aclnnUpsampleNearestExact2d": "TAddT",
    "aclnnUpsampleNearestExact3d": "TAdddT",
    "aclnnUpsampleNearest1dBackward": "TAAdT",
    "aclnnUpsampleNearest2dBackward": "TAAddT",
    "aclnnUpsampleNearest3dBackward": "TAAdddT",
    "aclnnUpsampleNearestExact1dBackward": "TAAdT",
    "aclnnUpsampleNearestExact2dBackward": "TAAddT",
    "aclnnUpsampleNearestExact3dBackward": "TAAdddT",
    "aclnnUpsampleBilinear2dAA": "TAbddT",
    "aclnnUpsampleBilinear2dAABackward": "TAAbddT",
    "aclnnUpsampleBicubic2d": "TAbddT",
    "aclnnUpsampleBicubic2dBackward": "TAAbddT",
    "aclnnUpsampleBicubic2dAA": "TAbddT",
    "aclnnUpsampleBicubic2dAAGrad": "TAAbddT",
    # aclnnResize(self, const aclFloatArray* scales, const char* mode, out)
    "aclnnResize": "TAAT",
}

_CT = {"T": ctypes.c_void_p, "A": ctypes.c_void_p, "b": ctypes.c_bool, "d": ctypes.c_double,
       "f": ctypes.c_float}

_declared = {}


def op_functions(name):
    """(getWorkspaceSize, run) ctypes functions of operator `name`, declared once.
    Raises AttributeError when the library does not export them."""
    if name in _declared:
        return _declared[name]
    lib = load()
    sig = OP_SIGNATURES[name]
    gws = getattr(lib, name + "GetWorkspaceSize")
    gws.restype = ctypes.c_int32
    gws.argtypes = [_CT[c] for c in sig] + [ctypes.POINTER(ctypes.c_uint64), c_void_pp]
    run = getattr(lib, name)
    run.restype = ctypes.c_int32
    run.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p]
    _declared[name] = (gws, run)
    return gws, run


def has_op(name):
    try:
        op_functions(name)
        return True
    except AttributeError:
        return False


def _arg_value(kind, value):
    if kind in "TA":
        if value is None:
            return None
        if isinstance(value, int):  # a raw handle
            return value
        return value.handle
    if kind == "b":
        return bool(value)
    return float(value)


class _Owned:
    """An acl object created by the library, destroyed with the Python object or by destroy()."""

    _destroy_name = None  # the library function that destroys one

    def destroy(self):
        if self.handle:
            getattr(load(), self._destroy_name)(self.handle)
            self.handle = None

    def __del__(self):
        try:
            self.destroy()
        except Exception:
            pass


class IntArray(_Owned):
    """An aclIntArray (aclCreateIntArray)."""

    _destroy_name = "aclDestroyIntArray"

    def __init__(self, values):
        self.values = [int(v) for v in values]
        arr = _i64_array(self.values)
        self.handle = load().aclCreateIntArray(arr, len(self.values))
        if not self.handle:
            raise RuntimeError("aclCreateIntArray failed: " + recent_err_msg())


class FloatArray(_Owned):
    """An aclFloatArray (aclCreateFloatArray) of the values rounded to float32."""

    _destroy_name = "aclDestroyFloatArray"

    def __init__(self, values):
        self.values = [float(np.float32(v)) for v in values]
        arr = (ctypes.c_float * max(1, len(self.values)))(*self.values)
        self.handle = load().aclCreateFloatArray(arr, len(self.values))
        if not self.handle:
            raise RuntimeError("aclCreateFloatArray failed: " + recent_err_msg())


class CString:
    """A NUL-terminated char* argument (passed as a handle)."""

    def __init__(self, text):
        self.buf = ctypes.create_string_buffer(text.encode())
        self.handle = ctypes.cast(self.buf, ctypes.c_void_p).value


class DeviceBuffer:
    """aclrtMalloc'd memory."""

    def __init__(self, nbytes):
        self.nbytes = int(nbytes)
        p = ctypes.c_void_p()
        ret = load().aclrtMalloc(ctypes.byref(p), max(1, self.nbytes), ACL_MEM_MALLOC_HUGE_FIRST)
        if ret != ACL_SUCCESS or not p.value:
            raise RuntimeError("aclrtMalloc(%d) failed: %d %s" % (nbytes, ret, recent_err_msg()))
        self.ptr = p.value

    def upload(self, host):
        host = np.ascontiguousarray(host)
        ret = load().aclrtMemcpy(self.ptr, self.nbytes, host.ctypes.data, host.nbytes,
                                 ACL_MEMCPY_HOST_TO_DEVICE)
        if ret != ACL_SUCCESS:
            raise RuntimeError("aclrtMemcpy H2D failed: %d %s" % (ret, recent_err_msg()))

    def download(self, host):
        assert host.flags.c_contiguous
        ret = load().aclrtMemcpy(host.ctypes.data, host.nbytes, self.ptr, host.nbytes,
                                 ACL_MEMCPY_DEVICE_TO_HOST)
        if ret != ACL_SUCCESS:
            raise RuntimeError("aclrtMemcpy D2H failed: %d %s" % (ret, recent_err_msg()))

    def free(self):
        if self.ptr:
            load().aclrtFree(self.ptr)
            self.ptr = None

    def __del__(self):
        try:
            self.free()
        except Exception:
            pass


def create_tensor(view_dims, acl_dtype, strides, offset, fmt, storage_dims, data_ptr):
    """Raw aclCreateTensor; returns the handle (int) or None. strides=None passes NULL."""
    lib = load()
    vd = _i64_array(view_dims)
    st = _i64_array(strides) if strides is not None else None
    sd = _i64_array(storage_dims) if storage_dims is not None else None
    h = lib.aclCreateTensor(vd, len(view_dims), int(acl_dtype), st, int(offset), int(fmt), sd,
                            len(storage_dims) if storage_dims is not None else 0, data_ptr)
    return h


class TensorBuf:
    """A host (numpy) or aclrtMalloc storage buffer plus an aclTensor view over it.

    `storage` is a flat numpy array in the dtype's raw storage type; the view is
    (view_dims, strides, offset) in elements, with dims given in the format's order (as CANN
    expects, e.g. [N, H, W, C] for NHWC)."""

    def __init__(self, storage, acl_dtype, fmt, view_dims, strides, offset, storage_dims=None,
                 device=False):
        self.storage = np.ascontiguousarray(storage).reshape(-1)
        assert self.storage.dtype == STORAGE_NP[acl_dtype], (self.storage.dtype, acl_dtype)
        self.acl_dtype = acl_dtype
        self.fmt = fmt
        self.view_dims = [int(v) for v in view_dims]
        self.strides = [int(s) for s in strides]
        self.offset = int(offset)
        self.storage_dims = list(storage_dims) if storage_dims is not None else [self.storage.size]
        self.device = device
        self.dev = None
        if device:
            self.dev = DeviceBuffer(self.storage.nbytes)
            self.dev.upload(self.storage)
            ptr = self.dev.ptr
        else:
            ptr = self.storage.ctypes.data if self.storage.size else None
        self.handle = create_tensor(self.view_dims, acl_dtype, self.strides, self.offset, fmt,
                                    self.storage_dims, ptr)
        if not self.handle:
            raise RuntimeError("aclCreateTensor failed: " + recent_err_msg())

    # -- constructors ---------------------------------------------------------------------

    @staticmethod
    def layout(shape, step=None, order=None):
        """Storage shape (physical order), view strides and storage element count for a view
        of `shape` that takes every step[d]-th element along dim d of a storage whose dims are
        laid out in `order` (outermost first; default: the view's own order)."""
        nd = len(shape)
        step = list(step) if step is not None else [1] * nd
        order = list(order) if order is not None else list(range(nd))
        st_shape = [max(1, s) * k for s, k in zip(shape, step)]
        strides = [0] * nd
        acc = 1
        for d in reversed(order):
            strides[d] = acc * step[d]
            acc *= st_shape[d]
        return [st_shape[d] for d in order], strides, acc

    @classmethod
    def from_raw(cls, raw, acl_dtype, fmt, fill_raw, step=None, order=None, pad=0, device=False):
        """A tensor whose view holds the raw storage values `raw` (shape = view dims, in the
        format's order), bit for bit.

        step:  one int per dim; the view takes every step-th element of a bigger storage.
        order: the storage's physical dim order (e.g. channels-last strides under NCHW dims).
        pad:   extra storage elements before the view (the view's offset).
        The rest of the storage holds `fill_raw` (one raw storage value), so that stray reads
        show up and stray writes can be detected."""
        raw = np.asarray(raw)
        shape = list(raw.shape)
        phys_shape, strides, numel = cls.layout(shape, step, order)
        st = STORAGE_NP[acl_dtype]
        storage = np.empty(pad + numel, dtype=st)
        bits(storage)[...] = bits(np.asarray(fill_raw, dtype=st).reshape(1))[0]
        if raw.size:
            view = np.lib.stride_tricks.as_strided(
                bits(storage)[pad:], shape=shape, strides=[s * storage.itemsize for s in strides])
            view[...] = bits(raw)
        storage_dims = [pad + numel] if pad else phys_shape
        return cls(storage, acl_dtype, fmt, shape, strides, pad, storage_dims, device)

    @classmethod
    def from_values(cls, values, acl_dtype, fmt, step=None, order=None, pad=0, device=False,
                    fill=None):
        """A tensor whose view holds `values` converted to the dtype, the rest of its storage
        `fill` (default NaN; 0 for integer dtypes); step / order / pad: see from_raw."""
        if acl_dtype in (ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_BF16):
            fill_raw = to_storage(np.full(1, np.nan if fill is None else fill), acl_dtype)[0]
        else:
            fill_raw = 0 if fill is None else fill
        return cls.from_raw(to_storage(np.asarray(values), acl_dtype), acl_dtype, fmt, fill_raw,
                            step=step, order=order, pad=pad, device=device)

    @classmethod
    def empty(cls, shape, acl_dtype, fmt, step=None, order=None, pad=0, device=False, fill=None):
        """An output tensor: the whole storage (view included) starts as `fill` (default NaN)."""
        vals = np.full(shape, np.nan if fill is None else fill, dtype=np.float64)
        return cls.from_values(vals, acl_dtype, fmt, step=step, order=order, pad=pad,
                               device=device, fill=fill)

    # -- reading back ---------------------------------------------------------------------

    def sync_from_device(self):
        if self.device:
            self.dev.download(self.storage)

    def raw_view(self):
        self.sync_from_device()
        return np.lib.stride_tricks.as_strided(
            self.storage[self.offset:], shape=self.view_dims,
            strides=[s * self.storage.itemsize for s in self.strides])

    def to_numpy(self):
        """The view's values: float16 / float32 (also for bf16) / float64."""
        return from_storage(np.array(self.raw_view()), self.acl_dtype)

    def outside_view_mask(self):
        """Boolean mask over the storage: True where the view does not reach."""
        mask = np.ones(self.storage.size, dtype=bool)
        idx = np.lib.stride_tricks.as_strided(
            np.arange(self.storage.size)[self.offset:], shape=self.view_dims,
            strides=[s * 8 for s in self.strides])
        mask[np.array(idx).reshape(-1)] = False
        return mask

    def destroy(self):
        if getattr(self, "handle", None):
            load().aclDestroyTensor(self.handle)
            self.handle = None
        if self.dev is not None:
            self.dev.free()
            self.dev = None

    def __del__(self):
        try:
            self.destroy()
        except Exception:
            pass


class Result:
    """Outcome of a two-phase call."""

    def __init__(self, status, phase, message="", workspace_size=None):
        self.status = status
        self.phase = phase            # "getWorkspaceSize", "run", "sync" or "done"
        self.message = message
        self.workspace_size = workspace_size

    @property
    def ok(self):
        return self.status == 0

    def __repr__(self):
        return "Result(status=%d, phase=%s, ws=%s, msg=%r)" % (
            self.status, self.phase, self.workspace_size, self.message)


class Stream:
    def __init__(self):
        s = ctypes.c_void_p()
        ret = load().aclrtCreateStream(ctypes.byref(s))
        if ret != ACL_SUCCESS:
            raise RuntimeError("aclrtCreateStream failed: %d %s" % (ret, recent_err_msg()))
        self.handle = s.value

    def sync(self):
        return load().aclrtSynchronizeStream(self.handle)

    def destroy(self):
        if self.handle:
            load().aclrtDestroyStream(self.handle)
            self.handle = None


def get_workspace_size(name, *args, ws_ptr="auto", exec_ptr="auto"):
    """Calls nameGetWorkspaceSize. ws_ptr / exec_ptr = None pass NULL for those outputs.
    Returns (status, workspace_size, executor_handle, message)."""
    gws, _ = op_functions(name)
    sig = OP_SIGNATURES[name]
    if len(args) != len(sig):
        raise TypeError("%s takes %d leading arguments, got %d" % (name, len(sig), len(args)))
    cargs = [_arg_value(k, v) for k, v in zip(sig, args)]
    ws = ctypes.c_uint64(0xDEADBEEF)
    ex = ctypes.c_void_p()
    status = gws(*cargs, ctypes.byref(ws) if ws_ptr == "auto" else None,
                 ctypes.byref(ex) if exec_ptr == "auto" else None)
    msg = recent_err_msg() if status != 0 else ""
    return status, ws.value, ex.value, msg


def launch(name, workspace, workspace_size, executor, stream=None):
    """Calls the phase-2 function; returns (status, message)."""
    _, run = op_functions(name)
    status = run(workspace, workspace_size, executor, stream)
    msg = recent_err_msg() if status != 0 else ""
    return status, msg


class Acl:
    """The runtime session: aclInit + aclrtSetDevice(0) (+ an optional stream)."""

    def __init__(self):
        self.lib = load()
        ret = self.lib.aclInit(None)
        if ret != ACL_SUCCESS:
            raise RuntimeError("aclInit failed: %d" % ret)
        ret = self.lib.aclrtSetDevice(0)
        if ret != ACL_SUCCESS:
            raise RuntimeError("aclrtSetDevice failed: %d" % ret)
        self.stream = Stream()

    def call(self, name, *args, stream="default", workspace="device"):
        """Both phases: GetWorkspaceSize, allocate the workspace (aclrtMalloc when
        workspace == "device", a numpy buffer when "host"), run, synchronize.
        stream="default" uses the session stream; None runs on the NULL stream."""
        status, ws_size, executor, msg = get_workspace_size(name, *args)
        if status != 0:
            return Result(status, "getWorkspaceSize", msg)
        buf = None
        ws_ptr = None
        if ws_size > 0:
            if workspace == "device":
                buf = DeviceBuffer(ws_size)
                ws_ptr = buf.ptr
            else:
                buf = np.empty(ws_size, dtype=np.uint8)
                ws_ptr = buf.ctypes.data
        s = self.stream.handle if stream == "default" else (stream.handle if stream else None)
        status, msg = launch(name, ws_ptr, ws_size, executor, s)
        if status != 0:
            return Result(status, "run", msg, ws_size)
        if s is not None:
            status = self.lib.aclrtSynchronizeStream(s)
            if status != 0:
                return Result(status, "sync", recent_err_msg(), ws_size)
        if isinstance(buf, DeviceBuffer):
            buf.free()
        return Result(0, "done", "", ws_size)

    def finalize(self):
        self.stream.destroy()
        self.lib.aclrtResetDevice(0)
        self.lib.aclFinalize()
