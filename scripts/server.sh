#!/usr/bin/env bash
# make run / make stop: the account server (passbox server, SQLite) in the background on loopback.
#   scripts/server.sh start BIN    starts it unless it runs already; its log and pid file are in its data directory
#   scripts/server.sh stop         stops it (SIGTERM, then waits)
# PASSBOX_DATA_DIR and XDG_DATA_HOME choose the data directory as passbox does; PASSBOX_SERVER_LISTEN the
# address (default 127.0.0.1:8787).
set -euo pipefail
data="${PASSBOX_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/passbox}"
server_data="$data/server"
pid_file="$server_data/server.pid"
log="$server_data/server.log"
listen="${PASSBOX_SERVER_LISTEN:-127.0.0.1:8787}"

running() { [ -f "$pid_file" ] && kill -0 "$(cat "$pid_file")" 2>/dev/null; }

case "${1:-}" in
start)
  bin="${2:?usage: scripts/server.sh start BIN}"
  if running; then
    echo "Passbox server: already running (pid $(cat "$pid_file")); make stop stops it"
  else
    mkdir -p "$server_data" && chmod 700 "$data" "$server_data"
    : >"$log" && chmod 600 "$log"
    rm -f "$pid_file"
    # The server writes its own pid file and says "passbox-server ready origin=URL pid=N" in every language.
    setsid "$bin" --data "$data" server --listen "$listen" --server-data "$server_data" --pid-file "$pid_file" </dev/null >>"$log" 2>&1 &
    started=$!
    for _ in $(seq 1 100); do
      grep -q "^passbox-server ready " "$log" && break
      kill -0 "$started" 2>/dev/null || break
      sleep 0.1
    done
    if ! grep -q "^passbox-server ready " "$log"; then
      echo "Passbox server did not start:" >&2
      sed 's/^/  /' "$log" >&2
      # Never leave a server running that this script cannot stop.
      kill -TERM "$started" 2>/dev/null || true
      rm -f "$pid_file"
      exit 1
    fi
  fi
  origin="$(sed -n 's/^passbox-server ready origin=\([^ ]*\).*/\1/p' "$log" | tail -1)"
  echo "Passbox server: $origin (accounts in $server_data/server.sqlite; log $log; pid $(cat "$pid_file"))"
  echo "  Make an account:  $bin signup --server $origin --email you@example.org"
  echo "  Stop the server:  make stop"
  ;;
stop)
  if running; then
    pid="$(cat "$pid_file")"
    kill -TERM "$pid"
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$pid_file"
    echo "Passbox server stopped"
  else
    rm -f "$pid_file"
    echo "Passbox server: not running"
  fi
  ;;
*)
  echo "usage: scripts/server.sh start BIN | stop" >&2
  exit 2
  ;;
esac
