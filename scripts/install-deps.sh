#!/usr/bin/env bash
# Installs, from Debian 12's archive, whatever verdict needs that this machine lacks.
# Idempotent: when everything is present it changes nothing and takes a second.
set -euo pipefail

packages=(
  # Build: Bazel 4 in WORKSPACE mode and the rules it loads offline.
  bazel-bootstrap bazel-rules-java bazel-platforms bazel-skylib
  g++ clang-format
  # Libraries verdict links.
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev
  android-libboringssl-dev libsqlitecpp-dev libsqlite3-dev sqlite3 libargon2-dev libpq-dev
  libyaml-cpp-dev  # policy files in YAML (issue 19)
  libgoogle-perftools-dev  # tcmalloc (allocator/BUILD.bazel)
  tzdata
  # Tests and benchmarks.
  libgtest-dev libgmock-dev libbenchmark-dev valgrind
  python3 python3-grpcio python3-grpc-tools python3-protobuf
  # The Python client's wheel (clients/python/build_package.sh) and the virtual environment it
  # is tested in.
  python3-pip python3-setuptools python3-wheel python3-venv
  # promtool, which checks a live scrape of /metrics (scripts/test.d/metrics.sh).
  prometheus
  python3-h2  # raw HTTP/2 for tests/reliability/transport_limits_test.py
  clang libclang-rt-14-dev
  postgresql
)
# Node.js for the cross-language client test: keep the machine's own when it has one.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then packages+=(nodejs npm); fi
if [[ $# -gt 0 ]]; then packages+=("$@"); fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

echo "verdict: installing ${missing[*]}" >&2
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
  "${missing[@]}" >/dev/null
