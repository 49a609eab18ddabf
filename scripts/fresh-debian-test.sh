#!/usr/bin/env bash
# `make test` as a fresh Debian 12 machine runs it, timed with its installs (issue 34's budget: 12 minutes):
# a debootstrap of bookworm with what this machine's image has besides (the Swift toolchain's build
# dependencies, gcc, python3 with pip; the toolchain itself is bound read-only from SWIFT_ROOT, default
# /opt/swift; the machine's CA certificates and pip.conf, so that its network reaches PyPI as the machine does),
# the repository cloned at COMMIT into it, and `make test` run there as root. Prints the run's last line
# ("make test rc=0 in 676 s"); its whole output is in DIR/run/root/make-test.out. Root only; needs debootstrap.
# The base is made once and copied for each run.
#
# Usage: scripts/fresh-debian-test.sh [COMMIT]   (default HEAD; DIR: PASSBOX_FRESH_DIR, default /var/tmp/passbox-fresh)
# Exits with make test's status.
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "run as root (it makes a chroot)"; exit 2; }
command -v debootstrap >/dev/null || { echo "apt-get install debootstrap"; exit 2; }
# In a mount namespace of its own, where nothing propagates: the chroot's mounts (of /dev, /sys, the toolchain)
# are never the machine's, and they end with the script, however it ends.
if [ -z "${PASSBOX_FRESH_UNSHARED:-}" ]; then
  exec unshare --mount --propagation private env PASSBOX_FRESH_UNSHARED=1 "$0" "$@"
fi
repo="$(cd "$(dirname "$0")/.." && pwd)"
commit="$(git -c safe.directory='*' -C "$repo" rev-parse "${1:-HEAD}")"
dir="$(realpath -m -- "${PASSBOX_FRESH_DIR:-/var/tmp/passbox-fresh}")"
swift_root="$(realpath -m -- "${SWIFT_ROOT:-/opt/swift}")"
case "$dir" in *[[:space:]\\]* | / ) echo "PASSBOX_FRESH_DIR must be a directory without blanks or backslashes, not /"; exit 2 ;; esac
case "$swift_root" in / | *[[:space:]\\]*) echo "SWIFT_ROOT must be the toolchain's directory, not /"; exit 2 ;; esac
[ -x "$swift_root/usr/bin/swift" ] || { echo "no toolchain at $swift_root (SWIFT_ROOT)"; exit 2; }
base="$dir/base" run="$dir/run"

# Everything mounted at or under $1, deepest first; true once none is left. A tree is removed only then, and
# only on its own file system.
unmount_all() {
  local m
  for m in $(awk -v r="$1" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/mounts | sort -r); do umount -l "$m" 2>/dev/null || true; done
  ! awk -v r="$1" '$2 == r || index($2, r "/") == 1' /proc/mounts | grep -q .
}
remove_tree() {
  unmount_all "$1" || { echo "still mounted under $1: not removing it"; exit 1; }
  rm -rf --one-file-system "$1"
}

if [ ! -e "$base/.ready" ]; then
  remove_tree "$base"
  mkdir -p "$dir"
  debootstrap --variant=minbase bookworm "$base" http://deb.debian.org/debian > "$dir/debootstrap.log" 2>&1
  cp /etc/resolv.conf "$base/etc/resolv.conf"
  # The machine's own apt sources when it is bookworm too (its mirror); otherwise debootstrap's.
  if grep -q '^VERSION_CODENAME=bookworm' /etc/os-release && ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1; then
    cp /etc/apt/sources.list.d/*.sources "$base/etc/apt/sources.list.d/" && rm -f "$base/etc/apt/sources.list"
  fi
  mkdir -p "$base/usr/local/share/ca-certificates"
  cp -a /usr/local/share/ca-certificates/. "$base/usr/local/share/ca-certificates/" 2>/dev/null || true
  [ -f /etc/pip.conf ] && cp /etc/pip.conf "$base/etc/pip.conf"
  mount -t proc proc "$base/proc"
  chroot "$base" /bin/bash -c 'export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq binutils git gnupg2 libc6-dev \
    libcurl4-openssl-dev libedit2 libgcc-12-dev libpython3-dev libsqlite3-0 libstdc++-12-dev libxml2-dev libncurses-dev libz3-dev pkg-config tzdata \
    unzip zlib1g-dev gcc g++ make python3 python3-pip ca-certificates curl procps sudo > /dev/null && update-ca-certificates > /dev/null && apt-get clean'
  umount "$base/proc"
  touch "$base/.ready"
fi

remove_tree "$run"
cp -a "$base" "$run"
mkdir -p "$run$swift_root"
stop() {
  # What the run left (processes whose root is the chroot), then the mounts.
  local p
  for p in /proc/[0-9]*; do [ "$(readlink "$p/root" 2>/dev/null)" = "$run" ] && kill -9 "${p#/proc/}" 2>/dev/null; done
  sleep 1
  unmount_all "$run" || echo "still mounted under $run"
}
trap stop EXIT
mount -t proc proc "$run/proc"
mount --rbind /sys "$run/sys"
mount --rbind /dev "$run/dev"
mount --bind "$swift_root" "$run$swift_root"
mount -o remount,bind,ro "$run$swift_root"
git -c safe.directory='*' clone -q "$repo" "$run/root/passbox"
git -C "$run/root/passbox" checkout -q "$commit"
cat > "$run/root/make-test.sh" <<EOS
#!/bin/bash
export PATH=$swift_root/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
cd /root/passbox
start=\$(date +%s)
make test > /root/make-test.out 2>&1
status=\$?
echo "make test rc=\$status in \$(( \$(date +%s) - start )) s" >> /root/make-test.out
exit \$status
EOS
chmod +x "$run/root/make-test.sh"
status=0
chroot "$run" /root/make-test.sh || status=$?
tail -1 "$run/root/make-test.out"
exit "$status"
