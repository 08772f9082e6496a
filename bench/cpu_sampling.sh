#!/bin/sh
# Overhead of CPU sampling in the agent's "run" request (target < 1%
# at 100 ms): a CPU-bound benchmark (bench/cpu_spin.c, about
# 1.2 s) run through `benchfarm-agent serve` without sampling and with
# "cpu_sample_ms" 100 and 10, side by side in the same rounds (the order
# rotates per round), in two layouts: "free" (the scheduler places the
# agent and the benchmark) and "one core" (both pinned to CPU 0 with
# taskset, the worst case: every sample is taken from the benchmark's
# own core). Per mode the medians of:
#   bench_s   the loop time the benchmark measures itself (what a user sees)
#   wall_s    fork to reap, as the agent reports it
#   agent_ms  the agent's own CPU time for the run: its rusage (taken
#             by bench/rusage_run.c) minus the benchmark's user + sys
# and the overhead two ways: overhead_pct, median bench_s against the
# no-sampling median (what the benchmark saw, noise included), and
# sampling_cpu_pct, the agent CPU time sampling added (median agent_ms
# minus that without sampling) per second of the run: what sampling can
# take from the benchmark at most, when they share a core.
#   bench/cpu_sampling.sh [ROUNDS] [ITERATIONS]
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
: "${BF_BUILD:=build/default}"
AGENT="$SRC/$BF_BUILD/benchfarm-agent"
ROUNDS=${1:-7}
ITERS=${2:-800000000}
for tool in jq bc taskset; do
	command -v "$tool" >/dev/null ||
		{ echo "cpu_sampling: needs $tool" >&2; exit 2; }
done
W=$(mktemp -d "${TMPDIR:-/tmp}/bf-cpusample.XXXXXX")
trap 'rm -rf "$W"' EXIT
for prog in cpu_spin rusage_run; do
	${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -o "$W/$prog" \
		"$SRC/bench/$prog.c"
done

# One run: $1 layout, $2 mode (0 = no sampling); appends a CSV row.
run() {
	extra=
	[ "$2" -gt 0 ] && extra=", \"cpu_sample_ms\": $2"
	pin=
	[ "$1" = onecore ] && pin="taskset -c 0"
	printf '{"type": "run", "id": 1, "argv": ["%s", "%s"], "format": "lines"%s}\n' \
		"$W/cpu_spin" "$ITERS" "$extra" |
		$pin "$W/rusage_run" "$W/time" "$AGENT" serve >"$W/out"
	read -r u s <"$W/time"
	jq -rs --arg layout "$1" --arg mode "$2" --arg agent "$(echo "$u + $s" | bc -l)" '
		(map(select(.type == "sample"))[0].value / 1e9) as $bench
		| map(select(.type == "result"))[0] as $r
		| if $r == null then error("no result: \(.)") else . end
		| [$layout, ($mode | tonumber), $bench, $r.wall_s,
		   (1000 * (($agent | tonumber) - $r.user_s - $r.sys_s)),
		   $r.cpu.usage_cores, ($r.cpu_series // [] | length)]
		| @csv' "$W/out" >>"$W/runs.csv"
}

: >"$W/runs.csv"
for layout in free onecore; do
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		r=$((r + 1))
		case $((r % 3)) in
		0) order="0 100 10" ;;
		1) order="100 10 0" ;;
		*) order="10 0 100" ;;
		esac
		for mode in $order; do
			run $layout "$mode"
		done
	done
done

# Medians per layout and mode, and the overhead against no sampling.
jq -Rrs '
	def median: sort | if length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	def r(n): . * pow(10; n) | round / pow(10; n);
	[split("\n")[] | select(length > 0) | split(",")
	 | {layout: (.[0] | fromjson), mode: (.[1] | tonumber),
	    bench: (.[2] | tonumber), wall: (.[3] | tonumber),
	    agent: (.[4] | tonumber), cores: (.[5] | tonumber),
	    points: (.[6] | tonumber)}]
	| group_by(.layout)[] as $g
	| ($g | map(select(.mode == 0)) | map(.bench) | median) as $base
	| ($g | map(select(.mode == 0)) | map(.agent) | median) as $base_agent
	| $g | group_by(.mode) | sort_by(-(.[0].mode | if . == 0 then 1e9 else . end))[]
	| {layout: .[0].layout, mode: .[0].mode, runs: length,
	   bench: (map(.bench) | median), wall: (map(.wall) | median),
	   agent: (map(.agent) | median), cores: (map(.cores) | median),
	   points: (map(.points) | median)}
	| [.layout, (if .mode == 0 then "none" else "\(.mode) ms" end), .runs,
	   (.bench | r(4)), (.wall | r(4)), (.agent | r(2)), (.cores | r(3)),
	   .points, (100 * (.bench / $base - 1) | r(2)),
	   (100 * (.agent - $base_agent) / 1000 / .wall | r(3))]
	| @csv' "$W/runs.csv" |
	{
		echo "layout,sampling,runs,bench_s,wall_s,agent_ms,usage_cores,points,overhead_pct,sampling_cpu_pct"
		cat
	}
