#!/bin/sh
# The noise study, part one: record real comparisons (BENCHMARKS.md,
# "Verdicts on a noisy machine"). For each condition (quiet; a noisy
# neighbour on the other core: cpu, mem or disk) and each patch (aa: no
# change; s1, s2, s5: 1%, 2% and 5% more work in every benchmark), it
# runs `benchfarm compare` twice on a generated Google Benchmark project:
# interleaved, pinned to core 0 with the neighbour on core 1, and duet
# (both cores; the neighbour stays on core 1, so on a 2-core machine it
# shares a core with one side of every round). Every per-run value of
# every series goes into the corpus, which bench/noise/replay.sh reads.
#
# Usage: bench/noise/record.sh [-n RUNS] [-o CORPUS] [CONDITION...]
#   -n RUNS    runs per side (interleaved) and rounds (duet); default 80
#   -o CORPUS  the corpus file; default bench/noise/corpus.json
#   CONDITION  quiet, cpu, mem, disk (default: all four)
#
# It needs 2 CPUs and about 35 minutes at the defaults. Run it on a
# machine doing nothing else: whatever else runs is noise the corpus
# keeps. The disk writer writes in the work directory (NOISE_WORKDIR, or
# one under TMPDIR): put that on a real disk, not a tmpfs, where fsync
# does nothing.
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
case ${BF_BUILD:=build/default} in
/*) B=$BF_BUILD ;;
*) B=$SRC/$BF_BUILD ;;
esac
N=80
OUT=$SRC/bench/noise/corpus.json
while getopts n:o: o; do
	case $o in
	n) N=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) echo "usage: $0 [-n RUNS] [-o CORPUS] [CONDITION...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
CONDS=${*:-quiet cpu mem disk}
for c in $CONDS; do
	case $c in
	quiet | cpu | mem | disk) ;;
	*) echo "$0: unknown condition '$c' (quiet, cpu, mem, disk)" >&2; exit 2 ;;
	esac
done
[ "$(nproc)" -ge 2 ] || { echo "$0: needs 2 CPUs, this machine has $(nproc)" >&2; exit 2; }
command -v taskset >/dev/null || { echo "$0: needs taskset (util-linux)" >&2; exit 2; }

W=${NOISE_WORKDIR:-$(mktemp -d "${TMPDIR:-/tmp}/bf-noise.XXXXXX")}
mkdir -p "$W/raw"
export BENCHFARM_DB="$W/store.db" BENCHFARM_CACHE="$W/cache"
NB=
stop_neighbour() {
	if [ -n "$NB" ]; then
		kill "$NB" 2>/dev/null || :
		wait "$NB" 2>/dev/null || :
		NB=
	fi
}
trap 'stop_neighbour' EXIT INT TERM

${CC:-cc} -std=c11 -O2 -o "$W/neighbour" "$SRC/bench/noise/neighbour.c"

# The project: base on main, one branch per patch.
R=$W/repo
git_() {
	git -C "$R" -c user.name=benchfarm-noise \
		-c user.email=noise@benchfarm.invalid "$@" >/dev/null
}
if [ ! -d "$R/.git" ]; then
	mkdir -p "$R"
	git -C "$R" init -q -b main
	cp "$SRC/bench/noise/noise.cc" "$R/"
	printf 'out/\n' >"$R/.gitignore"
	printf '#define WORK_PERMILLE 1000\n' >"$R/work.h"
	printf 'the noise study project (bench/noise/record.sh)\n' >"$R/README"
	cat >"$R/Makefile" <<'X'
out/noise: noise.cc work.h
	mkdir -p out
	$(CXX) -O2 -o $@ noise.cc -lbenchmark -lpthread
X
	# The demo's settings, the checks kept but not fatal: the
	# neighbour is the load they would refuse.
	cat >"$R/benchfarm.yaml" <<'X'
version: 1
project: {repo: ., target_branch: main, build: [make]}
benchmarks:
  - name: noise
    command: [out/noise, --benchmark_format=json, --benchmark_min_time=0.05]
    format: gbench
    metrics: {real_time: {better: lower}, cpu_time: {better: lower}}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks]}
runs: {repeats: 10, warmup: 1}
presubmit: {alpha: 0.05, min_effect: 0.02}
X
	git_ add -A
	git_ commit -q -m "noise: baseline"
	for p in aa:1000 s1:1010 s2:1020 s5:1050; do
		git_ checkout -q -b "${p%:*}" main
		if [ "${p%:*}" = aa ]; then
			printf 'no change to the code\n' >>"$R/README"
		else
			printf '#define WORK_PERMILLE %s\n' "${p#*:}" >"$R/work.h"
		fi
		git_ commit -q -am "noise: ${p%:*}"
	done
	git_ checkout -q main
fi

now() { date +%s.%N; }
for cond in $CONDS; do
	stop_neighbour
	case $cond in
	cpu | mem) taskset -c 1 "$W/neighbour" "$cond" & NB=$! ;;
	disk) taskset -c 1 "$W/neighbour" disk "$W" & NB=$! ;;
	esac
	for p in aa s1 s2 s5; do
		for mode in interleaved duet; do
			f=$W/raw/$cond-$p-$mode.json
			[ -s "$f" ] && continue
			pin=
			[ $mode = interleaved ] && pin="taskset -c 0"
			echo "noise: $cond $p $mode, $N runs" >&2
			t0=$(now)
			rc=0
			$pin "$B/benchfarm" compare -c "$R/benchfarm.yaml" \
				--base main --patch "$p" --repeats "$N" \
				--mode "$mode" --seed 1 --json "$f.tmp" \
				--markdown /dev/null || rc=$?
			t1=$(now)
			[ $rc -le 1 ] || { echo "$0: compare exited $rc" >&2; exit 3; }
			if [ -n "$NB" ] && ! kill -0 "$NB" 2>/dev/null; then
				echo "$0: the $cond neighbour has died: the condition is not what it says" >&2
				exit 3
			fi
			echo "$t0 $t1" >"$f.time"
			mv "$f.tmp" "$f"
		done
	done
done
stop_neighbour
python3 "$SRC/bench/noise/corpus.py" "$W/raw" >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "noise: corpus $OUT (raw results in $W/raw)" >&2
