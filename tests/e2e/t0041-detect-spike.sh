#!/bin/sh
# A suite-wide spike is not a regression: on a generated repository of
# 24 commits whose four benchmarks print values that depend only on the
# commit (with a small deterministic wobble), commit 10 makes every
# benchmark 30% slower and commit 11 puts them back (a bad build
# machine, say), while commit 17 makes "delta" 15% slower for good.
# detect reports the step at commit 17 and nothing else, and says that
# it left commit 10 out, in its JSON and in its output. With the
# suppression off, the spike stays in the fits, where it hides the real
# step from skia's detector.
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
jq_check "the spike at commit 10 is suppressed, with its reason" \
	".suppressed == [{\"commit\": \"$C10\", \"reason\": .suppressed[0].reason}] and (.suppressed[0].reason | test(\"suite-wide spike\"))" \
	"$T/d.json"
jq_check "no alert names commit 10" \
	"[.alerts[] | select(.commit_lo == \"$C10\" or .commit_hi == \"$C10\")] | length == 0" \
	"$T/d.json"
expect_exit 0 "detect, for people" "$BF" detect -c "$R/benchfarm.yaml" \
	--dry-run
grep_file "the output says what it left out" "$(echo "$C10" | cut -c1-12).*suite-wide spike" "$OUT"

# What leaving the spike out buys: the step detectors do not fire on a
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
n=$(sqlite3 "$BENCHFARM_DB" "select count(*) from alerts")
[ "$n" = 1 ] && t_ok "--dry-run stored nothing (1 alert in the store)" ||
	t_fail "$n alerts stored"

expect_exit 2 "a share out of range" "$BF" detect -c "$R/benchfarm.yaml" \
	--spike-share 1.5
grep_file "is named" "'1.5' is not a share above 0 and at most 1" "$ERR"
