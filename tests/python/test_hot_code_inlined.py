#!/usr/bin/env python3
"""Checks that no lambda of a SIMD kernel is compiled out of line, except the known entry bodies.

src/cpu/simd.cpp compiles every kernel for several targets in one translation unit, and GCC's
inliner stops inlining ordinary lambdas once the unit has grown past its limits. Once, a change
elsewhere in the file made GCC call the bfloat16 vertical kernel's store out of line, once per
vector, and W17 took about 35% longer without any test noticing (docs/design.md, "Hot lambdas are
inlined by attribute"; docs/performance.md, "A store the compiler stopped inlining"). Lambdas
called inside a kernel's loops carry always_inline. This test lists the local text symbols of the
built library (`nm -C`) that are lambdas inside a SIMD target's namespace (N_AVX3, N_AVX2, ...)
and fails on any that is not one of the bodies meant to be entered once per call or chunk:
- `horizontal<...>`'s per-tap-count bodies (`{lambda(auto:1)#1}::operator()<integral_constant<int,
  N>>`), entered once per call;
- the transposed kernel's tile-kind bodies (`ring_chunk<...>`, `linear_chunks<...>`), entered once
  per chunk;
- `kernel_set()`'s lambdas, run once per process.

Only a GCC build is checked: the inlining limits are GCC's (the sanitizer builds use clang, and run
only test_examples.py). Environment: UPSAMPLE_LIB = the built libupsample.so.
Prints the offending symbols and exits 1 on any; prints `0 failed` otherwise.
"""

import os
import re
import shutil
import subprocess
import sys

TARGET_LAMBDA = re.compile(r"::N_[A-Z0-9_]+::.*\{lambda")
ALLOWED = [
    # horizontal<Tin, Tout>'s per-tap-count bodies (with_held_taps).
    re.compile(r"::horizontal<[^<>]*(<[^<>]*>)?[^<>]*>\(upsample::cpu::PassArgs<float> const&, "
               r"void const\*, void\*, long, long, void\*\)::\{lambda\(auto:1\)#1\}::operator\(\)"
               r"<std::integral_constant<int, \d+> >\(std::integral_constant<int, \d+>\) const"
               r"( \[clone [^\]]*\])*$"),
    # The transposed kernel's tile-kind bodies.
    re.compile(r"::(ring_chunk|linear_chunks)<[^{}]*>\([^{}]*\)::\{lambda\(auto:1, auto:2\)#1\}"
               r"::operator\(\)<[^{}]*>\([^{}]*\) const( \[clone [^\]]*\])*$"),
    # Run once per process.
    re.compile(r"::kernel_set\(\)"),
]


def compiled_by_gcc(lib):
    """Whether the library's .comment section names GCC and not clang."""
    out = subprocess.run(["readelf", "-p", ".comment", lib], capture_output=True, text=True)
    text = out.stdout
    return "GCC:" in text and "clang" not in text


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
    if not compiled_by_gcc(lib):
        print("skipped: %s was not compiled by GCC (the inlining limits checked are GCC's)" % lib)
        print("0 failed")
        return 0
    out = subprocess.run(["nm", "-C", lib], capture_output=True, text=True, check=True).stdout
    local_text = [line.split(" ", 2)[2] for line in out.splitlines()
                  if len(line.split(" ", 2)) == 3 and line.split(" ", 2)[1] == "t"]
    lambdas = [s for s in local_text if TARGET_LAMBDA.search(s)]
    if not lambdas:
        # The library has no local symbols (stripped) or the names changed: the check would pass
        # without checking anything.
        print("FAIL: no lambda of a SIMD target among %d local symbols of %s; stripped?" %
              (len(local_text), lib))
        return 1
    offending = [s for s in lambdas if not any(p.search(s) for p in ALLOWED)]
    for s in offending:
        print("FAIL: compiled out of line: %s" % s)
    print("%d lambdas of SIMD targets out of line, %d of them entry bodies; %d failed" %
          (len(lambdas), len(lambdas) - len(offending), len(offending)))
    return 1 if offending else 0


if __name__ == "__main__":
    sys.exit(main())
