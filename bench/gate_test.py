#!/usr/bin/python3
"""The gate's own rules: curated.txt parsing, the significance test, and the verdicts."""

import contextlib
import io
import itertools
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gate  # noqa: E402


def brute_force_upper_tail(xs, ys):
    """P(U >= observed U) by enumerating every split of the pooled samples."""
    pooled = list(xs) + list(ys)
    observed = sum(1 for x in xs for y in ys if x > y)
    splits = list(itertools.combinations(range(len(pooled)), len(xs)))
    at_least = 0
    for chosen in splits:
        a = [pooled[i] for i in chosen]
        b = [pooled[i] for i in range(len(pooled)) if i not in chosen]
        if sum(1 for x in a for y in b if x > y) >= observed:
            at_least += 1
    return at_least / len(splits)


class ParseCurated(unittest.TestCase):
    def test_reads_bench_and_ratio_rules_with_comments(self):
        rules = gate.parse_curated("""
            # a comment line
            bench cpu_bench ^BM_Sha256Token$ max_slowdown=1.5 modes=full,short  # why
            ratio store_bench ^BM_A/agents:1000000$ / ^BM_A/agents:1000$ max=2 control="--drop_index=x"
        """)
        self.assertEqual(len(rules), 2)
        bench, ratio = rules
        self.assertEqual((bench.binary, bench.pattern, bench.max_slowdown, bench.modes),
                         ("cpu_bench", "^BM_Sha256Token$", 1.5, ("full", "short")))
        self.assertEqual((ratio.numerator, ratio.denominator, ratio.max_ratio, ratio.modes,
                          ratio.control),
                         ("^BM_A/agents:1000000$", "^BM_A/agents:1000$", 2.0, ("full",),
                          ("--drop_index=x",)))

    def test_reads_instructions_rules(self):
        (rule,) = gate.parse_curated(
            "instructions store_bench ^BM_A/agents:1000$ verdict::Authorizer::Authorize "
            "max_slowdown=2 modes=short")
        self.assertEqual((rule.binary, rule.pattern, rule.function, rule.max_slowdown, rule.modes),
                         ("store_bench", "^BM_A/agents:1000$", "verdict::Authorizer::Authorize",
                          2.0, ("short",)))

    def test_rejects_what_it_cannot_enforce(self):
        bad_lines = [
            "bench cpu_bench BM_Unanchored max_slowdown=1.5",
            "bench cpu_bench ^BM_X$",  # no threshold
            "bench cpu_bench ^BM_X$ max_slowdown=0",
            "bench cpu_bench ^BM_X$ max_slowdown=1.5 modes=nightly",
            "bench cpu_bench ^BM_X$ max_slowdown=1.5 typo=3",
            "bench no_such_bench ^BM_X$ max_slowdown=1.5",
            "ratio store_bench ^BM_A$ ^BM_B$ max=2",  # no '/'
            "ratio store_bench ^BM_A$ / ^BM_B$",
            "benchmark cpu_bench ^BM_X$ max_slowdown=1.5",
            "instructions cpu_bench ^BM_X$ max_slowdown=2",  # no function
            "instructions cpu_bench BM_X f max_slowdown=2",  # unanchored
        ]
        for line in bad_lines:
            with self.subTest(line=line), self.assertRaises(gate.GateError):
                gate.parse_curated(line)

    def test_errors_name_the_line(self):
        with self.assertRaisesRegex(gate.GateError, "curated.txt:3"):
            gate.parse_curated("# one\n\nbench cpu_bench nope max_slowdown=2\n")


class MannWhitney(unittest.TestCase):
    def test_exact_tail_equals_enumeration(self):
        cases = [([5, 6, 7], [1, 2, 3]), ([1, 6, 3, 8], [2, 4, 5]), ([1, 2], [3, 4, 5]),
                 ([10, 1, 7, 3, 9], [2, 8, 4, 6, 5])]
        for xs, ys in cases:
            with self.subTest(xs=xs, ys=ys):
                self.assertAlmostEqual(gate.mann_whitney_greater(xs, ys),
                                       brute_force_upper_tail(xs, ys))

    def test_clearly_slower_samples_are_significant(self):
        base = [100, 101, 99, 102, 100, 98, 101]
        slower = [150, 149, 152, 151, 148, 150, 153]
        self.assertLess(gate.mann_whitney_greater(slower, base), 0.01)
        self.assertGreater(gate.mann_whitney_greater(base, slower), 0.99)

    def test_identical_samples_are_not_significant(self):
        self.assertGreater(gate.mann_whitney_greater([5] * 6, [5] * 6), 0.4)

    def test_large_samples_use_the_normal_approximation_sensibly(self):
        base = [100 + (i % 7) for i in range(60)]
        same = [100 + ((i + 3) % 7) for i in range(60)]
        slower = [110 + (i % 7) for i in range(60)]
        self.assertGreater(gate.mann_whitney_greater(same, base), 0.1)
        self.assertLess(gate.mann_whitney_greater(slower, base), 1e-6)


class Checks(unittest.TestCase):
    RULE = gate.BenchRule("cpu_bench", "^BM_X$", 1.3, ("full",), 1)

    def test_bench_fails_only_when_slower_beyond_limit_and_significant(self):
        base = {"BM_X": [100, 101, 99, 100, 102]}
        cases = [
            ("same speed", [100, 99, 101, 100, 102], True),
            ("slower within the limit", [120, 121, 119, 122, 120], True),
            ("twice as slow", [200, 201, 199, 202, 198], False),
            ("one wild sample is not a regression", [100, 99, 101, 100, 900], True),
        ]
        for name, now, passes in cases:
            with self.subTest(name):
                ok, message = gate.check_bench(self.RULE, {"BM_X": now}, base, alpha=0.05)
                self.assertEqual(ok, passes, message)

    def test_too_few_samples_to_ever_be_significant_is_an_error(self):
        # 3 against 3: the smallest possible p is 1/20, never below 0.05.
        with self.assertRaises(gate.GateError):
            gate.check_bench(self.RULE, {"BM_X": [300, 301, 302]}, {"BM_X": [100, 101, 102]},
                             alpha=0.05)

    def test_bench_pattern_must_name_exactly_one_benchmark(self):
        with self.assertRaises(gate.GateError):
            gate.check_bench(self.RULE, {"BM_Y": [1]}, {"BM_Y": [1]}, alpha=0.05)

    def test_a_benchmark_the_committed_baseline_lacks_fails_but_one_newer_than_a_revision_is_skipped(self):
        ok, message = gate.check_bench(self.RULE, {"BM_X": [100, 101, 99]}, {}, alpha=0.05)
        self.assertFalse(ok, message)
        self.assertIn("NO BASELINE SAMPLE", message)
        ok, message = gate.check_bench(self.RULE, {"BM_X": [100, 101, 99]}, {}, alpha=0.05,
                                       same_run=True)
        self.assertTrue(ok, message)

    def test_ratio_and_its_control(self):
        rule = gate.RatioRule("store_bench", "^BM_A/agents:1000000$", "^BM_A/agents:1000$", 2.0,
                              ("full",), ("--drop_index=x",), 1)
        healthy = {"BM_A/agents:1000000": [3.1, 3.0, 3.2], "BM_A/agents:1000": [2.0, 2.1, 1.9]}
        scanning = {"BM_A/agents:1000000": [900.0, 950.0], "BM_A/agents:1000": [2.0, 2.1]}
        self.assertTrue(gate.check_ratio(rule, healthy)[0])
        self.assertFalse(gate.check_ratio(rule, scanning)[0])
        # The control passes when the broken variant is caught, and fails when it is not.
        self.assertTrue(gate.check_control(rule, scanning)[0])
        self.assertFalse(gate.check_control(rule, healthy)[0])


class Retries(unittest.TestCase):
    """A bench rule fails only when every measurement of it fails."""

    FAST = gate.BenchRule("cpu_bench", "^BM_Fast$", 2.0, ("short",), 1)
    SLOW = gate.BenchRule("cpu_bench", "^BM_Slow$", 2.0, ("short",), 2)
    BASE = {"BM_Fast": [100, 101, 99, 100, 102], "BM_Slow": [100, 101, 99, 100, 102]}
    TWICE_AS_SLOW = [250, 251, 249, 252, 248]
    AS_FAST = [100, 99, 101, 100, 102]

    def run_attempts(self, slow_samples_per_attempt, attempts=3):
        measured = []
        pauses = []

        def measure(rules):
            attempt = len(measured)
            measured.append([rule.pattern for rule in rules])
            return {"BM_Fast": self.AS_FAST, "BM_Slow": slow_samples_per_attempt[attempt]}

        def judge(rule, samples):
            return gate.check_bench(rule, samples, self.BASE, alpha=0.05)

        results = gate.judge_bench_rules([self.FAST, self.SLOW], measure, judge, attempts,
                                         pause=30, sleep=pauses.append)
        return results, measured, pauses

    def test_a_rule_slow_once_then_fast_passes_and_only_it_is_measured_again(self):
        results, measured, pauses = self.run_attempts([self.TWICE_AS_SLOW, self.AS_FAST])
        self.assertEqual([ok for ok, _ in results], [True, True])
        self.assertEqual(measured, [["^BM_Fast$", "^BM_Slow$"], ["^BM_Slow$"]])
        self.assertEqual(pauses, [30])
        self.assertIn("attempt 1: ", results[1][1])
        self.assertIn("REGRESSION; attempt 2: ", results[1][1])

    def test_a_rule_slow_on_every_attempt_fails(self):
        results, measured, pauses = self.run_attempts([self.TWICE_AS_SLOW] * 3)
        self.assertEqual([ok for ok, _ in results], [True, False])
        self.assertEqual(len(measured), 3)
        self.assertEqual(pauses, [30, 30])
        self.assertEqual(results[1][1].count("REGRESSION"), 3)

    def test_one_attempt_believes_the_first_measurement(self):
        results, measured, pauses = self.run_attempts([self.TWICE_AS_SLOW], attempts=1)
        self.assertEqual([ok for ok, _ in results], [True, False])
        self.assertEqual((len(measured), pauses), (1, []))

    def test_nothing_is_measured_again_when_everything_passes(self):
        results, measured, pauses = self.run_attempts([self.AS_FAST])
        self.assertEqual([ok for ok, _ in results], [True, True])
        self.assertEqual((len(measured), pauses), (1, []))


class Instructions(unittest.TestCase):
    # callgrind_annotate --inclusive=yes --tree=caller, trimmed: each block is a function's callers
    # ('<'), the function itself ('*') and what it calls ('>').
    ANNOTATED = """
--------------------------------------------------------------------------------
Ir                   file:function
--------------------------------------------------------------------------------
3,000,000 (60.0%)  < ???:void bench::TimeCalls<...>(benchmark::State&, ...) (90x) [/bin/b]
  300,000 ( 6.0%)  < ???:bench::AnswersAreRight<...>(...) (10x) [/bin/b]
3,300,000 (66.0%)  *  ???:verdict::Authorizer::Authorize(verdict::Request const&) [/bin/b]
1,000,000 (20.0%)  >   ???:sqlite3_step (200x) [/lib/libsqlite3.so]

  500,000 (10.0%)  < ???:verdict::Authorizer::Authorize(verdict::Request const&) (100x) [/bin/b]
  500,000 (10.0%)  *  ???:verdict::Authorizer::AuthorizeInternal(verdict::Request const&) [/bin/b]
"""

    def test_inclusive_count_over_the_calls_from_every_caller(self):
        self.assertEqual(
            gate.instructions_per_call(self.ANNOTATED, "verdict::Authorizer::Authorize"), 33000)

    def test_a_function_name_is_not_a_prefix_match(self):
        self.assertEqual(
            gate.instructions_per_call(self.ANNOTATED, "verdict::Authorizer::AuthorizeInternal"),
            5000)
        with self.assertRaises(gate.GateError):
            gate.instructions_per_call(self.ANNOTATED, "verdict::Authorizer::Author")

    def test_a_function_never_called_is_an_error_not_a_pass(self):
        with self.assertRaises(gate.GateError):
            gate.instructions_per_call(self.ANNOTATED, "verdict::Authorizer::ValidateToken")

    def test_a_rule_without_a_baseline_count_fails_rather_than_passing_unjudged(self):
        rule = gate.InstructionRule("store_bench", "^BM_Renamed$", "f", 2.0, ("short",), 1)
        ok, message = gate.check_instructions(rule, 20000, None)
        self.assertFalse(ok)
        self.assertIn("NO BASELINE COUNT", message)

    def test_fails_beyond_the_limit_only(self):
        rule = gate.InstructionRule("store_bench", "^BM_A$", "f", 2.0, ("short",), 1)
        self.assertTrue(gate.check_instructions(rule, 39000, 20000)[0])
        self.assertFalse(gate.check_instructions(rule, 41000, 20000)[0])
        self.assertIn("REGRESSION", gate.check_instructions(rule, 41000, 20000)[1])


class BenchmarkOutput(unittest.TestCase):
    def test_reads_iterations_in_nanoseconds_and_skips_aggregates(self):
        report = {"benchmarks": [
            {"name": "BM_X", "run_name": "BM_X", "run_type": "iteration", "cpu_time": 2.0,
             "time_unit": "us"},
            {"name": "BM_X", "run_name": "BM_X", "run_type": "iteration", "cpu_time": 3000,
             "time_unit": "ns"},
            {"name": "BM_X_median", "run_name": "BM_X", "run_type": "aggregate",
             "cpu_time": 2.5, "time_unit": "us"},
        ]}
        self.assertEqual(gate.samples_from_json(report), {"BM_X": [2000.0, 3000.0]})

    def test_agent_counts_come_from_the_names(self):
        self.assertEqual(gate.agents_flag(["^BM_A/agents:1000$", "^BM_B/agents:100000$",
                                           "^BM_A/agents:1000$"]),
                         ["--agents=1000,100000"])
        self.assertEqual(gate.agents_flag(["^BM_Sha256$"]), [])

    def test_normalised_divides_by_the_calibration_median(self):
        samples = {"BM_X": [40.0, 60.0], gate.CALIBRATION: [10.0, 20.0, 30.0]}
        self.assertEqual(gate.normalised(samples)["BM_X"], [2.0, 3.0])


class CommandLine(unittest.TestCase):
    """A mistyped option is refused before anything is built or measured."""

    def assert_refused(self, argv):
        with contextlib.redirect_stderr(io.StringIO()) as stderr:
            with self.assertRaises(SystemExit) as exited:
                gate.main(argv)
        self.assertEqual(exited.exception.code, 2, stderr.getvalue())
        return stderr.getvalue()

    def test_a_baseline_that_is_neither_committed_nor_a_revision_is_refused(self):
        for value in ("merge-base", "git-HEAD~1", "git:", "comitted"):
            with self.subTest(value):
                self.assertIn("use 'committed' or git:REV",
                              self.assert_refused(["--short", f"--baseline={value}"]))

    def test_rounds_below_one_are_refused(self):
        self.assertIn("--rounds must be at least 1",
                      self.assert_refused(["--baseline=git:HEAD", "--rounds=0"]))


class CuratedFile(unittest.TestCase):
    def test_the_committed_curated_list_parses_and_gates_both_modes(self):
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "curated.txt")
        with open(path) as f:
            rules = gate.parse_curated(f.read())
        for mode in ("full", "short"):
            self.assertTrue(gate.selected(rules, mode, gate.BenchRule) or
                            gate.selected(rules, mode, gate.InstructionRule), mode)
            ratios = gate.selected(rules, mode, gate.RatioRule)
            self.assertTrue(any(r.control for r in ratios), f"{mode}: no control")


if __name__ == "__main__":
    unittest.main()
