#!/usr/bin/env bash
# The import benchmark (issue 16): a 10,000-entry KDBX 4 file made by pykeepass (its own defaults: AES-256,
# Argon2d 64 MiB), `keepassxc-cli export` of it timed (its key derivation included: KeePassXC shows no split),
# then `passbox bench import` of the same file, the key derivation apart; then both at the cheapest key
# derivation beside `keepassxc-cli merge` of the same entries. Needs python3-pykeepass, keepassxc and bc.
#   scripts/bench-import.sh PASSBOX_BINARY [ENTRIES]
set -euo pipefail
bin=${1:?usage: scripts/bench-import.sh PASSBOX_BINARY [ENTRIES]}
entries=${2:-10000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pw="benchmark file password"
file="$dir/bench.kdbx"
/usr/bin/python3 - "$file" "$pw" "$entries" <<'PY'
import sys, time
from pykeepass import create_database
from pykeepass.entry import Entry
path, password, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
start = time.monotonic()
kp = create_database(path, password=password)
group = kp.add_group(kp.root_group, "Bulk")
for i in range(n):
    # Entry and append rather than add_entry, which searches every entry first (quadratic: minutes at 10,000).
    e = Entry(f"Site {i} account", f"user{i}@example.com", f"pw-{i:06d}-Xq9!", url=f"https://login.site{i}.example.com/",
              notes="Recovery questions are in the safe." if i % 4 == 0 else None, kp=kp)
    if i % 10 == 0:
        e.set_custom_property("PIN", f"{i % 10000:04d}")
    group.append(e)
kp.save()
print(f"pykeepass made {n} entries in {time.monotonic() - start:.1f} s", file=sys.stderr)
PY
echo "File: $(du -h "$file" | cut -f1) made by pykeepass"
# The key derivation alone, as keepassxc-cli does it for any command: db-info opens the file and prints little.
start=$(date +%s.%N); printf '%s\n' "$pw" | keepassxc-cli db-info "$file" >/dev/null 2>&1; end=$(date +%s.%N)
open_time=$(echo "$end - $start" | bc)
start=$(date +%s.%N); printf '%s\n' "$pw" | keepassxc-cli export -f xml "$file" > "$dir/export.xml" 2>/dev/null; end=$(date +%s.%N)
export_time=$(echo "$end - $start" | bc)
echo "keepassxc-cli db-info (open: key derivation and parse): ${open_time} s"
echo "keepassxc-cli export -f xml (open, then write every entry): ${export_time} s ($(grep -c '<Entry>' "$dir/export.xml") entries)"
printf '%s\n' "$pw" | "$bin" bench import --file "$file" --runs 3
# Beside keepassxc-cli merge (issue 30), both sides at the cheapest key derivation keepassxc-cli allows
# (100 ms): the export imported by keepassxc-cli into a new file (it writes KDBX 3.1 with AES-KDF), merged into
# an empty database of the same cost (the median of three, each into a fresh copy), and passbox's whole
# import of that file, its derivation included.
printf '%s\n%s\n' "$pw" "$pw" | keepassxc-cli import -q -p -t 100 "$dir/export.xml" "$dir/cheap.kdbx" >/dev/null 2>&1 \
  || { echo "keepassxc-cli import of the export failed" >&2; exit 1; }
printf '%s\n%s\n' "$pw" "$pw" | keepassxc-cli db-create -q -p -t 100 "$dir/empty.kdbx" >/dev/null 2>&1 \
  || { echo "keepassxc-cli db-create failed" >&2; exit 1; }
merges=()
for _ in 1 2 3; do
  cp "$dir/empty.kdbx" "$dir/target.kdbx"
  start=$(date +%s.%N)
  printf '%s\n' "$pw" | keepassxc-cli merge -q -s "$dir/target.kdbx" "$dir/cheap.kdbx" >/dev/null 2>&1 \
    || { echo "keepassxc-cli merge failed" >&2; exit 1; }
  end=$(date +%s.%N)
  merges+=("$(echo "$end - $start" | bc)")
done
merge=$(printf '%s\n' "${merges[@]}" | sort -n | sed -n 2p)
echo "keepassxc-cli merge into an empty database, both at 100 ms of key derivation: ${merge} s median (${merges[*]} s)"
printf '%s\n' "$pw" | "$bin" bench import --file "$dir/cheap.kdbx" --runs 3 --merge-seconds "$merge"
