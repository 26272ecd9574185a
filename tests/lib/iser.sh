# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# iSER helpers: LIO iSCSI target with an iSER portal (ib_isert) on the target
# side, open-iscsi with the iser transport (ib_iser, iscsid) on the initiator.

ISER_IQN=iqn.2003-01.org.example.rdma-reset:iser
ISER_PORT=3260

# iser_target_setup ADDR: a portal on ADDR:3260 with iSER enabled, one
# file-backed LUN, no authentication, demo-mode ACLs.
iser_target_setup() {
	local addr=$1 t=$LIO/iscsi/$ISER_IQN/tpgt_1
	run modprobe ib_isert
	iser_target_teardown	# whatever an earlier, failed case left
	lio_fileio iser0
	mkdir -p "$LIO/iscsi/$ISER_IQN" || fail "mkdir iqn"
	mkdir "$t" "$t/np/$addr:$ISER_PORT" || fail "mkdir tpg/portal"
	cfg_w "$t/np/$addr:$ISER_PORT/iser" 1
	mkdir "$t/lun/lun_0" || fail "mkdir lun"
	ln -s "$LIO/core/fileio_0/iser0" "$t/lun/lun_0/iser0" || fail "link LUN"
	cfg_w "$t/attrib/authentication" 0
	cfg_w "$t/attrib/generate_node_acls" 1
	cfg_w "$t/attrib/cache_dynamic_acls" 1
	cfg_w "$t/attrib/demo_mode_write_protect" 0
	cfg_w "$t/enable" 1
}

iser_target_teardown() {
	local t=$LIO/iscsi/$ISER_IQN/tpgt_1
	[ -e "$t/enable" ] && echo 0 >"$t/enable"
	rm_links "$t"/lun/lun_*/*
	rmdir "$t"/lun/lun_* 2>/dev/null
	rmdir "$t"/np/* 2>/dev/null
	rmdir "$t" "$LIO/iscsi/$ISER_IQN" 2>/dev/null
	lio_fileio_del iser0
}

iscsid_running() { grep -q ISCSIADM_ABSTRACT_NAMESPACE /proc/net/unix; }

# iscsid_start: iscsid in its own session (it signals its process group on
# exit), with a throw-away initiator name.
iscsid_start() {
	iscsid_running && return 0
	run modprobe ib_iser
	run modprobe sd_mod
	mkdir -p /etc/iscsi /run/lock/iscsi
	echo "InitiatorName=iqn.2004-10.org.example:rr-vm" >/etc/iscsi/initiatorname.iscsi
	setsid iscsid -f </dev/null >>/tmp/iscsid.log 2>&1 &
	echo $! >/tmp/iscsid.pid
	wait_for 10 "iscsid" iscsid_running
}

iscsid_stop() {
	[ -s /tmp/iscsid.pid ] && kill "$(cat /tmp/iscsid.pid)" 2>/dev/null
	rm -f /tmp/iscsid.pid
	wait_for 10 "iscsid exit" sh -c '! grep -q ISCSIADM_ABSTRACT_NAMESPACE /proc/net/unix'
}

# iser_login ADDR [NAME=VALUE...]: a static node record bound to the iser
# transport, with the node settings given (iscsiadm's names), login.
iser_login() {
	local p=$1:$ISER_PORT kv
	shift
	iscsid_start
	# A session an earlier, failed case left behind.
	iscsiadm -m node -T "$ISER_IQN" -p "$p" -I iser --logout >/dev/null 2>&1
	run iscsiadm -m node -o new -T "$ISER_IQN" -p "$p" -I iser
	for kv in "$@"; do
		run iscsiadm -m node -T "$ISER_IQN" -p "$p" -I iser -o update -n "${kv%%=*}" -v "${kv#*=}"
	done
	run iscsiadm -m node -T "$ISER_IQN" -p "$p" -I iser --login
	wait_for 30 "an iSER SCSI disk" iser_dev
}

# iser_portal_is SESSION [ADDR]: the session logged in through portal ADDR
# (any portal without ADDR).
iser_portal_is() {
	[ -z "${2:-}" ] || grep -qx "$2" "$1"/device/connection*/iscsi_connection/*/persistent_address 2>/dev/null
}

# iser_dev [ADDR]: print /dev/sdX of our session's disk (through ADDR).
iser_dev() {
	local s b
	for s in /sys/class/iscsi_session/session*; do
		[ "$(cat "$s/targetname" 2>/dev/null)" = "$ISER_IQN" ] || continue
		iser_portal_is "$s" "${1:-}" || continue
		for b in "$s"/device/target*/*:*/block/*; do
			[ -b "/dev/${b##*/}" ] && { echo "/dev/${b##*/}"; return 0; }
		done
	done
	return 1
}

# iser_transport: the transport of our session as iscsiadm reports it.
iser_transport() {
	iscsiadm -m session 2>/dev/null | awk -v t="$ISER_IQN" '$4 == t { sub(":", "", $1); print $1 }'
}

iser_logout() {
	local p=$1:$ISER_PORT
	iscsiadm -m node -T "$ISER_IQN" -p "$p" -I iser --logout >/dev/null
	iscsiadm -m node -o delete -T "$ISER_IQN" -p "$p" -I iser >/dev/null
	iscsid_stop
}

# iser_state [ADDR]: our session's state (LOGGED_IN, FAILED, FREE).
iser_state() {
	local s
	for s in /sys/class/iscsi_session/session*; do
		[ "$(cat "$s/targetname" 2>/dev/null)" = "$ISER_IQN" ] && iser_portal_is "$s" "${1:-}" &&
			{ cat "$s/state"; return 0; }
	done
	return 1
}
iser_logged_in() { [ "$(iser_state "${1:-}")" = LOGGED_IN ]; }

# iser_recovery ACTION: run ACTION (a reset that returns once the device is
# back), then time until the session is logged in again; sets RECOVERY.
iser_recovery() {
	local t0
	"$1"
	t0=$(date +%s.%N)
	wait_for 60 "the iSER session logged in after $1" iser_logged_in
	RECOVERY=$(echo "$(date +%s.%N) - $t0" | bc)
}

# iser_survives ACTION: ACTION under fio; the same SCSI disk, no errors.
iser_survives() {
	disk_survives iser_dev iser_logged_in iser_recovery "$1"
	log "$1: logged in ${RECOVERY}s after the device was back"
}
