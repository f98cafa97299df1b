#!/usr/bin/env bash
# verdict beside a real peer: Cerbos 0.55 (the Go policy decision point, from npm's
# @cerbos/cerbos-linux-x64, pinned in bench/peers/package-lock.json) serving the twin of the
# demo policy (bench/peers/cerbos/policies/docs.yaml), and verdictd serving the demo policy
# (deploy/demo-policy.json). Both get the same h2load settings over TCP, interleaved round by
# round, after their answers are checked (ALLOW on docs:guide:1, DENY on docs:secret:1; every
# h2load answer is checked by size, see bench/h2load_lib.sh). Prints requests/s, p50/p99, server
# CPU per call and resident memory, and verdict over Cerbos as ratios from the same minutes.
# Not part of the CI gate (it downloads Cerbos from npm on first use and runs for minutes).
#
#   bench/peers/cerbos.sh                          # 3 rounds of 5 s at 1, 8 and 64 in flight
#   bench/peers/cerbos.sh --rounds 5 --seconds 10 --in_flight "1 64"
#
# Environment: VERDICT_PEERS_DIR (where Cerbos is installed, default ~/.cache/verdict/peers).
set -euo pipefail
cd "$(dirname "$0")/../.."

source bench/h2load_lib.sh
rounds=3 seconds=5 in_flight="1 8 64" workers=4
parse_options "rounds seconds in_flight workers" "$@"
in_flights=$in_flight

scripts/install-deps.sh nghttp2-client
peers=${VERDICT_PEERS_DIR:-$HOME/.cache/verdict/peers}
cerbos=$peers/node_modules/@cerbos/cerbos-linux-x64/cerbos-linux-x64
if ! cmp -s bench/peers/package-lock.json "$peers/package-lock.json" || [[ ! -x $cerbos ]]; then
  mkdir -p "$peers"
  cp bench/peers/package.json bench/peers/package-lock.json "$peers/"
  (cd "$peers" && npm ci --no-audit --no-fund >/dev/null)
fi
echo "== $("$cerbos" --version | head -1 | sed 's/^/Cerbos /') from npm"

build_opt //server:verdictd

work=$(mktemp -d /tmp/verdict-peers.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

verdict_target="127.0.0.1:$(free_port)"
start_and_wait verdict "serving on" "$bin/server/verdictd" --listen="$verdict_target" \
  --db="$work/verdict.db" --seed=deploy/demo-policy.json --workers="$workers" --admin_listen=off
verdict_pid=$started_pid
pids+=("$verdict_pid")

cerbos_target="127.0.0.1:$(free_port)"
# Every listener on loopback, the gops debug listener included (its default is every interface).
CERBOS_NO_TELEMETRY=1 start_and_wait cerbos "Starting gRPC server" "$cerbos" server \
  --config=bench/peers/cerbos/config.yaml --debug-listen-addr="127.0.0.1:$(free_port)" \
  --set=server.grpcListenAddr="$cerbos_target" \
  --set=server.httpListenAddr="127.0.0.1:$(free_port)" \
  --set=storage.disk.directory="$PWD/bench/peers/cerbos/policies"
cerbos_pid=$started_pid
pids+=("$cerbos_pid")

frames=/usr/bin/python3
for server in verdict cerbos; do
  target_var=${server}_target
  "$frames" bench/grpc_frames.py "$server" --target="${!target_var}" --resource=docs:secret:1 \
    --expect=DENY --frame="$work/$server.deny.frame" >/dev/null
  checked=$("$frames" bench/grpc_frames.py "$server" --target="${!target_var}" \
    --resource=docs:guide:1 --expect=ALLOW --frame="$work/$server.frame")
  declare "${server}_path=$(sed -E 's/^path=([^ ]+) .*/\1/' <<<"$checked")"
  declare "${server}_response=${checked##*response_frame_bytes=}"
done

echo "== verdictd --workers=$workers and Cerbos, the same h2load settings over TCP, $rounds" \
  "rounds of ${seconds} s per setting, one connection"
: >"$work/runs.txt"
h2load_run warmup "$verdict_pid" "$verdict_target" "$verdict_path" "$work/verdict.frame" \
  "$verdict_response" 8 1 1 >/dev/null
h2load_run warmup "$cerbos_pid" "$cerbos_target" "$cerbos_path" "$work/cerbos.frame" \
  "$cerbos_response" 8 1 1 >/dev/null
for round in $(seq 1 "$rounds"); do
  order="verdict cerbos"
  if ((round % 2 == 0)); then order="cerbos verdict"; fi
  for in_flight in $in_flights; do
    for server in $order; do
      pid_var=${server}_pid target_var=${server}_target path_var=${server}_path
      response_var=${server}_response
      h2load_run "$server/$in_flight" "${!pid_var}" "${!target_var}" "${!path_var}" \
        "$work/$server.frame" "${!response_var}" "$in_flight" 1 "$seconds"
    done
  done
done

rss_mb() { awk '/^VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$1/status"; }
echo
echo "== median (min to max) over $rounds rounds; resident memory at the end:" \
  "verdictd $(rss_mb "$verdict_pid") MB, Cerbos $(rss_mb "$cerbos_pid") MB"
printf '%-9s %-7s %-30s %-30s %-30s %-30s\n' in_flight server "requests/s" "p50 us" "p99 us" \
  "server CPU us per call"
for in_flight in $in_flights; do
  for server in verdict cerbos; do
    label="$server/$in_flight"
    printf '%-9s %-7s %-30s %-30s %-30s %-30s\n' "$in_flight" "$server" \
      "$(summarize "$label" qps)" "$(summarize "$label" p50_us)" "$(summarize "$label" p99_us)" \
      "$(summarize "$label" cpu_us_per_call)"
  done
  echo "  verdict over Cerbos, same round: requests/s" \
    "$(ratio_summary "verdict/$in_flight" "cerbos/$in_flight" qps), CPU per call" \
    "$(ratio_summary "verdict/$in_flight" "cerbos/$in_flight" cpu_us_per_call)"
done
