#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh TOPDIR KERNELDIR KDIR SRC
#
# The lint lanes (make lint):
#   1. checkpatch.pl --strict, from Debian's linux-source, on every file we
#      add (drivers/, include/, tests/modules/) and every patch in
#      patches/series;
#   2. kernel-doc: every function we export has a kernel-doc comment, and
#      scripts/kernel-doc finds nothing wrong in our files;
#   3. sparse (C=2) and W=1 on every C file we add or patch, compared with
#      the same files as Debian ships them: any warning that is not in that
#      baseline fails (upstream's own warnings, e.g. sparse's context
#      imbalance reports in cma.c, are in the baseline);
#   4. shellcheck (Debian's package) on every shell script of the project,
#      at its default severity; .shellcheckrc holds the project-wide
#      exceptions and why, a directive next to the line any other one.
# Both trees for 3 are built under build/lint, apart from the module build,
# so the W=1 flags never leak into the modules that are installed.
set -euo pipefail

[ $# -eq 4 ] || { echo "usage: $0 TOPDIR KERNELDIR KDIR SRC" >&2; exit 2; }
TOP=$(realpath "$1") KERNELDIR=$(realpath "$2") KDIR=$(realpath "$3") SRC=$(realpath "$4")
PRISTINE=$KERNELDIR/pristine
CHECKPATCH=$PRISTINE/scripts/checkpatch.pl
KERNELDOC=$PRISTINE/scripts/kernel-doc
L=$TOP/build/lint
JOBS=${JOBS:-$(nproc)}
fails=0

bad() { echo "lint: $*"; fails=$((fails + 1)); }

cd "$TOP"
mapfile -t ours < <(find drivers include tests/modules tests/vm compat -name '*.[ch]' | sort)
mapfile -t series < <(awk '!/^#/ && NF { print $1 }' patches/series)
# The 7.2 port of the series (the sid-7.2 lane) is checked the same way.
mapfile -t series72 < <([ ! -f patches-7.2/series ] || awk '!/^#/ && NF { print $1 }' patches-7.2/series)
mapfile -t compat < <(awk '!/^#/ && NF { print $1 }' compat/patches/series)

# 1. checkpatch.  Patches are checked from inside patches/: given a path
# that starts with "patches/", checkpatch misreads empty context lines.
echo "  CHECKPATCH ${#ours[@]} files, ${#series[@]} patches, ${#series72[@]} of the 7.2 port, ${#compat[@]} of compat/"
for f in "${ours[@]}"; do
	"$CHECKPATCH" --no-tree --strict -q -f "$f" || bad "checkpatch: $f"
done
# A "Fixes:" tag names an upstream commit, which checkpatch can look up only
# in a kernel git tree; Debian's linux-source has none.
for p in "${series[@]}"; do
	(cd patches && "$CHECKPATCH" --no-tree --strict -q --ignore UNKNOWN_COMMIT_ID "$p") ||
		bad "checkpatch: patches/$p"
done
for p in "${series72[@]}"; do
	(cd patches-7.2 && "$CHECKPATCH" --no-tree --strict -q --ignore UNKNOWN_COMMIT_ID "$p") ||
		bad "checkpatch: patches-7.2/$p"
done
for p in "${compat[@]}"; do
	(cd compat/patches && "$CHECKPATCH" --no-tree --strict -q "$p") ||
		bad "checkpatch: compat/patches/$p"
done

# 2. kernel-doc.
echo "  KERNELDOC"
for f in "${ours[@]}"; do
	case "$f" in *.c) ;; *) continue ;; esac
	out=$("$KERNELDOC" -none -Wall "$f" 2>&1) || true
	[ -z "$out" ] || { echo "$out"; bad "kernel-doc: $f"; }
	while read -r sym; do
		grep -q "^ \* $sym() \?- \|^ \* $sym - " "$f" ||
			bad "kernel-doc: $f: exported $sym() has no kernel-doc comment"
	done < <(sed -n 's/^EXPORT_SYMBOL\(_GPL\)\?(\([a-z0-9_]*\));/\2/p' "$f")
done

# 3. sparse and W=1 against Debian's files.
# Objects to check: our C files, and the C files our patches change.
mapfile -t cfiles < <({
	printf '%s\n' "${ours[@]}" | sed -n 's@^\(compat/\)\?\(drivers/.*\.c\)$@\2@p'
	for p in "${series[@]}"; do sed -n 's@^+++ b/\(drivers/.*\.c\)$@\1@p' "patches/$p"; done
	for p in "${compat[@]}"; do sed -n 's@^+++ b/\(drivers/.*\.c\)$@\1@p' "compat/patches/$p"; done
} | sort -u)
mapfile -t patched < <(for p in "${series[@]}"; do
	sed -n 's@^+++ b/\(drivers/.*\.c\)$@\1@p' "patches/$p"; done | sort -u)

# tree DIR: a buildable copy.  The baseline gets only patch 0001, which an
# out-of-tree build of drivers/infiniband/core needs (cm_trace.h).
tree() {
	mkdir -p "$1"
	rsync -rlc --delete --exclude='*.o' --exclude='.*.cmd' --exclude='*.ko' \
		--exclude='*.mod*' "$2/" "$1/"
}
echo "  SPARSE  W=1 ${#cfiles[@]} files (baseline: ${#patched[@]} as Debian ships them)"
tree "$L/ours" "$SRC"
rm -rf "$L/base.stage"
mkdir -p "$L/base.stage"
cp -a "$PRISTINE/." "$L/base.stage/"
rm -f "$L/base.stage/.done"
patch -d "$L/base.stage" -p1 -s -N --no-backup-if-mismatch -i "$TOP/patches/${series[0]}"
cp "$TOP/Kbuild" "$L/base.stage/Kbuild"
tree "$L/base" "$L/base.stage"
rm -rf "$L/base.stage"

# warnings TREE FILE...: the sparse and compiler warnings of FILE... built
# in TREE, one per line as "file: message" (no line numbers, which move).
warnings() {
	local t=$1
	shift
	make -s -C "$KDIR" M="$t" NOSTDINC_FLAGS="-I$t/include" C=2 W=1 \
		-j"$JOBS" "${@/%.c/.o}" 2>&1 |
		grep -E '(warning|error):' |
		sed -E "s@^$t/@@; s@^([^:]+):[0-9]+:([0-9]+:)? @\1: @; s@ \[-W[^]]*\]\$@@" |
		sort || true
}
warnings "$L/ours" "${cfiles[@]}" >"$L/ours.warnings"
warnings "$L/base" "${patched[@]}" >"$L/base.warnings"
# A warning is new if it occurs more often with our changes than without.
new=$(join -v1 -t $'\t' \
	<(uniq -c "$L/ours.warnings" | sed -E 's/^ *([0-9]+) (.*)/\2\t\1/' | sort) \
	<(uniq -c "$L/base.warnings" | sed -E 's/^ *([0-9]+) (.*)/\2\t\1/' | sort) || true)
more=$(join -t $'\t' \
	<(uniq -c "$L/ours.warnings" | sed -E 's/^ *([0-9]+) (.*)/\2\t\1/' | sort) \
	<(uniq -c "$L/base.warnings" | sed -E 's/^ *([0-9]+) (.*)/\2\t\1/' | sort) |
	awk -F'\t' '$2 > $3' || true)
echo "  SPARSE  $(wc -l <"$L/ours.warnings") warnings with our changes, $(wc -l <"$L/base.warnings") in Debian's files"
if [ -n "$new$more" ]; then
	printf '%s\n' "$new" "$more" | sed '/^$/d; s/^/  new: /'
	bad "sparse/W=1: warnings that Debian's files do not have (full lists in $L)"
fi

# 4. shellcheck.
mapfile -t scripts < <({
	ls scripts/*.sh tests/*.sh tests/vm/*.sh tests/vm/init tests/lib/*.sh \
		bench/*.sh .ci/run debian/*.postinst
	find tests/cases tests/selftest tests/demo tests/soak tests/blktests tests/deb bench/cases \
		-type f -perm -u+x
} | sort)
echo "  SHELLCHECK ${#scripts[@]} scripts"
command -v shellcheck >/dev/null || bad "shellcheck: not installed (make deps)"
if command -v shellcheck >/dev/null && ! shellcheck "${scripts[@]}"; then
	bad "shellcheck"
fi

if [ "$fails" -gt 0 ]; then
	echo "lint: $fails failed"
	exit 1
fi
echo "  LINT    clean"
