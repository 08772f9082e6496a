#!/bin/sh
# Counted metrics that vary a little from run to run: a C loop under
# measure: instructions whose iteration count also depends on its pid
# (as a program with a random hash seed varies), so its instruction
# counts spread by up to 0.2%, far beyond exact counts' 0.01%. With 3
# runs a side, 1% more iterations in the patch is regressed (the
# counted rule: the ranges lie apart by more than twice the wider one;
# the U test and the 2% min_effect alone would call it the same), and
# the A/A comparison is not regressed or improved.
. "$(dirname "$0")/lib.sh"
need_cc
need_valgrind

R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
cat >"$R/jitter.c" <<'X'
#include <stdio.h>
#include <unistd.h>
#include "n.h"
int main(void)
{
	volatile unsigned long x = 0;
	/* the pid, scattered: 0 to 1998 more iterations (up to 0.2%) */
	unsigned long n = N + (unsigned long)getpid() * 7919UL % 1000 * 2;

	for (unsigned long i = 0; i < n; i++)
		x += i * 7;
	printf("BM_jitter %lu ns\n", x % 9 + 1000);
	return 0;
}
X
echo '#define N 1000000UL' >"$R/n.h"
printf 'out/\n' >"$R/.gitignore"
cat >"$R/bf.yaml" <<'X'
version: 1
project: {repo: ., build: [sh, -c, "mkdir -p out && cc -O1 -o out/jitter jitter.c"]}
benchmarks:
  - {name: jitter, command: [out/jitter], format: lines, measure: instructions}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks]}
X
t_git -C "$R" add -A
t_git -C "$R" commit -q -m base
t_git -C "$R" checkout -q -b patch
echo '#define N 1010000UL' >"$R/n.h"
t_git -C "$R" commit -q -am "1% more iterations"

expect_exit 1 "1% more instructions, spread by the pid, fails the compare" \
	"$BF" compare -c "$R/bf.yaml" --base main --patch patch \
	--json "$T/r.json" --seed 1
# the instructions series, 3 runs a side
ins='.results[] | select(.metric == "instructions")'
jq_check "3 runs a side of instructions" \
	"[$ins | .base.n, .patch.n] == [3, 3]" "$T/r.json"
jq_check "the counts vary beyond exact counts' 0.01% on some side" \
	"[$ins | .base, .patch | (.max - .min) / .median] | max > 0.0001" \
	"$T/r.json"
jq_check "instructions regressed by about 1%" \
	"$ins | .verdict == \"regressed\" and .effect > 0.005 and .effect < 0.015" \
	"$T/r.json"
expect_exit 0 "A/A of the same counts passes" \
	"$BF" compare -c "$R/bf.yaml" --base patch --patch patch \
	--allow-same --json "$T/aa.json" --seed 2
jq_check "A/A: instructions neither regressed nor improved" \
	"$ins | .verdict == \"same\" or .verdict == \"unknown\"" "$T/aa.json"
