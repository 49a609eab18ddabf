#!/usr/bin/env bash
# axe-core for the web UI's accessibility checks (Tests/Web/ui_test.py): the axe.min.js that PyPI's
# axe-selenium-python 2.1.6 ships, its wheel checked against the SHA-256 pinned here. Nothing is installed;
# the file goes to DIR (default .build/web-tools) and is fetched once.
set -euo pipefail
out="${1:-.build/web-tools}"
[ -s "$out/axe.min.js" ] && exit 0
pinned=21d10014c0bc3c999c1bfab54b9ef6a5d67f200ffca3db3629e0b315b3f1f136
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for python in python3 /usr/bin/python3; do
  "$python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: axe-selenium-python==2.1.6 -d "$tmp" 2>/dev/null && break
done
wheel="$(ls "$tmp"/axe_selenium_python-2.1.6-*.whl 2>/dev/null || true)"
[ -n "$wheel" ] || { echo "could not download axe-selenium-python 2.1.6 from PyPI (pip download)"; exit 1; }
echo "$pinned  $wheel" | sha256sum -c --quiet - || { echo "axe-selenium-python's wheel does not have the pinned SHA-256"; exit 1; }
mkdir -p "$out"
/usr/bin/python3 -c 'import sys, zipfile; open(sys.argv[2], "wb").write(zipfile.ZipFile(sys.argv[1]).read("axe_selenium_python/node_modules/axe-core/axe.min.js"))' "$wheel" "$out/axe.min.js"
echo "axe-core in $out/axe.min.js"
