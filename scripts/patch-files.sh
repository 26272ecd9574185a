#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# patch-files.sh keep|drop FILE... <PATCH >PATCH
#
# Filter a git-style patch (its "diff --git a/F b/F" sections) by file:
# keep prints only the sections of FILE..., drop all but them.  The text
# before the first section (the message) is kept by drop, not by keep.
#
# A patch of the series may change one of our new files that an earlier
# patch added (patches/series lists each new file after the patch that
# adds it).  The module build lays our files over the patched tree in
# their final form, so it drops those sections (scripts/prepare-src.sh);
# scripts/series.sh reverts them from the final form to rebuild the
# version each commit of the series has.
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 keep|drop FILE... <PATCH" >&2; exit 2; }
mode=$1
shift
case "$mode" in keep | drop) ;; *) echo "$0: keep or drop, not $mode" >&2; exit 2 ;; esac
awk -v mode="$mode" -v files="$*" '
BEGIN { n = split(files, f, " "); for (i = 1; i <= n; i++) want[f[i]] = 1; in_sel = 0; seen = 0 }
/^diff --git a\// {
	p = $3
	sub(/^a\//, "", p)
	in_sel = (p in want)
	seen = 1
}
{
	if (!seen) {
		if (mode == "drop")
			print
	} else if ((mode == "keep") == in_sel) {
		print
	}
}'
