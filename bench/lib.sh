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

# Debian's stock module tree (no updates/): modprobe -d $STOCKROOT.
# shellcheck disable=SC2034 # for the bench cases
STOCKROOT=$PROJ/${RR_STOCKROOT:-build/vm/stockroot}

# stack_unload: every RDMA module of either build, top down.
stack_unload() {
	local m
	# Ours and Debian's have the same names; build order reversed is an
	# order in which nothing unloaded is still used.
	for m in rr_reset_client $(our_modules | tac); do
		[ -d "/sys/module/$m" ] && rmmod "$m"
	done
	[ ! -d /sys/module/ib_core ] || fail "ib_core still loaded: held by $(ls /sys/module/ib_core/holders)"
}
