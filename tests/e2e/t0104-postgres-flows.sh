#!/bin/sh
# The commands a lab runs, with the store on PostgreSQL (a fresh
# database on the server of $BENCHFARM_TEST_PG, which ci/run-tests.sh
# starts with ci/pg.sh): compare on the demo project finds the injected
# regression and stores every raw sample there; run and backfill record
# commits; history and detect read them back; the device registry,
# alerts and a report from the stored result work; and store copy brings
# the whole store into SQLite with the same rows.
. "$(dirname "$0")/lib.sh"

if [ -z "${BENCHFARM_TEST_PG:-}" ] || ! command -v psql >/dev/null 2>&1; then
	echo "ok 1 # skip no PostgreSQL (BENCHFARM_TEST_PG unset)"
	exit 0
fi
pgdb="bf_flows_$$"
psql "$BENCHFARM_TEST_PG" -qc "CREATE DATABASE $pgdb" >/dev/null || {
	echo "not ok 1 - cannot create a database on $BENCHFARM_TEST_PG"
	exit 1
}
t_atexit() { psql "$BENCHFARM_TEST_PG" -qc "DROP DATABASE IF EXISTS $pgdb" >/dev/null 2>&1; }
trap 't_atexit; rm -rf "$T"' EXIT
export BENCHFARM_DB="$BENCHFARM_TEST_PG dbname=$pgdb"
pg() { psql "$BENCHFARM_DB" -Atc "$1"; }

R="$T/repo"
make_demo_repo "$R"

expect_exit 1 "compare on PostgreSQL finds the regression (exit 1)" \
	"$BF" compare -c "$R/benchfarm.yaml" --json "$T/r.json" --seed 1
jq_check "BM_checksum cpu_time regressed" \
	'[.results[] | select(.name == "BM_checksum" and .metric == "cpu_time")][0].verdict == "regressed"' "$T/r.json"
nsamples=$(jq '.samples | length' "$T/r.json")
nstored=$(pg "select count(*) from samples")
[ "$nsamples" -gt 0 ] && [ "$nsamples" = "$nstored" ] &&
	t_ok "every raw sample stored in PostgreSQL ($nstored)" ||
	t_fail "samples: json $nsamples, PostgreSQL $nstored"
[ "$(pg "select kind || ' ' || status from runs")" = "compare complete" ] &&
	t_ok "the run is complete" || t_fail "the run is complete"

expect_exit 0 "run records a commit" "$BF" run -c "$R/benchfarm.yaml" \
	--commit main -n 3
expect_exit 0 "backfill records the patch commit too" "$BF" backfill \
	-c "$R/benchfarm.yaml" -n 3 "main~0..HEAD"
n=$(pg "select count(*) from runs where kind = 'run' and status = 'complete'")
[ "$n" = 2 ] && t_ok "two commits recorded" || t_fail "two commits recorded (got $n)"
expect_exit 0 "history reads them back" "$BF" history -c "$R/benchfarm.yaml" --json
jq_check "history has the two commits" '[.. | objects | select(has("commit"))] | length >= 2' "$OUT"
expect_exit 0 "detect runs over them" "$BF" detect -c "$R/benchfarm.yaml" \
	--dry-run --json "$T/d.json"
# main holds the baseline commit; the patch commit is on its branch
jq_check "detect read main's measured commit and its six series" \
	'.measured == 1 and .series == 6' "$T/d.json"
expect_exit 0 "alert list" "$BF" alert list --json

mkdir -p "$HOME/.ssh"
ssh-keygen -q -t ed25519 -N '' -f "$HOME/.ssh/id_ed25519"
expect_exit 0 "device add" "$BF" device add bench1 --host 127.0.0.1 \
	--port 2222 --labels arm,lab
expect_exit 0 "device list" "$BF" device list --json
jq_check "the device is in the registry" '[.. | objects | select(.name? == "bench1")] | length == 1' "$OUT"
[ "$(pg "select count(*) from devices where name = 'bench1'")" = 1 ] &&
	t_ok "and in PostgreSQL" || t_fail "and in PostgreSQL"

expect_exit 0 "report re-renders the result" "$BF" report -f markdown \
	-i "$T/r.json"
grep_file "the markdown names the regression" '^| BM\\_checksum | cpu\\_time .* \*\*regressed\*\* |$' "$OUT"

expect_exit 0 "store copy into SQLite" "$BF" store copy --from "$BENCHFARM_DB" \
	--to "$T/copy.db" --json
jq_check "every table verified" '.match' "$OUT"
n1=$(sqlite3 "$T/copy.db" "select count(*) from samples")
n2=$(pg "select count(*) from samples")
[ -n "$n1" ] && [ "$n1" -gt 0 ] && [ "$n1" = "$n2" ] &&
	t_ok "the SQLite copy has every sample ($n1)" ||
	t_fail "the SQLite copy has every sample (SQLite '$n1', PostgreSQL '$n2')"

# Text sorts bytewise on PostgreSQL as on SQLite, whatever the
# database's locale: in a database whose default collation is ICU's
# en-US (punctuation first, case folded), devices still list as
# B1, _x, a1.
icudb="bf_icu_$$"
if psql "$BENCHFARM_TEST_PG" -qc "CREATE DATABASE $icudb TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'" >/dev/null 2>&1; then
	for d in a1 _x B1; do
		BENCHFARM_DB="$BENCHFARM_TEST_PG dbname=$icudb" "$BF" device add "$d" \
			--host 127.0.0.1 --port 2222 >/dev/null 2>&1
	done
	BENCHFARM_DB="$BENCHFARM_TEST_PG dbname=$icudb" expect_exit 0 \
		"device list on an en-US database" "$BF" device list --json
	jq_check "devices in bytewise order" '[.[].name] == ["B1", "_x", "a1"]' "$OUT"
	psql "$BENCHFARM_TEST_PG" -qc "DROP DATABASE $icudb" >/dev/null 2>&1
else
	echo "ok $((t_n + 1)) # skip no ICU collation on this server"
	t_n=$((t_n + 1))
fi
