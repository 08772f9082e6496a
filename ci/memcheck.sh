#!/bin/sh
# make memcheck: every cmocka unit test binary under valgrind's memcheck.
# A binary passes when its tests pass and valgrind finds no memory error
# and no definite or indirect leak ("still reachable" memory, such as
# libgit2's and OpenSSL's process-wide caches, is not a leak). Ends with
# the line "N passed, N failed", one count per binary.
# Usage: ci/memcheck.sh BINARY...
set -u
cd "$(dirname "$0")/.."
if ! command -v valgrind >/dev/null 2>&1; then
	echo "memcheck: valgrind not found; run ci/deps.sh" >&2
	exit 2
fi
passed=0
failed=0
for t in "$@"; do
	log=$(mktemp)
	# --child-silent-after-fork: the tests' forked children exit
	# without cleaning up, on purpose; only the test process is judged.
	valgrind --tool=memcheck --leak-check=full \
		--errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
		--child-silent-after-fork=yes --log-file="$log" \
		"$t" >"$log.out" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		echo "ok:   $t"
	else
		failed=$((failed + 1))
		echo "FAIL: $t (exit $rc; 99 is valgrind's)"
		grep -E 'definitely lost|indirectly lost|Invalid|uninitialised|FAILED|ERROR SUMMARY' \
			"$log" "$log.out" | head -20
	fi
	rm -f "$log" "$log.out"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
