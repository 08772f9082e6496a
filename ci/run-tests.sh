#!/bin/sh
# The test runner: every cmocka binary given as an argument, then every
# tests/e2e/t*.sh script, each e2e script's line with the seconds it
# took. Ends with the line "N passed, N failed".
# Environment: BF_BUILD (build dir with the programs), BF_E2E_FILTER
# (glob of e2e scripts to run, default t*.sh).
set -u
cd "$(dirname "$0")/.."
: "${BF_BUILD:=build/default}"
export BF_BUILD
BF_BUILD_ABS=$(cd "$BF_BUILD" && pwd)
export BF_BUILD_ABS
passed=0
failed=0
failures=

# One PostgreSQL server for the whole run (ci/pg.sh), its connection
# string in BENCHFARM_TEST_PG for the tests of the store's PostgreSQL
# backend. make check installs postgresql-15 (ci/deps.sh): without its
# binaries the run fails, rather than pass with those tests skipped.
pg_dir=
if [ -z "${BENCHFARM_TEST_PG:-}" ] && [ ! -x /usr/lib/postgresql/15/bin/initdb ]; then
	echo "FAIL: no PostgreSQL 15 server to test the store on: install postgresql-15 (ci/deps.sh does)"
	failed=$((failed + 1))
	failures=" postgresql-15"
elif [ -z "${BENCHFARM_TEST_PG:-}" ]; then
	pg_dir=$(mktemp -d "${TMPDIR:-/tmp}/bf-pg.XXXXXX")
	if BENCHFARM_TEST_PG=$(ci/pg.sh start "$pg_dir"); then
		export BENCHFARM_TEST_PG
	else
		echo "FAIL: ci/pg.sh could not start PostgreSQL"
		failed=$((failed + 1))
		failures=" ci/pg.sh"
		unset BENCHFARM_TEST_PG
	fi
	trap 'ci/pg.sh stop "$pg_dir" >/dev/null 2>&1; rm -rf "$pg_dir"' EXIT
	trap 'exit 130' INT TERM HUP
fi

for t in "$@"; do
	out=$("$t" 2>&1)
	rc=$?
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	p=${p:-0}
	f=${f:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1 # crashed before cmocka could count
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$f" -ne 0 ]; then
		printf '%s\n' "$out" | grep -E 'FAIL|ERROR|error|Assert|Sanitizer|runtime error' | head -40
		failures="$failures $t"
		echo "FAIL: $t ($p passed, $f failed)"
	else
		echo "ok:   $t ($p passed)"
	fi
done

for s in tests/e2e/${BF_E2E_FILTER:-t*.sh}; do
	[ -f "$s" ] || continue
	log=$(mktemp)
	t0=$(date +%s)
	sh "$s" >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "not ok - $s exited $rc" >>"$log"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$f" -ne 0 ]; then
		tail -40 "$log"
		# The failed checks last, with their diagnostics, so that an
		# excerpt of the end of the output still names them.
		echo "the failed checks of $s:"
		grep -B2 -A12 '^not ok ' "$log" | head -80
		failures="$failures $s"
		echo "FAIL: $s ($p passed, $f failed, ${secs}s)"
	else
		echo "ok:   $s ($p passed, ${secs}s)"
	fi
	rm -f "$log"
done

[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
