#!/bin/sh
# A +2% slowdown found by `benchfarm compare` at its defaults (10 runs a
# side, alpha 0.01, min_effect 1%, gate: primary): a Google Benchmark
# program whose patch does 2% more work in a serial arithmetic chain
# (its cpu_time varies well under 1% here). The cpu_time series gates
# and is regressed; real_time is judged but does not gate; `analyze
# compare` on the same stored values gives the same verdict; with 4 runs
# a side the report and `config check` say no verdict can be reached,
# and how many runs would do.
. "$(dirname "$0")/lib.sh"

need_gbench
R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
cat >"$R/chain.cc" <<'X'
#include <benchmark/benchmark.h>

#include <cstdint>

#include "work.h"

/* A chain of dependent multiply-adds: its time is its length. */
static void BM_chain(benchmark::State &state)
{
	for (auto _ : state) {
		uint64_t x = 1;

		for (long i = 0; i < WORK * 1000L; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		benchmark::DoNotOptimize(x);
	}
}
BENCHMARK(BM_chain);
BENCHMARK_MAIN();
X
echo '#define WORK 1000' >"$R/work.h"
cat >"$R/bf.yaml" <<'X'
version: 1
project: {repo: ., target_branch: main, build: [c++, -O2, -o, chain, chain.cc, -lbenchmark, -lpthread]}
benchmarks:
  - {name: chain, command: [./chain, --benchmark_format=json, --benchmark_min_time=0.1]}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks, cores]}
X
t_git -C "$R" add -A
t_git -C "$R" commit -q -m base
t_git -C "$R" checkout -q -b patch
echo '#define WORK 1020' >"$R/work.h"
t_git -C "$R" commit -q -am "2% more work"

"$BF" compare -c "$R/bf.yaml" --base main --patch patch --seed 1 \
	--json "$T/r.json" >"$OUT" 2>"$ERR"
rc=$?
jq_check "the defaults: 10 runs a side, alpha 0.01, min_effect 1%" \
	'.settings.repeats == 10 and .settings.alpha == 0.01 and .settings.min_effect == 0.01' "$T/r.json"
jq_check "cpu_time gates, real_time does not" \
	'[.results[] | select(.name == "BM_chain") | {(.metric): .gated}] | add == {"cpu_time": true, "real_time": false}' "$T/r.json"
jq_check "each is corrected in a family of one" \
	'[.results[].family] == [1, 1]' "$T/r.json"
_cv=$(jq '[.results[] | select(.metric == "cpu_time") | .base.cv, .patch.cv] | max' "$T/r.json")
if [ -n "$_cv" ] && [ "$_cv" != null ] && [ "$(echo "$_cv < 0.01" | bc -l)" = 1 ]; then
	[ "$rc" -eq 1 ] && t_ok "the +2% patch fails the compare (exit 1)" ||
		t_fail "the +2% patch fails the compare (exit 1), got $rc"
	jq_check "cpu_time regressed by about 2%" \
		'.results[] | select(.metric == "cpu_time") | .verdict == "regressed" and .effect > 0.01 and .effect < 0.035' "$T/r.json"
	jq_check "the summary counts one regression" \
		'.summary.regressed == 1' "$T/r.json"
else
	t_skip "the +2% patch fails the compare (exit 1)" \
		"cpu_time varied by more than 1% here (CV $_cv)"
	t_skip "cpu_time regressed by about 2%" "CV $_cv"
	t_skip "the summary counts one regression" "CV $_cv"
fi
jq_check "no benchmark is underpowered at 10 runs" \
	'.underpowered == []' "$T/r.json"

# analyze compare: the same rule and defaults on the stored values.
for m in cpu_time real_time; do
	jq -r ".results[] | select(.metric == \"$m\") | .base.values[]" \
		"$T/r.json" >"$T/$m.base"
	jq -r ".results[] | select(.metric == \"$m\") | .patch.values[]" \
		"$T/r.json" >"$T/$m.patch"
	_want=$(jq -r ".results[] | select(.metric == \"$m\") | .verdict" "$T/r.json")
	"$BF" analyze compare --base "$T/$m.base" --patch "$T/$m.patch" \
		--seed 1 --json >"$T/$m.json" 2>"$ERR"
	jq_check "analyze compare gives $m's verdict ($_want)" \
		".verdict == \"$_want\"" "$T/$m.json"
done

# 4 runs a side: the least p (2/70 = 0.029) cannot reach 0.01.
"$BF" compare -c "$R/bf.yaml" --base main --patch patch --seed 2 \
	--repeats 4 --json "$T/r4.json" >"$OUT" 2>"$ERR"
jq_check "4 runs a side: chain is underpowered, 5 would do" \
	'.underpowered == [{"benchmark": "chain", "runs": 4, "family": 1, "least_p": (2 / 70), "alpha": 0.01, "min_runs": 5}]' "$T/r4.json"
jq_check "... and no cpu_time verdict is reached" \
	'.results[] | select(.metric == "cpu_time") | .verdict == "unknown" or .verdict == "same"' "$T/r4.json"
grep_file "the report says so and what to use" \
	"Too few runs for a verdict on chain.*with 4 runs a side, no change can reach p < 0.01 after correction (the least it can have is 0.0286): use at least 5 runs a side" "$OUT"
sed 's/^checks:/runs: {repeats: 4}\nchecks:/' "$R/bf.yaml" >"$T/r4.yaml"
sed -i "s|repo: \.|repo: $R|" "$T/r4.yaml"
expect_exit 0 "config check accepts 4 repeats" "$BF" config check -c "$T/r4.yaml"
grep_file "... and warns, naming the file, line and benchmark" \
	"warning: $T/r4.yaml:4: benchmark 'chain': with 4 runs a side no change can reach p < 0.01 (the least p is 0.0286): use at least 5" "$ERR"
# Many runs: the least p underflows to 0, and nothing is warned of.
sed 's/repeats: 4/repeats: 2000/' "$T/r4.yaml" >"$T/r2000.yaml"
expect_exit 0 "config check accepts 2000 repeats" "$BF" config check \
	-c "$T/r2000.yaml"
check "... without a warning" test ! -s "$ERR"

# A benchmark's name reaches the terminal inert: no escape sequence.
sed 's/{name: chain,/{name: "chain\\e[31m",/' "$T/r4.yaml" >"$T/esc.yaml"
expect_exit 0 "config check of a name with an escape" "$BF" config check \
	-c "$T/esc.yaml"
grep_file "... warns of it" "benchmark 'chain.*': with 4 runs a side" "$ERR"
check "... with no ESC byte" test "$(tr -cd '\033' <"$ERR" | wc -c)" -eq 0
