#!/usr/bin/env python3
"""Runs the CANN-style example programs (examples/*.cpp) and checks what they print.

Each example must exit with status 0 and print exactly one `result[i] is: v` line per output
element, in order, whose values match the expected values of the spec (section 4). The expected
values are derived by hand here from the interpolation formulas; they do not come from the
library. Values are compared with a relative tolerance of 1e-4 (plus 1e-6 absolute, the
resolution of printf's %f, so that exact zeros compare sanely).

Environment: UPSAMPLE_BUILD_DIR = the CMake build directory (default: <repo>/build).
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
]


def check_example(build_dir, name, expected):
    """Returns a list of failure messages (empty when the example passes)."""
    exe = os.path.join(build_dir, "examples", name)
    if not os.path.isfile(exe):
        return [f"{name}: executable not found at {exe}"]
    try:
        proc = subprocess.run([exe], capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return [f"{name}: timed out after {TIMEOUT_S} s"]
    failures = []
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

    passed = failed = 0
    for name, expected_fn in EXAMPLES:
        failures = check_example(build_dir, name, expected_fn())
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
