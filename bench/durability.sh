#!/usr/bin/env bash
# What --decision_log_durability=sync costs end to end: two verdictd servers with --decision_log,
# one async (the default), one sync, each on its own copy of the benchmark dataset, driven in
# turn by the load generator over TCP (runs interleaved: async, sync, async, sync, ...), then the
# median (min to max) of QPS, p50 and p99 for each. Fails when the load generator sees any error
# or wrong answer.
#
#   bench/durability.sh                            # 50,000 agents, 64 in flight, 5 runs of 10 s
#   bench/durability.sh --runs 7 --in_flight 16
#
# Environment: VERDICT_BENCH_DIR (dataset cache, default /tmp/verdict-bench),
# BAZEL_OUTPUT_BASE (build with this --output_base).
set -euo pipefail
cd "$(dirname "$0")/.."

source bench/h2load_lib.sh  # parse_options, build_opt, free_port, start_and_wait
agents=50000 in_flight=64 duration=10s warmup=2s workers=4 runs=5
mix=direct:50,delegated:25,denied:25
parse_options "agents in_flight duration warmup workers mix runs" "$@"

build_opt //server:verdictd //bench:loadgen //bench:make_dataset

dataset=$("$bin/bench/make_dataset" --agents="$agents")
work=$(mktemp -d /tmp/verdict-durability.XXXXXX)
declare -A pids targets
cleanup() {
  for mode in "${!pids[@]}"; do
    kill -TERM "${pids[$mode]}" 2>/dev/null || true
    wait "${pids[$mode]}" || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

for mode in async sync; do
  cp "$dataset" "$work/$mode.db"
  targets[$mode]="127.0.0.1:$(free_port)"
  start_and_wait "$mode" "serving on" "$bin/server/verdictd" --listen="${targets[$mode]}" \
    --db="$work/$mode.db" --workers="$workers" --admin_listen=off --decision_log \
    --decision_log_durability="$mode"
  pids[$mode]=$started_pid
done

status=0
for run in $(seq 1 "$runs"); do
  for mode in async sync; do
    echo "== run $run, --decision_log_durability=$mode"
    "$bin/bench/loadgen" --target="${targets[$mode]}" --agents="$agents" --in_flight="$in_flight" \
      --duration="$duration" --warmup="$warmup" --mix="$mix" --seed="$run" |
      tee -a "$work/$mode.runs" || status=1
  done
done

# "median (min to max)" of one figure over a mode's runs: $1 = the mode, $2 = the loadgen output
# line's label, $3 = the figure's label within it.
summarize() {
  grep "^$2 " "$work/$1.runs" | sed -E "s/.* $3 ([0-9.]+).*/\\1/" | sort -g |
    awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
           printf "%.1f (%.1f to %.1f)", m, v[1], v[NR] }'
}
for mode in async sync; do
  echo "-- $mode over $runs runs, median (min to max): qps $(summarize $mode calls qps)," \
    "p50 $(summarize $mode latency_us p50) us, p99 $(summarize $mode latency_us p99) us"
done
exit $status
