#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# apt-suite.sh CACHE SUITE COMMAND [ARGS...]
#
# Run apt against one other Debian suite (trixie, sid) through an apt
# configuration private to the project: its own sources list, package
# lists and archive cache under CACHE/apt/SUITE.  The machine's
# sources.list, lists and preferences are neither read nor changed.
#
#   update                  fetch SUITE's package lists (and its -security
#                           and -updates suites where Debian has them)
#   policy|madison PKG...   apt-cache on those lists only
#   download PKG=VER...     apt-get download into the current directory
#   sources                 print the path of the suite's sources list
#
# The lists are fetched again when they are older than a day (or with
# COMMAND update).  The mirror is the one of the machine's own Debian
# sources (deb.debian.org if none is found); Debian's archive keyring
# verifies them, as for the machine's own suites.
set -euo pipefail

die() { echo "apt-suite: $*" >&2; exit 1; }

[ $# -ge 3 ] || die "usage: $0 CACHE SUITE COMMAND [ARGS...]"
CACHE=$1 SUITE=$2 CMD=$3
shift 3

case "$SUITE" in
trixie) suites="trixie trixie-updates" sec="trixie-security" ;;
sid) suites="sid" sec="" ;;
*) die "unknown suite '$SUITE' (trixie or sid)" ;;
esac

D=$CACHE/apt/$SUITE
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$KEYRING" ] || die "no $KEYRING (apt-get install debian-archive-keyring)"

# The machine's Debian mirror, from its deb822 or one-line sources.
mirror() {
	local u
	u=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' |
		grep -E '/debian/?$' | head -1) || true
	[ -n "$u" ] || u=$(awk '$1 == "deb" && $2 !~ /^\[/ { print $2 }' /etc/apt/sources.list 2>/dev/null |
		grep -E '/debian/?$' | head -1) || true
	echo "${u:-http://deb.debian.org/debian}"
}

mkdir -p "$D/lists/partial" "$D/cache/archives/partial" "$D/etc/preferences.d"
if [ ! -s "$D/etc/sources.list" ]; then
	m=$(mirror)
	{
		for s in $suites; do
			echo "deb [signed-by=$KEYRING] $m $s main"
		done
		[ -z "$sec" ] || echo "deb [signed-by=$KEYRING] ${m%/debian*}/debian-security $sec main"
	} >"$D/etc/sources.list.tmp"
	mv "$D/etc/sources.list.tmp" "$D/etc/sources.list"
fi

# Every option that makes apt look at the machine's own state points here.
opts=(-o "Dir::Etc::sourcelist=$D/etc/sources.list" -o "Dir::Etc::sourceparts=-"
      -o "Dir::Etc::preferences=$D/etc/preferences" -o "Dir::Etc::preferencesparts=$D/etc/preferences.d"
      -o "Dir::State::Lists=$D/lists" -o "Dir::State::status=/dev/null"
      -o "Dir::Cache=$D/cache" -o "Debug::NoLocking=1"
      -o "APT::Sandbox::User=root" -o "Acquire::Languages=none"
      -o "Acquire::Check-Valid-Until=false")	# as in suite-root.sh

update() {
	echo "  APT     $SUITE: $suites${sec:+ $sec} from $(head -1 "$D/etc/sources.list" | awk '{ print $3 }')"
	apt-get -q -q "${opts[@]}" update || die "cannot fetch $SUITE's package lists"
	touch "$D/lists/.updated"
}

case "$CMD" in
sources)
	echo "$D/etc/sources.list"
	;;
update)
	update
	;;
policy | madison | show)
	[ -n "$(find "$D/lists/.updated" -mmin -1440 2>/dev/null)" ] || update
	apt-cache "${opts[@]}" "$CMD" "$@"
	;;
download)
	[ -n "$(find "$D/lists/.updated" -mmin -1440 2>/dev/null)" ] || update
	apt-get -q "${opts[@]}" download "$@"
	;;
*)
	die "unknown command '$CMD'"
	;;
esac
