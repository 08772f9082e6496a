#!/bin/sh
# Bisect follows the clearest change, not the largest, and a stand-alone
# bisect records its culprit with the open alert it answers. A
# repository of 25 commits whose benchmark b (format lines) prints two
# series each run: "wall", each run anywhere within 20% of its level
# (noise drawn from /dev/urandom, not from timing), and "cpu", within
# 0.2% of its. Commit 11 makes wall 60% and cpu 10% slower. Between
# commits 1 and 25 both are regressed and wall's change is the larger;
# bisect follows cpu, whose change is the clearer by far, and names
# commit 11. History of every 4th commit (1, 5, ..., 25) puts the
# step's alert over 9..13, blaming commit 13; a bisect of 9..13 records
# commit 11 with that alert (also on PostgreSQL) and says it is not
# the alert's commit_hi, a bisect inside that range records it too,
# a bisect over a range the alert does not hold records nothing, and
# detect --bisect follows the same series.
. "$(dirname "$0")/lib.sh"

R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
cat >"$R/b.sh" <<'X'
# two random numbers 0..65535 a run
set -- $(od -An -N4 -tu2 /dev/urandom)
w=$(cat wall)
c=$(cat cpu)
echo "wall $((w * (80000 + $1 * 40000 / 65535) / 100000)) ns"
echo "cpu $((c + $2 % 3)) ns"
X
cat >"$R/bf.yaml" <<'X'
version: 1
project: {repo: ., target_branch: main}
benchmarks:
  - {name: b, command: [sh, b.sh], format: lines}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks, cores]}
runs: {repeats: 3, warmup: 0}
postsubmit: {detector: {name: perfherder, width: 3}}
X
echo 10000 >"$R/wall"
echo 1000 >"$R/cpu"
i=1
while [ $i -le 25 ]; do
	if [ $i = 11 ]; then
		echo 16000 >"$R/wall"
		echo 1100 >"$R/cpu"
	fi
	echo "commit $i" >>"$R/README"
	t_git -C "$R" add -A
	t_git -C "$R" commit -q -m "commit $i"
	i=$((i + 1))
done
c() { git -C "$R" rev-parse "main~$((25 - $1))"; }
C11=$(c 11)

# Between commits 1 and 25 both series regressed, wall by more; the
# bisect follows cpu, the clearer, and finds commit 11 exactly.
expect_exit 0 "bisect 24 commits" "$BF" bisect -c "$R/bf.yaml" \
	--good "$(c 1)" --bad "$(c 25)" --benchmark b -n 6 \
	--json "$T/full.json"
cp "$OUT" "$T/full.out"
ep='.endpoints[] | select(.metric == "value")'
jq_check "both series regressed between the ends" \
	"[$ep | select(.verdict == \"regressed\") | .series] | sort == [\"cpu\", \"wall\"]" \
	"$T/full.json"
jq_check "wall's change is the larger" \
	"([$ep | select(.series == \"wall\") | .effect][0]) > 3 * ([$ep | select(.series == \"cpu\") | .effect][0])" \
	"$T/full.json"
jq_check "bisect follows cpu, the clearer, and names commit 11" \
	".series == \"cpu\" and .culprit == \"$C11\" and .direction == \"regressed\"" \
	"$T/full.json"
jq_check "the choice says why: its change, interval, clarity, and the runner-up wall" \
	'.choice.rule == "clearest" and .choice.series == "cpu" and .choice.effect > 0.09 and .choice.ci_low > 0 and .choice.clarity > .choice.runner_up.clarity and .choice.runner_up.series == "wall" and .choice.runner_up.effect > .choice.effect' \
	"$T/full.json"
jq_check "every probe is judged on cpu, none skipped" \
	'.skipped == [] and all(.probes[]; .series.name == "cpu" and (.outcome == "bad" or .outcome == "good"))' \
	"$T/full.json"
grep_file "the output names the followed series" \
	"^  following cpu value: regressed between good and bad$" "$T/full.out"
grep_file "and why, with the runner-up" \
	"^  the clearest change: +\(9\|10\)\.[0-9]% \[.*its log change .* times the interval's half-width; runner-up wall value: +[0-9.]*% " \
	"$T/full.out"
grep_file "the culprit is printed" "^culprit: $C11$" "$T/full.out"
jq_check "no alert exists yet to record it with" '.alerts == []' \
	"$T/full.json"

# History of every 4th commit on each store (SQLite, then PostgreSQL
# when there is one): the step's alert is over 9..13.
alert_checks() {
	ok=true
	for k in 1 5 9 13 17 21 25; do
		"$BF" run -c "$R/bf.yaml" --commit "$(c $k)" >"$OUT" 2>"$ERR" || ok=false
	done
	$ok && t_ok "every 4th commit recorded" || t_fail "a run failed"
	expect_exit 0 "detect" "$BF" detect -c "$R/bf.yaml" --json "$T/d.json"
	over='.alerts[] | select(.commit_lo == "'"$(c 9)"'" and .commit_hi == "'"$(c 13)"'")'
	jq_check "cpu's alert is over 9..13, without a culprit" \
		"[$over | select(.benchmark == \"cpu\") | .culprit] == [null]" \
		"$T/d.json"
	CPU_ID=$(jq -r "$over | select(.benchmark == \"cpu\") | .id" "$T/d.json")

	# A range the alert does not hold (good before its commit_lo): nothing
	# is recorded with it.
	expect_exit 0 "bisect 5..13" "$BF" bisect -c "$R/bf.yaml" \
		--good "$(c 5)" --bad "$(c 13)" --benchmark b -n 6 --json "$T/wide.json"
	jq_check "5..13 names commit 11, but no alert holds it" \
		".culprit == \"$C11\" and .alerts == []" "$T/wide.json"
	grep_file "and says so" "^no open alert of b over .* to record the culprit with$" \
		"$OUT"
	expect_exit 0 "alert list --json" "$BF" alert list --json
	jq_check "the alert still has no culprit" \
		"[.[] | select(.id == $CPU_ID) | .culprit] == [null]" "$OUT"

	# A range inside the alert's, 10..13: recorded with it.
	expect_exit 0 "bisect 10..13" "$BF" bisect -c "$R/bf.yaml" \
		--good "$(c 10)" --bad "$(c 13)" --benchmark b -n 6 \
		--json "$T/inside.json"
	jq_check "10..13 names commit 11, recorded with cpu's alert" \
		".culprit == \"$C11\" and ([.alerts[] | .id] | index($CPU_ID)) != null" \
		"$T/inside.json"
	sql_check "stored with the alert" "$C11" \
		"select culprit from alerts where id = $CPU_ID"
	db "update alerts set culprit = null" >/dev/null

	# The alert's own range: its culprit is recorded, and it is not the
	# commit the alert blamed.
	expect_exit 0 "bisect the alert's range 9..13" "$BF" bisect -c "$R/bf.yaml" \
		--good "$(c 9)" --bad "$(c 13)" --benchmark b -n 6 --json "$T/a.json"
	cp "$OUT" "$T/a.out"
	jq_check "9..13 names commit 11, recorded with cpu's alert" \
		".culprit == \"$C11\" and .series == \"cpu\" and ([.alerts[] | select(.id == $CPU_ID) | [.culprit, .commit_hi, .culprit_is_commit_hi]] == [[\"$C11\", \"$(c 13)\", false]])" \
		"$T/a.json"
	grep_file "the output says the culprit is not the alert's commit_hi" \
		"^alert $CPU_ID (cpu value, .*): culprit $(printf %.12s "$C11") recorded; it is not $(printf %.12s "$(c 13)"), the alert's commit_hi" \
		"$T/a.out"
	expect_exit 0 "alert list --json" "$BF" alert list --json
	jq_check "alert list shows the culprit" \
		"[.[] | select(.id == $CPU_ID) | .culprit] == [\"$C11\"]" "$OUT"
	jq_check "every open alert over 9..13 has it (wall's, if detected, too)" \
		"all(.[] | select(.commit_lo == \"$(c 9)\" and .commit_hi == \"$(c 13)\"); .culprit == \"$C11\")" \
		"$OUT"
	expect_exit 0 "alert list" "$BF" alert list
	grep_file "the table shows it" \
		"^$CPU_ID .* cpu .*\.\.[0-9a-f]* $(printf %.12s "$C11") " "$OUT"
}
each_store bisect_alerts alert_checks

# detect --bisect on a fresh store with the same history: the step's
# alerts are bisected once, on the alert the detector is surest of.
export BENCHFARM_DB="$T/gaps.db"
ok=true
for k in 1 5 9 13 17 21 25; do
	"$BF" run -c "$R/bf.yaml" --commit "$(c $k)" >"$OUT" 2>"$ERR" || ok=false
done
$ok && t_ok "every 4th commit recorded again" || t_fail "a run failed"
expect_exit 0 "detect --bisect" "$BF" detect -c "$R/bf.yaml" --bisect -n 6 \
	--json "$T/g.json"
jq_check "cpu's alert gets commit 11" \
	"[$over | select(.benchmark == \"cpu\") | .culprit] == [\"$C11\"]" \
	"$T/g.json"
jq_check "every alert of the step followed cpu and names commit 11" \
	"all($over; .bisect.series == \"cpu\" and .culprit == \"$C11\" and .bisect.choice.rule == \"score\")" \
	"$T/g.json"
