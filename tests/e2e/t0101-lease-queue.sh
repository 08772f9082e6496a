#!/bin/sh
# The queue of a busy pool, with real processes on a real sshd device: a
# pool of one device, A holds it (its benchmark waits on a FIFO), B, X
# and C arrive in that order and wait their turn; X is killed while it
# waits. `device list` shows the holder and the waiters; a compare with
# --wait 1 gives up with exit 3; when A ends, B and then C run, one
# after the other, and the dead X holds nobody back. All of it on a
# SQLite store, then again on a fresh PostgreSQL database when
# BENCHFARM_TEST_PG names a server (each_store).
. "$(dirname "$0")/lib.sh"

sshd_setup
t_atexit() {
	timeout 5 sh -c ": >\"\$1\"" sh "$T/go" 2>/dev/null
}
sshd_start dev
dev_port=$port
R="$T/repo"
blocking_pool_repo "$R"

queue_checks() {
	rm -f "$T"/?.json
	sshd_add dev "$dev_port" "add the device" --labels lab --agent "$BFA" \
		--workdir "$T/work"
	compare() { # NAME [OPTION...]: a compare in the background, pid in $pid
		_n=$1
		shift
		"$BF" compare -c "$R/bf.yaml" --base main --patch main \
			--json "$T/$_n.json" "$@" >"$T/$_n.out" 2>"$T/$_n.err" &
		pid=$!
	}

	touch "$T/block"
	compare a
	apid=$pid
	if timeout 60 sh -c 'read x <"$1"' sh "$T/started"; then
		t_ok "A runs its benchmark, holding the device"
	else
		t_fail "A's benchmark never started: $(cat "$T/a.err")"
	fi
	compare b
	bpid=$pid
	poll "B waits in the queue" "select count(*) = 1 from waiters"
	compare x
	xpid=$pid
	poll "X waits behind it" "select count(*) = 2 from waiters"
	compare c
	cpid=$pid
	poll "C waits behind X" "select count(*) = 3 from waiters"
	kill -KILL "$xpid"
	wait "$xpid" 2>/dev/null
	t_ok "X is killed while it waits"
	grep_file "B says it is next in line" \
		"waiting for a device of pool 'lab': next in line (ticket [0-9]*), 1 device leased by other jobs" \
		"$T/b.err"

	expect_exit 0 "device list --json" "$BF" device list --json
	jq_check "shows who holds the device" \
		'.[0].lease | (.holder | test("^benchfarm@.*:run[0-9]+$")) and .host != null
		 and (.pid | type) == "number" and .since > 0 and .expires_at > .since' \
		"$OUT"
	jq_check "and who waits, in order (ticket, host, pid, since)" \
		'[.[0].waiters[] | .ticket] == ([.[0].waiters[] | .ticket] | sort) and
		 (.[0].waiters | length) >= 2 and
		 (.[0].waiters | all(.host != null and (.pid | type) == "number" and .since > 0))' \
		"$OUT"
	expect_exit 0 "device list" "$BF" device list
	grep_file "the text lists the holder" "^dev .*benchfarm@" "$OUT"
	grep_file "and the waiters" "^WAITING" "$OUT"

	expect_exit 3 "a compare with --wait 1 gives up" "$BF" compare \
		-c "$R/bf.yaml" --base main --patch main --wait 1
	grep_file "saying why and what to do" \
		"no device of pool 'lab' came free in 1 s (2 jobs still ahead); raise devices.wait or --wait" \
		"$ERR"
	grep_file "C was told its place" \
		"waiting for a device of pool 'lab': [12] jobs\{0,1\} ahead" "$T/c.err"

	timeout 5 sh -c ': >"$1"' sh "$T/go"
	for p in a b c; do
		eval "wait \$${p}pid"
		rc=$?
		[ $rc = 0 ] && t_ok "$p ends (exit 0)" ||
			t_fail "$p exit $rc: $(cat "$T/$p.err")"
	done
	ra=$(jq .run_id "$T/a.json")
	rb=$(jq .run_id "$T/b.json")
	rc=$(jq .run_id "$T/c.json")
	# Samples are stored as they are measured: one job's all come before
	# the next one's when they ran one after another.
	order=$(db "select (select max(id) from samples where run_id = $ra) <
		(select min(id) from samples where run_id = $rb) and
		(select max(id) from samples where run_id = $rb) <
		(select min(id) from samples where run_id = $rc)")
	[ "$order" = 1 ] && t_ok "A, B and C ran one after another in arrival order" ||
		t_fail "runs overlapped or out of order: $(db "select run_id, min(id), max(id) from samples group by run_id")"
	[ "$(db "select count(*) from waiters")" = 0 ] &&
		[ "$(db "select count(*) from leases")" = 0 ] &&
		t_ok "no waiter and no lease is left" ||
		t_fail "left: $(db "select * from waiters; select * from leases")"
}

each_store queue queue_checks
