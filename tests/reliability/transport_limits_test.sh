#!/usr/bin/env bash
# tests/reliability/transport_limits_test.py under Bazel (Debian's python3 with python3-h2).
exec /usr/bin/python3 tests/reliability/transport_limits_test.py "$@"
