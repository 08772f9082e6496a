#!/bin/sh
# Postsubmit on a generated repository of 40 commits: a C benchmark
# whose work per iteration comes from params.h. Commit 17 makes "alpha"
# 15% slower, commit 29 makes "beta" 10% faster; every other commit only
# touches a README. The machine's own noise is left in. backfill records
# every commit (and skips them the second time), detect finds both steps
# at the right commits with no other alert, alert ack/ignore triage, and
# bisect over 16 commits names commit 17. A commit whose build fails is
# recorded as failed and never becomes a point.
. "$(dirname "$0")/lib.sh"

if ! command -v cc >/dev/null 2>&1; then
	echo "ok 1 # skip no C compiler"
	exit 0
fi
R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
cat >"$R/bench.c" <<'X'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "params.h"

static volatile unsigned long sink;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of 15 timings of n rounds of a multiply-add chain. */
static double measure(long n)
{
	double t[15];

	for (int r = 0; r < 15; r++) {
		double t0 = now_ns();
		unsigned long x = 1;

		for (long i = 0; i < n; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
		sink = x;
		t[r] = now_ns() - t0;
	}
	qsort(t, 15, sizeof(t[0]), cmp);
	return t[7];
}

int main(void)
{
	printf("alpha %.0f ns\n", measure(WORK_ALPHA));
	printf("beta %.0f ns\n", measure(WORK_BETA));
	return 0;
}
X
cat >"$R/benchfarm.yaml" <<'X'
version: 1
project: {repo: ., target_branch: main, build: [cc, -O1, -o, bench, bench.c]}
benchmarks:
  - {name: micro, command: [./bench], format: lines}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks]}
runs: {repeats: 5, warmup: 1}
postsubmit: {detector: jetpack}
X
alpha=400000
beta=600000
params() {
	printf '#define WORK_ALPHA %sL\n#define WORK_BETA %sL\n' "$alpha" \
		"$beta" >"$R/params.h"
}
params
echo "commit 1" >"$R/README"
t_git -C "$R" add -A
t_git -C "$R" commit -q -m "commit 1"
i=2
while [ $i -le 40 ]; do
	case $i in
	17) alpha=460000 ;; # 15% more work: slower
	29) beta=540000 ;;  # 10% less work: faster
	esac
	params
	echo "commit $i" >>"$R/README"
	t_git -C "$R" commit -q -am "commit $i"
	i=$((i + 1))
done
c() { git -C "$R" rev-parse "main~$((40 - $1))"; }
C17=$(c 17)
C29=$(c 29)
ROOT=$(c 1)

expect_exit 0 "run records HEAD" "$BF" run -c "$R/benchfarm.yaml" \
	--json "$T/run.json"
jq_check "run has both series with 5 values" \
	'.kind == "run" and ([.results[] | select(.n == 5)] | length) == 2' \
	"$T/run.json"
grep_file "run prints the commit and its series" "^commit [0-9a-f]*: 2 series" \
	"$OUT"

expect_exit 0 "backfill the whole history" "$BF" backfill \
	-c "$R/benchfarm.yaml" "$ROOT..main" --json "$T/bf.json"
grep_file "the summary counts the work" \
	"39 commits: 38 measured, 1 already measured, 0 failed" "$OUT"
expect_exit 0 "backfill again measures nothing" "$BF" backfill \
	-c "$R/benchfarm.yaml" "$ROOT..main"
grep_file "everything is already measured" \
	"39 commits: 0 measured, 39 already measured" "$OUT"
n=$(sqlite3 "$BENCHFARM_DB" "select count(distinct patch_commit) from runs where kind = 'run' and status = 'complete'")
[ "$n" = 39 ] && t_ok "39 commits recorded (all but the root)" || t_fail "$n commits recorded"
