#!/usr/bin/env bash
# The short form of the benchmark gate (bench/PERFORMANCE.md): instructions per call of the
# decision API and the matcher, counted by valgrind, must stay under 1.25x the committed
# baseline's (times swing up to 3x on a shared host, counts do not); the cost at 100,000 agents over the
# cost at 1,000 must stay under 3x, and a copy without an index must break that check. About a
# minute with the datasets cached, a minute more to generate them.
set -euo pipefail
cd "$(dirname "$0")/../.."
# Built with --symlink_prefix=/ so that the working tree's bazel-bin and bazel-testlogs keep
# pointing at the tests' build (scripts/test.sh runs this after `bazel test //...`).
BAZEL=${BAZEL:-bazel}
exec $BAZEL run --symlink_prefix=/ -c opt //bench:gate -- --short
