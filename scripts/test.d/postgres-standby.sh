#!/usr/bin/env bash
# Reads on synchronous standbys (issue 22): starts a PostgreSQL primary with two streaming
# synchronous standbys on loopback (scripts/pg-standby-cluster.sh), runs the Bazel tests tagged
# "postgres_standby" with the primary's URL in VERDICT_TEST_POSTGRES_URL and the standbys' in
# VERDICT_TEST_POSTGRES_STANDBY_URLS, and stops the servers however the tests end.
set -euo pipefail
cd "$(dirname "$0")/../.."

cluster_dir=$(mktemp -d /tmp/verdict-pg-standby.XXXXXX)
# The servers run as the postgres user under root: they must be able to reach the directory.
chmod 755 "$cluster_dir"
trap 'scripts/pg-standby-cluster.sh stop "$cluster_dir/nodes"; rmdir "$cluster_dir"' EXIT

mapfile -t urls < <(scripts/pg-standby-cluster.sh start "$cluster_dir/nodes")
[[ ${#urls[@]} -eq 3 ]] || { echo "the standby cluster did not start" >&2; exit 1; }
echo "PostgreSQL primary ${urls[0]}, synchronous standbys ${urls[1]} ${urls[2]}"
# VERDICT_BAZEL_STARTUP_OPTIONS and VERDICT_BAZEL_TEST_OPTIONS as in scripts/test.d/postgres.sh.
# shellcheck disable=SC2086
bazel ${VERDICT_BAZEL_STARTUP_OPTIONS:-} test ${VERDICT_BAZEL_TEST_OPTIONS:-} --build_tests_only \
  --test_tag_filters=postgres_standby --test_env=VERDICT_TEST_POSTGRES_URL="${urls[0]}" \
  --test_env=VERDICT_TEST_POSTGRES_STANDBY_URLS="${urls[1]} ${urls[2]}" //...
