#!/usr/bin/env bash
# Installs npm's @bufbuild/buf at the version scripts/buf/package-lock.json pins (npm ci, here),
# unless it is there already, and prints the path of its `buf` binary.
set -euo pipefail
cd "$(dirname "$0")"
want=$(node -p 'require("./package-lock.json").packages["node_modules/@bufbuild/buf"].version')
if [[ "$(node_modules/.bin/buf --version 2>/dev/null)" != "$want" ]]; then
  npm ci --no-audit --no-fund --loglevel=error >&2
fi
echo "$PWD/node_modules/.bin/buf"
