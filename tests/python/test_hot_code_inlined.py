#!/usr/bin/env python3
"""Checks that no lambda of a SIMD kernel is compiled out of line, except the per-call bodies.

The reason is in docs/design.md, "Hot lambdas are inlined by attribute": the lambdas that run per
vector or per tap carry always_inline, and this test guards the rest. It lists the local text
symbols of the built library (`nm -C`) that are lambdas inside a SIMD target's namespace (N_AVX3,
N_AVX2, ...) and fails on any that is not one of the bodies entered once per call or chunk:
- `vertical<...>`'s and `horizontal<...>`'s per-tap-count bodies (`{lambda(auto:1)#1}::
  operator()<std::integral_constant<int, N> >`), entered once per call, and
  `horizontal_transposed<...>`'s (a run of phased blocks), entered once per chunk of rows;
- the transposed kernel's tile-kind bodies (`ring_chunk<...>`, `linear_chunks<...>`), entered once
  per chunk;
- `kernel_set()`'s lambdas, run once per process.
A lambda it names should get `HWY_ATTR __attribute__((always_inline))`.

Only a GCC Release build is checked: the inlining limits are GCC's at -O3 (the sanitizer builds use
clang, and run only test_examples.py). Environment: UPSAMPLE_LIB = the built libupsample.so,
UPSAMPLE_BUILD_TYPE = CMake's build type (the test is skipped unless it is Release).
Prints the offending symbols and exits 1 on any; prints `N failed` last.
"""

import os
import re
import shutil
import subprocess
import sys

TARGET_LAMBDA = re.compile(r"::N_[A-Z0-9_]+::.*\{lambda")
ALLOWED = [
    # vertical<...>'s, horizontal<...>'s and horizontal_transposed<...>'s per-tap-count bodies
    # (with_held_taps).
    re.compile(r"::(vertical|horizontal|horizontal_transposed)<[^{}]*>\([^{}]*\)::\{lambda\(auto:1\)#1\}::operator\(\)"
               r"<std::integral_constant<int, \d+> >\(std::integral_constant<int, \d+>\) const"
               r"( \[clone [^\]]*\])*$"),
    # The transposed kernel's tile-kind bodies.
    re.compile(r"::(ring_chunk|linear_chunks)<[^{}]*>\([^{}]*\)::\{lambda\(auto:1, auto:2\)#1\}"
               r"::operator\(\)<[^{}]*>\([^{}]*\) const( \[clone [^\]]*\])*$"),
    # Run once per process.
    re.compile(r"::kernel_set\(\)"),
]


def compiler_of(lib):
    """'gcc' or 'clang' from the library's .comment section, or None if it names neither."""
    out = subprocess.run(["readelf", "-p", ".comment", lib], capture_output=True, text=True)
    if "clang" in out.stdout:
        return "clang"
    if "GCC:" in out.stdout:
        return "gcc"
    return None


def main():
    lib = os.environ.get("UPSAMPLE_LIB")
    if not lib:
        build = os.environ.get("UPSAMPLE_BUILD_DIR",
                               os.path.join(os.path.dirname(__file__), "..", "..", "build"))
        lib = os.path.join(build, "libupsample.so")
    if not os.path.exists(lib):
        print("FAIL: no library at %s (set UPSAMPLE_LIB)" % lib)
        return 1
    if shutil.which("nm") is None or shutil.which("readelf") is None:
        print("FAIL: nm and readelf (binutils) are needed")
        return 1
    build_type = os.environ.get("UPSAMPLE_BUILD_TYPE", "Release")
    if build_type != "Release":
        print("skipped: a %s build (the inlining checked is that of Release, -O3)" % build_type)
        print("0 failed")
        return 0
    compiler = compiler_of(lib)
    if compiler is None:
        print("FAIL: %s names no compiler in its .comment section" % lib)
        return 1
    if compiler != "gcc":
        print("skipped: %s was compiled by %s (the inlining limits checked are GCC's)" %
              (lib, compiler))
        print("0 failed")
        return 0
    out = subprocess.run(["nm", "-C", lib], capture_output=True, text=True, check=True).stdout
    fields = [line.split(" ", 2) for line in out.splitlines()]
    local_text = [f[2] for f in fields if len(f) == 3 and f[1] == "t"]
    if not any("upsample::" in s for s in local_text):
        # A stripped library has no local symbols: the check would pass without checking anything.
        print("FAIL: no local symbol of the library's own in %s; stripped?" % lib)
        return 1
    lambdas = [s for s in local_text if TARGET_LAMBDA.search(s)]
    offending = [s for s in lambdas if not any(p.search(s) for p in ALLOWED)]
    for s in offending:
        print("FAIL: compiled out of line: %s" % s)
    print("%d lambdas of SIMD targets out of line, %d of them entry bodies; %d failed" %
          (len(lambdas), len(lambdas) - len(offending), len(offending)))
    return 1 if offending else 0


if __name__ == "__main__":
    sys.exit(main())
