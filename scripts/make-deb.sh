#!/bin/bash
# make deb: passbox_VERSION_ARCH.deb from the release build (docs/ARCHITECTURE.md "The Debian package").
#   usage: scripts/make-deb.sh [BINARY] [OUT-DIRECTORY]
# The binary, its two resource folders under /usr/share/passbox, what the binary writes from its own tables
# (`passbox package-files`: manual pages, completions, the browser host and its manifests, the passbox-link:
# desktop entry), and dist/'s systemd units, PAM file, server configuration and copyright. Depends is worked
# out from the libraries the binary links and the ones it loads with dlopen, each mapped to its Debian package
# by dpkg -S. Built with dpkg-deb --root-owner-group; SOURCE_DATE_EPOCH (else the last commit's time) dates it.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.build/release/passbox}
OUT=${2:-.}
[ -x "$BIN" ] || { echo "make-deb: $BIN is not built (make build)" >&2; exit 1; }
BUILD_DIR=$(dirname "$BIN")
for folder in Passbox_PassboxService.resources Passbox_PassboxWeb.resources; do
  [ -d "$BUILD_DIR/$folder" ] || { echo "make-deb: $BUILD_DIR/$folder is missing" >&2; exit 1; }
done
VERSION=$("$BIN" --version | awk '{print $2}')
ARCH=$(dpkg --print-architecture)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
STAGE=.build/deb
ROOT=$STAGE/root
rm -rf "$STAGE"
mkdir -p "$ROOT/DEBIAN"

# The binary (its symbols stripped, as Debian ships binaries) and its resources.
install -D -m 0755 "$BIN" "$ROOT/usr/bin/passbox"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$ROOT/usr/bin/passbox"
mkdir -p "$ROOT/usr/share/passbox"
for folder in Passbox_PassboxService.resources Passbox_PassboxWeb.resources; do
  cp -r "$BUILD_DIR/$folder" "$ROOT/usr/share/passbox/"
done
find "$ROOT/usr/share/passbox" -type d -exec chmod 0755 {} + && find "$ROOT/usr/share/passbox" -type f -exec chmod 0644 {} +

# What the binary writes from its own tables; manual pages compressed as Debian keeps them.
"$ROOT/usr/bin/passbox" package-files "$ROOT" >/dev/null
find "$ROOT/usr/share/man" -type f -exec gzip -9n {} +

# dist/: systemd units, the PAM service, the server's configuration, the copyright, the changelog.
install -D -m 0644 dist/systemd/passbox-server.service "$ROOT/lib/systemd/system/passbox-server.service"
install -D -m 0644 dist/systemd/passbox-agent.service "$ROOT/usr/lib/systemd/user/passbox-agent.service"
install -D -m 0644 dist/pam.d/passbox "$ROOT/etc/pam.d/passbox"
install -D -m 0644 dist/debian/server.conf "$ROOT/etc/passbox/server.conf"
install -D -m 0644 dist/debian/copyright "$ROOT/usr/share/doc/passbox/copyright"
printf 'passbox (%s) unstable; urgency=medium\n\n  * Built from commit %s.\n\n -- Passbox <packages@passbox.invalid>  %s\n' \
  "$VERSION" "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" "$(date -u -R -d "@$SOURCE_DATE_EPOCH")" \
  | gzip -9n > "$ROOT/usr/share/doc/passbox/changelog.gz"

# Depends: the libraries the binary links (ldd) and those it loads with dlopen (their names in the C support
# files), each to the package that ships it.
sonames=$( { ldd "$BIN" | awk '/=>/ {print $3}'; grep -rhoE 'dlopen\("[^"]+"' Sources | sed 's/dlopen("//; s/"$//'; \
  ls /usr/lib/"$(gcc -dumpmachine)"/libicui18n.so.[0-9][0-9] 2>/dev/null || true; } | sort -u)
packages=""
for lib in $sonames; do
  path=$lib
  # (awk reads all of its input: an early exit would end ldconfig with SIGPIPE, which pipefail counts.)
  [ "${lib#/}" = "$lib" ] && path=$(ldconfig -p | awk -v n="$lib" '$1 == n && !found {print $NF; found = 1}')
  [ -n "$path" ] || { echo "make-deb: $lib is not installed here (make deps)" >&2; exit 1; }
  owner=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | awk -F: 'NR == 1 {print $1}') || true
  [ -n "$owner" ] || owner=$(dpkg -S "$path" 2>/dev/null | awk -F: 'NR == 1 {print $1}') || true
  [ -n "$owner" ] || { echo "make-deb: no package ships $path" >&2; exit 1; }
  packages="$packages $owner"
done
# Data the binary reads: the Public Suffix List, DejaVu for the printed pages; notify-send for notifications.
depends=$(echo $packages publicsuffix fonts-dejavu-core | tr ' ' '\n' | sort -u | paste -sd, | sed 's/,/, /g')

installed=$(du -sk --exclude=DEBIAN "$ROOT" | cut -f1)
# Passbox has no web site or mail domain yet: the maintainer's address is under .invalid (RFC 2606: a name that
# is none), and there is no Homepage field rather than an address that leads nowhere.
cat > "$ROOT/DEBIAN/control" <<CONTROL
Package: passbox
Version: $VERSION
Architecture: $ARCH
Maintainer: Passbox <packages@passbox.invalid>
Installed-Size: $installed
Depends: $depends
Recommends: libnotify-bin
Suggests: postgresql, chromium | firefox-esr
Section: utils
Priority: optional
Description: end-to-end encrypted password manager and its account server
 Passbox keeps logins, notes, cards, identities, one-time password codes,
 passkeys, keys and documents in a vault encrypted on the device: a local
 vault file, or an account on a Passbox server that syncs it between devices,
 families and teams. This package holds the passbox command, its agent and web
 UI, the browser extension's native messaging host, and the server, with a
 hardened systemd service (passbox-server) and a user service for the agent.
CONTROL
printf '%s\n' /etc/passbox/server.conf /etc/pam.d/passbox "/etc/chromium/native-messaging-hosts/dev.passbox.host.json" > "$ROOT/DEBIAN/conffiles"
cat > "$ROOT/DEBIAN/postinst" <<'SCRIPT'
#!/bin/sh
set -e
# The units are new or changed: systemd reads them again (the server is not started: configure it first).
if [ "$1" = configure ] && [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi
exit 0
SCRIPT
cat > "$ROOT/DEBIAN/prerm" <<'SCRIPT'
#!/bin/sh
set -e
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then systemctl stop passbox-server.service 2>/dev/null || true; fi
exit 0
SCRIPT
cat > "$ROOT/DEBIAN/postrm" <<'SCRIPT'
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi
# The server's accounts in /var/lib/passbox-server stay, as user data does; purge does not remove them either.
exit 0
SCRIPT
chmod 0755 "$ROOT/DEBIAN/postinst" "$ROOT/DEBIAN/prerm" "$ROOT/DEBIAN/postrm"
(cd "$ROOT" && find . -path ./DEBIAN -prune -o -type f -print | sed 's|^\./||' | LC_ALL=C sort | xargs md5sum > DEBIAN/md5sums)
chmod 0644 "$ROOT/DEBIAN/md5sums" "$ROOT/DEBIAN/control" "$ROOT/DEBIAN/conffiles"
find "$ROOT" -newermt "@$SOURCE_DATE_EPOCH" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
mkdir -p "$OUT"
deb="$OUT/passbox_${VERSION}_${ARCH}.deb"
dpkg-deb --root-owner-group -Zxz --build "$ROOT" "$deb" >/dev/null
echo "$deb ($(du -h "$deb" | cut -f1), Depends: $depends)"
