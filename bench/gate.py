#!/usr/bin/python3
"""The benchmark gate: runs the curated benchmarks and fails on a regression.

    bazel run -c opt //bench:gate                      # full gate, committed baseline
    bazel run -c opt //bench:gate -- --short           # the CI form: a few minutes
    bazel run -c opt //bench:gate -- --baseline=git:merge-base   # same-run baseline
    bazel run -c opt //bench:gate -- --write_baseline  # refresh bench/baseline/baseline.json

bench/curated.txt says what gates (its header documents the rules). Two kinds of checks:

* `bench` rules compare a benchmark with a baseline: the slowdown is the ratio of medians over
  repetitions, and a rule fails only when the slowdown exceeds the rule's limit AND a one-sided
  Mann-Whitney U test says the samples are slower with p < --alpha, so one noisy repetition
  cannot fail the gate and a real regression cannot hide behind one fast one.
  The baseline is either the committed bench/baseline/baseline.json (times normalised by the
  BM_Calibration benchmark of the same run, so a faster or slower machine cancels out), or, with
  --baseline=git:REV, the benchmarks of revision REV built from `git archive` and run in the
  same session, interleaved with the current ones (the most trustworthy on a noisy machine).
* `instructions` rules count, with valgrind's callgrind, the instructions one call of a function
  (`verdict::Authorizer::Authorize`) executes inside a benchmark, against the count stored in
  the committed baseline. A count is repeatable whatever else the machine does, where a busy
  neighbour on a shared host moves a memory-bound benchmark's time 1.5x to 3x for minutes; the
  short (CI) form judges speed this way, so noise cannot fail it and a regression cannot hide
  in it. Cache misses and waits are not instructions: the full form's timed rules see those.
* `ratio` rules are machine-independent: the median of one benchmark over the median of another
  from the same run (cost at 1,000,000 agents over cost at 1,000) must stay under a limit. A rule
  may name a `control`: flags that break the code on purpose (drop an index); the gate then runs
  the same benchmarks with them and requires the rule to FAIL, proving the check still has teeth.
"""

import argparse
import dataclasses
import datetime
import json
import math
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

CALIBRATION = "BM_Calibration"
BASELINE_PATH = "bench/baseline/baseline.json"
CURATED_PATH = "bench/curated.txt"
BINARIES = ("cpu_bench", "store_bench")
AGENTS_IN_NAME = re.compile(r"agents:(\d+)")
CONTROL_REPETITIONS = 3


class GateError(Exception):
    """A problem with the gate's inputs (not a regression)."""


@dataclasses.dataclass
class BenchRule:
    binary: str
    pattern: str
    max_slowdown: float
    modes: tuple
    line: int


@dataclasses.dataclass
class InstructionRule:
    binary: str
    pattern: str
    function: str  # its name as callgrind prints it, up to the parameter list
    max_slowdown: float
    modes: tuple
    line: int

    @property
    def benchmark(self):
        """The benchmark's name, as the baseline keeps its count."""
        return self.pattern.strip("^$")


@dataclasses.dataclass
class RatioRule:
    binary: str
    numerator: str
    denominator: str
    max_ratio: float
    modes: tuple
    control: tuple  # extra benchmark flags under which the rule must fail
    line: int


def _anchored(pattern, line_number):
    if not (pattern.startswith("^") and pattern.endswith("$")):
        raise GateError(f"curated.txt:{line_number}: benchmark name {pattern!r} must be "
                        "anchored (^...$)")
    try:
        re.compile(pattern)
    except re.error as error:
        raise GateError(f"curated.txt:{line_number}: bad pattern {pattern!r}: {error}")
    return pattern


def _options(words, line_number, allowed):
    options = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep or key not in allowed:
            raise GateError(f"curated.txt:{line_number}: unexpected {word!r} "
                            f"(options: {', '.join(sorted(allowed))})")
        options[key] = value
    return options


def _modes(options, line_number):
    modes = tuple(options.get("modes", "full").split(","))
    for mode in modes:
        if mode not in ("full", "short"):
            raise GateError(f"curated.txt:{line_number}: unknown mode {mode!r}")
    return modes


def _number(options, key, line_number):
    try:
        value = float(options[key])
    except (KeyError, ValueError):
        raise GateError(f"curated.txt:{line_number}: needs {key}=<number>")
    if value <= 0:
        raise GateError(f"curated.txt:{line_number}: {key} must be positive")
    return value


def _binary(word, line_number):
    if word not in BINARIES:
        raise GateError(f"curated.txt:{line_number}: unknown binary {word!r} "
                        f"(one of {', '.join(BINARIES)})")
    return word


def parse_curated(text):
    """Rules from curated.txt's text. Raises GateError naming the line of any mistake."""
    rules = []
    for number, raw in enumerate(text.splitlines(), start=1):
        words = shlex.split(raw.split("#", 1)[0])
        if not words:
            continue
        kind = words[0]
        if kind == "bench" and len(words) >= 3:
            options = _options(words[3:], number, {"max_slowdown", "modes"})
            rules.append(BenchRule(_binary(words[1], number), _anchored(words[2], number),
                                   _number(options, "max_slowdown", number),
                                   _modes(options, number), number))
        elif kind == "instructions" and len(words) >= 4:
            options = _options(words[4:], number, {"max_slowdown", "modes"})
            rules.append(InstructionRule(_binary(words[1], number), _anchored(words[2], number),
                                         words[3], _number(options, "max_slowdown", number),
                                         _modes(options, number), number))
        elif kind == "ratio" and len(words) >= 5 and words[3] == "/":
            options = _options(words[5:], number, {"max", "modes", "control"})
            control = tuple(shlex.split(options["control"])) if "control" in options else ()
            rules.append(RatioRule(_binary(words[1], number), _anchored(words[2], number),
                                   _anchored(words[4], number), _number(options, "max", number),
                                   _modes(options, number), control, number))
        else:
            raise GateError(f"curated.txt:{number}: cannot read {raw.strip()!r}; expected "
                            "'bench BINARY ^NAME$ max_slowdown=X [modes=...]', "
                            "'instructions BINARY ^NAME$ FUNCTION max_slowdown=X [modes=...]' or "
                            "'ratio BINARY ^NAME$ / ^NAME$ max=X [modes=...] [control=...]'")
    return rules


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def _midranks(values):
    """Ranks 1..n of values, ties sharing their average rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for k in range(start, end + 1):
            ranks[order[k]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def _exact_upper_tail(u, m, n):
    """P(U >= u) for the Mann-Whitney U of samples of sizes m and n without ties."""
    # ways[k] = number of arrangements whose U equals k, built one sample at a time.
    ways = {(0, j): [1] for j in range(n + 1)}
    for i in range(1, m + 1):
        ways[(i, 0)] = [1]
        for j in range(1, n + 1):
            # The largest value comes from x (it beats all j y's) or from y (it adds nothing).
            from_x = [0] * j + ways[(i - 1, j)]
            from_y = ways[(i, j - 1)]
            size = max(len(from_x), len(from_y))
            ways[(i, j)] = [(from_x[k] if k < len(from_x) else 0) +
                            (from_y[k] if k < len(from_y) else 0) for k in range(size)]
    counts = ways[(m, n)]
    total = sum(counts)
    return sum(counts[math.ceil(u):]) / total


def mann_whitney_greater(xs, ys):
    """One-sided p-value of the hypothesis that xs tend to be greater than ys.

    Exact for small samples without ties; otherwise the normal approximation with tie and
    continuity corrections.
    """
    m, n = len(xs), len(ys)
    if m == 0 or n == 0:
        return 1.0
    ranks = _midranks(list(xs) + list(ys))
    u = sum(ranks[:m]) - m * (m + 1) / 2
    if len(set(xs) | set(ys)) == m + n and m * n <= 2500:
        return _exact_upper_tail(u, m, n)
    total = m + n
    tie_sizes = {}
    for value in list(xs) + list(ys):
        tie_sizes[value] = tie_sizes.get(value, 0) + 1
    tie_term = sum(t ** 3 - t for t in tie_sizes.values()) / (total * (total - 1))
    variance = m * n / 12 * ((total + 1) - tie_term)
    if variance <= 0:
        return 1.0
    z = (u - m * n / 2 - 0.5) / math.sqrt(variance)
    return 0.5 * math.erfc(z / math.sqrt(2))


# --- Running benchmarks ---------------------------------------------------------------------

def _to_ns(value, unit):
    return value * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[unit]


def samples_from_json(report):
    """{benchmark name: [cpu ns per iteration, one per repetition]} from Benchmark's JSON."""
    samples = {}
    for entry in report.get("benchmarks", []):
        if entry.get("run_type", "iteration") != "iteration":
            continue
        if "error_occurred" in entry and entry["error_occurred"]:
            raise GateError(f"{entry['name']}: {entry.get('error_message', 'error')}")
        name = entry.get("run_name", entry["name"])
        samples.setdefault(name, []).append(_to_ns(entry["cpu_time"], entry["time_unit"]))
    return samples


def agents_flag(patterns):
    """--agents=... for store_bench: every agent count the patterns name."""
    counts = sorted({int(c) for p in patterns for c in AGENTS_IN_NAME.findall(p)})
    return [f"--agents={','.join(map(str, counts))}"] if counts else []


def run_benchmarks(binary_path, patterns, repetitions, min_time, extra_flags=()):
    """Runs the benchmarks matching patterns (plus the calibration) and returns their samples."""
    selection = "|".join(f"({p})" for p in sorted(set(patterns)) + [f"^{CALIBRATION}$"])
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = [binary_path, f"--benchmark_filter={selection}",
                   f"--benchmark_repetitions={repetitions}",
                   f"--benchmark_min_time={min_time}",
                   # Repetitions of different benchmarks in random order: a burst of load on
                   # the machine spreads over all of them instead of skewing one ratio.
                   "--benchmark_enable_random_interleaving=true",
                   "--benchmark_out_format=json", f"--benchmark_out={out.name}",
                   "--benchmark_format=console"]
        if os.path.basename(binary_path).startswith("store_bench"):
            command += agents_flag(patterns)
        command += list(extra_flags)
        print("$ " + " ".join(shlex.quote(c) for c in command), flush=True)
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)
        if result.returncode != 0:
            raise GateError(f"{binary_path} exited with {result.returncode}:\n{result.stdout}")
        with open(out.name) as report:
            return samples_from_json(json.load(report))


_CALLER_COUNT = re.compile(r"\(([\d,]+)x\)")


def instructions_per_call(annotated, function):
    """Inclusive instructions per call of `function` from `callgrind_annotate --inclusive=yes
    --tree=caller` output: its own line (marked '*') and the call counts of its callers ('<')."""
    for block in annotated.split("\n\n"):
        lines = [line for line in block.splitlines() if line.strip()]
        own = [line for line in lines if re.match(r"^\s*[\d,]+ \([^)]*\)\s+\*\s", line)
               and re.search(r"[:\s]" + re.escape(function) + r"\(", line)]
        if not own:
            continue
        inclusive = int(own[0].split()[0].replace(",", ""))
        calls = sum(int(count.replace(",", "")) for line in lines
                    if re.match(r"^\s*[\d,]+ \([^)]*\)\s+<\s", line)
                    for count in _CALLER_COUNT.findall(line))
        if calls == 0:
            raise GateError(f"callgrind saw {function} but no call to it")
        return inclusive / calls
    raise GateError(f"callgrind saw no call to {function}")


def listed_benchmarks(binary_path, pattern):
    """The names of the benchmarks `pattern` selects in the binary, without running them."""
    command = [binary_path, f"--benchmark_filter={pattern}", "--benchmark_list_tests=true"]
    if os.path.basename(binary_path).startswith("store_bench"):
        command += agents_flag([pattern])
    listed = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if listed.returncode != 0:
        raise GateError(f"{binary_path} could not list its benchmarks:\n{listed.stdout[-2000:]}")
    # store_bench also says which dataset it opened: only the names the pattern matches count.
    return [line.strip() for line in listed.stdout.splitlines() if re.search(pattern, line.strip())]


def count_instructions(binary_path, pattern, function, extra_flags=()):
    """Instructions per call of `function` while the benchmark matching `pattern` runs."""
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        raise GateError("instructions rules need valgrind (scripts/install-deps.sh installs it)")
    # Counts of two benchmarks would blend into one figure that is neither's.
    names = listed_benchmarks(binary_path, pattern)
    if len(names) != 1:
        raise GateError(f"pattern {pattern} matched {len(names)} benchmarks "
                        f"({', '.join(names) or 'none'}); a curated pattern must name exactly one")
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "callgrind.out")
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary_path,
                   f"--benchmark_filter={pattern}", "--benchmark_min_time=0.01"]
        if os.path.basename(binary_path).startswith("store_bench"):
            command += agents_flag([pattern])
        command += list(extra_flags)
        print("$ " + " ".join(shlex.quote(c) for c in command), flush=True)
        ran = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if ran.returncode != 0:
            raise GateError(f"{binary_path} under valgrind exited with {ran.returncode}:\n"
                            f"{ran.stdout[-4000:]}")
        annotated = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--tree=caller", out],
                                   check=True, stdout=subprocess.PIPE, text=True).stdout
    return instructions_per_call(annotated, function)


def merge_samples(into, more):
    for name, values in more.items():
        into.setdefault(name, []).extend(values)
    return into


def normalised(samples):
    """Samples divided by the median calibration time of the same run."""
    calibration = samples.get(CALIBRATION)
    if not calibration:
        raise GateError(f"no {CALIBRATION} samples: cannot normalise")
    scale = median(calibration)
    return {name: [v / scale for v in values] for name, values in samples.items()}


# --- Checks ---------------------------------------------------------------------------------

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


# --- Baselines ------------------------------------------------------------------------------

def workspace_dir():
    directory = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if not directory:
        raise GateError("BUILD_WORKSPACE_DIRECTORY is unset: run the gate with `bazel run`")
    return directory


def git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, check=True, stdout=subprocess.PIPE,
                          text=True).stdout.strip()


def build_revision(revision, scratch):
    """Builds the benchmark binaries of a git revision; returns the commit and their paths.

    The revision's files are exported with `git archive` into a scratch directory (the
    repository itself, its index and its working tree are left alone) and built there with
    their own Bazel output base; the shared disk cache makes unchanged actions free.
    """
    source = workspace_dir()
    if revision == "merge-base":
        revision = git("merge-base", "HEAD", os.environ.get("VERDICT_GATE_BASE_BRANCH", "main"),
                       cwd=source)
    commit = git("rev-parse", "--verify", revision + "^{commit}", cwd=source)
    tree = os.path.join(scratch, "tree")
    os.makedirs(tree)
    archive = subprocess.Popen(["git", "archive", "--format=tar", commit], cwd=source,
                               stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", tree], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        raise GateError(f"git archive {commit} failed")
    output_base = os.environ.get("VERDICT_GATE_OUTPUT_BASE",
                                 os.path.expanduser("~/.cache/bazel-ob/verdict-gate-baseline"))
    targets = [f"//bench:{b}" for b in BINARIES]
    print(f"building the baseline {commit[:12]} in {tree}", flush=True)
    subprocess.run(["bazel", f"--output_base={output_base}", "build", "-c", "opt", *targets],
                   cwd=tree, check=True)
    bin_dir = subprocess.run(["bazel", f"--output_base={output_base}", "info", "-c", "opt",
                              "bazel-bin"], cwd=tree, check=True, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True).stdout.strip()
    binaries = {}
    for binary in BINARIES:
        copy = os.path.join(scratch, binary + ".baseline")
        shutil.copy2(os.path.join(bin_dir, "bench", binary), copy)
        binaries[binary] = copy
    return commit, binaries


def load_committed_baseline(path):
    """(normalised time samples, instruction counts), each {binary: {benchmark: ...}}."""
    try:
        with open(path) as f:
            stored = json.load(f)
    except FileNotFoundError:
        raise GateError(f"no committed baseline at {path}: run the gate with --write_baseline")
    samples = {binary: normalised(samples) for binary, samples in stored["samples"].items()}
    return samples, stored.get("instructions", {})


# --- Main -----------------------------------------------------------------------------------

def selected(rules, mode, kind):
    return [r for r in rules if isinstance(r, kind) and mode in r.modes]


def patterns_by_binary(rules):
    patterns = {}
    for rule in rules:
        names = [rule.pattern] if isinstance(rule, BenchRule) else [rule.numerator,
                                                                     rule.denominator]
        patterns.setdefault(rule.binary, []).extend(names)
    return patterns


def count_baseline_instructions(rules):
    """{binary: {benchmark name: instructions per call}} for every instructions rule."""
    counts = {}
    for rule in rules:
        if isinstance(rule, InstructionRule):
            counts.setdefault(rule.binary, {})[rule.benchmark] = count_instructions(
                os.path.join("bench", rule.binary), rule.pattern, rule.function)
    return counts


def write_baseline(rules, args):
    """Measures every bench and instructions rule of every mode and stores the raw figures.

    With --write_baseline=instructions only the instruction counts are measured again and the
    stored time samples are kept: counts do not depend on the moment, samples do.
    """
    path = os.path.join(workspace_dir(), BASELINE_PATH)
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    if args.write_baseline == "instructions":
        with open(path) as f:
            stored = json.load(f)
        stored["instructions"] = count_baseline_instructions(rules)
        stored["instructions_written"] = now
    else:
        stored = {"written": now, "host": platform.node(), "machine": platform.machine(),
                  "command": "bazel run -c opt //bench:gate -- --write_baseline",
                  "repetitions": args.repetitions, "samples": {}}
        for binary, patterns in patterns_by_binary([r for r in rules
                                                    if isinstance(r, BenchRule)]).items():
            stored["samples"][binary] = run_benchmarks(os.path.join("bench", binary), patterns,
                                                       args.repetitions, args.min_time)
        stored["instructions"] = count_baseline_instructions(rules)
        stored["instructions_written"] = now
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(stored, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {path}")


def judge_bench_rules(rules, measure, judge, attempts, pause, sleep=time.sleep):
    """[(ok, message)] for timed rules, re-measuring the failed ones before believing them.

    measure(rules) takes fresh samples for those rules (new processes) and returns what
    judge(rule, samples) needs. A rule fails only if it fails on every one of `attempts`
    measurements, `pause` seconds apart: on a shared host a neighbour thrashing the shared
    caches can double a memory-bound benchmark for tens of seconds, which the calibration
    workload (L1-resident) does not see; a real regression is slower on every attempt.
    """
    outcomes = {}
    history = {}
    pending = list(rules)
    for attempt in range(1, attempts + 1):
        if attempt > 1:
            print(f"\n{len(pending)} timed rule(s) failed; measuring them again in "
                  f"{pause:g} s (attempt {attempt} of {attempts})", flush=True)
            sleep(pause)
        samples = measure(pending)
        for rule in pending:
            ok, message = judge(rule, samples)
            history.setdefault(rule.line, []).append(message)
            outcomes[rule.line] = ok
        pending = [rule for rule in pending if not outcomes[rule.line]]
        if not pending:
            break
    results = []
    for rule in rules:
        messages = history[rule.line]
        if len(messages) == 1:
            results.append((outcomes[rule.line], messages[0]))
        else:
            tried = "; ".join(f"attempt {i}: {m}" for i, m in enumerate(messages, start=1))
            results.append((outcomes[rule.line], tried))
    return results


def run_gate(rules, args):
    mode = "short" if args.short else "full"
    bench_rules = selected(rules, mode, BenchRule)
    instruction_rules = selected(rules, mode, InstructionRule)
    ratio_rules = selected(rules, mode, RatioRule)
    results = []
    scratch = tempfile.mkdtemp(prefix="verdict-gate-")
    try:
        same_run = args.baseline.startswith("git:")
        baseline_binaries = {}
        committed = {}
        committed_instructions = {}
        if same_run:
            commit, baseline_binaries = build_revision(args.baseline[len("git:"):], scratch)
            print(f"baseline: {commit[:12]}, measured in this run, interleaved")
        else:
            committed, committed_instructions = load_committed_baseline(args.baseline_file)
            print(f"baseline: committed {args.baseline_file}, normalised by {CALIBRATION}")
        rounds = args.rounds if same_run else 1
        # At least two per round: three samples a side can never reach p < 0.05.
        per_round = max(2, math.ceil(args.repetitions / rounds))

        def measure(bench_subset, ratio_subset):
            """{binary: (current samples, baseline samples)} for the rules' benchmarks."""
            measured = {}
            for binary, patterns in patterns_by_binary(bench_subset + ratio_subset).items():
                current, baseline = {}, {}
                compared = [r.pattern for r in bench_subset if r.binary == binary]
                for _ in range(rounds):
                    if binary in baseline_binaries and compared:
                        merge_samples(baseline,
                                      run_benchmarks(baseline_binaries[binary], compared,
                                                     per_round, args.min_time))
                    merge_samples(current,
                                  run_benchmarks(os.path.join("bench", binary), patterns,
                                                 per_round, args.min_time))
                if same_run:
                    measured[binary] = (current, baseline)
                else:
                    measured[binary] = (normalised(current), committed.get(binary, {}))
            return measured

        def judge(rule, measured):
            now, base = measured[rule.binary]
            return check_bench(rule, now, base, args.alpha, same_run)

        # The first measurement serves both kinds of timed rules; a retry re-measures the
        # failed rules of one kind alone.
        first = measure(bench_rules, ratio_rules)
        unused_first = {"bench": [first], "ratio": [first]}

        def measure_again(kind, bench_subset, ratio_subset):
            return unused_first[kind].pop() if unused_first[kind] else measure(bench_subset,
                                                                               ratio_subset)

        results += judge_bench_rules(bench_rules, lambda subset: measure_again("bench", subset, []),
                                     judge, args.attempts, args.retry_pause)
        # Ratios of one run: the calibration's scale, if applied, cancels out.
        ratio_results = judge_bench_rules(
            ratio_rules, lambda subset: measure_again("ratio", [], subset),
            lambda rule, measured: check_ratio(rule, measured[rule.binary][0]), args.attempts,
            args.retry_pause)
        for rule in instruction_rules:
            now = count_instructions(os.path.join("bench", rule.binary), rule.pattern,
                                     rule.function)
            if same_run:
                base = count_instructions(baseline_binaries[rule.binary], rule.pattern,
                                          rule.function)
            else:
                base = committed_instructions.get(rule.binary, {}).get(rule.benchmark)
            results.append(check_instructions(rule, now, base))
        for rule, ratio_result in zip(ratio_rules, ratio_results):
            results.append(ratio_result)
            if rule.control:
                # A lost index costs orders of magnitude: a few repetitions show it.
                broken = run_benchmarks(os.path.join("bench", rule.binary),
                                        [rule.numerator, rule.denominator], CONTROL_REPETITIONS,
                                        args.min_time, rule.control)
                results.append(check_control(rule, broken))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print()
    for _, message in results:
        print(message)
    failures = sum(1 for ok, _ in results if not ok)
    print(f"\nGATE {'PASSED' if failures == 0 else 'FAILED'}: {len(results)} checks, "
          f"{failures} failed ({mode} mode)")
    return 0 if failures == 0 else 1


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--short", action="store_true",
                        help="the CI form: only rules with modes=short, fewer repetitions")
    parser.add_argument("--baseline", default="committed",
                        help="'committed' (bench/baseline/baseline.json) or git:REV "
                             "(git:merge-base = the merge base of HEAD and main)")
    parser.add_argument("--baseline_file", default=BASELINE_PATH)
    parser.add_argument("--curated", default=CURATED_PATH)
    parser.add_argument("--repetitions", type=int, default=None,
                        help="samples per benchmark (default 9, short 5)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="with git:REV, alternate baseline and current this many times")
    parser.add_argument("--min_time", type=float, default=None,
                        help="seconds per repetition (default 0.2, short 0.05)")
    parser.add_argument("--attempts", type=int, default=3,
                        help="a bench rule fails only if it fails this many measurements")
    parser.add_argument("--retry_pause", type=float, default=30.0,
                        help="seconds between the measurements of a failed bench rule")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="significance level of the Mann-Whitney test")
    parser.add_argument("--write_baseline", nargs="?", const="all",
                        choices=("all", "instructions"),
                        help="measure and write bench/baseline/baseline.json in the source tree "
                             "(=instructions: the instruction counts only)")
    args = parser.parse_args(argv)
    if args.repetitions is None:
        args.repetitions = 5 if args.short else 9
    if args.min_time is None:
        args.min_time = 0.05 if args.short else 0.2
    if args.attempts < 1:
        parser.error("--attempts must be at least 1")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.baseline != "committed" and not (args.baseline.startswith("git:") and
                                             len(args.baseline) > len("git:")):
        parser.error(f"--baseline={args.baseline}: use 'committed' or git:REV "
                     "(git:merge-base, git:HEAD~1, ...)")
    try:
        with open(args.curated) as f:
            rules = parse_curated(f.read())
        if args.write_baseline:
            write_baseline(rules, args)
            return 0
        return run_gate(rules, args)
    except (GateError, subprocess.CalledProcessError) as error:
        print(f"gate: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
