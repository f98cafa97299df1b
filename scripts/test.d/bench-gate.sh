#!/usr/bin/env bash
# The short form of the benchmark gate (bench/PERFORMANCE.md): the cost at 100,000 agents over
# the cost at 1,000 must stay under 2x (and a copy without the token index must break that
# check), and the curated benchmarks must not have slowed down 2x against the committed
# baseline. A few minutes, data generation included.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec bazel run -c opt //bench:gate -- --short
