#!/usr/bin/env bash
# deploy/ without a cluster: the Kubernetes and Istio manifests against their schemas (npm
# kubernetes-models), Envoy's ext_authz wiring, and the Dockerfile (Docker does not run here, so
# it is checked statically). Exits non-zero when any check fails.
set -euo pipefail
cd "$(dirname "$0")/../../deploy/tests"

npm install --no-package-lock --no-audit --no-fund --loglevel=error >/dev/null
node --test deploy.test.js
