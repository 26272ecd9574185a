#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of a test VM, after switch_root: set up the guest, run the cases the
# host listed in /results/config.sh, one after another, each under its own
# time bound, then power off.  Per case NAME it leaves in /results:
#   NAME.log  the case's output;  NAME.rc  its exit status (absent: the VM
#   died or hung during the case).
# Case boundaries are written to the kernel log ("rr-case: NAME start/end"),
# which the host cuts the console log by to check each case's kernel messages.
# After a failed case the VM stops ("rr-case: vm stop: NAME failed") and the
# host runs the cases left in a new VM.
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
. /results/config.sh
PROJ=/rr
MODSRC=$PROJ/${MODSRC:-build/src}
CASEDIR=$PROJ/$CASEDIR

mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
modprobe configfs && mount -t configfs configfs /sys/kernel/config
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
ln -sf /proc/self/fd /dev/fd
hostname rr-vm
ip link set lo up
echo 1 >/proc/sys/kernel/sysrq
# Report hung tasks quickly: a case that hangs a task must fail.
echo $((30 * ${RR_TIME_SCALE:-1})) >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null

export PROJ TESTLIB="$PROJ/tests/lib" MODSRC NODE_ROLE
kmsg() { echo "rr-case: $*" >/dev/kmsg; }

# A kernel with kmemleak (the debug lane): forget what booting leaked, so
# that the scan after the cases reports only what they leaked.
KMEMLEAK=/sys/kernel/debug/kmemleak
[ -w $KMEMLEAK ] && { echo scan >$KMEMLEAK; echo clear >$KMEMLEAK; }
leak_scan() {
	[ -w $KMEMLEAK ] || return 0
	# An object is reported once a scan finds it unreferenced and older
	# than 5 s: wait that out, scan twice; the kernel logs the verdict.
	sleep 6
	echo scan >$KMEMLEAK
	echo scan >$KMEMLEAK
	cat $KMEMLEAK >/results/kmemleak.txt
}

# power_off: end the VM.  Powering off shuts the 9p transport down while
# processes still run, and a program started from the 9p root then fails
# with EIO: PID 1 exiting on that panics the kernel ("Attempted to kill
# init").  So PID 1 becomes the static busybox that tests/vm/init left on
# the tmpfs overlay, and calls reboot(2) itself, which does not return.
# The marker tells the host that what follows is a requested power-off.
power_off() {
	leak_scan
	dmesg >/results/dmesg.txt
	sync
	kmsg "vm power-off"
	exec -a busybox /rr-busybox poweroff -f
}

# The target node of a two-node case: serve the mailbox until told to stop.
if [ "$NODE_ROLE" = target ]; then
	hostname rr-target
	bash "$PROJ/tests/vm/node-agent.sh" /mbox
	power_off
fi
[ -n "$NODE_ROLE" ] && hostname rr-initiator

# task_stacks: state, name and kernel stack of every task but this shell's.
task_stacks() {
	local p
	for p in /proc/[0-9]*; do
		[ "${p#/proc/}" = "$BASHPID" ] && continue
		echo "== ${p#/proc/} $(cat "$p/comm" 2>/dev/null) $(awk '/^State/ { print $2 }' "$p/status" 2>/dev/null)"
		cat "$p/stack" 2>/dev/null
	done
}

# case_failed NAME RC: the case exited non-zero or the kernel logged one of
# the patterns in /results/bad.re (the host's list) since it started,
# outside its closed stock windows (stock-window.awk).
case_failed() {
	[ "$2" != 0 ] ||
		dmesg | sed -n "/rr-case: $1 start/,\$p" |
		awk -v want=out -f "$PROJ/tests/vm/stock-window.awk" | grep -Eqf /results/bad.re
}

left=$CASES
for c in $CASES; do
	left=${left#"$c"}
	left=${left# }
	name=${c%%:*}
	bound=${c#*:}
	kmsg "$name start"
	echo "== $name (bound ${bound}s)" >/dev/console
	start=$(date +%s.%N)
	(cd /tmp && setsid timeout -k 10 "$bound" bash "$CASEDIR/$name") \
		>"/results/$name.log" 2>&1 </dev/null &
	pid=$!
	# Shortly before the bound kills it, keep every task's kernel stack: a
	# hang in an interruptible sleep escapes the hung-task detector.
	(sleep "$((bound > 20 ? bound - 10 : bound))" && task_stacks >"/results/$name.stacks") &
	wd=$!
	wait $pid
	rc=$?
	if [ -e "/results/$name.stacks" ]; then wait $wd; else kill $wd 2>/dev/null; fi
	end=$(date +%s.%N)
	[ $rc -eq 124 ] || [ $rc -eq 137 ] && echo "TIMEOUT after ${bound}s" >>"/results/$name.log"
	# Let the kernel flush what the case triggered before the marker.
	kmsg "$name end rc=$rc"
	echo "$rc $(echo "$end - $start" | bc)" >"/results/$name.rc"
	sync
	# What a failed case leaves (configfs, LIO, nvmet, iSCSI, netdevs, a
	# wedged kernel) must not fail the cases after it: the host runs
	# those in a new VM.
	if [ -n "$left" ] && case_failed "$name" "$rc"; then
		kmsg "vm stop: $name failed"
		break
	fi
done

power_off
