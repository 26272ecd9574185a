#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Test the test harness: run tests/selftest (cases built to pass, fail, hang,
# warn, warn inside a stock window, fail a module load, crash the kernel,
# log a user-space fault) and check each verdict and its reason against
# tests/selftest/expected ("VERDICT CASE [REGEX]").  Exits non-zero on any mismatch.
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
grep -A1 '^PASS 15-stock-window ' "$out" | grep -q "note: Debian's modules, in the case's stock window: report lines: 1;" ||
	{ echo "selftest: the stock window's warning was not noted"; cat "$out"; exit 1; }
grep -q 'TIMEOUT after 5s' "$(sed -n 's/^logs: //p' "$out")"/vm*/03-hang.log ||
	{ echo "selftest: the hung case's log was not kept"; exit 1; }
# An emulator fault runs a VM again once, keeping the first run: 12 and 13
# are run again (13 then fails), 14's possible RFLAGS is not.
for v in 12-emulator-fault:1 13-emulator-fault-twice:1 14-crash-valid-rflags:0; do
	d=$(grep -l "CASES=\"${v%:*}:" "$(sed -n 's/^logs: //p' "$out")"/vm*/config.sh | head -1)
	d=${d%/config.sh}
	d=${d%.emulator-fault}
	if [ "${v#*:}" = 1 ]; then
		grep -q "^${d##*/}: a kernel crash with RFLAGS .* running these cases again" "$out" &&
			[ -d "$d.emulator-fault" ] ||
			{ echo "selftest: ${v%:*} was not run again after an emulator fault"; cat "$out"; exit 1; }
	elif grep -q "^${d##*/}: a kernel crash with RFLAGS" "$out"; then
		echo "selftest: ${v%:*} was run again, but its RFLAGS were possible"
		cat "$out"
		exit 1
	fi
done
echo "selftest: harness verdicts as expected ($(wc -l <"$here/selftest/expected") cases)"
