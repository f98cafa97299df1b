#!/usr/bin/env bash
# The API's hygiene: `buf lint` (proto/buf.yaml: buf's STANDARD rules, 0 violations allowed) and
# `buf breaking` against the API of the last release (proto/baseline/api.json, written by
# scripts/refresh-api-baseline.sh). buf is npm's @bufbuild/buf at the version pinned in
# scripts/buf/package-lock.json, installed there by `npm ci` when missing.
#
#   scripts/buf-check.sh                 # proto/ of this checkout
#   scripts/buf-check.sh --proto=DIR     # another copy of it (scripts/test.d/buf.sh's altered ones)
#
# Exits 0 when both pass, 1 when either finds a problem (each printed as file:line:column).
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
proto=$repo/proto
for arg in "$@"; do
  case $arg in
    --proto=*) proto=${arg#--proto=} ;;
    *) echo "usage: $0 [--proto=DIR]" >&2; exit 2 ;;
  esac
done

buf=$(scripts/buf/install.sh) || exit 1
status=0
echo "buf lint $proto"
(cd "$proto" && "$buf" lint) || status=1
echo "buf breaking $proto against proto/baseline/api.json"
(cd "$proto" && "$buf" breaking --against "$repo/proto/baseline/api.json") || status=1
exit $status
