#!/bin/sh
# benchfarm dashboard over a real store: a generated repository of 14
# commits whose Google Benchmark program does 20% more work from commit
# 9, measured with `backfill`, the step found by `detect` and its alert
# acknowledged. The page's data (--json) holds every measured commit with
# its subject, the series with the spread of its runs and the alert with
# its state; project.commit_url gives the links, and a URL that is not
# one is refused naming the key. The page itself is then checked in
# headless Chromium as t0080 checks pages (tests/browser/check.js).
. "$(dirname "$0")/lib.sh"

need_gbench
R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
cat >"$R/w.cc" <<'X'
#include <benchmark/benchmark.h>
#include <cstdio>

#include "params.h"

/* Runs alternate 0.5% below and above: the spread of a commit's runs. */
static int next_run()
{
	int n = 0;
	FILE *f = fopen(COUNTER, "r");

	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = 0;
		fclose(f);
	}
	if ((f = fopen(COUNTER, "w"))) {
		fprintf(f, "%d\n", n + 1);
		fclose(f);
	}
	return n;
}
static const double RUN = next_run() % 2 ? 1.005 : 0.995;

static void BM_work(benchmark::State &state)
{
	for (auto _ : state)
		state.SetIterationTime(0.001 * WORK * RUN * (1 + WOBBLE / 1000.0));
}
BENCHMARK(BM_work)->UseManualTime()->Iterations(10);
BENCHMARK_MAIN();
X
cat >"$R/benchfarm.yaml" <<'X'
version: 1
project: {repo: ., target_branch: main, build: [c++, -O1, -o, w, w.cc, -lbenchmark, -lpthread],
  commit_url: "https://git.example.com/demo/commit/{commit}"}
benchmarks:
  - {name: w, command: [./w, --benchmark_format=json], format: gbench, metrics: {real_time: {}}}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks, cores]}
runs: {repeats: 2, warmup: 0}
postsubmit: {detector: jetpack}
X
i=1
while [ $i -le 14 ]; do
	work=1.0
	[ $i -ge 9 ] && work=1.2
	printf '#define WORK %s\n#define WOBBLE %s\n#define COUNTER "%s"\n' \
		"$work" $(((i * 7) % 5 - 2)) "$T/runs" >"$R/params.h"
	t_git -C "$R" add -A
	t_git -C "$R" commit -q -m "commit $i: <b>tune</b> \"it\""
	i=$((i + 1))
done
ROOT=$(git -C "$R" rev-list --max-parents=0 main)
C9=$(git -C "$R" rev-parse main~5)

expect_exit 0 "run the first commit" "$BF" run -c "$R/benchfarm.yaml" --commit "$ROOT"
expect_exit 0 "backfill the rest" "$BF" backfill -c "$R/benchfarm.yaml" "$ROOT..main"
expect_exit 0 "detect stores the step" "$BF" detect -c "$R/benchfarm.yaml"
id=$("$BF" alert list --json 2>/dev/null | jq -r '.[0].id // empty')
expect_exit 0 "ack the alert" "$BF" alert ack "$id"

expect_exit 0 "dashboard writes the page and its data" "$BF" dashboard \
	-c "$R/benchfarm.yaml" -o "$T/dash.html" --json "$T/dash.json"
jq_check "every commit of main, oldest first, with its subject and date" \
	"(.commits | length) == 14 and .commits[0].id == \"$ROOT\" and .commits[13].subject == \"commit 14: <b>tune</b> \\\"it\\\"\" and (.commits[0].time > 0)" \
	"$T/dash.json"
jq_check "one series (real_time only, as the config lists), a value per commit" \
	'(.series | length) == 1 and .series[0].metric == "real_time" and ([.series[0].values[] | select(. != null)] | length) == 14' \
	"$T/dash.json"
jq_check "the spread of each commit's two runs: 5 per mille below and above" \
	'.series[0].spread == [range(0; 28) | 5]' \
	"$T/dash.json"
jq_check "the step is 20% at commit 9" \
	'.series[0].values as $v | ($v[10] / $v[5]) > 1.15 and ($v[10] / $v[5]) < 1.25' "$T/dash.json"
jq_check "the alert at commit 9, acknowledged" \
	"(.alerts | length) == 1 and .alerts[0].commit_hi == \"$C9\" and .alerts[0].status == \"ack\"" \
	"$T/dash.json"
jq_check "the commit URL template from the config" \
	'.commit_url == "https://git.example.com/demo/commit/{commit}"' "$T/dash.json"
grep_file "the page is HTML, the data inline" 'id="bf-result"' "$T/dash.html"

# a device class with no history: a page that says so, and a message
expect_exit 0 "dashboard of a class with no history still writes the page" \
	"$BF" dashboard -c "$R/benchfarm.yaml" --device nowhere -o "$T/none.html" \
	--json "$T/none.json"
jq_check "no series, the commits still listed" \
	'(.series | length) == 0 and (.commits | length) == 14 and .device_classes == ["nowhere"]' \
	"$T/none.json"
grep_file "and it says so on stderr" \
	"no series recorded over these 14 commits matches; the page says so" "$ERR"

sed 's|https://git.example.com/demo/commit/{commit}|javascript:alert(1)|' \
	"$R/benchfarm.yaml" >"$R/bad.yaml"
expect_exit 2 "a commit_url that is not an http(s) URL is refused" \
	"$BF" dashboard -c "$R/bad.yaml" -o "$T/bad.html"
grep_file "the error names the file and the key" "bad.yaml: project.commit_url: 'javascript:alert(1)'" "$ERR"
[ ! -e "$T/bad.html" ] && t_ok "nothing written" || t_fail "a page was written"

# the page in the browser, as t0080 does it
CHROMIUM=$(command -v chromium || true)
MODS="$BF_BUILD_ABS/browser"
if [ -z "$CHROMIUM" ]; then
	echo "ok $((t_n + 1)) # skip chromium is not installed (ci/deps.sh installs it)"
	exit 0
fi
mkdir -p "$MODS"
if ! cmp -s "$BF_SRC/tests/browser/package-lock.json" "$MODS/package-lock.json" ||
	[ ! -d "$MODS/node_modules/playwright-core" ]; then
	cp "$BF_SRC/tests/browser/package.json" "$BF_SRC/tests/browser/package-lock.json" "$MODS/"
	(cd "$MODS" && npm ci --ignore-scripts --no-audit --no-fund) >"$ERR" 2>&1 ||
		t_fail "npm ci installs playwright-core into $MODS"
fi
cp "$T/dash.html" "$MODS/dashboard-store.html"
cp "$T/none.html" "$MODS/dashboard-none.html"
node "$BF_SRC/tests/browser/check.js" --modules "$MODS/node_modules" \
	--benchfarm "$BF" --chromium "$CHROMIUM" --shots "$MODS/shots" \
	"$MODS/dashboard-store.html=$T/dash.json" \
	"$MODS/dashboard-none.html=$T/none.json" |
	sed "s/^\(not \)\{0,1\}ok [0-9]* - /&browser: /"
