#!/bin/sh
# The commands a lab runs, with the store on PostgreSQL (a fresh
# database on the server of $BENCHFARM_TEST_PG, which ci/run-tests.sh
# starts with ci/pg.sh): compare on the demo project finds the injected
# regression and stores every raw sample there; run and backfill record
# commits; history and detect read them back; the device registry,
# alerts and a report from the stored result work; store copy brings
# the whole store into SQLite with the same rows; and bisect and detect
# --bisect find the same commits, with the same evidence and stored
# rows, as on SQLite.
. "$(dirname "$0")/lib.sh"

if ! have_pg; then
	echo "ok 1 # skip no PostgreSQL (BENCHFARM_TEST_PG unset)"
	exit 0
fi
pg_fresh_db flows || exit 1
pg() { db "$1"; }

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

# bisect and detect --bisect, the same commands on a SQLite store and on
# a fresh PostgreSQL database: a repository of 13 commits whose
# benchmark steps from 100 to 150 ns at commit 8, every run the same
# (step_repo). bisect 1..13 names commit 8; with commits 1, 3, ..., 13
# recorded, detect --bisect finds the step over 7..9 and bisects it to
# commit 8. Both stores give the same JSON (but for the start times and
# the alerts' ids) and store the same runs and samples.
B="$T/step"
step_repo "$B" 13 8
C8=$(git -C "$B" rev-parse main~5)
SQLITE_DB="$T/bisect.db"
pg_fresh_db bisect || exit 1
for s in sqlite pg; do
	[ $s = sqlite ] && loc=$SQLITE_DB || loc=$BENCHFARM_DB
	BENCHFARM_DB=$loc expect_exit 0 "bisect on $s" "$BF" bisect \
		-c "$B/bf.yaml" --good main~12 --bad main --benchmark b \
		--json "$T/bisect-$s.json"
	ok=true
	for k in 1 3 5 7 9 11 13; do
		BENCHFARM_DB=$loc "$BF" run -c "$B/bf.yaml" \
			--commit "main~$((13 - k))" >"$OUT" 2>"$ERR" || ok=false
	done
	$ok && t_ok "run records commits 1, 3, ..., 13 on $s" ||
		t_fail "a run failed on $s"
	BENCHFARM_DB=$loc expect_exit 0 "detect --bisect on $s" "$BF" detect \
		-c "$B/bf.yaml" --bisect --json "$T/detect-$s.json"
	BENCHFARM_DB=$loc expect_exit 0 "alert list on $s" "$BF" alert list \
		--json
	cp "$OUT" "$T/alerts-$s.json"
done
jq_check "bisect on PostgreSQL names commit 8" \
	".culprit == \"$C8\" and .direction == \"regressed\" and (.probes | length) >= 3" \
	"$T/bisect-pg.json"
jq_check "detect --bisect on PostgreSQL: one alert over 7..9, culprit 8" \
	"(.alerts | length) == 1 and .alerts[0].commit_lo == \"$(git -C "$B" rev-parse main~6)\" and
	 .alerts[0].commit_hi == \"$(git -C "$B" rev-parse main~4)\" and
	 .alerts[0].culprit == \"$C8\" and .alerts[0].bisect.culprit == \"$C8\"" \
	"$T/detect-pg.json"
jq_check "and the alert is stored with its culprit" \
	"length == 1 and .[0].culprit == \"$C8\"" "$T/alerts-pg.json"
# The same, on both stores: the JSON but for times and ids.
same_json() { # "what" FILTER NAME: FILTER of NAME-sqlite.json and NAME-pg.json agree
	if jq -S "$2" "$T/$3-sqlite.json" >"$T/$3-sqlite.norm" &&
		jq -S "$2" "$T/$3-pg.json" >"$T/$3-pg.norm" &&
		[ -s "$T/$3-pg.norm" ] && cmp -s "$T/$3-sqlite.norm" "$T/$3-pg.norm"; then
		t_ok "$1"
	else
		diff "$T/$3-sqlite.norm" "$T/$3-pg.norm" | head -20 | sed 's/^/#   /'
		t_fail "$1"
	fi
}
same_json "bisect's JSON is SQLite's" 'del(.started)' bisect
same_json "detect --bisect's JSON is SQLite's" \
	'del(.started) | .alerts[] |= (del(.id) | .bisect |= del(.started))' detect
same_json "the stored alerts are SQLite's" \
	'map(del(.id, .created_at))' alerts
# The stored runs and samples, in the SQL both accept.
rows='select r.kind, r.status, r.base_commit, r.patch_commit, s.side,
	s.benchmark, s.metric, cast(s.value as integer), count(*)
	from runs r join samples s on s.run_id = r.id
	group by r.kind, r.status, r.base_commit, r.patch_commit, s.side,
	s.benchmark, s.metric, cast(s.value as integer)
	order by 1, 2, 3, 4, 5, 6, 7, 8'
sqlite3 "$SQLITE_DB" "$rows" >"$T/rows-sqlite"
db "$rows" >"$T/rows-pg"
[ -s "$T/rows-pg" ] && cmp -s "$T/rows-sqlite" "$T/rows-pg" &&
	t_ok "PostgreSQL stores the same runs and samples as SQLite ($(wc -l <"$T/rows-pg") groups)" ||
	{
		diff "$T/rows-sqlite" "$T/rows-pg" | head -20 | sed 's/^/#   /'
		t_fail "PostgreSQL stores the same runs and samples as SQLite"
	}
