#!/bin/sh
# benchfarm store copy, SQLite to SQLite, of a store made by real
# commands: a device on a real sshd with its pinned host key, a device
# check, drained; a presubmit compare of the demo project; a postsubmit
# backfill of a generated repository with a step that detect stores as
# an alert. The copy has every row, leaves the source byte for byte as
# it was, adds nothing the second time, keeps the destination's other
# runs, is all or nothing when the destination refuses a row, says
# MISMATCH (exit 3) when a present run lacks samples, names a bad
# --from, draws a progress line on a terminal only, and (with a
# PostgreSQL server in $BENCHFARM_TEST_PG) copies into PostgreSQL and
# back.
. "$(dirname "$0")/lib.sh"

sshd_setup
SRC="$BENCHFARM_DB"

# dump DB QUERY: the query's rows, for comparing two stores' contents.
dump() {
	sqlite3 "$1" "$2"
}
# Every copied column, without the ids a copy renumbers.
Q_DEV="SELECT name, type, host, port, user, key_path, labels, agent_path,
 adb_serial, host_key_fp, health, health_reason, last_check_at,
 created_at, workdir FROM devices ORDER BY name"
Q_RUN="SELECT kind, status, config_digest, base_commit, patch_commit,
 device, seed, started_at, finished_at, info FROM runs ORDER BY started_at,
 kind, seed"
Q_SAMPLE="SELECT r.kind, r.started_at, r.seed, s.benchmark, s.metric, s.unit,
 s.side, s.commit_id, s.device, s.suite, s.repeat_idx, s.iter_idx, s.value
 FROM samples s JOIN runs r ON r.id = s.run_id ORDER BY 1, 2, 3, s.id"
Q_CHECK="SELECT r.kind, r.started_at, r.seed, c.device, c.check_id, c.status,
 c.value, c.threshold, c.message, c.at FROM checks c
 LEFT JOIN runs r ON r.id = c.run_id ORDER BY 1, 2, 3, c.id"
Q_ALERT="SELECT benchmark, metric, device_class, commit_lo, commit_hi,
 direction, size, score, status, created_at, group_id, suite, detail,
 culprit FROM alerts ORDER BY benchmark, commit_hi"
same_rows() {
	for q in "$Q_DEV" "$Q_RUN" "$Q_SAMPLE" "$Q_CHECK" "$Q_ALERT"; do
		[ "$(dump "$1" "$q")" = "$(dump "$2" "$q")" ] || return 1
	done
}

expect_exit 0 "store copy --help" "$BF" store copy --help
grep_file "--help shows the usage" "^usage: benchfarm store copy --from SRC --to DST" "$OUT"
expect_exit 2 "store without a command is a usage error" "$BF" store
expect_exit 2 "store copy without --to is a usage error" "$BF" store copy \
	--from "$SRC"
grep_file "it says what to give" "give the store to copy with --from SRC" "$ERR"

# The source: a device with its pinned key, checked, then drained.
sshd_start d1
sshd_add d1 "$port" "add d1 with --accept-host-key" --labels lab \
	--agent "$BFA"
mkdir -p "$T/cfg"
cat >"$T/cfg/bf.yaml" <<'X'
version: 1
project: {repo: .}
benchmarks:
  - {name: b, command: ["true"], format: lines}
checks: {suppress: [throttle, load]}
X
"$BF" device check d1 -c "$T/cfg/bf.yaml" >/dev/null 2>&1
expect_exit 0 "drain d1" "$BF" device drain d1 --reason "moved to rack 2"

# A presubmit compare (t0010's).
make_demo_repo "$T/demo"
expect_exit 1 "compare finds the regression (exit 1)" \
	"$BF" compare -c "$T/demo/benchfarm.yaml" --seed 1

# A postsubmit history with a step at commit 7 that detect stores.
P="$T/post"
mkdir -p "$P"
t_git -C "$P" init -q -b main
cat >"$P/bench.sh" <<'X'
#!/bin/sh
. ./values.txt
for b in alpha:1000 beta:2000; do
	n=${b%%:*}
	v=${b#*:}
	f=1
	[ "$n" = alpha ] && f=$STEP
	echo "$n $(echo "$v * $f * (1 + $WOBBLE / 1000)" | bc -l) ns"
done
X
cat >"$P/benchfarm.yaml" <<'X'
version: 1
project: {repo: ., target_branch: main, build: ["true"]}
benchmarks:
  - {name: suite, command: [sh, bench.sh], format: lines}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks, cores]}
runs: {repeats: 3, warmup: 0}
postsubmit: {detector: jetpack}
X
i=1
while [ $i -le 14 ]; do
	step=1
	[ $i -ge 7 ] && step=1.2
	printf 'STEP=%s\nWOBBLE=%s\n' "$step" $(((i * 7) % 5 - 2)) \
		>"$P/values.txt"
	t_git -C "$P" add -A
	t_git -C "$P" commit -q -m "commit $i"
	i=$((i + 1))
done
expect_exit 0 "backfill 13 commits" "$BF" backfill -c "$P/benchfarm.yaml" \
	"$(git -C "$P" rev-parse main~13)..main"
expect_exit 0 "detect stores an alert" "$BF" detect -c "$P/benchfarm.yaml"

for t in devices runs samples checks alerts; do
	n=$(dump "$SRC" "SELECT count(*) FROM $t")
	if [ "$n" -gt 0 ]; then t_ok "the source has $t ($n)"; else
		t_fail "the source has no $t"; fi
done
sum_before=$(sha256sum <"$SRC")
dump_before=$(sqlite3 "$SRC" .dump)

# The full copy into a new store.
DST="$T/copy/lab.db"
expect_exit 0 "copy into a new store" "$BF" store copy --from "$SRC" \
	--to "$DST" --json
for t in devices runs samples checks alerts; do
	n=$(dump "$SRC" "SELECT count(*) FROM $t")
	jq_check "$t: all $n copied and verified" \
		".match and .tables.$t.source == $n and .tables.$t.copied == $n and .tables.$t.present == 0 and .tables.$t.dest_after == $n and .tables.$t.match" \
		"$OUT"
done
if same_rows "$SRC" "$DST"; then t_ok "the copy has every row and column"
else t_fail "the copy differs from the source"; fi
if [ "$(dump "$DST" "SELECT host_key_fp FROM devices WHERE name = 'd1'")" = \
	"$(ssh-keygen -l -E sha256 -f "$S/d1/host_key.pub" | cut -d' ' -f2)" ]; then
	t_ok "the pinned host key came along"
else t_fail "the pinned host key is not d1's"; fi
if [ "$(dump "$DST" "SELECT count(*) FROM leases")" = 0 ] &&
	[ "$(dump "$DST" "SELECT state FROM devices")" = idle ]; then
	t_ok "no lease is copied; the device is idle"
else t_fail "leases or device state were copied"; fi
if [ "$(sha256sum <"$SRC")" = "$sum_before" ] &&
	[ "$(sqlite3 "$SRC" .dump)" = "$dump_before" ]; then
	t_ok "the source is unchanged (sha256 and dump)"
else t_fail "the copy changed the source"; fi
expect_exit 0 "the copy is a store benchfarm reads" "$BF" --db "$DST" \
	device show d1 --json
jq_check "its device keeps its drain reason" \
	'.health == "maintenance" and (.health_reason | test("moved to rack 2"))' \
	"$OUT"

# Again: nothing is added.
expect_exit 0 "copy again" "$BF" store copy --from "$SRC" --to "$DST" --json
jq_check "the second copy copies nothing and finds everything" \
	'.match and ([.tables[] | .copied == 0 and .present == .source and .dest_after == .dest_before] | all)' \
	"$OUT"
if same_rows "$SRC" "$DST"; then t_ok "still the same rows"; else
	t_fail "the second copy changed the destination"; fi
expect_exit 0 "copy again, for people" "$BF" store copy --from "$SRC" \
	--to "$DST"
grep_file "the table says ok per table" "^samples  *[0-9]*  *0  *[0-9]*  *[0-9]*  *[0-9]*  ok$" "$OUT"
if grep -q "store copy:" "$ERR"; then t_fail "a progress line off a terminal"
else t_ok "no progress line when stderr is not a terminal"; fi

# A store with runs of its own keeps them.
OTHER="$T/other.db"
expect_exit 1 "another compare in another store" "$BF" --db "$OTHER" \
	compare -c "$T/demo/benchfarm.yaml" --seed 2
own_runs=$(dump "$OTHER" "SELECT count(*) FROM runs")
own_samples=$(dump "$OTHER" "$Q_SAMPLE")
expect_exit 0 "copy into it" "$BF" store copy --from "$SRC" --to "$OTHER" \
	--json
n=$(dump "$SRC" "SELECT count(*) FROM runs")
jq_check "its runs stay and the source's are added" \
	".match and .tables.runs.dest_before == $own_runs and .tables.runs.copied == $n and .tables.runs.dest_after == $own_runs + $n" \
	"$OUT"
if dump "$OTHER" "$Q_SAMPLE" | grep -qxF "$(printf '%s\n' "$own_samples" | head -1)" &&
	[ "$(dump "$OTHER" "SELECT count(*) FROM runs WHERE seed = 2")" = 1 ]; then
	t_ok "its own run and samples are still there"
else t_fail "the copy lost the destination's own run"; fi

# All or nothing: a destination that refuses the 50th sample keeps
# none of the copy.
ATOM="$T/atom.db"
"$BF" --db "$ATOM" device list >/dev/null 2>&1
sqlite3 "$ATOM" "CREATE TRIGGER refuse BEFORE INSERT ON samples
 WHEN (SELECT count(*) FROM samples) >= 49
 BEGIN SELECT RAISE(ABORT, 'full'); END;"
expect_exit 3 "a refused row fails the copy (exit 3)" "$BF" store copy \
	--from "$SRC" --to "$ATOM"
grep_file "the error names the row and the store" \
	"cannot copy \\(a sample\\|the samples\\) of run [0-9]* into '$ATOM'" "$ERR"
if [ "$(dump "$ATOM" "SELECT (SELECT count(*) FROM devices) + (SELECT count(*) FROM runs) + (SELECT count(*) FROM samples) + (SELECT count(*) FROM checks)")" = 0 ]; then
	t_ok "nothing of the failed copy stayed"
else t_fail "the failed copy left rows behind"; fi

# A present run that lacks samples does not add up.
sqlite3 "$DST" "DELETE FROM samples WHERE id = (SELECT max(id) FROM samples)"
expect_exit 3 "a run present with a sample missing: exit 3" "$BF" store copy \
	--from "$SRC" --to "$DST"
grep_file "the table says MISMATCH" "^samples .*MISMATCH$" "$OUT"
grep_file "stderr says which table and what to do" \
	"the samples do not add up: .*Run the copy again" "$ERR"

# A bad --from is named and never created; a newer one is refused.
expect_exit 2 "a missing --from (exit 2)" "$BF" store copy \
	--from "$T/nope.db" --to "$T/x.db"
grep_file "it names the file" "'$T/nope.db': no such store file" "$ERR"
if [ ! -e "$T/nope.db" ] && [ ! -e "$T/x.db" ]; then
	t_ok "neither store was created"
else t_fail "a store file was created"; fi
echo "not a store" >"$T/text.db"
expect_exit 3 "a file that is not a store (exit 3)" "$BF" store copy \
	--from "$T/text.db" --to "$T/x.db"
grep_file "it names the file" "'$T/text.db' is not a benchfarm database" \
	"$ERR"
cp "$SRC" "$T/newer.db"
sqlite3 "$T/newer.db" "PRAGMA user_version = 99"
expect_exit 3 "a newer --from is refused (exit 3)" "$BF" store copy \
	--from "$T/newer.db" --to "$T/x2.db"
grep_file "it names the file and the versions" \
	"'$T/newer.db' has schema version 99, newer than this benchfarm" "$ERR"
# An older --from (schema 7: leases without host, pid and token, no
# lease_gen, no queue of waiting jobs, no build identity) is migrated as any command's open
# migrates it, then copied.
cp "$SRC" "$T/older.db"
sqlite3 "$T/older.db" "ALTER TABLE leases DROP COLUMN holder_key;
 ALTER TABLE leases DROP COLUMN alive_at; ALTER TABLE runs DROP COLUMN alive_at;
 ALTER TABLE runs DROP COLUMN build_id; ALTER TABLE runs DROP COLUMN base_build_id;
 ALTER TABLE runs DROP COLUMN measured_by; ALTER TABLE devices DROP COLUMN machine;
 ALTER TABLE leases DROP COLUMN pid;
 ALTER TABLE leases DROP COLUMN host; ALTER TABLE leases DROP COLUMN token;
 ALTER TABLE devices DROP COLUMN lease_gen; DROP TABLE waiters;
 PRAGMA user_version = 7"
expect_exit 0 "an older --from is copied" "$BF" store copy \
	--from "$T/older.db" --to "$T/from-older.db"
if [ "$(sqlite3 "$T/older.db" "PRAGMA user_version")" = 12 ] &&
	same_rows "$SRC" "$T/from-older.db"; then
	t_ok "it was migrated to version 12 and all of it copied"
else
	t_fail "the older store was not migrated or not copied"
fi
expect_exit 2 "--from and --to the same store (exit 2)" "$BF" store copy \
	--from "$SRC" --to "$T/../$(basename "$T")/benchfarm.db"
grep_file "it says so" "name the same store" "$ERR"

# Into PostgreSQL and back: a fresh database on the server of
# $BENCHFARM_TEST_PG (ci/run-tests.sh starts one with ci/pg.sh), the
# same rows there, nothing added the second time, and a copy of it back
# into SQLite has the source's rows.
if [ -n "${BENCHFARM_TEST_PG:-}" ] && command -v psql >/dev/null 2>&1; then
	pgdb="bf_copy_$$"
	psql "$BENCHFARM_TEST_PG" -qc "CREATE DATABASE $pgdb" >/dev/null
	PGLOC="$BENCHFARM_TEST_PG dbname=$pgdb"
	expect_exit 0 "copy into PostgreSQL" "$BF" store copy --from "$SRC" \
		--to "$PGLOC" --json
	jq_check "every table copied and verified on PostgreSQL" \
		'.match and ([.tables[] | .copied == .source and .present == 0] | all)' \
		"$OUT"
	# Reals compared in thousandths: the two print them differently.
	qs="SELECT r.kind, r.started_at, r.seed, s.benchmark, s.metric, s.side,
	 coalesce(s.commit_id, ''), coalesce(s.suite, ''), s.repeat_idx,
	 s.iter_idx, CAST(round(s.value * 1000) AS BIGINT) FROM samples s
	 JOIN runs r ON r.id = s.run_id"
	if [ "$(psql "$PGLOC" -Atc "$qs" | LC_ALL=C sort)" = \
		"$(sqlite3 "$SRC" "$qs" | LC_ALL=C sort)" ] &&
		[ "$(psql "$PGLOC" -Atc "SELECT host_key_fp, health FROM devices")" = \
			"$(sqlite3 "$SRC" "SELECT host_key_fp, health FROM devices")" ]; then
		t_ok "PostgreSQL has the source's samples and pinned key"
	else
		t_fail "PostgreSQL's rows differ from the source's"
	fi
	expect_exit 0 "copy into PostgreSQL again" "$BF" store copy \
		--from "$SRC" --to "$PGLOC" --json
	jq_check "nothing added to PostgreSQL the second time" \
		'.match and ([.tables[] | .copied == 0 and .present == .source] | all)' \
		"$OUT"
	expect_exit 0 "copy PostgreSQL back into SQLite" "$BF" store copy \
		--from "$PGLOC" --to "$T/back.db"
	if same_rows "$SRC" "$T/back.db"; then
		t_ok "the round trip has every row and column"
	else
		t_fail "the round trip through PostgreSQL changed rows"
	fi
	psql "$BENCHFARM_TEST_PG" -qc "DROP DATABASE $pgdb" >/dev/null
	# All or nothing on PostgreSQL: its 50th sample refused.
	psql "$BENCHFARM_TEST_PG" -qc "CREATE DATABASE ${pgdb}_a" >/dev/null
	PGA="$BENCHFARM_TEST_PG dbname=${pgdb}_a"
	"$BF" --db "$T/empty.db" device list >/dev/null 2>&1
	expect_exit 0 "an empty store's copy makes the schema" "$BF" store \
		copy --from "$T/empty.db" --to "$PGA"
	psql "$PGA" -qc "CREATE FUNCTION refuse() RETURNS trigger
	 LANGUAGE plpgsql AS \$\$ BEGIN
	 IF (SELECT count(*) FROM samples) >= 49 THEN RAISE 'full'; END IF;
	 RETURN NEW; END \$\$;
	 CREATE TRIGGER refuse BEFORE INSERT ON samples
	 FOR EACH ROW EXECUTE FUNCTION refuse()" >/dev/null
	expect_exit 3 "a refused row fails the copy into PostgreSQL (exit 3)" \
		"$BF" store copy --from "$SRC" --to "$PGA"
	if [ "$(psql "$PGA" -Atc "SELECT (SELECT count(*) FROM devices) +
	 (SELECT count(*) FROM runs) + (SELECT count(*) FROM samples) +
	 (SELECT count(*) FROM checks)")" = 0 ]; then
		t_ok "nothing of the failed copy stayed in PostgreSQL"
	else
		t_fail "the failed copy left rows in PostgreSQL"
	fi
	psql "$BENCHFARM_TEST_PG" -qc "DROP DATABASE ${pgdb}_a" >/dev/null
else
	t_ok "# skip no PostgreSQL (BENCHFARM_TEST_PG)"
fi

# A password in a location is printed as *** in the counts and in any
# error the store gives (run from $T/pw: a build without PostgreSQL
# takes the location for a file path and creates it there).
mkdir -p "$T/pw"
for loc in "postgresql://u:s3cretpw@localhost/x?host=$T/pw/nosock" \
	"password=s3cretpw host=$T/pw/nosock dbname=x"; do
	(cd "$T/pw" && "$BF" store copy --from "$SRC" --to "$loc" --json) \
		>"$OUT" 2>"$ERR"
	rc=$?
	if grep -q s3cretpw "$OUT" "$ERR"; then
		t_fail "the password of '${loc%%s3cret*}...' is printed"
	elif [ $rc -eq 0 ] && ! grep -q '\*\*\*' "$OUT"; then
		t_fail "the location is not printed masked"
	else
		t_ok "no password printed for '${loc%%s3cret*}...' (exit $rc)"
	fi
done

# A store's error that quotes part of the location: the password is
# masked there too (without PostgreSQL: a file where the path's first
# directory would be; with it: no server on that socket directory).
mkdir -p "$T/pw2"
: >"$T/pw2/password=s3cretpw host="
(cd "$T/pw2" && "$BF" store copy --from "$SRC" \
	--to "password=s3cretpw host=$T/pw2/nosock dbname=x") >"$OUT" 2>"$ERR"
rc=$?
if [ $rc -eq 3 ] && [ -s "$ERR" ] && ! grep -q s3cretpw "$OUT" "$ERR"; then
	t_ok "a failed open is exit 3 and its error has no password"
else
	t_fail "a failed open: exit $rc, or the password in its error"
fi

# A location of another URI scheme is a usage error naming the option,
# as --db's is, and its password is not shown (the command's own check
# used to take it for a missing file and print it whole).
expect_exit 2 "--from mysql://... is a usage error" \
	"$BF" store copy --from 'mysql://u:s3cretpw@db/x' --to "$T/m.db"
grep_file "it names --from and the scheme" \
	"--from: database location 'mysql:...' has a URI scheme" "$ERR"
if grep -q s3cretpw "$OUT" "$ERR"; then
	t_fail "the refused --from's password is not shown"
else
	t_ok "the refused --from's password is not shown"
fi
expect_exit 2 "--to mysql://... is a usage error" \
	"$BF" store copy --from "$SRC" --to 'mysql://u:s3cretpw@db/x'
grep_file "it names --to" "--to: database location 'mysql:...'" "$ERR"

# On a terminal, a progress line.
if command -v script >/dev/null 2>&1; then
	script -qec "'$BF' store copy --from '$SRC' --to '$T/tty.db'" \
		/dev/null >"$T/tty.out" 2>&1
	grep_file "a progress line on a terminal" \
		"benchfarm: store copy: samples *[0-9]*/[0-9]*" "$T/tty.out"
else
	t_ok "# skip no script(1) for a terminal"
fi
