#!/bin/sh
# Fencing tokens and the lease heartbeat, on a real sshd device with a
# lease time of 3 s (devices.lease_time). A compare holds its lease past
# the lease time while its benchmark runs (the heartbeat renews it). A
# compare stopped (SIGSTOP) past its lease time loses the device to
# another compare; when it goes on (SIGCONT) it exits 3, nothing of it is
# stored and the other compare's results are intact: stopped in a warmup,
# the agent ends that run when the other compare's first request comes
# (its lease's fencing token is greater: agent/fence.h) and the check of
# its lease stops it; stopped in a measured run on an agent that keeps
# no fence (an older one), that run completes and the store refuses its
# samples (the fenced write). A
# compare SIGKILLed on another host (its process cannot be checked from
# here) frees the device after the lease time, and the next compare,
# waiting its turn, uses it. All of it on a SQLite store, then again on
# a fresh PostgreSQL database when BENCHFARM_TEST_PG names a server
# (each_store), where the SIGKILLed compare's session ends with it.
# Then another host's session holds the device's row locked and stalls:
# a compare ends, exit 3, saying the store is busy, instead of hanging.
. "$(dirname "$0")/lib.sh"

sshd_setup
t_atexit() {
	[ -n "${cpid:-}" ] && kill -CONT "$cpid" 2>/dev/null
	[ -n "${HOLD_PID:-}" ] && kill "$HOLD_PID" 2>/dev/null
	timeout 5 sh -c ": >\"\$1\"" sh "$T/go" 2>/dev/null
}
sshd_start dev
dev_port=$port
R="$T/repo"
blocking_pool_repo "$R"
# a warmup before the repeats, so that a run follows the blocked one
# before the next device check
sed -i -e 's/^devices: {pool: lab}$/devices: {pool: lab, lease_time: 3}/' \
	-e 's/^runs: {repeats: 2, warmup: 0}$/runs: {repeats: 2, warmup: 1}/' \
	"$R/bf.yaml"
grep -q 'lease_time: 3' "$R/bf.yaml" && grep -q 'warmup: 1' "$R/bf.yaml" ||
	t_fail "set the lease time and a warmup"
# the same without the warmup: its first run is a measured one (a file
# beside bf.yaml, not committed: the config is read from the work tree)
sed 's/^runs: {repeats: 2, warmup: 1}$/runs: {repeats: 2, warmup: 0}/' \
	"$R/bf.yaml" >"$R/measured.yaml"
grep -q 'warmup: 0' "$R/measured.yaml" || t_fail "set no warmup"
printf '#!/bin/sh\nunset XDG_STATE_HOME HOME\nexec "%s" "$@"\n' "$BFA" \
	>"$T/agent-nofence"
chmod +x "$T/agent-nofence"

# stopped_compare CONFIG: compare A (config CONFIG) runs the blocking
# benchmark and is stopped (SIGSTOP) there past its lease time; compare
# B takes the device and finishes; A's benchmark ends and A goes on
# (SIGCONT). Sets run_a, tok_a, run_b, tok_b, n_b (B's samples), calls
# (runs of the benchmark before A went on) and crc (A's exit code).
stopped_compare() {
	touch "$T/block"
	"$BF" compare -c "$1" --base main --patch main \
		>"$T/a.out" 2>"$T/a.err" &
	cpid=$!
	if timeout 60 sh -c 'read x <"$1"' sh "$T/started"; then
		t_ok "the first compare runs its benchmark"
	else
		t_fail "the benchmark never started: $(cat "$T/a.err")"
	fi
	tok_a=$(db "select token from leases")
	run_a=$(db "select id from runs where status = 'running'")
	# The heartbeat renews the lease while the benchmark runs, past the
	# lease time (without it the lease would lapse 3 s after it was taken).
	poll "the heartbeat renews the running job's lease past its lease time" \
		"select count(*) = 1 from leases where expires_at > acquired_at + 3
		 and token = $tok_a"
	kill -STOP "$cpid"
	poll "stopped, its lease expires" \
		"select count(*) = 1 from leases
		 where expires_at <= $(sql_now)"
	# B takes the expired lease (A's process lives: only the time frees it).
	expect_exit 0 "a second compare takes the device and finishes" \
		"$BF" compare -c "$R/bf.yaml" --base main --patch main --json "$T/b.json"
	run_b=$(jq -r .run_id "$T/b.json")
	tok_b=$(db "select lease_gen from devices where name = 'dev'")
	[ "$tok_b" -gt "$tok_a" ] && t_ok "with a greater token ($tok_b > $tok_a)" ||
		t_fail "token $tok_b after $tok_a"
	n_b=$(db "select count(*) from samples where run_id = $run_b")
	calls=$(wc -l <"$T/calls")
	# A's benchmark ends, if the agent has not ended it (a write to the
	# FIFO go with no reader fails at once); A goes on.
	dd if=/dev/null of="$T/go" oflag=nonblock 2>/dev/null || :
	kill -CONT "$cpid"
	wait "$cpid"
	crc=$?
	cpid=
}

# stopped_outcome WHERE: what stopped_compare left: A exits 3 saying
# (after WHERE: the step the store refused) its lease went to B's token,
# nothing of run A is stored, B's run is intact.
stopped_outcome() {
	[ $crc = 3 ] && t_ok "the stopped compare exits 3" ||
		t_fail "exit $crc (stderr: $(cat "$T/a.err"))"
	grep_file "saying why" \
		"stopped: a device's lease was lost (it keeps its health): $1device 'dev': its lease was taken by another job (token $tok_b > $tok_a); this job's results for it are not stored" \
		"$T/a.err"
	[ "$(db "select count(*) from samples where run_id = ${run_a:-0}")" = 0 ] &&
		t_ok "nothing of the stopped compare's is stored" ||
		t_fail "$(db "select count(*) from samples where run_id = ${run_a:-0}") samples of the stopped compare"
	[ "$(db "select status from runs where id = ${run_a:-0}")" = failed ] &&
		t_ok "its run is failed, not complete" ||
		t_fail "its run is $(db "select status from runs where id = ${run_a:-0}")"
	[ "$n_b" -gt 0 ] && [ "$(db "select count(*) from samples where run_id = $run_b")" = "$n_b" ] &&
		[ "$(db "select status from runs where id = $run_b")" = complete ] &&
		t_ok "the other compare's $n_b samples and result are intact" ||
		t_fail "the other compare's run: $(db "select status, (select count(*) from samples where run_id = $run_b) from runs where id = $run_b")"
	[ "$(db "select count(*) from leases")" = 0 ] &&
		t_ok "no lease is left" || t_fail "$(db "select * from leases")"
}

fence_checks() {
	rm -f "$T"/?.json
	sshd_add dev "$dev_port" "add the device" --labels lab --agent "$BFA" \
		--workdir "$T/work"

	# Stopped in a warmup, which stores nothing: the agent ends it when
	# the other compare's first request comes, and the check of its
	# lease before the next run stops it.
	stopped_compare "$R/bf.yaml"
	# Its blocked warmup of one side is followed by the other side's:
	# a worker that did not check its lease would run that one.
	[ "$(wc -l <"$T/calls")" = "$calls" ] &&
		t_ok "the stopped compare runs its benchmark no more" ||
		t_fail "it ran its benchmark $(($(wc -l <"$T/calls") - calls)) more times after its lease was taken"
	stopped_outcome ""

	# Stopped in a measured run (no warmup) on an agent that keeps no
	# fence (no state directory, as an older agent): that run completes
	# after SIGCONT and its samples go to a fenced write, which the
	# store refuses (the lease's token is no longer the device's): were
	# the write not fenced, they would be stored under run A. The
	# message says it was that write the store refused.
	db "update devices set agent_path = '$T/agent-nofence' where name = 'dev'"
	stopped_compare "$R/measured.yaml"
	stopped_outcome "recording the samples of 'micro': "
	db "update devices set agent_path = '$BFA' where name = 'dev'"

	# SIGKILL, the holder on another host: the lease's host is set to one
	# that is not this one, as a compare of another CI runner would have
	# it. On SQLite only its expiry frees the device (another host's lock
	# file is not ours to read). On PostgreSQL every host sees the
	# holder's lock: free, and the holder alive since the server last
	# started, it has ended, and its lease is taken back at once.
	touch "$T/block"
	"$BF" compare -c "$R/bf.yaml" --base main --patch main \
		>"$T/d.out" 2>"$T/d.err" &
	dpid=$!
	if timeout 60 sh -c 'read x <"$1"' sh "$T/started"; then
		t_ok "a third compare runs its benchmark"
	else
		t_fail "its benchmark never started: $(cat "$T/d.err")"
	fi
	kill -KILL "$dpid"
	wait "$dpid" 2>/dev/null
	# On PostgreSQL its session ends with it, and with the session
	# the server drops its liveness locks.
	if [ "$STORE" = postgresql ]; then
		poll "its session on the server ended with it" \
			"select count(*) = 0 from pg_stat_activity
			 where datname = current_database()
			 and pid <> pg_backend_pid()"
	fi
	timeout 5 sh -c ': >"$1"' sh "$T/go" 2>/dev/null
	db "update leases set host = 'another-runner.example'"
	[ "$(db "select count(*) from leases")" = 1 ] &&
		t_ok "SIGKILL left its lease" || t_fail "$(db "select count(*) from leases") leases"
	expect_exit 0 "the next compare gets the device and uses it" \
		"$BF" compare -c "$R/bf.yaml" --base main --patch main --json "$T/e.json"
	if [ "$STORE" = postgresql ]; then
		grep_file "it took the lease back as a dead process's" \
			"taking back the lease of .*: its process [0-9]* on another-runner.example has ended" \
			"$ERR"
	else
		grep_file "it waited its turn" \
			"waiting for a device of pool 'lab': next in line (ticket [0-9]*), 1 device leased by other jobs" \
			"$ERR"
		if grep -q "taking back the lease" "$ERR"; then
			t_fail "it took the lease back as a dead process's"
		else
			t_ok "freed by its expiry, not as a dead process's on this host"
		fi
	fi
	run_e=$(jq .run_id "$T/e.json")
	[ "$(db "select status from runs where id = $run_e")" = complete ] &&
		[ "$(db "select count(*) from samples where run_id = $run_e")" -gt 0 ] &&
		t_ok "its run is complete with its samples" ||
		t_fail "its run: $(db "select status from runs where id = $run_e")"
	[ "$(db "select count(*) from leases")" = 0 ] &&
		t_ok "and no lease is left" || t_fail "$(db "select * from leases")"
}

# Another host's session stalls while it holds the device's row locked
# (psql, or sqlite3 on SQLite, inside a transaction): a compare does not
# hang on it but ends, exit 3, saying the store is busy; nothing of it is
# stored; once the session lets go the next compare runs.
held_row_checks() {
	ndone=$(db "select count(*) from runs where status = 'complete'")
	last=$(db "select coalesce(max(id), 0) from runs")
	db_hold dev
	timeout 60 "$BF" compare -c "$R/bf.yaml" --base main --patch main \
		--wait 1 >"$OUT" 2>"$ERR"
	crc=$?
	[ $crc = 3 ] && t_ok "a compare on the locked device ends with exit 3" ||
		t_fail "exit $crc (124: it hung)"
	if [ "$STORE" = postgresql ]; then
		grep_file "saying the store is busy and what to do" \
			"cannot lock device 'dev': the store '.*' is busy: another host has held the rows locked past the lock timeout (5 s); run the command again later" \
			"$ERR"
	else
		grep_file "saying the database is locked" "database is locked" "$ERR"
	fi
	db_let_go
	[ "$(db "select count(*) from leases")" = 0 ] &&
		[ "$(db "select count(*) from samples where run_id > $last")" = 0 ] &&
		[ "$(db "select count(*) from runs where id > $last and status = 'complete'")" = 0 ] &&
		t_ok "it stored no lease, sample or complete run" ||
		t_fail "$(db "select * from leases"; db "select id, status from runs where id > $last")"
	expect_exit 0 "once the session lets go, the next compare runs" \
		"$BF" compare -c "$R/bf.yaml" --base main --patch main --wait 1
	[ "$(db "select count(*) from runs where status = 'complete'")" = $((ndone + 1)) ] &&
		t_ok "and completes its run" ||
		t_fail "runs: $(db "select id, status from runs")"
}

fence_checks_all() {
	fence_checks
	held_row_checks
}

each_store fence fence_checks_all
