#!/usr/bin/env bash
# A throwaway PostgreSQL primary with two streaming synchronous standbys on loopback, for
# verdict's reads on standbys (issue 22; store/POSTGRES.md "Reads on synchronous standbys"):
#
#   primary  synchronous_commit = remote_apply, synchronous_standby_names = 'ANY 2 (s1, s2)'
#   s1, s2   hot standbys (pg_basebackup -R), each named by cluster_name and by the
#            application_name of its primary_conninfo
#
# so a commit returns only once both standbys have applied it. Trusted without a password (only
# this machine can reach it), durability off (the data is disposable). `start` returns once
# pg_stat_replication shows both standbys streaming as quorum members, and prints three URLs,
# one a line: the primary's, s1's, s2's (database "verdict").
#
#   scripts/pg-standby-cluster.sh start /tmp/verdict-standbys   # prints the three URLs
#   scripts/pg-standby-cluster.sh stop /tmp/verdict-standbys    # stops all three, removes DIR
#
# Under root (CI) the servers run as the `postgres` user (scripts/pg-lib.sh).
set -euo pipefail

usage() {
  echo "usage: $0 start DIR | stop DIR | urls DIR" >&2
  exit 2
}

[[ $# -eq 2 ]] || usage
command=$1
dir=$2

source "$(dirname "${BASH_SOURCE[0]}")/pg-lib.sh"  # pg_bin, as_owner, free_port

urls() {
  for node in primary s1 s2; do
    echo "postgresql://postgres@127.0.0.1:$(cat "$dir/$node.port")/verdict"
  done
}

psql_primary() {
  as_owner "$pg_bin/psql" -q -X -v ON_ERROR_STOP=1 -h "$dir/primary.socket" -p "$(cat "$dir/primary.port")" \
    -U postgres -d postgres "$@"
}

start_node() {
  local node=$1
  as_owner "$pg_bin/pg_ctl" -D "$dir/$node" -l "$dir/$node.log" -w -t 60 start >/dev/null ||
    { cat "$dir/$node.log" >&2; exit 1; }
}

case "$command" in
  start)
    if [[ -e "$dir/primary/PG_VERSION" ]]; then
      echo "$0: $dir holds a cluster already (stop it first)" >&2
      exit 1
    fi
    mkdir -p "$dir"
    chmod 755 "$dir"
    if [[ $(id -u) -eq 0 ]]; then chown postgres: "$dir"; fi
    for node in primary s1 s2; do
      free_port | as_owner tee "$dir/$node.port" >/dev/null
      as_owner mkdir -m 700 "$dir/$node.socket"  # beside its data: pg_basebackup copies none
    done

    as_owner "$pg_bin/initdb" -D "$dir/primary" -U postgres --auth=trust --encoding=UTF8 \
      --no-sync >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    # Settings every node shares (the standbys copy this file) ...
    { echo "listen_addresses = '127.0.0.1'"
      echo "max_connections = 300"
      echo "fsync = off"
      echo "full_page_writes = off"
      echo "port = $(cat "$dir/primary.port")"
      echo "unix_socket_directories = '$dir/primary.socket'"; } |
      as_owner tee -a "$dir/primary/postgresql.conf" >/dev/null
    start_node primary
    psql_primary -c "CREATE DATABASE verdict"

    # ... and each standby's own, after what pg_basebackup -R wrote.
    for node in s1 s2; do
      as_owner "$pg_bin/pg_basebackup" -h "$dir/primary.socket" -p "$(cat "$dir/primary.port")" \
        -U postgres -D "$dir/$node" -X stream -R --checkpoint=fast --no-sync
      { echo "port = $(cat "$dir/$node.port")"
        echo "unix_socket_directories = '$dir/$node.socket'"
        echo "cluster_name = '$node'"
        echo "primary_conninfo = 'host=127.0.0.1 port=$(cat "$dir/primary.port") user=postgres application_name=$node'"; } |
        as_owner tee -a "$dir/$node/postgresql.auto.conf" >/dev/null
      start_node "$node"
    done

    # Only now: with the standbys required before they exist, CREATE DATABASE would wait forever.
    psql_primary -c "ALTER SYSTEM SET synchronous_commit = 'remote_apply'" \
      -c "ALTER SYSTEM SET synchronous_standby_names = 'ANY 2 (s1, s2)'" -c "SELECT pg_reload_conf()" \
      >/dev/null
    # Returns once both standbys stream as quorum members (an event, polled; 60 s at most).
    for _ in $(seq 600); do
      ready=$(psql_primary -tA -c "SELECT count(*) FROM pg_stat_replication
                                   WHERE state = 'streaming' AND sync_state = 'quorum'
                                   AND application_name IN ('s1', 's2')")
      [[ "$ready" == 2 ]] && break
      sleep 0.1
    done
    if [[ "$ready" != 2 ]]; then
      echo "$0: the standbys did not stream as synchronous quorum members within 60 s" >&2
      psql_primary -c "SELECT application_name, state, sync_state FROM pg_stat_replication" >&2
      exit 1
    fi
    urls
    ;;
  stop)
    for node in s1 s2 primary; do
      if [[ -e "$dir/$node/PG_VERSION" ]]; then
        as_owner "$pg_bin/pg_ctl" -D "$dir/$node" -m immediate -w stop >/dev/null 2>&1 || true
      fi
    done
    rm -rf "$dir"
    ;;
  urls)
    urls
    ;;
  *)
    usage
    ;;
esac
