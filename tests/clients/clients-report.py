#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare the OpenCL clients' results on libaccel with PoCL's.

Usage:
  clients-report.py failed-piglit ACCEL_RESULTS
      print the piglit tests with a problem on libaccel, one per line
      (a --test-list for the PoCL run)
  clients-report.py report OUT_DIR
      read OUT_DIR/piglit-{accel,pocl}/ and OUT_DIR/clblast-*-{accel,pocl}.log
      (with their .status files), print one summary line per client, the
      failures that are libaccel's only, and write summary.txt,
      accel-only.txt and common.txt into OUT_DIR.  Exit status 1 if any
      failure is libaccel's only.

A result is a piglit test (or each of its subtests) or a CLBlast routine at
one precision (SGEMM, DGEMM, ...).  A failure is libaccel's only when the
same result on PoCL is not a failure: PoCL passed it, skipped it or did not
run it.  Failures on both are "common" and listed, not counted against
libaccel.
"""

import bz2
import glob
import gzip
import json
import lzma
import os
import re
import sys

PASS, SKIP = "pass", "skip"
SKIPS = {"skip", "notrun"}


def is_failure(status):
    return status is not None and status != PASS and status not in SKIPS


# ---- piglit ----------------------------------------------------------------


_piglit_cache = {}


def piglit_run(path):
    """(tests, options, finished) of a piglit results directory.

    A finished run has results.json[.bz2|.gz|.xz]; an interrupted one
    still has metadata.json and one tests/N.json per test run so far.
    """
    if path in _piglit_cache:
        return _piglit_cache[path]
    openers = {"": open, ".bz2": bz2.open, ".gz": gzip.open,
               ".xz": lzma.open}
    tests, options, finished = {}, {}, False
    for ext, opener in openers.items():
        name = os.path.join(path, "results.json" + ext)
        if os.path.exists(name):
            with opener(name, "rt", encoding="utf-8") as f:
                run = json.load(f)
            tests, options = run["tests"], run.get("options", {})
            finished = True
            break
    else:
        for name in glob.glob(os.path.join(path, "tests", "*.json")):
            try:
                with open(name, encoding="utf-8") as f:
                    tests.update(json.load(f))
            except ValueError:
                pass    # the test being written when the run stopped
        try:
            with open(os.path.join(path, "metadata.json"),
                      encoding="utf-8") as f:
                options = json.load(f).get("options", {})
        except (OSError, ValueError):
            pass
    _piglit_cache[path] = tests, options, finished
    return tests, options, finished


def piglit_tests(path):
    return piglit_run(path)[0]


def piglit_results(path):
    """({name: status}, {name: its test}): each subtest as test@subtest,
    else the test.

    A test that dies after some subtests keeps its own crash/timeout
    entry too, so the crash is not lost behind passed subtests.
    """
    out, test_of = {}, {}
    for name, res in piglit_tests(path).items():
        subs = {k: v for k, v in (res.get("subtests") or {}).items()
                if k != "__type__"}
        for sub, status in subs.items():
            out[name + "@" + sub] = status
            test_of[name + "@" + sub] = name
        if not subs or res["result"] in ("crash", "timeout", "incomplete"):
            out[name] = res["result"]
            test_of[name] = name
    return out, test_of


def piglit_detail(path, name):
    """A short reason for a piglit problem: the first telling line."""
    tests = piglit_tests(path)
    res = tests.get(name) or tests.get(name.rsplit("@", 1)[0]) or {}
    lines = (res.get("err") or "").splitlines() + \
        (res.get("out") or "").splitlines()
    for pat in (r"error|fail|expect|unexpected|could not", r"\S"):
        for line in lines:
            if re.search(pat, line, re.I) and not line.startswith("#"):
                return line.strip()[:160]
    return "returncode %s" % res.get("returncode")


def cmd_failed_piglit(path):
    names = set()
    tests = piglit_tests(path)
    for name in sorted(tests):
        res = tests[name]
        subs = [v for k, v in (res.get("subtests") or {}).items()
                if k != "__type__"]
        if is_failure(res["result"]) or any(map(is_failure, subs)):
            names.add(name)
    for name in sorted(names):
        print(name)
    return 0


# ---- CLBlast ---------------------------------------------------------------

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def clblast_log(log):
    """({routine: [status, passed, skipped, failed]}, exit status, order).

    The .status file next to the log holds what the runner saw: "exit N",
    "signal N" or "timeout".  A routine that started but never printed its
    results is where the program died.
    """
    routines, order, cur = {}, [], None
    with open(log, encoding="utf-8", errors="replace") as f:
        lines = [ANSI.sub("", line.rstrip("\n")) for line in f]
    for i, line in enumerate(lines):
        m = re.search(r"Starting tests for the '(\w+)' routine", line)
        if m:
            # xgemm runs each precision twice (indirect, then direct
            # kernels): the second SGEMM is "SGEMM#2".
            cur = m.group(1)
            n = sum(1 for r in order if r.split("#")[0] == cur)
            cur += "#%d" % (n + 1) if n else ""
            routines[cur] = ["crash", 0, 0, 0]
            order.append(cur)
            continue
        if cur and "All tests skipped" in line:
            routines[cur][0] = SKIP
            cur = None
            continue
        if cur and line.startswith("* Completed all test-cases"):
            counts = [0, 0, 0]
            for nxt in lines[i + 1:i + 4]:
                m = re.match(r"\s*(\d+) test\(s\) (passed|skipped|failed)",
                             nxt)
                if m:
                    idx = ("passed", "skipped", "failed").index(m.group(2))
                    counts[idx] = int(m.group(1))
            status = "fail" if counts[2] else PASS if counts[0] else SKIP
            routines[cur] = [status] + counts
            cur = None
    try:
        with open(log[:-len(".log")] + ".status", encoding="utf-8") as f:
            exit_status = f.read().strip()
    except OSError:
        exit_status = "not run"
    return routines, exit_status, order


def clblast_results(out_dir, side):
    """{name: (status, detail)}, totals [passed, failed, skipped], crashed
    and {program: exit status}."""
    results, totals, crashed, exits = {}, [0, 0, 0], [], {}
    for log in sorted(glob.glob(os.path.join(out_dir,
                                             "clblast-*-%s.log" % side))):
        prog = os.path.basename(log)[len("clblast-"):-len("-%s.log" % side)]
        routines, exit_status, order = clblast_log(log)
        for r in order:
            status, passed, skipped, failed = routines[r]
            totals[0] += passed
            totals[1] += failed
            totals[2] += skipped
            detail = "%d passed, %d failed, %d skipped" % (passed, failed,
                                                           skipped)
            if status == "crash":
                totals[1] += 1
                detail = "died in this routine (%s)" % exit_status
                crashed.append("%s %s: %s" % (prog, r, exit_status))
            results["%s %s" % (prog, r)] = (status, detail)
        dead = exit_status != "exit 0" and not any(
            routines[r][0] in ("fail", "crash") for r in order)
        if dead:
            # Died outside a routine, or failed without saying which.
            totals[1] += 1
            crashed.append("%s: %s" % (prog, exit_status))
            results[prog] = ("crash", exit_status)
        exits[prog] = exit_status
    return results, totals, crashed, exits


# ---- the report ------------------------------------------------------------


def compare(accel, pocl):
    """(libaccel-only failures, common failures): sorted names."""
    only, common = [], []
    for name in sorted(accel):
        if not is_failure(accel[name]):
            continue
        (common if is_failure(pocl.get(name)) else only).append(name)
    return only, common


def counts(results):
    p = sum(1 for s in results.values() if s == PASS)
    s = sum(1 for s in results.values() if s in SKIPS)
    return p, len(results) - p - s, s


def cmd_report(out_dir):
    summary, only_lines, common_lines = [], [], []

    # piglit
    acc_dir = os.path.join(out_dir, "piglit-accel")
    poc_dir = os.path.join(out_dir, "piglit-pocl")
    accel, test_of = piglit_results(acc_dir)
    pocl, _ = piglit_results(poc_dir)
    # A test that failed before its first subtest on one side and ran
    # them on the other: compare with the whole test's result there.
    poc_tests = piglit_tests(poc_dir)
    poc_cmp = dict(pocl)
    for name, test in test_of.items():
        if name not in pocl and test in poc_tests:
            poc_cmp[name] = poc_tests[test]["result"]
    only, common = compare(accel, poc_cmp)
    line = "piglit-cl: %d passed, %d failed, %d skipped" % counts(accel)
    if not piglit_run(acc_dir)[2]:
        line += " (run did not finish)"
        only_lines.append("piglit-cl: the run on libaccel did not finish "
                          "(%d tests done): %s.log" % (len(accel), acc_dir))
    if pocl:
        subset = piglit_run(poc_dir)[1].get("forced_test_list")
        scope = ", on the %d tests failing on libaccel" % len(subset) \
            if subset else ""
        line += " (PoCL%s: %d passed, %d failed, %d skipped)" % (
            (scope,) + counts(pocl))
    summary.append(line)
    for name in only:
        only_lines.append("piglit-cl %s: %s (PoCL: %s): %s" % (
            name, accel[name], poc_cmp.get(name, "not run"),
            piglit_detail(acc_dir, name)))
    for name in common:
        common_lines.append("piglit-cl %s: libaccel %s, PoCL %s: %s" % (
            name, accel[name], poc_cmp[name], piglit_detail(acc_dir, name)))

    # CLBlast
    accel, acc_tot, crashed, _ = clblast_results(out_dir, "accel")
    pocl, poc_tot, _, poc_exits = clblast_results(out_dir, "pocl")
    for prog, exit_status in poc_exits.items():
        pocl.setdefault(prog, (PASS, exit_status))
    acc_st = {k: v[0] for k, v in accel.items()}
    poc_st = {k: v[0] for k, v in pocl.items()}
    only, common = compare(acc_st, poc_st)
    line = "clblast: %d passed, %d failed, %d skipped" % tuple(acc_tot)
    if crashed:
        line += " (crashed: %s)" % "; ".join(crashed)
    if not accel:
        line += " (no results)"
        only_lines.append("clblast: no results in " + out_dir)
    if pocl:
        line += " (PoCL: %d passed, %d failed, %d skipped)" % tuple(poc_tot)
    summary.append(line)
    for name in only:
        only_lines.append("clblast %s: %s (PoCL: %s)" % (
            name, accel[name][1],
            pocl[name][1] if name in pocl else "not run"))
    for name in common:
        common_lines.append("clblast %s: libaccel %s; PoCL %s" % (
            name, accel[name][1], pocl[name][1]))

    for name, lines in (("summary.txt", summary),
                        ("accel-only.txt", only_lines),
                        ("common.txt", common_lines)):
        with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f:
            f.write("".join(s + "\n" for s in lines))
    for s in summary:
        print(s)
    print("libaccel-only failures: %d" % len(only_lines))
    for s in only_lines:
        print("  " + s)
    print("failures common with PoCL: %d (%s)" % (
        len(common_lines), os.path.join(out_dir, "common.txt")))
    return 1 if only_lines else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "failed-piglit":
        return cmd_failed_piglit(argv[2])
    if len(argv) == 3 and argv[1] == "report":
        return cmd_report(argv[2])
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
