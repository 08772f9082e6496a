#!/bin/sh
# The verdict power study, part two (make bench): the seeded trials of
# trials.py on the committed corpus (it does not record; record.sh
# does), judged by the benchfarm in BF_BUILD and by Google Benchmark's
# compare.py, then table.py's tables and targets (BENCHMARKS.md, "Power
# at small changes against compare.py").
#
# Usage: bench/verdict-power/run.sh [-t TRIALS] [-n NS] [-o OUT.tsv]
#                                    [OTHER.tsv...]
#   TRIALS     trials per cell (default 1000; the same corpus and count
#              give the same table)
#   NS         runs a side to draw, comma-separated (default 5,10,20; the
#              targets are at 10, and a cell's draws do not depend on NS)
#   OUT.tsv    default bench/verdict-power/trials.tsv
#   OTHER.tsv  earlier trials.py files (another build's verdicts on the
#              same draws) shown beside this build's
# BF_BUILD (default build/default) is the build whose benchfarm judges;
# GBENCH_TOOLS (default /usr/share/benchmark) the folder of compare.py.
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
D=$SRC/bench/verdict-power
case ${BF_BUILD:=build/default} in
/*) B=$BF_BUILD ;;
*) B=$SRC/$BF_BUILD ;;
esac
T=1000
NS=5,10,20
OUT=$D/trials.tsv
while getopts t:n:o: o; do
	case $o in
	t) T=$OPTARG ;;
	n) NS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) echo "usage: $0 [-t TRIALS] [-n NS] [-o OUT.tsv] [OTHER.tsv...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
case $T in
'' | *[!0-9]* | 0) echo "$0: TRIALS '$T' is not a positive count" >&2; exit 2 ;;
esac
case $NS in
'' | ,* | *, | *,,* | *[!0-9,]*) echo "$0: NS '$NS' is not a list of counts" >&2; exit 2 ;;
esac
[ -x "$B/benchfarm" ] || {
	echo "$0: no benchfarm at '$B/benchfarm': build it (make all) or set BF_BUILD" >&2
	exit 2
}
TOOLS=${GBENCH_TOOLS:-/usr/share/benchmark}
if [ ! -r "$TOOLS/compare.py" ] || [ ! -r "$TOOLS/gbench/report.py" ]; then
	echo "$0: no Google Benchmark compare.py in '$TOOLS': apt-get install libbenchmark-tools (or set GBENCH_TOOLS)" >&2
	exit 2
fi
# compare.py's U test is scipy's; a pyenv python3 first on PATH may lack
# it where the system one has it.
PY=
for p in "${PYTHON:-python3}" /usr/bin/python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import scipy, numpy' 2>/dev/null; then
		PY=$p
		break
	fi
done
[ -n "$PY" ] || {
	echo "$0: compare.py needs scipy: apt-get install python3-scipy" >&2
	exit 2
}
export BF_BUILD GBENCH_TOOLS="$TOOLS"
"$PY" "$D/trials.py" -t "$T" -n "$NS" -o "$OUT" "$D/corpus.json"
"$PY" "$D/table.py" "$OUT" "$@"
