#!/usr/bin/env bash
# The second command: install what is missing, then run verdict's whole test suite --
# every Bazel test (unit, store, end-to-end, clients in other languages) and the short form of
# the benchmark gate. When anything failed, ends with a short summary of what failed and why
# (each failed target or script; a gtest binary's failed tests with their "Failure" lines), so
# the tail of a long log says it all; the very last line is "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh || { echo "install failed"; echo "0 passed, 1 failed"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# In CI every test runs again, even where Bazel's cache holds a result for the same inputs.
cache_flags=()
if [[ -n "${CI:-}" ]]; then cache_flags=(--nocache_test_results); fi
# --keep_going: one target that does not build still lets every other test run and report.
start=$(date +%s)
bazel test --keep_going "${cache_flags[@]}" //... 2>&1 | tee "$work/bazel.log"
bazel_status=${PIPESTATUS[0]}
testlogs=$(bazel info bazel-testlogs 2>/dev/null || echo bazel-testlogs)

passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$work/bazel.log" || true)
failures=$(grep -cE '^//[^ ]+ +(FAILED|TIMEOUT|NO STATUS|FLAKY|INCOMPLETE)' "$work/bazel.log" || true)
if [[ $bazel_status -ne 0 && $failures -eq 0 ]]; then failures=1; fi  # a build failure
summary="$work/summary"
: >"$summary"
if [[ $bazel_status -ne 0 ]]; then
  scripts/failure-summary.py --testlogs "$testlogs" --since "$start" "$work/bazel.log" >>"$summary"
fi

for extra in scripts/test.d/*.sh; do
  [[ -e "$extra" ]] || continue
  echo "== $extra"
  start=$(date +%s)
  bash "$extra" 2>&1 | tee "$work/script.log"
  if [[ ${PIPESTATUS[0]} -eq 0 ]]; then
    passed=$((passed + 1))
  else
    failures=$((failures + 1))
    scripts/failure-summary.py --testlogs "$testlogs" --since "$start" --script "$extra" \
      "$work/script.log" >>"$summary"
  fi
done

if [[ -s "$summary" ]]; then
  echo
  echo "==== what failed ===="
  cat "$summary"
  echo "===================="
fi
echo "$passed passed, $failures failed"
[[ $failures -eq 0 ]]
