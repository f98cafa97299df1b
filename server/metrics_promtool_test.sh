#!/usr/bin/env bash
# A live verdictd's /metrics, scraped after real decisions, passes Prometheus's own linter
# (`promtool check metrics`, Debian's prometheus package) and holds the series dashboards
# expect: the gRPC ecosystem's grpc_server_* (with grpc_type), the process_* series, and
# decision latency buckets from 1 us.
set -euo pipefail

runfiles="${TEST_SRCDIR}/${TEST_WORKSPACE}"
verdictd="$runfiles/server/verdictd"
verdict="$runfiles/cli/verdict"
policy="$runfiles/deploy/demo-policy.json"
work="${TEST_TMPDIR}"
command -v promtool >/dev/null || { echo "promtool missing: run scripts/install-deps.sh"; exit 1; }

"$verdictd" --listen=127.0.0.1:0 --db="$work/metrics.db" --seed="$policy" --admin_listen=off \
  --metrics_listen=127.0.0.1:0 >"$work/out" 2>"$work/err" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null' EXIT

# The serving line comes after the metrics line (both on stderr): both are there once it is.
addr=""
for _ in $(seq 300); do
  addr=$(sed -n 's/.*verdictd serving on \([^ ]*\) .*/\1/p' "$work/err")
  [[ -n "$addr" ]] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
[[ -n "$addr" ]] || { echo "verdictd did not start:"; cat "$work/err"; exit 1; }
metrics=$(sed -n 's/.*verdictd metrics on \([^ ]*\/metrics\).*/\1/p' "$work/err")  # host:port/metrics

# An allow, a deny and a refused (INVALID_ARGUMENT) call.
"$verdict" check --addr="$addr" --agent=agt_demo_reader --action=read --resource=docs:guide:1
"$verdict" check --addr="$addr" --agent=agt_demo_reader --action=read --resource=docs:secret:1 \
  && { echo "expected a deny"; exit 1; }
"$verdict" check --addr="$addr" --agent=agt_demo_reader --action= --resource=docs:guide:1 \
  && { echo "expected a refusal"; exit 1; }

/usr/bin/python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
  "http://$metrics" >"$work/scrape.txt"

echo "promtool check metrics:"
if ! promtool check metrics <"$work/scrape.txt"; then
  echo "FAIL: promtool found problems in the scrape above"
  exit 1
fi

expect() {  # expect REGEX: some line of the scrape matches
  grep -Eq "$1" "$work/scrape.txt" || { echo "FAIL: no line matches $1"; exit 1; }
}
service='grpc_service="verdict.v1.DecisionService"'
expect "^grpc_server_started_total\{grpc_method=\"Authorize\",$service,grpc_type=\"unary\"\} 3$"
expect "^grpc_server_handled_total\{grpc_code=\"OK\",grpc_method=\"Authorize\",$service,grpc_type=\"unary\"\} 2$"
expect "^grpc_server_handled_total\{grpc_code=\"INVALID_ARGUMENT\",grpc_method=\"Authorize\",$service,grpc_type=\"unary\"\} 1$"
expect "^grpc_server_handling_seconds_bucket\{grpc_method=\"Authorize\",$service,grpc_type=\"unary\",le=\"1e-06\"\} "
expect '^# TYPE grpc_server_handling_seconds histogram$'
expect '^verdict_decision_duration_seconds_bucket\{le="1e-06"\} [0-9]+$'
expect '^process_cpu_seconds_total [0-9.e+-]+$'
expect '^process_resident_memory_bytes [1-9][0-9]*$'
expect '^process_open_fds [1-9][0-9]*$'
expect '^process_start_time_seconds [1-9][0-9.e+]*$'
# The names published before stay (README: Metrics).
expect "^verdict_grpc_server_handled_total\{$service,grpc_method=\"Authorize\",grpc_code=\"OK\"\} 2$"
echo "PASS"
