#!/bin/sh
# Lays out the extension for one browser: assemble.sh DEST_DIR chromium|firefox
# Copies every file of extension/ but tools/, README.md and the manifests (dot files neither), then writes the browser's manifest as
# DEST_DIR/manifest.json (Chromium: manifest.json; Firefox: manifest.firefox.json). DEST_DIR is made anew.
set -eu

usage() {
    echo "usage: $0 DEST_DIR chromium|firefox" >&2
    exit 2
}

[ "$#" -eq 2 ] || usage
dest=$1
browser=$2
case "$browser" in
    chromium) manifest=manifest.json ;;
    firefox) manifest=manifest.firefox.json ;;
    *) usage ;;
esac

source_dir=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$source_dir/$manifest" ] || { echo "$0: no $manifest in $source_dir" >&2; exit 1; }

# Never clear the source itself (or a folder that holds it).
case "$source_dir/" in
    "$(mkdir -p "$dest" && cd "$dest" && pwd)/"*) echo "$0: $dest holds the extension's source" >&2; exit 1 ;;
esac

rm -rf "$dest"
mkdir -p "$dest"
for entry in "$source_dir"/*; do
    [ -e "$entry" ] || continue
    name=$(basename "$entry")
    case "$name" in
        tools | manifest.json | manifest.firefox.json | README.md) continue ;;
    esac
    cp -R "$entry" "$dest/$name"
done
cp "$source_dir/$manifest" "$dest/manifest.json"
echo "$dest: Passbox for $browser"
