"""What the gate compares against: the committed bench/baseline/baseline.json (and how to write
it), or a git revision's benchmark binaries built in a scratch directory.

    samples, instructions = load_committed_baseline(BASELINE_PATH)
"""

import datetime
import json
import os
import platform
import shutil
import subprocess

from gate_rules import BINARIES, BenchRule, GateError, InstructionRule, patterns_by_binary
from gate_runs import count_instructions, normalised, run_benchmarks

BASELINE_PATH = "bench/baseline/baseline.json"



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
