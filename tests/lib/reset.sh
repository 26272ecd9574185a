# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Device reset helpers: the ib_core reset interface and the test client
# tests/modules/rr_reset_client (clients rr_a, rr_b reset-aware; rr_c not),
# which logs "rr-ev: <client> <event> <device> id=<n>".

reset_attr() { cat "/sys/class/infiniband/$1/reset/$2"; }

# reset_in_place DEV: trigger an in-place reset through sysfs.
reset_in_place() { cfg_w "/sys/class/infiniband/$1/reset/trigger" 1; }

# reset_reregister DEV NETDEV: mark DEV's next unregistration as a reset,
# delete it and add it back on NETDEV (rxe's delete + add).
reset_reregister() {
	cfg_w "/sys/class/infiniband/$1/reset/expect" 1
	run rdma link delete "$1"
	rxe_add "$1" "$2"
}

# side_dev target|initiator: that side's device and netdev ("DEV NETDEV").
side_dev() { if [ "$1" = target ]; then echo "$TGT_DEV $TGT_NETDEV"; else echo "$INI_DEV $INI_NETDEV"; fi; }

# stock_reset DEV NETDEV: what a reset is to Debian's modules: a delete
# and an add (for the cases that compare, in a stock window).
stock_reset() { run rdma link delete "$1"; rxe_add "$1" "$2"; }

# Kernel log cursor: ev_mark writes a unique marker into the kernel log;
# klog_since prints what was logged after it (a line count would break
# once the ring buffer wraps), ev_since the rr-ev events among that.
ev_mark() {
	EV_MARK="rr-mark-$$-$(date +%s%N)"
	echo "$EV_MARK" >/dev/kmsg
}
klog_since() { dmesg | awk -v m="$EV_MARK" 'on { print } index($0, m) { on = 1 }'; }
ev_since() { klog_since | grep -o 'rr-ev: .*' | sed 's/^rr-ev: //'; }
# klog_has REGEX: logged since the mark.  klog_count N REGEX: N times.
klog_has() { klog_since | grep -q "$1"; }
klog_count() { [ "$(klog_since | grep -c "$2")" -eq "$1" ]; }

# ev_order DEV...: "client event" pairs for those devices since the mark,
# one line ("-" stands for reset_failed, which has no device); the QP
# counts the clients log at reset_prepare are left out.
ev_order() {
	ev_since | awk -v d="$*" 'BEGIN { n = split(d, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
		($3 in want) && $2 != "qps" { printf "%s %s; ", $1, $2 }'
}

# ev_id CLIENT EVENT DEV: the client_data id of that event since the mark.
ev_id() { ev_since | awk -v c="$1" -v e="$2" -v d="$3" '$1 == c && $2 == e && $3 == d { sub("id=", "", $4); print $4 }' | tail -1; }

# Uevents: record every kernel uevent's properties until uevent_stop.
uevent_start() {
	udevadm monitor --kernel --property >/tmp/uevents.log 2>&1 &
	UEVENT_PID=$!
	wait_for 10 "udevadm monitor" grep -q 'monitor will print' /tmp/uevents.log
}
uevent_stop() { kill "$UEVENT_PID" 2>/dev/null; wait "$UEVENT_PID" 2>/dev/null; }
# uevent_seen PHASE DEV: an RDMA_RESET=PHASE uevent for DEV was sent.
uevent_seen() {
	awk -v p="RDMA_RESET=$1" -v d="RDMA_DEVICE=$2" '
		/^$/ { if (hp && hd) found = 1; hp = hd = 0 }
		$0 == p { hp = 1 } $0 == d { hd = 1 }
		END { exit !(found || (hp && hd)) }' /tmp/uevents.log
}

rr_live() { cat /sys/module/rr_reset_client/parameters/live; }

# rr_prepare_qps CLIENT DEV: the QPs DEV had when CLIENT's reset_prepare
# ran since the mark (the clients prepared before it had released theirs).
rr_prepare_qps() { ev_since | awk -v c="$1" -v d="$2" '$1 == c && $2 == "qps" && $3 == d { n = $4 } END { print n }'; }

# ulp_qps DEV: QPs on DEV other than ib_core's own QP1 (GSI);
# no_ulp_qps DEV: none are left.
ulp_qps() { rdma resource show qp | grep -v 'type GSI' | grep -c "link $1/" || true; }
no_ulp_qps() { [ "$(ulp_qps "$1")" = 0 ]; }

# res_counts DEV: the kernel's object counts (pd cq qp mr cm_id) on DEV.
res_counts() { rdma resource show | awk -v d="$1:" '$2 == d { $1 = ""; print }'; }

# slab_snap: "CACHE ACTIVE-OBJECTS" for every kmalloc cache.  SLUB counts
# every object of a CPU's slabs as active, so the CPUs' slabs are flushed
# first ("shrink"); otherwise a cache moves by a whole slab (kmalloc-8: 512
# objects) with nothing allocated or freed (seen in 060, N=100: +500).
slab_snap() {
	local c
	for c in /sys/kernel/slab/kmalloc-*/shrink; do echo 1 >"$c"; done
	awk '$1 ~ /^kmalloc-/ { print $1, $2 }' /proc/slabinfo
}
# slab_delta OLD NEW: "CACHE GROWTH" for every cache of two slab_snap outputs.
slab_delta() {
	printf '%s\n' "$1" -- "$2" | awk '
		$1 == "--" { new = 1; next }
		!new { old[$1] = $2; next }
		{ print $1, $2 - old[$1] }'
}

# klog_gap REGEX1 REGEX2: seconds between the last kernel log lines since
# the mark matching REGEX1 and REGEX2 (by their kernel timestamps).
klog_gap() {
	klog_since | awk -v a="$1" -v b="$2" '
		{ t = $0; sub(/^\[ */, "", t); sub(/\].*/, "", t) }
		$0 ~ a { ta = t } $0 ~ b { tb = t }
		END { if (ta == "" || tb == "") exit 1; printf "%.3f\n", tb - ta }'
}

# The initiator's device coming back from a reset with its link down
# (tests 036, 055).  link_late_setup: the host's route to the target must
# come back with the link: the address of a /30 has its prefix route
# re-added by the kernel when the netdev comes up, while the veth pair's
# own routes (table 100, see veth_pair) are deleted when it goes down and
# are not.  Rules 98 and 99 take their place (99 for the host's connects,
# 98 for RDMA CM's and the IB CM's lookups bound to the netdev), and with
# the link down nothing may reach the target: without rules 104 and 105 a
# lookup would fall through to the local table (the target's address is
# local to this one kernel) and rxe would connect over lo.
link_late_setup() {
	run ip addr del "$INI_IP/32" dev "$INI_NETDEV"
	run ip addr add "$INI_IP/30" dev "$INI_NETDEV"
	run ip rule add pref 98 oif "$INI_NETDEV" to "$TGT_IP" lookup main
	run ip rule add pref 99 iif lo to "$TGT_IP" lookup main
	run ip rule add pref 104 iif lo to "$TGT_IP" unreachable
	run ip rule add pref 105 oif "$INI_NETDEV" to "$TGT_IP" unreachable
}
link_late_cleanup() {
	local p
	ip link set "$INI_NETDEV" up
	for p in 98 99 104 105; do ip rule del pref $p 2>/dev/null; done
	ip addr del "$INI_IP/30" dev "$INI_NETDEV" 2>/dev/null
	ip addr add "$INI_IP/32" dev "$INI_NETDEV" 2>/dev/null
	ip route replace "$TGT_IP" dev "$INI_NETDEV" src "$INI_IP" table 100
}

# reset_ini_link_late: a re-registration reset of the initiator's device,
# which comes back while its netdev is down; the link comes up
# LINK_DOWN_S (3) seconds later (the outage under test, not a wait for a
# state), logged "rr-link-up".
reset_ini_link_late() {
	cfg_w "/sys/class/infiniband/$INI_DEV/reset/expect" 1
	run rdma link delete "$INI_DEV"
	run ip link set "$INI_NETDEV" down
	run rdma link add "$INI_DEV" type rxe netdev "$INI_NETDEV"
	ip route get "$TGT_IP" >/dev/null 2>&1 && fail "$TGT_IP is reachable with the link down"
	wait_for 10 "$INI_DEV back from the reset" klog_has "rdma_reset: $INI_DEV: re-register reset done"
	grep -q DOWN "/sys/class/infiniband/$INI_DEV/ports/1/state" ||
		fail "$INI_DEV came back with its port $(cat "/sys/class/infiniband/$INI_DEV/ports/1/state")"
	sleep "${LINK_DOWN_S:-3}"
	run ip link set "$INI_NETDEV" up
	echo "rr-link-up" >/dev/kmsg
	wait_for 20 "$INI_DEV port ACTIVE" grep -q ACTIVE "/sys/class/infiniband/$INI_DEV/ports/1/state"
}
