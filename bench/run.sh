#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: run bench/cases in a VM and print their figures as a table,
# each against the target the project set for it.  The machine (TCG) is
# slow and noisy, so the figures that matter are the ratios taken within
# the one run; raw times are printed beside them.  The table is also
# written to build/bench/results.txt (build/lane-LANE/bench/ for another
# lane), to diff between runs.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "bench: $*" >&2; exit 1; }
# LANE: the kernel lane, as for tests/run.sh.
# shellcheck source=scripts/lanes.sh
. "$TOP/scripts/lanes.sh"
B=$(lane_builddir "$TOP" "${LANE:-}") || die "LANE=$LANE: no such lane (lanes: $LANES)"
[ -f "$B/kversion.mk" ] || die "nothing built for lane ${LANE:-bookworm-6.12} (make${LANE:+ LANE=$LANE})"
. "$B/kversion.mk"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
CASEDIR=$TOP/bench/cases "$TOP/tests/run.sh" "$@" | tee "$out"
rc=${PIPESTATUS[0]}
logs=$(sed -n 's/^logs: //p' "$out")
[ -n "$logs" ] || exit 1

mkdir -p "$B/bench"
table=$B/bench/results.txt
# target: "<= N" or ">= N" for figures the project set a goal for
target() {
	case "$1" in
	*.stock*|*.reconnect_delay_*) echo "" ;;	# baselines
	*.recovery_ratio) echo "<= 1.2" ;;
	*.back_s) echo "<= 1.2" ;;	# seconds after the target's return
	*.stall_ms) echo "<= 100" ;;
	nvme.scale.32_vs_1) echo "<= 3" ;;
	datapath.ours_vs_stock_cpu) echo ">= 0.98" ;;
	datapath.*cpu_spread_pct|datapath.ratio_spread_pct) echo "<= 2" ;;
	*) echo "" ;;
	esac
}
{
	# shellcheck disable=SC2153 # KREL is kversion.mk's
	echo "# make bench, $(date -u +%Y-%m-%d), $KREL, QEMU TCG on $(nproc) cores"
	printf '%-32s %14s %-6s %-9s %s\n' metric value unit target met
	cat "$logs"/vm*/[0-9]*.log | sed -n 's/^RESULT //p' |
	while read -r name value unit; do
		t=$(target "$name")
		met=""
		if [ -n "$t" ]; then
			met=$(echo "$value ${t%% *} ${t#* }" | awk '{
				if ($2 == "<=") print ($1 <= $3) ? "yes" : "NO";
				else print ($1 >= $3) ? "yes" : "NO" }')
		fi
		printf '%-32s %14s %-6s %-9s %s\n' "$name" "$value" "$unit" "$t" "$met"
	done
} >"$table"
echo
cat "$table"
echo "(written to $table)"
exit "$rc"
