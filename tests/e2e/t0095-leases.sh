#!/bin/sh
# Leases when a compare is stopped, on a real sshd device: SIGTERM gives
# its lease back before the process ends (it was kept for the TTL, 600
# s); after SIGKILL, which nothing can catch, the next compare on this
# host takes the lease of the dead process back at once.
. "$(dirname "$0")/lib.sh"

sshd_setup
# A benchmark still waiting on the FIFO go is let go however the script
# ends.
t_atexit() {
	timeout 5 sh -c ": >\"\$1\"" sh "$T/go" 2>/dev/null
}
sshd_start dev
sshd_add dev "$port" "add the device" --labels lab --agent "$BFA" \
	--workdir "$T/work"

# While $T/block exists the benchmark says so through the FIFO started
# and then waits on the FIFO go: the compare is caught holding its lease.
mkfifo "$T/started" "$T/go"
R="$T/repo"
pool_repo "$R" <<X
if [ -e "$T/block" ]; then
	echo started >"$T/started"
	read x <"$T/go"
fi
echo "b 1 ns"
X
leases() { sqlite3 "$BENCHFARM_DB" 'select count(*) from leases'; }

# caught SIG: start a compare, wait until its benchmark runs, send SIG.
caught() {
	touch "$T/block"
	"$BF" compare -c "$R/bf.yaml" --base main --patch main \
		>"$T/c.out" 2>"$T/c.err" &
	cpid=$!
	if timeout 60 sh -c 'read x <"$1"' sh "$T/started"; then
		t_ok "$1: the compare runs its benchmark"
	else
		t_fail "$1: the benchmark never started: $(cat "$T/c.err")"
	fi
	[ "$(leases)" = 1 ] && t_ok "$1: it holds the device's lease" ||
		t_fail "$1: $(leases) leases while it runs"
	kill "-$1" "$cpid"
	wait "$cpid"
	crc=$?
	rm -f "$T/block"
	# the device's agent ends the run when the connection drops; if it
	# did not, this lets the benchmark go
	timeout 5 sh -c ': >"$1"' sh "$T/go" 2>/dev/null
}

caught TERM
[ $crc = 143 ] && t_ok "SIGTERM ends the compare by SIGTERM" ||
	t_fail "exit $crc after SIGTERM"
[ "$(leases)" = 0 ] && t_ok "SIGTERM gave the lease back" ||
	t_fail "$(leases) leases left after SIGTERM"
grep_file "and says so" "stopped by signal 15: 1 device lease released" \
	"$T/c.err"
state=$(sqlite3 "$BENCHFARM_DB" "select state from devices where name = 'dev'")
[ "$state" = idle ] && t_ok "the device is idle" || t_fail "device state $state"
expect_exit 0 "the next compare gets the device" "$BF" compare \
	-c "$R/bf.yaml" --base main --patch main

caught KILL
[ $crc = 137 ] && t_ok "SIGKILL ends the compare" || t_fail "exit $crc after SIGKILL"
[ "$(leases)" = 1 ] && t_ok "SIGKILL left the lease (nothing can catch it)" ||
	t_fail "$(leases) leases after SIGKILL"
expect_exit 0 "the next compare takes the dead process's lease back" \
	"$BF" compare -c "$R/bf.yaml" --base main --patch main
grep_file "saying whose it was" \
	"device 'dev': taking back the lease of 'benchfarm@.*': its process [0-9]* on .* has ended" \
	"$ERR"
[ "$(leases)" = 0 ] && t_ok "and releases it when done" ||
	t_fail "$(leases) leases left"
