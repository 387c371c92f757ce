#!/usr/bin/env python3
"""Runs the CANN-style example programs (examples/*.cpp) and checks what they print.

Each example must exit with status 0 and print exactly one `result[i] is: v` line per output
element, in order, whose values match the expected values of the CANN example table (each
program's input and attributes with the results CANN documents for them). The expected values
are derived by hand here from the interpolation formulas (the values of that table, all of which
agree with PyTorch 1.13) or, where the table gives none (anti-aliased and bicubic samples),
computed independently with PyTorch's aten operators in float64 with the same
attributes (a scale <= 0 is passed as None, "not given"); they never come from the library.
Values are compared with a relative tolerance of 1e-4 (plus 1e-6 absolute, the resolution of
printf's %f, so that exact zeros compare sanely).

Environment: UPSAMPLE_BUILD_DIR = the CMake build directory (default: <repo>/build).
UPSAMPLE_RUN_BIG_REPRO=1 also runs repro_timeout_bicubic_grad (8 GiB of float32 input, a
regression repro for H > INT32_MAX); it is left out of the default run.
Prints one line per failure and finishes with `N passed, N failed`; exits 1 on any failure.
"""

import math
import os
import re
import subprocess
import sys

REL_TOL = 1e-4
ABS_TOL = 1e-6
TIMEOUT_S = 120
BIG_REPRO_TIMEOUT_S = 1800

RESULT_LINE = re.compile(r"^result\[(\d+)\] is: (\S+)$")


def linear1d():
    # [1,1] -> 3 (half pixel): every output is a blend of two ones.
    return [1.0, 1.0, 1.0]


def resize_linear():
    # [1,4] -> 3, r = 2/3: x = 0, 0.5, 7/6 (clamped to the last sample) -> 1, 2.5, 4.
    return [1.0, 2.5, 4.0]


def linear1d_backward():
    # gradOut [1,2,3] -> 6 with align corners: r = (6-1)/(3-1) = 2.5, taps at x = 0, 2.5, 5;
    # 2 is split evenly between 2 and 3. Agrees with torch upsample_linear1d_backward.
    return [1.0, 0.0, 1.0, 1.0, 0.0, 3.0]


def bilinear2d():
    # input v = 2y + x on a 4x2 grid, align corners to 8x4: y = h*3/7, x = w/3.
    return [6.0 * h / 7.0 + w / 3.0 for h in range(8) for w in range(4)]


def bilinear2d_backward():
    # ones 6x6 -> 3x3 with align corners: per axis r = 2/5, coordinates 0, .4, .8, 1.2, 1.6, 2
    # collect 1.8, 2.4, 1.8; the 2-D result is the outer product.
    axis = [1.8, 2.4, 1.8]
    return [a * b for a in axis for b in axis]


def trilinear3d():
    # v = 1 + 4d + 2h + w on 2x2x2 -> 4x4x4, half pixel: coordinates 0, .25, .75, 1 (clamped).
    coords = [0.0, 0.25, 0.75, 1.0]
    return [1.0 + 4.0 * a + 2.0 * b + c for a in coords for b in coords for c in coords]


def trilinear3d_backward():
    # gradOut 1..32 as [2,2,2,2,2] -> [2,2,1,1,1]: each (n, c) block of 8 sums into one voxel.
    return [float(sum(range(8 * k + 1, 8 * k + 9))) for k in range(4)]


# ----------------------------------------------------------------------------------------------
# Nearest / nearest-exact (values of the CANN example table; each was checked against PyTorch
# 1.13).


def rows_twice(rows):
    """Each row of `rows` repeated twice (2x nearest upscale along H; W already doubled)."""
    return [float(v) for row in rows for _ in range(2) for v in row]


def nearest1d():
    # [1,3,3] = 0..8 -> 5, r = 3/5: floor(i * 0.6) = 0, 0, 1, 1, 2.
    return [float(3 * c + s) for c in range(3) for s in (0, 0, 1, 1, 2)]


def nearest1d_v2():
    # [1,3,3] = 0..8 -> 6 (scale 0: r = 1/2): every element twice.
    return [float(v) for v in range(9) for _ in range(2)]


def nearest2d():
    # [1,1,4,2] = 0..7 -> 8x4: every row and column twice.
    return rows_twice([[0, 0, 1, 1], [2, 2, 3, 3], [4, 4, 5, 5], [6, 6, 7, 7]])


def nearest3d():
    # [2,2,2,2,3] = 1..48 -> 1x1x1: source (0,0,0) of each block of 12.
    return [1.0, 13.0, 25.0, 37.0]


def nearest_exact1d():
    # [1,3,3] = 0..8 -> 5, r = 3/5: floor((i + 0.5) * 0.6) = 0, 0, 1, 2, 2.
    return [float(3 * c + s) for c in range(3) for s in (0, 0, 1, 2, 2)]


def nearest_exact3d():
    # [2,2,2,2,3] = 1..48 -> 1x1x1: source (1,1,1) = element 10 of each block of 12.
    return [11.0, 23.0, 35.0, 47.0]


def nearest1d_backward():
    # gradOut {1, 4.1} -> 3 with scale 1.1 (r = 1/1.1): both outputs read source 0.
    # (torch upsample_nearest1d_backward gives the same; with r = in/out it would be 1, 4.1, 0.)
    return [5.1, 0.0, 0.0]


def nearest2d_grad():
    # gradOut [2,2,3,3] = 1..36 -> [2,2,1,1]: each block of 9 summed.
    return [float(sum(range(9 * k + 1, 9 * k + 10))) for k in range(4)]


def nearest_exact1d_backward():
    # gradOutput {1, 2} -> 4 with scale 0.5 (r = 2): sources floor((i + 0.5) * 2) = 1, 3.
    return [0.0, 1.0, 0.0, 2.0]


def nearest_exact2d_grad():
    # gradOutput [1,1,4,2] = 0..7 -> 8x4 with scales 0.5 (r = 2): (h, w) lands on (2h+1, 2w+1).
    out = [[0.0] * 4 for _ in range(8)]
    for h in range(4):
        for w in range(2):
            out[2 * h + 1][2 * w + 1] = float(2 * h + w)
    return [v for row in out for v in row]


def resize_nearest():
    # [1,1,2,2] = 1..4, scales {1,1,2,2}, "nearest": every row and column twice.
    return rows_twice([[1, 1, 2, 2], [3, 3, 4, 4]])


# ----------------------------------------------------------------------------------------------
# Anti-aliased and bicubic samples: PyTorch 1.13 (aten operators, float64) computes the values.


def _torch():
    import torch  # pylint: disable=import-outside-toplevel

    return torch


def _scale(s):
    # The library's convention: a scale <= 0 means "not given".
    return s if s > 0 else None


def _arange(torch, start, count, shape):
    return torch.arange(start, start + count, dtype=torch.float64).reshape(shape)


def _flat(tensor):
    return [float(v) for v in tensor.flatten().tolist()]


def bilinear2d_aa():
    torch = _torch()
    x = _arange(torch, 0, 8, (1, 1, 4, 2))
    return _flat(torch.ops.aten._upsample_bilinear2d_aa(x, [8, 4], True, _scale(2.0), _scale(2.0)))


def bilinear2d_aa_backward():
    torch = _torch()
    g = _arange(torch, 0, 8, (1, 1, 4, 2))
    return _flat(torch.ops.aten._upsample_bilinear2d_aa_backward(
        g, [4, 2], [1, 1, 8, 4], True, _scale(0.5), _scale(0.5)))


def bicubic2d():
    torch = _torch()
    x = _arange(torch, 1, 9, (1, 1, 3, 3))
    return _flat(torch.ops.aten.upsample_bicubic2d(x, [5, 5], False, _scale(0.0), _scale(0.0)))


def bicubic2d_grad():
    torch = _torch()
    g = torch.tensor([1.0, 2.0, 3.0, 4.1], dtype=torch.float64).reshape(1, 1, 2, 2)
    return _flat(torch.ops.aten.upsample_bicubic2d_backward(
        g, [2, 2], [1, 1, 3, 3], True, _scale(1.1), _scale(1.1)))


def bicubic2d_aa():
    torch = _torch()
    x = _arange(torch, 1, 9, (1, 1, 3, 3))
    return _flat(torch.ops.aten._upsample_bicubic2d_aa(x, [5, 5], False, _scale(0.0), _scale(0.0)))


def bicubic2d_aa_grad():
    torch = _torch()
    g = _arange(torch, 0, 8, (1, 1, 4, 2))
    return _flat(torch.ops.aten._upsample_bicubic2d_aa_backward(
        g, [4, 2], [1, 1, 8, 4], True, _scale(2.0), _scale(2.0)))


def nearest3d_grad():
    # gradOut [2,2,2,2,2] = 1..32 -> [2,2,1,1,1]: each block of 8 summed (nearest and
    # nearest-exact alike, as trilinear).
    return trilinear3d_backward()


def big_repro():
    # gradOut [1,1,2147483649,1] of zeros -> gradInput [1,1,2,1]: zeros.
    return [0.0, 0.0]


EXAMPLES = [
    ("test_aclnn_upsample_linear1d", linear1d),
    ("test_aclnn_resize_linear", resize_linear),
    ("test_aclnn_upsample_linear1d_backward", linear1d_backward),
    ("test_aclnn_resize_linear_grad", linear1d_backward),
    ("test_aclnn_upsample_bilinear2d", bilinear2d),
    ("test_aclnn_upsample_bilinear_2d_backward", bilinear2d_backward),
    ("test_aclnn_upsample_bilinear2d_grad", bilinear2d_backward),
    ("test_aclnn_upsample_trilinear3d", trilinear3d),
    ("test_aclnn_upsample_trilinear3d_backward", trilinear3d_backward),
    ("test_aclnn_upsample_nearest1d", nearest1d),
    ("test_aclnn_upsample_nearest2d", nearest2d),
    ("test_aclnn_upsample_nearest1d_v2", nearest1d_v2),
    ("test_aclnn_upsample_nearest2d_v2", nearest2d),
    ("test_aclnn_upsample_nearest3d", nearest3d),
    ("test_aclnn_upsample_nearest", nearest_exact1d),
    ("test_aclnn_upsample_nearest_exact1d_uint8", nearest_exact1d),
    ("test_aclnn_upsample_nearest_exact2d", nearest2d),
    ("test_aclnn_upsample_nearest_exact2d_uint8", nearest2d),
    ("test_aclnn_upsample_nearest_exact3d", nearest_exact3d),
    ("test_aclnn_upsample_nearest1d_backward", nearest1d_backward),
    ("test_aclnn_upsample_nearest2d_grad", nearest2d_grad),
    ("test_aclnn_upsample_nearest3d_grad", nearest3d_grad),
    ("test_aclnn_upsample_nearest_exact1d_backward", nearest_exact1d_backward),
    ("test_aclnn_upsample_nearest_exact2d_grad", nearest_exact2d_grad),
    ("test_aclnn_upsample_nearest_exact3d_grad", nearest3d_grad),
    ("test_aclnn_upsample_bilinear2d_aa", bilinear2d_aa),
    ("test_aclnn_upsample_bilinear2d_aa_backward", bilinear2d_aa_backward),
    ("test_aclnn_upsample_bicubic2d", bicubic2d),
    ("test_aclnn_bicubic_v2", bicubic2d),
    ("test_aclnn_upsample_bicubic2d_grad", bicubic2d_grad),
    ("test_aclnn_resize_bicubic_v2_grad", bicubic2d_grad),
    ("test_aclnn_upsample_bicubic2d_aa", bicubic2d_aa),
    ("test_aclnn_upsample_bicubic2d_aa_grad", bicubic2d_aa_grad),
    ("test_aclnn_resize", resize_nearest),
]

# Run only when UPSAMPLE_RUN_BIG_REPRO=1: the expected values, a longer timeout and the progress
# lines the program must print.
BIG_REPRO = ("repro_timeout_bicubic_grad", big_repro)
BIG_REPRO_LINES = [
    re.compile(r"^\[repro\] workspaceSize=\d+$"),
    re.compile(r"^\[repro\] sync returned ret=0 after \d+\.\d+ s$"),
]


def check_example(build_dir, name, expected_fn, timeout_s=TIMEOUT_S, required_lines=()):
    """Returns a list of failure messages (empty when the example passes)."""
    exe = os.path.join(build_dir, "examples", name)
    if not os.path.isfile(exe):
        return [f"{name}: executable not found at {exe}"]
    try:
        expected = expected_fn()
    except ImportError as e:
        return [f"{name}: cannot compute the expected values ({e}); run with a Python that has torch"]
    try:
        proc = subprocess.run([exe], capture_output=True, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        return [f"{name}: timed out after {timeout_s} s"]
    failures = []
    lines = [line.strip() for line in proc.stdout.splitlines()]
    for pattern in required_lines:
        if not any(pattern.match(line) for line in lines):
            failures.append(f"{name}: no output line matches {pattern.pattern!r}")
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
        failures.append(f"{name}: exit code {proc.returncode}; last output: {' | '.join(tail)}")

    values = []
    for line in proc.stdout.splitlines():
        m = RESULT_LINE.match(line.strip())
        if m is None:
            continue
        index = int(m.group(1))
        if index != len(values):
            failures.append(f"{name}: result index {index} printed where {len(values)} was due")
        try:
            values.append(float(m.group(2)))
        except ValueError:
            failures.append(f"{name}: result[{index}] is not a number: {m.group(2)!r}")
            values.append(math.nan)

    if len(values) != len(expected):
        failures.append(f"{name}: printed {len(values)} result lines, expected {len(expected)}")
    for i, (got, want) in enumerate(zip(values, expected)):
        if not math.isclose(got, want, rel_tol=REL_TOL, abs_tol=ABS_TOL):
            failures.append(f"{name}: result[{i}] is {got!r}, expected {want!r}")
    return failures


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_build = os.path.join(here, os.pardir, os.pardir, "build")
    build_dir = os.environ.get("UPSAMPLE_BUILD_DIR", default_build)

    runs = [(name, fn, TIMEOUT_S, ()) for name, fn in EXAMPLES]
    if os.environ.get("UPSAMPLE_RUN_BIG_REPRO") == "1":
        runs.append((*BIG_REPRO, BIG_REPRO_TIMEOUT_S, BIG_REPRO_LINES))

    passed = failed = 0
    for name, expected_fn, timeout_s, required_lines in runs:
        failures = check_example(build_dir, name, expected_fn, timeout_s, required_lines)
        if failures:
            failed += 1
            for message in failures:
                print(f"FAIL {message}")
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
