#!/bin/sh
# The config's store: key names the store, after --db and $BENCHFARM_DB
# and before the default file. A relative SQLite path is the config's
# directory's, whatever the working directory; config check shows a
# PostgreSQL location with its password masked; a location that is no
# store is refused with the file, line and key. On PostgreSQL (when
# $BENCHFARM_TEST_PG is set) the libpq ways of giving a password work
# from the config: a password file ($PGPASSFILE) and a service file
# ($PGSERVICEFILE); a wrong password is an infrastructure failure (exit
# 3) that prints no secret.
. "$(dirname "$0")/lib.sh"

# Only the config names the store: the documented default otherwise.
unset BENCHFARM_DB
R="$T/repo"
tiny_repo "$R" "runs: {repeats: 2, warmup: 0}
checks: {battery_min: 0, suppress: [load, throttle]}
store: lab/results.db"
mkdir -p "$R/lab" "$T/elsewhere"
nruns() { sqlite3 "$1" "select count(*) from runs where status = 'complete'"; }

(cd "$T/elsewhere" && "$BF" compare -c ../repo/bf.yaml --base HEAD \
	--patch HEAD) >"$OUT" 2>"$ERR"
rc=$?
[ $rc = 0 ] && t_ok "compare with store: in the config (exit 0)" ||
	t_fail "compare with store: in the config (exit $rc)"
[ "$(nruns "$R/lab/results.db")" = 1 ] &&
	t_ok "the run is in the config's store, beside the config" ||
	t_fail "the run is in the config's store, beside the config"
[ ! -e "$T/elsewhere/lab" ] && [ ! -e "$HOME/.local/share/benchfarm" ] &&
	t_ok "no store in the working directory or the default place" ||
	t_fail "no store in the working directory or the default place"

(cd "$T/elsewhere" && "$BF" run -c ../repo/bf.yaml --commit HEAD -n 2) \
	>"$OUT" 2>"$ERR" && t_ok "run records a commit there" ||
	t_fail "run records a commit there"
expect_exit 0 "history reads the config's store" \
	"$BF" history -c "$R/bf.yaml" --json
jq_check "history found the commit there" \
	'.commits == 1 and (.series | length) == 1' "$OUT"

BENCHFARM_DB="$T/env.db" expect_exit 0 "BENCHFARM_DB over store:" \
	"$BF" compare -c "$R/bf.yaml" --base HEAD --patch HEAD
BENCHFARM_DB="$T/env.db" expect_exit 0 "--db over both" \
	"$BF" --db "$T/flag.db" compare -c "$R/bf.yaml" --base HEAD \
	--patch HEAD
[ "$(nruns "$T/env.db")" = 1 ] && [ "$(nruns "$T/flag.db")" = 1 ] &&
	[ "$(nruns "$R/lab/results.db")" = 2 ] &&
	t_ok "each run went to the store that takes precedence" ||
	t_fail "each run went to the store that takes precedence"

# config check: the effective location, a password masked. The
# variants are written beside bf.yaml, in the repository.
C="$R/c.yaml"
cfg_with() {
	sed '/^store:/d' "$R/bf.yaml" >"$C"
	printf 'store: %s\n' "$1" >>"$C"
}
cfg_with "'postgresql://lab:s3cr3t-pw@db.example/benchfarm'"
expect_exit 0 "config check with a PostgreSQL store" \
	"$BF" config check -c "$C"
jq_check "config check shows it masked" \
	'.store == "postgresql://lab:***@db.example/benchfarm"' "$OUT"
if grep -q s3cr3t-pw "$OUT" "$ERR"; then
	t_fail "no password in config check's output"
else
	t_ok "no password in config check's output"
fi
expect_exit 0 "config check without store:" \
	"$BF" config check -c "$R/bf.yaml"
jq_check "a relative SQLite store is shown under the config's directory" \
	".store == \"$R/lab/results.db\"" "$OUT"

cfg_with "'ftp://u:hidden-pw@h/x'"
line=$(grep -n '^store:' "$C" | cut -d: -f1)
expect_exit 2 "a store: that is no store is a config error" \
	"$BF" compare -c "$C" --base HEAD --patch HEAD
grep_file "the error names the file, line and key" \
	"c.yaml:$line:[0-9]*: 'store': .*neither postgresql:// nor" "$ERR"
if grep -q hidden-pw "$ERR"; then
	t_fail "the refused location's password is not printed"
else
	t_ok "the refused location's password is not printed"
fi
cfg_with "'~/lab.db'"
expect_exit 2 "store: with ~ is refused" "$BF" config check -c "$C"
grep_file "saying why" "'store': .*not expanded" "$ERR"

if ! have_pg; then
	echo "ok $((t_n + 1)) # skip no PostgreSQL (BENCHFARM_TEST_PG unset)"
	exit 0
fi
# Its own database and a role that must give its password.
pg_fresh_db cfgstore || exit 1
pgdb=${BENCHFARM_DB##*dbname=}
unset BENCHFARM_DB
role="bf_cfg_$$"
pgpw="pw-$$-Zq"
psql "$BENCHFARM_TEST_PG" -qc "CREATE ROLE $role LOGIN PASSWORD '$pgpw'" \
	>/dev/null &&
	psql "$BENCHFARM_TEST_PG dbname=$pgdb" -qc \
		"GRANT ALL ON SCHEMA public TO $role" >/dev/null ||
	t_fail "cannot create a role on $BENCHFARM_TEST_PG"
t_atexit() {
	[ -f "$T/hba.saved" ] && cp "$T/hba.saved" "$hba" &&
		psql "$BENCHFARM_TEST_PG" -qAtc "select pg_reload_conf()" \
			>/dev/null 2>&1
	psql "$BENCHFARM_TEST_PG" -qc \
		"DROP DATABASE IF EXISTS $pgdb WITH (FORCE)" >/dev/null 2>&1
	psql "$BENCHFARM_TEST_PG" -qc "DROP ROLE IF EXISTS $role" \
		>/dev/null 2>&1
}
# The role must give its password on this server's socket (ci/pg.sh
# trusts every other role): a rule for it goes first in pg_hba.conf.
sock=$(printf '%s\n' "$BENCHFARM_TEST_PG" | sed -n 's/.*host=\([^ ]*\).*/\1/p')
hba="$sock/data/pg_hba.conf"
if [ ! -w "$hba" ]; then
	echo "ok $((t_n + 1)) # skip cannot edit $hba"
	exit 0
fi
cp "$hba" "$T/hba.saved"
{
	echo "local all $role scram-sha-256"
	cat "$T/hba.saved"
} >"$hba"
psql "$BENCHFARM_TEST_PG" -qAtc "select pg_reload_conf()" >/dev/null
loc="host=$sock dbname=$pgdb user=$role"
printf '*:*:*:%s:%s\n' "$role" "$pgpw" >"$T/pgpass"
chmod 600 "$T/pgpass"

cfg_with "'$loc'"
PGPASSFILE=/dev/null expect_exit 3 "without the password: exit 3" \
	"$BF" compare -c "$C" --base HEAD --patch HEAD
grep_file "the error names the masked location" "user=$role" "$ERR"
PGPASSFILE="$T/pgpass" expect_exit 0 "the password from PGPASSFILE" \
	"$BF" compare -c "$C" --base HEAD --patch HEAD
n=$(PGPASSFILE="$T/pgpass" psql "$loc" -Atc \
	"select count(*) from runs where status = 'complete'")
[ "$n" = 1 ] && t_ok "the run is in PostgreSQL" ||
	t_fail "the run is in PostgreSQL (got '$n')"

printf '*:*:*:%s:not-%s\n' "$role" "$pgpw" >"$T/badpass"
chmod 600 "$T/badpass"
PGPASSFILE="$T/badpass" expect_exit 3 "a wrong password: exit 3" \
	"$BF" compare -c "$C" --base HEAD --patch HEAD
if grep -q -e "$pgpw" "$OUT" "$ERR"; then
	t_fail "no password printed"
else
	t_ok "no password printed"
fi

cat >"$T/services" <<X
[lab]
host=$sock
dbname=$pgdb
user=$role
X
cfg_with "'service=lab'"
PGSERVICEFILE="$T/services" PGPASSFILE="$T/pgpass" expect_exit 0 \
	"store: service=lab with PGSERVICEFILE" \
	"$BF" compare -c "$C" --base HEAD --patch HEAD
n=$(PGPASSFILE="$T/pgpass" psql "$loc" -Atc \
	"select count(*) from runs where status = 'complete'")
[ "$n" = 2 ] && t_ok "the service's run is in the same database" ||
	t_fail "the service's run is in the same database (got '$n')"
PGSERVICEFILE="$T/services" PGPASSFILE="$T/pgpass" expect_exit 0 \
	"device list reads it through BENCHFARM_DB=service=lab" \
	env BENCHFARM_DB=service=lab "$BF" device list --json
