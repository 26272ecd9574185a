#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# modtree.sh STOCK_MODDIR SRC|none OUTROOT
#
# Lay out OUTROOT/lib/modules/KREL for the VMs: every stock module of the
# Debian kernel (hard links, nothing copied) plus our module set in
# updates/rdma-reset/, which depmod ranks above the stock copies.  Stock
# modules that we do not build (ib_ipoib, rpcrdma, mlx5_ib, ...) stay as
# Debian signed them.
set -euo pipefail

[ $# -eq 3 ] || { echo "usage: $0 STOCK_MODDIR SRC OUTROOT" >&2; exit 2; }
STOCK=$1 SRC=$2 OUT=$3
krel=$(basename "$STOCK")
dst=$OUT/lib/modules/$krel

rm -rf "$OUT.tmp"
mkdir -p "$OUT.tmp/lib/modules"
cp -al "$STOCK" "$OUT.tmp/lib/modules/$krel"
rm -f "$OUT.tmp/lib/modules/$krel"/{build,source}
# SRC "none": Debian's modules only (the control runs, MODULES=stock).
if [ "$SRC" != none ]; then
	mkdir -p "$OUT.tmp/lib/modules/$krel/updates/rdma-reset"
	n=0
	while read -r ko; do
		install -m 0644 "$ko" "$OUT.tmp/lib/modules/$krel/updates/rdma-reset/"
		n=$((n + 1))
	done < <(find "$SRC" -name '*.ko' -not -path '*/tests/*' \
		-not -path '*/drivers/infiniband/hw/*')
	# Optional modules where scripts/install.sh puts them: below Debian's.
	mkdir -p "$OUT.tmp/lib/modules/$krel/rdma-reset-optional"
	find "$SRC" -name '*.ko' -path '*/drivers/infiniband/hw/*' \
		-exec install -m 0644 {} "$OUT.tmp/lib/modules/$krel/rdma-reset-optional/" \;
	[ "$n" -gt 0 ] || { echo "modtree: no modules built in $SRC" >&2; exit 1; }
fi
# Extra modules built for the tests only (tests/modules) go to extra/.
if [ "$SRC" != none ] && [ -d "$SRC/tests" ]; then
	mkdir -p "$OUT.tmp/lib/modules/$krel/extra"
	find "$SRC/tests" -name '*.ko' -exec install -m 0644 {} "$OUT.tmp/lib/modules/$krel/extra/" \;
fi
depmod -b "$OUT.tmp" "$krel"
rm -rf "$OUT"
mv "$OUT.tmp" "$OUT"
echo "$dst"
