# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# NFS over RDMA helpers: the kernel's nfsd (svcrdma) on the target's side,
# exporting a tmpfs, and an NFS v4.2 mount over RDMA (rpcrdma's client) on
# the initiator's side, through port 20049.

NFS_PORT=20049
NFS_EXPORT=/tmp/nfs-export
NFS_MNT=/tmp/nfs-mnt

# nfsd_start wildcard|bound: export a tmpfs to the initiator and start
# nfsd (v4 only, 10 s lease and grace) with an RDMA listener on port
# 20049: on every address (rpc.nfsd, which writes /proc/fs/nfsd/portlist:
# a port only), or bound to the target's address (nfsdctl, nfsd's netlink
# listener interface, nfs-utils 2.7 and later).
nfsd_start() {
	run modprobe nfsd
	run modprobe rpcrdma
	mountpoint -q /proc/fs/nfsd || run mount -t nfsd nfsd /proc/fs/nfsd
	mkdir -p /var/lib/nfs/v4recovery "$NFS_EXPORT"
	mountpoint -q "$NFS_EXPORT" || run mount -t tmpfs -o size=160M tmpfs "$NFS_EXPORT"
	run exportfs -o rw,fsid=0,no_root_squash,insecure,no_subtree_check "$INI_IP:$NFS_EXPORT"
	pgrep -x rpc.mountd >/dev/null || run rpc.mountd -N 2 -N 3
	case "$1" in
	wildcard) run rpc.nfsd -N 3 -G 10 -L 10 --rdma="$NFS_PORT" 4 ;;
	bound)
		# The lane's tools may not set one: NFSD_WHY says why, and
		# nfsd_start returns 1.
		command -v nfsdctl >/dev/null || { NFSD_WHY="no nfsdctl in $(dpkg-query -W -f '${Package} ${Version}' nfs-kernel-server)"; return 1; }
		echo 10 >/proc/fs/nfsd/nfsv4leasetime
		echo 10 >/proc/fs/nfsd/nfsv4gracetime
		run nfsdctl version -3
		NFSD_WHY=$(nfsdctl listener "+rdma:$TGT_IP:$NFS_PORT" 2>&1) ||
			{ NFSD_WHY="nfsdctl $(nfsdctl --version 2>&1) listener +rdma:$TGT_IP:$NFS_PORT: $NFSD_WHY"; return 1; }
		run nfsdctl threads 4
		;;
	*) fail "nfsd_start: wildcard or bound, not '$1'" ;;
	esac
	wait_for 10 "nfsd listening on RDMA port $NFS_PORT" cm_listening "[^ ]*:$NFS_PORT"
}

# nfs_across NAME COMMAND...: nfs_fio_during COMMAND; the mount must be the
# same after it; NFS_MS[NAME] is the ms from COMMAND's end to the next
# WRITE the mount sent.
declare -A NFS_MS
# shellcheck disable=SC2034 # NFS_MS: for the cases
nfs_across() {
	local name=$1 id
	shift
	id=$(nfs_mount_id)
	nfs_fio_during "$@"
	[ "$(nfs_mount_id)" = "$id" ] || fail "$name: the mount is now '$(nfs_mount_id)', was '$id'"
	NFS_MS[$name]=$NFS_FIO_MS
}

# nfsd_stop: stop nfsd and unexport (nothing left for the next case).
nfsd_stop() {
	rpc.nfsd 0 2>/dev/null
	exportfs -ua 2>/dev/null
	pkill -x rpc.mountd 2>/dev/null
	mountpoint -q "$NFS_EXPORT" && umount "$NFS_EXPORT"
	return 0
}

# nfs_mount: mount the export over RDMA on the initiator's side.
nfs_mount() {
	mkdir -p "$NFS_MNT"
	run mount -t nfs4 -o "vers=4.2,proto=rdma,port=$NFS_PORT,clientaddr=$INI_IP" "$TGT_IP:/" "$NFS_MNT"
	grep -q " $NFS_MNT nfs4 .*proto=rdma" /proc/mounts || fail "$NFS_MNT is not an NFS mount over RDMA"
}

# nfs_umount: unmount (forcibly, after a failure).
nfs_umount() {
	mountpoint -q "$NFS_MNT" || return 0
	umount "$NFS_MNT" 2>/dev/null || umount -f "$NFS_MNT" 2>/dev/null
	return 0
}

# nfs_writes: WRITE operations the mount has sent.
nfs_writes() { awk -v m="$NFS_MNT" '$1 == "device" { on = ($5 == m) } on && $1 == "WRITE:" { print $2; exit }' /proc/self/mountstats; }

# nfs_mount_id: what identifies the mount: its device number and the
# server's address the client uses.
nfs_mount_id() { echo "$(stat -c %d "$NFS_MNT") $(awk -v m="$NFS_MNT" '$2 == m { print $1 }' /proc/mounts)"; }

# nfs_fio_during CMD...: write a file on the mount with crc32c-tagged
# random blocks (O_DIRECT), run CMD once fio is writing, then let fio
# finish and read everything back.  Fails on any I/O error or verify
# failure, or if fio ended before CMD did.  NFS_FIO_MS: the ms from CMD's
# end to the mount's next WRITE sent.
nfs_fio_during() {
	local w0 pid size t1 n
	size=$(io_size "${FIO_SIZE:-24M}") || exit 1
	w0=$(nfs_writes)
	fio --name=nfs --filename="$NFS_MNT/fio.data" --ioengine=libaio --direct=1 \
		--rw=randwrite --bs=4k --iodepth=8 --size="$size" \
		--verify=crc32c --do_verify=1 --verify_fatal=1 \
		--output=/tmp/fio-nfs.log &
	pid=$!
	wait_for 60 "fio writing over NFS" nfs_writes_past $((w0 + 200))
	log "fio is writing over NFS; running: $*"
	"$@"
	t1=$(date +%s%N)
	kill -0 "$pid" 2>/dev/null ||
		fail "fio had ended before '$*' returned: no I/O across it (raise FIO_SIZE)"
	n=$(nfs_writes)
	wait_for 60 "an NFS WRITE after '$*'" nfs_writes_past "$n"
	NFS_FIO_MS=$((($(date +%s%N) - t1) / 1000000))
	wait "$pid" || { cat /tmp/fio-nfs.log; fail "fio failed across: $*"; }
	grep -q 'err= 0' /tmp/fio-nfs.log || { cat /tmp/fio-nfs.log; fail "fio reported errors across: $*"; }
	log "fio: written over NFS through '$*' and verified, no errors; writes again after ${NFS_FIO_MS} ms"
}
nfs_writes_past() { [ "$(nfs_writes)" -gt "$1" ]; }
