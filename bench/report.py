#!/usr/bin/python3
"""Runs a benchmark binary with repetitions and prints a Markdown table of the figures
bench/PERFORMANCE.md reports: per benchmark, the median, min and max over repetitions of the
CPU time per call, and of the per-call p50/p99 counters where the benchmark reports them.

    bazel run -c opt //bench:report -- store_bench --agents=1000,50000,1000000
    bazel run -c opt //bench:report -- cpu_bench --benchmark_filter=Memory
    (--repetitions=N before the binary's name; default 9)
"""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gate  # noqa: E402


def figures(values):
    return f"{gate.median(values):.2f} ({min(values):.2f} to {max(values):.2f})"


def main(argv):
    repetitions = 9
    while argv and argv[0].startswith("--repetitions="):
        repetitions = int(argv.pop(0).split("=", 1)[1])
    if not argv or argv[0] not in gate.BINARIES:
        print(__doc__, file=sys.stderr)
        return 2
    binary, flags = argv[0], argv[1:]
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([os.path.join("bench", binary), f"--benchmark_repetitions={repetitions}",
                        "--benchmark_out_format=json", f"--benchmark_out={out.name}", *flags],
                       check=True, stdout=subprocess.DEVNULL)
        with open(out.name) as f:
            report = json.load(f)
    rows = {}
    for entry in report["benchmarks"]:
        if entry.get("run_type") != "iteration":
            continue
        row = rows.setdefault(entry["run_name"], {"cpu": [], "p50_us": [], "p99_us": []})
        row["cpu"].append(gate._to_ns(entry["cpu_time"], entry["time_unit"]) / 1000)
        for counter in ("p50_us", "p99_us"):
            if counter in entry:
                row[counter].append(entry[counter])
    context = report["context"]
    print(f"{binary}, {repetitions} repetitions, {context.get('num_cpus')} CPUs, "
          f"load average {context.get('load_avg')}, {context.get('date')}\n")
    print("| benchmark | CPU us/call, median (min to max) | p50 us | p99 us |")
    print("|---|---|---|---|")
    for name, row in rows.items():
        p50 = figures(row["p50_us"]) if row["p50_us"] else "-"
        p99 = figures(row["p99_us"]) if row["p99_us"] else "-"
        print(f"| {name} | {figures(row['cpu'])} | {p50} | {p99} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
