# Sourced by every tests/e2e/tNNNN-*.sh script. Prints one "ok N - what"
# or "not ok N - what" line per check; ci/run-tests.sh counts them.
set -u
: "${BF_BUILD:=build/default}"
: "${BF_BUILD_ABS:=$(cd "$BF_BUILD" && pwd)}"
BF_SRC=$(cd "$(dirname "$0")/../.." && pwd)
BF="$BF_BUILD_ABS/benchfarm"
BFA="$BF_BUILD_ABS/benchfarm-agent"
T=$(mktemp -d "${TMPDIR:-/tmp}/bf-e2e.XXXXXX")
export BENCHFARM_DB="$T/benchfarm.db"
export HOME="$T/home"
export BENCHFARM_CACHE="$T/cache"
mkdir -p "$HOME"
SSHD_STARTED=
T_PG_DBS=
trap 't_cleanup' EXIT
OUT="$T/stdout"
ERR="$T/stderr"
t_n=0
# What every check's text starts with: the store a check ran on, set by
# each_store ("[postgresql] ") on its second pass; empty otherwise.
T_PASS=

t_ok() {
	t_n=$((t_n + 1))
	echo "ok $t_n - $T_PASS$1"
}

# t_skip "what" "why": a check that cannot be judged here (TAP's
# "# skip"), saying why; it counts as passed.
t_skip() {
	t_n=$((t_n + 1))
	echo "ok $t_n - $T_PASS$1 # skip $2"
}

t_fail() {
	t_n=$((t_n + 1))
	echo "not ok $t_n - $T_PASS$1"
	if [ -s "$ERR" ]; then sed 's/^/#   stderr: /' "$ERR" | head -20; fi
	if [ -s "$OUT" ]; then sed 's/^/#   stdout: /' "$OUT" | head -20; fi
}

# expect_exit CODE "what" cmd args...: runs cmd, stdout to $OUT and
# stderr to $ERR, and checks its exit code.
expect_exit() {
	want=$1
	what=$2
	shift 2
	"$@" >"$OUT" 2>"$ERR"
	got=$?
	if [ "$got" -eq "$want" ]; then
		t_ok "$what"
	else
		echo "#   expected exit $want, got $got: $*"
		t_fail "$what"
	fi
}

# check "what" cmd args...: passes when cmd exits 0 (output not kept).
check() {
	what=$1
	shift
	if "$@" >/dev/null 2>&1; then
		t_ok "$what"
	else
		t_fail "$what"
	fi
}

# grep_file "what" PATTERN FILE: passes when FILE has a line matching.
grep_file() {
	if grep -q -- "$2" "$3"; then
		t_ok "$1"
	else
		echo "#   no line matches '$2' in $3"
		t_fail "$1"
	fi
}

# need_sshd: skip the whole script (one "ok 1 # skip") without OpenSSH's
# sshd, which the device tests start on 127.0.0.1 (ci/sshd.sh).
need_sshd() {
	command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || {
		echo "ok 1 # skip no sshd"
		exit 0
	}
}

# need_cc: skip the whole script (one "ok 1 # skip") without a C
# compiler, for the tests that build programs of their own.
need_cc() {
	command -v cc >/dev/null 2>&1 || {
		echo "ok 1 # skip no C compiler"
		exit 0
	}
}

# need_gbench: skip the whole script (one "ok 1 # skip") without a C++
# compiler or Google Benchmark, for the tests that build benchmarks.
need_gbench() {
	if ! command -v c++ >/dev/null 2>&1 ||
		[ ! -f /usr/include/benchmark/benchmark.h ]; then
		echo "ok 1 # skip no C++ compiler or Google Benchmark"
		exit 0
	fi
}

# need_valgrind: skip the whole script (one "ok 1 # skip") without
# Valgrind, which runs the benchmarks that have measure: instructions.
need_valgrind() {
	command -v valgrind >/dev/null 2>&1 || {
		echo "ok 1 # skip no valgrind"
		exit 0
	}
}

# t_atexit: what a script does before the devices are stopped, its
# PostgreSQL databases dropped and $T removed, however it ends (the EXIT
# trap, t_cleanup); nothing unless the script defines its own after
# sourcing this file.
t_atexit() {
	:
}

# t_cleanup: the EXIT trap: t_atexit, then every device sshd_start
# started is stopped, every database pg_fresh_db made is dropped (its
# sessions ended) and $T is removed.
t_cleanup() {
	t_atexit
	for _d in $SSHD_STARTED; do "$SSHD_SH" stop "$S" "$_d"; done
	for _d in $T_PG_DBS; do
		psql "$BENCHFARM_TEST_PG" -qc \
			"DROP DATABASE IF EXISTS $_d WITH (FORCE)" >/dev/null 2>&1
	done
	rm -rf "$T"
}

# sshd_setup: the set-up of a test on real OpenSSH sshd "devices" on
# 127.0.0.1 (ci/sshd.sh). Skips the script without sshd; sets SSHD_SH
# (ci/sshd.sh), S (the devices' directory, $T/sshd), KEY (the client
# key, mode 600, in every device's authorized_keys), ME (this user) and
# exports BENCHFARM_KNOWN_HOSTS ($T/known_hosts). However the script
# ends (a signal exits through EXIT), t_cleanup runs: t_atexit, and
# every device sshd_start started is stopped.
sshd_setup() {
	need_sshd
	SSHD_SH="$BF_SRC/ci/sshd.sh"
	S="$T/sshd"
	mkdir -p "$S"
	trap 'exit 1' HUP INT TERM PIPE
	export BENCHFARM_KNOWN_HOSTS="$T/known_hosts"
	ME=$(id -un)
	"$SSHD_SH" client-key "$S"
	chmod 600 "$S/client_key"
	KEY="$S/client_key"
}

# sshd_start NAME [CONFIG]: start the sshd device NAME (in $S/NAME, its
# SFTP server starting in $S/NAME/home), CONFIG its sshd_config lines
# that win over ci/sshd.sh's (BF_SSHD_CONFIG, e.g. "MaxSessions 1"), and
# set port and P_NAME to the port it listens on; a device that does not
# start fails the script.
sshd_start() {
	SSHD_STARTED="$SSHD_STARTED $1"
	port=$(BF_SSHD_CONFIG="${2:-${BF_SSHD_CONFIG:-}}" "$SSHD_SH" start "$S" "$1") || {
		t_fail "start sshd device $1"
		exit 1
	}
	eval "P_$1=\$port"
}

# sshd_add NAME PORT "what" [OPTION...]: benchfarm device add NAME at
# 127.0.0.1:PORT as $ME with $KEY and the OPTIONs (--labels, --agent,
# --workdir: only those given), accepting its host key; checked to
# exit 0 (expect_exit).
sshd_add() {
	_name=$1
	_port=$2
	_what=$3
	shift 3
	expect_exit 0 "$_what" "$BF" device add "$_name" --host 127.0.0.1 \
		--port "$_port" --user "$ME" --key "$KEY" "$@" --accept-host-key
}

# sshd_pool "how" NAME...: sshd_start and sshd_add each NAME in pool
# "lab" with this build's agent and nothing else, so with the
# documented defaults (the work directory is the default one); each
# add is the check "add NAME how".
sshd_pool() {
	_how=$1
	shift
	for _d in "$@"; do
		sshd_start "$_d"
		sshd_add "$_d" "$port" "add $_d $_how" --labels lab --agent "$BFA"
	done
}

# git with a fixed identity, quiet.
t_git() {
	git -c user.name=benchfarm-test -c user.email=test@benchfarm.invalid \
		-c init.defaultBranch=main "$@" >/dev/null
}

# demo_repo_start DIR FILE...: a new repository DIR (branch main) with
# the FILEs of the make-demo project (configs/examples/demo: micro.cc,
# Makefile, benchfarm.yaml, README.md), its baseline tuning.h, and out/
# ignored; nothing is committed yet.
demo_repo_start() {
	_dir=$1
	shift
	mkdir -p "$_dir"
	t_git -C "$_dir" init -q -b main
	for _f in "$@"; do
		cp "$BF_SRC/configs/examples/demo/$_f" "$_dir/$_f"
	done
	cp "$BF_SRC/configs/examples/demo/tuning_base.h" "$_dir/tuning.h"
	printf 'out/\n' >"$_dir/.gitignore"
}

# demo_repo_commit DIR: everything in DIR is the baseline on main, and
# the demo's 20% slower patch (its tuning_patch.h) is on branch "patch".
demo_repo_commit() {
	t_git -C "$1" add -A
	t_git -C "$1" commit -q -m baseline
	t_git -C "$1" checkout -q -b patch
	cp "$BF_SRC/configs/examples/demo/tuning_patch.h" "$1/tuning.h"
	t_git -C "$1" commit -q -am "slower checksum"
}

# make_demo_repo DIR: the make-demo project, baseline on main and the
# 20% slower patch on branch "patch".
make_demo_repo() {
	demo_repo_start "$1" micro.cc Makefile benchfarm.yaml README.md
	demo_repo_commit "$1"
}

# tiny_repo DIR YAML: the repository of the local compare tests, one
# commit on main: b.sh prints "x 10 ns" and bf.yaml runs it as benchmark
# b (format lines), then has the lines YAML (runs:, checks:).
tiny_repo() {
	mkdir -p "$1"
	t_git -C "$1" init -q -b main
	printf 'echo "x 10 ns"\n' >"$1/b.sh"
	cat >"$1/bf.yaml" <<X
version: 1
project: {repo: .}
benchmarks:
  - {name: b, command: [sh, b.sh], format: lines}
$2
X
	t_git -C "$1" add -A
	t_git -C "$1" commit -q -m one
}

# step_repo DIR N K: a repository of N commits on main ("commit 1" ..
# "commit N") whose benchmark b (format lines, 5 repeats: 3 a side
# cannot reach p < 0.01; no warmup)
# reports series x as 100 ns up to commit K-1 and 150 ns from commit K
# on, each run the same five values around it (median +2): the same
# verdicts, culprits and stored values every time, on any store. Its
# postsubmit detector is Perfherder over 3 + 3 points.
step_repo() {
	mkdir -p "$1"
	t_git -C "$1" init -q -b main
	cat >"$1/b.sh" <<'X'
l=$(cat level)
for d in 0 3 1 4 2; do echo "x $((l + d)) ns"; done
X
	cat >"$1/bf.yaml" <<'X'
version: 1
project: {repo: ., target_branch: main}
benchmarks:
  - {name: b, command: [sh, b.sh], format: lines}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks, cores]}
runs: {repeats: 5, warmup: 0}
postsubmit: {detector: {name: perfherder, width: 3}}
X
	echo 100 >"$1/level"
	_i=1
	while [ $_i -le "$2" ]; do
		[ $_i = "$3" ] && echo 150 >"$1/level"
		echo "commit $_i" >>"$1/README"
		t_git -C "$1" add -A
		t_git -C "$1" commit -q -m "commit $_i"
		_i=$((_i + 1))
	done
}

# pool_repo DIR: the repository of the tests of one run on a device of
# pool lab, one commit "base" on main: bench.sh, its text read from
# stdin, is the artifact and benchmark micro (format lines), 2 repeats
# without warmup, with the checks a shared machine fails suppressed and
# a presubmit that never fails.
pool_repo() {
	mkdir -p "$1"
	t_git -C "$1" init -q -b main
	cat >"$1/bench.sh"
	cat >"$1/bf.yaml" <<'X'
version: 1
project: {repo: ., target_branch: main, build: [true], artifacts: [bench.sh]}
benchmarks:
  - {name: micro, command: [sh, bench.sh], format: lines}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks, cores]}
runs: {repeats: 2, warmup: 0}
devices: {pool: lab}
presubmit: {fail_on: never}
X
	t_git -C "$1" add -A
	t_git -C "$1" commit -q -m base
}

# blocking_pool_repo DIR: pool_repo DIR with a benchmark that, once
# after each `touch $T/block`, says so through the FIFO $T/started and
# then waits on the FIFO $T/go (both made here), so that a test catches
# a compare while it runs and holds its lease. Each run of it, warmups
# too, first adds a line to $T/calls, so a test can count them.
blocking_pool_repo() {
	mkfifo "$T/started" "$T/go"
	pool_repo "$1" <<X
echo run >>"$T/calls"
if [ -e "$T/block" ]; then
	rm -f "$T/block"
	echo started >"$T/started"
	read x <"$T/go"
fi
echo "b 1 ns"
X
}

# store_is_pg: whether the store ($BENCHFARM_DB) is a PostgreSQL
# location (a postgres:// or postgresql:// URI, or a libpq key=value
# string) rather than a SQLite file.
store_is_pg() {
	case $BENCHFARM_DB in
	postgres://* | postgresql://* | *=*) return 0 ;;
	esac
	return 1
}

# db SQL: SQL's output on the store, SQLite's (sqlite3) or PostgreSQL's
# (psql, unaligned, no headers; the result of SQL's last statement). A
# result that is a lone PostgreSQL boolean prints as SQLite prints one
# (1 or 0), so one query gives one text on both; an SQL that fails
# prints nothing on standard output.
db() {
	if store_is_pg; then
		psql "$BENCHFARM_DB" -qAtX -v ON_ERROR_STOP=1 -c "$1" |
			sed 's/^t$/1/; s/^f$/0/'
	else
		sqlite3 "$BENCHFARM_DB" "$1"
	fi
}

# db_hold DEVICE: another host's session on the store (psql, or sqlite3
# on a SQLite store) holds DEVICE's row locked inside a transaction
# (PostgreSQL: SELECT ... FOR UPDATE; SQLite: a write, which takes the
# whole database's write lock) and keeps it until db_let_go, as a host
# stopped in the middle of a lease operation would. Returns once the
# lock is held (the session says so). HOLD_PID is the session's process.
db_hold() {
	rm -f "$T/hold.in" "$T/hold.out"
	mkfifo "$T/hold.in" "$T/hold.out"
	if store_is_pg; then
		psql "$BENCHFARM_DB" -qAtX -v ON_ERROR_STOP=1 \
			<"$T/hold.in" >"$T/hold.out" 2>"$T/hold.err" &
		_lock="BEGIN; SELECT 'held' FROM devices WHERE name = '$1' FOR UPDATE;"
	else
		sqlite3 "$BENCHFARM_DB" <"$T/hold.in" >"$T/hold.out" \
			2>"$T/hold.err" &
		_lock="BEGIN IMMEDIATE; UPDATE devices SET name = name WHERE name = '$1'; SELECT 'held';"
	fi
	HOLD_PID=$!
	exec 7>"$T/hold.in" 8<"$T/hold.out"
	echo "$_lock" >&7
	if timeout 60 sh -c 'read x <&8 && [ "$x" = held ]'; then
		t_ok "another session holds device $1's row locked"
	else
		t_fail "lock device $1's row: $(cat "$T/hold.err")"
	fi
}

# db_let_go: the session of db_hold commits and ends.
db_let_go() {
	echo "COMMIT;" >&7
	exec 7>&- 8<&-
	wait "$HOLD_PID"
	HOLD_PID=
}

# sql_now: the SQL for the store's clock now, in whole seconds since
# the epoch, as the store compares leases' expiry with it.
sql_now() {
	if store_is_pg; then
		echo "cast(extract(epoch from now()) as bigint)"
	else
		echo "cast(strftime('%s', 'now') as integer)"
	fi
}

# pg_fresh_db NAME: a new, empty database bf_NAME_PID on the server of
# $BENCHFARM_TEST_PG becomes the store (BENCHFARM_DB, exported), so
# tests never see each other's data; t_cleanup drops it. Fails (1,
# with a "not ok" check) when the server refuses.
pg_fresh_db() {
	_db="bf_$1_$$"
	if ! psql "$BENCHFARM_TEST_PG" -qX -v ON_ERROR_STOP=1 \
		-c "CREATE DATABASE $_db" >/dev/null 2>"$ERR"; then
		t_fail "create the database $_db on $BENCHFARM_TEST_PG"
		return 1
	fi
	T_PG_DBS="$T_PG_DBS $_db"
	export BENCHFARM_DB="$BENCHFARM_TEST_PG dbname=$_db"
}

# have_pg: whether a PostgreSQL server is there for the tests
# ($BENCHFARM_TEST_PG, as ci/run-tests.sh sets it) and psql to reach it.
have_pg() {
	[ -n "${BENCHFARM_TEST_PG:-}" ] && command -v psql >/dev/null 2>&1
}

# each_store NAME FN: the checks of FN on each store backend: first on
# a SQLite file (the default store, $T/benchfarm.db), then, when
# have_pg, again on a fresh PostgreSQL database (pg_fresh_db NAME) with
# every check's text starting "[postgresql] "; without a server, one
# "ok N # skip" says the second pass did not run. STORE is sqlite or
# postgresql while FN runs; SQL that FN gives db, poll and sql_check
# must be what both accept.
each_store() {
	STORE=sqlite
	"$2"
	if ! have_pg; then
		t_n=$((t_n + 1))
		echo "ok $t_n # skip the PostgreSQL pass: no server (BENCHFARM_TEST_PG unset) or no psql"
		return 0
	fi
	pg_fresh_db "$1" || return 1
	STORE=postgresql
	T_PASS="[postgresql] "
	"$2"
	T_PASS=
}

# alive_again "what" ID: poll until run ID, still running, has said it
# is alive again: its alive_at has moved past the value it has now (its
# job's heartbeat beat).
alive_again() {
	_first=$(db "select alive_at from runs where id = ${2:-0}")
	poll "$1" "select count(*) = 1 from runs where id = ${2:-0}
		 and status = 'running' and alive_at > ${_first:-0}"
}

# poll "what" SQL: wait (at most 60 s, looking every 0.1 s) until SQL on
# the store prints 1: the state a test waits for, not a guessed delay.
poll() {
	_i=0
	while [ "$(db "$2")" != 1 ]; do
		_i=$((_i + 1))
		if [ $_i -gt 600 ]; then
			t_fail "$1 (never came)"
			return 1
		fi
		sleep 0.1
	done
	t_ok "$1"
}

# jq_check "what" FILTER FILE: passes when jq -e FILTER FILE is true. An
# empty or missing file fails (jq -e with no input exits 0).
jq_check() {
	if [ -s "$3" ] && jq -e "$2" "$3" >/dev/null 2>&1; then
		t_ok "$1"
	else
		echo "#   jq -e '$2' is not true for $3"
		[ -s "$3" ] && jq -c . "$3" 2>/dev/null | cut -c1-400 | head -12 |
			sed 's/^/#   file: /'
		t_fail "$1"
	fi
}

# jq_slurp_check "what" FILTER FILE: like jq_check over a file of JSON
# lines read as one array (jq -s).
jq_slurp_check() {
	if [ -s "$3" ] && jq -e -s "$2" "$3" >/dev/null 2>&1; then
		t_ok "$1"
	else
		echo "#   jq -e -s '$2' is not true for $3"
		t_fail "$1"
	fi
}

# sql_check "what" WANT QUERY: passes when QUERY on the store
# ($BENCHFARM_DB, SQLite or PostgreSQL: db) prints exactly WANT.
sql_check() {
	_got=$(db "$3")
	if [ "$_got" = "$2" ]; then
		t_ok "$1"
	else
		echo "#   '$3' gave '$_got', not '$2'"
		t_fail "$1"
	fi
}
