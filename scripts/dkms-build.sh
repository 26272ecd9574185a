#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-build.sh KERNELVER KERNEL_SOURCE_DIR
#
# The build DKMS runs (dkms.conf's MAKE[0]) in its copy of the package's
# source, /var/lib/dkms/rdma-reset/<version>/build.  The package carries
# one source tree per supported kernel release, kernels/<release>/: the
# subtrees of that Debian kernel's linux-source with the series applied
# and the set's files laid over them, as `make` stages them.  The tree of
# KERNELVER's release (6.12.118+deb13 for 6.12.118+deb13-amd64) is copied
# to build/src, built against the kernel's headers, and its module ABI
# checked against the kernel's own Module.symvers: a changed CRC fails the
# build, and DKMS installs nothing.  (dkms.conf's BUILD_EXCLUSIVE_KERNEL
# names the same kernels, so DKMS skips any other before this runs.)
set -euo pipefail

die() { echo "rdma-reset: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: $0 KERNELVER KERNEL_SOURCE_DIR"
kver=$1 kdir=$2
here=$(cd "$(dirname "$0")" && pwd)
tree=$here/kernels/${kver%%-*}
[ -d "$tree" ] ||
	die "kernel $kver is not supported: this package carries the source for $(cd "$here/kernels" && echo *) only"
[ -f "$kdir/Module.symvers" ] ||
	die "no $kdir/Module.symvers: install linux-headers-$kver"

src=$here/build/src
rm -rf "$here/build"
mkdir -p "$here/build"
cp -a "$tree" "$src"
# As make builds the set (its KMAKE): a srcversion in every module.
make -C "$kdir" M="$src" NOSTDINC_FLAGS="-I$src/include" CONFIG_MODULE_SRCVERSION_ALL=y \
	-j"$(nproc)" modules
"$here/abi-check.sh" "$kdir/Module.symvers" "$src/Module.symvers"
