#!/bin/bash
# make proxy-test (part of make deploy-test): passbox server behind nginx and behind HAProxy, each terminating
# TLS with dist/proxy/'s configuration (its ports and paths replaced) and a certificate of a CA made here for
# the test. For each proxy:
#   - GET /v1/health over HTTPS through the proxy, trusting the test CA, answers ok;
#   - the server counts sign-ups by the address the trusted proxy forwards (--trusted-proxy 127.0.0.1/32 and
#     one sign-up an hour per address): a second sign-up from the same forwarded address is refused with 429,
#     one from another forwarded address is taken; without the proxy trusted, both count as the proxy's one;
#   - `passbox signup` to the proxy refuses its certificate, which no CA of the system vouches for, with a
#     clear error, and exits non-zero.
#   usage: scripts/proxy-test.sh [PASSBOX]
set -euo pipefail
cd "$(dirname "$0")/.."
passbox=$(readlink -f "${1:-.build/release/passbox}")
[ -x "$passbox" ] || { echo "proxy-test: $passbox is not built" >&2; exit 1; }
for tool in nginx haproxy openssl curl; do command -v "$tool" > /dev/null || [ -x "/usr/sbin/$tool" ] || { echo "proxy-test: $tool is missing (make deploy-test installs it)" >&2; exit 1; }; done
export PATH="$PATH:/usr/sbin"
work=$(mktemp -d /tmp/passbox-proxy-test.XXXXXX)
pids=""
# The servers' process ids are kept in a file: start_server runs inside $( ), whose variables end with it (they
# went unstopped, three servers left running after every run, until this kept them).
cleanup() {
  for p in $pids $(cat "$work/server-pids" 2>/dev/null); do kill "$p" 2>/dev/null || true; done
  for p in $(cat "$work/server-pids" 2>/dev/null); do for _ in $(seq 1 200); do kill -0 "$p" 2>/dev/null || break; sleep 0.05; done; done
  wait 2>/dev/null || true; rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "proxy-test: FAIL: $*" >&2; for f in "$work"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -5 "$f"; } >&2; done; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
started=$(date +%s)

# A CA and a certificate it signs for 127.0.0.1 and passbox.test.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=Passbox test CA" -keyout "$work/ca.key" -out "$work/ca.pem" 2> /dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=passbox.test" -keyout "$work/privkey.pem" -out "$work/server.csr" 2> /dev/null
printf 'subjectAltName=DNS:passbox.test,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > "$work/ext"
openssl x509 -req -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -days 2 -extfile "$work/ext" -out "$work/fullchain.pem" 2> /dev/null
cat "$work/fullchain.pem" "$work/privkey.pem" > "$work/passbox.pem"

# One server (its limits tight: one sign-up an hour from one address) that trusts the proxies on 127.0.0.1.
start_server() {  # NAME EXTRA-ARGS…
  # (Its origin is the proxy's address, so its ready line does not say where it listens: the port is chosen here.)
  local name=$1 listen; shift
  listen=$(free_port)
  "$passbox" --data "$work/$name" server --listen "127.0.0.1:$listen" --signup open --signups-per-address-hour 1 "$@" > "$work/$name.log" 2>&1 &
  echo "$!" >> "$work/server-pids"
  for _ in $(seq 1 1200); do grep -q "passbox-server ready" "$work/$name.log" && break; sleep 0.05; done
  grep -q "passbox-server ready" "$work/$name.log" || fail "the server $name did not start"
  echo "$listen"
}
signup() {  # ORIGIN FORWARDED-FOR N → the HTTP status
  local salt; salt=$(head -c 16 /dev/urandom | base64)
  curl -s -o /dev/null -w '%{http_code}' --cacert "$work/ca.pem" --max-time 10 -H "Content-Type: application/json" -H "X-Forwarded-For: $2" \
    --data-binary "{\"accountID\":\"PRX00$3\",\"email\":\"proxy$3-$RANDOM@example.org\",\"salt\":\"$salt\",\"kdf\":{\"memoryKiB\":65536,\"passes\":3,\"lanes\":1},\"signInPublicKey\":\"$(head -c 32 /dev/zero | base64)\",\"keyset\":\"AQ==\"}" \
    "$1/v1/signup"
}

for proxy in nginx haproxy; do
  port=$(free_port)
  upstream=$(start_server "server-$proxy" --trusted-proxy 127.0.0.1/32 --origin "https://127.0.0.1:$port")
  mkdir -p "$work/$proxy"
  if [ "$proxy" = nginx ]; then
    sed -e "s|listen 443 ssl;|listen 127.0.0.1:$port ssl;|" -e "s|/etc/ssl/passbox/|$work/|g" -e "s|127.0.0.1:8787|127.0.0.1:$upstream|" \
      dist/proxy/nginx-passbox.conf > "$work/nginx/site.conf"
    cat > "$work/nginx/nginx.conf" <<CONF
user root;
worker_processes 1;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx.log;
events {}
http {
    access_log off;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    include $work/nginx/site.conf;
}
CONF
    nginx -t -c "$work/nginx/nginx.conf" > "$work/nginx-t.log" 2>&1 || fail "nginx -t: $(cat "$work/nginx-t.log")"
    nginx -c "$work/nginx/nginx.conf" &
  else
    sed -e "s|bind :443 ssl|bind 127.0.0.1:$port ssl|" -e "s|/etc/ssl/passbox/|$work/|g" -e "s|127.0.0.1:8787|127.0.0.1:$upstream|" \
      dist/proxy/haproxy-passbox.cfg > "$work/haproxy/haproxy.cfg"
    haproxy -c -f "$work/haproxy/haproxy.cfg" > "$work/haproxy-c.log" 2>&1 || fail "haproxy -c: $(cat "$work/haproxy-c.log")"
    haproxy -db -f "$work/haproxy/haproxy.cfg" > "$work/haproxy.log" 2>&1 &
  fi
  pids="$pids $!"
  origin="https://127.0.0.1:$port"
  for _ in $(seq 1 400); do curl -s --cacert "$work/ca.pem" --max-time 2 -o /dev/null "$origin/v1/health" && break; sleep 0.05; done
  health=$(curl -sS --cacert "$work/ca.pem" --max-time 10 "$origin/v1/health") || fail "$proxy: GET /v1/health over TLS"
  echo "$health" | grep -q '"status":"ok"' || fail "$proxy: /v1/health said $health"
  # The forwarded address counts: a second sign-up from 203.0.113.5 is over its limit, one from 198.51.100.7 is not.
  first=$(signup "$origin" 203.0.113.5 1); second=$(signup "$origin" 203.0.113.5 2); other=$(signup "$origin" 198.51.100.7 3)
  [ "$first $second $other" = "201 429 201" ] || fail "$proxy: sign-ups by forwarded address answered $first $second $other (expected 201 429 201)"
  # The passbox client does not trust the test CA: it refuses the proxy's certificate, and says why.
  out=$(printf 'tulip ocean marble violin anchor\ntulip ocean marble violin anchor\n' \
    | "$passbox" --data "$work/client-$proxy" signup --server "$origin" --email proxy9@example.org 2>&1) && fail "$proxy: passbox signup trusted a certificate of an unknown CA"
  echo "$out" | grep -qiE "certificate|SSL|TLS" || fail "$proxy: passbox signup's refusal does not say why: $out"
  [ ! -e "$work/client-$proxy/account.json" ] || fail "$proxy: a refused sign-up left an account record"
  [ "$proxy" = nginx ] && echo "  passbox signup said: $(echo "$out" | grep -iE "certificate|SSL|TLS" | head -1)"
  echo "  $proxy: TLS to the server through the proxy, the forwarded address counted (201 429 201), the unknown CA refused by passbox signup"
done

# Not trusted, the proxy is every client: after one sign-up through it, another forwarded address is refused too.
port=$(free_port)
upstream=$(start_server server-untrusted --origin "https://127.0.0.1:$port")
sed -e "s|bind :443 ssl|bind 127.0.0.1:$port ssl|" -e "s|/etc/ssl/passbox/|$work/|g" -e "s|127.0.0.1:8787|127.0.0.1:$upstream|" \
  dist/proxy/haproxy-passbox.cfg > "$work/haproxy/untrusted.cfg"
haproxy -db -f "$work/haproxy/untrusted.cfg" > "$work/haproxy-untrusted.log" 2>&1 &
pids="$pids $!"
origin="https://127.0.0.1:$port"
for _ in $(seq 1 400); do curl -s --cacert "$work/ca.pem" --max-time 2 -o /dev/null "$origin/v1/health" && break; sleep 0.05; done
first=$(signup "$origin" 203.0.113.5 1); other=$(signup "$origin" 198.51.100.7 3)
[ "$first $other" = "201 429" ] || fail "an untrusted proxy's forwarded addresses answered $first $other (expected 201 429: all one address)"
echo "  without --trusted-proxy, the proxy's forwarded addresses are not believed (201 429)"
echo "proxy-test: passed in $(( $(date +%s) - started )) s"
