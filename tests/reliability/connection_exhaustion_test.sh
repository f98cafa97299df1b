#!/usr/bin/env bash
# tests/reliability/connection_exhaustion_test.py under Bazel (Debian's python3 with python3-h2).
exec /usr/bin/python3 tests/reliability/connection_exhaustion_test.py "$@"
