#!/bin/sh
# Build identity on two real OpenSSH sshd devices of one pool: a C
# benchmark in a generated 10-commit history of five builds: commits 3,
# 7 and 9 change a tag the program prints (the same work), commit 5
# does 60% more work, and the others touch a README or, commit 4, only
# a CI file. cc builds the same bytes for the same source.
#
# - backfill measures each build once and records the other 5 commits
#   as the same build (their point is the measured one's); history says
#   so;
# - detect places the one step at commit 5 (after the CI-only commit),
#   its own commit, with no other alert;
# - on one device, every commit measured (--measure-every) and a
#   neighbour (six busy loops started by this script) running from
#   commit 8 on: the shift between commits 7 and 8, one build, is an
#   environment shift with the load check's values before and after,
#   never an alert; the code step at 5 is still an alert;
# - bisect measures good against bad only: the commits between are of
#   good's build or bad's;
# - a compare of two commits of one build says so and calls nothing
#   regressed or improved; of two builds it does not.
. "$(dirname "$0")/lib.sh"

need_cc
sshd_setup
sshd_pool "to pool lab" d1 d2

R="$T/repo"
mkdir -p "$R/.ci"
t_git -C "$R" init -q -b main
cat >"$R/bench.c" <<'X'
#include <stdio.h>
#include <time.h>
#include "params.h"

static volatile unsigned long sink;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * The wall time of n rounds of a multiply-add chain, the mean of 5:
 * time others take of its core is in it.
 */
static double chain(long n)
{
	double t0 = now_ns();

	for (int r = 0; r < 5; r++) {
		unsigned long x = 1;

		for (long i = 0; i < n; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
		sink = x;
	}
	return (now_ns() - t0) / 5;
}

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * work: wall time, which a neighbour on a shared core stretches; cpu:
 * this process's CPU time over the same rounds, which it does not.
 */
int main(void)
{
	double c0 = cpu_ns(), wall = chain(WORK);

	fprintf(stderr, "tag %d\n", TAG); /* another build, the same work */
	printf("work %.0f ns\n", wall);
	printf("cpu %.0f ns\n", (cpu_ns() - c0) / 5);
	return 0;
}
X
cat >"$R/benchfarm.yaml" <<'X'
version: 1
project:
  repo: .
  target_branch: main
  build: [cc, -O1, -o, bench, bench.c]
  artifacts: [bench]
benchmarks:
  - {name: micro, command: [./bench], format: lines}
devices: {pool: lab}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks]}
runs: {repeats: 7, warmup: 1}
# five builds: a step is judged with two measured builds on a side
postsubmit: {detector: {name: pooled, width: 2}}
X
printf '#define WORK 3000000L\n#define TAG 1\n' >"$R/params.h"
echo "commit 1" >"$R/README"
t_git -C "$R" add -A
t_git -C "$R" commit -q -m "commit 1"
for i in 2 3 4 5 6 7 8 9 10; do
	case $i in
	3) printf '#define WORK 3000000L\n#define TAG 3\n' >"$R/params.h" ;;
	4) echo "make check" >"$R/.ci/run" ;;
	5) printf '#define WORK 4800000L\n#define TAG 3\n' >"$R/params.h" ;;
	7 | 9) printf '#define WORK 4800000L\n#define TAG %s\n' $i >"$R/params.h" ;;
	*) echo "commit $i" >>"$R/README" ;;
	esac
	t_git -C "$R" add -A
	t_git -C "$R" commit -q -m "commit $i"
done
c() { git -C "$R" rev-parse "main~$((10 - $1))"; }
C1=$(c 1)
C3=$(c 3)
C4=$(c 4)
C5=$(c 5)
C7=$(c 7)
C8=$(c 8)

expect_exit 0 "run records commit 1" "$BF" run -c "$R/benchfarm.yaml" \
	--commit "$C1"
expect_exit 0 "backfill the rest" "$BF" backfill -c "$R/benchfarm.yaml" \
	"$C1..main" --json "$T/bf.json"
grep_file "four more builds measured, five commits recorded as the same build" \
	"9 commits: 4 measured, 5 the same build as one measured, 0 already measured, 0 failed" \
	"$OUT"
grep_file "a same-build commit says which it is" \
	"$(printf '%.12s' "$(c 6)") the same build as one measured" "$OUT"
sql_check "five runs have samples, five stand on them" "5|5" \
	"SELECT (SELECT count(DISTINCT run_id) FROM samples), (SELECT count(*) FROM runs WHERE measured_by IS NOT NULL)"
sql_check "every run knows its build, five builds in all" "10|5" \
	"SELECT count(build_id), count(DISTINCT build_id) FROM runs WHERE kind = 'run'"
sql_check "commit 4 (CI only) is commit 3's build, commit 5 is not" "1|0" \
	"SELECT (SELECT build_id FROM runs WHERE patch_commit = '$C4') = (SELECT build_id FROM runs WHERE patch_commit = '$C3'), (SELECT build_id FROM runs WHERE patch_commit = '$C5') = (SELECT build_id FROM runs WHERE patch_commit = '$C4')"

expect_exit 0 "history --json" "$BF" history -c "$R/benchfarm.yaml" --json
cp "$OUT" "$T/history.json"
jq_check "history: ten points, five the previous point's build" \
	'[.series[] | select(.benchmark == "work")][0].points | ([.[] | select(.same_build)] | length) == 5 and length == 10' \
	"$T/history.json"
jq_check "history: commit 4 is commit 3's measurement" \
	"[.series[0].points[] | select(.commit == \"$C4\")][0].measured_as == \"$C3\"" \
	"$T/history.json"
expect_exit 0 "history as a table" "$BF" history -c "$R/benchfarm.yaml"
grep_file "the table marks a same-build commit" "^  $(printf '%.12s' "$C4") .* = " "$OUT"

expect_exit 0 "detect over the pool" "$BF" detect -c "$R/benchfarm.yaml" \
	--json "$T/detect.json"
jq_check "every alert at commit 5 (after the CI-only commit 4), cpu's among them" \
	"(.alerts | length) >= 1 and all(.alerts[]; .commit_hi == \"$C5\" and .commit_lo == \"$C4\" and .direction == \"regressed\") and any(.alerts[]; .benchmark == \"cpu\")" \
	"$T/detect.json"
jq_check "no environment shift in a history of measured builds" \
	'.environment_shifts == []' "$T/detect.json"

# Bisect over the pool from commit 3 to 6: only good against bad is
# measured; every commit between is good's build or bad's, known
# without a measurement.
expect_exit 0 "bisect 3..6" "$BF" bisect -c "$R/benchfarm.yaml" \
	--good "$C3" --bad "$(c 6)" --benchmark micro --json "$T/bisect.json"
jq_check "bisect names commit 5, measuring only good against bad" \
	"(.culprit == \"$C5\") and (.probes | length) >= 3 and ([.probes[1:][] | select(.verdict != \"same build\")] | length) == 0" \
	"$T/bisect.json"
grep_file "bisect says it did not measure them" "the same build as good, not measured" "$OUT"

# One device, every commit measured, a neighbour from commit 8 on.
i=1
while [ $i -le 7 ]; do
	expect_exit 0 "d1: commit $i measured" "$BF" run -c "$R/benchfarm.yaml" \
		--device d1 --measure-every --commit "$(c $i)"
	i=$((i + 1))
done
grep_file "--measure-every measures a same-build commit" \
	"commit $(printf '%.12s' "$C7"): 2 series recorded" "$OUT"
NB=
t_atexit() {
	# shellcheck disable=SC2086
	[ -z "$NB" ] || kill $NB 2>/dev/null
}
# Six busy loops, each in a session of its own, as other jobs are (the
# scheduler shares a core between sessions before processes, so loops
# of this script's session would share one session's part): the
# benchmark gets a fraction of a core whatever else the machine runs.
for n in 1 2 3 4 5 6; do
	setsid sh -c 'while :; do :; done' &
	NB="$NB $!"
done
for i in 8 9 10; do
	expect_exit 0 "d1: commit $i measured beside the neighbour" "$BF" run \
		-c "$R/benchfarm.yaml" --device d1 --measure-every --commit "$(c $i)"
done
# shellcheck disable=SC2086
kill $NB 2>/dev/null
NB=
"$BF" history -c "$R/benchfarm.yaml" --device d1 | sed 's/^/# d1: /'
sql_check "d1 measured all ten itself" "10|0" \
	"SELECT count(*), count(measured_by) FROM runs WHERE device = 'd1' AND kind = 'run'"
expect_exit 0 "detect on d1" "$BF" detect -c "$R/benchfarm.yaml" --device d1 \
	--json "$T/d1.json"
jq_check "d1: the CPU time's only alert is the code step at commit 5" \
	"[.alerts[] | select(.benchmark == \"cpu\")] | length == 1 and .[0].commit_hi == \"$C5\"" \
	"$T/d1.json"
# Wall time beside the neighbour may move between two builds too (the
# neighbour's share varies): that is at a build change, and only a
# measurement of both builds at once could tell; none is between
# identical builds.
jq_check "d1: no alert of either series between two commits of one build" \
	"[.alerts[] | select(.commit_hi == \"$C8\" or .commit_hi == \"$(c 2)\" or .commit_hi == \"$C4\" or .commit_hi == \"$(c 6)\" or .commit_hi == \"$(c 10)\")] | length == 0" \
	"$T/d1.json"
# The quiet part of d1's history must be quiet for its shift to be
# found: the wall time of two measurements of one build before the
# neighbour (commits 1 and 2, 3 and 4, 5 and 6) differing by a quarter
# or more means this machine's own noise (a virtual machine's busy
# host) is of the neighbour's size, and those checks are skipped,
# saying by how much.
"$BF" history -c "$R/benchfarm.yaml" --device d1 --json >"$T/d1h.json"
spread=$(jq '[.series[] | select(.benchmark == "work")][0].points | map(.value) as $v | [0, 2, 4] | map(($v[.] / $v[. + 1] - 1) | fabs) | max' "$T/d1h.json")
sql_check "no alert stored between commits 7 and 8" "0" \
	"SELECT count(*) FROM alerts WHERE commit_hi = '$C8'"
if [ -n "$spread" ] && [ "$spread" != null ] &&
	[ "$(echo "$spread < 0.25" | bc -l)" = 1 ]; then
	jq_check "d1: one environment shift, between commits 7 and 8" \
		"(.environment_shifts | length) == 1 and .environment_shifts[0].commit_lo == \"$C7\" and .environment_shifts[0].commit_hi == \"$C8\"" \
		"$T/d1.json"
	jq_check "d1: the wall time went up there, and the evidence is the load check" \
		'any(.environment_shifts[0].series[]; .benchmark == "work" and .direction == "up") and ([.environment_shifts[0].evidence.checks[] | select(.check == "load" and .after > .before and .changed)] | length) == 1' \
		"$T/d1.json"
	jq_check "d1: the evidence names the device and the gap" \
		'.environment_shifts[0].evidence.devices == ["d1"] and .environment_shifts[0].evidence.gap_s >= 0' \
		"$T/d1.json"
	grep_file "detect says it is the environment, not an alert" \
		"environment $(printf '%.12s' "$C7")\.\.$(printf '%.12s' "$C8"): [12] series moved between two measurements of the same build (not an alert)" \
		"$OUT"
	expect_exit 0 "dashboard of d1" "$BF" dashboard -c "$R/benchfarm.yaml" \
		--device d1 -o "$T/dash.html" --json "$T/dash.json"
	jq_check "the dashboard's data has the environment shift, apart from the alerts" \
		"(.environment_shifts | length) == 1 and .environment_shifts[0].commit_hi == \"$C8\" and .environment_shifts[0].device_class == \"d1\" and ([.alerts[] | select(.commit_hi == \"$C8\")] | length) == 0 and ([.series[] | select(.benchmark == \"work\")][0].same_build | add) == 5" \
		"$T/dash.json"
	expect_exit 0 "report the detect as markdown" "$BF" report --format markdown \
		--input "$T/d1.json" --output "$T/d1.md"
	grep_file "the markdown lists it apart" "Environment shifts, not code" "$T/d1.md"
else
	for what in \
		"d1: one environment shift, between commits 7 and 8" \
		"d1: the wall time went up there, and the evidence is the load check" \
		"d1: the evidence names the device and the gap" \
		"detect says it is the environment, not an alert" \
		"dashboard of d1" \
		"the dashboard's data has the environment shift, apart from the alerts" \
		"report the detect as markdown" \
		"the markdown lists it apart"; do
		t_skip "$what" "the wall time of one build varied by $spread before the neighbour"
	done
fi

# Presubmit: two commits of one build, then two builds.
expect_exit 0 "compare two commits of one build" "$BF" compare \
	-c "$R/benchfarm.yaml" --device d1 --base "$C5" --patch "$(c 6)" \
	--json "$T/aa.json" --markdown "$T/aa.md"
jq_check "same build, and no verdict but same or unknown" \
	'.same_build == true and .build.base.id == .build.patch.id and ([.results[] | select(.verdict == "regressed" or .verdict == "improved")] | length) == 0' \
	"$T/aa.json"
grep_file "the markdown says it" "Same build" "$T/aa.md"
grep_file "compare warns" "same build" "$ERR"
expect_exit 1 "compare commit 4 with commit 5" "$BF" compare \
	-c "$R/benchfarm.yaml" --device d1 --base "$C4" --patch "$C5" \
	--json "$T/ab.json"
jq_check "two builds: the slowdown is found" \
	'.same_build == false and .build.identity == "code" and .build.patch.elf_files == 1 and ([.results[] | select(.verdict == "regressed" and .name == "cpu")] | length) == 1' \
	"$T/ab.json"

