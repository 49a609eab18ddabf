#!/usr/bin/env bash
# make bench: passbox bench server and passbox bench sync on SQLite and on a throwaway PostgreSQL cluster (initdb in a temporary
# directory, loopback, a port of its own, run as the postgres user when started as root; removed at the end).
#   scripts/bench-server.sh BIN [SECONDS]
set -euo pipefail
bin="${1:?usage: scripts/bench-server.sh BIN [SECONDS]}"
seconds="${2:-5}"
pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
if [ -z "$pg_bin" ] || [ ! -x "$pg_bin/initdb" ]; then
  echo "PostgreSQL is not installed (apt-get install postgresql): measuring SQLite only"
  "$bin" bench server --seconds "$seconds"
  exec "$bin" bench sync
fi
dir="$(mktemp -d /tmp/passbox-bench-pg.XXXXXX)"
as=()
if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; as=(runuser -u postgres --); fi
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
cleanup() {
  "${as[@]}" "$pg_bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
"${as[@]}" "$pg_bin/initdb" -D "$dir/data" -U passbox -A trust -E UTF8 --locale=C --no-instructions >/dev/null
cat >>"$dir/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 300
CONF
"${as[@]}" "$pg_bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w start >/dev/null
"$bin" bench server --seconds "$seconds" --database "postgresql://passbox@127.0.0.1:$port/postgres"
"$bin" bench sync --database "postgresql://passbox@127.0.0.1:$port/postgres"
# One, two and three server processes on that database behind HAProxy (issue 36).
if command -v haproxy > /dev/null || [ -x /usr/sbin/haproxy ]; then
  "$bin" bench server --servers 1,2,3 --seconds "$seconds" --database "postgresql://passbox@127.0.0.1:$port/postgres"
else
  echo "HAProxy is not installed (apt-get install haproxy): several server processes are not measured"
fi
