#!/bin/sh
# Lease throughput (make bench; numbers in BENCHMARKS.md), target: at
# least 1,000 lease/release cycles per second with 5 processes
# contending for 50 devices on PostgreSQL, and no double lease
# (lease_contend checks every lease's fencing token and holding time,
# and exits 1 on any overlap). SQLite in the same run, for reference.
# The server is ci/pg.sh's (Unix socket, fsync = off), started for the
# run and stopped after it; PG_FSYNC=on turns fsync on (every commit
# waits for the disk, as on a production server).
# Usage: [PG_FSYNC=on] bench/lease_contend.sh [PROCS] [DEVICES] [SECONDS] [ROUNDS]
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$SRC/${BF_BUILD:-build/default}" && pwd)
PROCS=${1:-5}
DEVICES=${2:-50}
SECONDS_=${3:-10}
ROUNDS=${4:-3}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
W=$(mktemp -d "${TMPDIR:-/tmp}/bf-lease.XXXXXX")
chmod 0755 "$W"
trap '"$SRC/ci/pg.sh" stop "$W/pg" || true; rm -rf "$W"' EXIT
CFLAGS="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2"
${CC:-cc} $CFLAGS -I"$SRC/core/include" -I"$SRC/orchestrator" \
	-o "$W/lease_contend" "$SRC/bench/lease_contend.c" "$B/liborch.a" \
	"$B/libbfcore.a" \
	$(pkg-config --libs libgit2 libssh2 jansson yaml-0.1 sqlite3 libpq) -lm
"$SRC/ci/pg.sh" start "$W/pg" >/dev/null
if [ "${PG_FSYNC:-off}" = on ]; then
	psql -X -q "host=$W/pg dbname=benchfarm" -c "ALTER SYSTEM SET fsync = on" \
		-c "SELECT pg_reload_conf()" >/dev/null
fi

echo "-- $PROCS processes, $DEVICES devices, $SECONDS_ s a round, PostgreSQL fsync $(psql -X -At "host=$W/pg dbname=benchfarm" -c "SHOW fsync"); load: $(cut -d' ' -f1-3 /proc/loadavg)"
best=0
for i in $(seq "$ROUNDS"); do
	"$PGBIN/createdb" -h "$W/pg" "lease$i"
	line=$("$W/lease_contend" "host=$W/pg dbname=lease$i" "$PROCS" "$DEVICES" "$SECONDS_")
	echo "round $i, PostgreSQL: $line"
	rate=$(echo "$line" | sed 's/.* cycles, \([0-9]*\) cycles\/s.*/\1/')
	[ "$rate" -gt "$best" ] && best=$rate
	rm -f "$W/lease.db"*
	echo "round $i, SQLite: $("$W/lease_contend" "$W/lease.db" "$PROCS" "$DEVICES" "$SECONDS_")"
done
printf 'lease/release on PostgreSQL, best of %d: %d cycles/s; target >= 1000: %s\n' \
	"$ROUNDS" "$best" "$([ "$best" -ge 1000 ] && echo met || echo MISSED)"
