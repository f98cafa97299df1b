#!/usr/bin/env bash
# PostgreSQL figures (issue 8), beside SQLite's:
#  1. the store benchmarks (bench/postgres_store_bench) on the benchmark dataset in PostgreSQL;
#  2. two verdictd processes sharing one store -- first one PostgreSQL database, then one SQLite
#     file for comparison -- each driven by its own load generator (bench/loadgen, which checks
#     every answer) at the same time; the figures of both and their total.
#
#   scripts/pg-bench.sh                                   # 50,000 agents, 32 in flight per sidecar
#   scripts/pg-bench.sh --agents 1000 --duration 5s --url postgresql://verdict@db/verdict
#
# Without --url it starts a throwaway server on loopback (scripts/pg-test-cluster.sh) and stops it
# at the end. Environment: BAZEL_OUTPUT_BASE (build with this --output_base), VERDICT_BENCH_DIR
# (the SQLite dataset cache).
set -euo pipefail
cd "$(dirname "$0")/.."

source bench/h2load_lib.sh  # parse_options, build_opt, free_port, start_and_wait
agents=50000 in_flight=32 duration=10s warmup=2s workers=4 url=""
mix=direct:50,delegated:25,denied:25
# --in_flight is per sidecar; --url postgresql://... names a server to use instead of a throwaway one.
parse_options "agents in_flight duration warmup workers mix url" "$@"

build_opt //server:verdictd //bench:loadgen //bench:make_dataset //bench:postgres_store_bench

work=$(mktemp -d /tmp/verdict-pg-bench.XXXXXX)
chmod 755 "$work"
pids=()
stop_sidecars() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  pids=()
}
cleanup() {
  stop_sidecars
  if [[ -e "$work/pg/PG_VERSION" ]]; then scripts/pg-test-cluster.sh stop "$work/pg"; fi
  rm -rf "$work"
}
trap cleanup EXIT

if [[ -z "$url" ]]; then
  url=$(scripts/pg-test-cluster.sh start "$work/pg" "$((20000 + RANDOM % 20000))")
fi

echo "== store benchmarks on PostgreSQL, $agents agents (one connection, calls one at a time)"
"$bin/bench/postgres_store_bench" --postgres_url="$url" --agents="$agents" \
  --benchmark_min_time=2
dataset_url=$("$bin/bench/postgres_store_bench" --postgres_url="$url" --agents="$agents" \
  --prepare_only)

# Starts two verdictd on --db=$1, listening on $work/a.sock and $work/b.sock.
start_sidecars() {
  for name in a b; do
    "$bin/server/verdictd" --listen="unix:$work/$name.sock" --db="$1" --workers="$workers" \
      --admin_listen=off >"$work/$name.log" 2>&1 &
    pids+=($!)
  done
  for name in a b; do
    for _ in $(seq 1 300); do
      if grep -q "serving on" "$work/$name.log"; then continue 2; fi
      sleep 0.1
    done
    echo "verdictd $name did not start:" >&2
    cat "$work/$name.log" >&2
    return 1
  done
}

# One load generator per sidecar, at the same time; their lines, then the total rate.
drive_sidecars() {
  local loadgen_pids=() status=0
  for name in a b; do
    "$bin/bench/loadgen" --target="unix:$work/$name.sock" --agents="$agents" \
      --in_flight="$in_flight" --duration="$duration" --warmup="$warmup" --mix="$mix" \
      --seed="$(( ${#name} + RANDOM ))" >"$work/$name.out" 2>&1 &
    loadgen_pids+=($!)
  done
  for pid in "${loadgen_pids[@]}"; do wait "$pid" || status=1; done
  for name in a b; do sed "s/^/sidecar $name: /" "$work/$name.out"; done
  awk '/^calls / { for (i = 1; i < NF; i++) if ($i == "qps") total += $(i + 1) }
       END { printf "both sidecars: %.0f qps\n", total }' "$work/a.out" "$work/b.out"
  return $status
}

status=0
echo "== two verdictd (--workers=$workers) on one PostgreSQL database, $agents agents"
start_sidecars "$dataset_url"
drive_sidecars || status=1
stop_sidecars

echo "== two verdictd (--workers=$workers) on one SQLite file, $agents agents"
sqlite_dataset=$("$bin/bench/make_dataset" --agents="$agents")
cp "$sqlite_dataset" "$work/verdict.db"
start_sidecars "$work/verdict.db"
drive_sidecars || status=1
stop_sidecars
exit $status
