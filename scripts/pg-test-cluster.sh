#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on loopback for verdict's tests and benchmarks: initialised in a
# fresh directory, listening on 127.0.0.1 and a Unix socket in that directory, trusted without a
# password (only this machine can reach it), with durability turned off (the data is disposable).
# It also serves TLS (a self-signed certificate) and has one role, verdict_scram, that must log in
# over TLS with a SCRAM password: store/postgres_store_test.cc checks that libpq's OpenSSL works
# beside verdict's BoringSSL (store/postgres/postgres_test_support.h names the role and its password).
#
#   url=$(scripts/pg-test-cluster.sh start /tmp/verdict-pg 55432)   # prints the database URL
#   scripts/pg-test-cluster.sh stop /tmp/verdict-pg                 # stops it, removes the dir
#
# Under root (CI) the server runs as the `postgres` user (scripts/pg-lib.sh).
set -euo pipefail

usage() {
  echo "usage: $0 start DIR [PORT] | stop DIR | url DIR" >&2
  exit 2
}

[[ $# -ge 2 ]] || usage
command=$1
dir=$2
port=${3:-55432}

source "$(dirname "${BASH_SOURCE[0]}")/pg-lib.sh"  # pg_bin, as_owner, free_port

url_of() {
  echo "postgresql://postgres@127.0.0.1:$(cat "$1/port")/verdict"
}

# Starts the initialised cluster in $dir on the port it was created with.
start_server() {
  local port
  port=$(cat "$dir/port")
  as_owner "$pg_bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 start \
    -o "-k $dir -c listen_addresses=127.0.0.1 -p $port -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c ssl=on -c ssl_cert_file=$dir/server.crt -c ssl_key_file=$dir/server.key" \
    >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
}

case "$command" in
  start)
    if [[ -e "$dir/PG_VERSION" ]]; then
      # Created before: running, or stopped some other way (pg_ctl stop, a reboot).
      if ! as_owner "$pg_bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then start_server; fi
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
    as_owner openssl req -x509 -newkey rsa:2048 -nodes -days 7 -subj /CN=127.0.0.1 \
      -keyout "$dir/server.key" -out "$dir/server.crt" >/dev/null 2>&1
    chmod 600 "$dir/server.key"
    # Checked before initdb's "trust" lines: the first line that matches decides.
    { echo "hostssl all verdict_scram 127.0.0.1/32 scram-sha-256"
      echo "host all verdict_scram 127.0.0.1/32 reject"
      cat "$dir/pg_hba.conf"; } | as_owner tee "$dir/pg_hba.conf.new" >/dev/null
    as_owner mv "$dir/pg_hba.conf.new" "$dir/pg_hba.conf"
    start_server
    as_owner "$pg_bin/psql" -q -h "$dir" -p "$port" -U postgres -d postgres \
      -c "CREATE DATABASE verdict" \
      -c "CREATE ROLE verdict_scram LOGIN PASSWORD 'verdict-scram-test'" >/dev/null
    url_of "$dir"
    ;;
  stop)
    if [[ -e "$dir/PG_VERSION" ]]; then
      as_owner "$pg_bin/pg_ctl" -D "$dir" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir" "$dir.initdb.log"
    ;;
  url)
    url_of "$dir"
    ;;
  *)
    usage
    ;;
esac
