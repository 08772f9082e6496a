#!/bin/sh
# A job on the local machine (no leased device) says it is alive while
# it runs, as a job on leased devices does: its heartbeat renews the
# run's alive_at, so that after a PostgreSQL restart another host does
# not take the run as ended while it goes on. With devices.lease_time 3
# the heartbeat beats every second; the benchmark blocks until the test
# has seen alive_at move. On SQLite and, when BENCHFARM_TEST_PG names a
# server, on PostgreSQL (each_store).
. "$(dirname "$0")/lib.sh"

R="$T/repo"
blocking_pool_repo "$R"
sed -i 's/^devices: {pool: lab}$/devices: {pool: local, lease_time: 3}/' \
	"$R/bf.yaml"
grep -q 'pool: local, lease_time: 3' "$R/bf.yaml" ||
	t_fail "set the local pool and the lease time"

alive_checks() {
	touch "$T/block"
	"$BF" compare -c "$R/bf.yaml" --base main --patch main \
		--json "$T/a.json" >"$T/a.out" 2>"$T/a.err" &
	apid=$!
	if timeout 60 sh -c 'read x <"$1"' sh "$T/started"; then
		t_ok "a local compare runs its benchmark"
	else
		t_fail "its benchmark never started: $(cat "$T/a.err")"
	fi
	id=$(db "select id from runs where status = 'running'")
	[ -n "$id" ] && t_ok "its run $id is running" ||
		t_fail "no running run"
	alive_again "while it runs, its heartbeat says it is alive again" "$id"
	timeout 5 sh -c ': >"$1"' sh "$T/go"
	wait "$apid"
	rc=$?
	[ $rc = 0 ] && t_ok "the compare finishes (exit 0)" ||
		t_fail "exit $rc: $(cat "$T/a.err")"
	[ "$(db "select count(*) from runs where status = 'complete'")" = 1 ] &&
		t_ok "its run is complete" ||
		t_fail "runs: $(db "select id, status from runs")"
}

each_store local_alive alive_checks
