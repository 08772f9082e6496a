#!/bin/sh
# The noise study, part two: replay the corpus (bench/noise/replay.c)
# and print the summary table of BENCHMARKS.md ("Verdicts on a noisy
# machine"). The full per-series table goes to OUT.tsv.
#
# Usage: bench/noise/replay.sh [-t TRIALS] [-o OUT.tsv] [CORPUS]
#   TRIALS   bootstrap trials per series and method (default 2000; the
#            replay is seeded, so the same corpus gives the same table)
#   OUT.tsv  default bench/noise/replay.tsv
#   CORPUS   default bench/noise/corpus.json (record.sh writes it)
# The conditions are replayed in parallel, one process per CPU.
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
case ${BF_BUILD:=build/default} in
/*) B=$BF_BUILD ;;
*) B=$SRC/$BF_BUILD ;;
esac
T=2000
OUT=$SRC/bench/noise/replay.tsv
while getopts t:o: o; do
	case $o in
	t) T=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) echo "usage: $0 [-t TRIALS] [-o OUT.tsv] [CORPUS]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
CORPUS=${1:-$SRC/bench/noise/corpus.json}
[ -r "$CORPUS" ] || { echo "$0: cannot read the corpus '$CORPUS'" >&2; exit 2; }
[ -f "$B/libbfcore.a" ] || { echo "$0: build first (make)" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/bf-noise-replay.XXXXXX")
trap 'rm -rf "$W"' EXIT
# A sanitizer build's library needs its runtime linked in.
san=
nm "$B/libbfcore.a" 2>/dev/null | grep -q ' U __asan_' && san="$san -fsanitize=address"
nm "$B/libbfcore.a" 2>/dev/null | grep -q ' U __ubsan_' && san="$san -fsanitize=undefined"
${CC:-cc} $san -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 \
	-I"$SRC/core/include" -o "$W/replay" "$SRC/bench/noise/replay.c" \
	"$B/libbfcore.a" $(pkg-config --libs jansson) -lm
conds=$(python3 -c 'import json,sys
print(" ".join(sorted({c["condition"] for c in json.load(open(sys.argv[1]))["cells"]})))' "$CORPUS")
# One process per condition, at most one per CPU at a time.
for c in $conds; do
	case $c in
	*[!a-z0-9_]*) echo "$0: $CORPUS: condition '$c' is not a plain name" >&2; exit 2 ;;
	esac
done
jobs=$(nproc)
pids=
i=0
for c in $conds; do
	"$W/replay" -t "$T" -s $((i + 1)) -c "$c" "$CORPUS" >"$W/$c.tsv" &
	pids="$pids $!"
	i=$((i + 1))
	if [ $((i % jobs)) -eq 0 ]; then
		for p in $pids; do wait "$p"; done
		pids=
	fi
done
for p in $pids; do wait "$p"; done
first=1
for c in $conds; do
	if [ $first = 1 ]; then cat "$W/$c.tsv"; first=0; else tail -n +2 "$W/$c.tsv"; fi
done >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
python3 "$SRC/bench/noise/summary.py" "$OUT"
