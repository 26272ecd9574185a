#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: boot a VM running tests/demo and show what it does as it runs.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp)
trap 'rm -f "$out"; kill $tailpid 2>/dev/null' EXIT

CASEDIR=$TOP/tests/demo "$TOP/tests/run.sh" >"$out" 2>&1 &
pid=$!
tailpid=
# Follow the demo's log as the VM writes it.
while kill -0 $pid 2>/dev/null; do
	log=$(ls "$(sed -n 's/^run: \([^ ]*\).*/\1/p' "$out" 2>/dev/null)"/vm1/[0-9]*.log 2>/dev/null | head -1)
	if [ -n "$log" ]; then
		tail -n +1 -f "$log" &
		tailpid=$!
		break
	fi
	sleep 0.5
done
wait $pid
rc=$?
sleep 0.5
kill $tailpid 2>/dev/null
echo
grep -E '^(PASS|FAIL|logs:)' "$out"
exit $rc
