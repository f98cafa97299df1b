#!/usr/bin/env bash
# The API's hygiene (issue 20): scripts/buf-check.sh passes on proto/ (buf lint with 0 violations,
# buf breaking against proto/baseline/api.json), and it does catch what it is there for: on
# altered copies of proto/, a field renumbered and an enum value renamed must each fail
# `buf breaking`, and an enum value without its type's prefix must fail `buf lint`. Then buf
# curl reaches a live verdictd through both revisions of server reflection.
set -uo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
expect() {  # expect pass|fail NAME COMMAND...
  local want=$1 name=$2
  shift 2
  "$@" >"$work/out" 2>&1
  local status=$?
  if [[ ($want == pass && $status -eq 0) || ($want == fail && $status -ne 0) ]]; then
    echo "buf: $name PASS"
  else
    echo "buf: $name FAIL (expected buf-check to $want)"
    cat "$work/out"
    failures=$((failures + 1))
  fi
}
# altered NAME SED_EXPRESSION FILE: a copy of proto/ with one edit, which must change the file.
altered() {
  local copy=$work/$1
  cp -r "$repo/proto" "$copy"
  rm -rf "$copy/baseline"
  sed -i "$2" "$copy/$3"
  if cmp -s "$repo/proto/$3" "$copy/$3"; then echo "buf: $1: the edit changed nothing" >&2; return 1; fi
  echo "$copy"
}

# reports CHECK TEXT: the last buf-check output names the problem it was meant to catch.
reports() {
  if ! grep -q -- "$2" "$work/out"; then
    echo "buf: $1: output does not say \"$2\""
    cat "$work/out"
    failures=$((failures + 1))
  fi
}

expect pass "proto/ lints clean and keeps the baseline" scripts/buf-check.sh

if copy=$(altered renumbered 's/^  string action = 2;/  string action = 9;/' \
  verdict/v1/decision.proto); then
  expect fail "a renumbered field breaks" scripts/buf-check.sh --proto="$copy"
  reports "renumbered field" 'field "2" with name "action" on message "AuthorizeRequest" was deleted'
else failures=$((failures + 1)); fi

if copy=$(altered renamed 's/REASON_CODE_RATE_LIMITED = 14;/REASON_CODE_RATE_LIMIT = 14;/' \
  verdict/v1/decision.proto); then
  expect fail "a renamed enum value breaks" scripts/buf-check.sh --proto="$copy"
  reports "renamed enum value" 'REASON_CODE_RATE_LIMITED'
else failures=$((failures + 1)); fi

if copy=$(altered unprefixed 's/VERDICT_NEEDS_APPROVAL = 3;/NEEDS_APPROVAL = 3;/' \
  verdict/v1/decision.proto); then
  expect fail "an enum value without its type's prefix fails lint" scripts/buf-check.sh \
    --proto="$copy"
  reports "unprefixed enum value" 'should be prefixed with "VERDICT_"'
else failures=$((failures + 1)); fi

# Server reflection, both revisions, with a client that is not verdict's: buf curl asks a real
# verdictd for DecisionService's schema over grpc.reflection.v1, then over v1alpha, and calls
# Authorize with what it learnt.
read -r -a bazel <<<"${BAZEL:-bazel}"
if "${bazel[@]}" build --symlink_prefix=/ //server:verdictd >"$work/build.log" 2>&1 &&
  bin=$("${bazel[@]}" info bazel-bin 2>/dev/null); then
  "$bin/server/verdictd" --listen=127.0.0.1:0 --db="$work/reflection.db" --admin_listen=off \
    --seed=deploy/demo-policy.json 2>"$work/verdictd.err" &
  pid=$!
  addr=""
  for _ in $(seq 300); do
    addr=$(sed -n 's/.*verdictd serving on \([^ ]*\) .*/\1/p' "$work/verdictd.err")
    [[ -n "$addr" ]] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  buf=$(scripts/buf/install.sh)
  for protocol in grpc-v1 grpc-v1alpha; do
    if [[ -n "$addr" ]] && "$buf" curl --protocol=grpc --http2-prior-knowledge \
      --reflect-protocol="$protocol" --timeout=20s \
      --data='{"subject":{"agent_id":"agt_demo_reader"},"action":"read","resource":"docs:guide:1"}' \
      "http://$addr/verdict.v1.DecisionService/Authorize" >"$work/curl.out" 2>&1 &&
      grep -q '"verdict": "VERDICT_ALLOW"' "$work/curl.out"; then
      echo "buf: buf curl through reflection $protocol PASS"
    else
      echo "buf: buf curl through reflection $protocol FAIL"
      cat "$work/curl.out" "$work/verdictd.err" 2>/dev/null
      failures=$((failures + 1))
    fi
  done
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
else
  echo "buf: building verdictd FAIL"
  cat "$work/build.log"
  failures=$((failures + 1))
fi

[[ $failures -eq 0 ]]
