#!/usr/bin/env bash
# Fuzzing (fuzz/README.md): builds the libFuzzer targets with clang 14, ASan and UBSan
# (bazel build --config=fuzz //fuzz/...) and runs each one for a bounded time on its seed
# corpus (fuzz/corpus/<target>/, read only; new inputs go to a temporary directory). Prints
# each target's executions and findings; exits non-zero on any finding.
#
#   scripts/test.d/fuzz.sh                          # CI: 20 s per target
#   VERDICT_FUZZ_SECONDS=600 scripts/test.d/fuzz.sh # the stress form: 10 minutes per target
#
# A finding is kept as $VERDICT_FUZZ_ARTIFACTS/<target>-crash-... (default: a temporary
# directory, printed); add it to the target's corpus once fixed, so `bazel test //fuzz/...`
# replays it for good. BAZEL overrides the bazel command; by default the clang build gets an
# output base of its own, so it never reconfigures (and rebuilds) the gcc one.
set -uo pipefail
cd "$(dirname "$0")/../.."
read -r -a bazel <<<"${BAZEL:-bazel --output_base=$HOME/.cache/verdict/bazel-fuzz}"
seconds=${VERDICT_FUZZ_SECONDS:-20}
targets=(resource_match_fuzz token_fuzz canonical_json_fuzz request_fuzz)

"${bazel[@]}" build --symlink_prefix=/ --config=fuzz //fuzz/... >/dev/null 2>&1 ||
  "${bazel[@]}" build --symlink_prefix=/ --config=fuzz //fuzz/... || exit 1
bin=$("${bazel[@]}" info --config=fuzz bazel-bin 2>/dev/null) || exit 1

work=$(mktemp -d)
artifacts=${VERDICT_FUZZ_ARTIFACTS:-$work/artifacts}
mkdir -p "$artifacts"
failures=0
for target in "${targets[@]}"; do
  mkdir -p "$work/$target"
  "$bin/fuzz/$target" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$artifacts/$target-" "$work/$target" "fuzz/corpus/$target" \
    >"$work/$target.log" 2>&1
  status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$target.log")
  findings=$(find "$artifacts" -name "$target-*" | wc -l)
  echo "fuzz: $target ${seconds}s executions ${runs:-0} findings $findings"
  if [[ $status -ne 0 || $findings -ne 0 ]]; then
    failures=$((failures + 1))
    tail -40 "$work/$target.log"
  fi
done
if [[ $failures -ne 0 ]]; then
  echo "fuzz: $failures target(s) with findings; inputs kept in $artifacts"
  exit 1
fi
rm -rf "$work"
