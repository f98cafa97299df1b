# What verdict's PostgreSQL scripts share (sourced by scripts/pg-test-cluster.sh,
# scripts/pg-standby-cluster.sh and scripts/test.d/postgres.sh): where Debian's server binaries
# are, how to run them as the cluster's owner, and a free port.

# The newest server's bin directory under /usr/lib/postgresql (Debian's layout).
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [[ -z "$pg_bin" ]]; then
  echo "$0: no PostgreSQL server under /usr/lib/postgresql (apt-get install postgresql)" >&2
  exit 1
fi

# PostgreSQL refuses to run as root, so under root (CI) the servers run as the `postgres` user
# that Debian's package creates.
as_owner() {
  if [[ $(id -u) -eq 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# A port nothing listens on, as the kernel hands out (a random one could be another server's:
# other builds and PostgreSQL servers may run on the same machine).
free_port() {
  python3 -c '
import socket
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    print(s.getsockname()[1])'
}
