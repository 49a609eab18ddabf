#!/usr/bin/env bash
# Makes the KeePass fixtures once, with the real tools (Debian's keepassxc and python3-pykeepass); the files are
# checked in and the tests read them byte for byte, so this runs only when a fixture is added.
#   keepassxc-3.1.kdbx   keepassxc-cli import of keepassxc-source.xml: KDBX 3.1, AES-KDF, AES-256, Salsa20
#   keepassxc-4.kdbx     the same with one entry's CustomData, which makes KeePassXC write KDBX 4 (AES-KDF)
#   pykeepass-chacha20.kdbx  pykeepass: KDBX 4, Argon2id 16 MiB x 2 x 2, ChaCha20 outer cipher
#   pykeepass-keyfile.kdbx   pykeepass: KDBX 4, Argon2d, AES-256, password and key file pykeepass.key
#   pykeepass-cheap.kdbx     pykeepass: Argon2id 1 MiB x 1 (the mutation test's sample)
#   pykeepass-passkey.kdbx   pykeepass: one login with a passkey in KeePassXC's attributes (KPEX_PASSKEY_*)
set -euo pipefail
cd "$(dirname "$0")"
pw=fixture-password
rm -f keepassxc-3.1.kdbx keepassxc-4.kdbx pykeepass-*.kdbx pykeepass.key
printf '%s\n%s\n' "$pw" "$pw" | keepassxc-cli import -q -p -t 100 keepassxc-source.xml keepassxc-3.1.kdbx
python3 - <<'PY'
s = open("keepassxc-source.xml").read()
s = s.replace("\t\t\t\t<Binary><Key>readme.txt</Key>", "\t\t\t\t<CustomData><Item><Key>KPXC_BROWSER_HIDE</Key><Value>true</Value></Item></CustomData>\n\t\t\t\t<Binary><Key>readme.txt</Key>", 1)
open("/tmp/passbox-keepassxc-4.xml", "w").write(s)
PY
printf '%s\n%s\n' "$pw" "$pw" | keepassxc-cli import -q -p -t 100 /tmp/passbox-keepassxc-4.xml keepassxc-4.kdbx
rm -f /tmp/passbox-keepassxc-4.xml
head -c 64 /dev/urandom > pykeepass.key
/usr/bin/python3 make-pykeepass.py pykeepass-chacha20.kdbx "$pw" --chacha20-argon2id
/usr/bin/python3 make-pykeepass.py pykeepass-keyfile.kdbx "$pw" --keyfile pykeepass.key
/usr/bin/python3 make-pykeepass.py pykeepass-cheap.kdbx "$pw" --chacha20-argon2id --cheap
/usr/bin/python3 make-pykeepass.py pykeepass-history-attachments.kdbx "$pw" --cheap --history-attachments
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out passkey.pem
/usr/bin/python3 make-pykeepass.py pykeepass-passkey.kdbx "$pw" --cheap --passkey passkey.pem
rm -f passkey.pem
/usr/bin/python3 make-bitwarden-passkey.py bitwarden-passkey.json
ls -l *.kdbx
