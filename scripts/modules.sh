#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# modules.sh SRC: the modules of the set, one "DIR NAME" line each (DIR
# relative to SRC), in kbuild's build order, from SRC/modules.order; the
# test-only modules (tests/modules) are left out.  The one list of our
# modules: everything else derives from it.
set -euo pipefail
# With --optional: the set's optional modules instead, the hardware drivers
# (drivers/infiniband/hw/: mlx5_ib), which an admin chooses to use (they
# install outside updates/, see scripts/install.sh).
want="set"
[ "${1:-}" != --optional ] || { want="optional"; shift; }
order=${1:?usage: modules.sh [--optional] SRC}/modules.order
[ -f "$order" ] || { echo "modules.sh: no $order (run make)" >&2; exit 1; }
# Its paths are absolute, as kbuild saw the tree (on the build host: a VM
# sees it elsewhere); the first module is in drivers/ (Kbuild's order).
src=$(head -1 "$order")
src=${src%%drivers/*}
while read -r o; do
	o=${o#"$src"}
	case "$o" in
	tests/*) continue ;;
	drivers/infiniband/hw/*) [ $want = optional ] || continue ;;
	*) [ $want = set ] || continue ;;
	esac
	n=${o##*/}
	echo "${o%/*} ${n%.o}"
done <"$order"
