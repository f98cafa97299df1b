"""The gate's verdicts: each takes a rule and its figures and returns (ok, message).

    ok, message = check_instructions(rule, now=20589, base=17992)
"""

import math
import re

from gate_rules import GateError
from gate_stats import mann_whitney_greater, median



def matching(samples, pattern):
    names = [name for name in samples if re.search(pattern, name)]
    if len(names) != 1:
        raise GateError(f"pattern {pattern} matched {len(names)} benchmarks "
                        f"({', '.join(names) or 'none'}); a curated pattern must name exactly one")
    return names[0]


def check_bench(rule, current, baseline, alpha, same_run=False):
    """(ok, message) for one bench rule; current and baseline on the same scale. `same_run`:
    the baseline is a revision measured in this run, which may predate the benchmark."""
    name = matching(current, rule.pattern)
    if name not in baseline:
        if not same_run:
            # A rule that cannot judge is a failure, as for instruction counts.
            return False, (f"bench  {name}: NO BASELINE SAMPLE (bazel run -c opt //bench:gate "
                           "-- --write_baseline)")
        return True, f"bench  {name}: not in the baseline revision (new since), skipped"
    now, base = current[name], baseline[name]
    if math.comb(len(now) + len(base), len(now)) * alpha <= 1:
        raise GateError(f"{name}: {len(now)} and {len(base)} samples can never show a "
                        f"significant slowdown at alpha={alpha}; use more repetitions")
    slowdown = median(now) / median(base)
    p_value = mann_whitney_greater(now, base)
    failed = slowdown > rule.max_slowdown and p_value < alpha
    verdict = "REGRESSION" if failed else "ok"
    return not failed, (f"bench  {name}: x{slowdown:.2f} of baseline (max x{rule.max_slowdown:.2f}"
                        f", Mann-Whitney p={p_value:.3f}, n={len(now)}/{len(base)}) {verdict}")


def check_instructions(rule, now, base):
    """(ok, message) for one instructions rule: counts are repeatable, so no test is needed."""
    name = rule.benchmark
    if base is None:
        # A rule that cannot judge is a failure: skipping it would turn CI's speed check off.
        return False, (f"instr  {name}: NO BASELINE COUNT (bazel run -c opt //bench:gate -- "
                       "--write_baseline=instructions)")
    slowdown = now / base
    ok = slowdown <= rule.max_slowdown
    return ok, (f"instr  {name}: {now:,.0f} instructions per {rule.function} call, "
                f"x{slowdown:.2f} of baseline's {base:,.0f} (max x{rule.max_slowdown:.2f}) "
                f"{'ok' if ok else 'REGRESSION'}")


def ratio_value(rule, samples):
    numerator = matching(samples, rule.numerator)
    denominator = matching(samples, rule.denominator)
    return numerator, denominator, median(samples[numerator]) / median(samples[denominator])


def check_ratio(rule, samples):
    numerator, denominator, ratio = ratio_value(rule, samples)
    ok = ratio <= rule.max_ratio
    return ok, (f"ratio  {numerator} / {denominator} = {ratio:.2f} (max {rule.max_ratio:.2f}) "
                f"{'ok' if ok else 'TOO HIGH'}")


def check_control(rule, samples):
    """The same ratio under the rule's control flags must fail, or the check is blind."""
    numerator, denominator, ratio = ratio_value(rule, samples)
    caught = ratio > rule.max_ratio
    flags = " ".join(rule.control)
    return caught, (f"control [{flags}] {numerator} / {denominator} = {ratio:.2f}: "
                    + ("the ratio check catches it, ok" if caught else
                       f"NOT caught (<= {rule.max_ratio:.2f}): the ratio check is blind"))
