#!/bin/sh
# A job's run says it is alive from its creation, not only once its
# devices are leased: while the sides build (and while it waits in the
# pool's queue) its heartbeat renews the run's alive_at, so that after a
# PostgreSQL restart another host does not mark it aborted while it
# still works. With devices.lease_time 3 the heartbeat beats every
# second; the build blocks on a FIFO until the test has seen alive_at
# move. On SQLite and, when BENCHFARM_TEST_PG names a server, on
# PostgreSQL (each_store).
. "$(dirname "$0")/lib.sh"

mkfifo "$T/built" "$T/build_go"
# the build: once after each `touch $T/build_block`, says so through
# the FIFO $T/built and waits on the FIFO $T/build_go
cat >"$T/build.sh" <<X
if [ -e "$T/build_block" ]; then
	rm -f "$T/build_block"
	echo started >"$T/built"
	read x <"$T/build_go" || :
fi
X

build_alive_checks() {
	R="$T/repo-$STORE"
	blocking_pool_repo_once "$R"
	touch "$T/build_block"
	"$BF" compare -c "$R/bf.yaml" --base main --patch main \
		--json "$T/a.json" >"$T/a.out" 2>"$T/a.err" &
	apid=$!
	if timeout 60 sh -c 'read x <"$1"' sh "$T/built"; then
		t_ok "a compare builds its sides"
	else
		t_fail "its build never started: $(cat "$T/a.err")"
	fi
	first=$(db "select alive_at from runs where status = 'running'")
	[ -n "$first" ] && t_ok "its run is running, alive at $first" ||
		t_fail "no running run"
	poll "while it builds, its heartbeat says it is alive again" \
		"select count(*) = 1 from runs where status = 'running'
		 and alive_at > ${first:-0}"
	timeout 5 sh -c ': >"$1"' sh "$T/build_go"
	wait "$apid"
	rc=$?
	[ $rc = 0 ] && t_ok "the compare finishes (exit 0)" ||
		t_fail "exit $rc: $(cat "$T/a.err")"
	sql_check "its run is complete" complete \
		"select status from runs where kind = 'compare'"
}

# blocking_pool_repo_once DIR: pool_repo DIR whose build is $T/build.sh,
# run on the local machine with devices.lease_time 3; its tree names the
# store, so that the PostgreSQL pass finds no build of it cached
blocking_pool_repo_once() {
	printf 'echo "b 1 ns"\n# %s\n' "$STORE" | pool_repo "$1"
	sed -i "s|build: \[true\]|build: [sh, $T/build.sh]|;
		s|^devices: {pool: lab}\$|devices: {pool: local, lease_time: 3}|" \
		"$1/bf.yaml"
	grep -q "build: \[sh, $T/build.sh\]" "$1/bf.yaml" &&
		grep -q 'pool: local, lease_time: 3' "$1/bf.yaml" ||
		t_fail "set the build, the local pool and the lease time"
}

each_store build_alive build_alive_checks
