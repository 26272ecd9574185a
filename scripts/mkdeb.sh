#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkdeb.sh TOPDIR OUTDIR
#
# make deb: build rdma-reset-dkms_<version>_all.deb with Debian's tools
# (debian/, dh with the dkms addon, dpkg-buildpackage), into OUTDIR, then
# run lintian on it.  The package carries, for each Debian 6.12 lane
# (DEB_LANES), the source tree DKMS builds for that lane's kernel: made
# by scripts/prepare-src.sh from the lane's linux-source, as make stages
# it, without the test modules and the subtrees only the lint and the 7.2
# lane use.  Each lane must have been built (make, make LANE=...): its
# build proves the tree builds and keeps the ABI, and names the modules.
set -euo pipefail

die() { echo "mkdeb: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: $0 TOPDIR OUTDIR"
TOP=$(realpath "$1") OUT=$2
# shellcheck source=scripts/lanes.sh
. "$TOP/scripts/lanes.sh"
DEB_LANES=${DEB_LANES:-"bookworm-6.12 trixie-6.12"}

ver=$(cat "$TOP/VERSION")
cver=$(cd "$TOP" && dpkg-parsechangelog -S Version)
[ "$ver" = "$cver" ] ||
	die "VERSION is $ver but debian/changelog's last entry is $cver: add an entry (dch -v $ver)"

S=$OUT/rdma-reset-$ver
rm -rf "$OUT"
mkdir -p "$S/dkms/kernels" "$S/doc"
cp -a "$TOP/debian" "$S/"

mods="" rels=""
for lane in $DEB_LANES; do
	lane_def "$lane" || die "no such lane $lane"
	[ "$SERIES" = 6.12 ] || die "$lane: only the 6.12 lanes are packaged"
	b=$(lane_builddir "$TOP" "$lane")
	[ -f "$b/src/modules.order" ] || die "$lane is not built (make LANE=$lane)"
	krel=$(sed -n 's/^KREL=//p' "$b/kversion.mk")
	debver=$(sed -n 's/^DEB_VERSION=//p' "$b/kversion.mk")
	rel=${krel%%-*}
	t=$S/dkms/kernels/$rel
	"$TOP/scripts/prepare-src.sh" "$TOP" "$b/kernel/$krel" "$t" >/dev/null
	# Not the optional mlx5_ib: Debian 13's DKMS moves the kernel's own
	# copy of each module it installs aside, so Debian's mlx5_ib could not
	# stay the chosen one (make install keeps it optional).
	rm -rf "$t/tests" "$t/drivers/infiniband/ulp/ipoib" "$t/net/sunrpc" \
		"$t/drivers/infiniband/hw" "$t/Documentation" "$t/MAINTAINERS" "$t/scripts"
	sed -i 's|^obj-m += tests/modules/$|# (not in the DKMS package)|
		s|^obj-m += drivers/infiniband/hw/mlx5/$|# (not in the DKMS package)|' "$t/Kbuild"
	! grep -q '^obj-m.*\(tests/\|hw/\)' "$t/Kbuild" || die "$lane: Kbuild still builds the test modules or mlx5_ib"
	# The same modules on every lane: one dkms.conf lists them.
	m=$("$TOP/scripts/modules.sh" "$b/src")
	[ -z "$mods" ] || [ "$m" = "$mods" ] || die "$lane builds other modules than $DEB_LANES"
	mods=$m
	rels="$rels${rels:+|}${rel//./\\.}"
	echo "$krel	Debian linux $debver ($lane)" >>"$S/doc/kernels"
	echo "  DEB     $lane: $krel (linux $debver)"
done
rels=${rels//+/\\+}
cp "$TOP/scripts/dkms-build.sh" "$TOP/scripts/abi-check.sh" "$S/dkms/"

{
	cat <<CONF
# dkms.conf of rdma-reset-dkms (made by scripts/mkdeb.sh).  DKMS builds
# for the kernels whose source the package carries (kernels/), and skips
# any other: Debian's modules stay in use there.
PACKAGE_NAME="rdma-reset"
PACKAGE_VERSION="#MODULE_VERSION#"
BUILD_EXCLUSIVE_KERNEL="^($rels)-amd64\$"
MAKE[0]="./dkms-build.sh \${kernelver} \${kernel_source_dir}"
CLEAN="rm -rf build"
AUTOINSTALL="yes"
CONF
	i=0
	while read -r dir m; do
		echo "BUILT_MODULE_NAME[$i]=\"$m\""
		echo "BUILT_MODULE_LOCATION[$i]=\"build/src/$dir/\""
		echo "DEST_MODULE_LOCATION[$i]=\"/updates/dkms\""
		i=$((i + 1))
	done <<<"$mods"
} >"$S/dkms/dkms.conf"

cp "$TOP/README.md" "$S/doc/"
cp "$TOP/Documentation/infiniband/device-reset.rst" "$TOP/Documentation/rdma-reset/install.rst" "$S/doc/"

(cd "$S" && dpkg-buildpackage -b --no-sign) >"$OUT/build.log" 2>&1 ||
	{ tail -20 "$OUT/build.log" >&2; die "dpkg-buildpackage failed (log: $OUT/build.log)"; }
deb=$OUT/rdma-reset-dkms_${ver}_all.deb
[ -f "$deb" ] || die "no $deb"
lintian --fail-on error,warning --info "$deb" ||
	die "lintian reports errors or warnings on $deb"
echo "  DEB     $deb ($(du -k "$deb" | cut -f1) KiB)"
