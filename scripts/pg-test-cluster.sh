#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on loopback for verdict's tests and benchmarks: initialised in a
# fresh directory, listening on 127.0.0.1 and a Unix socket in that directory, trusted without a
# password (only this machine can reach it), with durability turned off (the data is disposable).
#
#   url=$(scripts/pg-test-cluster.sh start /tmp/verdict-pg 55432)   # prints the database URL
#   scripts/pg-test-cluster.sh stop /tmp/verdict-pg                 # stops it, removes the dir
#
# PostgreSQL refuses to run as root, so under root (CI) the server runs as the `postgres` user
# that Debian's package creates.
set -euo pipefail

usage() {
  echo "usage: $0 start DIR [PORT] | stop DIR | url DIR" >&2
  exit 2
}

[[ $# -ge 2 ]] || usage
command=$1
dir=$2
port=${3:-55432}

pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [[ -z "$pg_bin" ]]; then
  echo "$0: no PostgreSQL server under /usr/lib/postgresql (apt-get install postgresql)" >&2
  exit 1
fi

as_owner() {
  if [[ $(id -u) -eq 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

url_of() {
  echo "postgresql://postgres@127.0.0.1:$(cat "$1/port")/verdict"
}

case "$command" in
  start)
    if [[ -e "$dir/PG_VERSION" ]] && as_owner "$pg_bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
      url_of "$dir"
      exit 0
    fi
    mkdir -p "$dir"
    if [[ $(id -u) -eq 0 ]]; then chown postgres: "$dir"; fi
    chmod 700 "$dir"
    as_owner "$pg_bin/initdb" -D "$dir" -U postgres --auth=trust --encoding=UTF8 --no-sync \
      >"$dir.initdb.log" 2>&1 || { cat "$dir.initdb.log" >&2; exit 1; }
    rm -f "$dir.initdb.log"
    echo "$port" | as_owner tee "$dir/port" >/dev/null
    as_owner "$pg_bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 start \
      -o "-k $dir -c listen_addresses=127.0.0.1 -p $port -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
      >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    as_owner "$pg_bin/psql" -q -h "$dir" -p "$port" -U postgres -d postgres \
      -c "CREATE DATABASE verdict" >/dev/null
    url_of "$dir"
    ;;
  stop)
    if [[ -e "$dir/PG_VERSION" ]]; then
      as_owner "$pg_bin/pg_ctl" -D "$dir" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
  url)
    url_of "$dir"
    ;;
  *)
    usage
    ;;
esac
