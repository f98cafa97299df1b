#!/usr/bin/env bash
# The second command: install what is missing, then run verdict's whole test suite --
# every Bazel test (unit, store, end-to-end, clients in other languages) and the short form of
# the benchmark gate. Ends with one line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh || { echo "install failed"; echo "0 passed, 1 failed"; exit 1; }

log=$(mktemp)
# In CI every test runs again, even where Bazel's cache holds a result for the same inputs.
cache_flags=()
if [[ -n "${CI:-}" ]]; then cache_flags=(--nocache_test_results); fi
bazel test "${cache_flags[@]}" //... 2>&1 | tee "$log"
bazel_status=${PIPESTATUS[0]}

passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log" || true)
failures=$(grep -cE '^//[^ ]+ +(FAILED|TIMEOUT|NO STATUS|FLAKY)' "$log" || true)
if [[ $bazel_status -ne 0 && $failures -eq 0 ]]; then failures=1; fi  # a build failure
rm -f "$log"

for extra in scripts/test.d/*.sh; do
  [[ -e "$extra" ]] || continue
  echo "== $extra"
  if bash "$extra"; then passed=$((passed + 1)); else failures=$((failures + 1)); fi
done

echo "$passed passed, $failures failed"
[[ $failures -eq 0 ]]
