#!/bin/sh
# A simulated day of a lab on a PostgreSQL store (make bench; numbers in
# BENCHMARKS.md): 5 orchestrator processes sharing 50, 100 and 200
# devices, jobs of 5 to 25 simulated minutes arriving at random at 0.85
# of what the devices can serve; jobs per hour, queue wait (median,
# p95), device utilisation, and how they grow with the devices (see
# bench/lab_day.c for the model). The server is ci/pg.sh's (Unix socket,
# fsync = off), started for the run and stopped after it.
# Usage: bench/lab_day.sh [HOURS] [SPEED] [DEVICES...]
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$SRC/${BF_BUILD:-build/default}" && pwd)
HOURS=${1:-24}
SPEED=${2:-720}
[ $# -ge 2 ] && shift 2 || set --
[ $# -gt 0 ] || set -- 50 100 200
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
W=$(mktemp -d "${TMPDIR:-/tmp}/bf-lab-day.XXXXXX")
chmod 0755 "$W"
trap '"$SRC/ci/pg.sh" stop "$W/pg" || true; rm -rf "$W"' EXIT
CFLAGS="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2"
${CC:-cc} $CFLAGS -I"$SRC/core/include" -I"$SRC/orchestrator" \
	-o "$W/lab_day" "$SRC/bench/lab_day.c" "$B/liborch.a" \
	"$B/libbfcore.a" \
	$(pkg-config --libs libgit2 libssh2 jansson yaml-0.1 sqlite3 libpq) -lm
"$SRC/ci/pg.sh" start "$W/pg" >/dev/null

for n in "$@"; do
	"$PGBIN/createdb" -h "$W/pg" "lab$n"
	echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
	"$W/lab_day" "host=$W/pg dbname=lab$n" 5 "$n" "$HOURS" "$SPEED"
done
