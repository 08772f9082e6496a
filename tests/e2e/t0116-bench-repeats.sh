#!/bin/sh
# Repeats and warmup per benchmark. One config holds a real Google
# Benchmark program (the demo's checksum, 20% slower in the patch) and a
# C loop under measure: instructions (1% more iterations in the patch):
# without runs.repeats the timed one runs 10 times per side after a
# warmup, the instructions one 3 times and no warmup, the store holds
# exactly those runs, the result JSON and the reports say so, and the
# 1% is still found. Then a benchmark's own repeats: and warmup:,
# runs.repeats for the rest, duet rounds per benchmark, --repeats and
# --warmup for every one, the history's runs, and the error of a benchmark's own repeats
# beside repeats: auto.
. "$(dirname "$0")/lib.sh"
need_cc
need_valgrind

R="$T/repo"
demo_repo_start "$R" micro.cc Makefile
cat >"$R/loop.c" <<'X'
#include <stdio.h>
#include "n.h"
int main(void)
{
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < N; i++)
		x += i * 7;
	printf("BM_loop %lu ns\n", x % 9 + 1000);
	return 0;
}
X
echo '#define N 1000000UL' >"$R/n.h"
cat >"$R/build.sh" <<'X'
make && cc -O1 -o out/loop loop.c
X
cat >"$R/bf.yaml" <<'X'
version: 1
project: {repo: ., build: [sh, build.sh]}
benchmarks:
  - name: checksum
    command: [out/micro, --benchmark_format=json,
              --benchmark_min_time=0.02, --benchmark_filter=BM_checksum]
    format: gbench
    metrics:
      cpu_time: {better: lower}
  - name: loop
    command: [out/loop]
    format: lines
    measure: instructions
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks]}
X
demo_repo_commit "$R"
echo '#define N 1010000UL' >"$R/n.h"
t_git -C "$R" commit -q -am "1% more iterations"

# stored RESULT BENCH SIDE: the runs of config benchmark BENCH (its suite)
# on SIDE stored for RESULT's run
stored() {
	_id=$(jq '.run_id' "$1")
	db "select count(distinct repeat_idx) from samples
	    where run_id = $_id and suite = '$2' and side = '$3'"
}

# runs_check "what" RESULT BENCH N: N runs of each side of BENCH stored
runs_check() {
	_b=$(stored "$2" "$3" base)
	_p=$(stored "$2" "$3" patch)
	if [ "$_b" = "$4" ] && [ "$_p" = "$4" ]; then
		t_ok "$1"
	else
		echo "#   $3: $_b base and $_p patch runs stored, not $4"
		t_fail "$1"
	fi
}

# --- the defaults: 10 and 1 for time, 3 and 0 for instructions ------------
expect_exit 0 "config check of the mixed config" \
	"$BF" config check -c "$R/bf.yaml"
jq_check "config check: the instructions one's 3 and 0, the timed one's none" \
	'.runs.repeats == 10 and .runs.warmup == 1 and
	 (.benchmarks[0] | has("repeats") or has("warmup") | not) and
	 .benchmarks[1].repeats == 3 and .benchmarks[1].warmup == 0' "$OUT"

"$BF" compare -c "$R/bf.yaml" --seed 4 --json "$T/r.json" >"$T/r.md" 2>"$ERR"
rc=$?
[ "$rc" -eq 1 ] && t_ok "the mixed compare finds a regression (exit 1)" ||
	t_fail "the mixed compare finds a regression (exit 1), got $rc"
runs_check "the store holds 10 runs per side of the timed benchmark" \
	"$T/r.json" checksum 10
runs_check "and 3 runs per side of the instructions one" "$T/r.json" loop 3
jq_check "the result JSON says each benchmark's repeats and warmup" \
	'.settings.repeats == 10 and .settings.warmup == 1 and
	 .settings.benchmarks == [
	   {"benchmark": "checksum", "repeats": 10, "warmup": 1},
	   {"benchmark": "loop", "repeats": 3, "warmup": 0}]' "$T/r.json"
jq_check "the device ran 2 x (10 + 1) + 2 x 3 runs: no warmup of loop" \
	'.devices | length == 1 and .[0].steps == 28' "$T/r.json"
jq_check "the 1% more instructions is found with 3 runs per side" \
	'[.results[] | select(.benchmark == "loop" and
	  .metric == "instructions")][0] |
	 .verdict == "regressed" and .base.n == 3 and .patch.n == 3 and
	 .effect > 0.008 and .effect < 0.012' "$T/r.json"
jq_check "the timed benchmark is judged on its 10 runs per side" \
	'[.results[] | select(.benchmark == "checksum")][0] |
	 .metric == "cpu_time" and .base.n == 10 and .patch.n == 10' "$T/r.json"
grep_file "the markdown report says the runs per side of each" \
	", 10 runs per side (3 for loop) interleaved on " "$T/r.md"
cat >"$T/gerrit.yaml" <<X
version: 1
project: {repo: $R}
benchmarks: [{name: checksum, command: [out/micro]}]
review: {gerrit: {host: 127.0.0.1, change: "1,1"}}
X
expect_exit 0 "the Gerrit review renders" "$BF" report -c "$T/gerrit.yaml" \
	--no-post -f gerrit -i "$T/r.json" --output-dir "$T/gerrit"
jq_check "the Gerrit message says 3 to 10 runs per side by benchmark" \
	'.message | contains(", 3 to 10 runs per side by benchmark on ")' \
	"$T/gerrit/gerrit-review.json"

# --- its own keys; runs.repeats for the others, instructions' too ---------
sed -e 's/^    format: gbench$/    format: gbench\n    repeats: 3\n    warmup: 2/' \
	-e '$a runs: {repeats: 5}' "$R/bf.yaml" >"$T/own.yaml"
sed -i "s|repo: \.|repo: $R|" "$T/own.yaml"
expect_exit 0 "A/A with the checksum's own repeats: 3 and warmup: 2" \
	"$BF" compare -c "$T/own.yaml" --base patch --patch patch --seed 5 \
	--json "$T/own.json"
runs_check "its own repeats: 3 runs per side stored" "$T/own.json" checksum 3
runs_check "runs.repeats: 5 for the instructions one" "$T/own.json" loop 5
jq_check "the result says 3 and 2, 5 and 0; 2 x 5 + 2 x 5 runs made" \
	'.settings.benchmarks == [
	   {"benchmark": "checksum", "repeats": 3, "warmup": 2},
	   {"benchmark": "loop", "repeats": 5, "warmup": 0}] and
	 .devices[0].steps == 20' "$T/own.json"
grep_file "the markdown: the runs' count on a tie, the other by benchmark" \
	", 5 runs per side (3 for checksum) interleaved on " "$OUT"

# --- duet: a round holds a benchmark while it has rounds left ------------
expect_exit 0 "duet A/A with the benchmarks' own counts" \
	"$BF" compare -c "$T/own.yaml" --mode duet --base patch --patch patch \
	--seed 7 --json "$T/duet.json"
runs_check "3 duet rounds of the timed one stored" "$T/duet.json" checksum 3
runs_check "5 duet rounds of the instructions one stored" "$T/duet.json" loop 5
jq_check "the result says duet, 3 and 5 rounds" \
	'.settings.run_mode == "duet" and
	 [.settings.benchmarks[] | .repeats] == [3, 5]' "$T/duet.json"
grep_file "the markdown says the rounds of each" \
	", duet mode: 5 rounds (3 for checksum) of base and patch" "$OUT"

# --- the command line sets every benchmark's ------------------------------
expect_exit 0 "--repeats 2 --warmup 0 set every benchmark's" \
	"$BF" compare -c "$T/own.yaml" --base patch --patch patch --seed 6 \
	--repeats 2 --warmup 0 --json "$T/cli.json"
runs_check "2 runs per side of the timed one" "$T/cli.json" checksum 2
runs_check "2 runs per side of the instructions one" "$T/cli.json" loop 2
jq_check "the result says 2 and 0 for both, 8 runs made" \
	'[.settings.benchmarks[] | [.repeats, .warmup]] == [[2, 0], [2, 0]] and
	 .devices[0].steps == 8' "$T/cli.json"
grep_file "one count: the markdown says it alone" \
	", 2 runs per side interleaved on " "$OUT"

# --- the history: run records each benchmark's runs -----------------------
expect_exit 0 "run records main" "$BF" run -c "$R/bf.yaml" --commit main \
	--json "$T/run.json"
sql_check "run stores 10 runs of the timed one and 3 of the instructions one" \
	"checksum|10
loop|3" \
	"select suite, count(distinct repeat_idx) from samples
	 where run_id = $(jq '.run_id' "$T/run.json") and side = 'commit'
	 group by suite order by suite"

# --- its own repeats beside repeats: auto ---------------------------------
sed 's/^runs: {repeats: 5}$/runs: {repeats: auto}/' "$T/own.yaml" >"$T/auto.yaml"
expect_exit 2 "a benchmark's own repeats with repeats: auto is an error" \
	"$BF" config check -c "$T/auto.yaml"
grep_file "said at its key, with why and what to do" \
	"auto.yaml:8:14: 'benchmarks\[0\].repeats' cannot be given with 'runs.repeats: auto': adaptive repeats decide every benchmark's count" \
	"$ERR"
