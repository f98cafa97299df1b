#!/usr/bin/env bash
# The usage examples in headers' file comments name functions that exist
# (scripts/check-header-examples.py), and the check itself catches a stale one. A second.
set -euo pipefail
cd "$(dirname "$0")/../.."

# The check has teeth: a header whose example calls a function no source defines fails it, and
# the same header once the function exists passes.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/decision"
printf '%s\n' '// A widget.' '//' '//   int n = CountWidgets(view);' '#ifndef W_H_' > "$scratch/decision/widget.h"
if python3 scripts/check-header-examples.py "$scratch" > "$scratch/out"; then
  echo "header-examples: a stale example passed the check"; cat "$scratch/out"; exit 1
fi
grep -q "decision/widget.h:3: the example calls CountWidgets" "$scratch/out" || {
  echo "header-examples: the stale example was not named"; cat "$scratch/out"; exit 1; }
printf '%s\n' 'int CountWidgets(int view);' >> "$scratch/decision/widget.h"
python3 scripts/check-header-examples.py "$scratch" > /dev/null || {
  echo "header-examples: an example naming a defined function failed the check"; exit 1; }

python3 scripts/check-header-examples.py
