#!/bin/sh
# Postsubmit on a generated repository of 40 commits: a C benchmark
# whose work comes from params.h. Commit 17 makes "alpha" 15% slower,
# commit 29 makes "beta" 10% faster; every other commit only touches a
# README. The benchmark times its work against a reference workload in
# the same process (see bench.c below): the machine's timing noise is
# kept, its changes of speed under other jobs' load cancel out (plain
# timings let CI's load hide beta's step from jetpack). backfill records
# every commit (and skips them the second time), detect finds both steps
# at the right commits with no other alert, alert ack/ignore triage, and
# bisect over 16 commits names commit 17. A commit whose build fails is
# recorded as failed and never becomes a point.
. "$(dirname "$0")/lib.sh"

need_cc
R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
cat >"$R/bench.c" <<'X'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "params.h"

#define REF 500000L /* rounds of the reference */
#define REPS 15

static volatile unsigned long sink;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The time of n rounds of a multiply-add chain. */
static double chain(long n)
{
	double t0 = now_ns();
	unsigned long x = 1;

	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
	return now_ns() - t0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * n rounds timed against REF rounds of the same chain just before, the
 * median of REPS such ratios, scaled to REF nanoseconds: the speed of
 * the machine at the moment (another job on the sibling hyperthread, a
 * frequency change) cancels out of the ratio; the timing noise stays.
 */
static double measure(long n)
{
	double r[REPS];

	for (int i = 0; i < REPS; i++) {
		double ref = chain(REF);

		r[i] = chain(n) / ref;
	}
	qsort(r, REPS, sizeof(r[0]), cmp);
	return r[REPS / 2] * REF;
}

int main(void)
{
	printf("alpha %.2f ns\n", measure(WORK_ALPHA));
	printf("beta %.2f ns\n", measure(WORK_BETA));
	return 0;
}
X
cat >"$R/benchfarm.yaml" <<'X'
version: 1
project: {repo: ., target_branch: main, build: [cc, -O1, -o, bench, bench.c]}
benchmarks:
  - {name: micro, command: [./bench], format: lines}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks]}
runs: {repeats: 9, warmup: 1}
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
jq_check "run has both series with 9 values" \
	'.kind == "run" and ([.results[] | select(.n == 9)] | length) == 2' \
	"$T/run.json"
grep_file "run prints the commit and its series" "^commit [0-9a-f]*: 2 series" \
	"$OUT"

expect_exit 0 "backfill the whole history" "$BF" backfill \
	-c "$R/benchfarm.yaml" "$ROOT..main" --json "$T/bf.json"
grep_file "the summary counts the work" \
	"39 commits: 38 measured, 0 the same build as one measured, 1 already measured, 0 failed" "$OUT"
expect_exit 0 "backfill again measures nothing" "$BF" backfill \
	-c "$R/benchfarm.yaml" "$ROOT..main"
grep_file "everything is already measured" \
	"39 commits: 0 measured, 0 the same build as one measured, 39 already measured" "$OUT"
n=$(sqlite3 "$BENCHFARM_DB" "select count(distinct patch_commit) from runs where kind = 'run' and status = 'complete'")
[ "$n" = 39 ] && t_ok "39 commits recorded (all but the root)" || t_fail "$n commits recorded"

# detect: both steps, at the right commits, and nothing else.
expect_exit 0 "detect" "$BF" detect -c "$R/benchfarm.yaml" --json "$T/d1.json"
jq_check "exactly two alerts, both new, in a versioned document" \
	'(.alerts | length) == 2 and all(.alerts[]; .new) and (.benchfarm | test("^[0-9]+[.][0-9]+[.][0-9]+"))' \
	"$T/d1.json"
jq_check "alpha regressed at commit 17" \
	"[.alerts[] | select(.benchmark == \"alpha\")] | length == 1 and .[0].direction == \"regressed\" and .[0].commit_hi == \"$C17\" and .[0].size > 0.10" \
	"$T/d1.json"
jq_check "beta improved at commit 29" \
	"[.alerts[] | select(.benchmark == \"beta\")] | length == 1 and .[0].direction == \"improved\" and .[0].commit_hi == \"$C29\" and .[0].size < -0.06" \
	"$T/d1.json"
grep_file "the text names both" "regressed alpha .*(new)" "$OUT"
expect_exit 0 "detect again" "$BF" detect -c "$R/benchfarm.yaml" --json "$T/d2.json"
jq_check "the same two steps, none new" \
	'(.alerts | length) == 2 and all(.alerts[]; .new == false)' "$T/d2.json"
n=$(sqlite3 "$BENCHFARM_DB" "select count(*) from alerts")
[ "$n" = 2 ] && t_ok "two alerts stored" || t_fail "$n alerts stored"
# The default detector, pooled, reads each commit's 9 repeats: the same
# two steps at the same commits, so nothing new and nothing stored.
expect_exit 0 "detect --algorithm pooled" "$BF" detect -c "$R/benchfarm.yaml" \
	--algorithm pooled --json "$T/dp.json"
jq_check "pooled: alpha up at 17, beta down at 29, both known" \
	"(.alerts | length) == 2 and all(.alerts[]; .new == false) and ([.alerts[] | select(.benchmark == \"alpha\" and .commit_hi == \"$C17\" and .direction == \"regressed\")] | length) == 1 and ([.alerts[] | select(.benchmark == \"beta\" and .commit_hi == \"$C29\" and .direction == \"improved\")] | length) == 1" \
	"$T/dp.json"
grep_file "the text names pooled" "^pooled over 39 measured commits" "$OUT"
n=$(sqlite3 "$BENCHFARM_DB" "select count(*) from alerts")
[ "$n" = 2 ] && t_ok "still two alerts stored" || t_fail "$n alerts stored"

# Triage.
expect_exit 0 "alert list --json" "$BF" alert list --json
cp "$OUT" "$T/al.json"
jq_check "two open alerts" 'length == 2 and all(.[]; .status == "open")' \
	"$T/al.json"
A_ID=$(jq -r '.[] | select(.benchmark == "alpha") | .id' "$T/al.json")
B_ID=$(jq -r '.[] | select(.benchmark == "beta") | .id' "$T/al.json")
# Several ids: all or none. An unknown one among them changes nothing.
expect_exit 2 "ack of a known and an unknown alert" "$BF" alert ack "$A_ID" 999
grep_file "it says nothing was changed" "no alert was changed" "$ERR"
st=$(sqlite3 "$BENCHFARM_DB" "select status from alerts where id = $A_ID")
[ "$st" = open ] && t_ok "the known alert is still open" ||
	t_fail "the known alert became '$st'"
expect_exit 0 "ack alpha's alert" "$BF" alert ack "$A_ID"
expect_exit 0 "ignore beta's alert" "$BF" alert ignore "$B_ID"
expect_exit 0 "alert list --status open" "$BF" alert list --status open --json
jq_check "nothing is open" 'length == 0' "$OUT"
expect_exit 2 "ack of an unknown alert" "$BF" alert ack 999
grep_file "it names the id" "no alert 999" "$ERR"
# The ignored point leaves the fit; the step then shows one commit later,
# over a range that spans the ignored commit: known, not a new alert.
expect_exit 0 "detect after ignore" "$BF" detect -c "$R/benchfarm.yaml" \
	--json "$T/d3.json"
jq_check "beta's step is known as ignored, alpha's as before" \
	'(.alerts | length) == 2 and all(.alerts[]; .new == false) and ([.alerts[] | select(.ignored)] | length) == 1' \
	"$T/d3.json"
n=$(sqlite3 "$BENCHFARM_DB" "select count(*) from alerts")
[ "$n" = 2 ] && t_ok "still two alerts stored" || t_fail "$n alerts stored"

# Each detector on a clean step, from a file.
awk 'BEGIN { for (i = 0; i < 40; i++) print (i < 20 ? 100 : 120) + (i % 3) - 1 }' \
	>"$T/step.txt"
for a in pooled jetpack skia perfherder edivisive; do
	expect_exit 0 "analyze step $a" "$BF" analyze step --algorithm "$a" \
		--json "$T/step.txt"
	jq_check "$a finds the step at 20, going up" \
		'length == 1 and .[0].index == 20 and .[0].direction == "up"' "$OUT"
done
expect_exit 0 "analyze step --window" "$BF" analyze step --algorithm jetpack \
	--window --json "$T/step.txt"
jq_check "the window fit has its fields" \
	'has("turning_point") and has("step_size") and has("regression") and .status != null' \
	"$OUT"
printf 'commit,value\n' >"$T/step.csv"
awk 'BEGIN { for (i = 0; i < 30; i++) printf "c%02d,%d\n", i, (i < 15 ? 50 : 40) + (i % 3) }' \
	>>"$T/step.csv"
expect_exit 0 "analyze step on a CSV" "$BF" analyze step --algorithm jetpack \
	"$T/step.csv"
grep_file "the step is named by its commit" "c15" "$OUT"

# Parameters on the command line follow the config's rules: the keys a
# detector takes, their ranges, and 0 as a value where 0 is allowed.
awk 'BEGIN { for (i = 0; i < 40; i++) print (i < 20 ? 100 : 101) + ((i * 7) % 5 - 2) * 0.01 }' \
	>"$T/small.txt"
expect_exit 0 "perfherder with its default min_change (2%)" "$BF" analyze \
	step --algorithm perfherder "$T/small.txt"
grep_file "a 1% step is below the default" "0 steps in 40 values" "$OUT"
expect_exit 0 "perfherder with --min-change 0" "$BF" analyze step \
	--algorithm perfherder --min-change 0 "$T/small.txt"
grep_file "min-change 0 lets the 1% step through" "index 20: up +1.0%" "$OUT"
for bad in "jetpack --width 0:--width: must be between 1 and 100000, not 0" \
	"jetpack --threshold n:--threshold: 'n' is not a number" \
	"jetpack --min-change 0.1:--min-change: does not apply to detector 'jetpack'" \
	"skia --stddev-threshold 0:--stddev-threshold: must be greater than 0" \
	"perfherder --min-change -1:--min-change: must be at least 0, not -1" \
	"skia --variant mannwhitneyu --threshold 1:is a p-value: it must be less than 1, not 1" \
	"skia --variant absolute:skia variant 'absolute' needs a threshold"; do
	# shellcheck disable=SC2086
	expect_exit 2 "analyze step refuses ${bad%%:*}" "$BF" analyze step \
		--algorithm ${bad%%:*} "$T/small.txt"
	grep_file "and says why: ${bad#*:}" "${bad#*:}" "$ERR"
done

# Bad input: clear errors naming the file and line.
printf '1\n2\nNaN\n' >"$T/nan.txt"
printf '1\n-inf\n' >"$T/inf.txt"
printf '1\n2\nfast\n' >"$T/text.txt"
printf 'commit,value\na,1\nb\n' >"$T/short.csv"
for f in nan.txt:3 inf.txt:2 text.txt:3 short.csv:3; do
	expect_exit 2 "analyze step rejects ${f%:*}" "$BF" analyze step \
		--algorithm jetpack "$T/${f%:*}"
	grep_file "the error names ${f}" "$T/$f: " "$ERR"
done
grep_file "a missing column is called that" "1 column where earlier lines have 2" "$ERR"
printf '1\n0x10\n3\n' >"$T/hex.txt"
expect_exit 2 "analyze step rejects a hexadecimal number" "$BF" analyze step \
	--algorithm jetpack "$T/hex.txt"
grep_file "the error names hex.txt:2" "$T/hex.txt:2: '0x10'" "$ERR"
: >"$T/empty.txt"
printf 'commit,value\n' >"$T/header.csv"
printf '# nothing yet\n\n' >"$T/comments.txt"
for f in empty.txt header.csv comments.txt; do
	expect_exit 2 "analyze step rejects $f (no values)" "$BF" analyze step \
		--algorithm skia "$T/$f"
	grep_file "the error names $f" "$T/$f: no values" "$ERR"
done
printf 'Commit,Value\nc1,10\nc2,11\n' >"$T/caps.csv"
expect_exit 0 "a header in capitals is a header" "$BF" analyze step \
	--algorithm jetpack "$T/caps.csv"
grep_file "two values read" "0 steps in 2 values" "$OUT"
before=$(sqlite3 "$BENCHFARM_DB" "select count(*) from samples")
expect_exit 2 "a range that does not exist" "$BF" backfill \
	-c "$R/benchfarm.yaml" "$ROOT..no-such-branch"
grep_file "the error names the revision" "no-such-branch" "$ERR"
expect_exit 2 "run of a commit that does not exist" "$BF" run \
	-c "$R/benchfarm.yaml" --commit no-such-commit
grep_file "run names itself and the revision" "^benchfarm: run: .*no-such-commit" \
	"$ERR"
expect_exit 2 "a reversed range" "$BF" backfill -c "$R/benchfarm.yaml" \
	"$(c 20)..$(c 10)"
grep_file "is called reversed" "is reversed: '$(c 20)' is not an ancestor of '$(c 10)'" \
	"$ERR"
after=$(sqlite3 "$BENCHFARM_DB" "select count(*) from samples")
[ "$before" = "$after" ] && t_ok "nothing stored by the bad range" ||
	t_fail "samples $before -> $after"
printf 'version: 1\nproject: {repo: .}\nbenchmarks:\n  - {name: m, command: [x], detector: {name: edivisive, min_change: 0.1}}\n' \
	>"$R/bad-detector.yaml"
expect_exit 2 "a detector parameter that does not apply" "$BF" detect \
	-c "$R/bad-detector.yaml"
grep_file "names file, line and key" "bad-detector.yaml:4:.*'min_change' does not apply to detector 'edivisive'" "$ERR"

# A detector per benchmark or metric: the metric's wins over postsubmit's.
sed 's|format: lines}|format: lines, metrics: {value: {detector: perfherder}}}|' \
	"$R/benchfarm.yaml" >"$R/per-metric.yaml"
expect_exit 0 "detect with a metric's own detector" "$BF" detect \
	-c "$R/per-metric.yaml" --dry-run --json "$T/d4.json"
jq_check "perfherder judged the series" \
	'(.alerts | length) >= 1 and all(.alerts[]; .detail.detector == "perfherder")' \
	"$T/d4.json"

# Bisect 16 commits, 10..26: the culprit is 17.
expect_exit 0 "bisect 16 commits" "$BF" bisect -c "$R/benchfarm.yaml" \
	--good "$(c 10)" --bad "$(c 26)" --benchmark micro -n 6 \
	--json "$T/bisect.json"
jq_check "bisect names commit 17" \
	".culprit == \"$C17\" and .series == \"alpha\" and .direction == \"regressed\"" \
	"$T/bisect.json"
jq_check "every probe has its evidence" \
	'(.probes | length) >= 4 and all(.probes[]; .verdict != null and .series.p_value != null)' \
	"$T/bisect.json"
grep_file "the culprit is printed" "^culprit: $C17" "$OUT"
# The real bisect result through the reporters: JUnit valid against
# Jenkins' schema with the culprit's probe failing, markdown naming it.
expect_exit 0 "report renders the bisect" "$BF" report -f junit,markdown \
	-i "$T/bisect.json" --output-dir "$T/bisect-report"
if command -v xmllint >/dev/null 2>&1; then
	check "its junit.xml is valid against junit-10.xsd" xmllint --noout \
		--schema "$BF_SRC/tests/fixtures/report/junit-10.xsd" \
		"$T/bisect-report/junit.xml"
	xmllint --xpath 'string(//testcase[failure][last()]/@name)' \
		"$T/bisect-report/junit.xml" 2>/dev/null |
		grep -q "$(echo "$C17" | cut -c1-12)\$" &&
		t_ok "the culprit's probe fails" || t_fail "the culprit's probe does not fail"
fi
grep_file "the markdown names the culprit" \
	"culprit \`$(echo "$C17" | cut -c1-12)\`" "$T/bisect-report/report.md"

# A commit in the range that does not build is skipped, as git bisect
# skip does, not the end of the bisect: on a branch from commit 12, b4
# breaks the build, b5 mends it and b6 makes alpha 15% slower. The
# first midpoint of b1..b8 is b4; the bisect probes b5 instead (good),
# then b6 (bad), and names b6.
# branch NAME BREAK MEND SLOW: eight commits on NAME from commit 12;
# the BREAK-th breaks the build, the MEND-th mends it, the SLOW-th makes
# alpha 15% slower. With CRASH=1 the BREAK-th builds, but its program
# exits 1 before printing anything.
branch() {
	t_git -C "$R" checkout -q -b "$1" "$(c 12)"
	for k in 1 2 3 4 5 6 7 8; do
		if [ "${CRASH:-0}" = 1 ]; then
			[ $k = "$2" ] && sed -i 's/^int main(void)$/int main(void) { return 1; }\nint unused(void)/' "$R/bench.c"
			[ $k = "$3" ] && sed -i -e '/^int main(void) { return 1; }$/d' -e 's/^int unused(void)$/int main(void)/' "$R/bench.c"
		else
			[ $k = "$2" ] && echo "syntax error" >>"$R/bench.c"
			[ $k = "$3" ] && sed -i '$d' "$R/bench.c"
		fi
		[ $k = "$4" ] &&
			sed -i 's/WORK_ALPHA .*/WORK_ALPHA 460000L/' "$R/params.h"
		echo "$1 $k" >>"$R/README"
		t_git -C "$R" commit -q -am "$1 branch $k"
	done
	t_git -C "$R" checkout -q main
}
branch skip 4 5 6
B4=$(git -C "$R" rev-parse skip~4)
B6=$(git -C "$R" rev-parse skip~2)
expect_exit 0 "bisect over a commit that does not build" "$BF" bisect \
	-c "$R/benchfarm.yaml" --good "$(c 12)" --bad skip --benchmark micro \
	-n 6 --json "$T/skip.json"
jq_check "bisect skips b4 and names b6" \
	".culprit == \"$B6\" and .skipped == [\"$B4\"] and .series == \"alpha\"" \
	"$T/skip.json"
jq_check "probes: b8 (bad) first, b4 skipped as unbuilt, b6 bad last" \
	"(.probes[0] | .commit == \"$(git -C "$R" rev-parse skip)\" and .bad) and ([.probes[] | select(.verdict == \"skipped\") | [.commit, .reason]] == [[\"$B4\", \"does not build\"]]) and (.probes[-1] | .commit == \"$B6\" and .bad)" \
	"$T/skip.json"
grep_file "the skip is printed" "$(printf %.12s "$B4")  does not build .*-> skip" "$OUT"
# A commit that builds but whose benchmark fails every run is skipped
# the same way, with its reason: c4's program exits 1 at start.
CRASH=1 branch crash 4 5 6
K4=$(git -C "$R" rev-parse crash~4)
K6=$(git -C "$R" rev-parse crash~2)
expect_exit 0 "bisect over a commit whose benchmark fails" "$BF" bisect \
	-c "$R/benchfarm.yaml" --good "$(c 12)" --bad crash --benchmark micro \
	-n 6 --json "$T/crash.json"
jq_check "bisect skips c4 (its benchmark failed) and names c6" \
	".culprit == \"$K6\" and .skipped == [\"$K4\"] and ([.probes[] | select(.verdict == \"skipped\") | .reason] == [\"its benchmark failed\"])" \
	"$T/crash.json"
# Recording c4 fails at the run stage; the run says why and which commit.
expect_exit 3 "run of a commit whose benchmark fails" "$BF" run \
	-c "$R/benchfarm.yaml" --commit "$K4"
sqlite3 "$BENCHFARM_DB" "select info from runs where kind = 'run' and patch_commit = '$K4' and status = 'failed'" \
	>"$T/info-k4.json"
jq_check "the failed run names its stage and commit" \
	".stage == \"run\" and .side == \"commit\" and .commit == \"$K4\"" \
	"$T/info-k4.json"
# When the commits next to the culprit do not build either, the bisect
# ends with the candidates and why each is one: on a branch from commit
# 12, d4 breaks the build and d6 mends it and makes alpha slower.
branch dark 4 6 6
D4=$(git -C "$R" rev-parse dark~4)
D5=$(git -C "$R" rev-parse dark~3)
D6=$(git -C "$R" rev-parse dark~2)
expect_exit 0 "bisect next to commits that do not build" "$BF" bisect \
	-c "$R/benchfarm.yaml" --good "$(c 12)" --bad dark --benchmark micro \
	-n 6 --json "$T/dark.json"
jq_check "no single culprit: d4, d5 or d6" \
	".culprit == null and .candidates == [\"$D4\", \"$D5\", \"$D6\"]" \
	"$T/dark.json"
grep_file "the last line gives each candidate's reason" \
	"^culprit: one of 3 commits, the others could not be judged: $(printf %.12s "$D4") (does not build), $(printf %.12s "$D5") (does not build), $(printf %.12s "$D6") (bad)$" \
	"$OUT"

# detect --bisect: a history of every 4th commit (4, 8, ..., 40) has
# each step between two measured commits with three unmeasured ones in
# between; detect bisects each new alert and records commits 17 and 29
# as the culprits, with Perfherder over 3 + 3 points.
export BENCHFARM_DB="$T/gaps.db"
sed 's/^postsubmit:.*/postsubmit: {detector: {name: perfherder, width: 3}}/' \
	"$R/benchfarm.yaml" >"$R/gaps.yaml"
k=4
ok=true
while [ $k -le 40 ]; do
	"$BF" run -c "$R/gaps.yaml" --commit "$(c $k)" >"$OUT" 2>"$ERR" || ok=false
	k=$((k + 4))
done
$ok && t_ok "every 4th commit recorded" || t_fail "a run failed"
expect_exit 0 "detect --bisect" "$BF" detect -c "$R/gaps.yaml" --bisect -n 6 \
	--json "$T/gaps.json"
jq_check "two alerts, over 16..20 and 28..32" \
	"(.alerts | length) == 2 and ([.alerts[] | [.commit_lo, .commit_hi]] | sort) == ([[\"$(c 16)\", \"$(c 20)\"], [\"$(c 28)\", \"$(c 32)\"]] | sort)" \
	"$T/gaps.json"
jq_check "alpha's culprit is commit 17, beta's commit 29" \
	"([.alerts[] | select(.benchmark == \"alpha\")][0].culprit == \"$C17\") and ([.alerts[] | select(.benchmark == \"beta\")][0].culprit == \"$C29\")" \
	"$T/gaps.json"
jq_check "each with its bisect's evidence" \
	'all(.alerts[]; .bisect.commits == 4 and (.bisect.probes | length) >= 2)' \
	"$T/gaps.json"
grep_file "detect prints the culprit" "culprit $C17" "$OUT"
expect_exit 0 "alert list --json shows the culprits" "$BF" alert list --json
jq_check "stored with the alerts" \
	"([.[] | .culprit] | sort) == ([\"$C17\", \"$C29\"] | sort)" "$OUT"
expect_exit 0 "alert list" "$BF" alert list
grep_file "the text has culprit and group columns" \
	"COMMITS  *CULPRIT  *GROUP  *CLASS" "$OUT"
grep_file "with the culprit, and the group of commit 20 (in decimal, as the JSON)" \
	"alpha .*\.\.[0-9a-f]* $(printf %.12s "$C17") $(printf %d "0x$(c 20 | cut -c1-13)") *local" \
	"$OUT"
expect_exit 0 "detect --bisect again" "$BF" detect -c "$R/gaps.yaml" --bisect \
	--json "$T/gaps2.json"
jq_check "nothing new, nothing bisected again" \
	'all(.alerts[]; .new == false and has("bisect") == false)' "$T/gaps2.json"
expect_exit 2 "--bisect with --dry-run" "$BF" detect -c "$R/gaps.yaml" \
	--bisect --dry-run
# Measuring the commits inside alpha's range later narrows the stored
# alert to 16..17 (same id, its culprit kept); no second alert appears
# for the same step. Beta's stored culprit is made commit 31 (as if a
# noisy bisect had named it): narrowed to 28..29 by measurements, the
# alert drops it, and takes the new fit's size.
A_ID=$(jq -r '.alerts[] | select(.benchmark == "alpha") | .id' "$T/gaps.json")
B_ID=$(jq -r '.alerts[] | select(.benchmark == "beta") | .id' "$T/gaps.json")
sqlite3 "$BENCHFARM_DB" "update alerts set culprit = '$(c 31)', size = 0.5 where id = $B_ID"
expect_exit 0 "backfill inside alpha's range" "$BF" backfill \
	-c "$R/gaps.yaml" "$(c 16)..$(c 20)"
grep_file "three commits measured" "4 commits: 3 measured, 0 the same build as one measured, 1 already" "$OUT"
expect_exit 0 "backfill inside beta's range" "$BF" backfill \
	-c "$R/gaps.yaml" "$(c 28)..$(c 32)"
expect_exit 0 "detect after the backfill" "$BF" detect -c "$R/gaps.yaml" \
	--json "$T/gaps3.json"
jq_check "alpha's step is known, narrowed to 16..17" \
	"[.alerts[] | select(.benchmark == \"alpha\")] | length == 1 and .[0].new == false and .[0].narrowed and .[0].id == $A_ID and .[0].commit_lo == \"$(c 16)\" and .[0].commit_hi == \"$C17\"" \
	"$T/gaps3.json"
n=$(sqlite3 "$BENCHFARM_DB" "select count(*) from alerts")
[ "$n" = 2 ] && t_ok "still two alerts stored" || t_fail "$n alerts stored"
r=$(sqlite3 "$BENCHFARM_DB" "select commit_lo || ' ' || commit_hi || ' ' || culprit from alerts where id = $A_ID")
[ "$r" = "$(c 16) $C17 $C17" ] && t_ok "the stored alert moved, culprit kept" ||
	t_fail "alert $A_ID is '$r'"
jq_check "beta's step is known, narrowed to 28..29" \
	"[.alerts[] | select(.benchmark == \"beta\")] | length == 1 and .[0].narrowed and .[0].id == $B_ID and .[0].commit_hi == \"$C29\"" \
	"$T/gaps3.json"
r=$(sqlite3 "$BENCHFARM_DB" "select commit_hi || ' ' || ifnull(culprit, 'none') || ' ' || (size < 0) from alerts where id = $B_ID")
[ "$r" = "$C29 none 1" ] && t_ok "a culprit outside the new range is dropped, the size refreshed" ||
	t_fail "alert $B_ID is '$r'"
export BENCHFARM_DB="$T/benchfarm.db"

# A commit whose build fails in the middle of a backfill: recorded as
# failed, skipped, never a point; the next commit is measured.
C40=$(c 40)
echo "syntax error" >>"$R/bench.c"
t_git -C "$R" commit -q -am "commit 41: breaks the build"
C41=$(git -C "$R" rev-parse HEAD)
sed -i '$d' "$R/bench.c"
t_git -C "$R" commit -q -am "commit 42: fixes it"
C42=$(git -C "$R" rev-parse HEAD)
expect_exit 3 "backfill over a broken commit" "$BF" backfill \
	-c "$R/benchfarm.yaml" "$C40..main"
grep_file "the summary counts the failure" "2 commits: 1 measured, 0 the same build as one measured, 0 already measured, 1 failed" "$OUT"
cat "$OUT" "$ERR" >"$T/bf-broken.txt"
grep_file "the failed commit is named" "$(printf %.12s "$C41")" "$T/bf-broken.txt"
st=$(sqlite3 "$BENCHFARM_DB" "select group_concat(status) from runs where patch_commit = '$C41'")
[ "$st" = failed ] && t_ok "commit 41 recorded as failed" || t_fail "status '$st'"
sqlite3 "$BENCHFARM_DB" "select info from runs where patch_commit = '$C41'" \
	>"$T/info41.json"
jq_check "the failed run says why: its build, with the log's tail" \
	".stage == \"build\" and .side == \"commit\" and .commit == \"$C41\" and (.error | test(\"build\")) and (.log_tail | test(\"error\"))" \
	"$T/info41.json"
grep_file "the backfill line gives the reason" \
	"$(printf %.12s "$C41") failed (recorded as failed, no point): .*build" "$OUT"
n=$(sqlite3 "$BENCHFARM_DB" "select count(*) from samples where commit_id = '$C41'")
[ "$n" = 0 ] && t_ok "no samples for the broken commit" || t_fail "$n samples"
n=$(sqlite3 "$BENCHFARM_DB" "select count(*) from samples where commit_id = '$C42'")
[ "$n" -gt 0 ] && t_ok "commit 42 measured" || t_fail "no samples for 42"

# run --detect: record one more commit, then look for steps at once.
echo "commit 43" >>"$R/README"
t_git -C "$R" commit -q -am "commit 43"
expect_exit 0 "run --detect" "$BF" run -c "$R/benchfarm.yaml" --detect
# 41 of the branch's 43 commits have a point: not the root (never
# recorded) nor the one whose build failed.
grep_file "detect runs after the run and counts the measured commits" \
	"jetpack over 41 measured commits (of 43 on main), 2 series: 2 steps" \
	"$OUT"
if grep -q "(new)" "$OUT"; then t_fail "a new alert appeared"; else t_ok "no new alert"; fi
