#!/usr/bin/env bash
# verdict from other languages, against real verdictd processes on temporary databases:
#   - the Python client, as a package: its wheel built by clients/python/build_package.sh and
#     installed into a new virtual environment (Debian's python3-venv; with the system's
#     site-packages, because grpcio and protobuf come from Debian's python3-grpcio and
#     python3-protobuf: PyPI is not reachable), and the Node.js client, as a package: packed
#     with its .proto files, unpacked outside the repository, its dependencies installed there
#     from the committed lockfile; both call Authorize, ValidateToken and Simulate on a verdictd
#     seeded with deploy/demo-policy.json;
#   - deploy/README.md's mesh walkthrough, without a cluster: Envoy-shaped CheckRequests to a
#     verdictd seeded with deploy/mesh-demo-policy.json are allowed, the agent is revoked with
#     the `verdict` CLI over the admin socket, and the same request is then denied;
#   - then the demo verdictd's /metrics is scraped and its JSON decision log read back.
# Exits non-zero when anything fails. BAZEL overrides the bazel command (for example to give an
# --output_base).
set -uo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
read -r -a bazel <<<"${BAZEL:-bazel}"

"${bazel[@]}" build --symlink_prefix=/ //server:verdictd //:verdict || exit 1
bin=$("${bazel[@]}" info bazel-bin 2>/dev/null) || exit 1
verdictd="$bin/server/verdictd"
verdict_cli="$bin/cli/verdict"

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  rm -rf "$work"
}
trap cleanup EXIT

# start_verdictd NAME SEED: starts verdictd on free ports; sets $addr (host:port) and writes
# $work/NAME.jsonl (the JSON decision log).
start_verdictd() {
  local name=$1 seed=$2
  "$verdictd" --listen=127.0.0.1:0 --db="$work/$name.db" --seed="$seed" \
    --admin_secret_file="$work/admin-secret" --test_only_weak_admin_hash \
    --metrics_listen=127.0.0.1:0 --decision_json_log="$work/$name.jsonl" --decision_log \
    >"$work/$name.out" 2>"$work/$name.err" &
  pids+=($!)
  addr=""
  for _ in $(seq 100); do
    addr=$(sed -n 's/.*verdictd serving on \([^ ]*\) .*/\1/p' "$work/$name.err")
    [[ -n "$addr" ]] && return 0
    sleep 0.1
  done
  echo "verdictd ($name) did not start:"; cat "$work/$name.err"
  return 1
}

head -c 32 /dev/urandom | base64 | tr -d '\n' >"$work/admin-secret"
start_verdictd demo "$repo/deploy/demo-policy.json" || exit 1
demo_addr=$addr
start_verdictd mesh "$repo/deploy/mesh-demo-policy.json" || exit 1
mesh_addr=$addr

failures=0
report() {  # report NAME STATUS
  if [[ $2 -eq 0 ]]; then echo "clients: $1 PASS"; else echo "clients: $1 FAIL"; failures=$((failures + 1)); fi
}

# Python: the verdict-client wheel, installed into a new virtual environment. The test runs with
# -P (this directory off sys.path) and checks that the client comes from the environment. The
# stubs of Envoy's ext_authz and google.rpc, for the mesh walkthrough only, are generated apart.
stubs="$work/python-stubs"
venv="$work/venv"
mkdir -p "$stubs"
(cd proto && /usr/bin/python3 -m grpc_tools.protoc -I. -I/usr/include \
  --python_out="$stubs" --grpc_python_out="$stubs" \
  google/rpc/status.proto envoy/type/v3/http_status.proto \
  envoy/config/core/v3/address.proto envoy/config/core/v3/base.proto \
  envoy/service/auth/v3/attribute_context.proto envoy/service/auth/v3/external_auth.proto) &&
  clients/python/build_package.sh "$work/dist" &&
  /usr/bin/python3 -m venv --system-site-packages "$venv" &&
  "$venv/bin/pip" install --quiet --no-index "$work"/dist/verdict_client-*.whl
status=$?
if [[ $status -eq 0 ]]; then
  VERDICT_ADDR=$demo_addr VERDICT_MESH_ADDR=$mesh_addr VERDICT_STUBS=$stubs \
    VERDICT_EXPECT_INSTALLED=1 VERDICT_ADMIN_SECRET=$(cat "$work/admin-secret") \
    VERDICT_REVOKE_CMD="$verdict_cli agents revoke --id={agent} --admin_addr=unix:$work/mesh.db.admin.sock" \
    "$venv/bin/python" -P clients/python/verdict_client_test.py
  status=$?
fi
report python $status

# Node.js: the verdict-client package (npm pack bundles its .proto files), unpacked into the
# work directory, outside the repository, with its dependencies installed there from the
# committed lockfile; the test loads that copy.
node_pkg="$work/node-client"
mkdir -p "$node_pkg"
(cd clients/node && npm ci --no-audit --no-fund --loglevel=error >/dev/null &&
  npm pack --silent --pack-destination "$work" >/dev/null) &&
  tar -xzf "$work"/verdict-client-*.tgz -C "$node_pkg" --strip-components=1 &&
  cp clients/node/package-lock.json "$node_pkg/" &&
  (cd "$node_pkg" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error \
    >/dev/null) &&
  VERDICT_CLIENT=$node_pkg VERDICT_ADDR=$demo_addr node --test clients/node/verdict_client.test.js
report node $?

# Metrics and logs, after the calls above: every token the clients sent must stay out of the log.
metrics=$(sed -n 's/.*verdictd metrics on \([^ ]*\/metrics\).*/\1/p' "$work/demo.err")
secrets=$(/usr/bin/python3 -c 'import json, sys
print(",".join(a["token"] for a in json.load(open(sys.argv[1]))["agents"]))' deploy/demo-policy.json)
VERDICT_METRICS_URL="http://$metrics" VERDICT_JSON_LOG="$work/demo.jsonl" VERDICT_SECRETS=$secrets \
  /usr/bin/python3 clients/python/observability_test.py
report metrics-and-logs $?

[[ $failures -eq 0 ]]
