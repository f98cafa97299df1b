#!/usr/bin/env bash
# Builds ThreadSanitizer-instrumented static copies of the gRPC and protobuf libraries verdict
# links, from Debian's own source packages of exactly the versions installed (gRPC 1.51.1,
# protobuf 3.21.12, with Debian's patches), into a cache directory, once. `bazel test
# --config=tsan //...` then links them instead of Debian's uninstrumented ones
# (third_party/tsan_deps.bzl finds the cache; README "Thread sanitizer").
#
#   scripts/tsan-deps.sh            build if the cache is missing (a second run exits at once)
#   JOBS=4 scripts/tsan-deps.sh     more parallel compile jobs (default 2)
#
# Built: libprotobuf.a, and gRPC's grpc++_unsecure, grpc_unsecure, gpr, upb, address_sorting
# (the libraries third_party/system.BUILD links: no TLS, so no OpenSSL in the process), plus
# grpc++_reflection from its sources (verdict serves its own reflection today; built so a
# target that wants gRPC's can link an instrumented one). abseil, re2, c-ares and zlib stay
# Debian's: gRPC is configured against them (gRPC_*_PROVIDER=package) and abseil's
# synchronization is annotated for TSan by tests/reliability/tsan_absl_sync.cc.
#
# Same compiler as Bazel's default toolchain (gcc), so one TSan runtime (libtsan) is in the
# process. Needs root (or sudo) only to install missing build dependencies and a deb-src entry.
set -euo pipefail

GRPC_VERSION=1.51.1
PROTOBUF_VERSION=3.21.12
CACHE_ROOT="${VERDICT_TSAN_DEPS:-${XDG_CACHE_HOME:-$HOME/.cache}/verdict/tsan-deps}"
PREFIX="$CACHE_ROOT/grpc-$GRPC_VERSION-protobuf-$PROTOBUF_VERSION"
STAMP="$PREFIX/COMPLETE"
JOBS="${JOBS:-2}"
FLAGS="-fsanitize=thread -O1 -g1 -fno-omit-frame-pointer -fPIC"

if [[ -e "$STAMP" ]]; then
  echo "tsan-deps: $PREFIX is complete ($(cat "$STAMP")); nothing to do"
  exit 0
fi

log() { echo "tsan-deps: $(date -u +%H:%M:%S) $*"; }
as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }
elapsed() { echo "$(($(date +%s) - $1)) s"; }
START=$(date +%s)

# --- build dependencies (from Debian) ---------------------------------------------------------
NEEDED=(cmake ninja-build g++ pkgconf dpkg-dev libabsl-dev libc-ares-dev libre2-dev zlib1g-dev
  libssl-dev libprotobuf-dev libprotoc-dev protobuf-compiler protobuf-compiler-grpc libgrpc++-dev)
MISSING=()
for p in "${NEEDED[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || MISSING+=("$p")
done
if ((${#MISSING[@]})); then
  log "installing ${MISSING[*]}"
  as_root apt-get install -y --no-install-recommends "${MISSING[@]}"
fi
for pair in "libgrpc++-dev $GRPC_VERSION" "libprotobuf-dev $PROTOBUF_VERSION"; do
  set -- $pair
  have=$(dpkg-query -W -f='${Version}' "$1")
  [[ "$have" == "$2"-* ]] || {
    echo "tsan-deps: $1 is $have, expected $2 (the headers Bazel compiles against)" >&2
    exit 1
  }
done

# --- sources (Debian's source packages, Debian patches applied) -------------------------------
SRC="$CACHE_ROOT/src"
mkdir -p "$SRC"
if ! ls -d "$SRC"/grpc-$GRPC_VERSION "$SRC"/protobuf-$PROTOBUF_VERSION >/dev/null 2>&1; then
  if ! apt-get source --print-uris grpc >/dev/null 2>&1; then
    log "adding a deb-src entry for bookworm"
    uri=$(grep -h -m1 -E '^URIs:.*debian/?$' /etc/apt/sources.list.d/*.sources 2>/dev/null |
      awk '{print $2}')
    as_root tee /etc/apt/sources.list.d/verdict-debian-src.sources >/dev/null <<EOF
Types: deb-src
URIs: ${uri:-http://deb.debian.org/debian}
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    as_root apt-get update
  fi
  (cd "$SRC" && apt-get source grpc protobuf)
fi
[[ -d "$SRC/grpc-$GRPC_VERSION" && -d "$SRC/protobuf-$PROTOBUF_VERSION" ]] || {
  echo "tsan-deps: apt-get source did not unpack grpc-$GRPC_VERSION and protobuf-$PROTOBUF_VERSION" >&2
  exit 1
}

mkdir -p "$PREFIX/lib"

# --- protobuf: libprotobuf.a only (Debian's protoc generates the code, same version) ----------
T=$(date +%s)
log "protobuf $PROTOBUF_VERSION: configure and build libprotobuf"
cmake -S "$SRC/protobuf-$PROTOBUF_VERSION/cmake" -B "$CACHE_ROOT/build/protobuf" -G Ninja \
  -DCMAKE_BUILD_TYPE=None -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
  -DCMAKE_C_FLAGS="$FLAGS" -DCMAKE_CXX_FLAGS="$FLAGS" -DCMAKE_CXX_STANDARD=17 \
  -Dprotobuf_BUILD_TESTS=OFF -Dprotobuf_BUILD_SHARED_LIBS=OFF -Dprotobuf_BUILD_PROTOC_BINARIES=OFF \
  -Dprotobuf_BUILD_LIBPROTOC=OFF -Dprotobuf_WITH_ZLIB=ON -Dprotobuf_BUILD_EXAMPLES=OFF >/dev/null
nice -n 19 ninja -C "$CACHE_ROOT/build/protobuf" -j "$JOBS" libprotobuf
cp "$CACHE_ROOT/build/protobuf/libprotobuf.a" "$PREFIX/lib/"
PROTOBUF_TIME=$(elapsed "$T")
log "protobuf done in $PROTOBUF_TIME"

# --- gRPC: the unsecure libraries verdict links -----------------------------------------------
T=$(date +%s)
GRPC_TARGETS=(gpr address_sorting upb grpc_unsecure grpc++_unsecure)
log "gRPC $GRPC_VERSION: configure and build ${GRPC_TARGETS[*]}"
cmake -S "$SRC/grpc-$GRPC_VERSION" -B "$CACHE_ROOT/build/grpc" -G Ninja \
  -DCMAKE_BUILD_TYPE=None -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
  -DCMAKE_C_FLAGS="$FLAGS" -DCMAKE_CXX_FLAGS="$FLAGS" -DCMAKE_CXX_STANDARD=17 \
  -DBUILD_SHARED_LIBS=OFF -DgRPC_BUILD_TESTS=OFF -DgRPC_BUILD_CODEGEN=OFF \
  -DgRPC_BUILD_GRPC_CPP_PLUGIN=OFF -DgRPC_BUILD_GRPC_CSHARP_PLUGIN=OFF \
  -DgRPC_BUILD_GRPC_NODE_PLUGIN=OFF -DgRPC_BUILD_GRPC_OBJECTIVE_C_PLUGIN=OFF \
  -DgRPC_BUILD_GRPC_PHP_PLUGIN=OFF -DgRPC_BUILD_GRPC_PYTHON_PLUGIN=OFF \
  -DgRPC_BUILD_GRPC_RUBY_PLUGIN=OFF -DgRPC_BACKWARDS_COMPATIBILITY_MODE=OFF \
  -DgRPC_ABSL_PROVIDER=package -DgRPC_CARES_PROVIDER=package -DgRPC_PROTOBUF_PROVIDER=package \
  -DgRPC_RE2_PROVIDER=package -DgRPC_SSL_PROVIDER=package -DgRPC_ZLIB_PROVIDER=package \
  -DgRPC_BENCHMARK_PROVIDER=none >/dev/null
nice -n 19 ninja -C "$CACHE_ROOT/build/grpc" -j "$JOBS" "${GRPC_TARGETS[@]}"
for t in "${GRPC_TARGETS[@]}"; do cp "$CACHE_ROOT/build/grpc/lib$t.a" "$PREFIX/lib/"; done
GRPC_TIME=$(elapsed "$T")
log "gRPC done in $GRPC_TIME"

# --- grpc++_reflection: its CMake target needs the TLS libgrpc++, so compile its sources -------
T=$(date +%s)
G="$SRC/grpc-$GRPC_VERSION"
R="$CACHE_ROOT/build/reflection"
mkdir -p "$R"
protoc -I"$G" --cpp_out="$R" --grpc_out="$R" --plugin=protoc-gen-grpc=/usr/bin/grpc_cpp_plugin \
  "$G/src/proto/grpc/reflection/v1alpha/reflection.proto"
objs=()
for s in "$R/src/proto/grpc/reflection/v1alpha/reflection.pb.cc" \
  "$R/src/proto/grpc/reflection/v1alpha/reflection.grpc.pb.cc" \
  "$G/src/cpp/ext/proto_server_reflection.cc" "$G/src/cpp/ext/proto_server_reflection_plugin.cc"; do
  o="$R/$(basename "$s" .cc).o"
  nice -n 19 g++ -std=c++17 $FLAGS -I"$R" -I"$G" -I"$G/include" -c "$s" -o "$o"
  objs+=("$o")
done
rm -f "$PREFIX/lib/libgrpc++_reflection.a"
ar rcs "$PREFIX/lib/libgrpc++_reflection.a" "${objs[@]}"
log "grpc++_reflection done in $(elapsed "$T")"

echo "gRPC $GRPC_VERSION + protobuf $PROTOBUF_VERSION, $FLAGS, built $(date -u +%FT%TZ) in" \
  "$(elapsed "$START") (protobuf $PROTOBUF_TIME, gRPC $GRPC_TIME)" >"$STAMP"
log "complete: $(cat "$STAMP")"
