#!/bin/sh
# The detection and ingest targets, measured (make bench; numbers in BENCHMARKS.md):
#   detection over 10,000 series of 1,000 points, every detector
#     (target: under 2 s for jetpack and skia);
#   the store's ingest rate for raw samples (target: at least 200,000
#     samples/s), side by side with the sqlite3 shell's .import of the
#     same rows into the same schema in the same run: the peer that
#     does nothing but insert.
# Usage: bench/detect_ingest.sh [SERIES] [POINTS] [SAMPLES]
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$SRC/${BF_BUILD:-build/default}" && pwd)
SERIES=${1:-10000}
POINTS=${2:-1000}
SAMPLES=${3:-1000000}
W=$(mktemp -d "${TMPDIR:-/tmp}/bf-detect-ingest.XXXXXX")
trap 'rm -rf "$W"' EXIT
CFLAGS="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2"
${CC:-cc} $CFLAGS -I"$SRC/core/include" -o "$W/detect_scale" \
	"$SRC/bench/detect_scale.c" "$B/libbfcore.a" \
	$(pkg-config --libs jansson) -lm
${CC:-cc} $CFLAGS -I"$SRC/core/include" -I"$SRC/orchestrator" \
	-o "$W/store_ingest" "$SRC/bench/store_ingest.c" "$B/liborch.a" \
	"$B/libbfcore.a" \
	$(pkg-config --libs libgit2 libssh2 jansson yaml-0.1 sqlite3) -lm

echo "-- detection: $SERIES series x $POINTS points, each detector's defaults"
"$W/detect_scale" "$SERIES" "$POINTS" | tee "$W/detect.txt"
awk 'NR > 1 && ($1 == "jetpack" || $1 == "skia") {
	printf "%s: %.3f s, target < 2 s: %s\n", $1, $4, ($4 < 2 ? "met" : "MISSED")
}' "$W/detect.txt"

echo "-- ingest: $SAMPLES samples, batches of 1,000, then sqlite3 .import of the same rows"
best=0
peer=0
for i in 1 2 3; do
	rm -f "$W/ours.db"* "$W/peer.db"*
	set -- $("$W/store_ingest" "$W/ours.db" "$W/rows.csv" "$SAMPLES")
	rate=$3
	# the peer: the same table, indexes and WAL, rows from CSV
	{
		echo "PRAGMA journal_mode = WAL;"
		echo "PRAGMA synchronous = NORMAL;"
		sqlite3 "$W/ours.db" .schema | grep -v '^CREATE TABLE sqlite_'
	} | sqlite3 "$W/peer.db" >/dev/null
	t0=$(date +%s.%N)
	sqlite3 "$W/peer.db" ".mode csv" ".import $W/rows.csv samples"
	t1=$(date +%s.%N)
	n=$(sqlite3 "$W/peer.db" "select count(*) from samples")
	[ "$n" = "$SAMPLES" ] || { echo "peer imported $n rows" >&2; exit 1; }
	prate=$(echo "$SAMPLES / ($t1 - $t0)" | bc -l)
	printf 'run %d: benchfarm %.0f samples/s, sqlite3 .import %.0f samples/s, ratio %.2f\n' \
		"$i" "$rate" "$prate" "$(echo "$rate / $prate" | bc -l)"
	[ "$(echo "$rate > $best" | bc -l)" = 1 ] && best=$rate
	[ "$(echo "$prate > $peer" | bc -l)" = 1 ] && peer=$prate
done
printf 'ingest, best of 3: benchfarm %.0f samples/s, sqlite3 .import %.0f samples/s (ratio %.2f); target >= 200000: %s\n' \
	"$best" "$peer" "$(echo "$best / $peer" | bc -l)" \
	"$([ "$(echo "$best >= 200000" | bc -l)" = 1 ] && echo met || echo MISSED)"
