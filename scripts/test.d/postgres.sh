#!/usr/bin/env bash
# The PostgreSQL half of the test suite: starts a throwaway PostgreSQL server on loopback
# (scripts/pg-test-cluster.sh), runs every Bazel test tagged "postgres" with its URL in
# VERDICT_TEST_POSTGRES_URL (the store contract on PostgreSQL, migrations racing, faults, two
# verdictd processes sharing one database), and stops the server however the tests end.
set -euo pipefail
cd "$(dirname "$0")/../.."

cluster_dir=$(mktemp -d /tmp/verdict-pg-test.XXXXXX)
# The server runs as the postgres user under root: it must be able to reach its directory.
chmod 755 "$cluster_dir"
source scripts/pg-lib.sh  # free_port
port=${VERDICT_TEST_POSTGRES_PORT:-$(free_port)}
trap 'scripts/pg-test-cluster.sh stop "$cluster_dir/data"; rmdir "$cluster_dir"' EXIT

url=$(scripts/pg-test-cluster.sh start "$cluster_dir/data" "$port")
echo "PostgreSQL for the tests: $url"
# VERDICT_BAZEL_STARTUP_OPTIONS and VERDICT_BAZEL_TEST_OPTIONS (e.g. --output_base=... and
# --symlink_prefix=/) run it beside another Bazel server.
# shellcheck disable=SC2086
bazel ${VERDICT_BAZEL_STARTUP_OPTIONS:-} test ${VERDICT_BAZEL_TEST_OPTIONS:-} --build_tests_only \
  --test_tag_filters=postgres --test_env=VERDICT_TEST_POSTGRES_URL="$url" //...
