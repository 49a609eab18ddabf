#!/usr/bin/env bash
# py_webauthn for the extension's passkey flow (Tests/Web/ext_passkeys.py): PyPI's webauthn 2.5.2 and what it
# needs (cbor2, cryptography, pyOpenSSL, asn1crypto), as wheels, into DIR (default .build/web-tools/py), once.
# Debian 12's python3-cryptography is too old for it; nothing is installed into the system.
set -euo pipefail
out="${1:-.build/web-tools/py}"
[ -f "$out/webauthn/__init__.py" ] && exit 0
rm -rf "$out.partial"
/usr/bin/python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-warn-script-location --only-binary=:all: --target "$out.partial" webauthn==2.5.2 \
  || { echo "could not install webauthn 2.5.2 from PyPI (pip install --target)"; exit 1; }
rm -rf "$out"
mv "$out.partial" "$out"
echo "py_webauthn in $out"
