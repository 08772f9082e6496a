#!/bin/sh
# A run the store does not let the job finish is no success: when
# another host marked the job's run aborted while it ran (the store then
# refuses to finish it as complete), the compare ends as an
# infrastructure failure (exit 3) whose message names the store and the
# run, and its result file says "status": "infra_failure"; the store
# keeps the run aborted. The benchmark blocks until the test has marked
# the run; on SQLite and, when BENCHFARM_TEST_PG names a server, on
# PostgreSQL (each_store).
. "$(dirname "$0")/lib.sh"

R="$T/repo"
blocking_pool_repo "$R"
sed -i 's/^devices: {pool: lab}$/devices: {pool: local}/' "$R/bf.yaml"
grep -q 'pool: local}' "$R/bf.yaml" || t_fail "set the local pool"

finish_checks() {
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
	[ -n "$id" ] && t_ok "its run $id is running" || t_fail "no running run"
	# another host's reaper took it for ended
	db "update runs set status = 'aborted' where id = ${id:-0}" >/dev/null
	timeout 5 sh -c ': >"$1"' sh "$T/go"
	wait "$apid"
	rc=$?
	[ $rc = 3 ] && t_ok "the compare is an infrastructure failure (exit 3)" ||
		t_fail "exit $rc, not 3: $(cat "$T/a.err")"
	grep -q "store .*: run $id could not be finished as complete" \
		"$T/a.err" && t_ok "its message names the store and the run" ||
		t_fail "message: $(cat "$T/a.err")"
	jq_check "its result file says infra_failure" \
		'.status == "infra_failure" and
		 (.infra_error | test("run '"$id"' could not be finished"))' \
		"$T/a.json"
	sql_check "the store keeps the run aborted" aborted \
		"select status from runs where id = ${id:-0}"
}

each_store run_finish finish_checks
