#!/usr/bin/env bash
# verdict end to end against gRPC's own floor. Builds verdictd and //bench:null_server (the same
# gRPC server answering a fixed response, deciding nothing) with -c opt, serves the benchmark
# dataset, and drives both with h2load (a neutral HTTP/2 load tool sending one gRPC frame: a
# direct Authorize that verdictd ALLOWs) at 1, 8 and 64 calls in flight over TCP and a Unix
# socket, interleaved: each round runs every setting on verdictd and then the null server (the
# order alternating between rounds), so both share the machine's noise. Prints requests/s,
# p50/p99 and the server's CPU per call, median (min to max) over the rounds, and the headline:
# verdictd's CPU per call over the null server's. Every answer is checked (see
# bench/grpc_frames.py): a run with any failed call or any other answer fails the script.
#
#   bench/e2e.sh                                 # 3 rounds of 5 s per setting, 50,000 agents
#   bench/e2e.sh --rounds 5 --seconds 10 --in_flight "1 64" --transports unix
#   bench/e2e.sh --baseline /tmp/old             # also an older build, in the same rounds
#
# --baseline DIR: DIR holds a verdictd and a null_server built elsewhere (an older commit's
# `bazel build -c opt //server:verdictd //bench:null_server`, copied there); they run as
# "old-verdict" and "old-null" beside this tree's, in every round, and the summary adds this
# build's CPU per call over the old one's.
# bench/loadgen_e2e.sh is the older end-to-end run with //bench:loadgen and a mix of calls.
# Environment: VERDICT_BENCH_DIR (dataset cache, default /tmp/verdict-bench),
# BAZEL_OUTPUT_BASE (build with this --output_base).
set -euo pipefail
cd "$(dirname "$0")/.."

source bench/h2load_lib.sh
agents=50000 rounds=3 seconds=5 in_flight="1 8 64" transports="tcp unix" workers=4 baseline=""
parse_options "agents rounds seconds in_flight transports workers baseline" "$@"
in_flights=$in_flight
servers="verdict null"
if [[ -n $baseline ]]; then
  baseline=$(realpath "$baseline")
  servers="verdict null old-verdict old-null"
fi

scripts/install-deps.sh nghttp2-client
build_opt //server:verdictd //bench:null_server //bench:make_dataset

dataset=$("$bin/bench/make_dataset" --agents="$agents")
work=$(mktemp -d /tmp/verdict-e2e.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
cp "$dataset" "$work/verdict.db"

# The dataset's agent 42 reading its own docs: ALLOW by its own permission, one lookup.
agent=agt_bench_0000042 resource=docs:42:report
declare -A pid_of target_of response_of
for transport in $transports; do
  for server in $servers; do
    if [[ $transport == tcp ]]; then target="127.0.0.1:$(free_port)"; else target="unix:$work/$server.sock"; fi
    verdictd=$bin/server/verdictd null_server=$bin/bench/null_server
    if [[ $server == old-* ]]; then verdictd=$baseline/verdictd null_server=$baseline/null_server; fi
    if [[ $server == *verdict ]]; then
      start_and_wait "$server-$transport" "serving on" "$verdictd" --listen="$target" \
        --db="$work/verdict.db" --workers="$workers" --admin_listen=off
    else
      start_and_wait "$server-$transport" "serving on" "$null_server" --listen="$target"
    fi
    pids+=("$started_pid")
    pid_of[$server-$transport]=$started_pid
    target_of[$server-$transport]=$target
    checked=$(/usr/bin/python3 bench/grpc_frames.py verdict --target="$target" --agent="$agent" \
      --resource="$resource" --frame="$work/authorize.frame")
    response_of[$server-$transport]=${checked##*response_frame_bytes=}
  done
done
path=/verdict.v1.DecisionService/Authorize

echo "== verdictd --workers=$workers (dataset $agents agents) and the null server; h2load," \
  "$rounds rounds of ${seconds} s per setting; one connection"
: >"$work/runs.txt"
for key in "${!pid_of[@]}"; do  # warm both servers and their connections' code paths
  h2load_run "warmup" "${pid_of[$key]}" "${target_of[$key]}" "$path" "$work/authorize.frame" \
    "${response_of[$key]}" 8 1 1 >/dev/null
done
for round in $(seq 1 "$rounds"); do
  order=$servers
  if ((round % 2 == 0)); then order=$(echo "$servers" | tr ' ' '\n' | tac | tr '\n' ' '); fi
  for in_flight in $in_flights; do
    for transport in $transports; do
      for server in $order; do
        h2load_run "$server/$transport/$in_flight" "${pid_of[$server-$transport]}" \
          "${target_of[$server-$transport]}" "$path" "$work/authorize.frame" \
          "${response_of[$server-$transport]}" "$in_flight" 1 "$seconds"
      done
    done
  done
done

echo
echo "== median (min to max) over $rounds rounds"
printf '%-10s %-6s %-12s %-30s %-30s %-30s %-30s\n' transport in_flight server "requests/s" \
  "p50 us" "p99 us" "server CPU us per call"
for transport in $transports; do
  for in_flight in $in_flights; do
    for server in $servers; do
      label="$server/$transport/$in_flight"
      printf '%-10s %-9s %-12s %-30s %-30s %-30s %-30s\n' "$transport" "$in_flight" "$server" \
        "$(summarize "$label" qps)" "$(summarize "$label" p50_us)" "$(summarize "$label" p99_us)" \
        "$(summarize "$label" cpu_us_per_call)"
    done
    echo "  verdictd over the null server, same round: CPU per call" \
      "$(ratio_summary "verdict/$transport/$in_flight" "null/$transport/$in_flight" cpu_us_per_call)," \
      "requests/s $(ratio_summary "verdict/$transport/$in_flight" "null/$transport/$in_flight" qps)"
    if [[ -n $baseline ]]; then
      echo "  this build over the baseline's, same round: verdictd CPU per call" \
        "$(ratio_summary "verdict/$transport/$in_flight" "old-verdict/$transport/$in_flight" cpu_us_per_call)," \
        "null server $(ratio_summary "null/$transport/$in_flight" "old-null/$transport/$in_flight" cpu_us_per_call);" \
        "the baseline's verdictd over its null server $(ratio_summary "old-verdict/$transport/$in_flight" "old-null/$transport/$in_flight" cpu_us_per_call)"
    fi
  done
done
