#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-kernel.sh DEB_VERSION KREL CACHE OUT
#
# Download (once, into CACHE) Debian's linux-source, linux-image, linux-headers
# (+ -common) and linux-kbuild packages of exactly DEB_VERSION, and unpack the
# image, headers and kbuild into OUT/root.  OUT/root/usr/src/linux-headers-KREL
# is then a usable kbuild tree (its Makefile is pointed at OUT instead of
# /usr/src), OUT/root/boot/vmlinuz-KREL boots the VMs and
# OUT/root/lib/modules/KREL holds the stock modules.
set -euo pipefail

[ $# -eq 4 ] || { echo "usage: $0 DEB_VERSION KREL CACHE OUT" >&2; exit 2; }
DEB_VERSION=$1 KREL=$2 CACHE=$3 OUT=$4
base=${KREL%-*}		# 6.12.117+deb12

pkgs=(linux-source-6.12 "linux-image-$KREL" "linux-headers-$KREL"
      "linux-headers-$base-common" "linux-kbuild-$base")

mkdir -p "$CACHE"
cd "$CACHE"
missing=()
for p in "${pkgs[@]}"; do
	ls "${p}_${DEB_VERSION//:/%3a}_"*.deb >/dev/null 2>&1 || missing+=("$p=$DEB_VERSION")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "  FETCH   ${missing[*]}"
	# apt's sandbox user cannot write into a root-owned cache: download as root.
	apt-get -q -o APT::Sandbox::User=root download "${missing[@]}" ||
		{ echo "fetch-kernel: cannot download ${missing[*]} from the archive" >&2; exit 1; }
fi

rm -rf "$OUT.tmp"
mkdir -p "$OUT.tmp/root"
for p in "${pkgs[@]:1}"; do
	dpkg-deb -x "$CACHE/${p}_${DEB_VERSION//:/%3a}_"*.deb "$OUT.tmp/root"
done
hdr="$OUT.tmp/root/usr/src/linux-headers-$KREL"
[ -f "$hdr/Module.symvers" ] || { echo "fetch-kernel: $hdr/Module.symvers missing" >&2; exit 1; }
# The flavour Makefile includes the -common one by absolute path.
sed -i "s|include /usr/src/|include $OUT/root/usr/src/|" "$hdr/Makefile"
ln -sf "$CACHE/linux-source-6.12_${DEB_VERSION//:/%3a}_all.deb" "$OUT.tmp/linux-source.deb"
echo "$DEB_VERSION" > "$OUT.tmp/deb-version"
rm -rf "$OUT"
mv "$OUT.tmp" "$OUT"
