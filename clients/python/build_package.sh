#!/usr/bin/env bash
# Builds verdict's Python client wheel into OUT_DIR: generates the verdict.v1 modules from
# proto/verdict/v1/decision.proto with grpc_tools (Debian's python3-grpc-tools), in a staging copy
# so that the source tree stays as committed, then builds the wheel offline.
#
#   clients/python/build_package.sh /tmp/dist   # -> /tmp/dist/verdict_client-0.1.0-py3-none-any.whl
#
# PYTHON picks the interpreter that builds the wheel (it needs setuptools and wheel; Debian's
# /usr/bin/python3 with python3-setuptools and python3-wheel by default).
set -euo pipefail
out=${1:?usage: build_package.sh OUT_DIR}
python=${PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)
proto="$here/../../proto"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp "$here/pyproject.toml" "$here/README.md" "$here/verdict_client.py" "$stage/"
/usr/bin/python3 -m grpc_tools.protoc -I "$proto" -I /usr/include \
  --python_out="$stage" --grpc_python_out="$stage" "$proto/verdict/v1/decision.proto"
touch "$stage/verdict/__init__.py" "$stage/verdict/v1/__init__.py"
mkdir -p "$out"
"$python" -m pip wheel --quiet --no-deps --no-build-isolation --no-index --wheel-dir "$out" \
  "$stage"
