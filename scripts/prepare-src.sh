#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# prepare-src.sh TOPDIR KERNELDIR SRC
#
# Stage the source tree that is built:
#   1. the subtrees of Debian's linux-source that hold our modules (extracted
#      once per kernel version into KERNELDIR/pristine);
#   2. the series applied in order (patches/ for a 6.12 kernel, patches-7.2/
#      for 7.2; stops naming the first patch that does not apply);
#   3. our own files (drivers/, include/, Kbuild) laid over the result;
#   4. for 6.12, the backport's kABI layer: compat/'s files, then the
#      patches of compat/patches/series (compat/README).
# The staged tree is synced into SRC by content, so an unchanged file keeps
# its timestamp and kbuild rebuilds only what changed.
set -euo pipefail

[ $# -eq 3 ] || { echo "usage: $0 TOPDIR KERNELDIR SRC" >&2; exit 2; }
TOP=$(realpath "$1") KDIR=$(realpath "$2") SRC=$3

# Everything the module set compiles from, plus the tools the lint lanes use.
SUBTREES=(
	drivers/infiniband/core
	drivers/infiniband/sw/rxe
	drivers/infiniband/ulp/srp
	drivers/infiniband/ulp/srpt
	drivers/infiniband/ulp/iser
	drivers/infiniband/ulp/isert
	drivers/infiniband/ulp/ipoib
	drivers/infiniband/hw/mlx5
	net/sunrpc/xprtrdma
	net/rds
	drivers/nvme/host
	drivers/nvme/target
	include/rdma
	include/trace/events
	Documentation/infiniband
	MAINTAINERS
	scripts/get_maintainer.pl
	scripts/checkpatch.pl
	scripts/spelling.txt
	scripts/const_structs.checkpatch
	scripts/kernel-doc
)

pristine=$KDIR/pristine
# .done lists what was extracted: a new subtree means extracting again.
if [ "$(cat "$pristine/.done" 2>/dev/null)" != "${SUBTREES[*]}" ]; then
	echo "  EXTRACT linux-source subtrees"
	rm -rf "$pristine"
	mkdir -p "$pristine"
	# linux-source-6.12 or -7.2 (the lane's series), named in the package
	v=$(dpkg-deb --fsys-tarfile "$KDIR/linux-source.deb" | tar -t |
		sed -n 's|^\./usr/src/\(linux-source-[0-9.]*\)\.tar\.xz$|\1|p')
	[ -n "$v" ] || { echo "prepare-src: no linux-source tarball in $KDIR/linux-source.deb" >&2; exit 1; }
	dpkg-deb --fsys-tarfile "$KDIR/linux-source.deb" |
		tar -xO "./usr/src/$v.tar.xz" |
		tar -xJ -C "$pristine" --strip-components=1 "${SUBTREES[@]/#/$v/}"
	echo "${SUBTREES[*]}" >"$pristine/.done"
fi

stage=$SRC.stage
rm -rf "$stage"
mkdir -p "$stage"
cp -a "$pristine/." "$stage/"
rm -f "$stage/.done"

# The series for the kernel's line: patches/ for 6.12, patches-7.2/ for 7.2.
line=$(sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p' "$KDIR/deb-version")
PD=$TOP/patches
[ "$line" = 6.12 ] || PD=$TOP/patches-$line
[ -f "$PD/series" ] || { echo "prepare-src: no series for Linux $line ($PD/series)" >&2; exit 1; }
# apply_series DIR TAG [OURS...]: apply DIR/series in order to the stage
# (stops naming the first patch that does not apply), without the sections
# that change one of OURS: those files are laid over in their final form.
apply_series() {
	local p dir=$1 tag=$2
	shift 2
	while read -r p _; do
		case "$p" in ''|'#'*) continue ;; esac
		"$TOP/scripts/patch-files.sh" drop "$@" <"$dir/$p" >"$stage.patch"
		grep -q '^--- ' "$stage.patch" || continue
		if ! patch -d "$stage" -p1 -s -N -F0 --no-backup-if-mismatch \
			-i "$stage.patch" >"$stage.patch.log" 2>&1; then
			cat "$stage.patch.log" >&2
			echo "prepare-src: $dir/$p does not apply" >&2
			exit 1
		fi
		printf '  %-7s %s\n' "$tag" "$p"
	done <"$dir/series"
	rm -f "$stage.patch" "$stage.patch.log"
}
# Our new files: the series lists each after the patch that adds it.
mapfile -t ours < <(awk '!/^#/ { for (i = 2; i <= NF; i++) print $i }' "$PD/series")
apply_series "$PD" PATCH "${ours[@]}"

for d in drivers include tests/modules; do
	[ -d "$TOP/$d" ] && mkdir -p "$stage/$d" && cp -a "$TOP/$d/." "$stage/$d/"
done
cp "$TOP/Kbuild" "$stage/Kbuild"

# 6.12 only: the backport's kABI layer (compat/README), its files and then
# its patches, which may touch our files as well as the kernel's.
if [ "$line" = 6.12 ]; then
	for d in drivers include; do
		cp -a "$TOP/compat/$d/." "$stage/$d/"
	done
	apply_series "$TOP/compat/patches" COMPAT
fi

mkdir -p "$SRC"
# Build products are excluded, so --delete removes only stale sources.
rsync -rlc --delete \
	--exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' --exclude='*.mod' \
	--exclude='*.mod.c' --exclude='modules.order' --exclude='Module.symvers' \
	--exclude='*.a' --exclude='.tmp_*' --exclude='.cache.mk' \
	"$stage/" "$SRC/"
rm -rf "$stage"
