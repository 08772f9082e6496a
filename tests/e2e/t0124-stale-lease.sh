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
# was superseded and ends 3, nothing of it stored.
. "$(dirname "$0")/lib.sh"

sshd_setup
# alive PID: PID runs (a zombie, reaped or not, has ended)
alive() {
	[ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat"
}
t_atexit() {
	[ -n "${cpid:-}" ] && kill -CONT "$cpid" 2>/dev/null
	# whatever A's benchmark left (it runs in its own process group)
	[ -s "$T/a.pid" ] && kill -KILL -- "-$(cat "$T/a.pid")" 2>/dev/null
	return 0
}
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
