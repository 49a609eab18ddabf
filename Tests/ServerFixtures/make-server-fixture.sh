#!/bin/bash
# Makes server-schema-14.sqlite once (the file is checked in): the database of a `passbox server` of schema 14
# (issue 36's upgrade test), as `passbox server backup` writes it, holding one account signed up through the
# API (email fixture@example.org, account id FXT001, the salt below). ServerUpgradeTests starts a newer server on
# a copy and finds the account there.
#   usage: make-server-fixture.sh PASSBOX OUT.sqlite
set -euo pipefail
passbox=$1 out=$2
dir=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$dir"' EXIT
"$passbox" --data "$dir/data" server --listen 127.0.0.1:0 > "$dir/out" 2>&1 &
server=$!
until grep -q "passbox-server ready" "$dir/out"; do sleep 0.05; done
origin=$(grep -oE 'http://127\.0\.0\.1:[0-9]+' "$dir/out" | head -1)
salt="cGFzc2JveC1maXh0dXJlIQ=="  # base64 of the 16 bytes "passbox-fixture!"
curl -sf -o /dev/null -H "Content-Type: application/json" --data-binary \
  "{\"accountID\":\"FXT001\",\"email\":\"fixture@example.org\",\"salt\":\"$salt\",\"kdf\":{\"memoryKiB\":65536,\"passes\":3,\"lanes\":1},\"signInPublicKey\":\"$(head -c 32 /dev/zero | base64)\",\"keyset\":\"AQ==\"}" \
  "$origin/v1/signup"
"$passbox" --data "$dir/data" server backup --to "$out"
