#!/bin/sh
# Faults on the local machine, each with the real processes:
# the orchestrator SIGKILLed in the middle of a compare and of a
# backfill (the store stays sound, the half-done run is never complete,
# is marked aborted by the next command, and a rerun completes), two
# compares on one store at once, a benchmark that leaves a child
# running, a benchmark that prints without end, and a store on a
# read-only directory. The kills are done by the benchmark itself at a
# chosen invocation, so nothing here waits on a clock.
. "$(dirname "$0")/lib.sh"

R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
# The benchmark counts its invocations; at the one named in $T/kill_at
# it SIGKILLs the orchestrator whose pid is in $T/orch.pid.
cat >"$R/bench.sh" <<X
n=\$((\$(cat "$T/count" 2>/dev/null || echo 0) + 1))
echo \$n >"$T/count"
if [ "\$n" = "\$(cat "$T/kill_at" 2>/dev/null)" ]; then
	kill -9 "\$(cat "$T/orch.pid")"
fi
echo "alpha 100 ns"
echo "beta 200 ns"
X
cat >"$T/bf.yaml" <<X
version: 1
project: {repo: $R, target_branch: main, build: [true]}
benchmarks:
  - {name: micro, command: [sh, bench.sh], format: lines}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks]}
runs: {repeats: 4, warmup: 0}
presubmit: {fail_on: never}
X
for i in 1 2 3 4; do
	echo "commit $i" >>"$R/README"
	t_git -C "$R" add -A
	t_git -C "$R" commit -q -m "commit $i"
done
t_git -C "$R" checkout -q -b patch
echo patch >>"$R/README"
t_git -C "$R" commit -q -am patch
q() { sqlite3 "$BENCHFARM_DB" "$1"; }

# as_orch FILE CMD...: runs CMD with its pid written to FILE first.
as_orch() {
	sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$@"
}

# --- SIGKILL in the middle of a compare (8 runs: killed at the 5th) ---
echo 5 >"$T/kill_at"
rm -f "$T/count"
as_orch "$T/orch.pid" "$BF" compare -c "$T/bf.yaml" --base main \
	--patch patch --json "$T/killed.json" >"$OUT" 2>"$ERR"
rc=$?
[ "$rc" = 137 ] && t_ok "compare killed by SIGKILL at the 5th run" ||
	t_fail "compare exit $rc (wanted 137)"
[ "$(q 'PRAGMA integrity_check')" = ok ] &&
	t_ok "the store passes integrity_check after the kill" ||
	t_fail "integrity_check: $(q 'PRAGMA integrity_check')"
[ "$(q "select count(*) from runs where status = 'complete'")" = 0 ] &&
	t_ok "no run is complete" || t_fail "a killed run is complete"
n=$(q "select count(*) from samples")
[ "$n" -gt 0 ] && t_ok "the samples measured before the kill are kept ($n)" ||
	t_fail "no samples kept"
[ ! -e "$T/killed.json" ] && t_ok "no result JSON was written" ||
	t_fail "a result JSON exists for a killed compare"
rm -f "$T/kill_at"
expect_exit 0 "the rerun completes" "$BF" compare -c "$T/bf.yaml" \
	--base main --patch patch --json "$T/rerun.json"
grep_file "and says the killed run was marked aborted" \
	"1 run left running by an orchestrator that stopped" "$ERR"
[ "$(q "select group_concat(status) from runs order by id")" = "aborted,complete" ] &&
	t_ok "killed run aborted, rerun complete" ||
	t_fail "runs: $(q 'select group_concat(status) from runs order by id')"
q "select info from runs where status = 'aborted'" | grep -q "killed or crashed" &&
	t_ok "the aborted run says why" || t_fail "no reason on the aborted run"
jq_check "the rerun has its 8 alpha samples (4 runs x 2 sides)" \
	'[.samples[] | select(.name == "alpha")] | length == 8' "$T/rerun.json"
n=$(q "select count(*) from samples where run_id = (select id from runs where status = 'complete')")
[ "$n" = 16 ] && t_ok "16 samples stored for the complete run" ||
	t_fail "$n samples for the complete run"

# --- SIGKILL in the middle of a backfill (4 commits x 4 runs) ---
ROOT=$(git -C "$R" rev-list --max-parents=0 main)
echo 7 >"$T/kill_at"
rm -f "$T/count"
as_orch "$T/orch.pid" "$BF" backfill -c "$T/bf.yaml" "$ROOT~0..main" \
	>"$OUT" 2>"$ERR"
rc=$?
[ "$rc" = 137 ] && t_ok "backfill killed in its second commit" ||
	t_fail "backfill exit $rc (wanted 137)"
[ "$(q 'PRAGMA integrity_check')" = ok ] &&
	t_ok "integrity_check passes" || t_fail "integrity_check after backfill"
[ "$(q "select count(*) from runs where kind = 'run' and status = 'complete'")" = 1 ] &&
	t_ok "one commit complete, the killed one is not" ||
	t_fail "complete runs: $(q "select count(*) from runs where kind = 'run' and status = 'complete'")"
rm -f "$T/kill_at"
expect_exit 0 "backfill again" "$BF" backfill -c "$T/bf.yaml" \
	"$ROOT~0..main"
grep_file "measures the rest, skipping the complete one" \
	"3 commits: 2 measured, 0 the same build as one measured, 1 already measured, 0 failed" "$OUT"
[ "$(q "select count(*) from runs where kind = 'run' and status = 'aborted'")" = 1 ] &&
	t_ok "the killed commit's run is aborted" || t_fail "no aborted run"
[ "$(q "select count(distinct patch_commit) from runs where kind = 'run' and status = 'complete'")" = 3 ] &&
	[ "$(q "select count(*) from runs where kind = 'run' and status = 'complete'")" = 3 ] &&
	t_ok "each commit has exactly one complete run" ||
	t_fail "complete runs per commit"

# --- two compares on one store at once ---
"$BF" compare -c "$T/bf.yaml" --base main --patch patch \
	--json "$T/c1.json" >"$T/c1.out" 2>&1 &
p1=$!
"$BF" compare -c "$T/bf.yaml" --base main --patch patch \
	--json "$T/c2.json" >"$T/c2.out" 2>&1 &
p2=$!
wait $p1
r1=$?
wait $p2
r2=$?
[ "$r1" = 0 ] && [ "$r2" = 0 ] && t_ok "two compares at once both finish" ||
	t_fail "concurrent compares exited $r1 and $r2: $(cat "$T/c1.out" "$T/c2.out")"
jq_check "the first has its 8 alpha samples" \
	'[.samples[] | select(.name == "alpha")] | length == 8' "$T/c1.json"
jq_check "the second too" \
	'[.samples[] | select(.name == "alpha")] | length == 8' "$T/c2.json"
[ "$(q "select count(*) from runs where kind = 'compare' and status = 'complete'")" = 3 ] &&
	t_ok "both recorded complete" || t_fail "complete compares"
[ "$(q 'PRAGMA integrity_check')" = ok ] && t_ok "integrity_check passes" ||
	t_fail "integrity_check after concurrent compares"

# --- a benchmark that leaves a child running ---
expect_exit 0 "a benchmark that forks a child and exits is measured" \
	"$BFA" run --format lines --timeout 60 -- sh -c \
	'sleep 300 & echo $! >"$0"; echo "alpha 5 ns"' "$T/child.pid"
jq_slurp_check "its sample is kept and its result is a success" \
	'[.[] | select(.type == "sample")][0] | .benchmark == "alpha" and .value == 5' \
	"$OUT"
if timeout 20 tail --pid="$(cat "$T/child.pid")" -f /dev/null; then
	t_ok "the child it left running was killed with its process group"
else
	kill "$(cat "$T/child.pid")" 2>/dev/null
	t_fail "the child outlived the benchmark"
fi

# --- a benchmark printing without end ---
expect_exit 3 "a benchmark printing gigabytes is stopped" \
	"$BFA" run --format lines --timeout 120 -- yes "alpha 1 ns"
jq_slurp_check "with output_too_big naming the program" \
	'.[-1] | .type == "error" and .code == "output_too_big" and (.message | test("yes"))' \
	"$OUT"

# --- the store on a read-only directory ---
RO="$T/ro"
mkdir -p "$RO"
BENCHFARM_DB="$RO/benchfarm.db" "$BF" device list >/dev/null 2>&1
if mount --bind "$RO" "$RO" 2>/dev/null &&
	mount -o remount,bind,ro "$RO" 2>/dev/null; then
	sum=$(sha256sum "$RO/benchfarm.db")
	BENCHFARM_DB="$RO/benchfarm.db" expect_exit 3 \
		"a compare on a read-only store is an infrastructure failure" \
		"$BF" compare -c "$T/bf.yaml" --base main --patch patch
	grep_file "naming the store and what to do" \
		"$RO/benchfarm.db': its directory is not writable.*use --db" "$ERR"
	[ "$(sha256sum "$RO/benchfarm.db")" = "$sum" ] &&
		t_ok "the store file is unchanged" || t_fail "the store changed"
	umount "$RO"
else
	umount "$RO" 2>/dev/null
	echo "# cannot make a read-only bind mount here: that case is left out"
fi
