#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb.sh LANE...: the DKMS package (make deb) on each 6.12 lane's system,
# as an admin installs it (make check-deb).
#
# Per lane, on a throwaway overlay of the lane's root (this machine's root
# for bookworm, the lane's suite root for trixie), with Debian's module
# tree of the lane's kernel in it:
#   1. in a chroot: the kernel's linux-headers, then
#      `apt-get install ./rdma-reset-dkms_*.deb`: DKMS builds the set for
#      that kernel and skips an unsupported one, which the package names;
#      `dkms install` for the unsupported kernel fails with DKMS's
#      BUILD_EXCLUSIVE message and changes nothing;
#   2. a VM of the lane's kernel booted from that root (tests/run.sh,
#      VM_ROOT): tests/deb/ checks that plain modprobe loads the modules
#      DKMS built, survives a reset (case 030), then `apt-get remove`s the
#      package and checks that Debian's modules and depmod state are back.
# DKMS builds in the chroot, not in the VM: under TCG a compile is about
# 11 times slower (rdma_rxe alone: 226 s against 20 s), 30 minutes for
# the set.  Everything else an admin does runs in the VM.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lanes.sh
. "$TOP/scripts/lanes.sh"
CACHE=${CACHE:-/var/cache/rdma-reset}
VER=$(cat "$TOP/VERSION")
DEB=$TOP/build/deb/rdma-reset-dkms_${VER}_all.deb
die() { echo "deb: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "must be root (chroot, mount)"
[ -f "$DEB" ] || die "no $DEB (make deb)"
[ $# -gt 0 ] || die "usage: $0 LANE..."
# One process per lane, so that set -e holds in each (it does not in a
# function called from a condition).
if [ $# -gt 1 ]; then
	rc=0
	for lane; do "$0" "$lane" || rc=1; done
	exit $rc
fi

W="" M="" fake=""
# undo: unmount what setup mounted (inside out) and remove the overlay.
undo() {
	local m
	[ -n "$W" ] || return 0
	for m in dev/pts dev sys proc; do
		mountpoint -q "$M/$m" && umount -l "$M/$m"
	done
	mountpoint -q "$M" && umount "$M"
	# Never through a mount that is still there (the host's /dev, /proc).
	rm -rf --one-file-system "$W"
	W=""
}
trap undo EXIT

# in_root CMD...: CMD in the chroot (its policy-rc.d keeps services from
# starting).
in_root() { chroot "$M" env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"; }

# fake_untouched: the unsupported kernel has only its build link, and DKMS
# nothing for it.
fake_untouched() {
	[ "$(ls "$M/lib/modules/$fake")" = build ] && [ ! -e "$M/var/lib/dkms/rdma-reset/$VER/$fake" ]
}

one_lane() {
	local lane=$1 b krel dist lower out n m
	lane_def "$lane" || die "no such lane $lane"
	[ "$SERIES" = 6.12 ] || die "$lane: the package is for the 6.12 lanes"
	b=$(lane_builddir "$TOP" "$lane")
	krel=$(sed -n 's/^KREL=//p' "$b/kversion.mk" 2>/dev/null) || true
	[ -n "$krel" ] || die "$lane is not built (make LANE=$lane)"
	# shellcheck disable=SC2153 # lanes.sh's lane_def sets DIST
	dist=$DIST
	lower=$("$TOP/scripts/suite-root.sh" "$lane" "$CACHE")
	lower=${lower:-/}
	# What an interrupted run left: its mounts first, then its files.
	W=$b/deb-test M=$W/root
	undo
	W=$b/deb-test M=$W/root
	mkdir -p "$W/upper" "$W/work" "$M"
	if ! mount -t overlay -o "lowerdir=$lower,upperdir=$W/upper,workdir=$W/work" overlay "$M"; then
		echo "SKIP deb-$lane: cannot mount an overlay of $lower here"
		undo
		return 0
	fi
	for m in proc sys dev dev/pts; do mount --bind "/$m" "$M/$m"; done
	printf '#!/bin/sh\nexit 101\n' >"$M/usr/sbin/policy-rc.d"
	chmod +x "$M/usr/sbin/policy-rc.d"

	# Debian's kernel as installed: its module tree, its headers.
	mkdir -p "$M/lib/modules"
	cp -a "$b/kernel/$krel/root/lib/modules/$krel" "$M/lib/modules/"
	mkdir -p "$M/tmp/deb"
	local p f debs=() debver
	debver=$(cat "$b/kernel/$krel/deb-version")
	while read -r p; do
		case "$p" in linux-headers-* | linux-kbuild-*)
			for f in "$CACHE/${p}_${debver//:/%3a}_"*.deb; do
				cp "$f" "$M/tmp/deb/"
				debs+=("/tmp/deb/${f##*/}")
			done
			;;
		esac
	done < <(lane_pkgs "$krel")
	cp "$DEB" "$M/tmp/deb/"
	in_root apt-get update -q >/dev/null
	# openssl: the package recommends it (DKMS makes its signing key).
	in_root apt-get install -q -y --no-install-recommends "${debs[@]}" openssl >"$W/headers.log" 2>&1 ||
		{ tail "$W/headers.log"; echo "FAIL deb-$lane: the kernel's headers do not install"; return 1; }
	in_root depmod "$krel"
	# The depmod state before the package, to compare after its removal.
	mkdir -p "$M/var/lib/rdma-reset-test"
	(cd "$M/lib/modules/$krel" && sha256sum modules.dep modules.alias modules.symbols modules.softdep) \
		>"$M/var/lib/rdma-reset-test/depmod.sha256"
	# A kernel the package does not support, with headers (a later ABI).
	fake=6.12.1+$dist-amd64
	mkdir -p "$M/lib/modules/$fake"
	ln -s "/usr/src/linux-headers-$krel" "$M/lib/modules/$fake/build"

	echo "  DEB     $lane: apt-get install ./$(basename "$DEB") (DKMS builds for $krel)"
	if ! in_root apt-get install -y --no-install-recommends "/tmp/deb/$(basename "$DEB")" >"$W/install.log" 2>&1; then
		tail -20 "$W/install.log"
		echo "FAIL deb-$lane: apt-get install failed"
		return 1
	fi
	out=$W/install.log
	n=$(ls "$M/lib/modules/$krel/updates/dkms" 2>/dev/null | wc -l)
	local want
	want=$(grep -c '^BUILT_MODULE_NAME' "$M/usr/src/rdma-reset-$VER/dkms.conf")
	[ "$n" -eq "$want" ] ||
		{ tail -20 "$out"; echo "FAIL deb-$lane: $n modules in updates/dkms, dkms.conf builds $want"; return 1; }
	grep -q "rdma-reset-dkms: not built for kernel $fake" "$out" ||
		{ tail -20 "$out"; echo "FAIL deb-$lane: no word about the unsupported kernel $fake"; return 1; }
	fake_untouched || { echo "FAIL deb-$lane: the install changed the unsupported kernel $fake"; return 1; }
	if in_root dkms install -m rdma-reset -v "$VER" -k "$fake" >"$W/fake.log" 2>&1; then
		echo "FAIL deb-$lane: dkms install for $fake succeeded"
		return 1
	fi
	grep -q "BUILD_EXCLUSIVE" "$W/fake.log" ||
		{ cat "$W/fake.log"; echo "FAIL deb-$lane: no BUILD_EXCLUSIVE message for $fake"; return 1; }
	fake_untouched || { echo "FAIL deb-$lane: dkms install changed the unsupported kernel $fake"; return 1; }
	echo "  DEB     $lane: $n modules built and installed; $fake refused: $(grep -m1 -o 'includes a BUILD_EXCLUSIVE directive[^.]*' "$W/fake.log")"
	rm -rf "${M:?}/lib/modules/$fake"
	rm -f "$M/usr/sbin/policy-rc.d"
	for m in dev/pts dev sys proc; do umount "$M/$m"; done

	# The admin's machine boots: the rest runs in a VM of its kernel.
	LANE=$([ "$lane" = bookworm-6.12 ] || echo "$lane") VM_ROOT=$M CASEDIR=$TOP/tests/deb \
		RR_DEB_VERSION=$VER "$TOP/tests/run.sh" || return 1
	undo
}

one_lane "$1"
