#!/bin/sh
# A PostgreSQL server restart in the middle of a compare, on a real sshd
# device, with the store on a server of this test's own (ci/pg.sh;
# restarting the one ci/run-tests.sh shares would cut the other tests).
# The restart drops every liveness lock at once. Another command that
# opens the store meanwhile leaves the running compare's run running,
# and a second compare on the pool does not take its lease: the first
# said it was alive less than 60 s ago. The first compare's next
# statements make its connection again, and it finishes with its run
# complete and its samples stored.
. "$(dirname "$0")/lib.sh"

if ! command -v psql >/dev/null 2>&1 ||
	[ ! -x /usr/lib/postgresql/15/bin/pg_ctl ]; then
	echo "ok 1 # skip no PostgreSQL 15 (psql, pg_ctl)"
	exit 0
fi
sshd_setup
PGDIR=$(mktemp -d "${TMPDIR:-/tmp}/bf-pg.XXXXXX")
t_atexit() {
	timeout 5 sh -c ': >"$1"' sh "$T/go" 2>/dev/null
	"$BF_SRC/ci/pg.sh" stop "$PGDIR" >/dev/null 2>&1
	rm -rf "$PGDIR"
}
if ! pgc=$("$BF_SRC/ci/pg.sh" start "$PGDIR"); then
	t_fail "start a PostgreSQL server (ci/pg.sh start)"
	exit 1
fi
export BENCHFARM_DB="$pgc"

sshd_start dev
sshd_add dev "$port" "add the device" --labels lab --agent "$BFA" \
	--workdir "$T/work"
R="$T/repo"
blocking_pool_repo "$R"

touch "$T/block"
"$BF" compare -c "$R/bf.yaml" --base main --patch main \
	--json "$T/a.json" >"$T/a.out" 2>"$T/a.err" &
apid=$!
if timeout 60 sh -c 'read x <"$1"' sh "$T/started"; then
	t_ok "a compare runs its benchmark, holding the device"
else
	t_fail "the benchmark never started: $(cat "$T/a.err")"
fi
tok=$(db "select token from leases")
if "$BF_SRC/ci/pg.sh" restart "$PGDIR" >/dev/null; then
	t_ok "the server restarts under it"
else
	t_fail "ci/pg.sh restart"
fi
expect_exit 0 "another command opens the store after the restart" \
	"$BF" device list --json
[ "$(db "select status from runs")" = running ] &&
	t_ok "the running compare's run is not taken as aborted" ||
	t_fail "its run is $(db "select status || ' ' || coalesce(info, '') from runs")"
expect_exit 3 "a second compare on the pool does not take its lease" \
	"$BF" compare -c "$R/bf.yaml" --base main --patch main --wait 0
grep_file "it finds the device leased" "no device of pool 'lab' came free" \
	"$ERR"
[ "$(db "select count(*) from leases where token = $tok")" = 1 ] &&
	t_ok "the first compare's lease stands" ||
	t_fail "leases: $(db "select holder, token from leases")"
[ "$(db "select count(*) from runs where status = 'running'")" = 1 ] &&
	t_ok "the second compare's run is the one that ended" ||
	t_fail "runs: $(db "select id, status from runs")"

timeout 5 sh -c ': >"$1"' sh "$T/go"
wait "$apid"
arc=$?
[ $arc = 0 ] && t_ok "the first compare finishes (exit 0)" ||
	t_fail "exit $arc (stderr: $(cat "$T/a.err"))"
run_a=$(jq -r .run_id "$T/a.json" 2>/dev/null)
[ "$(db "select status from runs where id = ${run_a:-0}")" = complete ] &&
	[ "$(db "select count(*) > 0 from samples where run_id = ${run_a:-0}")" = 1 ] &&
	t_ok "its run is complete, its samples stored" ||
	t_fail "its run: $(db "select status from runs where id = ${run_a:-0}")"
[ "$(db "select count(*) from leases")" = 0 ] &&
	t_ok "no lease is left" || t_fail "$(db "select * from leases")"
