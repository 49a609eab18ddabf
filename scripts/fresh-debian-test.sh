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
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "run as root (it makes a chroot)"; exit 2; }
command -v debootstrap >/dev/null || { echo "apt-get install debootstrap"; exit 2; }
repo="$(cd "$(dirname "$0")/.." && pwd)"
commit="$(git -C "$repo" rev-parse "${1:-HEAD}")"
dir="${PASSBOX_FRESH_DIR:-/var/tmp/passbox-fresh}"
swift_root="${SWIFT_ROOT:-/opt/swift}"
base="$dir/base" run="$dir/run"

# Everything mounted under $1, deepest first; the tree is removed only once none is left.
unmount_all() {
  local m
  for m in $(awk -v r="$1/" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r); do umount -l "$m" 2>/dev/null || true; done
  ! awk -v r="$1/" 'index($2, r) == 1' /proc/mounts | grep -q .
}

if [ ! -e "$base/.ready" ]; then
  unmount_all "$base" || { echo "still mounted under $base"; exit 1; }
  rm -rf "$base"
  mkdir -p "$dir"
  debootstrap --variant=minbase bookworm "$base" http://deb.debian.org/debian > "$dir/debootstrap.log" 2>&1
  cp /etc/resolv.conf "$base/etc/resolv.conf"
  [ -d /etc/apt/sources.list.d ] && cp /etc/apt/sources.list.d/*.sources "$base/etc/apt/sources.list.d/" 2>/dev/null && rm -f "$base/etc/apt/sources.list" || true
  mkdir -p "$base/usr/local/share/ca-certificates"
  cp -a /usr/local/share/ca-certificates/. "$base/usr/local/share/ca-certificates/" 2>/dev/null || true
  [ -f /etc/pip.conf ] && cp /etc/pip.conf "$base/etc/pip.conf"
  mount -t proc proc "$base/proc"
  chroot "$base" /bin/bash -c 'export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq binutils git gnupg2 libc6-dev \
    libcurl4-openssl-dev libedit2 libgcc-12-dev libpython3-dev libsqlite3-0 libstdc++-12-dev libxml2-dev libncurses-dev libz3-dev pkg-config tzdata \
    unzip zlib1g-dev gcc g++ make python3 python3-pip ca-certificates curl procps sudo > /dev/null && update-ca-certificates > /dev/null && apt-get clean'
  umount "$base/proc"
  mkdir -p "$base$swift_root"
  touch "$base/.ready"
fi

unmount_all "$run" || { echo "still mounted under $run: not removing it"; exit 1; }
rm -rf "$run"
cp -a "$base" "$run"
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
git clone -q "$repo" "$run/root/passbox"
git -C "$run/root/passbox" checkout -q "$commit"
cat > "$run/root/make-test.sh" <<EOS
#!/bin/bash
export PATH=$swift_root/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
cd /root/passbox
start=\$(date +%s)
make test > /root/make-test.out 2>&1
status=\$?
echo "make test rc=\$status in \$(( \$(date +%s) - start )) s" >> /root/make-test.out
EOS
chmod +x "$run/root/make-test.sh"
chroot "$run" /root/make-test.sh
tail -1 "$run/root/make-test.out"
