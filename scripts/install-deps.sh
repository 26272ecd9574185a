#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages the project needs, from Debian's archive only.
# Does nothing (and needs no root) when everything is already there.
set -euo pipefail

# Building: Debian's 6.12 headers use gcc-12 and need pahole for BTF;
# sparse and shellcheck for make lint; mmdebstrap for the other lanes'
# suite roots (scripts/suite-root.sh); libc6-dev for the static probe of
# case 009 (tests/vm/cx16-flags.c); debhelper, dh-dkms and lintian for
# make deb (the DKMS package).
BUILD=(gcc-12 make bc bison flex libelf-dev libssl-dev dwarves kmod patch
       rsync xz-utils cpio sparse shellcheck mmdebstrap libc6-dev
       debhelper dh-dkms lintian)
# VMs: QEMU with TCG, a static busybox for the initramfs, and the userspace
# the guest runs (GUEST_PKGS: the default lane's guest root is this
# machine's root, read-only; another lane's is its suite's, suite-root.sh).
# shellcheck source=scripts/lanes.sh
. "$(dirname "$0")/lanes.sh"
# shellcheck disable=SC2206 # GUEST_PKGS is a word list
VM=(qemu-system-x86 busybox-static $GUEST_PKGS)

missing=()
for p in "${BUILD[@]}" "${VM[@]}"; do
	dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages: ${missing[*]} (run as root, or apt-get install them)" >&2
	exit 1
fi
echo "  APT     ${missing[*]}"
apt-get update -q >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -q -y --no-install-recommends "${missing[@]}" >/dev/null
# open-iscsi's package starts iscsid on the host; the VM starts its own.
