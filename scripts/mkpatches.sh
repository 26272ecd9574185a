#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkpatches.sh TOPDIR KERNELDIR OUT [KDIR]
#
# make patches: turn PATCHDIR/series (patches/, or patches-7.2/ for the
# sid-7.2 lane: the upstream series) and our new files into an
# upstream-style series, OUT/NNNN-*.patch (git format-patch, with a cover
# letter from PATCHDIR/cover-letter.txt):
#   1.-2. the tree scripts/series.sh builds (make series-tree): Debian's
#      linux-source subtrees committed as the base, then each patch of the
#      series committed with its own message and the new files listed
#      after it;
#   3. the series is formatted and applied again with `git am` to a fresh
#      copy of the base, which must give the same tree.
# With KDIR (make patches-bisect), every commit is also built against the
# kernel headers in KDIR: each patch must build on its own.  BUILD_ROOT: the
# root filesystem the lane builds in (scripts/suite-root.sh; empty: here).
set -euo pipefail

[ $# -ge 3 ] || { echo "usage: $0 TOPDIR KERNELDIR OUT [KDIR]" >&2; exit 2; }
TOP=$(realpath "$1") KERNELDIR=$(realpath "$2") OUT=$3 KDIR=${4:-}
PD=${PATCHDIR:-patches}
W=$OUT.work
DATE="2026-11-29 00:00:00 +0000"
export GIT_AUTHOR_DATE=$DATE GIT_COMMITTER_DATE=$DATE
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1

rm -rf "$W" "$OUT"
mkdir -p "$W" "$OUT"
# The tree make series-tree builds: the base and one commit per patch.
PATCHDIR=$PD SERIES_TREE=$W/tree "$TOP/scripts/series.sh" "$TOP" "$KERNELDIR" tree >/dev/null
cd "$W/tree"
n=$(git rev-list --count base..HEAD)
who=$(git log -1 --format='%an <%ae>' base)

git format-patch -q --cover-letter --thread -o "$OUT" base..HEAD
# The cover letter: subject and blurb from patches/cover-letter.txt.
cover=$(ls "$OUT"/0000-cover-letter.patch)
python3 - "$cover" "$TOP/$PD/cover-letter.txt" <<'EOF'
import sys
cover, text = sys.argv[1], open(sys.argv[2]).read().strip('\n').split('\n', 2)
s = open(cover).read()
s = s.replace('*** SUBJECT HERE ***', text[0]).replace('*** BLURB HERE ***', text[2])
open(cover, 'w').write(s)
EOF

# Who to send each patch to: the kernel's own get_maintainer.pl over the
# kernel's MAINTAINERS (no git history here: maintainers and lists only).
# Each patch gets a Cc: header per address (git send-email honours them),
# the cover letter the union of them all, so every list sees the series'
# design.
all=$(mktemp)
trap 'rm -f "$all"' EXIT
for p in "${OUT:?}"/0[0-9][0-9][0-9]-*.patch; do
	case "$p" in */0000-cover-letter.patch) continue ;; esac
	perl "$KERNELDIR/pristine/scripts/get_maintainer.pl" --no-tree --no-git \
		--no-git-fallback --no-fixes --norolestats \
		--mpath "$KERNELDIR/pristine/MAINTAINERS" "$p" | tee -a "$all" |
		python3 "$TOP/scripts/add-cc.py" "$p"
done
python3 "$TOP/scripts/add-cc.py" "$cover" <"$all"

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

# Each patch as it would be posted, new files included, through the
# checkpatch of the kernel the series is for.  No git history here, so a
# Fixes: id cannot be looked up (UNKNOWN_COMMIT_ID); every new file is
# under a directory MAINTAINERS already lists (drivers/infiniband/,
# include/rdma/, Documentation/infiniband/), which FILE_PATH_CHANGES, a
# reminder on any added file, does not look at.
bad=0
for p in "${patches[@]:1}"; do
	perl "$KERNELDIR/pristine/scripts/checkpatch.pl" --strict --no-tree -q \
		--ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES "$p" >"$W/checkpatch.out" 2>&1 ||
		{ bad=1; cat "$W/checkpatch.out"; }
done
[ $bad = 0 ] || { echo "mkpatches: checkpatch --strict complains (above)" >&2; exit 1; }
echo "  CHECKPATCH $n patches, --strict: clean"

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
	if ! "$TOP/scripts/in-root.sh" "${BUILD_ROOT:-}" "$TOP" \
		make -s -C "$KDIR" M="$B" NOSTDINC_FLAGS="-I$B/include" \
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
