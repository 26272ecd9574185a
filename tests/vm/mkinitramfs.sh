#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh MODDIR OUT
#
# Build the test VMs' initramfs: a static busybox, tests/vm/init, and the
# stock modules needed to reach the root (9p over virtio, overlayfs),
# decompressed and listed in load order.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 MODDIR OUT" >&2; exit 2; }
MODDIR=$1 OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
krel=$(basename "$MODDIR")
base=$(dirname "$(dirname "$(dirname "$MODDIR")")")	# .../lib/modules/KREL -> root

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,lib,proc,sys,dev}
cp /bin/busybox "$tmp/bin/busybox"
ln -s busybox "$tmp/bin/sh"
file -b /bin/busybox 2>/dev/null | grep -q static ||
	ldd /bin/busybox 2>&1 | grep -q 'not a dynamic' ||
	{ echo "mkinitramfs: /bin/busybox is not static (install busybox-static)" >&2; exit 1; }
install -m 0755 "$here/init" "$tmp/init"

: >"$tmp/modules.list"
modprobe -d "$base" -S "$krel" --show-depends -a 9pnet_virtio 9p overlay |
while read -r kw path _; do
	[ "$kw" = insmod ] || continue
	name=$(basename "$path")
	name=${name%.xz}
	case "$path" in
	*.xz) xz -dc "$path" >"$tmp/lib/$name" ;;
	*) cp "$path" "$tmp/lib/$name" ;;
	esac
	grep -qxF "$name" "$tmp/modules.list" || echo "$name" >>"$tmp/modules.list"
done
[ -s "$tmp/modules.list" ] || { echo "mkinitramfs: no 9p/overlay modules in $MODDIR" >&2; exit 1; }

(cd "$tmp" && find . | cpio -o -H newc --quiet) | gzip -1 >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
