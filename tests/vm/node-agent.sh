#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# node-agent.sh MBOX: what the target node of a two-node case runs instead of
# cases.  The initiator node (tests/lib/node.sh, peer) drops a command line
# into MBOX/req.ID; the agent runs it with the test library loaded and
# answers in MBOX/rsp.ID: the exit status on the first line, the output
# after it.  Both files appear by rename, so neither side reads a partial
# one.  MBOX/stop (written by the host once the initiator node is done)
# ends the agent.
set -u
mbox=$1
cd /tmp || exit 1
echo "rr-node: target node agent serving $mbox" >/dev/kmsg
while [ ! -e "$mbox/stop" ]; do
	for r in "$mbox"/req.*; do
		[ -e "$r" ] || continue
		id=${r#"$mbox"/req.}
		cmd=$(cat "$r")
		rm -f "$r"
		echo "rr-node: $cmd" >/dev/kmsg
		out=$(bash -c '. "$TESTLIB/common.sh"; eval "$1"' node-agent "$cmd" 2>&1 </dev/null)
		rc=$?
		printf '%s\n%s\n' "$rc" "$out" >"$mbox/rsp.$id.tmp"
		mv "$mbox/rsp.$id.tmp" "$mbox/rsp.$id"
	done
	sleep 0.05
done
echo "rr-node: target node agent stopping" >/dev/kmsg
