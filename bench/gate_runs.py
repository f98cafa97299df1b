"""Running the benchmark binaries for the gate: timed samples from Google Benchmark's JSON, and
instructions per call counted with valgrind's callgrind.

    samples = run_benchmarks("bench/store_bench", ["^BM_StoreAuthorizeDirect/agents:1000$"], 5, 0.05)
    count = count_instructions("bench/cpu_bench", "^BM_MemoryAuthorizeThreeHops$",
                               "verdict::Authorizer::Authorize")
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile

from gate_rules import GateError
from gate_stats import median

CALIBRATION = "BM_Calibration"
AGENTS_IN_NAME = re.compile(r"agents:(\d+)")



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
