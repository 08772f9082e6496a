#!/bin/sh
# A stale lease holder's benchmark is ended on the device, on a real
# sshd device with a lease time of 3 s (devices.lease_time). Compare A is
# stopped (SIGSTOP) while its long benchmark burns a core there; its
# lease lapses; compare B takes the device. B's first request carries
# the lease's greater fencing token, and the agent ends (kills the
# process group of) A's run before it answers: A's benchmark is gone
# when B finishes, the device's run journal shows A's run ended before
# B's first run started, B ends 0 saying it ended the older lease's run,
# and its samples are clean. A, let go on (SIGCONT), hears that its run
# was superseded and ends 3, nothing of it stored. Then an older lease's
# run that SIGKILL does not end (a process group held by a zombie whose
# parent is stopped): compare C's runs overlap it, and none of them is
# recorded as a clean measurement. Last, a serve session of its own
# refuses an older token than a run in progress and a newer one ends it.
. "$(dirname "$0")/lib.sh"

sshd_setup
# alive PID: PID runs (a zombie, reaped or not, has ended)
alive() {
	[ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat"
}
t_atexit() {
	[ -n "${cpid:-}" ] && kill -CONT "$cpid" 2>/dev/null
	[ -n "${zpid:-}" ] && kill -KILL "$zpid" 2>/dev/null
	# whatever A's benchmark left (it runs in its own process group)
	[ -s "$T/a.pid" ] && kill -KILL -- "-$(cat "$T/a.pid")" 2>/dev/null
	return 0
}
# The agent waits 0.1 s, not 10, for an older lease's run to be gone
# (a SetEnv first wins over the fixture's, so it sets both).
BF_SSHD_CONFIG="SetEnv XDG_STATE_HOME=$S/dev/state BENCHFARM_AGENT_FENCE_WAIT=0.1" \
	sshd_start dev
sshd_add dev "$port" "add the device" --labels lab --agent "$BFA" \
	--workdir "$T/work"
JOURNAL="$S/dev/state/benchfarm/agent-runs.jsonl"

# Once after `touch $T/block` the benchmark writes its pid (its process
# group's id) to $T/a.pid, says so through the FIFO started, and burns a
# core for 30 s (a loop of the shell's builtins, no fork per turn).
mkfifo "$T/started"
R="$T/repo"
pool_repo "$R" <<X
if [ -e "$T/block" ]; then
	rm -f "$T/block"
	echo \$\$ >"$T/a.pid"
	echo started >"$T/started"
	sleep 30 &
	while kill -0 \$! 2>/dev/null; do :; done
fi
echo "b 1 ns"
X
sed -i 's/^devices: {pool: lab}$/devices: {pool: lab, lease_time: 3}/' \
	"$R/bf.yaml"
grep -q 'lease_time: 3' "$R/bf.yaml" || t_fail "set the lease time"
db() { sqlite3 "$BENCHFARM_DB" "$1"; }

touch "$T/block"
"$BF" compare -c "$R/bf.yaml" --base main --patch main \
	>"$T/a.out" 2>"$T/a.err" &
cpid=$!
if timeout 60 sh -c 'read x <"$1"' sh "$T/started"; then
	t_ok "compare A runs its long benchmark"
else
	t_fail "the benchmark never started: $(cat "$T/a.err")"
fi
apid=$(cat "$T/a.pid")
tok_a=$(db "select token from leases")
run_a=$(db "select id from runs where status = 'running'")
kill -STOP "$cpid"
poll "stopped, A's lease expires" \
	"select count(*) = 1 from leases
	 where expires_at <= cast(strftime('%s', 'now') as integer)"
alive "$apid" && t_ok "A's benchmark still burns a core" ||
	t_fail "A's benchmark ended before B came"

expect_exit 0 "compare B takes the device and finishes" \
	"$BF" compare -c "$R/bf.yaml" --base main --patch main --json "$T/b.json"
tok_b=$(db "select lease_gen from devices where name = 'dev'")
if alive "$apid"; then
	t_fail "A's benchmark (pid $apid) still runs after B measured"
	kill -KILL -- "-$apid" 2>/dev/null
else
	t_ok "A's benchmark is ended"
fi
grep_file "B says it ended the older lease's run" \
	"device 'dev': the agent ended a run of an older lease (token $tok_a < $tok_b) that was still running there" \
	"$ERR"
# The device's own record: A's run (killed, no samples) ended before
# B's first run started.
a_end=$(jq -s '[.[] | select(.samples == 0)] | .[0].end // empty' "$JOURNAL")
b_start=$(jq -s '[.[] | select(.samples > 0) | .start] | min // empty' "$JOURNAL")
if [ -n "$a_end" ] && [ -n "$b_start" ] &&
	[ "$(jq -n "$a_end <= $b_start")" = true ]; then
	t_ok "A's run ended ($a_end) before B's first run started ($b_start)"
else
	t_fail "the journal: A's run ended at '${a_end}', B's first run started at '${b_start}': $(cat "$JOURNAL")"
fi
run_b=$(jq -r .run_id "$T/b.json")
[ "$(jq '.errors | length' "$T/b.json")" = 0 ] &&
	[ "$(db "select status from runs where id = $run_b")" = complete ] &&
	[ "$(db "select count(*) from samples where run_id = $run_b")" -gt 0 ] &&
	t_ok "B's run is complete with its samples, no run failed" ||
	t_fail "B's run: $(db "select status from runs where id = $run_b"), errors $(jq -c .errors "$T/b.json")"

kill -CONT "$cpid"
wait "$cpid"
crc=$?
cpid=
[ $crc = 3 ] && t_ok "compare A, let go on, exits 3" ||
	t_fail "exit $crc (stderr: $(cat "$T/a.err"))"
grep_file "saying its lease went to B" \
	"stopped: a device's lease was lost (it keeps its health): device 'dev': its lease was taken by another job (token $tok_b > $tok_a); this job's results for it are not stored" \
	"$T/a.err" || sed 's/^/#   A: /' "$T/a.err"
[ "$(db "select count(*) from samples where run_id = ${run_a:-0}")" = 0 ] &&
	[ "$(db "select status from runs where id = ${run_a:-0}")" = failed ] &&
	t_ok "nothing of A's is stored, its run is failed" ||
	t_fail "A's run: $(db "select status, (select count(*) from samples where run_id = ${run_a:-0}) from runs where id = ${run_a:-0}")"

# A process group that outlives SIGKILL: its leader has exited and its
# parent, stopped, never reaps it. Recorded as a run of token 1 in the
# device's fence file (agent/fence.h: TOKEN PGID START OWNER ENDED_BY).
python3 -c 'import os, signal, sys
pid = os.fork()
if pid == 0:
    os.setpgid(0, 0)
    os._exit(0)
os.setpgid(pid, pid)
print(pid, flush=True)
sys.stdout.close()
os.kill(os.getpid(), signal.SIGSTOP)' >"$T/zombie" &
zpid=$!
timeout 10 sh -c 'until [ -s "$1" ]; do sleep 0.05; done' sh "$T/zombie"
zgroup=$(cat "$T/zombie")
FENCE="$S/dev/state/benchfarm/fence/$(printf dev | sha256sum | cut -c1-64)"
[ -f "$FENCE" ] && t_ok "the device keeps a fence file" ||
	t_fail "no fence file $FENCE: $(ls -R "$S/dev/state")"
echo "1 $zgroup 0 $zpid 0" >>"$FENCE"
last=$(db "select coalesce(max(id), 0) from runs")
"$BF" compare -c "$R/bf.yaml" --base main --patch main --json "$T/c.json" \
	>"$OUT" 2>"$ERR"
run_c=$(db "select max(id) from runs where id > $last")
grep_file "C says the older run is still there" \
	"device 'dev': a run of an older lease is still running there after it was killed" \
	"$ERR"
grep_file "its overlapped runs are run again" \
	"dev: overlapped: the run overlapped a run of an older lease (token 1) on device 'dev' that was still running 0.1 s after it was killed: it is no clean measurement; running it again" \
	"$ERR"
[ "$(db "select count(*) from samples where run_id = ${run_c:-0}")" = 0 ] &&
	t_ok "no sample of an overlapped run is stored" ||
	t_fail "$(db "select count(*) from samples where run_id = ${run_c:-0}") samples of compare C"
[ "$(jq '[.errors[] | select(.code == "overlapped")] | length' "$T/c.json")" -gt 0 ] &&
	t_ok "C's result reports its runs as overlapped" ||
	t_fail "C's errors: $(jq -c .errors "$T/c.json")"

# Any agent process of the device sees the runs in progress: a serve
# session of its own (as a second SSH connection would be) refuses a
# request of an older token than a run in progress (token 99, a process
# group of its own), and a newer token's request ends that run.
setsid sleep 30 &
spid=$!
timeout 10 sh -c 'until [ "$(ps -o pgid= -p "$1" | tr -d " ")" = "$1" ]; do sleep 0.05; done' sh "$spid"
echo "99 $spid 0 $spid 0" >>"$FENCE"
serve() {
	printf '{"type":"info","id":1,"fence":{"device":"dev","token":%s}}\n' "$1" |
		XDG_STATE_HOME="$S/dev/state" BENCHFARM_AGENT_FENCE_WAIT=0.1 \
			"$BFA" serve >"$OUT" 2>"$ERR"
}
serve 5
[ "$(jq -r 'select(.id == 1 and .type == "error") | .code' "$OUT")" = superseded ] &&
	grep -q "device 'dev' runs a benchmark for a newer lease (token 99 > 5): this request's lease was taken over" "$OUT" &&
	alive "$spid" && t_ok "an older token is refused while a newer lease's run is in progress" ||
	t_fail "token 5 while 99 runs: $(cat "$OUT")"
serve 100
[ "$(jq -r 'select(.type == "fence") | .ended_token' "$OUT")" = 99 ] &&
	[ "$(jq -r 'select(.id == 1 and .type == "result") | .type' "$OUT")" = result ] &&
	! alive "$spid" && t_ok "a newer token ends it and is served" ||
	t_fail "token 100 while 99 runs: $(cat "$OUT"; alive "$spid" && echo "(still running)")"
kill -KILL "$spid" 2>/dev/null || :
