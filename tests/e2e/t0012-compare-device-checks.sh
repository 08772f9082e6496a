#!/bin/sh
# The orchestrator checks the device before every measurement block and
# stores the results with the run; an unfit device is not measured, and
# that is an infrastructure failure (exit 3), never a verdict. Fixture
# sysroots stand for the device (BENCHFARM_SYSROOT is the agent's
# default --root).
. "$(dirname "$0")/lib.sh"

FIX="$BF_SRC/tests/fixtures/sysroot"
R="$T/repo"
tiny_repo "$R" "runs: {repeats: 3, warmup: 1}
checks: {thermal_max: 70}"

BENCHFARM_SYSROOT="$FIX/healthy-locked" expect_exit 0 \
	"healthy device is measured" \
	"$BF" compare -c "$R/bf.yaml" --base HEAD --json "$T/ok.json"
jq_check "one check round per block (warmup + 3 repeats)" \
	'[.checks[] | .block] | unique == [0,1,2,3]' "$T/ok.json"
jq_check "all seven checks each round" \
	'[.checks[] | select(.block == 1) | .id] | sort == ["battery","boost","clocks","cores","load","thermal","throttle"]' "$T/ok.json"
run1=$(jq .run_id "$T/ok.json")
n=$(sqlite3 "$BENCHFARM_DB" "select count(*) from checks where run_id=$run1")
[ "$n" = 28 ] && t_ok "28 check results stored with the run" ||
	t_fail "check results stored with the run: $n"

BENCHFARM_SYSROOT="$FIX/hot-95c" expect_exit 3 \
	"a 95 C device is not measured (exit 3)" \
	"$BF" compare -c "$R/bf.yaml" --base HEAD --json "$T/hot.json" \
	--markdown "$T/hot.md"
grep_file "says the device is not fit, naming thermal" \
	"not fit to measure: thermal" "$ERR"
jq_check "result is an infrastructure failure" \
	'.status == "infra_failure" and (.infra_error | test("thermal"))' "$T/hot.json"
jq_check "no verdicts and no samples" \
	'(.results | length) == 0 and (.samples | length) == 0' "$T/hot.json"
grep_file "markdown shows why in the infrastructure section" \
	"stopped early: no device of the pool could measure: device .local. is not fit" "$T/hot.md"
run2=$(jq .run_id "$T/hot.json")
f=$(sqlite3 "$BENCHFARM_DB" "select count(*) from checks where run_id=$run2 and check_id='thermal' and status='fail'")
[ "$f" = 1 ] && t_ok "the failed thermal check is stored" ||
	t_fail "the failed thermal check is stored ($f)"
s=$(sqlite3 "$BENCHFARM_DB" "select count(*) from samples where run_id=$run2")
[ "$s" = 0 ] && t_ok "nothing measured on the unfit device" ||
	t_fail "nothing measured on the unfit device ($s samples)"

# Right after a build: the 1-minute load average is still 3.50 on 2
# cores, but nothing else runs now. The default load check measures.
BENCHFARM_SYSROOT="$FIX/after-build" expect_exit 0 \
	"a device whose build has just ended is measured" \
	"$BF" compare -c "$R/bf.yaml" --base HEAD --json "$T/after.json"
jq_check "its load check passed, quoting the lagging average" \
	'[.checks[] | select(.id == "load")] | length > 0 and all(.[]; .status == "pass" and (.message | test("0 runnable tasks besides ours.*1-minute average 3.50")))' \
	"$T/after.json"
# Busy now, with no time to settle (load_wait: 0): refused, saying what
# was counted.
sed 's/^checks: {thermal_max: 70}$/checks: {thermal_max: 70, load_wait: 0}/' \
	"$R/bf.yaml" >"$R/busy.yaml"
BENCHFARM_SYSROOT="$FIX/busy-now" expect_exit 3 \
	"a device running 4 other tasks is not measured" \
	"$BF" compare -c "$R/busy.yaml" --base HEAD
grep_file "the error names the load and what it counted" \
	"not fit to measure: load.*4 runnable tasks besides ours right now, limit 2" \
	"$ERR"

BENCHFARM_SYSROOT="$FIX/low-battery" expect_exit 3 \
	"a low battery device is not measured" \
	"$BF" compare -c "$R/bf.yaml" --base HEAD
grep_file "names the battery check" "battery" "$ERR"
