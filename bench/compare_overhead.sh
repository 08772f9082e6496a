#!/bin/sh
# Orchestration overhead of `benchfarm compare`: total wall
# time of a compare minus the time the benchmark processes themselves
# ran, as a share of the total; builds are cached (a warm-up compare runs
# first), as they are for an unchanged side in CI. Side by side, the
# same benchmark commands run the same number of times by a plain shell
# loop: the floor any orchestrator pays.
#   bench/compare_overhead.sh [REPEATS] [ROUNDS]
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
: "${BF_BUILD:=build/default}"
BF="$SRC/$BF_BUILD/benchfarm"
REPEATS=${1:-10}
ROUNDS=${2:-3}
W=$(mktemp -d "${TMPDIR:-/tmp}/bf-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
export BENCHFARM_DB="$W/db" BENCHFARM_CACHE="$W/cache"
R="$W/repo"
g() { git -C "$R" -c user.name=b -c user.email=b@b.invalid "$@" >/dev/null; }
mkdir -p "$R" && git -C "$R" init -q -b main
cp "$SRC"/configs/examples/demo/micro.cc "$SRC"/configs/examples/demo/Makefile \
	"$SRC"/configs/examples/demo/benchfarm.yaml "$R/"
cp "$SRC/configs/examples/demo/tuning_base.h" "$R/tuning.h"
printf 'out/\n' >"$R/.gitignore"
g add -A && g commit -q -m base && g checkout -q -b patch
cp "$SRC/configs/examples/demo/tuning_patch.h" "$R/tuning.h"
g commit -q -am patch

now() { date +%s.%N; }
"$BF" compare -c "$R/benchfarm.yaml" --repeats 2 --warmup 0 \
	--json "$W/warm.json" >/dev/null || true
base_dir=$(jq -r '.base.tree' "$W/warm.json")
patch_dir=$(jq -r '.patch.tree' "$W/warm.json")

echo "round,benchfarm_wall_s,benchmark_processes_s,overhead_pct,shell_loop_s,ratio_to_shell"
i=0
while [ $i -lt "$ROUNDS" ]; do
	i=$((i + 1))
	t0=$(now)
	"$BF" compare -c "$R/benchfarm.yaml" --repeats "$REPEATS" --seed $i \
		--json "$W/r.json" >/dev/null || true
	t1=$(now)
	runs=$((2 * (REPEATS + 1)))
	t2=$(now)
	k=0
	while [ $k -lt $((runs / 2)) ]; do
		k=$((k + 1))
		(cd "$BENCHFARM_CACHE/work/$base_dir" &&
			out/micro --benchmark_format=json --benchmark_min_time=0.05 >/dev/null)
		(cd "$BENCHFARM_CACHE/work/$patch_dir" &&
			out/micro --benchmark_format=json --benchmark_min_time=0.05 >/dev/null)
	done
	t3=$(now)
	jq -r --arg total "$(echo "$t1 - $t0" | bc -l)" \
		--arg shell "$(echo "$t3 - $t2" | bc -l)" --arg round "$i" \
		'[$round, ($total|tonumber), .summary.benchmark_s,
		  (100 * (($total|tonumber) - .summary.benchmark_s) / ($total|tonumber)),
		  ($shell|tonumber), (($total|tonumber) / ($shell|tonumber))]
		 | map(if type == "number" then (. * 1000 | round / 1000) else . end)
		 | @csv' "$W/r.json"
done
