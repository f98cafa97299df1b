#!/usr/bin/env bash
# At a release: records proto/ as the API that later changes must not break. Writes
# proto/baseline/api.json, the buf image (every file's descriptors, JSON, without comments)
# that scripts/buf-check.sh (so CI) compares proto/ with; commit it with the release.
#
#   scripts/refresh-api-baseline.sh
#
# The baseline is a committed file, not a git tag, because CI runs on a fresh clone of main
# that may hold no tags.
set -euo pipefail
cd "$(dirname "$0")/.."
buf=$(scripts/buf/install.sh)
mkdir -p proto/baseline
image=$(mktemp --suffix=.json)
trap 'rm -f "$image"' EXIT
(cd proto && "$buf" build --exclude-source-info -o "$image")
# One field a line, so a refresh's diff shows what the release changed in the API.
/usr/bin/python3 -m json.tool --indent 1 "$image" >proto/baseline/api.json
echo "wrote proto/baseline/api.json"
