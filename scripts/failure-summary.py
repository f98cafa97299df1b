#!/usr/bin/env python3
"""What failed and why, in a few lines: the end of scripts/test.sh's log.

CI returns only the head and tail of a long log, so a failure must be readable from its tail.
Given the output of a `bazel test` run (or of a script that runs one), prints for each target
that did not pass its name and status and then, from bazel-testlogs:
  - for a gtest binary, each failed test's name and its "file:line: Failure" messages;
  - otherwise (a crash, a timeout, a shell or Python test), the last lines of its test.log;
and the build's ERROR lines when something did not build.

  scripts/failure-summary.py --testlogs "$(bazel info bazel-testlogs)" --since "$start" bazel.log
  scripts/failure-summary.py --script scripts/test.d/postgres.sh --since "$start" postgres.log

Prints nothing when the log names no failure (and, with --script, the script's own last lines).
"""

import argparse
import glob
import os
import re
import sys

# "//tests:e2e_test      FAILED in 3 out of 4 in 12.3s", "... TIMEOUT in 315.0s", "NO STATUS".
TARGET_STATUS = re.compile(r"^(//\S+)\s+(FAILED|TIMEOUT|NO STATUS|FLAKY|INCOMPLETE)\b(.*)$")
# gtest: "[  FAILED  ] Suite.Name (12 ms)" after each test, again in the closing list.
GTEST_FAILED = re.compile(r"^\[  FAILED  \] (\S+)")
# gtest: "tests/e2e_test.cc:88: Failure" starts a failure message; it ends at a blank line or
# at the next gtest line ("[ ... ]").
GTEST_FAILURE = re.compile(r"^\S+:\d+: Failure$")
# A log line of verdictd's ("2026-12-01T21:58:16.963453Z WARNING ...") or gRPC's
# ("E1201 21:58:16.963453 ...") interleaved with the test's output ends a failure message.
LOG_LINE = re.compile(r"^(\d{4}-\d\d-\d\dT|[IWEF]\d{4} \d)")
BAZEL_ERROR = re.compile(r"^ERROR: ")

MAX_MESSAGE_LINES = 8  # of one failure message
MAX_FAILURES_PER_TEST = 3
MAX_TESTS_PER_TARGET = 5
TAIL_LINES = 12  # of a log with no gtest failure in it


def read_lines(path):
    try:
        with open(path, errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return []


def gtest_failures(lines):
    """{test name: [failure message lines...]} in the order the tests failed."""
    failures = {}
    pending = []  # messages of the test still running
    message = None
    for line in lines:
        if message is not None:
            ends = line.strip() == "" or line.startswith("[") or LOG_LINE.match(line)
            if ends or GTEST_FAILURE.match(line) or len(message) >= MAX_MESSAGE_LINES:
                pending.append(message)
                message = None
            else:
                message.append(line)
                continue
        if GTEST_FAILURE.match(line):
            message = [line]
            continue
        if line.startswith("[ RUN      ]"):
            pending = []
            continue
        failed = GTEST_FAILED.match(line)
        if failed and failed.group(1) not in failures and "(" in line:
            failures[failed.group(1)] = pending
            pending = []
    return failures


def attempt_logs(testlogs, label, since):
    """The test.log of every run, shard and attempt of `label` ("//pkg:name") written since
    `since` (seconds since the epoch): an earlier invocation's run_N_of_M directories stay."""
    package, _, name = label[2:].partition(":")
    base = os.path.join(testlogs, package, name)
    logs = sorted(
        log
        for log in glob.glob(os.path.join(base, "**", "test.log"), recursive=True)
        if os.path.getmtime(log) >= since
    )
    # With one run, bazel-testlogs/pkg/name/test.log; with several, run_N_of_M/test.log (and a
    # copy of one of them at the top).
    nested = [log for log in logs if os.path.dirname(log) != base]
    return nested or logs


def summarize_target(testlogs, label, status, since, out):
    logs = attempt_logs(testlogs, label, since)
    if not logs:
        out.append("  (no test.log of this run under %s)" % testlogs)
        return
    explained = False
    shown_tests = 0
    for log in logs:
        lines = read_lines(log)
        failures = gtest_failures(lines)
        where = os.path.relpath(log, testlogs)
        for test, messages in failures.items():
            if shown_tests == MAX_TESTS_PER_TARGET:
                out.append("  ... more failed tests in %s" % where)
                break
            shown_tests += 1
            explained = True
            out.append("  [  FAILED  ] %s   (%s)" % (test, where))
            for message in messages[:MAX_FAILURES_PER_TEST]:
                out.extend("    " + l for l in message)
            if len(messages) > MAX_FAILURES_PER_TEST:
                out.append("    ... %d more failures" % (len(messages) - MAX_FAILURES_PER_TEST))
        if failures or not lines:
            continue
        # Passed, or ended without a gtest verdict (crash, timeout, not gtest): its last lines,
        # unless gtest says every test of this run passed.
        if any(l.startswith("[  PASSED  ]") for l in lines[-20:]) and not any(
            GTEST_FAILED.match(l) for l in lines
        ):
            continue
        explained = True
        out.append("  last lines of %s:" % where)
        out.extend("    " + l for l in lines[-TAIL_LINES:])
    if not explained:
        out.append("  (its logs show no failure; status %s)" % status)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--testlogs", default="bazel-testlogs")
    parser.add_argument("--script", help="the script whose output the log is")
    parser.add_argument(
        "--since", type=float, default=0, help="when the run began (seconds since the epoch)"
    )
    parser.add_argument("log")
    args = parser.parse_args()

    lines = read_lines(args.log)
    out = []
    targets = []
    for line in lines:
        match = TARGET_STATUS.match(line)
        if match and match.group(1) not in [t for t, _, _ in targets]:
            targets.append((match.group(1), match.group(2), match.group(3).strip()))
    errors = [
        l for l in lines if BAZEL_ERROR.match(l) and "did NOT complete successfully" not in l
    ]
    for label, status, detail in targets:
        out.append("%s %s %s" % (status, label, detail))
        summarize_target(args.testlogs, label, status, args.since, out)
    if errors:
        out.append("bazel: %d ERROR line(s), the first ones:" % len(errors))
        out.extend("  " + l[:300] for l in errors[:8])
    if args.script:
        if not targets:
            out.append("  its last lines:")
            out.extend("    " + l for l in lines[-TAIL_LINES:])
        out.insert(0, "FAILED %s" % args.script)
    print("\n".join(out))


if __name__ == "__main__":
    sys.exit(main())
