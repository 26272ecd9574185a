#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# series.sh TOPDIR KERNELDIR tree|export
#
# Edit the patch series as git commits (make series-tree, make series-export):
#
#   tree    build/series-tree: a git tree of Debian's pristine linux-source
#           subtrees (tag "base") and one commit per patch of patches/series,
#           with the new files listed after the patch in that commit.  Edit it
#           as any kernel branch: commit --fixup and rebase -i, reword, split,
#           add commits.  Refuses to replace a tree with work not exported.
#   export  write the tree back: patches/NNNN-<subject>.patch for every commit
#           in base..HEAD (numbered by position, named as git format-patch
#           names them), patches/series, and every new file at its path in
#           the project.  A file the base does not have is a new file (ours):
#           it is copied in its final form, not diffed, and listed after the
#           patch that adds it; a later commit that changes it carries its
#           diff, which `tree` reverts to rebuild the earlier versions.
#
# The tree's HEAD and the project's patches at the last sync are recorded
# (build/series-tree/.git/exported, patches.sum): `tree` refuses to drop
# commits not exported, `export` refuses to overwrite patches/ edited in
# the project meanwhile, and a new file is written back only if the tree
# changed it (a project-side edit of one is kept; an edit on both sides
# is refused).
set -euo pipefail

usage() { echo "usage: $0 TOPDIR KERNELDIR tree|export" >&2; exit 2; }
[ $# -eq 3 ] || usage
TOP=$(realpath "$1") KERNELDIR=$(realpath "$2") CMD=$3
T=${SERIES_TREE:-$TOP/build/series-tree}	# mkpatches.sh builds one elsewhere
PD=${PATCHDIR:-patches}		# the series' directory in the project
P=$TOP/$PD
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_DATE="2026-11-29 00:00:00 +0000" GIT_COMMITTER_DATE="2026-11-29 00:00:00 +0000"
die() { echo "series: $*" >&2; exit 1; }

# entries: "PATCH FILE..." lines of patches/series.
entries() { grep -v '^#' "$P/series" | awk 'NF'; }

# mark: the tree's HEAD and the project's patches, as of now, in sync.
mark() {
	git -C "$T" rev-parse HEAD >"$T/.git/exported"
	(cd "$TOP" && md5sum "$PD/series" "$PD"/[0-9][0-9][0-9][0-9]-*.patch) >"$T/.git/patches.sum"
}

mktree() {
	local p files f author who
	if [ -d "$T/.git" ]; then
		[ -z "$(git -C "$T" status --porcelain)" ] ||
			die "$T has uncommitted changes: commit and export them, or remove the tree"
		[ "$(git -C "$T" rev-parse HEAD)" = "$(cat "$T/.git/exported" 2>/dev/null)" ] ||
			die "$T has commits not exported: make series-export, or remove the tree"
	fi
	[ -d "$KERNELDIR/pristine" ] || die "no pristine tree in $KERNELDIR (run make)"
	rm -rf "$T"
	mkdir -p "$T"
	cp -a "$KERNELDIR/pristine/." "$T/"
	rm -f "$T/.done"
	rm -rf "$T/scripts"	# checkpatch and friends, not part of the series
	cd "$T"
	git init -q -b main
	who=$(sed -n 's/^From: //p;/^$/q' "$P/$(entries | awk '{ print $1; exit }')" | head -1)
	git config user.name "${who% <*}"
	who=${who#* <}
	git config user.email "${who%>}"
	git add -A
	git commit -q -m "Debian linux-source $(cat "$KERNELDIR/deb-version"): RDMA subtrees"
	git tag base
	# Each new file as the commit that adds it has it: its final form with
	# the later patches' sections on it reverted, the last one first.
	local v=$T/.git/new-files l later
	mkdir -p "$v"
	while read -r p files; do
		for f in $files; do
			mkdir -p "$v/$(dirname "$f")"
			cp "$TOP/$f" "$v/$f"
			mapfile -t later < <(entries | awk -v p="$p" 'seen { print $1 } $1 == p { seen = 1 }' | tac)
			for l in "${later[@]}"; do
				"$TOP/scripts/patch-files.sh" keep "$f" <"$P/$l" >"$v/.section"
				[ -s "$v/.section" ] || continue
				patch -d "$v" -p1 -s -R -F0 --no-backup-if-mismatch -i "$v/.section" ||
					die "$l: its change to $f does not revert from $f"
			done
		done
	done < <(entries)
	while read -r p files; do
		author=$(sed -n 's/^From: //p;/^$/q' "$P/$p" | head -1)
		{
			sed -n 's/^Subject: \[PATCH[^]]*\] //p;/^$/q' "$P/$p" | head -1
			echo
			awk 'body && /^---$/ { exit } body { print } /^$/ && !body { body = 1 }' "$P/$p"
		} >"$T/.git/msg"
		patch -p1 -s -N -F0 --no-backup-if-mismatch -i "$P/$p" ||
			die "$p does not apply"
		for f in $files; do
			mkdir -p "$(dirname "$f")"
			cp "$v/$f" "$f"
		done
		git add -A
		git commit -q --author="$author" -F "$T/.git/msg"
	done < <(entries)
	rm -rf "$v"
	mark
	echo "  TREE    $T: $(git rev-list --count base..HEAD) commits on tag base"
}

export_tree() {
	local c n=0 name names subject old f st series last
	[ -d "$T/.git" ] || die "no tree at $T (make series-tree)"
	cd "$T"
	[ -z "$(git status --porcelain)" ] || die "$T has uncommitted changes"
	# Edits made to patches/ since the tree was made would be lost.
	# (A series exported for the first time has nothing to lose.)
	[ ! -d "$P" ] || (cd "$TOP" && md5sum --quiet -c "$T/.git/patches.sum" >/dev/null 2>&1) ||
		die "$PD/ changed in the project since make series-tree: bring the change into $T or remove it"
	last=$(cat "$T/.git/exported" 2>/dev/null || echo base)
	OUT=$(mktemp -d)
	trap 'rm -rf "$OUT"' EXIT
	local out=$OUT
	series=$out/series
	grep '^#' "$P/series" 2>/dev/null >"$series" || grep '^#' "$TOP/patches/series" >"$series"
	git format-patch -q --filename-max-length=200 -o "$out/names" base..HEAD
	for c in $(git rev-list --reverse base..HEAD); do
		n=$((n + 1))
		names=("$out"/names/*.patch)
		name=${names[n - 1]##*/}
		name=$(printf '%04d%s' "$n" "${name#[0-9][0-9][0-9][0-9]}")
		subject=$(git log -1 --format=%s "$c")
		while read -r st f; do
			git cat-file -e "base:$f" 2>/dev/null ||
				case "$st" in
				A | M) ;;
				*) die "$subject: $st $f: a new file can only be added or changed" ;;
				esac
		done < <(git diff --no-renames --name-status "$c^" "$c")
		{
			echo "From: $(git log -1 --format='%an <%ae>' "$c")"
			echo "Subject: [PATCH] $subject"
			echo
			git log -1 --format=%b "$c" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
			echo "---"
			# The diff of the files the commit changes, not of the new
			# files it adds: those are copied, and one a later commit
			# changes gets that commit's diff (scripts/patch-files.sh).
			mapfile -t old < <(git diff --no-renames --name-status "$c^" "$c" |
				awk '$1 != "A" { print $2 }')
			[ ${#old[@]} -gt 0 ] || die "$subject: changes no file, only adds new ones"
			git diff --no-renames "$c^" "$c" -- "${old[@]}" | grep -v '^index '
		} >"$out/$name"
		# A new file belongs to the patch that adds it (in its final form:
		# the tree rebuilds the earlier ones by reverting later diffs).
		echo "$name $(git diff --no-renames --name-status --diff-filter=A "$c^" "$c" |
			awk '{ print $2 }' | while read -r f; do
				git cat-file -e "base:$f" 2>/dev/null || echo "$f"; done | tr '\n' ' ')" |
			sed 's/ *$//' >>"$series"
	done
	# A new file the tree changed since the last export is written back
	# in its final form, unless the project changed it too; one the tree
	# did not change keeps the project's copy (edited there meanwhile).
	while read -r f; do
		git cat-file -e "base:$f" 2>/dev/null && continue
		if [ "$(git show "HEAD:$f" | md5sum)" = "$(git show "$last:$f" 2>/dev/null | md5sum)" ]; then
			continue
		fi
		if [ -f "$TOP/$f" ] &&
		   [ "$(md5sum <"$TOP/$f")" != "$(git show "$last:$f" 2>/dev/null | md5sum)" ] &&
		   [ "$(md5sum <"$TOP/$f")" != "$(git show "HEAD:$f" | md5sum)" ]; then
			die "$f changed both in the project and in $T"
		fi
		mkdir -p "$(dirname "$TOP/$f")"
		git show "HEAD:$f" >"$TOP/$f"
	done < <(git diff --no-renames --name-only base HEAD)
	mkdir -p "$P"
	rm -f "$P"/[0-9][0-9][0-9][0-9]-*.patch
	cp "$out"/[0-9][0-9][0-9][0-9]-*.patch "$P/"
	cp "$series" "$P/series"
	mark
	echo "  EXPORT  $n patches and their new files to $P"
}

case "$CMD" in
tree) mktree ;;
export) export_tree ;;
*) usage ;;
esac
