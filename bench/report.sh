#!/usr/bin/env bash
# Started by `bazel run` in the runfiles tree, beside the benchmark binaries (bench/report.py).
exec /usr/bin/python3 bench/report.py "$@"
