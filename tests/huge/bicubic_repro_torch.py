"""Opt-in (`./dev huge`): the CANN repro's bicubic gradient at full size - gradOut
[1, 1, 2^31 + 1, 1] float32 (8 GiB) -> gradInput [1, 1, 2, 1] - with a non-zero gradient
everywhere, through PyTorch 1.13's aten kernel and through the library (the Python package's
torch.ops.upsample.resample_backward on the same tensor). Both sum every gradient into the two
inputs in ascending output order, so the float32 results must be bitwise equal; prints both,
the times and the peak resident memory. (tests/cpp/huge/huge_test.cpp checks the same axis
against a float64 evaluation of the formula.)

torch runs its portable kernels (ATEN_CPU_CAPABILITY=default, as the parity suites), whose
arithmetic the library reproduces without fused multiply-adds (docs/numerics.md, deviation 3).
Run with /usr/bin/python3 and PYTHONPATH=build/python.
"""

import os
import resource
import sys
import time

os.environ.setdefault("ATEN_CPU_CAPABILITY", "default")

import torch  # noqa: E402

import upsample  # noqa: E402

ROWS = int(os.environ.get("UPSAMPLE_REPRO_ROWS", 2**31 + 1))  # smaller for a quick try
CHUNK = 2**26


def pattern(start, stop):
    """A gradient with every value non-zero and mean zero, cheap to regenerate:
    +-(i % 13 - 6.5) / 8, the sign alternating every 13 values (so that the float32 sums stay
    far from the magnitudes where adding a term no longer changes them)."""
    i = torch.arange(start, stop, dtype=torch.int64)
    sign = 1.0 - 2.0 * ((i // 13) % 2).to(torch.float32)
    return ((i % 13).to(torch.float32) - 6.5) * 0.125 * sign


def peak_rss_gib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def main():
    torch.set_num_threads(2)
    grad = torch.empty(1, 1, ROWS, 1, dtype=torch.float32)
    flat = grad.view(-1)
    for start in range(0, ROWS, CHUNK):
        flat[start:start + CHUNK] = pattern(start, min(start + CHUNK, ROWS))
    print("[huge] gradOut [1,1,%d,1] float32 filled (%.2f GiB)" % (ROWS, ROWS * 4 / 2**30),
          flush=True)

    t0 = time.time()
    ours = torch.ops.upsample.resample_backward(grad, [1, 1, 2, 1], None, "bicubic", False,
                                                False)
    t_ours = time.time() - t0
    print("[huge] upsample: %s in %.1f s" % (ours.view(-1).tolist(), t_ours), flush=True)

    t0 = time.time()
    ref = torch.ops.aten.upsample_bicubic2d_backward(grad, [ROWS, 1], [1, 1, 2, 1], False, None,
                                                     None)
    t_torch = time.time() - t0
    print("[huge] torch:    %s in %.1f s" % (ref.view(-1).tolist(), t_torch), flush=True)

    print("[huge] peak RSS %.2f GiB" % peak_rss_gib(), flush=True)
    equal = torch.equal(ours, ref)
    print("[huge] bitwise equal: %s" % equal)
    return 0 if equal else 1


if __name__ == "__main__":
    sys.exit(main())
