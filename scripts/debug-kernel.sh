#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh KERNELDIR OUT JOBS
#
# Build the debug-kernel lane's kernel (make check-debug) from the same
# Debian linux-source the module set is built from: x86_64 defconfig merged
# with tests/debug/kernel.config (trimmed, plus KASAN, lockdep, kmemleak,
# debugobjects).  Results, cached until the config fragment or the source
# changes:
#   OUT/obj                     the kbuild tree (KDIR for our modules)
#   OUT/root/boot/vmlinuz-KREL  the image the VMs boot
#   OUT/root/lib/modules/KREL   its modules
#   OUT/krel                    KREL (6.12.x-rr-debug, 7.2.x-rr-debug)
set -euo pipefail

[ $# -eq 3 ] || { echo "usage: $0 KERNELDIR OUT JOBS" >&2; exit 2; }
KERNELDIR=$(realpath "$1") OUT=$(realpath -m "$2") JOBS=$3
TOP=$(cd "$(dirname "$0")/.." && pwd)
FRAG=$TOP/tests/debug/kernel.config
# linux-source-6.12 or -7.2 (the lane's), named in the package
v=$(dpkg-deb --fsys-tarfile "$KERNELDIR/linux-source.deb" | tar -t |
	sed -n 's|^\./usr/src/\(linux-source-[0-9.]*\)\.tar\.xz$|\1|p')
[ -n "$v" ] || { echo "debug-kernel: no linux-source tarball in $KERNELDIR/linux-source.deb" >&2; exit 1; }
LSRC=$OUT/$v
OBJ=$OUT/obj

key=$(cat "$KERNELDIR/deb-version" "$FRAG" "$0" | sha256sum | cut -c1-16)
if [ -f "$OUT/stamp" ] && [ "$(cat "$OUT/stamp")" = "$key" ]; then
	echo "  DEBUG   kernel $(cat "$OUT/krel") (cached)"
	exit 0
fi
rm -f "$OUT/stamp"

if [ ! -f "$LSRC/Makefile" ] || [ "$(cat "$OUT/source-version" 2>/dev/null)" != "$(cat "$KERNELDIR/deb-version")" ]; then
	echo "  DEBUG   extracting linux-source"
	rm -rf "$LSRC" "$OBJ"
	mkdir -p "$OUT"
	dpkg-deb --fsys-tarfile "$KERNELDIR/linux-source.deb" |
		tar -xO "./usr/src/$v.tar.xz" | xz -dc -T0 | tar -x -C "$OUT"
	cp "$KERNELDIR/deb-version" "$OUT/source-version"
fi

echo "  DEBUG   config (defconfig + ${FRAG#"$TOP"/})"
mkdir -p "$OBJ"
make -s -C "$LSRC" O="$OBJ" defconfig >/dev/null
KCONFIG_CONFIG=$OBJ/.config "$LSRC/scripts/kconfig/merge_config.sh" -m -O "$OBJ" \
	"$OBJ/.config" "$FRAG" >/dev/null
make -s -C "$LSRC" O="$OBJ" olddefconfig
# Every line of the fragment must have survived (a dependency can drop one).
bad=0
while read -r l; do
	case "$l" in
	"# CONFIG_"*" is not set")
		s=${l#\# }; s=${s%% is not set}
		grep -q "^$s=" "$OBJ/.config" && { echo "debug-kernel: $s is still set" >&2; bad=1; } ;;
	CONFIG_*)
		grep -qxF "$l" "$OBJ/.config" || { echo "debug-kernel: $l did not survive olddefconfig" >&2; bad=1; } ;;
	esac
done <"$FRAG"
[ $bad = 0 ] || exit 1

echo "  DEBUG   building (-j$JOBS; about 25 min on 2 cores the first time)"
t0=$(date +%s)
make -s -C "$LSRC" O="$OBJ" -j"$JOBS" bzImage modules
krel=$(make -s -C "$LSRC" O="$OBJ" kernelrelease)
rm -rf "$OUT/root"
mkdir -p "$OUT/root/boot"
cp "$OBJ/arch/x86/boot/bzImage" "$OUT/root/boot/vmlinuz-$krel"
make -s -C "$LSRC" O="$OBJ" INSTALL_MOD_PATH="$OUT/root" INSTALL_MOD_STRIP=1 \
	DEPMOD=/bin/true modules_install
rm -f "$OUT/root/lib/modules/$krel"/{build,source}
depmod -b "$OUT/root" "$krel"
echo "$krel" >"$OUT/krel"
echo "$key" >"$OUT/stamp"
echo "  DEBUG   kernel $krel built in $(($(date +%s) - t0)) s"
