#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Test the test harness: run tests/selftest (cases built to pass, fail, hang,
# warn, fail a module load, crash the kernel, log a user-space fault) and
# check each verdict and its reason against tests/selftest/expected
# ("VERDICT CASE [REGEX]").  Exits non-zero on any mismatch.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
CASEDIR=$here/selftest "$here/run.sh" >"$out" 2>&1
bad=0
while read -r verdict name reason; do
	line=$(grep -E "^(PASS|FAIL|SKIP) $name " "$out")
	if ! printf '%s\n' "$line" | grep -Eq "^$verdict $name +.*${reason}"; then
		echo "selftest: expected '$verdict $name${reason:+ ($reason)}', got '${line:-nothing}'"
		bad=1
	fi
done <"$here/selftest/expected"
# Nothing but the expected verdicts (a "FAIL vmN ..." line is one too).
got=$(grep -cE '^(PASS|FAIL|SKIP) ' "$out")
if [ "$got" != "$(wc -l <"$here/selftest/expected")" ]; then
	echo "selftest: $got verdicts, $(wc -l <"$here/selftest/expected") expected"
	bad=1
fi
if [ $bad -ne 0 ]; then
	cat "$out"
	exit 1
fi
grep -A1 '^PASS 10-user-fault ' "$out" | grep -q 'note: a user-space fault in the guest' ||
	{ echo "selftest: the user-space fault was not noted"; cat "$out"; exit 1; }
grep -q 'TIMEOUT after 5s' "$(sed -n 's/^logs: //p' "$out")"/vm*/03-hang.log ||
	{ echo "selftest: the hung case's log was not kept"; exit 1; }
echo "selftest: harness verdicts as expected ($(wc -l <"$here/selftest/expected") cases)"
