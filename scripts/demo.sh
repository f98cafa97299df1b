#!/usr/bin/env bash
# The first command: install what is missing, build, and run verdictd on loopback with an
# embedded SQLite database seeded with a small demo policy (deploy/demo-policy.json).
#   VERDICT_LISTEN (default 127.0.0.1:50051)  VERDICT_DB (default ./var/verdict-demo.db)
#   VERDICT_METRICS_LISTEN (default 127.0.0.1:9464)
# The policy is seeded into a new database only: a later run serves what the database holds
# (rm -f var/verdict-demo.db* starts afresh).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
bazel build -c opt //:verdictd //:verdict

listen=${VERDICT_LISTEN:-127.0.0.1:50051}
db=${VERDICT_DB:-var/verdict-demo.db}
metrics=${VERDICT_METRICS_LISTEN:-127.0.0.1:9464}
mkdir -p "$(dirname "$db")"
# The admin secret: made once, kept beside the database, readable by its owner only.
secret_file="$(dirname "$db")/admin-secret"
if [[ ! -s "$secret_file" ]]; then
  (umask 077 && head -c 32 /dev/urandom | base64 | tr -d '=\n/+' > "$secret_file")
fi

if [[ -e "$db" ]]; then
  seeded="as it was left; rm -f $db* to start afresh"
else
  seeded="seeded from deploy/demo-policy.json"
fi

cat <<MSG

verdict demo: serving decisions on $listen from $db ($seeded).
Try, from another terminal:
  bazel-bin/cli/verdict --addr=$listen check --agent=agt_demo_reader --action=read --resource=docs:guide:1
  bazel-bin/cli/verdict --addr=$listen check --agent=agt_demo_reader --action=read --resource=docs:secret:1
  grpcurl -plaintext -d '{"subject":{"agent_id":"agt_demo_reader"},"action":"read","resource":"docs:guide:1"}' \\
      $listen verdict.v1.DecisionService/Authorize
  bazel-bin/cli/verdict agents suspend --id=agt_demo_reader \\
      --admin_addr=unix:$db.admin.sock --admin_secret_file=$secret_file
      # ... and the first check above now answers DENY AGENT_SUSPENDED
  curl -s http://$metrics/metrics | head
Stop with Ctrl-C (verdictd finishes the calls in flight and exits 0).

MSG
exec bazel-bin/server/verdictd --listen="$listen" --db="$db" --seed=deploy/demo-policy.json \
  --admin_secret_file="$secret_file" --decision_log --metrics_listen="$metrics"
