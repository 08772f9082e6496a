#!/bin/sh
# Nothing a benchmark starts outlives its run on the device, also what
# left the run's process group: a benchmark on a real sshd device that
# starts a setsid daemon (sleep 300 in a session of its own) and exits;
# after the compare no such daemon is running (the agent adopts orphans
# as a subreaper and kills them when the run is over).
. "$(dirname "$0")/lib.sh"

need_sshd
command -v setsid >/dev/null 2>&1 || {
	echo "ok 1 # skip no setsid"
	exit 0
}
sshd_setup
# A daemon a run left behind is killed however the script ends.
t_atexit() {
	for p in $(cat "$T/daemons" 2>/dev/null); do
		kill -9 "$p" 2>/dev/null
	done
}
sshd_start dev
sshd_add dev "$port" "add the device" --labels lab --agent "$BFA" \
	--workdir "$T/work"

R="$T/repo"
# setsid execs sleep in the background job's own process: $! is the
# daemon's pid, in a new session and process group.
pool_repo "$R" <<X
setsid sleep 300 </dev/null >/dev/null 2>&1 &
echo \$! >>"$T/daemons"
echo "b 1 ns"
X
expect_exit 0 "a compare whose benchmark starts setsid daemons" "$BF" \
	compare -c "$R/bf.yaml" --base main --patch main
n=$(wc -l <"$T/daemons")
[ "$n" -ge 4 ] && t_ok "each of the $n runs started one" ||
	t_fail "$n daemons started"
alive=
for p in $(cat "$T/daemons"); do
	kill -0 "$p" 2>/dev/null && alive="$alive $p"
done
[ -z "$alive" ] && t_ok "none outlived its run" ||
	t_fail "still running after the compare:$alive"
