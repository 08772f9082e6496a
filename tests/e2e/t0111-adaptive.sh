#!/bin/sh
# Adaptive repeats (runs.repeats: auto) on a real Google Benchmark
# program, the demo's checksum, run on the local machine: the demo's 20%
# slowdown stops before max_repeats as "different" and is reported
# regressed; A/A comparisons stop "same" or reach the maximum, never with
# a regressed or improved verdict; the runs the result JSON counts are
# the runs stored; a number of repeats still runs that many. Then over a
# pool of two real sshd devices: each benchmark stops at its first look
# and no further run is made.
. "$(dirname "$0")/lib.sh"

R="$T/repo"
demo_repo_start "$R" micro.cc Makefile
cat >"$R/benchfarm.yaml" <<'X'
version: 1
project: {repo: ., build: [make]}
benchmarks:
  - name: checksum
    command: [out/micro, --benchmark_format=json,
              --benchmark_min_time=0.05, --benchmark_filter=BM_checksum]
    format: gbench
    metrics:
      cpu_time: {better: lower}
checks: {battery_min: 0, suppress: [load, throttle, battery]}
runs: {repeats: auto, min_repeats: 6, max_repeats: 30, warmup: 1}
presubmit: {alpha: 0.05, min_effect: 0.02}
X
demo_repo_commit "$R"

# runs_match FILE: the runs per side the result says checksum took are
# the runs whose samples the store holds for that run.
runs_match() {
	_id=$(jq '.run_id' "$1")
	_b=$(jq '.adaptive.benchmarks[0].runs.base' "$1")
	_p=$(jq '.adaptive.benchmarks[0].runs.patch' "$1")
	sql_check "$2: $_b base runs in the JSON are the runs stored" "$_b" \
		"select count(distinct repeat_idx) from samples where run_id = $_id and side = 'base'"
	sql_check "$2: $_p patch runs in the JSON are the runs stored" "$_p" \
		"select count(distinct repeat_idx) from samples where run_id = $_id and side = 'patch'"
}

expect_exit 1 "the 20% slowdown fails the compare (exit 1)" \
	"$BF" compare -c "$R/benchfarm.yaml" --json "$T/r.json" --seed 1
jq_check "mode adaptive, 6 to 30 runs per side" \
	'.settings.mode == "adaptive" and .settings.min_repeats == 6 and .settings.max_repeats == 30' "$T/r.json"
jq_check "BM_checksum cpu_time regressed" \
	'.results[0].name == "BM_checksum" and .results[0].verdict == "regressed"' "$T/r.json"
jq_check "stopped as different, before the maximum" \
	'.adaptive.benchmarks[0] | .stop == "different" and .runs.base < 30 and .runs.base == .runs.patch' "$T/r.json"
jq_check "the series was decided different at the look that stopped it" \
	'.results[0].sequential.decision == "different" and .results[0].sequential.runs_per_side == .adaptive.benchmarks[0].runs.base' "$T/r.json"
jq_check "effect and interval from the sequential look, near +20%" \
	'.results[0] | .effect > 0.12 and .effect < 0.30 and .ci_low > 0.02 and .ci_low <= .effect and .effect <= .ci_high' "$T/r.json"
jq_check "the samples are the runs taken" \
	'(.samples | map(select(.metric == "cpu_time")) | length) == (.adaptive.benchmarks[0].runs | .base + .patch)' "$T/r.json"
runs_match "$T/r.json" "20% slowdown"
grep_file "markdown says the range of repeats" \
	"adaptive repeats (6 to 30 runs per side)" "$OUT"
grep_file "markdown says the runs taken and why they stopped" \
	"^- checksum: [0-9]* base, [0-9]* patch runs; stopped: a change beyond the threshold$" "$OUT"

# The Gerrit message says the range too (rendered, not posted).
cat >"$T/gerrit.yaml" <<X
version: 1
project: {repo: $R}
benchmarks: [{name: checksum, command: [out/micro]}]
review: {gerrit: {host: 127.0.0.1, change: "1,1"}}
X
expect_exit 0 "the Gerrit review renders" "$BF" report -c "$T/gerrit.yaml" \
	--no-post -f gerrit -i "$T/r.json" --output-dir "$T/gerrit"
jq_check "the Gerrit message says 6 to 30 runs per side (adaptive)" \
	'.message | contains("6 to 30 runs per side (adaptive) on ")' \
	"$T/gerrit/gerrit-review.json"

# A/A: the same commit on both sides, three seeds.
for seed in 21 22 23; do
	expect_exit 0 "A/A seed $seed passes" \
		"$BF" compare -c "$R/benchfarm.yaml" --base patch --patch patch \
		--seed $seed --json "$T/aa$seed.json"
	jq_check "A/A seed $seed: stopped same or at the maximum" \
		'.adaptive.benchmarks[0].stop | (. == "same" or . == "max_reached")' "$T/aa$seed.json"
	jq_check "A/A seed $seed: no regressed or improved verdict" \
		'[.results[] | select(.verdict == "regressed" or .verdict == "improved")] | length == 0' "$T/aa$seed.json"
	jq_check "A/A seed $seed: the verdict follows the stop" \
		'(.adaptive.benchmarks[0].stop == "same") == (.results[0].verdict == "same")' "$T/aa$seed.json"
	runs_match "$T/aa$seed.json" "A/A seed $seed"
done

# A number on the command line is today's fixed count.
expect_exit 1 "--repeats 8 runs a fixed count" \
	"$BF" compare -c "$R/benchfarm.yaml" --repeats 8 --json "$T/f.json" --seed 2
jq_check "fixed mode, 8 runs per side, no adaptive object" \
	'.settings.mode == "fixed" and .results[0].base.n == 8 and .results[0].patch.n == 8 and (has("adaptive") | not)' "$T/f.json"

# --repeats auto on a config with a number.
sed 's/repeats: auto, //' "$R/benchfarm.yaml" >"$T/fixed.yaml"
sed -i 's|project: {repo: .,|project: {repo: '"$R"',|' "$T/fixed.yaml"
expect_exit 0 "--repeats auto on a fixed config: A/A" \
	"$BF" compare -c "$T/fixed.yaml" --repeats auto --base patch \
	--patch patch --seed 3 --json "$T/o.json"
jq_check "--repeats auto: adaptive mode" \
	'.settings.mode == "adaptive" and (.adaptive.benchmarks | length == 1)' "$T/o.json"

# Bad settings are said with the file, line and key.
sed 's/^runs: .*//' "$R/benchfarm.yaml" >"$T/bad.yaml"
printf 'runs: {repeats: auto, min_repeats: 10, max_repeats: 8}\n' >>"$T/bad.yaml"
expect_exit 2 "max_repeats below min_repeats is a config error" \
	"$BF" compare -c "$T/bad.yaml"
grep_file "the error names file, line and key" \
	"bad.yaml:13:[0-9]*: 'runs.max_repeats' (8) must be at least 'runs.min_repeats' (10)" "$ERR"
sed 's/^runs: .*/runs: {repeats: 10, interleave: false}/' \
	"$R/benchfarm.yaml" >"$T/nointer.yaml"
sed -i 's|project: {repo: .,|project: {repo: '"$R"',|' "$T/nointer.yaml"
expect_exit 2 "--repeats auto without interleaving is refused" \
	"$BF" compare -c "$T/nointer.yaml" --repeats auto
grep_file "and says what to do" \
	"set 'runs.interleave: true' or give a number of repeats" "$ERR"

# Over a pool of two real sshd devices running the agent: each benchmark
# is a unit that stops at its own first look, on whichever device runs
# it, and nothing more is run. The benchmark prints one fixed value (100
# ns on main, 120 ns on branch patch): no noise, so the first look (6
# runs per side) decides.
if command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ]; then
	sshd_setup
	sshd_pool "for adaptive runs" d1 d2
	P="$T/pool"
	pool_repo "$P" <<X
echo run >>"$T/calls"
echo "x 100 ns"
X
	sed -i 's/^runs: .*/runs: {repeats: auto, warmup: 0}/' "$P/bf.yaml"
	printf '  - {name: other, command: [sh, bench.sh], format: lines}\n' \
		>"$T/other"
	sed -i "/^  - {name: micro/r $T/other" "$P/bf.yaml"
	t_git -C "$P" commit -q -am "adaptive, two benchmarks"
	t_git -C "$P" checkout -q -b patch
	sed -i 's/x 100 ns/x 120 ns/' "$P/bench.sh"
	t_git -C "$P" commit -q -am "20% slower"
	expect_exit 0 "pool: compare main against the 20% slower patch" \
		"$BF" compare -c "$P/bf.yaml" --base main --patch patch \
		--seed 4 --json "$T/pool.json"
	jq_check "pool: both benchmarks regressed, stopped different at 6 runs" \
		'[.adaptive.benchmarks[] | .stop == "different" and .runs.base == 6 and .runs.patch == 6] == [true, true] and ([.results[].verdict] == ["regressed", "regressed"])' "$T/pool.json"
	[ "$(wc -l <"$T/calls")" -eq 24 ] &&
		t_ok "pool: 24 runs made (2 benchmarks x 2 sides x 6), not 120" ||
		t_fail "pool: $(wc -l <"$T/calls") runs made, want 24"
	_id=$(jq '.run_id' "$T/pool.json")
	sql_check "pool: 6 runs stored per benchmark and side" "6 6 6 6" \
		"select group_concat(n, ' ') from (select count(distinct repeat_idx) as n from samples where run_id = $_id group by suite, side)"
fi
