#!/bin/sh
# A job's run says it is alive from its creation, not only once its
# devices are leased: while the sides build and while it waits in the
# pool's queue its heartbeat renews the run's alive_at, so that after a
# PostgreSQL restart another host does not mark it aborted while it
# still works. With devices.lease_time 3 the heartbeat beats every
# second. The build blocks on a FIFO until the test has seen alive_at
# move; then a compare waits in the queue of pool lab while another
# holds its one device (an sshd device, its benchmark blocked) until
# the test has seen the waiting run's alive_at move. On SQLite and,
# when BENCHFARM_TEST_PG names a server, on PostgreSQL (each_store).
. "$(dirname "$0")/lib.sh"

sshd_setup
t_atexit() {
	timeout 5 sh -c ': >"$1"' sh "$T/build_go" 2>/dev/null
	timeout 5 sh -c ': >"$1"' sh "$T/go" 2>/dev/null
}
sshd_start dev
dev_port=$port
mkfifo "$T/built" "$T/build_go" "$T/started" "$T/go"
# the build: once after each `touch $T/build_block`, says so through
# the FIFO $T/built and waits on the FIFO $T/build_go
cat >"$T/build.sh" <<X
if [ -e "$T/build_block" ]; then
	rm -f "$T/build_block"
	echo started >"$T/built"
	read x <"$T/build_go" || :
fi
X

# alive_repo DIR: pool_repo DIR whose build is $T/build.sh and whose
# benchmark is blocking_pool_repo's (FIFOs $T/started and $T/go); its
# tree names the store, so that the PostgreSQL pass finds no build of it
# cached. local.yaml runs it on the local machine, lab.yaml on pool lab,
# both with devices.lease_time 3.
alive_repo() {
	pool_repo "$1" <<X
echo run >>"$T/calls"
if [ -e "$T/block" ]; then
	rm -f "$T/block"
	echo started >"$T/started"
	read x <"$T/go"
fi
echo "b 1 ns"
# $STORE
X
	# the build talks to the test through files outside its tree
	sed -i "s|build: \[true\]|build: [sh, $T/build.sh], build_sandbox: off|" "$1/bf.yaml"
	sed 's/^devices: {pool: lab}$/devices: {pool: local, lease_time: 3}/' \
		"$1/bf.yaml" >"$1/local.yaml"
	sed 's/^devices: {pool: lab}$/devices: {pool: lab, lease_time: 3}/' \
		"$1/bf.yaml" >"$1/lab.yaml"
	grep -q "build: \[sh, $T/build.sh\], build_sandbox: off" "$1/bf.yaml" &&
		grep -q 'pool: local, lease_time: 3' "$1/local.yaml" &&
		grep -q 'pool: lab, lease_time: 3' "$1/lab.yaml" ||
		t_fail "set the build, the pools and the lease time"
}

build_alive_checks() {
	touch "$T/build_block"
	"$BF" compare -c "$R/local.yaml" --base main --patch main \
		>"$T/a.out" 2>"$T/a.err" &
	apid=$!
	if timeout 60 sh -c 'read x <"$1"' sh "$T/built"; then
		t_ok "a compare builds its sides"
	else
		t_fail "its build never started: $(cat "$T/a.err")"
	fi
	id=$(db "select id from runs where status = 'running'")
	[ -n "$id" ] && t_ok "its run $id is running" ||
		t_fail "no running run"
	alive_again "while it builds, its heartbeat says it is alive again" "$id"
	timeout 5 sh -c ': >"$1"' sh "$T/build_go"
	wait "$apid"
	rc=$?
	[ $rc = 0 ] && t_ok "the compare finishes (exit 0)" ||
		t_fail "exit $rc: $(cat "$T/a.err")"
	sql_check "its run is complete" complete \
		"select status from runs where kind = 'compare'"
}

queue_alive_checks() {
	sshd_add dev "$dev_port" "add the device" --labels lab --agent "$BFA" \
		--workdir "$T/work"
	touch "$T/block"
	"$BF" compare -c "$R/lab.yaml" --base main --patch main \
		>"$T/h.out" 2>"$T/h.err" &
	hpid=$!
	if timeout 60 sh -c 'read x <"$1"' sh "$T/started"; then
		t_ok "a compare holds the device, its benchmark blocked"
	else
		t_fail "its benchmark never started: $(cat "$T/h.err")"
	fi
	"$BF" compare -c "$R/lab.yaml" --base main --patch main --wait 120 \
		>"$T/w.out" 2>"$T/w.err" &
	wpid=$!
	poll "another compare waits in the pool's queue" \
		"select count(*) = 1 from waiters"
	run_w=$(db "select max(id) from runs where status = 'running'")
	alive_again "while it waits, its heartbeat says its run $run_w is alive again" \
		"$run_w"
	timeout 5 sh -c ': >"$1"' sh "$T/go"
	wait "$hpid"
	hrc=$?
	wait "$wpid"
	wrc=$?
	[ $hrc = 0 ] && [ $wrc = 0 ] &&
		t_ok "both compares finish (exit 0), the waiting one in its turn" ||
		t_fail "exits $hrc, $wrc: $(cat "$T/h.err" "$T/w.err")"
	sql_check "its run is complete" complete \
		"select status from runs where id = ${run_w:-0}"
}

alive_checks() {
	R="$T/repo-$STORE"
	alive_repo "$R"
	build_alive_checks
	queue_alive_checks
}

each_store build_alive alive_checks
