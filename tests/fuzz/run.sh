#!/bin/sh
# tests/fuzz/run.sh SECONDS TARGET...: runs each libFuzzer target for
# SECONDS from its seeds (tests/fuzz/seeds/TARGET and the fixtures named
# in tests/fuzz/seeds/TARGET.dirs), keeping new inputs in
# build/fuzz/corpus/TARGET, after replaying the crashers kept in
# tests/fuzz/regress/TARGET. Prints "ok TARGET: N runs" or the crash.
set -u
cd "$(dirname "$0")/../.."
SRC=$(pwd)
export BF_SRC="$SRC"
B=${BF_FUZZ_BUILD:-build/fuzz}
secs=$1
shift
status=0
for t in "$@"; do
	bin="$B/tests/fuzz/fuzz_$t"
	corpus="$B/corpus/$t"
	mkdir -p "$corpus"
	seeds=
	[ -d "tests/fuzz/seeds/$t" ] && seeds="tests/fuzz/seeds/$t"
	if [ -f "tests/fuzz/seeds/$t.dirs" ]; then
		for d in $(cat "tests/fuzz/seeds/$t.dirs"); do
			[ -d "$d" ] && seeds="$seeds $d"
		done
	fi
	if [ -d "tests/fuzz/regress/$t" ] &&
		[ -n "$(ls "tests/fuzz/regress/$t")" ]; then
		if "$bin" "tests/fuzz/regress/$t"/* >"$B/regress-$t.log" 2>&1; then
			echo "ok $t: the kept crashers pass ($(ls "tests/fuzz/regress/$t" | wc -l))"
		else
			tail -30 "$B/regress-$t.log"
			echo "not ok $t: a kept crasher fails again"
			status=1
		fi
	fi
	# shellcheck disable=SC2086
	if "$bin" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
		-artifact_prefix="$B/crash-$t-" -print_final_stats=1 \
		"$corpus" $seeds >"$B/fuzz-$t.log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/fuzz-$t.log")
		echo "ok $t: ${runs:-?} runs in ${secs} s without a crash"
	else
		grep -E 'ERROR|SUMMARY|Test unit written|runtime error' "$B/fuzz-$t.log" | head -20
		echo "not ok $t: crashed (the input is under $B/crash-$t-*)"
		status=1
	fi
done
exit $status
