# Shared by the end-to-end scripts (bench/e2e.sh, bench/peers/cerbos.sh, bench/loadgen_e2e.sh,
# bench/durability.sh, scripts/pg-bench.sh): read their options, build with -c opt, start a
# server and wait for it, drive it with h2load (Debian's nghttp2-client) sending one gRPC frame,
# and measure what the server spent. Sourced, not run. The functions after build_opt need $work
# (a scratch directory) set by the caller.

# Reads `--NAME VALUE` pairs into the caller's variables: each NAME listed in NAMES must be a
# variable the caller has set to its default. Anything else prints the usage (every option with
# its default) and exits 2.
# usage: parse_options "agents rounds in_flight ..." "$@"
parse_options() {
  local names=" $1 "
  shift
  while [[ $# -gt 0 ]]; do
    local name=${1#--}
    if [[ $1 != --* || $names != *" $name "* || $# -lt 2 ]]; then
      local usage="usage: $0" option
      for option in $names; do usage+=" [--$option \"${!option}\"]"; done
      echo "$usage" >&2
      exit 2
    fi
    printf -v "$name" '%s' "$2"
    shift 2
  done
}

# Builds TARGETS with -c opt and sets $bin to where they are. BAZEL_OUTPUT_BASE, when set, is the
# build's --output_base. --symlink_prefix=/: an -c opt build must not repoint the working tree's
# bazel-bin links.
# usage: build_opt //server:verdictd //bench:loadgen ...
build_opt() {
  local bazel_cmd=(bazel ${BAZEL_OUTPUT_BASE:+--output_base=$BAZEL_OUTPUT_BASE})
  "${bazel_cmd[@]}" build --symlink_prefix=/ -c opt "$@"
  bin=$("${bazel_cmd[@]}" info -c opt bazel-bin 2>/dev/null)
}

# Starts COMMAND in the background, its output in $work/NAME.log, and waits until that log
# matches PATTERN (the server says it serves). Sets started_pid.
# usage: start_and_wait NAME PATTERN COMMAND...
start_and_wait() {
  local name=$1 pattern=$2
  shift 2
  : >"$work/$name.log"
  "$@" >"$work/$name.log" 2>&1 &
  started_pid=$!
  for _ in $(seq 1 600); do
    if grep -q -- "$pattern" "$work/$name.log"; then return 0; fi
    if ! kill -0 "$started_pid" 2>/dev/null; then break; fi
    sleep 0.1
  done
  echo "$name did not start:" >&2
  cat "$work/$name.log" >&2
  return 1
}

# The process's user + system CPU so far, in microseconds.
cpu_us() {
  local ticks
  ticks=$(awk '{ print $14 + $15 }' "/proc/$1/stat")
  echo $((ticks * 1000000 / $(getconf CLK_TCK)))
}

free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# One h2load run against one server. Appends one line to $work/runs.txt:
#   LABEL qps Q p50_us A p99_us B cpu_us_per_call C calls N
# and fails when any call failed or any answer differs in size from the checked one.
# usage: h2load_run LABEL PID TARGET PATH FRAME RESPONSE_FRAME_BYTES IN_FLIGHT CONNECTIONS SECONDS
# TARGET is host:port or unix:PATH; IN_FLIGHT is spread over CONNECTIONS.
h2load_run() {
  local label=$1 pid=$2 target=$3 path=$4 frame=$5 response_bytes=$6 in_flight=$7
  local connections=$8 seconds=$9
  local uri base=()
  if [[ $target == unix:* ]]; then
    base=(-B "$target")
    uri="http://localhost$path"
  else
    uri="http://$target$path"
  fi
  local log="$work/h2load.requests" out="$work/h2load.out"
  rm -f "$log"
  local before after
  before=$(cpu_us "$pid")
  h2load "${base[@]}" -D "$seconds" -c "$connections" -m $((in_flight / connections)) \
    -d "$frame" -H 'content-type: application/grpc' -H 'te: trailers' \
    --log-file="$log" "$uri" >"$out" 2>&1 || { cat "$out" >&2; return 1; }
  after=$(cpu_us "$pid")
  local done_calls succeeded data
  done_calls=$(sed -nE 's/^requests: .* ([0-9]+) done.*/\1/p' "$out")
  succeeded=$(sed -nE 's/^requests: .* ([0-9]+) succeeded.*/\1/p' "$out")
  data=$(sed -nE 's/^traffic: .* \(([0-9]+)\) data$/\1/p' "$out")
  if [[ -z $done_calls || $done_calls -eq 0 || $succeeded -ne $done_calls ]]; then
    echo "$label: not every call succeeded:" >&2
    cat "$out" >&2
    return 1
  fi
  # A gRPC error answers with trailers alone: fewer data bytes than calls x the checked answer.
  if [[ $data -ne $((done_calls * response_bytes)) ]]; then
    echo "$label: $data data bytes for $done_calls calls, expected $response_bytes per call" >&2
    return 1
  fi
  # h2load's log: start time, status, microseconds to the end of the response, per call.
  /usr/bin/python3 - "$log" "$label" "$done_calls" "$seconds" "$((after - before))" \
    >>"$work/runs.txt" <<'PY'
import sys
log, label, calls, seconds, cpu_us = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
elapsed = sorted(int(line.split("\t")[2]) for line in open(log) if line.strip())
def pct(p):
    return elapsed[min(len(elapsed) - 1, int(p / 100 * len(elapsed)))]
print(f"{label} qps {calls / seconds:.0f} p50_us {pct(50)} p99_us {pct(99)} "
      f"cpu_us_per_call {cpu_us / calls:.1f} calls {calls}")
PY
  tail -1 "$work/runs.txt"
}

# "median (min to max)" of FIELD over the runs.txt lines whose label is LABEL.
summarize() {
  local label=$1 field=$2
  awk -v label="$label" -v field="$field" '$1 == label {
      for (i = 2; i < NF; i += 2) if ($i == field) print $(i + 1) }' "$work/runs.txt" |
    sort -g | awk '{ v[NR] = $1 } END {
      if (NR == 0) { print "n/a"; exit }
      m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "%.1f (%.1f to %.1f)", m, v[1], v[NR] }'
}

# "median (min to max)" over the rounds of A's FIELD divided by B's in the same round.
ratio_summary() {
  local a=$1 b=$2 field=$3
  awk -v a="$a" -v b="$b" -v field="$field" '
    function value(   i) { for (i = 2; i < NF; i += 2) if ($i == field) return $(i + 1) }
    $1 == a { va[++na] = value() }
    $1 == b { vb[++nb] = value() }
    END { n = (na < nb) ? na : nb; for (i = 1; i <= n; i++) if (vb[i] > 0) print va[i] / vb[i] }' \
    "$work/runs.txt" | sort -g | awk '{ v[NR] = $1 } END {
      if (NR == 0) { print "n/a"; exit }
      m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "%.2fx (%.2f to %.2f)", m, v[1], v[NR] }'
}
