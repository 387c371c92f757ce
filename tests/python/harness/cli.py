"""The `upsample` tool's suites (test_cli.py, test_cli_tools.py, test_cli_images.py): where the
tool is, running it (and reading what it draws on a pseudo-terminal), and the one pass / fail
count they share.

Env:  UPSAMPLE_BUILD_DIR (required), UPSAMPLE_CLI (default: $UPSAMPLE_BUILD_DIR/upsample),
      UPSAMPLE_LIB (default: $UPSAMPLE_BUILD_DIR/libupsample.so),
      UPSAMPLE_TEST_VERBOSE=1 prints passing checks too.
"""

import os
import select
import subprocess
import time
import traceback

from .report import Reporter

BUILD_DIR = os.environ.get("UPSAMPLE_BUILD_DIR", "")
CLI = os.environ.get("UPSAMPLE_CLI") or os.path.join(BUILD_DIR, "upsample")
TIMEOUT_S = 300

# report(ok, text) counts one check and returns ok.
report = Reporter()


def run(*args, timeout=TIMEOUT_S):
    """Runs the tool; returns (exit status, stdout, stderr)."""
    p = subprocess.run([CLI] + [str(a) for a in args], capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def read_terminal(master, p, seconds=120):
    """What the process `p` writes to the pseudo-terminal whose master end is `master`, until the
    terminal closes, `p` exits or `seconds` pass."""
    tty = b""
    deadline = time.time() + seconds
    while time.time() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            tty += chunk
        elif p.poll() is not None:
            break
    return tty


def finish():
    """Prints the last line, "N passed, N failed"; returns the exit status."""
    print("%d passed, %d failed" % (report.passed, report.failed))
    return 1 if report.failed else 0


def run_checks(checks):
    """Runs each check group; one that raises is a failure (its traceback printed) and does not
    stop the others. Returns finish()."""
    for check in checks:
        try:
            check()
        except Exception as e:  # a crash in one group must not hide the others
            traceback.print_exc()
            report(False, "%s raised %s: %s" % (check.__name__, type(e).__name__, e))
    return finish()
