# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared helpers for the VM test cases (sourced; runs inside the guest).
#
# Topology (one kernel, init_net): a veth pair, two Soft-RoCE devices.
#   initiator side: veth0 192.0.2.1  rxe0
#   target side:    veth1 192.0.2.2  rxe1
# The kernel would route traffic between two local addresses over lo, where
# rxe drops it; so the local routing table moves below policy rules that
# send traffic for the peer address out of the right veth.
# The addresses are TEST-NET-1 and exist only inside the VM.

INI_IP=192.0.2.1
TGT_IP=192.0.2.2
INI_DEV=rxe0
TGT_DEV=rxe1
INI_NETDEV=veth0
TGT_NETDEV=veth1

log() { echo "[$(date +%T.%3N)] $*"; }
fail() { echo "FAIL: $*"; exit 1; }
# skip REASON: this case cannot run here (a missing tool, a lane without the
# feature); the harness reports SKIP with REASON, counted apart.
skip() { echo "SKIP: $*"; exit 0; }
# Run a command; fail the case with its output if it fails.
run() { local out; out=$("$@" 2>&1) || fail "$* -> $out"; [ -z "$out" ] || echo "$out"; }

# wait_for SECONDS DESCRIPTION COMMAND...: poll COMMAND every 0.1 s.  The
# bound is multiplied by RR_TIME_SCALE (the debug-kernel lane runs slower).
wait_for() {
	local t=$(($1 * ${RR_TIME_SCALE:-1})) what=$2 end
	shift 2
	end=$(($(date +%s) + t))
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$end" ] || fail "timed out after ${t}s waiting for $what"
		sleep 0.1
	done
}

sysctl_w() { echo "$2" >"/proc/sys/${1//.//}"; }

# upstream_set: the set is the upstream series (Linux 7.2), not a 6.12
# backport.  That series grows struct ib_client and struct ib_device_ops, so
# Debian's own modules that use ib_core (built for the old layouts; 7.2 has
# no symbol CRCs to refuse them) cannot load next to it: the in-tree users
# the tests need are rebuilt with the set (Kbuild), and a comparison with a
# Debian ULP next to our core is not possible there.
upstream_set() { [ "$(uname -r | cut -d. -f1-2)" != 6.12 ]; }

# stock_built MODULE...: those of the modules the running kernel builds,
# by its modules.order (the list of every module it built): a lane's
# kernel may not build one (Debian's 7.2 has no CONFIG_SMC).  Each one
# left out is logged on stderr; a module listed there must then load.
stock_built() {
	local order m
	order=/lib/modules/$(uname -r)/modules.order
	[ -s "$order" ] || fail "no $order"
	for m in "$@"; do
		if grep -q "/${m//_/[-_]}\.ko" "$order"; then
			echo "$m"
		else
			log "$m: not built by Debian's $(uname -r) (not in modules.order)" >&2
		fi
	done
}

# veth_pair A B IPA IPB TABLE: a veth pair A <-> B in init_net with IPA on A
# and IPB on B, and policy routing (tables TABLE and TABLE+1, rule
# preferences from TABLE) so that traffic between the two local addresses
# goes over the pair instead of lo.
veth_pair() {
	local a=$1 b=$2 ipa=$3 ipb=$4 t=$5 d
	run ip link add "$a" type veth peer name "$b"
	for d in all default "$a" "$b"; do
		sysctl_w "net.ipv4.conf.$d.rp_filter" 0
		sysctl_w "net.ipv4.conf.$d.accept_local" 1
		sysctl_w "net.ipv4.conf.$d.arp_ignore" 1
	done
	run ip addr add "$ipa/32" dev "$a"
	run ip addr add "$ipb/32" dev "$b"
	run ip link set "$a" up
	run ip link set "$b" up
	# Locally generated packets (iif lo) for the peer go out of the veth.
	run ip rule add pref "$t" iif lo to "$ipb" lookup "$t"
	run ip rule add pref $((t + 1)) iif lo to "$ipa" lookup $((t + 1))
	# RDMA CM validates an incoming request with a FIB lookup of the
	# remote address bound to the receiving netdev (iif unset): match
	# those by output device.
	run ip rule add pref $((t + 2)) oif "$a" to "$ipb" lookup "$t"
	run ip rule add pref $((t + 3)) oif "$b" to "$ipa" lookup $((t + 1))
	run ip route add "$ipb" dev "$a" src "$ipa" table "$t"
	run ip route add "$ipa" dev "$b" src "$ipb" table $((t + 1))
}

# veth_pair_del A TABLE: undo veth_pair (its routes go with the netdevs).
veth_pair_del() {
	local p
	ip link del "$1" 2>/dev/null
	for p in 0 1 2 3; do ip rule del pref $(($2 + p)) 2>/dev/null; done
	return 0
}

setup_net() {
	ip link show veth0 >/dev/null 2>&1 && return 0
	run modprobe veth
	veth_pair veth0 veth1 "$INI_IP" "$TGT_IP" 100
	run ip rule add pref 1000 lookup local
	run ip rule del pref 0 lookup local
}

# rxe_add NAME NETDEV: add a Soft-RoCE device and wait until its port is up.
rxe_add() {
	run rdma link add "$1" type rxe netdev "$2"
	wait_for 20 "$1 port ACTIVE" grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state"
}

setup_rxe() {
	setup_net
	run modprobe rdma_rxe
	[ -e /sys/class/infiniband/$INI_DEV ] || rxe_add "$INI_DEV" "$INI_NETDEV"
	[ -e /sys/class/infiniband/$TGT_DEV ] || rxe_add "$TGT_DEV" "$TGT_NETDEV"
}

# cm_listening ADDR[:PORT]: an RDMA CM id is listening on that address.
cm_listening() { rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -q "src-addr $1"; }

# rping_check SERVER_IP CLIENT_IP: ten verified pings, server bound to SERVER_IP.
rping_check() {
	local srv=$1 cli=$2 pid
	rping -s -a "$srv" -C 10 -S 1024 >/tmp/rping-srv.log 2>&1 &
	pid=$!
	wait_for 10 "rping server listening on $srv" cm_listening "$srv:"
	rping -c -a "$srv" -I "$cli" -C 10 -S 1024 -v >/tmp/rping-cli.log 2>&1 ||
		{ cat /tmp/rping-cli.log; fail "rping client $cli -> $srv failed"; }
	wait "$pid" || { cat /tmp/rping-srv.log; fail "rping server $srv failed"; }
	[ "$(grep -c 'ping data' /tmp/rping-cli.log)" -eq 10 ] ||
		{ cat /tmp/rping-cli.log; fail "rping $cli -> $srv: expected 10 verified pings"; }
	log "rping $cli -> $srv: 10 pings"
}

# our_modules: the module names of our set, in build order, from kbuild's
# modules.order (scripts/modules.sh, the one list).
our_modules() { "$PROJ/scripts/modules.sh" "$MODSRC" | awk '{ gsub("-", "_", $2); print $2 }'; }

# Debian's stock module tree (no updates/): modprobe -d $STOCKROOT.
# shellcheck disable=SC2034 # for the cases
STOCKROOT=$PROJ/${RR_STOCKROOT:-build/vm/modroot-stock}

# stack_unload: every RDMA module of either build, top down.
stack_unload() {
	local m
	# Ours and Debian's have the same names; build order reversed is an
	# order in which nothing unloaded is still used.
	# The in-tree users that only Debian's build has (6.12: rpcrdma,
	# ib_ipoib, smc) go first.
	# Debian's 7.2 splits ib_uverbs_support out of ib_uverbs, which the
	# set does not: it goes after ib_uverbs, then ib_core.
	for m in rr_reset_client smc_diag smc ib_ipoib rpcrdma $(our_modules | tac) \
		ib_uverbs_support ib_core; do
		[ -d "/sys/module/$m" ] && rmmod "$m" 2>/dev/null
	done
	[ ! -d /sys/module/ib_core ] || fail "ib_core still loaded: held by $(ls /sys/module/ib_core/holders)"
}

# stock_begin: from here to stock_end the case runs Debian's own module
# stack (modprobe -d "$STOCKROOT"), to compare it with ours in the same
# run.  What Debian's modules log in between is the stock behaviour under
# comparison: tests/run.sh notes its kernel-log reports beside the
# verdict instead of failing the case on them.  It starts with nothing of
# either RDMA stack loaded.
stock_begin() {
	stack_unload
	[ -d "$STOCKROOT/lib/modules/$(uname -r)/kernel" ] || fail "no stock module tree at $STOCKROOT"
	echo "rr-stock: begin" >/dev/kmsg
}
# stock_end: each module of the set's names still loaded must be Debian's:
# in-tree, not out-of-tree ("O" taint) as ours; unload the stack and close
# the window.
stock_end() {
	local m
	for m in $(our_modules); do
		[ -d "/sys/module/$m" ] || continue
		case "$(cat "/sys/module/$m/taint")" in
		*O*) fail "the stock window ran the set's $m, not Debian's" ;;
		esac
	done
	stack_unload
	echo "rr-stock: end" >/dev/kmsg
}

our_ko() { find "$MODSRC" -name "${1//_/[-_]}.ko" | head -1; }

# loaded_is MODULE KO: the loaded MODULE is KO's build: the same srcversion
# (make and the DKMS package give each of our modules one, from a hash of
# its sources; Debian's modules have none).
loaded_is() {
	local built
	built=$(modinfo -F srcversion "$2")
	[ -n "$built" ] && [ "$(cat "/sys/module/$1/srcversion" 2>/dev/null)" = "$built" ]
}

# cfg_w FILE VALUE: write one configfs/sysfs attribute, failing the case on error.
cfg_w() { printf '%s\n' "$2" >"$1" || fail "write '$2' > $1"; }

# io_size SIZE: SIZE (a number of MiB, "48M") divided by RR_IO_DIV, rounded
# up.  make check-debug sets RR_IO_DIV: the debug kernel moves data 10 to
# 18 times slower under TCG, so its cases keep every reset and check with
# less data between them (fio_during still fails if the I/O ends first).
io_size() {
	local m=${1%M} div=${RR_IO_DIV:-1}
	case "$m" in '' | *[!0-9]*) fail "io_size: '$1' is not a size in M" >&2 ;; esac
	case "$div" in '' | 0 | *[!0-9]*) fail "RR_IO_DIV must be a positive integer, not '$div'" >&2 ;; esac
	echo "$(((m + div - 1) / div))M"
}

# fio_verify DEV [SIZE]: write DEV with random 4k blocks carrying crc32c
# headers, then read everything back and verify it.  DEV must be a block
# device: a vanished node would otherwise be recreated as a regular file.
fio_verify() {
	local dev=$1 size
	size=$(io_size "${2:-32M}") || exit 1
	[ -b "$dev" ] || fail "$dev is not a block device"
	fio --name=verify --filename="$dev" --ioengine=libaio --direct=1 \
		--rw=randwrite --bs=4k --iodepth=8 --size="$size" \
		--verify=crc32c --do_verify=1 --verify_fatal=1 \
		--output=/tmp/fio.log --output-format=normal ||
		{ cat /tmp/fio.log; fail "fio verify on $dev failed"; }
	grep -q 'err= 0' /tmp/fio.log || { cat /tmp/fio.log; fail "fio on $dev reported errors"; }
	log "fio: $size written and verified (crc32c) on $dev"
}

. "$TESTLIB/nvme.sh"
. "$TESTLIB/srp.sh"
. "$TESTLIB/iser.sh"
. "$TESTLIB/reset.sh"
# The two-node topology overrides the network set-up (tests/lib/node.sh).
if [ -n "${NODE_ROLE:-}" ]; then
	. "$TESTLIB/node.sh"
fi
