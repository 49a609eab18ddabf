#!/usr/bin/env bash
# The attachment benchmark (issue 16): a file of random bytes (100 MiB by default) attached to an item and
# read back by `passbox bench attach` (MiB/s each way, peak memory beside the file's size), then the same file
# attached to a KeePass entry and read back with keepassxc-cli (attachment-import, attachment-export), timed
# and its peak memory (GNU time's maximum resident size) beside it. Needs keepassxc and the time package.
#   scripts/bench-attach.sh PASSBOX_BINARY [MIB]
set -euo pipefail
bin=${1:?usage: scripts/bench-attach.sh PASSBOX_BINARY [MIB]}
mib=${2:-100}
"$bin" bench attach --size-mib "$mib" --runs 3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pw="benchmark file password"
head -c "$((mib * 1048576))" /dev/urandom > "$dir/file.bin"
printf '%s\n%s\n' "$pw" "$pw" | keepassxc-cli db-create -p "$dir/bench.kdbx" >/dev/null 2>&1
printf '%s\n' "$pw" | keepassxc-cli add "$dir/bench.kdbx" Scan >/dev/null 2>&1
# The key derivation alone (keepassxc-cli derives it for every command), to take from the times below.
start=$(date +%s.%N); printf '%s\n' "$pw" | keepassxc-cli db-info "$dir/bench.kdbx" >/dev/null 2>&1; end=$(date +%s.%N)
open=$(echo "$end - $start" | bc)
run() { # label, then the command; prints seconds and peak KiB
    local label=$1; shift
    local start end
    start=$(date +%s.%N)
    printf '%s\n' "$pw" | /usr/bin/time -f "%M" -o "$dir/rss" "$@" >/dev/null 2>&1
    end=$(date +%s.%N)
    local seconds rate
    seconds=$(echo "$end - $start - $open" | bc)
    rate=$(echo "scale=0; $mib / $seconds" | bc)
    printf 'keepassxc-cli %s: %.2f s besides its key derivation (%.2f s), %s MiB/s, peak memory %s MiB\n' "$label" "$seconds" "$open" "$rate" "$(( $(cat "$dir/rss") / 1024 ))"
}
run "attachment-import (${mib} MiB)" keepassxc-cli attachment-import "$dir/bench.kdbx" Scan file.bin "$dir/file.bin"
run "attachment-export (${mib} MiB)" keepassxc-cli attachment-export "$dir/bench.kdbx" Scan file.bin "$dir/out.bin"
cmp -s "$dir/file.bin" "$dir/out.bin" && echo "keepassxc-cli read back the same bytes"
