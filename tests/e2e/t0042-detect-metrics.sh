#!/bin/sh
# detect judges what the config measures, the way compare does: on a
# generated repository of 24 commits, a Google Benchmark program (built
# by each commit) processes ITEMS items per iteration in a fixed manual
# time, so its items_per_second counter depends only on the commit
# (with a small deterministic wobble). Commit 13 processes 20% fewer
# items: a throughput drop, which is a regression. A plain counter
# "extra" rises 30% at commit 7. Without a metrics: list the rate is
# higher-is-better (its unit ends in /s), as compare has it; with one,
# a metric it leaves out is never judged, even when the history stored
# it before the list was written, and run/backfill no longer store it.
# detect also says how many commits were measured and, per series, its
# points, its strongest score against the threshold and how many of the
# newest points cannot be judged yet; `benchfarm history` prints a
# stored series.
. "$(dirname "$0")/lib.sh"

need_gbench
R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
cat >"$R/tp.cc" <<'X'
#include <benchmark/benchmark.h>

#include "params.h"

static void BM_copy(benchmark::State &state)
{
	for (auto _ : state)
		state.SetIterationTime(0.001 * (1 + WOBBLE / 1000.0));
	state.SetItemsProcessed((int64_t)ITEMS * state.iterations());
	state.counters["extra"] = EXTRA;
}
BENCHMARK(BM_copy)->UseManualTime()->Iterations(20);
BENCHMARK_MAIN();
X
cat >"$R/benchfarm.yaml" <<'X'
version: 1
project: {repo: ., target_branch: main, build: [c++, -O1, -o, tp, tp.cc, -lbenchmark, -lpthread]}
benchmarks:
  - {name: tp, command: [./tp, --benchmark_format=json], format: gbench}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks, cores]}
runs: {repeats: 3, warmup: 0}
postsubmit: {detector: jetpack}
X
# The same project with a metrics: list that leaves "extra" out.
sed 's/format: gbench}/format: gbench, metrics: {real_time: {}, items_per_second: {better: higher}}}/' \
	"$R/benchfarm.yaml" >"$R/listed.yaml"
i=1
while [ $i -le 24 ]; do
	items=1000
	extra=50
	[ $i -ge 13 ] && items=800
	[ $i -ge 7 ] && extra=65
	# a wobble of -2..+2 per mille, different for each commit
	printf '#define ITEMS %s\n#define EXTRA %s\n#define WOBBLE %s\n' \
		"$items" "$extra" $(((i * 7) % 5 - 2)) >"$R/params.h"
	t_git -C "$R" add -A
	t_git -C "$R" commit -q -m "commit $i"
	i=$((i + 1))
done
c() { git -C "$R" rev-parse "main~$((24 - $1))"; }
C12=$(c 12)
C13=$(c 13)
ROOT=$(c 1)
short() { echo "$1" | cut -c1-12; }

# One measured commit: detect says so (not the branch's length), and
# that no series has enough points yet.
expect_exit 0 "run one commit" "$BF" run -c "$R/benchfarm.yaml" --commit "$ROOT"
expect_exit 0 "detect over one point" "$BF" detect -c "$R/benchfarm.yaml"
grep_file "the measured count, and the branch's length apart" \
	"jetpack over 1 measured commit (of 24 on main), 4 series: 0 steps" "$OUT"
grep_file "a series says it has too few points, and how many a step needs" \
	"series tp BM_copy/iterations:20/manual_time items_per_second (higher is better): 1 point, 0 steps; too few to judge: a step needs 5 points before it and 5 from it on" \
	"$OUT"

expect_exit 0 "backfill the rest" "$BF" backfill -c "$R/benchfarm.yaml" \
	"$ROOT..main"
grep_file "all measured" "23 commits: 23 measured" "$OUT"

# No metrics: list: every metric, rates higher-is-better.
expect_exit 0 "detect" "$BF" detect -c "$R/benchfarm.yaml" --dry-run \
	--json "$T/d.json"
jq_check "the throughput drop at commit 13 is a regression" \
	"[.alerts[] | select(.metric == \"items_per_second\")] | length == 1 and .[0].direction == \"regressed\" and .[0].commit_hi == \"$C13\" and .[0].commit_lo == \"$C12\" and .[0].size < -0.19 and .[0].size > -0.21" \
	"$T/d.json"
grep_file "the text says regressed" \
	"regressed .*items_per_second.*-20.0%" "$OUT"
jq_check "the measured count and the window" \
	'.measured == 24 and .commits == 24 and .branch == "main"' "$T/d.json"
jq_check "series_info: items_per_second has 24 points, one step, higher is better" \
	'[.series_info[] | select(.metric == "items_per_second")] | length == 1 and .[0].points == 24 and .[0].steps == 1 and .[0].better == "higher" and .[0].unjudged == 4 and .[0].needs_after == 5 and .[0].threshold == 25' \
	"$T/d.json"
jq_check "its strongest score is at commit 13, above the threshold" \
	"[.series_info[] | select(.metric == \"items_per_second\")][0].strongest | .commit == \"$C13\" and .value >= 25 and .statistic == \"score\"" \
	"$T/d.json"
jq_check "real_time: no step, its strongest score below the threshold" \
	'[.series_info[] | select(.metric == "real_time")][0] | .steps == 0 and .strongest.value != null and .strongest.value < 25' \
	"$T/d.json"
grep_file "the text gives points, strongest score, threshold and the newest unjudged" \
	"series tp BM_copy/iterations:20/manual_time items_per_second (higher is better): 24 points, 1 step; strongest score [0-9.e+]* at $(short "$C13") (an alert needs at least 25); the newest 4 cannot be judged until 4 more points exist after them" \
	"$OUT"

# metrics: lists real_time and items_per_second: the stored "extra"
# series is not judged, and said to be left out.
expect_exit 0 "detect with a metrics: list" "$BF" detect \
	-c "$R/listed.yaml" --json "$T/l.json"
jq_check "no alert on the excluded metric, the regression still found" \
	"([.alerts[] | select(.metric == \"extra\")] | length) == 0 and ([.alerts[] | select(.metric == \"items_per_second\" and .direction == \"regressed\" and .commit_hi == \"$C13\")] | length) == 1" \
	"$T/l.json"
jq_check "two series judged, extra and cpu_time left out" \
	'.series == 2 and .excluded_series == 2 and ([.series_info[].metric] | sort) == ["items_per_second", "real_time"]' \
	"$T/l.json"
grep_file "the text says a stored series was not judged" \
	"2 stored series not judged: their metrics are not in their benchmark's metrics:" \
	"$OUT"
n=$(sqlite3 "$BENCHFARM_DB" "select count(*) from alerts where metric = 'extra'")
[ "$n" = 0 ] && t_ok "no alert stored for the excluded metric" ||
	t_fail "$n alerts stored for the excluded metric"
expect_exit 0 "alert list" "$BF" alert list --json
cp "$OUT" "$T/al.json"
G=$(jq -r '.[0].group' "$T/al.json")
expect_exit 0 "alert list, for people" "$BF" alert list
grep_file "the group is written as in the JSON ($G)" \
	"items_per_second .* $G " "$OUT"
# What alert list prints is what alert ack takes.
expect_exit 2 "ack of a group no alert is in" "$BF" alert ack --group 12345
grep_file "names the group" "--group '12345': no alert is in this group" "$ERR"
expect_exit 0 "ack the group as alert list prints it" "$BF" alert ack \
	--group "$G"
expect_exit 0 "alert list --json after" "$BF" alert list --json
jq_check "every alert of group $G is acked" \
	"[.[] | select(.group == $G)] | length > 0 and all(.[]; .status == \"ack\")" \
	"$OUT"

# bisect judges the way detect does: the throughput drop is a regression
# and commit 13 its culprit (5 runs a side: 3 cannot reach p < 0.01,
# their least p being 0.05 even with every value tied); a metric the
# list leaves out is refused.
expect_exit 0 "bisect the throughput drop" "$BF" bisect -c "$R/listed.yaml" \
	--good "$(c 10)" --bad "$(c 14)" --benchmark tp \
	--metric items_per_second --repeats 5 --json "$T/b.json"
jq_check "commit 13, regressed, as detect said" \
	".culprit == \"$C13\" and .direction == \"regressed\" and .metric == \"items_per_second\"" \
	"$T/b.json"
expect_exit 2 "bisect of the excluded metric" "$BF" bisect -c "$R/listed.yaml" \
	--good "$(c 10)" --bad "$(c 14)" --benchmark tp --metric extra
grep_file "says the list leaves it out" \
	"benchmark 'tp' does not measure metric 'extra': its metrics: list leaves it out" \
	"$ERR"

# A new history recorded with the list does not store "extra" at all.
export BENCHFARM_DB="$T/listed.db"
expect_exit 0 "run with the list" "$BF" run -c "$R/listed.yaml"
n=$(sqlite3 "$BENCHFARM_DB" "select count(*) from samples where metric = 'extra'")
[ "$n" = 0 ] && t_ok "the excluded metric is not stored" ||
	t_fail "$n samples of the excluded metric stored"
n=$(sqlite3 "$BENCHFARM_DB" "select count(*) from samples where metric = 'items_per_second'")
[ "$n" = 3 ] && t_ok "the listed ones are (3 runs)" ||
	t_fail "$n samples of items_per_second stored"

# benchfarm history prints a stored series, as detect fits it.
export BENCHFARM_DB="$T/benchfarm.db"
expect_exit 0 "history -h" "$BF" history -h
grep_file "its usage names the selections" "--benchmark GLOB" "$OUT"
expect_exit 0 "history of one metric, newest 5 points" "$BF" history \
	-c "$R/listed.yaml" --metric items_per_second --last 5
grep_file "a heading with the series, its unit, direction and points" \
	"^tp BM_copy/iterations:20/manual_time items_per_second (/s, higher is better): 5 points" \
	"$OUT"
n=$(grep -c "^  [0-9a-f]\{12\} " "$OUT")
[ "$n" = 5 ] && t_ok "five rows" || t_fail "$n rows"
grep_file "a row: commit, value, change, subject" \
	"^  $(short "$(c 24)") *[0-9.e+]* *[-+][0-9.]*% *commit 24$" "$OUT"
expect_exit 0 "history --json over a range" "$BF" history -c "$R/listed.yaml" \
	--benchmark 'BM_copy*' --metric items_per_second --range "$(c 11)..$(c 14)" \
	--json
cp "$OUT" "$T/h.json"
jq_check "commits 12, 13 and 14, the drop at 13" \
	"(.series | length) == 1 and ([.series[0].points[].commit] == [\"$C12\", \"$(c 13)\", \"$(c 14)\"]) and .series[0].points[1].value < 0.81 * .series[0].points[0].value" \
	"$T/h.json"
expect_exit 0 "history --suite --metric of the excluded metric" "$BF" history \
	-c "$R/listed.yaml" --suite tp --metric extra --json
jq_check "stored before the list: shown, marked as not judged" \
	'(.series | length) == 1 and .series[0].judged == false and .series[0].better == null and (.series[0].points | length) == 24' \
	"$OUT"
expect_exit 0 "history of no series" "$BF" history -c "$R/listed.yaml" \
	--metric nothing
grep_file "it says nothing matched" "none of the 4 series stored on device class 'local' over these 24 commits matches" "$ERR"
expect_exit 2 "history over an unknown range" "$BF" history \
	-c "$R/listed.yaml" --range nope..main
grep_file "names the option and the revision" "--range: unknown revision 'nope'" "$ERR"
expect_exit 2 "history --last 0" "$BF" history -c "$R/listed.yaml" --last 0
grep_file "names the option" "--last:" "$ERR"
