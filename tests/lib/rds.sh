# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# RDS over RDMA helpers: rds-echo (tests/vm/rds-echo.c, built by
# tests/run.sh as RR_RDS_ECHO), a client on the initiator's address whose
# every message an echo server on the target's sends back.

RDS_PORT=18634
RDS_COUNT=/tmp/rds-echo.count

# rds_start TIMEOUT_MS: start the server and the client (which fails on a
# message not echoed within TIMEOUT_MS) and wait for 20 echoes.
rds_start() {
	[ -x "${RR_RDS_ECHO:-}" ] || fail "no rds-echo at '${RR_RDS_ECHO:-}' (tests/run.sh builds it)"
	rm -f "$RDS_COUNT"
	"$RR_RDS_ECHO" server "$TGT_IP" "$RDS_PORT" >/tmp/rds-srv.log 2>&1 &
	RDS_SRV=$!
	"$RR_RDS_ECHO" client "$INI_IP" "$TGT_IP" "$RDS_PORT" "$RDS_COUNT" "$1" >/tmp/rds-cli.log 2>&1 &
	RDS_CLI=$!
	rds_wait_past 19
}

# rds_echoed: the messages echoed so far.
rds_echoed() { cat "$RDS_COUNT" 2>/dev/null || echo 0; }

# rds_alive: fail the case if the client or the server has exited.
rds_alive() {
	kill -0 "$RDS_CLI" 2>/dev/null || { cat /tmp/rds-cli.log; fail "rds-echo client exited"; }
	kill -0 "$RDS_SRV" 2>/dev/null || { cat /tmp/rds-srv.log; fail "rds-echo server exited"; }
}

# rds_wait_past N: poll (every 20 ms, for 30 s) until more than N
# messages have been echoed.
rds_wait_past() {
	local end
	end=$(($(date +%s%N) + 30 * ${RR_TIME_SCALE:-1} * 1000000000))
	until [ "$(rds_echoed)" -gt "$1" ]; do
		rds_alive
		[ "$(date +%s%N)" -lt "$end" ] || fail "RDS: no echo past message $1 within 30 s"
		sleep 0.02
	done
}

# rds_across NAME COMMAND...: run COMMAND (a reset) under the traffic and
# record in RDS_MS[NAME] the ms from COMMAND's end (the device is back) to
# the next echo, and in RDS_GAP[NAME] the ms from its start.
declare -A RDS_MS RDS_GAP
# shellcheck disable=SC2034 # RDS_MS, RDS_GAP: for the cases
rds_across() {
	local name=$1 n t0 t1 t2
	shift
	n=$(rds_echoed)
	t0=$(date +%s%N)
	"$@"
	t1=$(date +%s%N)
	rds_wait_past "$n"
	t2=$(date +%s%N)
	RDS_MS[$name]=$(((t2 - t1) / 1000000))
	RDS_GAP[$name]=$(((t2 - t0) / 1000000))
}

# rds_stop: stop the client, which must exit 0 (every message echoed,
# intact, in time), log what it saw, and stop the server.
rds_stop() {
	local rc
	rds_alive
	kill -TERM "$RDS_CLI"
	wait "$RDS_CLI"
	rc=$?
	RDS_CLI=''
	rds_kill
	[ "$rc" = 0 ] || { cat /tmp/rds-cli.log; fail "rds-echo client: exit $rc"; }
	log "rds-echo: $(cat /tmp/rds-cli.log)"
}

# rds_kill: end whatever of the two is still running (cleanup; SIGKILL:
# the client takes SIGTERM only from its signalfd).
rds_kill() {
	local p
	for p in ${RDS_CLI:-} ${RDS_SRV:-}; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	RDS_CLI='' RDS_SRV=''
	return 0
}
