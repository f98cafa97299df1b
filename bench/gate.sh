#!/usr/bin/env bash
# `bazel run` and `bazel test` start this in the runfiles tree, where bench/gate.py and the
# benchmark binaries sit side by side. Debian's Python, whatever python3 is first on PATH.
exec /usr/bin/python3 bench/gate.py "$@"
