# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# NVMe over RDMA helpers: nvmet-rdma target (configfs, file-backed
# namespace) on the target side, nvme-rdma host on the initiator side.

NVME_NQN=nqn.2014-08.org.example:rdma-reset
NVME_PORT=4420
NVME_HOSTID=8c7c2a3e-1a2b-4c3d-9e8f-0123456789ab
NVMET=/sys/kernel/config/nvmet

# nvmet_setup ADDR [PORTID]: export a 128 MiB file as namespace 1 on ADDR.
nvmet_setup() {
	local addr=$1 id=${2:-1} s=$NVMET/subsystems/$NVME_NQN p
	run modprobe nvmet-rdma
	p=$NVMET/ports/$id
	if [ ! -d "$s" ]; then
		truncate -s 128M /tmp/nvmet-ns1.img
		mkdir "$s" || fail "mkdir $s"
		cfg_w "$s/attr_allow_any_host" 1
		mkdir "$s/namespaces/1" || fail "mkdir namespace"
		cfg_w "$s/namespaces/1/device_path" /tmp/nvmet-ns1.img
		cfg_w "$s/namespaces/1/buffered_io" 1
		cfg_w "$s/namespaces/1/enable" 1
	fi
	mkdir "$p" || fail "mkdir $p"
	cfg_w "$p/addr_trtype" rdma
	cfg_w "$p/addr_adrfam" ipv4
	cfg_w "$p/addr_traddr" "$addr"
	cfg_w "$p/addr_trsvcid" "$NVME_PORT"
	ln -s "$s" "$p/subsystems/$NVME_NQN" || fail "enable nvmet port $id"
}

nvmet_teardown() {
	local p s=$NVMET/subsystems/$NVME_NQN
	for p in "$NVMET"/ports/*; do
		[ -d "$p" ] || continue
		rm -f "$p/subsystems/$NVME_NQN"
		rmdir "$p"
	done
	if [ -d "$s" ]; then
		echo 0 >"$s/namespaces/1/enable"
		rmdir "$s/namespaces/1" "$s"
	fi
	rm -f /tmp/nvmet-ns1.img
}

# nvme_connect ADDR: connect over RDMA; prints nothing, see nvme_dev.
nvme_connect() {
	run modprobe nvme-rdma
	run nvme connect -t rdma -a "$1" -s "$NVME_PORT" -n "$NVME_NQN" \
		-q "nqn.2014-08.org.nvmexpress:uuid:$NVME_HOSTID" -I "$NVME_HOSTID" \
		-l "${NVME_LOSS_TMO:-60}" -c "${NVME_RECONNECT_DELAY:-1}"
	wait_for 20 "an nvme namespace of $NVME_NQN" nvme_dev
}

# nvme_dev: print /dev/nvmeXnY of our subsystem (multipath head or plain).
nvme_dev() {
	local s b n
	for s in /sys/class/nvme-subsystem/nvme-subsys*; do
		[ "$(cat "$s/subsysnqn" 2>/dev/null)" = "$NVME_NQN" ] || continue
		for b in "$s"/nvme*n* "$s"/nvme*/nvme*n*; do
			n=${b##*/}
			case $n in *c*n*) continue ;; esac
			[ -b "/dev/$n" ] && { echo "/dev/$n"; return 0; }
		done
	done
	return 1
}

# nvme_ctrl_state: state of our controller (live, connecting, ...).
nvme_ctrl_state() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NVME_NQN" ] && { cat "$c/state"; return 0; }
	done
	return 1
}

nvme_disconnect() {
	nvme disconnect -n "$NVME_NQN" >/dev/null 2>&1
	wait_for 20 "controller gone" sh -c '! ls /sys/class/nvme/ 2>/dev/null | grep -q nvme'
}

# blkdev_id DEV: major:minor of a block device node.
blkdev_id() { stat -L -c '%t:%T' "$1"; }

# writes_done DEV: write I/Os completed on DEV (field 5 of its stat).
writes_done() { awk '{ print $5 }' "/sys/block/${1#/dev/}/stat"; }

# fio_during DEV CMD...: write DEV with crc32c-tagged random blocks, run
# CMD once fio is writing, then let fio finish and read everything back.
# Fails on any I/O error or verify failure.
fio_during() {
	local dev=$1 w0 pid size
	shift
	[ -b "$dev" ] || fail "$dev is not a block device"
	size=$(io_size "${FIO_SIZE:-48M}") || exit 1
	w0=$(writes_done "$dev")
	fio --name=during --filename="$dev" --ioengine=libaio --direct=1 \
		--rw=randwrite --bs=4k --iodepth=8 --size="$size" \
		--verify=crc32c --do_verify=1 --verify_fatal=1 \
		--output=/tmp/fio-during.log &
	pid=$!
	wait_for 30 "fio writing to $dev" sh -c "[ \$(awk '{ print \$5 }' /sys/block/${dev#/dev/}/stat) -gt $((w0 + 200)) ]"
	log "fio is writing; running: $*"
	"$@"
	# The action must have ended inside the I/O, or it proved nothing
	# about I/O across a reset (a zombie fio counts as running: the
	# check can only err towards passing, never fail a good run).
	kill -0 "$pid" 2>/dev/null ||
		fail "fio had ended before '$*' returned: no I/O across it (raise FIO_SIZE)"
	log "'$*' returned with fio still running"
	wait "$pid" || { cat /tmp/fio-during.log; fail "fio failed across: $*"; }
	grep -q 'err= 0' /tmp/fio-during.log || { cat /tmp/fio-during.log; fail "fio reported errors across: $*"; }
	log "fio: written through '$*' and verified, no errors"
}

nvme_live() { [ "$(nvme_ctrl_state)" = live ]; }

# Reset actions for fio_during; each returns once the device is back.
reset_tgt_in_place() { reset_in_place "$TGT_DEV"; }
reset_ini_in_place() { reset_in_place "$INI_DEV"; }
reset_tgt_reregister() { reset_reregister "$TGT_DEV" "$TGT_NETDEV"; }
reset_ini_reregister() { reset_reregister "$INI_DEV" "$INI_NETDEV"; }
reset_both_tgt_first() { reset_in_place "$TGT_DEV"; reset_in_place "$INI_DEV"; }
reset_both_ini_first() { reset_in_place "$INI_DEV"; reset_in_place "$TGT_DEV"; }
reset_both_reregister() { reset_reregister "$TGT_DEV" "$TGT_NETDEV"; reset_reregister "$INI_DEV" "$INI_NETDEV"; }

# disk_addr DEV: where the disk hangs (SCSI host:channel:target:lun, or the
# NVMe controller).
disk_addr() { basename "$(readlink -f "/sys/block/${1#/dev/}/device")"; }

# disk_survives DEVFN READY ACTION...: run ACTION under fio verify (no
# error); then READY holds, and DEVFN prints the same disk, at the same
# address, with the same device number.
disk_survives() {
	local devfn=$1 ready=$2 dev id addr
	shift 2
	dev=$($devfn) || fail "no disk ($devfn)"
	id=$(blkdev_id "$dev")
	addr=$(disk_addr "$dev")
	ev_mark
	fio_during "$dev" "$@"
	wait_for 30 "$ready after $*" "$ready"
	[ "$($devfn)" = "$dev" ] || fail "$*: the disk is $($devfn), was $dev"
	[ "$(disk_addr "$dev")" = "$addr" ] || fail "$*: $dev is at $(disk_addr "$dev"), was $addr"
	[ "$(blkdev_id "$dev")" = "$id" ] || fail "$*: $dev is now $(blkdev_id "$dev"), was $id"
	log "$*: $dev ($addr, $id) survived"
}

# nvme_survives ACTION: ACTION under fio; the same namespace device, zero
# errors, the controller live again and never deleted.
nvme_survives() {
	disk_survives nvme_dev nvme_live "$1"
	klog_since | grep -q "Removing ctrl" && fail "$1: a controller was deleted"
	return 0
}
