#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install.sh install KREL SRC [DESTDIR]   install.sh uninstall KREL [DESTDIR]
#
# Install the module set into DESTDIR/lib/modules/KREL/updates/rdma-reset,
# where depmod ranks it above Debian's own copies, and run depmod.  Only onto
# the kernel the set was built for: a different kernel would refuse the
# modules (or worse, load them against another ABI).  Without DESTDIR this
# is the running kernel, and the initramfs is refreshed when it carries any
# of the RDMA modules.
set -euo pipefail

die() { echo "install: $*" >&2; exit 1; }
op=${1:-}
krel=${2:-}
case "$op" in
install) src=${3:?usage: install.sh install KREL SRC [DESTDIR]}; dest=${4:-} ;;
uninstall) dest=${3:-} ;;
*) die "usage: install.sh install|uninstall KREL ..." ;;
esac

if [ -z "$dest" ]; then
	[ "$(uname -r)" = "$krel" ] ||
		die "built for $krel but running $(uname -r); refusing (boot $krel, or make DEB_VERSION=... for this kernel)"
	[ "$(id -u)" = 0 ] || die "must be root"
fi
dir=$dest/lib/modules/$krel
[ -d "$dir/kernel" ] || die "$dir is not an installed kernel's module tree"
upd=$dir/updates/rdma-reset
# The optional modules (scripts/modules.sh --optional: mlx5_ib) go where
# depmod ranks them below Debian's own, until the admin chooses them
# (Documentation/rdma-reset/install.rst, "mlx5_ib, optional").
opt=$dir/rdma-reset-optional

case "$op" in
install)
	mkdir -p "$upd" "$opt"
	find "$src" -name '*.ko' -not -path '*/tests/*' \
		-not -path '*/drivers/infiniband/hw/*' -exec install -m 0644 {} "$upd/" \;
	find "$src" -name '*.ko' -path '*/drivers/infiniband/hw/*' \
		-exec install -m 0644 {} "$opt/" \;
	echo "  INSTALL $(ls "$upd" | wc -l) modules -> $upd, $(ls "$opt" | wc -l) optional -> $opt"
	;;
uninstall)
	[ -d "$upd" ] || die "nothing installed in $upd"
	rm -rf "$upd" "$opt"
	echo "  REMOVE  $upd $opt"
	;;
esac
depmod ${dest:+-b "$dest"} "$krel"

# A stale initramfs would keep loading the old copies early in boot.
if [ -z "$dest" ] && [ -f "/boot/initrd.img-$krel" ] &&
   lsinitramfs "/boot/initrd.img-$krel" 2>/dev/null | grep -qE '/(ib_core|rdma_rxe|nvme-rdma)\.ko'; then
	update-initramfs -u -k "$krel"
fi
