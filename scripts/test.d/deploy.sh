#!/usr/bin/env bash
# deploy/ without a cluster: the Kubernetes and Istio manifests against their schemas, strictly
# (npm kubernetes-models and TypeScript's excess-property check: an unknown field fails), Envoy's
# ext_authz wiring and field names, and the Dockerfile, checked statically (Docker does not run
# here): among other things, its runtime stage's packages must be exactly those of the shared
# libraries that `ldd` finds in the built verdictd and verdict. And the demo policy's expected
# decisions (deploy/demo-policy.tests.yaml), run by `verdict policy test` with no server.
# Exits non-zero when any check fails. BAZEL overrides the bazel command.
set -euo pipefail
cd "$(dirname "$0")/../.."
read -r -a bazel <<<"${BAZEL:-bazel}"

"${bazel[@]}" build --symlink_prefix=/ //server:verdictd //:verdict
bin=$("${bazel[@]}" info bazel-bin 2>/dev/null)

"$bin/cli/verdict" policy test --policy=deploy/demo-policy.json \
  --tests=deploy/demo-policy.tests.yaml

# The Debian package of every library the binaries link. dpkg knows a file under the path its
# package installs it to; on a merged-/usr system ldd may name it under /lib instead.
mapfile -t libraries < <(ldd "$bin/server/verdictd" "$bin/cli/verdict" |
  awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u)
candidates=()
for lib in "${libraries[@]}"; do
  candidates+=("$lib" "$(realpath "$lib")")
  case $lib in
    /lib/*) candidates+=("/usr$lib") ;;
    /usr/lib/*) candidates+=("${lib#/usr}") ;;
  esac
done
owners=$(dpkg -S "${candidates[@]}" 2>/dev/null || true)
packages=()
for lib in "${libraries[@]}"; do
  owner=""
  for path in "$lib" "$(realpath "$lib")" "/usr$lib" "${lib#/usr}"; do
    owner=$(awk -v p="$path" -F': ' '$2 == p {print $1; exit}' <<<"$owners")
    [[ -n $owner ]] && break
  done
  [[ -n $owner ]] || { echo "deploy: no Debian package owns $lib"; exit 1; }
  packages+=("${owner%%:*}")  # "libfoo:amd64" -> "libfoo"
done
runtime_packages=$(printf '%s\n' "${packages[@]}" | sort -u | tr '\n' ' ')
echo "deploy: the binaries link libraries from: $runtime_packages"

cd deploy/tests
npm ci --no-audit --no-fund --loglevel=error >/dev/null
VERDICT_RUNTIME_PACKAGES=$runtime_packages node --test deploy.test.js
