# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The two-node topology ("VM: two-node" cases, tests/run.sh): two VMs, each
# with its own kernel and Soft-RoCE device, joined by a QEMU socket network.
#   initiator node: eth0 192.0.2.1  rxe0   (runs the case)
#   target node:    eth0 192.0.2.2  rxe1   (runs tests/vm/node-agent.sh)
# The same addresses and device names as the one-VM topology, so the
# helpers work on either node unchanged; "peer CMD" runs CMD on the target
# node.  Sourced by common.sh when NODE_ROLE is set.

# shellcheck disable=SC2034 # common.sh's names, for the cases
INI_NETDEV=eth0
TGT_NETDEV=eth0
MBOX=/mbox

setup_net() {
	local me=$INI_IP other=$TGT_IP
	[ "$NODE_ROLE" = target ] && me=$TGT_IP other=$INI_IP
	ip -4 addr show dev eth0 2>/dev/null | grep -q "inet $me/" && return 0
	# No udev in the guests: load the NIC's driver by hand.
	run modprobe virtio_net
	wait_for 10 "eth0" ip link show eth0
	run ip addr add "$me/24" dev eth0
	run ip link set eth0 up
	# The initiator node is set up second (cases run "peer setup_rxe"
	# first): from there the other node must answer.
	[ "$NODE_ROLE" = target ] ||
		wait_for 30 "$other reachable over eth0" ping -c1 -W1 "$other"
}

# Only this node's device.
setup_rxe() {
	setup_net
	run modprobe rdma_rxe
	if [ "$NODE_ROLE" = target ]; then
		[ -e "/sys/class/infiniband/$TGT_DEV" ] || rxe_add "$TGT_DEV" eth0
	else
		[ -e "/sys/class/infiniband/$INI_DEV" ] || rxe_add "$INI_DEV" eth0
	fi
}

# peer CMD [ARG...]: run CMD on the target node (test library loaded) and
# wait for it; print its output and return its exit status.  No target node
# answering within PEER_TIMEOUT (default 300 s) is an error.
peer() {
	local id end rc
	[ "$NODE_ROLE" = initiator ] || fail "peer: only the initiator node has a peer"
	id=$BASHPID.$RANDOM$RANDOM
	printf '%q ' "$@" >"$MBOX/.req.$id"
	mv "$MBOX/.req.$id" "$MBOX/req.$id"
	end=$(($(date +%s) + ${PEER_TIMEOUT:-300}))
	until [ -e "$MBOX/rsp.$id" ]; do
		[ -e "$MBOX/peer-exited" ] && fail "peer: the target node is gone (its console.log says why)"
		[ "$(date +%s)" -lt "$end" ] || fail "peer: no answer from the target node to: $*"
		sleep 0.05
	done
	rc=$(head -1 "$MBOX/rsp.$id")
	tail -n +2 "$MBOX/rsp.$id" | sed '/^$/d'
	rm -f "$MBOX/rsp.$id"
	return "$rc"
}
