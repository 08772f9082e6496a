#!/bin/sh
# A suite-wide spike is not a regression: on a generated repository of
# 24 commits whose four benchmarks print values that depend only on the
# commit (with a small deterministic wobble), commit 10 makes every
# benchmark 30% slower and commit 11 puts them back (a bad build
# machine, say), while commit 17 makes "delta" 15% slower for good.
# detect reports the step at commit 17 and nothing else, and says that
# it left commit 10 out, in its JSON and in its output (a share of 1
# still does: all four spike). With the suppression off, the spike
# stays in the fits: jetpack still reports only the real step, skia no
# longer finds it, and edivisive over a short window reports the spike
# as a regression of every benchmark.
. "$(dirname "$0")/lib.sh"

R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
cat >"$R/bench.sh" <<'X'
#!/bin/sh
# name value: scale * base * (1 + wobble), from values.txt
. ./values.txt
for b in alpha:1000 beta:2000 gamma:3000 delta:4000; do
	n=${b%%:*}
	v=${b#*:}
	f=$SCALE
	[ "$n" = delta ] && f=$(echo "$f * $DELTA" | bc -l)
	echo "$n $(echo "$v * $f * (1 + $WOBBLE / 1000)" | bc -l) ns"
done
X
cat >"$R/benchfarm.yaml" <<'X'
version: 1
project: {repo: ., target_branch: main, build: ["true"]}
benchmarks:
  - {name: suite, command: [sh, bench.sh], format: lines}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks, cores]}
runs: {repeats: 3, warmup: 0}
postsubmit: {detector: jetpack}
X
i=1
while [ $i -le 24 ]; do
	scale=1
	delta=1
	[ $i -eq 10 ] && scale=1.3
	[ $i -ge 17 ] && delta=1.15
	# a wobble of -2..+2 per mille, different for each commit
	printf 'SCALE=%s\nDELTA=%s\nWOBBLE=%s\n' "$scale" "$delta" \
		$(((i * 7) % 5 - 2)) >"$R/values.txt"
	t_git -C "$R" add -A
	t_git -C "$R" commit -q -m "commit $i"
	i=$((i + 1))
done
c() { git -C "$R" rev-parse "main~$((24 - $1))"; }
C10=$(c 10)
C16=$(c 16)
C17=$(c 17)
ROOT=$(c 1)

expect_exit 0 "backfill 23 commits" "$BF" backfill -c "$R/benchfarm.yaml" \
	"$ROOT..main"
grep_file "all measured" "23 commits: 23 measured" "$OUT"

expect_exit 0 "detect" "$BF" detect -c "$R/benchfarm.yaml" --json "$T/d.json"
jq_check "exactly one alert" '(.alerts | length) == 1' "$T/d.json"
jq_check "delta, slower, at commit 17" \
	".alerts[0].benchmark == \"delta\" and .alerts[0].direction == \"regressed\" and .alerts[0].commit_hi == \"$C17\"" \
	"$T/d.json"
jq_check "over 16..17, about 15%" \
	".alerts[0].commit_lo == \"$C16\" and .alerts[0].size > 0.14 and .alerts[0].size < 0.16" \
	"$T/d.json"
jq_check "the spike at commit 10 is suppressed, with its reason" \
	".suppressed == [{\"commit\": \"$C10\", \"reason\": .suppressed[0].reason}] and (.suppressed[0].reason | test(\"suite-wide spike\"))" \
	"$T/d.json"
jq_check "no alert names commit 10" \
	"[.alerts[] | select(.commit_lo == \"$C10\" or .commit_hi == \"$C10\")] | length == 0" \
	"$T/d.json"
expect_exit 0 "detect, for people" "$BF" detect -c "$R/benchfarm.yaml" \
	--dry-run
grep_file "the output says what it left out" "$(echo "$C10" | cut -c1-12).*suite-wide spike" "$OUT"
if grep -q "(new)" "$OUT"; then t_fail "--dry-run calls a stored step new"; else
	t_ok "--dry-run knows the stored step"; fi

# The share is inclusive: all four spike, so a share of 1 still leaves
# commit 10 out. --no-spike keeps it in: jetpack's fit does not make a
# step of one build that comes back, so the one real step is still all
# it reports, and the output has no suppressed line.
expect_exit 0 "detect --spike-share 1" "$BF" detect -c "$R/benchfarm.yaml" \
	--spike-share 1 --dry-run --json "$T/one.json"
jq_check "4 of 4 reach a share of 1: commit 10 left out" \
	"[.suppressed[].commit] == [\"$C10\"] and (.alerts | length) == 1" \
	"$T/one.json"
expect_exit 0 "detect --no-spike" "$BF" detect -c "$R/benchfarm.yaml" \
	--no-spike --dry-run --json "$T/off.json"
jq_check "nothing suppressed, still only delta's step at 17" \
	".suppressed == [] and (.alerts | length) == 1 and .alerts[0].benchmark == \"delta\" and .alerts[0].commit_hi == \"$C17\"" \
	"$T/off.json"
expect_exit 0 "detect --no-spike, for people" "$BF" detect \
	-c "$R/benchfarm.yaml" --no-spike --dry-run
if grep -q suppressed "$OUT"; then
	t_fail "no suppressed line without suppression"
else
	t_ok "no suppressed line without suppression"
fi

# What leaving the spike out buys: the default detectors do not fire on a
# single build that comes back, but the spike stays in their fits. With
# skia's window it inflates the noise enough to hide commit 17's step;
# left out, the step is found.
expect_exit 0 "skia with the spike left out" "$BF" detect \
	-c "$R/benchfarm.yaml" --algorithm skia --dry-run --json "$T/s.json"
jq_check "skia finds delta's step at commit 17" \
	"(.alerts | length) == 1 and .alerts[0].benchmark == \"delta\" and .alerts[0].commit_hi == \"$C17\"" \
	"$T/s.json"
expect_exit 0 "skia --no-spike" "$BF" detect -c "$R/benchfarm.yaml" \
	--algorithm skia --no-spike --dry-run --json "$T/n.json"
jq_check "nothing suppressed" '.suppressed == []' "$T/n.json"
jq_check "and the spike in the fit hides the step" '.alerts == []' \
	"$T/n.json"

# A detector that does fire on one build: edivisive over a window of 5
# takes commit 10 for two change points (up, then down) in every series
# when the spike is kept; left out, only commit 17's step remains.
sed 's/^postsubmit:.*/postsubmit: {detector: {name: edivisive, width: 5}}/' \
	"$R/benchfarm.yaml" >"$R/ediv.yaml"
expect_exit 0 "edivisive, spike left out" "$BF" detect -c "$R/ediv.yaml" \
	--dry-run --json "$T/e.json"
jq_check "edivisive: only delta's step at 17, commit 10 suppressed" \
	"(.alerts | length) == 1 and .alerts[0].benchmark == \"delta\" and .alerts[0].commit_hi == \"$C17\" and [.suppressed[].commit] == [\"$C10\"]" \
	"$T/e.json"
expect_exit 0 "edivisive --no-spike" "$BF" detect -c "$R/ediv.yaml" \
	--no-spike --dry-run --json "$T/en.json"
jq_check "kept in, the spike is four regressions at commit 10" \
	"[.alerts[] | select(.commit_hi == \"$C10\" and .direction == \"regressed\") | .benchmark] | sort == [\"alpha\", \"beta\", \"delta\", \"gamma\"]" \
	"$T/en.json"
jq_check "and delta's real step is still found" \
	"[.alerts[] | select(.commit_hi == \"$C17\") | .benchmark] == [\"delta\"]" \
	"$T/en.json"
jq_check "the four alerts at commit 10 share one group" \
	"[.alerts[] | select(.commit_hi == \"$C10\") | .group] | length == 4 and (unique | length) == 1" \
	"$T/en.json"
jq_check "one group per commit, none shared across commits" \
	"([.alerts[] | .group] | unique | length) == ([.alerts[] | .commit_hi] | unique | length) and ([.alerts[] | [.commit_hi, .group]] | unique | length) == ([.alerts[] | .commit_hi] | unique | length)" \
	"$T/en.json"

n=$(sqlite3 "$BENCHFARM_DB" "select count(*) from alerts")
[ "$n" = 1 ] && t_ok "--dry-run stored nothing (1 alert in the store)" ||
	t_fail "$n alerts stored"
expect_exit 0 "alert list" "$BF" alert list
# The group is commit 17's first 13 hex digits read as a number, written
# in decimal as in the JSON.
grep_file "the alert shows its group, commit 17's, in decimal" \
	"delta .* $(printf '%d' "0x$(echo "$C17" | cut -c1-13)") " "$OUT"

expect_exit 2 "a share out of range" "$BF" detect -c "$R/benchfarm.yaml" \
	--spike-share 1.5
grep_file "is named" "'1.5' is not a share above 0 and at most 1" "$ERR"

# Alerts stored before alerts had a suite (schema 5): such an alert is
# its series' while no other suite prints the same benchmark and metric,
# and nobody's when two do.
sqlite3 "$BENCHFARM_DB" "update alerts set suite = NULL"
expect_exit 0 "detect over a suite-less alert" "$BF" detect \
	-c "$R/benchfarm.yaml" --json "$T/old.json"
jq_check "one suite: the old alert is the step's, not a new one" \
	"(.alerts | length) == 1 and .alerts[0].new == false and .alerts[0].commit_hi == \"$C17\"" \
	"$T/old.json"
export BENCHFARM_DB="$T/two.db"
sed 's/^  - {name: suite, \(.*\)$/  - {name: suite, \1\n  - {name: other, \1/' \
	"$R/benchfarm.yaml" >"$R/two.yaml"
expect_exit 0 "backfill two suites printing the same names" "$BF" backfill \
	-c "$R/two.yaml" "$ROOT..main"
expect_exit 0 "detect two suites" "$BF" detect -c "$R/two.yaml" \
	--json "$T/two.json"
jq_check "delta's step in each suite" \
	"[.alerts[] | [.suite, .benchmark, .commit_hi]] | sort == [[\"other\", \"delta\", \"$C17\"], [\"suite\", \"delta\", \"$C17\"]]" \
	"$T/two.json"
sqlite3 "$BENCHFARM_DB" "delete from alerts where suite = 'other'; update alerts set suite = NULL, status = 'ignored'"
expect_exit 0 "detect with an ignored suite-less alert" "$BF" detect \
	-c "$R/two.yaml" --dry-run --json "$T/two2.json"
jq_check "it cannot be told whose: both steps are new, neither ignored" \
	"(.alerts | length) == 2 and all(.alerts[]; .new and .commit_hi == \"$C17\" and (.ignored | not))" \
	"$T/two2.json"
