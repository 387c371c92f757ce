"""Counting checks and closing a suite: every check prints one `FAIL ...` line when it fails
(`ok   ...` too with UPSAMPLE_TEST_VERBOSE=1), a suite ends with its notes, the largest-error
summary and `N passed, N failed`."""

import os
import sys
import time

from . import compare

VERBOSE = os.environ.get("UPSAMPLE_TEST_VERBOSE", "") not in ("", "0")


class Reporter:
    """report(ok, text) counts one check and returns ok; note / tally collect what finish()
    prints."""

    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.notes = {}  # counters printed at the end (skips, torch observations)
        self.tallies = {}  # observation -> [hits, cases looked at]

    def __call__(self, ok, text):
        if ok:
            self.passed += 1
            if VERBOSE:
                print("ok   " + text)
        else:
            self.failed += 1
            print("FAIL " + text)
        sys.stdout.flush()
        return ok

    def note(self, key, example=None):
        n, ex = self.notes.get(key, (0, None))
        self.notes[key] = (n + 1, ex if ex is not None else example)

    def tally(self, key, hit):
        t = self.tallies.setdefault(key, [0, 0])
        t[0] += int(bool(hit))
        t[1] += 1

    def finish(self, t0):
        for key in sorted(self.tallies):
            hits, total = self.tallies[key]
            print("report: %s: %d of %d case(s)" % (key, hits, total))
        for key in sorted(self.notes):
            n, ex = self.notes[key]
            print("note: %s: %d case(s)%s" % (key, n, ("; e.g. " + ex) if ex else ""))
        compare.print_error_summary()
        print("time %.1f s" % (time.time() - t0))
        print("%d passed, %d failed" % (self.passed, self.failed))
        return 1 if self.failed else 0
