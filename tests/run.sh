#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/run.sh [CASE...]
#
# Run the VM test cases (tests/cases/NNN-name, all by default; a CASE is a
# name or a prefix of names: 03 runs the 03x band) against the built
# module set.  Cases that share a VM run in one boot; a case whose
# header says "VM: fresh" gets a boot of its own ("VM: one-thread": one
# on single-threaded TCG; "VM: icount": one on single-threaded TCG whose
# guest clock counts instructions, QEMU's -icount, for benchmarks that
# must not see the host's noise), and one that says "VM: two-node" gets two VMs joined by a QEMU socket network (see
# tests/lib/node.sh): it runs on the initiator node and drives the target
# node through a mailbox directory both share.  For every case this prints
# PASS or FAIL with its time, and at the end "N passed, N failed".  A case
# fails on a non-zero exit, on exceeding its TIMEOUT, or on any kernel WARN,
# BUG, Oops, hung task, lockdep report or module symbol mismatch logged while
# it ran, outside a stock window (stock_begin, tests/lib/common.sh: what
# Debian's own modules log there is noted, not failed).  A case that cannot run here prints "SKIP: reason" and exits 0
# (skip in tests/lib/common.sh): it is reported as SKIP, counted apart.
# Everything is kept in build/tests/<run>/.
set -uo pipefail

die() { echo "run.sh: $*" >&2; exit 1; }

TOP=$(cd "$(dirname "$0")/.." && pwd)
# LANE: the kernel lane (scripts/lanes.sh), as make has built it: the
# default lane (unset or bookworm-6.12) in build/, another in
# build/lane-LANE.  DEBUG_KERNEL=1: that lane's debug kernel (make
# check-debug); LANE=debug is the default lane's.
# shellcheck source=scripts/lanes.sh
. "$TOP/scripts/lanes.sh"
if [ "${LANE:-}" = debug ]; then LANE='' DEBUG_KERNEL=1; fi
[ "${LANE:-}" != bookworm-6.12 ] || LANE=
case "${DEBUG_KERNEL:-}" in "" | 0) DEBUG_KERNEL= ;; 1) ;; *) die "DEBUG_KERNEL=$DEBUG_KERNEL: 1 or unset" ;; esac
B=$(lane_builddir "$TOP" "${LANE:-}") || die "LANE=$LANE: no such lane (lanes: $LANES)"
[ -f "$B/kversion.mk" ] || die "nothing built for lane ${LANE:-bookworm-6.12} (make${LANE:+ LANE=$LANE})"
. "$B/kversion.mk"
# DEBUG_KERNEL=1: boot the lane's debug kernel (make check-debug) with our
# set built against it, instead of Debian's kernel.
if [ -n "$DEBUG_KERNEL" ]; then
	KREL=$(cat "$B/debug/krel" 2>/dev/null) ||
		die "no debug kernel for lane ${LANE:-bookworm-6.12} (make${LANE:+ LANE=$LANE} check-debug)"
	STOCK=$B/debug/root SRC=$B/debug/src VMDIR=$B/debug/vm
	# 4-level paging: on a CPU with LA57 (TCG's "max" has it), 6.12's
	# identify_cpu() clears X86_FEATURE_LA57 for a moment, and an
	# interrupt in that window makes KASAN see the direct map as outside
	# its shadow ("wild-memory-access in do_raw_spin_lock" at boot), a
	# false report that also turns lockdep off for the whole run.
	VM_APPEND="${VM_APPEND:+$VM_APPEND }no5lvl"
else
	STOCK=$B/kernel/$KREL/root SRC=$B/src VMDIR=$B/vm
fi
# The cases see the lane as RR_LANE and the debug kernel as RR_DEBUG=1
# (set here, never from outside).
export RR_LANE=${LANE:-} RR_DEBUG=$DEBUG_KERNEL
# The guests' root: this machine's on the default lane, the lane's suite's
# on another (scripts/suite-root.sh: made once, cached), so that each
# lane's VMs run that suite's userspace, with Debian's kernel or the debug
# one.
GUEST_ROOT=/
case "${LANE:-}" in
"") ;;
*)
	GUEST_ROOT=$("$TOP/scripts/suite-root.sh" "$LANE" "${CACHE:-/var/cache/rdma-reset}") || exit 1
	GUEST_ROOT=${GUEST_ROOT:-/}	# the machine's own suite
	;;
esac
VMLINUZ=$STOCK/boot/vmlinuz-$KREL
MODROOT=$VMDIR/modroot
# stale_modroot: the VMs' module tree is missing or older than the stock
# tree (the debug lane's kernel is rebuilt in place).
stale_modroot() {
	[ ! -d "$MODROOT/lib/modules/$KREL" ] || [ "$STOCK/lib/modules/$KREL/modules.dep" -nt "$MODROOT" ]
}
# Debian's modules only, none of ours: the VMs' tree in a control run
# (MODULES=stock), and the tree from which the cases and benchmarks that
# compare with Debian's modules in the same run load them (modprobe -d
# "$STOCKROOT", tests/lib/common.sh).
STOCKTREE=$VMDIR/modroot-stock
if [ ! -d "$STOCKTREE/lib/modules/$KREL" ] ||
   [ "$STOCK/lib/modules/$KREL/modules.dep" -nt "$STOCKTREE" ]; then
	"$TOP/tests/vm/modtree.sh" "$STOCK/lib/modules/$KREL" none "$STOCKTREE" >/dev/null || exit 1
fi
export RR_STOCKROOT=${STOCKTREE#"$TOP"/}
[ "${MODULES:-}" != stock ] || MODROOT=$STOCKTREE
INITRD=$VMDIR/initramfs.gz
# static_tool NAME: tests/vm/NAME.c built static (any lane's root runs it)
# into $VMDIR when missing or older than its source; prints its guest path.
static_tool() {
	local bin=$VMDIR/$1
	if [ ! -x "$bin" ] || [ "$TOP/tests/vm/$1.c" -nt "$bin" ]; then
		mkdir -p "$VMDIR"
		gcc-12 -O2 -Wall -Wextra -static -o "$bin" "$TOP/tests/vm/$1.c" ||
			die "cannot build $bin"
	fi
	echo "/rr/${bin#"$TOP"/}"
}
# The probe case 009 runs; RDS traffic for the RDS cases.
RR_CX16_PROBE=$(static_tool cx16-flags) || exit 1
RR_RDS_ECHO=$(static_tool rds-echo) || exit 1
export RR_CX16_PROBE RR_RDS_ECHO
CASEDIR=$(realpath "${CASEDIR:-$TOP/tests/cases}")
case "$CASEDIR" in "$TOP"/*) ;; *) die "CASEDIR must be inside $TOP" ;; esac
RUN=$B/tests/$(date +%Y%m%d-%H%M%S)$(basename "$CASEDIR" | sed "s/^cases$//; s/^./-&/")
VM_MEM=${VM_MEM:-3072}
# VM_APPEND: more kernel parameters (make soak adds memory-debugging ones).
# CASE_TIMEOUT: a time bound for every case instead of its TIMEOUT header.
# RR_*: variables exported to the cases (e.g. RR_TORTURE_N for make torture);
# RR_TIME_SCALE multiplies every time bound, the cases' and their waits'.

# The kernel-log patterns that fail a case.  A kernel general protection
# fault reads "general protection fault, probably for ..." or "general
# protection fault: 0000 [#1]"; a user-space process's one reads "traps:
# COMM[PID] general protection fault ip:..." and is no kernel fault (nor is
# "COMM[PID]: segfault at ..."): USER_FAULT notes those beside the verdict.
BAD='WARNING:|BUG:|Oops|general protection fault[,:]|Kernel panic|blocked for more than|'\
'hung_task|INFO: task .* blocked|possible circular locking|possible recursive locking|'\
'inconsistent lock state|INFO: lockdep is turned off|DEBUG_LOCKS_WARN_ON|disagrees about version of symbol|Unknown symbol|'\
'UBSAN:|KASAN:|kmemleak: .*suspected memory leak|ODEBUG:|Call Trace:'
USER_FAULT='traps: .*\[[0-9]+\] general protection fault ip:|\[[0-9]+\]: segfault at '

[ -f "$VMLINUZ" ] || die "no kernel at $VMLINUZ (run make first)"
ls "$SRC"/drivers/infiniband/core/ib_core.ko >/dev/null 2>&1 || die "module set not built (run make)"

# VM_ROOT (tests/deb.sh): a prepared root inside the project, an admin's
# machine with the package installed: the guests' root, and its module
# tree as it is (none is made), with an initramfs of its own.
if [ -n "${VM_ROOT:-}" ]; then
	case "$VM_ROOT" in "$TOP"/*) ;; *) die "VM_ROOT must be inside $TOP" ;; esac
	[ -d "$VM_ROOT/lib/modules/$KREL/kernel" ] || die "no module tree for $KREL in $VM_ROOT"
	GUEST_ROOT=$VM_ROOT MODROOT=$VM_ROOT INITRD=$VM_ROOT.initramfs.gz
	rm -f "$INITRD"
# Stock modules + ours; rebuilt when stale or older than one of our modules.
elif [ "${MODULES:-}" != stock ] && { stale_modroot ||
   [ -n "$(find "$SRC" -name '*.ko' -newer "$MODROOT" | head -1)" ]; }; then
	"$TOP/tests/vm/modtree.sh" "$STOCK/lib/modules/$KREL" "$SRC" "$MODROOT" >/dev/null || exit 1
fi
if [ ! -f "$INITRD" ] || [ "$TOP/tests/vm/init" -nt "$INITRD" ] || [ "$MODROOT" -nt "$INITRD" ]; then
	"$TOP/tests/vm/mkinitramfs.sh" "$MODROOT/lib/modules/$KREL" "$INITRD" || exit 1
fi

# KVM only where a probe shows it boots a kernel; TCG otherwise.
accel() {
	if [ -e /dev/kvm ] && timeout 15 qemu-system-x86_64 -accel kvm -cpu host -m 256 \
		-nodefaults -display none -no-reboot -serial stdio -kernel "$VMLINUZ" \
		-append 'console=ttyS0 panic=-1 init=/nonexistent' 2>/dev/null |
		grep -q 'Linux version'; then
		echo "-accel kvm -cpu host"
	else
		# No CMPXCHG16B in the guest: QEMU's TCG before 8.1 (Debian 12
		# has 7.2) corrupts RFLAGS with it, and SLUB's lockless fast
		# path uses it on every allocation.  Without it the kernel takes
		# this_cpu_cmpxchg16b_emu() and SLUB its locked path (case
		# 009-emulator-cmpxchg16b, tests/vm/cx16-flags.c).
		echo "-accel tcg -cpu max,-cx16"
	fi
}
ACCEL=${ACCEL:-$(accel)}

header() { sed -n "s/^# $2: *//p" "$1" | head -1; }

cases=()
if [ $# -gt 0 ]; then
	# A prefix names every case it starts: "03" is the 03x band, "031"
	# the one case.
	for c in "$@"; do
		n=${#cases[@]}
		for f in "$CASEDIR/$c"*; do
			[ -f "$f" ] && cases+=("${f##*/}")
		done
		[ ${#cases[@]} -gt "$n" ] || die "no such case: $c"
	done
else
	for f in "$CASEDIR"/[0-9]*; do cases+=("$(basename "$f")"); done
fi
[ ${#cases[@]} -gt 0 ] || die "no test cases"

# Group: consecutive shared cases share a boot; fresh ones boot alone.
batches=() twonode=() onethread=() icount=() cur=""
for c in "${cases[@]}"; do
	t=${CASE_TIMEOUT:-$(header "$CASEDIR/$c" TIMEOUT)}; t=$((${t:-300} * ${RR_TIME_SCALE:-1}))
	vm=$(header "$CASEDIR/$c" VM)
	if [ "$vm" = fresh ] || [ "$vm" = two-node ] || [ "$vm" = one-thread ] || [ "$vm" = icount ]; then
		[ -n "$cur" ] && batches+=("$cur")
		batches+=("$c:$t") cur=""
		[ "$vm" = two-node ] && twonode[${#batches[@]}]=1
		[ "$vm" = one-thread ] && onethread[${#batches[@]}]=1
		[ "$vm" = icount ] && icount[${#batches[@]}]=1
	else
		cur="${cur:+$cur }$c:$t"
	fi
done
[ -n "$cur" ] && batches+=("$cur")

mkdir -p "$RUN"
echo "run: $RUN ($KREL, ${ACCEL%% -cpu*}, guest root $GUEST_ROOT)"

# boot_vm DIR [QEMU ARGS...]: run one VM to completion (its /results is DIR).
boot_vm() {
	local d=$1
	shift
	# tsc=reliable: on a loaded host the clocksource watchdog marks the
	# TSC unstable mid-run, and flipping sched_clock's static key then
	# patches live kernel text through int3, which multi-threaded TCG
	# gets wrong ("Oops: int3" in sched_clock_cpu, seen at boot and once
	# in CI during 060).
	# shellcheck disable=SC2086
	timeout -k 5 "$bound" qemu-system-x86_64 $VM_ACCEL -smp "$VM_SMP" -m "$VM_MEM" \
		-nodefaults -no-reboot -display none -monitor none \
		-serial "file:$d/console.log" \
		-kernel "$VMLINUZ" -initrd "$INITRD" \
		-append "console=ttyS0 panic=-1 printk.time=1 net.ifnames=0 log_buf_len=8M tsc=reliable${VM_APPEND:+ $VM_APPEND}" \
		-virtfs "local,path=$GUEST_ROOT,mount_tag=guestroot,security_model=none,readonly=on,multidevs=remap" \
		-virtfs "local,path=$TOP,mount_tag=proj,security_model=none,readonly=on,multidevs=remap" \
		-virtfs "local,path=$d,mount_tag=results,security_model=none" \
		"$@" >"$d/qemu.log" 2>&1
	[ $? -eq 124 ] && echo "killed after ${bound}s" >>"$d/qemu.log"
}

# config DIR ROLE CASES: the guest's /results/config.sh.
config() {
	cat >"$1/config.sh" <<-CFG
		MODROOT=${MODROOT#"$TOP"/}
		MODSRC=${SRC#"$TOP"/}
		CASEDIR=${CASEDIR#"$TOP"/}
		CASES="$3"
		NODE_ROLE=$2
		$(env | grep '^RR_[A-Z0-9_]*=' | sed "s/=\(.*\)/='\1'/; s/^/export /")
	CFG
}

# The two-node topology: a virtio NIC in each VM on one QEMU UDP socket
# pair on loopback, and a mailbox directory both VMs mount.
twonode_args() {
	local me=$1 peer=$2 mac=$3
	echo "-netdev socket,id=n0,udp=127.0.0.1:$peer,localaddr=127.0.0.1:$me" \
		"-device virtio-net-pci,netdev=n0,mac=$mac" \
		"-virtfs local,path=$D/mbox,mount_tag=mbox,security_model=none"
}

# log_after_cases CONSOLE: what the kernel logged after the last case
# (the kmemleak scan, module unloads, shutdown).
log_after_cases() {
	awk '/rr-case: .* end rc=/ { buf = ""; next } { buf = buf $0 "\n" } END { printf "%s", buf }' "$1"
}

# stock_window in|out KLOG: KLOG's lines inside, or outside, a case's
# closed stock windows (tests/vm/stock-window.awk).
stock_window() { awk -v want="$1" -f "$TOP/tests/vm/stock-window.awk" "$2"; }

# report_trace KLOG: the first kernel report's context and call trace (its
# workqueue or task, a page fault's kind and RIP, and the reliable frames:
# "? " ones are guesses, printed only when no frame is reliable, as after a
# jump into freed code, and then only those above the exception's own), so that a failure seen once, in CI, can be read
# from the verdict alone.
report_trace() {
	awk -v bad="$BAD" '
		!on && $0 ~ bad { on = 1; tr = /Call Trace:/; next }
		!on { next }
		/---\[ end trace|<\/TASK>/ || n >= 16 { exit }
		/ (Workqueue|CPU): |#PF: | RIP: / { sub(/^\[[ 0-9.]+\] */, ""); print "     k " $0; next }
		/Call Trace:/ { tr = 1; next }
		tr && /asm_exc_/ { q = 0; next }
		tr && / \? / && /\+0x/ && q < 8 { sub(/^\[[ 0-9.]+\] */, ""); guess[q++] = $0; next }
		tr && /\+0x/ { sub(/^\[[ 0-9.]+\] */, ""); print "     k " $0; n++ }
		END { if (!n) for (i = 0; i < q; i++) print "     k " guess[i] }
	' "$1"
}

# run_vm D CASES: boot one VM (its /results is D) to run CASES ("NAME:BOUND
# ..."), print a verdict for each case that ran, and set LEFT to the cases
# to run in a new VM: those after a failed case (the guest stops there,
# "rr-case: vm stop") or after one during which the VM died.
run_vm() {
	local D=$1 todo=$2 bound=120 extra=() peer_pid="" p0 boot c name log klog why rc secs started=""
	LEFT=""
	mkdir -p "$D"
	printf '%s\n' "$BAD" >"$D/bad.re"
	# Two VMs of two vCPUs each on a 2-core host: multi-threaded TCG runs
	# four vCPU threads on two cores; one TCG thread per VM fits the host
	# and runs case 070 in 142 s against 246 s.  One-VM cases keep multi-threaded TCG, but for those whose
	# header says "VM: one-thread": a race between two kernel threads is
	# seen there when a vCPU stops for a whole time slice in the middle of
	# one of them, as a preempted host thread would.
	VM_ACCEL=$ACCEL
	if [ -n "${twonode[$n]:-}" ] || [ -n "${onethread[$n]:-}" ] || [ -n "${icount[$n]:-}" ]; then
		case $ACCEL in "-accel tcg "*) VM_ACCEL="-accel tcg,thread=single ${ACCEL#-accel tcg }" ;; esac
	fi
	# -icount shift=0: 1 ns of guest time per instruction; sleep=off: an
	# idle guest's clock jumps to its next timer.  The guest sees
	# RR_ICOUNT=1.
	# One vCPU: with two, single-threaded TCG switches between them on a
	# kick timed by the host's clock, and host noise reaches the guest.
	unset RR_ICOUNT
	VM_SMP=2
	if [ -n "${icount[$n]:-}" ]; then
		case $VM_ACCEL in "-accel tcg,"*) VM_ACCEL="$VM_ACCEL -icount shift=0,sleep=off" VM_SMP=1; export RR_ICOUNT=1 ;; esac
	fi
	for c in $todo; do bound=$((bound + ${c#*:} + 20)); done
	if [ -n "${twonode[$n]:-}" ]; then
		# UDP ports from our PID: parallel runs on one host do not meet.
		p0=$((20000 + ($$ % 5000) * 2))
		mkdir -p "$D/mbox" "$D/peer"
		printf '%s\n' "$BAD" >"$D/peer/bad.re"
		config "$D/peer" target "$todo"
		# Its exit is announced in the mailbox: a dead target node fails
		# the case at once rather than at PEER_TIMEOUT.
		{
			# shellcheck disable=SC2046
			boot_vm "$D/peer" $(twonode_args $((p0 + 1)) "$p0" 52:54:00:00:00:02)
			touch "$D/mbox/peer-exited"
		} &
		peer_pid=$!
		# shellcheck disable=SC2207
		extra=($(twonode_args "$p0" $((p0 + 1)) 52:54:00:00:00:01))
	fi
	config "$D" "${peer_pid:+initiator}" "$todo"
	for boot in 1 2; do
		boot_vm "$D" "${extra[@]}"
		# Debian's kernel under TCG very rarely oopses while booting,
		# before any of our modules is loaded (seen: int3 in
		# sched_clock_cpu during text patching).  That says nothing
		# about the cases: boot once more, keeping the log.
		if [ "$boot" = 1 ] && [ -z "$peer_pid" ] &&
		   ! grep -q 'rr-case: .* start' "$D/console.log" &&
		   grep -Eq 'Oops|Kernel panic' "$D/console.log"; then
			mv "$D/console.log" "$D/console.boot-crash.log"
			echo "${D##*/}: the kernel crashed while booting, before any case; booting again" \
				"(see $D/console.boot-crash.log)"
			continue
		fi
		break
	done
	if [ -n "$peer_pid" ]; then
		# The initiator node has finished: tell the target node to stop.
		touch "$D/mbox/stop"
		wait "$peer_pid"
	fi

	# The boot itself (before the first case) must be clean too, and so
	# must what follows the last case: the guest's power-off, announced
	# ("rr-case: vm power-off"), is the only way a VM may end.
	if sed -n '/rr-case: .* start/q;p' "$D/console.log" | grep -Eq "$BAD"; then
		echo "FAIL ${D##*/} boot: kernel log (see $D/console.log)"
		fail=$((fail + 1))
	fi
	if grep -q "rr-case: .* end rc=" "$D/console.log"; then
		if log_after_cases "$D/console.log" | grep -Eq "$BAD"; then
			echo "FAIL ${D##*/} after the cases: kernel log: $(log_after_cases "$D/console.log" | grep -Em1 "$BAD" | cut -c1-100)"
			fail=$((fail + 1))
		fi
	fi
	for c in $todo; do
		name=${c%%:*}
		if [ -n "$started" ]; then
			# After a case the VM died in: a new VM.
			LEFT="${LEFT:+$LEFT }$c"
			continue
		fi
		log=$D/$name.log
		klog=$D/$name.klog
		if [ ! -f "$D/$name.rc" ] && ! grep -q "rr-case: $name start" "$D/console.log"; then
			if grep -q "rr-case: vm stop:" "$D/console.log"; then
				# The guest stopped after a failed case: a new VM.
				LEFT="${LEFT:+$LEFT }$c"
				continue
			fi
			printf 'FAIL %-36s %s\n' "$name" "no result: the VM ended before the case (see $D/console.log)"
			fail=$((fail + 1))
			continue
		fi
		awk -v s="rr-case: $name start" -v e="rr-case: $name end" \
			'index($0, s) { on = 1 } on { print } index($0, e) { exit }' \
			"$D/console.log" >"$klog"
		# Two nodes: the target node's whole log belongs to the case.
		[ -n "$peer_pid" ] && cat "$D/peer/console.log" >>"$klog"
		why=""
		if [ ! -f "$D/$name.rc" ]; then
			why="no result: VM died or hung (see $D/console.log)"
			started=$name
		else
			read -r rc secs <"$D/$name.rc"
			[ "$rc" = 0 ] || why="exit $rc"
		fi
		stock_window out "$klog" >"$klog.ours"
		if grep -Eq "$BAD" "$klog.ours"; then
			why="${why:+$why; }kernel log: $(grep -Em1 "$BAD" "$klog.ours" | cut -c1-120)"
		fi
		if [ -z "$why" ] && grep -q '^SKIP: ' "$log" 2>/dev/null; then
			# A case that cannot run here says why (skip in common.sh).
			printf 'SKIP %-36s %s\n' "$name" "$(grep -m1 '^SKIP: ' "$log" | cut -c7-120)"
			skipped="$skipped $name"
		elif [ -z "$why" ]; then
			printf 'PASS %-36s %6.1fs\n' "$name" "$secs"
			pass=$((pass + 1))
		else
			printf 'FAIL %-36s %s\n' "$name" "$why"
			[ -f "$log" ] && tail -n 15 "$log" | sed 's/^/     | /'
			report_trace "$klog.ours"
			[ -f "$D/$name.stacks" ] && echo "     | task stacks at the time bound: $D/$name.stacks"
			fail=$((fail + 1))
		fi
		if stock_window in "$klog" | grep -Eq "$BAD"; then
			echo "     note: Debian's modules, in the case's stock window: report lines: $(stock_window in "$klog" | grep -Ec "$BAD"); the first: $(stock_window in "$klog" | grep -Em1 "$BAD" | cut -c1-90)"
		fi
		if grep -Eq "$USER_FAULT" "$klog"; then
			echo "     note: a user-space fault in the guest, no kernel fault: $(grep -Em1 "$USER_FAULT" "$klog" | cut -c1-100)"
		fi
	done
	if [ -z "$started" ] && [ -z "$LEFT" ] && grep -q "rr-case: .* end rc=" "$D/console.log" &&
	   ! grep -q "rr-case: vm power-off" "$D/console.log"; then
		echo "FAIL ${D##*/} after the cases: no power-off (see $D/console.log)"
		fail=$((fail + 1))
	fi
}

# emulator_fault D: print an RFLAGS value from a kernel crash in D's
# consoles (both nodes) that no x86-64 CPU can hold: a reserved bit (1 must
# be set; 3, 5, 15 and 22-63 clear) or VM, which long mode cannot enter.
# POPF and IRETQ cannot load those bits and an exception frame is written
# from the CPU's own flags, so such a value means the emulated CPU state
# was corrupt (seen under TCG in rxe's packet paths: a double fault with
# 83731302, a single-step #DB in the kernel with a100cf02).
emulator_fault() {
	local f v
	for f in "$1/console.log" "$1/peer/console.log"; do
		[ -f "$f" ] || continue
		while read -r _ v; do
			if (((0x$v & ~0x3D7FD7) != 0 || (0x$v & 2) == 0)); then
				echo "$v"
				return 0
			fi
		done < <(grep -oE 'EFLAGS: [0-9a-f]{8,16}' "$f")
	done
	return 1
}

pass=0 fail=0 n=0 skipped=""
unset RR_RERUN
for batch in "${batches[@]}"; do
	n=$((n + 1))
	t0=$(date +%s)
	LEFT=$batch part=1 rerun=""
	while [ -n "$LEFT" ]; do
		D=$RUN/vm$n
		[ $part = 1 ] || D=$RUN/vm$n.$part
		[ $part = 1 ] || echo "vm$n.$part: the cases after a failed one, in a new VM"
		todo=$LEFT was_pass=$pass was_fail=$fail was_skipped=$skipped
		run_vm "$D" "$LEFT" >"$RUN/verdicts"
		# A failure that came with an emulator fault says nothing about
		# the cases: run them once more in a new VM (RR_RERUN=1 in the
		# guest), keeping the first run's logs.  A second fault fails.
		if [ -z "$rerun" ] && [ "$fail" -gt "$was_fail" ] &&
		   v=$(emulator_fault "$D"); then
			pass=$was_pass fail=$was_fail skipped=$was_skipped
			rm -rf "$D.emulator-fault"
			mv "$D" "$D.emulator-fault"
			echo "${D##*/}: a kernel crash with RFLAGS $v, which no x86-64 CPU can hold:" \
				"the emulator's CPU state was corrupt; running these cases again in a new VM" \
				"(the first run, not counted, in $D.emulator-fault)"
			sed 's/^/     | /' "$RUN/verdicts"
			LEFT=$todo rerun=1
			export RR_RERUN=1
			continue
		fi
		cat "$RUN/verdicts"
		part=$((part + 1))
	done
	unset RR_RERUN
	echo "vm$n: $(($(date +%s) - t0))s"
done
echo "logs: $RUN"
# Skips are reported beside the verdict line, which stays "N passed, N failed".
[ -z "$skipped" ] || echo "$(wc -w <<<"$skipped") skipped:$skipped"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
