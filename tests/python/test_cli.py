#!/usr/bin/python3
"""The `upsample` command-line tool: `check` in JSON and table form, its filters, usage errors
(exit status 2, one line on stderr), --help and --version.

The entry points `check` must cover are derived independently of the tool: every
aclnn*GetWorkspaceSize declared in include/aclnnop/*.h that libupsample.so exports, which must be
the entry points of docs/ops.md's table; that table also gives the dtypes and formats each one
must be checked in, its direction (every backward must meet a forward in the adjoint check) and
its mode (nearest and nearest-exact forward, and every uint8 row, must be compared bit-exactly
and show no error at all).

Run:  UPSAMPLE_BUILD_DIR=build /usr/bin/python3 tests/python/test_cli.py
Env:  as harness/cli.py says, and UPSAMPLE_SOURCE_DIR (default: this checkout).
Last line: "N passed, N failed"; exit status 1 if any check failed.
"""

import ctypes
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness.cli import BUILD_DIR, CLI, report, run, run_checks  # noqa: E402

SOURCE_DIR = os.environ.get("UPSAMPLE_SOURCE_DIR") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# docs/ops.md's dtype names -> the tool's.
DTYPE_CODES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64",
               "u8": "uint8"}
# The formats the tool runs as layouts of their own (ND is read as NCHW / NCDHW).
LAYOUTS = ("NCL", "NCHW", "NHWC", "NCDHW", "NDHWC")
ROW_FIELDS = {"entry_point", "variant", "direction", "dtype", "layout", "cases", "exact",
              "max_abs_err", "max_ulp_err", "max_rel_err", "pass", "status", "failure"}


def run_json(*args):
    """Runs the tool with --json; returns (exit status, document or None, stderr)."""
    rc, out, err = run(*(list(args) + ["--json"]))
    try:
        return rc, json.loads(out), err
    except ValueError as e:
        report(False, "check %s --json: stdout is not valid JSON (%s): %r" % (
            " ".join(args), e, out[:300]))
        return rc, None, err


def implemented_entry_points():
    """aclnn entry points declared in include/aclnnop and exported by libupsample.so."""
    declared = set()
    for header in glob.glob(os.path.join(SOURCE_DIR, "include", "aclnnop", "*.h")):
        with open(header) as f:
            declared.update(re.findall(r"\b(aclnn\w+)GetWorkspaceSize\s*\(", f.read()))
    lib = ctypes.CDLL(os.environ.get("UPSAMPLE_LIB") or
                      os.path.join(BUILD_DIR, "libupsample.so"))
    return sorted(n for n in declared
                  if hasattr(lib, n + "GetWorkspaceSize") and hasattr(lib, n))


def documented_entry_points():
    """docs/ops.md's table: name -> {direction, mode, dtypes, layouts}."""
    table = {}
    with open(os.path.join(SOURCE_DIR, "docs", "ops.md")) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 5 or not cells[0].isdigit() or not cells[1].startswith("aclnn"):
                continue
            what = cells[2]
            table[cells[1]] = {
                "direction": "backward" if re.search(r"\bbwd\b", what) else "forward",
                "mode": what.split(",")[0].strip(),
                "dtypes": {DTYPE_CODES[t] for t in cells[3].split() if t in DTYPE_CODES},
                "layouts": set(re.findall(r"\b(%s)\b" % "|".join(LAYOUTS), cells[4])),
            }
    return table


def expect_exact(doc, row):
    """Whether a row must be compared bit-exactly: nearest / nearest-exact forward (aclnnResize
    in mode "nearest" included) and uint8."""
    if row.get("dtype") == "uint8":
        return True
    if doc is None or doc["direction"] != "forward":
        return False
    return doc["mode"] in ("nearest", "nearest-exact") or row.get("variant") == "nearest"


def check_full_json():
    rc, doc, err = run_json("check")
    if doc is None:
        return
    rows = doc.get("rows", [])
    report(rc == 0, "check --json exits 0 (got %d; stderr %r)" % (rc, err[:300]))
    for r in rows:
        missing = ROW_FIELDS - set(r)
        report(not missing, "row %s has every field (missing %s)" % (r.get("entry_point"),
                                                                    sorted(missing)))
        report(r.get("pass") is True and r.get("status") == "PASS" and r.get("cases", 0) > 0,
               "%s %s %s passes: %s" % (r.get("entry_point"), r.get("dtype"), r.get("layout"),
                                        r.get("failure")))
    entry_points = implemented_entry_points()
    documented = documented_entry_points()
    report(len(entry_points) == 28, "found the 28 implemented entry points: %s" % entry_points)
    report(sorted(documented) == entry_points,
           "docs/ops.md lists exactly the implemented entry points (only in the docs: %s; "
           "only implemented: %s)" % (sorted(set(documented) - set(entry_points)),
                                      sorted(set(entry_points) - set(documented))))
    seen = {(r.get("entry_point"), r.get("dtype"), r.get("layout")) for r in rows}
    for name in entry_points:
        d = documented.get(name)
        if d is None:
            continue
        for dtype in sorted(d["dtypes"]):
            covered = {l for (n, t, l) in seen if n == name and t == dtype}
            report(bool(covered), "check covers %s %s" % (name, dtype))
            missing = d["layouts"] - covered
            report(not missing, "check covers %s %s in every documented layout (missing %s)" % (
                name, dtype, sorted(missing)))
        extra = {t for (n, t, _) in seen if n == name} - d["dtypes"]
        report(not extra, "check runs %s only in its documented dtypes (extra %s)" % (
            name, sorted(extra)))
        direction = {r.get("direction") for r in rows if r.get("entry_point") == name}
        report(direction == {d["direction"]}, "%s is checked as %s: %s" % (
            name, d["direction"], sorted(direction)))
    for r in rows:
        want = expect_exact(documented.get(r.get("entry_point")), r)
        label = "%s%s %s %s" % (r.get("entry_point"),
                                "(%s)" % r["variant"] if r.get("variant") else "",
                                r.get("dtype"), r.get("layout"))
        report(r.get("exact") is want, "%s is compared %s" % (
            label, "bit-exactly" if want else "with a tolerance"))
        if want:
            report(r.get("max_abs_err") == 0 and r.get("max_ulp_err") == 0,
                   "%s is exact: max abs err %s, max ulp err %s" % (
                       label, r.get("max_abs_err"), r.get("max_ulp_err")))
    report(any(r.get("dtype") == "uint8" for r in rows), "check has uint8 rows")
    variants = {r.get("variant") for r in rows if r.get("entry_point") == "aclnnResize"}
    report(variants == {"nearest", "bilinear"},
           "aclnnResize is checked in both modes: %s" % sorted(map(str, variants)))
    adjoint = doc.get("adjoint", [])
    report(len(adjoint) > 0, "check --json reports adjoint rows")
    paired_backward = {a.get("backward") for a in adjoint}
    paired_forward = {a.get("forward") for a in adjoint}
    for name, d in sorted(documented.items()):
        if d["direction"] == "backward":
            report(name in paired_backward, "the adjoint check pairs %s with a forward" % name)
        elif name != "aclnnResize":  # forward-only
            report(name in paired_forward, "the adjoint check pairs %s with a backward" % name)
    for a in adjoint:
        report(a.get("pass") is True and a.get("max_residual") is not None and
               a["max_residual"] <= a.get("threshold", 0),
               "adjoint %s / %s %s passes: residual %s, %s" % (
                   a.get("forward"), a.get("backward"), a.get("layout"), a.get("max_residual"),
                   a.get("failure")))
    summary = doc.get("summary", {})
    total = len(rows) + len(adjoint)
    report(summary.get("failed") == 0 and summary.get("passed") == total,
           "summary %s counts %d rows, all passed" % (summary, total))


def check_filters():
    rc, doc, err = run_json("check", "--op", "Bilinear2d$", "--dtype", "float32")
    if doc is None:
        return
    report(rc == 0, "check --op Bilinear2d$ --dtype float32 exits 0 (got %d; %r)" % (rc, err))
    rows = doc.get("rows", [])
    report(len(rows) > 0 and {r.get("entry_point") for r in rows} == {"aclnnUpsampleBilinear2d"},
           "--op Bilinear2d$ selects only aclnnUpsampleBilinear2d: %s" % sorted(
               {r.get("entry_point") for r in rows}))
    report({r.get("dtype") for r in rows} == {"float32"},
           "--dtype float32 selects only float32: %s" % sorted({r.get("dtype") for r in rows}))
    report(doc.get("adjoint") == [], "the float64 adjoint check is skipped without float64")

    rc, doc, _ = run_json("check", "--op", "Trilinear3d$", "--layout", "NDHWC", "--dtype",
                          "float64")
    if doc is not None:
        rows = doc.get("rows", [])
        report(rc == 0 and len(rows) == 1 and rows[0].get("layout") == "NDHWC" and
               [a.get("layout") for a in doc.get("adjoint", [])] == ["NDHWC"],
               "--layout NDHWC selects one row and one adjoint row: %s" % doc)

    rc, doc, _ = run_json("check", "--dtype", "uint8")
    if doc is not None:
        rows = doc.get("rows", [])
        report(rc == 0 and len(rows) > 0 and doc.get("adjoint") == [] and
               all(r.get("dtype") == "uint8" and r.get("direction") == "forward" and
                   "Nearest" in r.get("entry_point", "") and r.get("exact") is True and
                   r.get("max_abs_err") == 0 for r in rows),
               "--dtype uint8 selects exact nearest forward rows only: %s" % [
                   (r.get("entry_point"), r.get("layout"), r.get("max_abs_err")) for r in rows])

    rc, doc, _ = run_json("check", "--op", r"Resize\(nearest\)")
    if doc is not None:
        rows = doc.get("rows", [])
        report(rc == 0 and len(rows) > 0 and doc.get("adjoint") == [] and
               {(r.get("entry_point"), r.get("variant")) for r in rows} ==
               {("aclnnResize", "nearest")},
               "--op 'Resize\\(nearest\\)' selects the nearest variant of aclnnResize: %s" % [
                   (r.get("entry_point"), r.get("variant")) for r in rows])

    first = run("check", "--op", "Linear1d", "--seed", "7", "--json")
    second = run("check", "--op", "Linear1d", "--seed", "7", "--json")
    report(first == second and first[0] == 0, "the same --seed gives the same report")


def check_table():
    rc, out, err = run("check", "--op", "Linear1d$")
    lines = out.strip().splitlines()
    report(rc == 0 and err == "", "check --op Linear1d$ exits 0 quietly (%d, %r)" % (rc, err))
    report(any(re.match(r"aclnnUpsampleLinear1d\s+float16\s+NCL\s+\d+\s.*PASS$", l)
               for l in lines), "the table has a PASS row for Linear1d float16 NCL")
    report(bool(lines) and re.fullmatch(r"\d+ passed, 0 failed", lines[-1]) is not None,
           "the table ends with the summary line: %r" % (lines[-1:] or ""))


def check_usage_errors():
    cases = [
        ("check", "--dtype", "int7"),
        ("check", "--dtype", "float32,"),
        ("check", "--layout", "NCHWX"),
        ("check", "--op", "(unclosed"),
        ("check", "--seed", "minus-one"),
        ("check", "--op"),
        ("check", "--frobnicate"),
        ("check", "stray"),
        ("check", "--op", "NoSuchEntryPoint"),
        ("frobnicate",),
        (),
    ]
    for args in cases:
        rc, out, err = run(*args)
        lines = err.strip().splitlines()
        report(rc == 2 and out == "" and len(lines) == 1,
               "upsample %s: exit 2, nothing on stdout, one line on stderr (got %d, %r, %r)" % (
                   " ".join(args), rc, out[:200], err))
    rc, _, err = run("check", "--dtype", "int7")
    report("int7" in err and "dtype" in err, "the --dtype error names the bad value: %r" % err)


def check_help_and_version():
    for args in (("--help",), ("check", "--help")):
        rc, out, err = run(*args)
        report(rc == 0 and "Usage: upsample" in out and err == "",
               "upsample %s exits 0 with usage text (got %d)" % (" ".join(args), rc))
    rc, out, _ = run("check", "--help")
    report(all(flag in out for flag in ("--op", "--dtype", "--layout", "--seed", "--json")),
           "check --help lists every option")
    with open(os.path.join(SOURCE_DIR, "CMakeLists.txt")) as f:
        version = re.search(r"project\(upsample\s+VERSION\s+([\d.]+)", f.read()).group(1)
    rc, out, _ = run("--version")
    report(rc == 0 and out.strip() == "upsample " + version,
           "--version prints the project version %s: %r" % (version, out))


def main():
    if not BUILD_DIR or not os.path.exists(CLI):
        print("FAIL UPSAMPLE_BUILD_DIR=%r does not hold the upsample tool" % BUILD_DIR)
        print("0 passed, 1 failed")
        return 1
    return run_checks([check_help_and_version, check_usage_errors, check_table, check_filters,
                       check_full_json])


if __name__ == "__main__":
    sys.exit(main())
