#!/usr/bin/env bash
# The reliability tests that `bazel test //...` leaves out (tests/reliability/RELIABILITY.md):
#   - root_fault_test: the database made read-only (chattr +i) and its disk full (a 4 MiB
#     tmpfs); needs root, so it runs outside Bazel's sandbox (--strategy=TestRunner=local);
#   - write_contention_stress_test: 12 processes writing to one new database file at once.
# Exits non-zero when either fails. BAZEL overrides the bazel command (for example to give an
# --output_base).
set -uo pipefail
cd "$(dirname "$0")/../.."
read -r -a bazel <<<"${BAZEL:-bazel}"

if [[ $(id -u) -ne 0 ]]; then
  echo "reliability: root_fault_test needs root (chattr, mount); CI runs as root"
  exit 1
fi
# In CI they run again even where Bazel's cache holds a result (as in scripts/test.sh).
cache_flags=()
if [[ -n "${CI:-}" ]]; then cache_flags=(--nocache_test_results); fi
"${bazel[@]}" test "${cache_flags[@]}" --symlink_prefix=/ --strategy=TestRunner=local --test_output=errors \
  //tests/reliability:root_fault_test //tests/reliability:write_contention_stress_test
