# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# SRP helpers: ib_srpt target (LIO through configfs, file-backed LUN) on the
# target side, ib_srp initiator logging in over RDMA/CM on the initiator side.

LIO=/sys/kernel/config/target
SRP_CM_PORT=5555

# lio_fileio NAME: a 128 MiB fileio backstore at $LIO/core/fileio_0/NAME.
lio_fileio() {
	local d=$LIO/core/fileio_0/$1
	run modprobe target_core_file
	mkdir -p "$d" || fail "mkdir $d"
	cfg_w "$d/control" "fd_dev_name=/tmp/$1.img,fd_dev_size=134217728,fd_buffered_io=1"
	cfg_w "$d/enable" 1
}

lio_fileio_del() {
	rmdir "$LIO/core/fileio_0/$1" 2>/dev/null
	rmdir "$LIO/core/fileio_0" 2>/dev/null
	rm -f "/tmp/$1.img"
}

# rm_links DIR...: remove the configfs symlinks among the arguments.
rm_links() { local l; for l in "$@"; do [ -L "$l" ] && rm -f "$l"; done; return 0; }

# srpt_port_name DEV: the target-port (wwn) name srpt accepts for port 1 of
# DEV: the interface id of GID 0, as four groups (srpt_format_guid()).
srpt_port_name() { cut -d: -f5-8 "/sys/class/infiniband/$1/ports/1/gids/0"; }

# srpt_setup DEV: a LUN on DEV's target port, RDMA/CM listener on SRP_CM_PORT.
# ib_srpt has no demo mode, so the initiator needs an ACL with a mapped LUN.
# The ACL is named after the initiator's address only: stock ib_srpt named
# RDMA/CM sessions after the target's own address (fixed by patch 0017), so
# a login here fails without that fix.
srpt_setup() {
	local dev=$1 wwn t
	run modprobe ib_srpt
	lio_fileio srp0
	mkdir -p "$LIO/srpt" || fail "mkdir $LIO/srpt"
	cfg_w "$LIO/srpt/discovery_auth/rdma_cm_port" "$SRP_CM_PORT"
	wwn=$(srpt_port_name "$dev")
	t=$LIO/srpt/$wwn/$wwn
	mkdir "$LIO/srpt/$wwn" || fail "mkdir srpt target port $wwn"
	mkdir "$t" "$t/lun/lun_0" || fail "mkdir srpt tpg"
	ln -s "$LIO/core/fileio_0/srp0" "$t/lun/lun_0/srp0" || fail "link LUN"
	# The initiator's ACL, named after its address (patch 0017).
	mkdir "$t/acls/$INI_IP" "$t/acls/$INI_IP/lun_0" || fail "mkdir ACL $INI_IP"
	ln -s "$t/lun/lun_0" "$t/acls/$INI_IP/lun_0/lun_0" || fail "map LUN for $INI_IP"
	cfg_w "$t/enable" 1
}

srpt_teardown() {
	local wd t a
	for wd in "$LIO"/srpt/*:*; do
		[ -d "$wd" ] || continue
		for t in "$wd"/*; do
			[ -e "$t/enable" ] || continue
			echo 0 >"$t/enable"
			for a in "$t"/acls/*; do
				[ -d "$a" ] || continue
				rm_links "$a"/lun_*/*
				rmdir "$a"/lun_* "$a"
			done
			rm_links "$t"/lun/lun_*/*
			rmdir "$t"/lun/lun_* "$t"
		done
		rmdir "$wd"
	done
	[ -e "$LIO/srpt/discovery_auth/rdma_cm_port" ] &&
		echo 0 >"$LIO/srpt/discovery_auth/rdma_cm_port"
	rmdir "$LIO/srpt" 2>/dev/null
	lio_fileio_del srp0
}

# srp_login DEV ADDR: log in from DEV's srp host to ADDR over RDMA/CM.
# srpt accepts a login whose id_ext and ioc_guid are its service GUID.
srp_login() {
	local g
	run modprobe sd_mod
	run modprobe ib_srp
	g=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid)
	# ib_srp refuses a login (EEXIST) to a target port it is still
	# removing (srp_conn_unique() counts it until srp_remove_work() ends,
	# after its SCSI host is gone): that removal ends on its own.
	srp_add_target "/sys/class/infiniband_srp/srp-$1-1/add_target" \
		"id_ext=$g,ioc_guid=$g,dest=$2:$SRP_CM_PORT"
	wait_for 30 "an SRP SCSI disk" srp_dev
}

# srp_add_target FILE OPTIONS: write OPTIONS to FILE, again for up to 10 s
# while the write fails with EEXIST; any other error fails the case.
srp_add_target() {
	local err end=$(($(date +%s) + 10 * ${RR_TIME_SCALE:-1}))
	until err=$( { printf '%s\n' "$2" >"$1"; } 2>&1); do
		case "$err" in
		*"File exists"*) [ "$(date +%s)" -lt "$end" ] ||
			fail "write '$2' > $1: still EEXIST after 10 s: $(dmesg | grep -m1 'Already connected')" ;;
		*) fail "write '$2' > $1: $err" ;;
		esac
		sleep 0.1
	done
}

# srp_dev: print /dev/sdX of the (first) SRP target's disk.
srp_dev() {
	local r h b
	for r in /sys/class/srp_remote_ports/port-*; do
		[ -e "$r" ] || continue
		h=${r##*/port-}
		h=${h%%:*}
		for b in "/sys/class/scsi_host/host$h/device/target$h:"*/"$h:"*/block/*; do
			[ -b "/dev/${b##*/}" ] && { echo "/dev/${b##*/}"; return 0; }
		done
	done
	return 1
}

srp_logout() {
	local r
	for r in /sys/class/srp_remote_ports/port-*/delete; do
		[ -e "$r" ] && echo 1 >"$r"
	done
	wait_for 20 "SRP remote ports gone" sh -c '! ls /sys/class/srp_remote_ports/ | grep -q port'
	# The rport goes first; the SCSI host and the channels after it.
	wait_for 20 "SRP SCSI hosts gone" no_srp_hosts
}

# no_srp_hosts: no SCSI host of ib_srp is left.
no_srp_hosts() { ! grep -qx ib_srp /sys/class/scsi_host/host*/proc_name 2>/dev/null; }

# srp_hctl DEV: the SCSI address (host:channel:target:lun) of /dev/DEV.
srp_hctl() { disk_addr "$1"; }

# srp_rport_state: the state of the (first) SRP remote port.
srp_rport_state() {
	local r
	for r in /sys/class/srp_remote_ports/port-*/state; do
		[ -e "$r" ] && { cat "$r"; return 0; }
	done
	return 1
}
srp_running() { [ "$(srp_rport_state)" = running ]; }

# srp_survives ACTION: run ACTION (a reset) under fio verify; the same
# /dev/sdX with the same SCSI address and device number, the rport running.
srp_survives() { disk_survives srp_dev srp_running "$1"; }

# srpt_config: the LIO configuration of ib_srpt, one line per configfs
# entry with the value of each enable attribute and the target of each link.
srpt_config() {
	find "$LIO/srpt" \( -name enable -o -type l -o -type d \) 2>/dev/null | sort |
		while read -r e; do
			if [ -L "$e" ]; then echo "$e -> $(readlink "$e")"
			elif [ -f "$e" ]; then echo "$e = $(cat "$e")"
			else echo "$e"; fi
		done
}

# Target-side resets; the initiator logs in again at its reconnect_delay.
srp_reconnect_delay() {
	local r
	for r in /sys/class/srp_remote_ports/port-*/reconnect_delay; do
		cfg_w "$r" "$1"
	done
}

# srp_fast_io_fail_tmo SECONDS: held I/O fails that long after a lost
# connection (15 s by default; below dev_loss_tmo, 600 s by default).
srp_fast_io_fail_tmo() {
	local r
	for r in /sys/class/srp_remote_ports/port-*/fast_io_fail_tmo; do
		cfg_w "$r" "$1"
	done
}
