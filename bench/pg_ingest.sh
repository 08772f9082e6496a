#!/bin/sh
# Raw sample ingest into a PostgreSQL store (make bench; numbers in
# BENCHMARKS.md), target: at least 0.5 of PostgreSQL's own COPY rate.
# In each round, each into a fresh database with the store's schema:
#   store   bf_store_sample_add_many in batches of 1,000 (the
#           orchestrator's path: one COPY per batch on PostgreSQL)
#   insert  one INSERT per sample, a transaction per batch (the path
#           add_many took on PostgreSQL before, for reference)
#   copy    psql's \copy of the same rows (a CSV the store run wrote)
#           into the same table: PostgreSQL's own bulk path, doing
#           nothing but inserting
# The server is ci/pg.sh's (Unix socket, fsync = off), started for the
# run and stopped after it.
# Usage: bench/pg_ingest.sh [SAMPLES] [ROUNDS]
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$SRC/${BF_BUILD:-build/default}" && pwd)
SAMPLES=${1:-200000}
ROUNDS=${2:-3}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
W=$(mktemp -d "${TMPDIR:-/tmp}/bf-pg-ingest.XXXXXX")
chmod 0755 "$W"
trap '"$SRC/ci/pg.sh" stop "$W/pg" || true; rm -rf "$W"' EXIT
CFLAGS="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2"
${CC:-cc} $CFLAGS -I"$SRC/core/include" -I"$SRC/orchestrator" \
	-o "$W/pg_ingest" "$SRC/bench/pg_ingest.c" "$B/liborch.a" \
	"$B/libbfcore.a" \
	$(pkg-config --libs libgit2 libssh2 jansson yaml-0.1 sqlite3 libpq) -lm
PGC=$("$SRC/ci/pg.sh" start "$W/pg")
COLS="run_id, benchmark, metric, unit, side, commit_id, device, repeat_idx, iter_idx, value, suite"

db=0
fresh() { # a new database on the server; $loc its connection string
	db=$((db + 1))
	"$PGBIN/createdb" -h "$W/pg" "bench$db"
	loc="host=$W/pg dbname=bench$db"
}
rate() { echo "$1 / ($3 - $2)" | bc -l; }

echo "-- ingest into PostgreSQL 15: $SAMPLES samples, batches of 1,000; load: $(cut -d' ' -f1-3 /proc/loadavg)"
best=0 bins=0 bcopy=0
for i in $(seq "$ROUNDS"); do
	fresh
	set -- $("$W/pg_ingest" "$loc" many "$W/rows.csv" "$SAMPLES")
	ours=$3
	fresh
	set -- $("$W/pg_ingest" "$loc" single "$W/rows2.csv" "$SAMPLES")
	ins=$3
	cmp -s "$W/rows.csv" "$W/rows2.csv" || { echo "the two runs wrote different rows" >&2; exit 1; }
	fresh
	"$W/pg_ingest" "$loc" none "$W/unused.csv" >/dev/null
	t0=$(date +%s.%N)
	psql -q -X "$loc" -c "\\copy samples ($COLS) from '$W/rows.csv' with (format csv)"
	t1=$(date +%s.%N)
	n=$(psql -X -At "$loc" -c "select count(*) from samples")
	[ "$n" = "$SAMPLES" ] || { echo "copy stored $n rows" >&2; exit 1; }
	copy=$(rate "$SAMPLES" "$t0" "$t1")
	printf 'round %d: store %.0f samples/s, INSERT per sample %.0f, psql \\copy %.0f; store/copy %.2f, insert/copy %.2f\n' \
		"$i" "$ours" "$ins" "$copy" "$(echo "$ours / $copy" | bc -l)" \
		"$(echo "$ins / $copy" | bc -l)"
	[ "$(echo "$ours > $best" | bc -l)" = 1 ] && best=$ours
	[ "$(echo "$ins > $bins" | bc -l)" = 1 ] && bins=$ins
	[ "$(echo "$copy > $bcopy" | bc -l)" = 1 ] && bcopy=$copy
done
ratio=$(echo "$best / $bcopy" | bc -l)
printf 'ingest into PostgreSQL, best of %d: store %.0f samples/s, INSERT per sample %.0f, psql \\copy %.0f; ratio %.2f, target >= 0.5: %s\n' \
	"$ROUNDS" "$best" "$bins" "$bcopy" "$ratio" \
	"$([ "$(echo "$ratio >= 0.5" | bc -l)" = 1 ] && echo met || echo MISSED)"
