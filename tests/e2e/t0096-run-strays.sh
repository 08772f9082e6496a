#!/bin/sh
# Nothing a benchmark starts outlives its run on the device, also what
# left the run's process group: a benchmark on a real sshd device that
# starts a setsid daemon (sleep 300 in a session of its own) and exits;
# after the compare no such daemon is running (the agent adopts orphans
# as a subreaper and kills them when the run is over).
. "$(dirname "$0")/lib.sh"

SSHD_SH="$BF_SRC/ci/sshd.sh"
need_sshd
command -v setsid >/dev/null 2>&1 || {
	echo "ok 1 # skip no setsid"
	exit 0
}
S="$T/sshd"
mkdir -p "$S"
trap 'for p in $(cat "$T/daemons" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done; "$SSHD_SH" stop "$S" dev; rm -rf "$T"' EXIT
trap 'exit 1' HUP INT TERM PIPE
export BENCHFARM_KNOWN_HOSTS="$T/known_hosts"
ME=$(id -un)

"$SSHD_SH" client-key "$S"
chmod 600 "$S/client_key"
port=$("$SSHD_SH" start "$S" dev) || {
	t_fail "start sshd device"
	exit 1
}
expect_exit 0 "add the device" "$BF" device add dev --host 127.0.0.1 \
	--port "$port" --user "$ME" --key "$S/client_key" --labels lab \
	--agent "$BFA" --workdir "$T/work" --accept-host-key

R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
# setsid execs sleep in the background job's own process: $! is the
# daemon's pid, in a new session and process group.
cat >"$R/bench.sh" <<X
setsid sleep 300 </dev/null >/dev/null 2>&1 &
echo \$! >>"$T/daemons"
echo "b 1 ns"
X
cat >"$R/bf.yaml" <<'X'
version: 1
project: {repo: ., target_branch: main, build: [true], artifacts: [bench.sh]}
benchmarks:
  - {name: micro, command: [sh, bench.sh], format: lines}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks, cores]}
runs: {repeats: 2, warmup: 0}
devices: {pool: lab}
presubmit: {fail_on: never}
X
t_git -C "$R" add -A
t_git -C "$R" commit -q -m base
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
