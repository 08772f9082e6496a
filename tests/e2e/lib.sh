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
trap 'rm -rf "$T"' EXIT
OUT="$T/stdout"
ERR="$T/stderr"
t_n=0

t_ok() {
	t_n=$((t_n + 1))
	echo "ok $t_n - $1"
}

t_fail() {
	t_n=$((t_n + 1))
	echo "not ok $t_n - $1"
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

# t_atexit: what a script does before the devices are stopped and $T is
# removed, however it ends (sshd_setup's EXIT trap); nothing unless the
# script defines its own after sourcing this file.
t_atexit() {
	:
}

# sshd_setup: the set-up of a test on real OpenSSH sshd "devices" on
# 127.0.0.1 (ci/sshd.sh). Skips the script without sshd; sets SSHD_SH
# (ci/sshd.sh), S (the devices' directory, $T/sshd), KEY (the client
# key, mode 600, in every device's authorized_keys), ME (this user) and
# exports BENCHFARM_KNOWN_HOSTS ($T/known_hosts). However the script
# ends (a signal exits through EXIT), t_atexit runs, every device
# sshd_start started is stopped and $T is removed.
sshd_setup() {
	need_sshd
	SSHD_SH="$BF_SRC/ci/sshd.sh"
	S="$T/sshd"
	SSHD_STARTED=
	mkdir -p "$S"
	trap 't_atexit; for _d in $SSHD_STARTED; do "$SSHD_SH" stop "$S" "$_d"; done; rm -rf "$T"' EXIT
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
# a compare while it runs and holds its lease.
blocking_pool_repo() {
	mkfifo "$T/started" "$T/go"
	pool_repo "$1" <<X
if [ -e "$T/block" ]; then
	rm -f "$T/block"
	echo started >"$T/started"
	read x <"$T/go"
fi
echo "b 1 ns"
X
}

# db SQL: SQL's output on the store: sqlite3 on an SQLite file, psql
# (one unaligned line per row) on a PostgreSQL location.
db() {
	case $BENCHFARM_DB in
	postgres://* | postgresql://* | *=*) psql "$BENCHFARM_DB" -Atc "$1" ;;
	*) sqlite3 "$BENCHFARM_DB" "$1" ;;
	esac
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

# sql_check "what" WANT QUERY: passes when sqlite3 prints exactly WANT
# for QUERY on the store ($BENCHFARM_DB).
sql_check() {
	_got=$(sqlite3 "$BENCHFARM_DB" "$3")
	if [ "$_got" = "$2" ]; then
		t_ok "$1"
	else
		echo "#   '$3' gave '$_got', not '$2'"
		t_fail "$1"
	fi
}
