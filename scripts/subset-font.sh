#!/bin/sh
# Makes Sources/PassboxWeb/UI/fonts/PlusJakartaSans.woff2, the web UI's typeface (DS-9), from the packaged copy
# on PyPI (fontpkg-plus-jakarta-sans, OFL): the variable font's weight axis limited to the 400-700 the page uses
# and subset to Latin, Latin-1 and the punctuation the English and German tables use. Run it by hand when the
# font changes; the result is committed (17 KiB), so neither a build nor a test needs PyPI.
set -eu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip install --quiet --target "$work/py" fonttools brotli fontpkg-plus-jakarta-sans==2.71
font=$(find "$work/py" -name 'PlusJakartaSans\[wght\].ttf' | head -n 1)
PYTHONPATH="$work/py" python3 -m fontTools.varLib.instancer "$font" wght=400:700 -o "$work/limited.ttf"
PYTHONPATH="$work/py" python3 -m fontTools.subset "$work/limited.ttf" \
  --unicodes="U+0020-007E,U+00A0-00FF,U+0131,U+0152-0153,U+2010-2015,U+2018-201E,U+2022,U+2026,U+2030,U+2039-203A,U+20AC,U+2122,U+2190-2193,U+2212,U+00D7" \
  --layout-features="kern,liga,calt,tnum,case" --flavor=woff2 \
  --output-file="$(dirname "$0")/../Sources/PassboxWeb/UI/fonts/PlusJakartaSans.woff2"
