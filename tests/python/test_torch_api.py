#!/usr/bin/python3
"""The API of the Python package: F.interpolate's argument rules and exception types for a list
of bad (and odd but valid) calls, TorchScript and tracing through torch.ops.upsample.*, the
version, docstrings, the plan cache."""

import importlib.util
import io
import math
import os
import re
import subprocess
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_helpers as th  # noqa: E402
from torch_helpers import np, torch  # noqa: E402

import pytest  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import upsample  # noqa: E402

X3 = torch.rand(2, 3, 5)
X4 = torch.rand(2, 3, 4, 4)
X5 = torch.rand(1, 2, 3, 4, 4)

# (name, input, keyword arguments): each is called through F.interpolate and
# upsample.interpolate; both must raise the same exception type, or both succeed with the same
# result.
CALLS = [
    ("size and scale_factor", X4, dict(size=2, scale_factor=2)),
    ("neither size nor scale_factor", X4, dict()),
    ("size of the wrong length", X4, dict(size=(2, 2, 2))),
    ("scale_factor of the wrong length", X4, dict(scale_factor=(2, 2, 2))),
    ("recompute_scale_factor with size", X4, dict(size=2, recompute_scale_factor=True)),
    ("recompute_scale_factor=False with size", X4, dict(size=2, recompute_scale_factor=False)),
    ("recompute_scale_factor truthy string", X4, dict(scale_factor=2, recompute_scale_factor="x")),
    ("align_corners with nearest", X4, dict(size=2, mode="nearest", align_corners=False)),
    ("align_corners with area", X4, dict(size=2, mode="area", align_corners=True)),
    ("align_corners with nearest-exact", X4, dict(size=2, mode="nearest-exact",
                                                  align_corners=True)),
    ("align_corners not a bool", X4, dict(size=2, mode="bilinear", align_corners=1)),
    ("align_corners a string", X4, dict(size=2, mode="bilinear", align_corners="yes")),
    ("antialias with nearest", X4, dict(size=2, mode="nearest", antialias=True)),
    ("antialias with trilinear", X5, dict(size=2, mode="trilinear", antialias=True)),
    ("antialias on a 3-D input", X3, dict(size=2, mode="bilinear", antialias=True)),
    ("antialias truthy int", X4, dict(size=2, mode="bilinear", antialias=1)),
    ("antialias falsy with nearest", X4, dict(size=2, mode="nearest", antialias=0)),
    ("unknown mode", X4, dict(size=2, mode="foo")),
    ("unknown mode with align_corners", X4, dict(size=2, mode="foo", align_corners=True)),
    ("mode None", X4, dict(size=2, mode=None)),
    ("bilinear on 3-D", X3, dict(size=2, mode="bilinear")),
    ("trilinear on 3-D", X3, dict(size=2, mode="trilinear")),
    ("linear on 4-D", X4, dict(size=2, mode="linear")),
    ("trilinear on 4-D", X4, dict(size=2, mode="trilinear")),
    ("linear on 5-D", X5, dict(size=2, mode="linear")),
    ("bilinear on 5-D", X5, dict(size=2, mode="bilinear")),
    ("bicubic on 3-D", X3, dict(size=2, mode="bicubic")),
    ("bicubic on 5-D", X5, dict(size=2, mode="bicubic")),
    ("2-D input", torch.rand(3, 4), dict(size=2)),
    ("2-D input with a size list", torch.rand(3, 4), dict(size=[2])),
    ("6-D input", torch.rand(1, 1, 2, 2, 2, 2), dict(size=2)),
    ("size 0", X4, dict(size=0)),
    ("size negative", X4, dict(size=-2)),
    ("size float", X4, dict(size=2.5)),
    ("size float in a list", X4, dict(size=[2.0, 3])),
    ("size bool", X4, dict(size=True)),
    ("size string", X4, dict(size="3")),
    ("size None element", X4, dict(size=[None, 3])),
    ("size numpy array", X4, dict(size=np.array([3, 3]))),
    ("size one-element float tensor", X4, dict(size=torch.tensor(3.0))),
    ("size 1-D tensor", X4, dict(size=torch.tensor([3, 3]))),
    ("size numpy int", X4, dict(size=np.int64(3))),
    ("size numpy ints in a tuple", X4, dict(size=(np.int32(3), np.int64(2)))),
    ("size one-element int tensor", X4, dict(size=torch.tensor(3))),
    ("size torch.Size", X4, dict(size=torch.Size([3, 5]))),
    ("size too large", torch.rand(1, 1, 2), dict(size=2 ** 62, mode="linear")),
    ("scale_factor string", X4, dict(scale_factor="2")),
    ("scale_factor string, recomputed", X4, dict(scale_factor="2", recompute_scale_factor=True)),
    ("scale_factor None element", X4, dict(scale_factor=[None, 2])),
    ("scale_factor tensor", X4, dict(scale_factor=torch.tensor(2.0))),
    ("scale_factor bool", X4, dict(scale_factor=True)),
    ("scale_factor numpy float", X4, dict(scale_factor=np.float32(2))),
    ("scale_factor int", X4, dict(scale_factor=2)),
    ("scale_factor inf", X4, dict(scale_factor=math.inf)),
    ("scale_factor nan", X4, dict(scale_factor=math.nan)),
    ("scale_factor inf, recomputed", X4, dict(scale_factor=math.inf, recompute_scale_factor=True)),
    ("scale_factor nan, recomputed", X4, dict(scale_factor=math.nan, recompute_scale_factor=True)),
    ("scale_factor negative", X4, dict(scale_factor=-2)),
    ("scale_factor 0", X4, dict(scale_factor=0)),
    ("scale_factor too small", X4, dict(scale_factor=0.1)),
    ("scale_factor huge", X4, dict(scale_factor=1e30)),
    ("area with a scale", X4, dict(scale_factor=0.5, mode="area")),
    ("area with a nan scale", X4, dict(scale_factor=math.nan, mode="area")),
    ("area size 0", X4, dict(size=(0, 3), mode="area")),
    ("area size negative", X4, dict(size=(-1, 3), mode="area")),
    ("area size None element (2-D)", X4, dict(size=(None, 3), mode="area")),
    ("area size None element (3-D)", X5, dict(size=(None, 2, 2), mode="area")),
    ("area size None element (1-D)", X3, dict(size=(None,), mode="area")),
    ("area N = 0", torch.rand(0, 3, 4, 4), dict(size=(2, 2), mode="area")),
    ("area C = 0", torch.rand(2, 0, 4, 4), dict(size=(2, 2), mode="area")),
    ("area H = 0", torch.rand(2, 3, 0, 4), dict(size=(2, 2), mode="area")),
    ("bilinear N = 0", torch.rand(0, 3, 4, 4), dict(size=(2, 2), mode="bilinear")),
    ("bilinear C = 0", torch.rand(2, 0, 4, 4), dict(size=(2, 2), mode="bilinear")),
    ("nearest C = 0", torch.rand(2, 0, 4, 4), dict(size=(2, 2), mode="nearest")),
    ("bilinear H = 0", torch.rand(2, 3, 0, 4), dict(size=(2, 2), mode="bilinear")),
    ("bicubic N = 0", torch.rand(0, 3, 4, 4), dict(size=(2, 2), mode="bicubic")),
    ("antialias N = 0", torch.rand(0, 3, 4, 4), dict(size=(2, 2), mode="bilinear",
                                                     antialias=True)),
    ("trilinear N = 0", torch.rand(0, 3, 4, 4, 4), dict(size=(2, 2, 2), mode="trilinear")),
    ("int32 input", X4.int(), dict(size=2)),
    ("int32 input, bilinear", X4.int(), dict(size=2, mode="bilinear")),
    ("bool input", X4 > 0.5, dict(size=2)),
    ("complex input", X4.cfloat(), dict(size=2, mode="bilinear")),
]


def outcome(fn):
    """("ok", result) or (exception type, exception), and the warnings the call issued."""
    with warnings.catch_warnings(record=True) as issued:
        warnings.simplefilter("always")
        try:
            result = "ok", fn()
        except Exception as e:  # noqa: BLE001 - the exception type is what is compared
            result = type(e), e
    return result, [(w.category, str(w.message)) for w in issued]


@pytest.mark.parametrize("name,x,kw", CALLS, ids=[c[0] for c in CALLS])
def test_same_outcome_as_f_interpolate(name, x, kw):
    (theirs, t_value), t_warnings = outcome(lambda: F.interpolate(x, **kw))
    (ours, o_value), o_warnings = outcome(lambda: upsample.interpolate(x, **kw))
    assert ours == theirs, "%s: F.interpolate gives %s (%s), upsample.interpolate %s (%s)" % (
        name, theirs, t_value, ours, o_value)
    assert [c for c, _ in o_warnings] == [c for c, _ in t_warnings], \
        "%s: warnings %s, F.interpolate's %s" % (name, o_warnings, t_warnings)
    if ours == "ok":
        assert o_value.shape == t_value.shape and o_value.dtype == t_value.dtype, name
        th.assert_close(o_value, t_value, "forward", name)
    else:
        assert str(o_value), name + ": the error has no message"


def test_messages_name_the_argument():
    cases = [
        (dict(size=2.5), TypeError, r"size.*2\.5"),
        (dict(scale_factor="2"), TypeError, r"scale_factor.*'2'"),
        (dict(size=2, mode="bilinear", align_corners=1), TypeError, r"align_corners.*1"),
        (dict(size=0), RuntimeError, r"output size.*\[0, 0\]"),
        (dict(size=2, mode="foo"), NotImplementedError, r"mode='foo'"),
        (dict(size=2, mode="nearest", align_corners=True), ValueError, r"align_corners"),
        (dict(scale_factor=math.inf), RuntimeError, r"scale_factor inf"),
    ]
    for kw, exc, pattern in cases:
        with pytest.raises(exc, match=pattern):
            upsample.interpolate(X4, **kw)
    with pytest.raises(RuntimeError, match="Int"):
        upsample.interpolate(X4.int(), size=2)


def test_module_and_parameter_inputs():
    # nn.Parameter (a tensor subclass) and tensors that need grad go through the same path.
    p = torch.nn.Parameter(torch.rand(1, 2, 3, 3))
    y = upsample.interpolate(p, scale_factor=2, mode="bilinear")
    assert y.shape == (1, 2, 6, 6) and y.requires_grad


# ---------------------------------------------------------------------------------------------
# TorchScript and tracing.

def test_operator_schemas():
    schema = str(torch.ops.upsample.resample.default._schema)
    assert schema == ("upsample::resample(Tensor input, int[]? output_size=None, float[]? "
                      "scale_factors=None, str mode=\"nearest\", bool align_corners=False, "
                      "bool antialias=False) -> Tensor"), schema
    schema = str(torch.ops.upsample.resample_backward.default._schema)
    assert schema.startswith("upsample::resample_backward(Tensor grad_output, int[] input_size"), \
        schema


@torch.jit.script
def scripted_bilinear(x: torch.Tensor, size: list[int]) -> torch.Tensor:
    return torch.ops.upsample.resample(x, size, None, "bilinear", False, False)


@torch.jit.script
def scripted_scale(x: torch.Tensor) -> torch.Tensor:
    return torch.ops.upsample.resample(x, None, [2.0, 0.5], "bicubic", True, False)


class ScriptedModule(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.upsample.resample(x, [5, 9], None, "nearest-exact")


def test_torchscript_calls_the_operators():
    x = torch.rand(2, 3, 6, 7)
    th.assert_bits(scripted_bilinear(x, [9, 4]),
                   upsample.interpolate(x, size=(9, 4), mode="bilinear"), "scripted bilinear")
    th.assert_bits(scripted_scale(x),
                   upsample.interpolate(x, scale_factor=(2.0, 0.5), mode="bicubic",
                                        align_corners=True), "scripted bicubic with scales")
    assert "upsample::resample" in str(scripted_bilinear.graph)
    m = torch.jit.script(ScriptedModule())
    buf = io.BytesIO()
    torch.jit.save(m, buf)
    buf.seek(0)
    loaded = torch.jit.load(buf)
    th.assert_bits(loaded(x), upsample.interpolate(x, size=(5, 9), mode="nearest-exact"),
                   "saved and loaded script module")
    # Gradients flow through the scripted call.
    xr = x.clone().requires_grad_()
    scripted_bilinear(xr, [9, 4]).sum().backward()
    xo = x.clone().requires_grad_()
    upsample.interpolate(xo, size=(9, 4), mode="bilinear").sum().backward()
    th.assert_bits(xr.grad, xo.grad, "gradient through TorchScript")


def test_trace_records_the_operator():
    x = torch.rand(1, 2, 5, 5)
    traced = torch.jit.trace(lambda t: upsample.interpolate(t, scale_factor=2, mode="bilinear",
                                                            align_corners=True), x)
    assert "upsample::resample" in str(traced.graph)
    x2 = torch.rand(1, 2, 5, 5)
    th.assert_bits(traced(x2), upsample.interpolate(x2, scale_factor=2, mode="bilinear",
                                                    align_corners=True), "traced call")


# ---------------------------------------------------------------------------------------------
# Package metadata and helpers.

def test_version_is_the_project_version():
    with open(os.path.join(th.SOURCE_DIR, "CMakeLists.txt")) as f:
        match = re.search(r"project\(upsample VERSION ([0-9.]+)", f.read())
    assert match and upsample.__version__ == match.group(1), upsample.__version__


def check_installed_package(python, site, library_dir, cwd, pythonpath=None):
    """Runs `python` in `cwd` with PYTHONPATH=`pythonpath` (unset when None) and no
    LD_LIBRARY_PATH: upsample must import from `site`, load libupsample from under
    `library_dir` (not the build tree's) and compute."""
    code = ("import upsample, torch\n"
            "y = upsample.interpolate(torch.ones(1, 1, 2, 2), size=3, mode='bilinear')\n"
            "print(upsample.__file__)\n"
            "print(float(y.sum()))\n"
            "print([l.split()[-1] for l in open('/proc/self/maps') if 'libupsample' in l][0])")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH")}
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    r = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, cwd=cwd,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    module, total, library = r.stdout.split()
    assert os.path.realpath(module).startswith(os.path.realpath(site)), module
    assert float(total) == 9.0
    assert os.path.realpath(library).startswith(os.path.realpath(library_dir)), library


def test_cmake_install_finds_its_library():
    # `cmake --install` into a fresh prefix: the installed module imports from there and loads
    # the installed libupsample.so (through its RPATH), not the build tree's.
    with open(os.path.join(th.BUILD_DIR, "CMakeCache.txt")) as f:
        match = re.search(r"^UPSAMPLE_PYTHON_INSTALL_DIR:\w+=(.*)$", f.read(), re.M)
    assert match, "UPSAMPLE_PYTHON_INSTALL_DIR not in CMakeCache.txt"
    with tempfile.TemporaryDirectory() as prefix:
        r = subprocess.run(["cmake", "--install", th.BUILD_DIR, "--prefix", prefix],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        site = os.path.join(prefix, match.group(1))
        check_installed_package(sys.executable, site, prefix, prefix, pythonpath=site)


def test_pip_install_in_a_virtual_environment():
    # `pip install --no-build-isolation --no-index .` (offline) in a virtual environment that
    # sees Debian's torch, with UPSAMPLE_CMAKE_BUILD_DIR naming the build tree: setup.py builds
    # the target upsample_python_wheel there (after the build, only a link). The installed
    # package imports from the environment and loads the libupsample.so.0 inside it.
    missing = [m for m in ("pip", "setuptools", "wheel") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip("pip install needs Debian's python3-pip, python3-setuptools and "
                    "python3-wheel; missing: " + ", ".join(missing))
    with tempfile.TemporaryDirectory() as tmp:
        env_dir = os.path.join(tmp, "env")
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip",
                        env_dir], check=True, timeout=120)
        python = os.path.join(env_dir, "bin", "python")
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH")}
        env.update(UPSAMPLE_CMAKE_BUILD_DIR=th.BUILD_DIR, UPSAMPLE_BUILD_JOBS="2")
        r = subprocess.run([python, "-m", "pip", "install", "--no-build-isolation", "--no-index",
                            "--no-cache-dir", th.SOURCE_DIR], capture_output=True, text=True,
                           env=env, cwd=tmp, timeout=900)
        assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
        site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path("
                               "'platlib'))"], capture_output=True, text=True, check=True,
                              timeout=60).stdout.strip()
        assert os.path.isfile(os.path.join(site, "upsample", "libupsample.so.0")), site
        check_installed_package(python, os.path.join(site, "upsample"),
                                os.path.join(site, "upsample"), tmp)


def test_docstrings():
    for name in upsample.__all__:
        obj = getattr(upsample, name)
        if callable(obj):
            assert obj.__doc__ and len(obj.__doc__) > 40, name
    for arg in ("size", "scale_factor", "mode", "align_corners", "recompute_scale_factor",
                "antialias"):
        assert arg in upsample.interpolate.__doc__, arg
    assert upsample.__doc__


def test_plan_cache_reuses_plans():
    upsample._C.clear_plan_cache()
    x = torch.rand(1, 2, 7, 7)
    before = upsample._C.plan_cache_stats()
    assert before["size"] == 0
    for _ in range(3):
        upsample.interpolate(x, size=(5, 5), mode="bilinear")
    after = upsample._C.plan_cache_stats()
    assert after["size"] == 1
    assert after["misses"] - before["misses"] == 1 and after["hits"] - before["hits"] == 2
    # A different layout is a different plan, with the same bits.
    y = upsample.interpolate(x.contiguous(memory_format=torch.channels_last), size=(5, 5),
                             mode="bilinear")
    assert upsample._C.plan_cache_stats()["size"] == 2
    th.assert_bits(y.contiguous(), upsample.interpolate(x, size=(5, 5), mode="bilinear"),
                   "channels-last plan")


if __name__ == "__main__":
    sys.exit(th.run(__file__))
