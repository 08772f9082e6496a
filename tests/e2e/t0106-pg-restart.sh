#!/bin/sh
# The PostgreSQL store going away, as a lab's CI runner meets it, with
# the documented defaults (BENCHFARM_DB, the device's default work
# directory) on a server of this test's own (ci/pg.sh), which it
# restarts:
# - the server restarted while a compare runs its benchmark on a real
#   sshd device: the compare reconnects and completes with every sample
#   stored exactly once, or ends with exit 3 and an infrastructure
#   error; never a run reported complete with samples missing, and its
#   run is not left 'running';
# - a wrong password (the role bf_pw, which ci/pg.sh's pg_hba.conf asks
#   for one): exit 3 saying the password was refused, the password
#   nowhere in stdout, stderr or the result file;
# - no server (a socket directory with nothing listening, a TCP port
#   nobody listens on, a port whose listener never answers): exit 3
#   naming the store without its password, within the default connect
#   timeout (5 s), not hanging;
# each for compare, device list and store copy.
. "$(dirname "$0")/lib.sh"

PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
if [ ! -x "$PGBIN/initdb" ] || ! command -v psql >/dev/null 2>&1; then
	echo "ok 1 # skip no PostgreSQL 15 (postgresql-15, psql)"
	exit 0
fi
sshd_setup
# the server's directory is the server user's (ci/pg.sh), outside $T
PGD=$(mktemp -d "${TMPDIR:-/tmp}/bf-pg106.XXXXXX")
SILENT_PID=
t_atexit() {
	timeout 5 sh -c ": >\"\$1\"" sh "$T/go" 2>/dev/null
	[ -n "$SILENT_PID" ] && kill "$SILENT_PID" 2>/dev/null
	"$BF_SRC/ci/pg.sh" stop "$PGD" >/dev/null 2>&1
	rm -rf "$PGD"
}
PGC=$("$BF_SRC/ci/pg.sh" start "$PGD") || {
	t_fail "ci/pg.sh starts a server"
	exit 1
}
export BENCHFARM_DB="$PGC"
pg() { psql "$BENCHFARM_DB" -Atc "$1"; }

sshd_pool "(the store on PostgreSQL)" dev
R="$T/repo"
blocking_pool_repo "$R"

# blocked_compare NAME: a compare in the background (pid in cpid, its
# result $T/NAME.json, stderr $T/NAME.err), checked to be running its
# benchmark, holding the device, until `: >$T/go`
blocked_compare() {
	touch "$T/block"
	"$BF" compare -c "$R/bf.yaml" --base main --patch main \
		--json "$T/$1.json" >"$T/$1.out" 2>"$T/$1.err" &
	cpid=$!
	if timeout 60 sh -c 'read x <"$1"' sh "$T/started"; then
		t_ok "$1: the compare runs its benchmark, holding the device"
	else
		t_fail "$1: the benchmark never started: $(cat "$T/$1.err")"
	fi
}

# --- the server restarted while a compare runs -------------------------
blocked_compare restart
if "$BF_SRC/ci/pg.sh" restart "$PGD"; then
	t_ok "the server restarts under it"
else
	t_fail "the server restarts under it"
fi
timeout 5 sh -c ': >"$1"' sh "$T/go"
wait "$cpid"
rc=$?
run=$(pg "SELECT id || ' ' || status FROM runs WHERE kind = 'compare'")
echo "# compare exit $rc, run '$run'"
sed 's/^/#   compare stderr: /' "$T/restart.err" | head -20
dups=$(pg "SELECT count(*) FROM (SELECT 1 FROM samples GROUP BY run_id,
	benchmark, metric, side, commit_id, device, repeat_idx, iter_idx
	HAVING count(*) > 1) d")
stored=$(pg "SELECT count(*) FROM samples")
case $rc in
0 | 1)
	want=$(jq '.samples | length' "$T/restart.json" 2>/dev/null)
	jq_check "its result says ok" '.status == "ok"' "$T/restart.json"
	[ "${run#* }" = complete ] && t_ok "it reconnected and completed" ||
		t_fail "exit $rc but the run is '$run'"
	[ -n "$want" ] && [ "$want" -gt 0 ] && [ "$want" = "$stored" ] &&
		t_ok "every sample of its result is stored ($stored)" ||
		t_fail "the result has ${want:-no} samples, the store $stored"
	;;
3)
	t_ok "it ends as an infrastructure failure (exit 3)"
	if grep -q "lost the connection to the store\|cannot connect to the store" \
		"$T/restart.err"; then
		t_ok "saying the connection to the store was lost"
	else
		t_fail "saying the connection to the store was lost"
	fi
	# a later command opens the store, as the next job would
	expect_exit 0 "device list after it" "$BF" device list
	run=$(pg "SELECT status FROM runs WHERE kind = 'compare'")
	case $run in
	complete) t_fail "its run is not reported complete (it is '$run')" ;;
	running) t_fail "its run is not left running" ;;
	*) t_ok "its run is '$run', neither complete nor running" ;;
	esac
	;;
*)
	t_fail "the compare ends with exit 0, 1 or 3, not $rc"
	;;
esac
[ "$dups" = 0 ] && t_ok "no sample is stored twice" ||
	t_fail "$dups samples are stored twice"
expect_exit 0 "the lease is given back: device list" "$BF" device list --json
jq_check "the device is idle" '.[0].lease == null' "$OUT"

# --- the server down when the benchmark ends --------------------------
# stopped while the compare runs its benchmark, and started again once
# the compare has ended: nothing to reconnect to, so exit 3, and the run
# is not left 'running' for the next job
blocked_compare down
"$BF_SRC/ci/pg.sh" stop "$PGD"
timeout 5 sh -c ': >"$1"' sh "$T/go"
wait "$cpid"
rc=$?
sed 's/^/#   compare stderr: /' "$T/down.err" | head -20
if [ $rc = 3 ]; then
	t_ok "with the server down it ends as an infrastructure failure (exit 3)"
else
	t_fail "with the server down it ends with exit 3, not $rc"
fi
grep_file "saying the store cannot be reached" \
	"lost the connection to the store\|cannot connect to the store\|ended the connection" \
	"$T/down.err"
jq_check "its result says infra_failure, naming the store" \
	'.status == "infra_failure" and (.infra_error | test("connection to the store"))' \
	"$T/down.json"
down_run=$(jq '.run_id' "$T/down.json")
"$BF_SRC/ci/pg.sh" restart "$PGD" 2>/dev/null
expect_exit 0 "the server back, device list" "$BF" device list
st=$(pg "SELECT status FROM runs WHERE id = ${down_run:-0}")
[ "$st" != complete ] && t_ok "the second run is not complete ('$st')" ||
	t_fail "the second run is not complete"
# Its process has ended, but the server restarted after the run last
# said it was alive, so its free lock proves nothing: it is taken as
# ended once it has been silent for the grace (60 s). Pass the grace
# by dating its signs of life back rather than wait for it.
pg "UPDATE runs SET alive_at = alive_at - 120 WHERE id = ${down_run:-0};
UPDATE leases SET alive_at = alive_at - 120" >/dev/null
expect_exit 0 "after the grace, device list" "$BF" device list
st=$(pg "SELECT status FROM runs WHERE id = ${down_run:-0}")
[ "$st" = aborted ] && t_ok "the second run is then aborted" ||
	t_fail "the second run is then aborted, not '$st'"
expect_exit 0 "the next compare takes the device back and completes" \
	"$BF" compare -c "$R/bf.yaml" --base main --patch main
grep_file "saying whose lease it took back" \
	"taking back the lease of .*: its process [0-9]* on .* has ended" "$ERR"

# --- a wrong password ----------------------------------------------------
psql "$PGC" -qc "CREATE ROLE bf_pw LOGIN PASSWORD 'right-one'"
# fails_for "what" WANT_RE COMMAND...: exit 3 with a message matching
# WANT_RE; neither stdout, stderr nor $T/fail.json has "s3cret"
fails_for() {
	_what=$1
	_want=$2
	shift 2
	rm -f "$T/fail.json"
	expect_exit 3 "$_what: exit 3" timeout 30 "$@"
	grep_file "$_what: says why" "$_want" "$ERR"
	if grep -q "s3cret" "$OUT" "$ERR" "$T/fail.json" 2>/dev/null; then
		t_fail "$_what: the password is not shown"
	else
		t_ok "$_what: the password is not shown"
	fi
}
# on_each LOCATION "what" WANT_RE: fails_for compare, device list and
# store copy (--from) with the store at LOCATION
on_each() {
	BENCHFARM_DB=$1 fails_for "$2: compare" "$3" \
		"$BF" compare -c "$R/bf.yaml" --base main --patch main \
		--json "$T/fail.json"
	BENCHFARM_DB=$1 fails_for "$2: device list" "$3" "$BF" device list
	fails_for "$2: store copy" "$3" \
		"$BF" store copy --from "$1" --to "$T/copy.db" --json
}
on_each "$PGC user=bf_pw password=wr0ng-s3cret" "a wrong password" \
	"cannot connect to the store '.*password=\*\*\*'.*password authentication failed for user \"bf_pw\""
on_each "postgresql://bf_pw:wr0ng-s3cret@/benchfarm?host=$PGD" \
	"a wrong password in a URI" \
	"cannot connect to the store 'postgresql://bf_pw:\*\*\*@/benchfarm.*password authentication failed"

# --- no server -----------------------------------------------------------
mkdir -p "$T/nosock"
on_each "host=$T/nosock dbname=benchfarm password=s3cret" \
	"a socket directory with nothing listening" \
	"cannot connect to the store 'host=$T/nosock dbname=benchfarm password=\*\*\*'"
# a TCP port nobody listens on: one the kernel handed out and took back
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
on_each "postgresql://u:s3cret@127.0.0.1:$port/benchfarm" \
	"a port nobody listens on" \
	"cannot connect to the store 'postgresql://u:\*\*\*@127.0.0.1:$port/benchfarm'.*refused"
# a port whose listener accepts and never answers (a hung server, a
# firewall): the default connect timeout ends it
mkfifo "$T/silent.port"
python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
print(s.getsockname()[1], flush=True)
sys.stdout.close()
time.sleep(600)' >"$T/silent.port" &
SILENT_PID=$!
read -r port <"$T/silent.port"
on_each "host=127.0.0.1 port=$port dbname=benchfarm password=s3cret" \
	"a server that never answers" \
	"cannot connect to the store 'host=127.0.0.1 port=$port dbname=benchfarm password=\*\*\*'.*timeout expired"
