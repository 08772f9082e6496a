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

# git with a fixed identity, quiet.
# need_sshd: skip the whole script (one "ok 1 # skip") without OpenSSH's
# sshd, which the device tests start on 127.0.0.1 (ci/sshd.sh).
need_sshd() {
	command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || {
		echo "ok 1 # skip no sshd"
		exit 0
	}
}

t_git() {
	git -c user.name=benchfarm-test -c user.email=test@benchfarm.invalid \
		-c init.defaultBranch=main "$@" >/dev/null
}

# make_demo_repo DIR: the make-demo project, baseline on main and the
# 20% slower patch on branch "patch".
make_demo_repo() {
	mkdir -p "$1"
	t_git -C "$1" init -q -b main
	for f in micro.cc Makefile benchfarm.yaml README.md; do
		cp "$BF_SRC/configs/examples/demo/$f" "$1/$f"
	done
	cp "$BF_SRC/configs/examples/demo/tuning_base.h" "$1/tuning.h"
	printf 'out/\n' >"$1/.gitignore"
	t_git -C "$1" add -A
	t_git -C "$1" commit -q -m baseline
	t_git -C "$1" checkout -q -b patch
	cp "$BF_SRC/configs/examples/demo/tuning_patch.h" "$1/tuning.h"
	t_git -C "$1" commit -q -am "slower checksum"
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
