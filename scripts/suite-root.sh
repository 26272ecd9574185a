#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# suite-root.sh LANE CACHE
#
# Print the path of a root filesystem of LANE's Debian suite, made with
# mmdebstrap (Debian's tool for a system of another suite) on first use and
# cached as CACHE/suites/SUITE/root.  It serves the lane twice:
#  - the build: a lane whose kernel's build tools cannot run on this
#    machine builds in it (trixie's and sid's linux-kbuild need glibc 2.38,
#    bookworm has 2.36), so it holds the suite's compiler for the lane's
#    kernel and the packages kbuild runs;
#  - the tests: it is the root of the lane's VMs (tests/run.sh), so it
#    holds the suite's userspace the cases run (GUEST_PKGS, lanes.sh).
# The machine's apt sources are not used (the suite's own, from the mirror
# apt-suite.sh uses).
#
# The root is made again when its package list changes (a stamp holds the
# list).  bookworm, or the machine's own suite, needs none: nothing is
# printed.
set -euo pipefail

die() { echo "suite-root: $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: $0 LANE CACHE"
LANE=$1 CACHE=$2
# shellcheck source=scripts/lanes.sh
. "$(dirname "$0")/lanes.sh"
# shellcheck disable=SC2153 # LANES is lanes.sh's
lane_def "$LANE" || die "no such lane '$LANE' (lanes: $LANES)"
# The machine's own suite needs no other root.
[ "$SUITE" != bookworm ] || exit 0
[ "$(. /etc/os-release && echo "${VERSION_CODENAME:-}")" != "$SUITE" ] || exit 0

# What kbuild needs for an external module build against Debian's headers
# of that suite (the compiler is the one the headers package depends on).
case "$SUITE" in
trixie) cc=gcc-14 ;;
sid) cc=gcc-16 ;;
esac
pkgs="$cc make bc bison flex libelf-dev libssl-dev dwarves kmod patch rsync xz-utils cpio"
# and what the lane's VMs run, on one line (GUEST_PKGS is lanes.sh's).
# shellcheck disable=SC2086,SC2116,SC2153
pkgs="$pkgs $(echo $GUEST_PKGS)"

D=$CACHE/suites/$SUITE
R=$D/root
want="$SUITE: $pkgs"
if [ -f "$D/stamp" ] && [ "$(cat "$D/stamp")" = "$want" ] && [ -x "$R/usr/bin/make" ]; then
	echo "$R"
	exit 0
fi
command -v mmdebstrap >/dev/null || die "no mmdebstrap (make deps)"
[ "$(id -u)" = 0 ] || die "making the $SUITE root needs root"

list=$("$LANES_DIR/apt-suite.sh" "$CACHE" "$SUITE" sources)
mirror=$(head -1 "$list" | awk '{ print $3 }')
mapfile -t srcs <"$list"
echo "  ROOT    $SUITE (mmdebstrap from $mirror): $pkgs" >&2
rm -rf "$D/root.tmp"
mkdir -p "$D"
# Valid-Until is not checked: sid's Release file is refreshed every few
# hours and a mirror that lags (or a snapshot) serves an expired one, which
# mmdebstrap's apt-get update --error-on=any refuses; signatures are checked.
mmdebstrap --quiet --mode=root --variant=apt --components=main \
	--aptopt='Acquire::Check-Valid-Until "false"' \
	--include="${pkgs// /,}" --skip=cleanup/apt/lists \
	"$SUITE" "$D/root.tmp" "${srcs[@]}" >&2 ||
	die "mmdebstrap of $SUITE failed"
[ -x "$D/root.tmp/usr/bin/make" ] || die "the $SUITE root has no make"
for c in $GUEST_CMDS; do
	chroot "$D/root.tmp" sh -c "command -v $c" >/dev/null ||
		die "the $SUITE root has no $c (GUEST_PKGS in lanes.sh)"
done
rm -rf "$R"
mv "$D/root.tmp" "$R"
echo "$want" >"$D/stamp"
echo "$R"
