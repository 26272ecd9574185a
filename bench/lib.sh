# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Benchmark helpers (sourced by bench/cases/*, inside the VM, after
# tests/lib/common.sh).  A benchmark prints its figures as
#   RESULT <name> <value> <unit>
# and bench/run.sh turns them into the table.

result() { echo "RESULT $1 $2 $3"; }

now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }

# median of the arguments
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

ratio() { echo "scale=2; $1 / $2" | bc; }

# Target outages (bench/cases/08-10).  RR_OUTAGES: the outage lengths in
# seconds; 0.05 stands for an in-place reset (the device is back within
# about 0.05 s), any other length for a re-registration reset whose device
# stays away that long.  RR_OUTAGE_REPS: resets of each length, idle and
# under fio each; the median is reported.
OUTAGES=${RR_OUTAGES:-0.05 1 3 5 10}
OUTAGE_REPS=${RR_OUTAGE_REPS:-3}
outage_args_check() {
	local s
	for s in $OUTAGES; do
		[[ "$s" =~ ^[0-9]+(\.[0-9]+)?$ ]] && [ "$(echo "$s <= 60" | bc)" = 1 ] ||
			fail "RR_OUTAGES: '$s' is not a length in seconds (0 to 60)"
	done
	[[ "$OUTAGE_REPS" =~ ^[1-9][0-9]?$ ]] || fail "RR_OUTAGE_REPS: '$OUTAGE_REPS' is not a count (1 to 99)"
}

# outage_longest: the longest of OUTAGES, in whole seconds rounded up.
outage_longest() {
	local s max=0
	for s in $OUTAGES; do
		s=$(echo "scale=0; ($s + 0.999) / 1" | bc)
		[ "$s" -le "$max" ] || max=$s
	done
	echo "$max"
}

# outage_timeouts: the reset's kept state must outlast the longest outage:
# ib_core's reset_timeout_ms (30 s by default, read at each reset) is raised
# to that outage plus 30 s for our modules (stock ones have none; the value
# goes with ib_core at stack_unload).  A device away longer than it is
# treated as removed, which is another measurement (cases 038, 046).
outage_timeouts() {
	local p=/sys/module/ib_core/parameters/reset_timeout_ms ms
	ms=$((($(outage_longest) + 30) * 1000))
	[ ! -f "$p" ] || [ "$(cat "$p")" -ge "$ms" ] || cfg_w "$p" "$ms"
}

# outage_tgt SECONDS [stock]: the target's device away for SECONDS and back
# (returns once it is registered again).  Stock modules have no reset
# interface: their device is deleted and added, 0.05 s apart at the
# shortest.
outage_tgt() {
	if [ -z "${2:-}" ]; then
		if [ "$1" = 0.05 ]; then
			reset_in_place "$TGT_DEV"
			return
		fi
		cfg_w "/sys/class/infiniband/$TGT_DEV/reset/expect" 1
	fi
	run rdma link delete "$TGT_DEV"
	sleep "$1"	# the outage being measured, not a wait for a state
	rxe_add "$TGT_DEV" "$TGT_NETDEV"
}

# poll_until SECONDS COMMAND...: COMMAND every 0.02 s until it succeeds
# (0) or SECONDS pass (1).
poll_until() {
	local end
	end=$(echo "$(now) + $1" | bc)
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$(echo "$(now) < $end" | bc)" = 1 ] || return 1
		sleep 0.02
	done
}

# outage_back SECONDS READY [stock]: an outage of the target's device, then
# the seconds from its return until READY holds, in BACK ("never" after
# OUTAGE_GIVE_UP seconds, 60 by default).
outage_back() {
	local t0
	outage_tgt "$1" "${3:-}"
	t0=$(now)
	if poll_until "${OUTAGE_GIVE_UP:-60}" "$2"; then
		BACK=$(printf "%.3f" "$(since "$t0")")
	else
		BACK=never
	fi
	log "target away ${1}s: $2 after ${BACK}s"
}

# outage_table PROTO READY DEVFN [stock]: for each outage length, the
# median time back over OUTAGE_REPS resets, idle and then each under fio
# (on the disk DEVFN prints; FIO_SIZE 24M by default).  Results are named
# PROTO.target.away_<length>s.<idle|fio>[.stock].back_s; a rep that never
# came back makes the median "never" and ends that length.
outage_table() {
	local proto=$1 ready=$2 devfn=$3 stock=${4:-} s mode r dev i m
	outage_timeouts
	for s in $OUTAGES; do
		for mode in idle fio; do
			r=()
			for ((i = 0; i < OUTAGE_REPS; i++)); do
				if [ "$mode" = idle ]; then
					outage_back "$s" "$ready" "$stock"
				else
					dev=$($devfn) || fail "no disk ($devfn)"
					FIO_SIZE=${FIO_SIZE:-24M} fio_during "$dev" outage_back "$s" "$ready" "$stock"
				fi
				[ "$BACK" = never ] && break
				r+=("$BACK")
			done
			[ "$BACK" = never ] && m=never || m=$(median "${r[@]}")
			result "$proto.target.away_${s}s.$mode${stock:+.stock}.back_s" "$m" s
			[ "$BACK" = never ] && return 0
		done
	done
}
