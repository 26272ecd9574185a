#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkpatches.sh TOPDIR KERNELDIR OUT [KDIR]
#
# make patches: turn patches/series and our new files into an upstream-style
# series, OUT/NNNN-*.patch (git format-patch, with a cover letter from
# patches/cover-letter.txt):
#   1. a git tree of Debian's linux-source subtrees is committed as the base;
#   2. each patch of the series is applied and committed with its own
#      message, together with the new files listed after it in the series;
#   3. the series is formatted and applied again with `git am` to a fresh
#      copy of the base, which must give the same tree.
# With KDIR (make patches-bisect), every commit is also built against the
# kernel headers in KDIR: each patch must build on its own.
set -euo pipefail

[ $# -ge 3 ] || { echo "usage: $0 TOPDIR KERNELDIR OUT [KDIR]" >&2; exit 2; }
TOP=$(realpath "$1") KERNELDIR=$(realpath "$2") OUT=$3 KDIR=${4:-}
W=$TOP/build/patches.work
DATE="2026-11-29 00:00:00 +0000"
export GIT_AUTHOR_DATE=$DATE GIT_COMMITTER_DATE=$DATE
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1

rm -rf "$W" "$OUT"
mkdir -p "$W/tree" "$OUT"
cp -a "$KERNELDIR/pristine/." "$W/tree/"
rm -f "$W/tree/.done"
rm -rf "$W/tree/scripts"	# checkpatch and friends, not part of the series
cd "$W/tree"
git init -q -b main
# The series is sent by the authors of its patches (the From: of the first).
who=$(awk '/^From: /{ sub(/^From: /, ""); print; exit }' \
	"$TOP/patches/$(awk '!/^#/ && NF { print $1; exit }' "$TOP/patches/series")")
git config user.name "${who% <*}"
email=${who#*<}
git config user.email "${email%%>*}"
git add -A
git commit -q -m "Debian linux-source-6.12 $(cat "$KERNELDIR/deb-version"): RDMA subtrees"
git tag base

n=0
while read -r p files; do
	case "$p" in ''|'#'*) continue ;; esac
	hdr=$TOP/patches/$p
	author=$(sed -n 's/^From: //p;/^$/q' "$hdr" | head -1)
	{
		sed -n 's/^Subject: \[PATCH\] //p;/^$/q' "$hdr" | head -1
		echo
		awk 'body && /^---$/ { exit } body { print } /^$/ && !body { body = 1 }' "$hdr"
	} >"$W/msg"
	patch -p1 -s -N -F0 --no-backup-if-mismatch -i "$hdr"
	for f in $files; do
		mkdir -p "$(dirname "$f")"
		cp "$TOP/$f" "$f"
	done
	git add -A
	git commit -q --author="$author" -F "$W/msg"
	n=$((n + 1))
done <"$TOP/patches/series"

git format-patch -q --cover-letter --thread -o "$OUT" base..HEAD
# The cover letter: subject and blurb from patches/cover-letter.txt.
cover=$(ls "$OUT"/0000-cover-letter.patch)
python3 - "$cover" "$TOP/patches/cover-letter.txt" <<'EOF'
import sys
cover, text = sys.argv[1], open(sys.argv[2]).read().strip('\n').split('\n', 2)
s = open(cover).read()
s = s.replace('*** SUBJECT HERE ***', text[0]).replace('*** BLURB HERE ***', text[2])
open(cover, 'w').write(s)
EOF

# The series must apply with git am to a fresh copy of the base, and give
# the same tree.
final=$(git rev-parse HEAD)
rm -rf "$W/check"
git clone -q "$W/tree" "$W/check"
cd "$W/check"
git config user.name "${who% <*}"
email=${who#*<}
git config user.email "${email%%>*}"
git checkout -q -b check base
patches=("$OUT"/0[0-9][0-9][0-9]-*.patch)
git am -q "${patches[@]:1}"	# [0] is 0000-cover-letter.patch
git diff --quiet HEAD "$final" ||
	{ echo "mkpatches: git am of the series does not give the same tree" >&2; exit 1; }
cd "$W/tree"
echo "  PATCHES $n patches + cover letter in $OUT (git am: applies cleanly)"

[ -n "$KDIR" ] || exit 0

# Bisectability: build every commit, incrementally, in one build tree.
B=$W/build
mkdir -p "$B"
grep -v 'tests/modules' "$TOP/Kbuild" >"$W/Kbuild"
for c in $(git rev-list --reverse base..HEAD); do
	git checkout -q "$c"
	rsync -rlc --delete --exclude='.git' --exclude='*.o' --exclude='*.ko' \
		--exclude='.*.cmd' --exclude='*.mod' --exclude='*.mod.c' \
		--exclude='modules.order' --exclude='Module.symvers' --exclude='*.a' \
		./ "$B/"
	cp "$W/Kbuild" "$B/Kbuild"
	if ! make -s -C "$KDIR" M="$B" NOSTDINC_FLAGS="-I$B/include" \
		-j"${JOBS:-$(nproc)}" modules >"$W/build.log" 2>&1; then
		cat "$W/build.log"
		echo "mkpatches: does not build: $(git log -1 --format=%s "$c")" >&2
		exit 1
	fi
	if grep -q 'warning:' "$W/build.log"; then
		grep 'warning:' "$W/build.log"
		echo "mkpatches: warnings at: $(git log -1 --format=%s "$c")" >&2
		exit 1
	fi
	echo "  BUILD   $(git log -1 --format=%s "$c")"
done
git checkout -q main
echo "  PATCHES every commit builds on its own"
