#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# abi-check.sh DEBIAN_SYMVERS BUILT_SYMVERS
#
# The module ABI check.  Every symbol that Debian's kernel exports from one of
# the modules we build must be exported by our build with the same CRC:
# otherwise a stock module (mlx5_ib, ib_ipoib, rpcrdma, ...) that was built
# against Debian's headers refuses to load next to ours ("disagrees about
# version of symbol").  New symbols are allowed.  Exits 1 naming every
# changed or missing symbol.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 DEBIAN_SYMVERS BUILT_SYMVERS" >&2; exit 2; }

# An external build names its modules by absolute path: strip the build root.
prefix=$(cd "$(dirname "$2")" && pwd)/

awk -F'\t' -v prefix="$prefix" '
	# Module.symvers: CRC, symbol, module, export type, namespace
	FNR == NR {
		m = $3
		if (index(m, prefix) == 1)
			m = substr(m, length(prefix) + 1)
		ours[$2] = $1; mod[m] = 1; next
	}
	($3 in mod) {
		checked++
		if (!($2 in ours)) {
			printf "ABI: %s (%s) is no longer exported\n", $2, $3
			bad++
		} else if (ours[$2] != $1) {
			printf "ABI: %s (%s) changed its CRC: %s -> %s\n", $2, $3, $1, ours[$2]
			bad++
		}
		stock[$2] = 1
	}
	END {
		for (s in ours)
			if (!(s in stock))
				added++
		if (!checked) {
			print "ABI: no symbol of ours found in the reference Module.symvers"
			exit 1
		}
		printf "ABI: %d stock symbols checked, %d changed, %d new\n", checked, bad, added
		exit bad ? 1 : 0
	}' "$2" "$1"
