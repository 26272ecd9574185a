# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2034 # LANES, SUITE, SERIES, DIST are for the scripts that source this
#
# The kernel lanes, in one place (sourced by kversion.sh and fetch-kernel.sh).
# A lane is one Debian kernel and the suite it comes from:
#
#   lane            suite     series  ABI name   image packages
#   bookworm-6.12   bookworm  6.12    +deb12     linux-image-KREL
#   trixie-6.12     trixie    6.12    +deb13     linux-image-KREL-unsigned
#   sid-7.2         sid       7.2     +deb14     linux-binary-KREL,
#                                                linux-modules-KREL,
#                                                linux-base-KREL
#
# bookworm is the machine's own suite (its apt sources); the others are read
# through scripts/apt-suite.sh's private apt configuration.  Versions are
# never written here: kversion.sh resolves them from the suite.

LANES="bookworm-6.12 trixie-6.12 sid-7.2"
LANES_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# lane_def LANE: set SUITE, SERIES and DIST for LANE; 1 if LANE is unknown.
lane_def() {
	case "$1" in
	bookworm-6.12) SUITE=bookworm SERIES=6.12 DIST=deb12 ;;
	trixie-6.12) SUITE=trixie SERIES=6.12 DIST=deb13 ;;
	sid-7.2) SUITE=sid SERIES=7.2 DIST=deb14 ;;
	*) return 1 ;;
	esac
}

# lane_builddir TOP LANE: where make builds LANE (the Makefile's B): TOP/build
# for the default lane (LANE empty or bookworm-6.12), TOP/build/lane-LANE
# for another; 1 if LANE is unknown.
lane_builddir() {
	case "$2" in
	"" | bookworm-6.12) echo "$1/build" ;;
	*) lane_def "$2" && echo "$1/build/lane-$2" ;;
	esac
}

# lane_pkgs KREL: the packages of the lane lane_def set, for kernel KREL:
# the source first, then what fetch-kernel.sh unpacks (image, headers,
# kbuild).
lane_pkgs() {
	local krel=$1 base=${1%-*}
	echo "linux-source-$SERIES"
	case "$SUITE" in
	bookworm) echo "linux-image-$krel" ;;
	trixie) echo "linux-image-$krel-unsigned" ;;
	sid) echo "linux-binary-$krel linux-modules-$krel linux-base-$krel" | tr ' ' '\n' ;;
	esac
	echo "linux-headers-$krel"
	echo "linux-headers-$base-common"
	echo "linux-kbuild-$base"
}

# lane_apt CACHE COMMAND ARGS...: apt-cache/apt-get on the lane's suite.
lane_apt() {
	local cache=$1 cmd=$2
	shift 2
	if [ "$SUITE" = bookworm ]; then
		case "$cmd" in
		download) apt-get -q -o APT::Sandbox::User=root download "$@" ;;
		*) apt-cache "$cmd" "$@" ;;
		esac
	else
		"$LANES_DIR/apt-suite.sh" "$cache" "$SUITE" "$cmd" "$@"
	fi
}

# The userspace the test VMs run (tests/vm/init): every lane's guest has
# these packages of its own suite.  The default lane's guest root is this
# machine's root (install-deps.sh installs them here); another lane's is
# its suite's root (suite-root.sh), so a trixie VM is a Debian 13 system
# with trixie's rdma-core, nvme-cli, open-iscsi and targetcli-fb.
GUEST_PKGS="rdma-core ibverbs-providers ibverbs-utils rdmacm-utils iproute2 iputils-ping
	nvme-cli fio open-iscsi srptools targetcli-fb procps util-linux mount kmod udev bc mawk hostname dbus
	nfs-kernel-server nfs-common"
# The commands the cases run that these packages must provide (checked
# when a suite root is made).
GUEST_CMDS="bash mount awk bc dmesg fio hostname ibv_devinfo ibv_rc_pingpong ip iscsiadm iscsid
	modinfo modprobe nvme ping rdma rping setsid tc targetcli timeout udevadm dbus-daemon
	rpc.nfsd rpc.mountd exportfs mount.nfs"
