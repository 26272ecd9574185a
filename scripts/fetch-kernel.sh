#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-kernel.sh LANE DEB_VERSION KREL CACHE OUT
#
# Download (once, into CACHE) the lane's Debian linux-source, image,
# linux-headers (+ -common) and linux-kbuild packages of exactly
# DEB_VERSION (scripts/lanes.sh lists them), and unpack all but the source
# into OUT/root.  OUT/root/usr/src/linux-headers-KREL is then a usable
# kbuild tree (its Makefile is pointed at OUT instead of /usr/src),
# OUT/root/boot/vmlinuz-KREL boots the VMs and OUT/root/lib/modules/KREL
# holds the stock modules (links where a lane's packages put them under
# usr/lib, as trixie's and sid's do).
set -euo pipefail

[ $# -eq 5 ] || { echo "usage: $0 LANE DEB_VERSION KREL CACHE OUT" >&2; exit 2; }
LANE=$1 DEB_VERSION=$2 KREL=$3 CACHE=$4 OUT=$5

# shellcheck source=scripts/lanes.sh
. "$(dirname "$0")/lanes.sh"
lane_def "$LANE" || { echo "fetch-kernel: no such lane '$LANE'" >&2; exit 1; }
mapfile -t pkgs < <(lane_pkgs "$KREL")

mkdir -p "$CACHE"
cd "$CACHE"
missing=()
for p in "${pkgs[@]}"; do
	ls "${p}_${DEB_VERSION//:/%3a}_"*.deb >/dev/null 2>&1 || missing+=("$p=$DEB_VERSION")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "  FETCH   ${missing[*]}"
	# apt's sandbox user cannot write into a root-owned cache: download as root.
	lane_apt "$CACHE" download "${missing[@]}" ||
		{ echo "fetch-kernel: cannot download ${missing[*]} from $SUITE" >&2; exit 1; }
fi

rm -rf "$OUT.tmp"
mkdir -p "$OUT.tmp/root"
for p in "${pkgs[@]:1}"; do
	dpkg-deb -x "$CACHE/${p}_${DEB_VERSION//:/%3a}_"*.deb "$OUT.tmp/root"
done
# Merged-/usr packages (trixie, sid): the paths the build and the VMs use.
r=$OUT.tmp/root
if [ ! -e "$r/lib/modules/$KREL" ] && [ -d "$r/usr/lib/modules/$KREL" ]; then
	mkdir -p "$r/lib"
	ln -s ../usr/lib/modules "$r/lib/modules"
fi
if [ ! -e "$r/boot/vmlinuz-$KREL" ] && [ -e "$r/usr/lib/modules/$KREL/vmlinuz" ]; then
	mkdir -p "$r/boot"
	ln -s "../usr/lib/modules/$KREL/vmlinuz" "$r/boot/vmlinuz-$KREL"
fi
[ -e "$r/boot/vmlinuz-$KREL" ] || { echo "fetch-kernel: no vmlinuz-$KREL in the $LANE packages" >&2; exit 1; }
[ -d "$r/lib/modules/$KREL/kernel" ] || { echo "fetch-kernel: no modules for $KREL in the $LANE packages" >&2; exit 1; }
hdr="$OUT.tmp/root/usr/src/linux-headers-$KREL"
[ -f "$hdr/Module.symvers" ] || { echo "fetch-kernel: $hdr/Module.symvers missing" >&2; exit 1; }
# The flavour Makefile includes the -common one by absolute path (and 7.2's
# names its own directory as KBUILD_OUTPUT).
sed -i "s#^\(include \|KBUILD_OUTPUT=\)/usr/src/#\1$OUT/root/usr/src/#" "$hdr/Makefile"
ln -sf "$CACHE/linux-source-${SERIES}_${DEB_VERSION//:/%3a}_all.deb" "$OUT.tmp/linux-source.deb"
echo "$DEB_VERSION" > "$OUT.tmp/deb-version"
rm -rf "$OUT"
mv "$OUT.tmp" "$OUT"
