#!/bin/sh
# The verdict power study, part one: record the corpus (BENCHMARKS.md,
# "Power at small changes against compare.py"). It builds power.cc once,
# copies the binary (base and patch are byte-identical files) and, with a
# cpu neighbour (bench/noise/neighbour.c) on core 1, runs base and patch
# alternately on core 0, RUNS times each, for four pairs: aa (the same
# work on both sides) and s1, s2, s5 (the patch does 1%, 2% and 5% more
# work, POWER_WORK). Each run is one Google Benchmark JSON; the corpus
# keeps every run's real_time and cpu_time per benchmark, in run order,
# which bench/verdict-power/trials.py draws its trials from.
#
# Usage: bench/verdict-power/record.sh [-n RUNS] [-o CORPUS]
#   -n RUNS    runs per side and pair (default 30)
#   -o CORPUS  the corpus file (default bench/verdict-power/corpus.json)
#
# It needs 2 CPUs, taskset, g++ with libbenchmark-dev and python3, and
# takes about two minutes at the defaults. Whatever else the machine runs
# is noise the corpus keeps: the load averages of every run are in it.
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
D=$SRC/bench/verdict-power
N=30
OUT=$D/corpus.json
while getopts n:o: o; do
	case $o in
	n) N=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) echo "usage: $0 [-n RUNS] [-o CORPUS]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { echo "usage: $0 [-n RUNS] [-o CORPUS]" >&2; exit 2; }
case $N in
'' | *[!0-9]*) echo "$0: RUNS '$N' is not a count" >&2; exit 2 ;;
esac
[ "$(nproc)" -ge 2 ] || { echo "$0: needs 2 CPUs, this machine has $(nproc)" >&2; exit 2; }
command -v taskset >/dev/null || { echo "$0: needs taskset (util-linux)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "$0: needs python3" >&2; exit 2; }

W=$(mktemp -d "${TMPDIR:-/tmp}/bf-power.XXXXXX")
mkdir -p "$W/raw"
NB=
stop_neighbour() {
	if [ -n "$NB" ]; then
		kill "$NB" 2>/dev/null || :
		wait "$NB" 2>/dev/null || :
		NB=
	fi
}
trap 'stop_neighbour' EXIT
trap 'stop_neighbour; exit 130' INT TERM

${CC:-cc} -std=c11 -O2 -o "$W/neighbour" "$SRC/bench/noise/neighbour.c"
${CXX:-g++} -O2 -o "$W/base" "$D/power.cc" -lbenchmark -lpthread
cp "$W/base" "$W/patch"
cmp "$W/base" "$W/patch" || { echo "$0: the copied binary differs" >&2; exit 3; }
# Google Benchmark 1.8 takes a unit ("0.05s"); 1.7 (Debian 12) a number.
MT=0.05s
"$W/base" --benchmark_min_time=$MT --benchmark_list_tests >/dev/null 2>&1 || MT=0.05

utc() { date -u +%Y-%m-%dT%H:%M:%SZ; }
{
	printf 'started=%s\n' "$(utc)"
	printf 'cpu=%s\n' "$(lscpu | sed -n 's/^Model name: *//p')"
	printf 'nproc=%s\n' "$(nproc)"
	printf 'threads_per_core=%s\n' "$(lscpu | sed -n 's/^Thread(s) per core: *//p')"
	printf 'kernel=%s\n' "$(uname -r)"
	printf 'compiler=%s\n' "$(${CXX:-g++} --version | head -n 1)"
	printf 'libbenchmark=%s\n' "$(dpkg-query -W -f '${Version}' libbenchmark-dev 2>/dev/null || echo unknown)"
	printf 'binary_sha256=%s\n' "$(sha256sum <"$W/base" | cut -d' ' -f1)"
	printf 'min_time=%s\n' "$MT"
	printf 'nice=%s\n' "$(nice)"
	printf 'loadavg_start=%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
} >"$W/meta"

taskset -c 1 "$W/neighbour" cpu &
NB=$!
sleep 1
for p in aa:1.00 s1:1.01 s2:1.02 s5:1.05; do
	echo "power: ${p%:*}, $N runs a side" >&2
	i=1
	while [ "$i" -le "$N" ]; do
		for side in base patch; do
			w=1.00
			[ $side = patch ] && w=${p#*:}
			f=$W/raw/${p%:*}-$(printf %03d "$i")-$side.json
			POWER_WORK=$w taskset -c 0 "$W/$side" \
				--benchmark_format=json \
				--benchmark_min_time=$MT >"$f.tmp"
			mv "$f.tmp" "$f"
		done
		if ! kill -0 "$NB" 2>/dev/null; then
			echo "$0: the cpu neighbour has died: the condition is not what it says" >&2
			exit 3
		fi
		i=$((i + 1))
	done
done
stop_neighbour
{
	printf 'ended=%s\n' "$(utc)"
	printf 'loadavg_end=%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
} >>"$W/meta"
python3 "$D/corpus.py" "$W/meta" "$W/raw" >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "power: corpus $OUT (raw results in $W/raw)" >&2
