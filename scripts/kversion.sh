#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Resolve the Debian kernel the module set is built for, in one place.
#
# Prints shell assignments:
#   KLANE=bookworm-6.12                   (the lane, scripts/lanes.sh)
#   DEB_VERSION=6.12.117-1~deb12u1        (Debian package version)
#   KREL=6.12.117+deb12-amd64             (kernel release, uname -r)
#   KSRC=archive|running                   (build against downloaded or installed headers)
#
# LANE=trixie-6.12 or sid-7.2 in the environment: the newest complete kernel
# of that suite (newest_complete; or DEB_VERSION, pinned), read through the project's private apt
# configuration (scripts/apt-suite.sh, lists under $CACHE/apt).
#
# Otherwise (LANE unset or bookworm-6.12), first match wins:
#   1. DEB_VERSION in the environment (pin a version the archive still offers);
#   1b. KVER in the environment (DKMS's $kernelver): that installed kernel,
#      built against its installed headers;
#   2. the running kernel, if it is a Debian 6.12 kernel with its headers
#      installed (the admin path: build for the machine you are on), unless
#      TARGET=archive; TARGET=running insists on it;
#   3. the newest linux-source-6.12 the archive offers now with its image,
#      headers and kbuild packages (newest_complete).
# The image, headers and kbuild packages must exist at exactly that version.
set -euo pipefail

die() { echo "kversion: $*" >&2; exit 1; }

# shellcheck source=scripts/lanes.sh
. "$(dirname "$0")/lanes.sh"
CACHE=${CACHE:-/var/cache/rdma-reset}
FLAVOUR=${FLAVOUR:-amd64}
# shellcheck disable=SC2153 # LANES is lanes.sh's
lane_def "${LANE:-bookworm-6.12}" || die "LANE=$LANE: no such lane (lanes: $LANES)"

# has_version PKG VERSION: on the lane's suite.
has_version() {
	lane_apt "$CACHE" madison "$1" 2>/dev/null | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' |
		grep -qxF "$2"
}

# krel_of VERSION: its kernel release, 6.12.117-1~deb12u1 -> 6.12.117+deb12-amd64
# (a lane's DIST unless the version names one: a backport's ~debNNuM).
krel_of() {
	local dist
	dist=$(printf '%s\n' "$1" | sed -n 's/.*~\(deb[0-9]*\)u[0-9]*$/\1/p')
	echo "${1%%-*}+${dist:-$DIST}-$FLAVOUR"
}

# complete VERSION: every package of the lane is in the archive at VERSION.
complete() {
	local p
	for p in $(lane_pkgs "$(krel_of "$1")"); do
		has_version "$p" "$1" || { MISSING=$p; return 1; }
	done
}

# newest_complete: the newest linux-source-SERIES version of the suite whose
# image, headers and kbuild packages are all there too.  A new kernel's
# packages reach the archive one by one (bookworm's signed image comes
# after the rest): until the last one is there, the one before it is used,
# with a note.
newest_complete() {
	local v
	for v in $(lane_apt "$CACHE" madison "linux-source-$SERIES" 2>/dev/null |
		   awk -F'|' '{ gsub(/ /, "", $2); print $2 }' | sort -urV); do
		case "$v" in "$SERIES".*-*) ;; *) continue ;; esac
		if complete "$v"; then
			echo "$v"
			return 0
		fi
		echo "kversion: $v: the archive has no $MISSING at that version (yet); trying the one before" >&2
	done
	return 1
}

if [ -n "${LANE:-}" ] && [ "$LANE" != bookworm-6.12 ]; then
	[ -z "${KVER:-}" ] && [ "${TARGET:-archive}" = archive ] ||
		die "LANE=$LANE builds against the archive's packages only (no KVER or TARGET=running)"
	if [ -z "${DEB_VERSION:-}" ]; then
		DEB_VERSION=$(newest_complete) ||
			die "LANE=$LANE: $SUITE offers no linux-source-$SERIES with its image, headers and kbuild"
	fi
	case "$DEB_VERSION" in
	"$SERIES".*-*) ;;
	*) die "LANE=$LANE: '$DEB_VERSION' is not a Debian $SERIES package version" ;;
	esac
	# shellcheck disable=SC2153 # DIST is lanes.sh's (lane_def)
	KREL="${DEB_VERSION%%-*}+$DIST-$FLAVOUR"
	for p in $(lane_pkgs "$KREL"); do
		has_version "$p" "$DEB_VERSION" ||
			die "LANE=$LANE: $SUITE has no $p at version $DEB_VERSION"
	done
	echo "KLANE=$LANE"
	echo "DEB_VERSION=$DEB_VERSION"
	echo "KREL=$KREL"
	echo "KSRC=archive"
	exit 0
fi


if [ -n "${DEB_VERSION:-}" ]; then
	:
elif [ -n "${KVER:-}" ]; then
	case "$KVER" in
	6.12.*+deb*-"$FLAVOUR") ;;
	*) die "KVER=$KVER is not a Debian 6.12 $FLAVOUR kernel; refusing" ;;
	esac
	[ -e "/lib/modules/$KVER/build/Module.symvers" ] ||
		die "KVER=$KVER: no headers in /lib/modules/$KVER/build (apt-get install linux-headers-$KVER)"
	KSRC=running
	DEB_VERSION=$(dpkg-query -W -f '${Version}' "linux-image-$KVER" 2>/dev/null ||
		dpkg-query -W -f '${Version}' "linux-image-$KVER-unsigned" 2>/dev/null) ||
		die "KVER=$KVER: no installed linux-image package"
elif [ "${TARGET:-}" = running ] ||
     { [ "${TARGET:-}" != archive ] && [ -e "/lib/modules/$(uname -r)/build/Module.symvers" ] &&
       [[ "$(uname -r)" == 6.12.*+deb*-"$FLAVOUR" ]]; }; then
	rel=$(uname -r)
	case "$rel" in
	6.12.*+deb*-"$FLAVOUR") ;;
	*) die "running kernel $rel is not a Debian 6.12 $FLAVOUR kernel; refusing" ;;
	esac
	KSRC=running
	DEB_VERSION=$(dpkg-query -W -f '${Version}' "linux-image-$rel" 2>/dev/null ||
		dpkg-query -W -f '${Version}' "linux-image-$rel-unsigned" 2>/dev/null) ||
		die "no installed linux-image package for running kernel $rel"
else
	DEB_VERSION=$(newest_complete) ||
		die "the archive offers no linux-source-6.12 with its image, headers and kbuild (run apt-get update; is bookworm-security in sources.list?)"
fi

case "$DEB_VERSION" in
6.12.*-*) ;;
*) die "'$DEB_VERSION' is not a Debian 6.12 package version" ;;
esac

# 6.12.117-1~deb12u1 -> 6.12.117+deb12 (Debian's ABI name)
upstream=${DEB_VERSION%%-*}
dist=$(printf '%s\n' "$DEB_VERSION" | sed -n 's/.*~\(deb[0-9]*\)u[0-9]*$/\1/p')
[ -n "$dist" ] || dist=deb$(cut -d. -f1 /etc/debian_version)
KREL="$upstream+$dist-$FLAVOUR"

for p in linux-source-6.12 "linux-image-$KREL" "linux-headers-$KREL" \
	 "linux-headers-$upstream+$dist-common" "linux-kbuild-$upstream+$dist"; do
	has_version "$p" "$DEB_VERSION" ||
		die "the archive has no $p at version $DEB_VERSION"
done

case "$dist" in
deb12) lane=bookworm-6.12 ;;
deb13) lane=trixie-6.12 ;;
*) die "$KREL: no lane for ABI name +$dist (lanes: $LANES)" ;;
esac
[ -z "${LANE:-}" ] || [ "$LANE" = "$lane" ] ||
	die "LANE=$LANE, but the kernel resolved ($KREL) is of lane $lane (TARGET=archive?)"

echo "KLANE=$lane"
echo "DEB_VERSION=$DEB_VERSION"
echo "KREL=$KREL"
echo "KSRC=${KSRC:-archive}"
