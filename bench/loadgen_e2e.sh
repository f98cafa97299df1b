#!/usr/bin/env bash
# End to end: builds verdictd and the load generator with -c opt, serves the benchmark dataset
# with verdictd, drives it with the load generator over TCP and then over a Unix socket, and
# prints the figures (QPS, p50/p90/p99/p99.9, errors, wrong answers). Fails when the load
# generator sees any error or wrong answer.
#
#   bench/loadgen_e2e.sh                                   # 50,000 agents, 64 in flight, 10 s each
#   bench/loadgen_e2e.sh --runs 5                          # five runs per transport, then a summary
#   bench/loadgen_e2e.sh --agents 1000000 --in_flight 128 --duration 30s --mix direct:1,token:1
#
# Environment: VERDICT_BENCH_DIR (dataset cache, default /tmp/verdict-bench),
# BAZEL_OUTPUT_BASE (build with this --output_base).
set -euo pipefail
cd "$(dirname "$0")/.."

source bench/h2load_lib.sh  # parse_options, build_opt, free_port, start_and_wait
agents=50000 in_flight=64 duration=10s warmup=2s workers=4 channels=1 runs=1
mix=direct:50,delegated:25,denied:25
parse_options "agents in_flight duration warmup workers channels mix runs" "$@"

build_opt //server:verdictd //bench:loadgen //bench:make_dataset

dataset=$("$bin/bench/make_dataset" --agents="$agents")
work=$(mktemp -d /tmp/verdict-e2e.XXXXXX)
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]]; then kill -TERM "$server_pid" 2>/dev/null || true; wait "$server_pid" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# The server gets its own copy: the cached dataset stays untouched by anything it writes.
cp "$dataset" "$work/verdict.db"

# Starts verdictd on $1 and waits until it says it serves.
start_server() {
  start_and_wait verdictd "serving on" "$bin/server/verdictd" --listen="$1" \
    --db="$work/verdict.db" --workers="$workers"
  server_pid=$started_pid
}

stop_server() {
  kill -TERM "$server_pid"
  wait "$server_pid"
  server_pid=""
}

# "median (min to max)" of one figure over the runs: $1 = the loadgen output line's label,
# $2 = the figure's label within it.
summarize() {
  grep "^$1 " "$work/runs.txt" | sed -E "s/.* $2 ([0-9.]+).*/\\1/" | sort -g |
    awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
           printf "%.1f (%.1f to %.1f)", m, v[1], v[NR] }'
}

status=0
for transport in tcp unix; do
  if [[ $transport == tcp ]]; then target="127.0.0.1:$(free_port)"; else target="unix:$work/verdict.sock"; fi
  start_server "$target"
  echo "== $transport: verdictd --workers=$workers on $target, dataset $agents agents"
  : >"$work/runs.txt"
  for run in $(seq 1 "$runs"); do
    "$bin/bench/loadgen" --target="$target" --agents="$agents" --in_flight="$in_flight" \
      --duration="$duration" --warmup="$warmup" --mix="$mix" --channels="$channels" \
      --seed="$run" | tee -a "$work/runs.txt" || status=1
  done
  if [[ $runs -gt 1 ]]; then
    echo "-- $transport over $runs runs, median (min to max): qps $(summarize calls qps)," \
      "p50 $(summarize latency_us p50) us, p99 $(summarize latency_us p99) us," \
      "p99.9 $(summarize latency_us p99.9) us"
  fi
  stop_server
done
exit $status
