#!/bin/sh
# libbenchfarm_bench end to end: programs built against the library
# (tests/fixtures/harness/), their flags, Jetpack JSON that the agent's
# jetpack parser reads unchanged, pause/resume, and benchmarks that
# crash, never return or run past the time cap.
. "$(dirname "$0")/lib.sh"

need_cc
FX="$BF_SRC/tests/fixtures/harness"
INC="-I$BF_SRC/agent/harness/include"
LIBS="$BF_BUILD_ABS/libbenchfarm_bench_main.a $BF_BUILD_ABS/libbenchfarm_bench.a -lpthread -lm"
# shellcheck disable=SC2086
cc -O2 $INC -o "$T/benches" "$FX/benches.c" $LIBS 2>"$ERR" &&
	t_ok "a program without main builds against the library" ||
	{ t_fail "build"; exit 0; }
# shellcheck disable=SC2086
cc -O2 $INC -DBENCH_BAD -o "$T/bad" "$FX/benches.c" $LIBS
# shellcheck disable=SC2086
cc -O2 $INC -o "$T/own" "$FX/own_main.c" $LIBS

expect_exit 0 "--list" "$T/benches" --list
printf 'add\nfill/64\nfill/4096\npaused_setup\n' >"$T/want"
cmp -s "$OUT" "$T/want" && t_ok "--list names every benchmark, arguments expanded" ||
	t_fail "--list: $(tr '\n' ' ' <"$OUT")"
expect_exit 0 "--help" "$T/benches" --help
grep_file "the help names --time-cap" "--time-cap SECONDS" "$OUT"

expect_exit 0 "--dry-run --out" "$T/benches" --dry-run --out "$T/dry.json"
jq_check "Jetpack's schema: context and four benchmarks of one run each" \
	'(.context | has("cpuCoreCount") and has("cpuLocked") and has("cpuMaxFreqHz") and has("memTotalBytes") and has("sustainedPerformanceModeEnabled")) and (.benchmarks | length) == 4 and all(.benchmarks[]; (.metrics.timeNs.runs | length) == 1 and .className == "benches" and .warmupIterations == 0 and .repeatIterations == 1 and .thermalThrottleSleepSeconds == 0 and (.totalRunTimeNs > 0))' \
	"$T/dry.json"
jq_check "parameters as Jetpack writes them" \
	'[.benchmarks[] | select(.name == "fill/4096")][0].params == {"arg": "4096"}' \
	"$T/dry.json"
# Every field AndroidX's own reader (BenchmarkData.kt, as the schema in
# tests/fixtures/jetpack transcribes it) requires, with its type: the
# schema accepts the reference's newest example and refuses the older
# shapes that lack the newer context fields, so it can fail.
JSCHEMA="$BF_SRC/tests/fixtures/jetpack/benchmarkdata.schema.json"
# valid FILE: python's jsonschema validates FILE against JSCHEMA.
valid() {
	python3 -c 'import json, sys, jsonschema
v = jsonschema.Draft7Validator(json.load(open(sys.argv[1])))
errs = sorted(v.iter_errors(json.load(open(sys.argv[2]))), key=str)
for e in errs[:5]:
    print("#   " + "/".join(map(str, e.absolute_path)) + ": " + e.message)
sys.exit(1 if errs else 0)' "$JSCHEMA" "$1"
}
if python3 -c 'import jsonschema' 2>/dev/null; then
	valid "$T/dry.json" &&
		t_ok "AndroidX's BenchmarkData reads it: every required field, typed" ||
		t_fail "the --out file lacks what BenchmarkData requires"
	jq_check "unknowns as Jetpack writes them" \
		'.context.artMainlineVersion == -1 and .context.compilationMode == "unknown" and (.context.build | .brand == "unknown" and .id == "unknown" and .type == "unknown" and .version == {"codename": "unknown", "sdk": -1}) and .context.osCodenameAbbreviated == "u"' \
		"$T/dry.json"
	valid "$BF_SRC/tests/fixtures/jetpack/g5_example.json" >/dev/null &&
		t_ok "the schema accepts Jetpack's newest example" ||
		t_fail "the schema refuses Jetpack's newest example"
	valid "$BF_SRC/tests/fixtures/jetpack/g3_example.json" >/dev/null &&
		t_fail "the schema accepts a file without artMainlineVersion" ||
		t_ok "the schema refuses a file without artMainlineVersion"
else
	echo "ok 999 # skip no python3 jsonschema"
fi
expect_exit 0 "the agent's jetpack parser reads it unchanged" "$BFA" parse \
	--format jetpack "$T/dry.json"
jq_check "as four benchmarks named class.name" \
	'[.samples[].benchmark] | sort == ["benches.add", "benches.fill/4096", "benches.fill/64", "benches.paused_setup"]' \
	"$OUT"

# A short real run: warmup, loop sizing and repeats.
expect_exit 0 "a measured run" "$T/benches" --filter '^add$' --repeats 7 \
	--target-ms 2 --no-throttle --out "$T/add.json"
jq_check "7 measurements after a warmup of at least 30 iterations" \
	'.benchmarks[0] | (.metrics.timeNs.runs | length) == 7 and .warmupIterations >= 30 and .repeatIterations >= 1 and .metrics.timeNs.minimum <= .metrics.timeNs.median and .metrics.timeNs.median <= .metrics.timeNs.maximum' \
	"$T/add.json"
grep_file "the table has the benchmark" "^add  *[0-9.]* " "$OUT"

# pause/resume: the 2 ms of set-up per iteration are not in the time.
expect_exit 0 "pause and resume" "$T/benches" --filter paused --repeats 3 \
	--target-ms 1 --no-throttle --out "$T/p.json"
jq_check "the paused 2 ms are not counted (median under 1 ms)" \
	'.benchmarks[0].metrics.timeNs.median < 1000000' "$T/p.json"

expect_exit 2 "a filter that matches nothing" "$T/benches" --filter nothing
grep_file "says so" "no benchmark matches 'nothing' (--list shows them)" "$ERR"
expect_exit 2 "a filter that is not a regex" "$T/benches" --filter '('
grep_file "names it" "--filter '(':" "$ERR"
expect_exit 2 "an unknown flag" "$T/benches" --frobnicate
grep_file "names it" "unknown option '--frobnicate'" "$ERR"
expect_exit 2 "--repeats 0" "$T/benches" --repeats 0
expect_exit 2 "--repeats without a value" "$T/benches" --repeats

expect_exit 0 "a program with its own main" "$T/own" --dry-run
grep_file "its main ran" "^own main$" "$ERR"
grep_file "and the benchmark" "^mine " "$OUT"

# Misbehaving benchmarks.
"$T/bad" --filter crash --dry-run >"$OUT" 2>"$ERR"
rc=$?
[ $rc -gt 128 ] && t_ok "an aborting benchmark kills the program (status $rc)" ||
	t_fail "abort: exit $rc"
grep_file "and is named" "benchmark 'crash' crashed (signal 6)" "$ERR"
grep_file "after the table's header, which was not lost" "^benchmark  *median ns" \
	"$OUT"
"$T/bad" --filter overflow --dry-run >"$OUT" 2>"$ERR"
rc=$?
[ $rc -gt 128 ] && t_ok "a benchmark that overflows its stack dies (status $rc)" ||
	t_fail "overflow: exit $rc"
grep_file "and is named, from the handler's own stack" \
	"benchmark 'overflow' crashed (signal 11)" "$ERR"
expect_exit 1 "a benchmark past the time cap" "$T/bad" --filter '^slow$' \
	--time-cap 0.3 --no-throttle --out "$T/slow.json"
grep_file "is stopped and reported" "benchmark 'slow': stopped at the time cap of 0.3 s" "$ERR"
jq_check "in the JSON's failures, not its benchmarks" \
	'(.benchmarks | length) == 0 and .failures[0].name == "slow" and (.failures[0].error | test("time cap"))' \
	"$T/slow.json"
expect_exit 3 "a benchmark that never returns" "$T/bad" \
	--filter '^(add|forever)$' --time-cap 0.2 --dry-run --out "$T/forever.json"
grep_file "is killed by the watchdog, named" \
	"benchmark 'forever' exceeded the time cap of 0.2 s and did not return" "$ERR"
jq_check "--out keeps the results before it and names it in failures" \
	'([.benchmarks[].name] == ["add"]) and .failures[0].name == "forever" and .failures[0].timedOut and (.failures[0].error | test("never returned"))' \
	"$T/forever.json"
expect_exit 1 "a benchmark that gives up early" "$T/bad" --filter gives_up \
	--dry-run --repeats 3
expect_exit 1 "a benchmark that gives up early, measured" "$T/bad" \
	--filter gives_up --repeats 3 --target-ms 1 --no-throttle
grep_file "says what happened" "returned before bf_bench_keep_running said stop (0 of 3 measurements)" "$ERR"

# The example project (BF_DEMO=harness make demo runs it end to end).
expect_exit 0 "the harness example's config is valid" "$BF" config check \
	-c "$BF_SRC/configs/examples/harness-demo/benchfarm.yaml"
mkdir -p "$T/ex"
cp "$BF_SRC/configs/examples/harness-demo/micro.c" \
	"$BF_SRC/configs/examples/harness-demo/Makefile" "$T/ex/"
cp "$BF_SRC/configs/examples/harness-demo/tuning_base.h" "$T/ex/tuning.h"
PKG_CONFIG_PATH="$BF_BUILD_ABS/pkgconfig-uninstalled" expect_exit 0 \
	"it builds with pkg-config benchfarm-bench" make -s -C "$T/ex"
expect_exit 0 "and lists its three workloads" "$T/ex/out/micro" --list
printf 'checksum\nsort\nsum\n' >"$T/want"
cmp -s "$OUT" "$T/want" && t_ok "checksum, sort and sum" || t_fail "the example's list"

# Several arguments per run, built through the build tree's pkg-config
# file; a name registered twice is refused before anything runs.
cat >"$T/pairs.c" <<'X'
#include <benchfarm/bench.h>

BF_BENCHMARK_ARGS_N(pairs, 2, 64, 1, 64, 8)
{
	long long n = bf_bench_arg(state, 0) * bf_bench_arg(state, 1);

	while (bf_bench_keep_running(state))
		bf_bench_do_not_optimize(&n);
}
#ifdef TWICE
BF_BENCHMARK(pairs_twice) { while (bf_bench_keep_running(state)) {} }
#endif
X
printf '#include <benchfarm/bench.h>\nBF_BENCHMARK(pairs_twice) { while (bf_bench_keep_running(state)) {} }\n' >"$T/twice.c"
PC="env PKG_CONFIG_PATH=$BF_BUILD_ABS/pkgconfig-uninstalled pkg-config"
# shellcheck disable=SC2046
cc -O2 -Wall -Wextra -Werror -pedantic -std=c11 $($PC --cflags benchfarm-bench) \
	-o "$T/pairs" "$T/pairs.c" $($PC --libs benchfarm-bench) 2>"$ERR" &&
	t_ok "pkg-config benchfarm-bench builds a program under -std=c11 -pedantic -Werror" ||
	t_fail "build with pkg-config"
expect_exit 0 "--list with two arguments per run" "$T/pairs" --list
printf 'pairs/64/1\npairs/64/8\n' >"$T/want"
cmp -s "$OUT" "$T/want" && t_ok "named NAME/ARG0/ARG1" || t_fail "pairs list: $(tr '\n' ' ' <"$OUT")"
expect_exit 0 "--filter=REGEX --dry-run --sustained" "$T/pairs" \
	--filter='/8$' --dry-run --sustained --out "$T/pairs.json"
jq_check "params arg0 and arg1; the spin thread in the context" \
	'(.benchmarks | length) == 1 and .benchmarks[0].params == {"arg0": "64", "arg1": "8"} and .context.sustainedPerformanceModeEnabled == true and (.context.threadPriorityRaised | type) == "boolean" and (.context.cpuLocked | type) == "boolean"' \
	"$T/pairs.json"
# shellcheck disable=SC2046
cc -O2 -DTWICE $($PC --cflags benchfarm-bench) -o "$T/twice" "$T/pairs.c" \
	"$T/twice.c" $($PC --libs benchfarm-bench)
expect_exit 2 "a name registered twice" "$T/twice" --list
grep_file "is named" "benchmark 'pairs_twice': defined twice" "$ERR"

# A hostile program name becomes the className: still valid JSON.
cp "$T/pairs" "$T/we\"ird\\name"
expect_exit 0 "a program named with a quote and a backslash" \
	"$T/we\"ird\\name" --dry-run --out "$T/weird.json"
expect_exit 0 "writes JSON the agent reads" "$BFA" parse --format jetpack \
	"$T/weird.json"
jq_check "with the name intact" \
	'[.samples[].benchmark] | sort == ["we\"ird\\name.pairs/64/1", "we\"ird\\name.pairs/64/8"]' \
	"$OUT"

# The file is rewritten after each benchmark, as Jetpack does: a crash
# in the second keeps the first one's results.
"$T/bad" --filter '^(add|crash)$' --dry-run --out "$T/partial.json" \
	>/dev/null 2>&1
jq_check "a crash keeps the results before it" \
	'[.benchmarks[].name] == ["add"]' "$T/partial.json"

# C++ programs include the same header.
if command -v c++ >/dev/null 2>&1; then
	cat >"$T/cxx.cc" <<'X'
#include <benchfarm/bench.h>
#include <vector>

BF_BENCHMARK_ARGS(vec, 16, 256)
{
	std::vector<int> v(static_cast<std::vector<int>::size_type>(
	        bf_bench_arg(state)));

	while (bf_bench_keep_running(state)) {
		v.push_back(1);
		v.pop_back();
		bf_bench_clobber_memory();
	}
}
X
	# shellcheck disable=SC2046
	if c++ -O2 -Wall -Wextra -Werror $($PC --cflags benchfarm-bench) \
		-o "$T/cxx" "$T/cxx.cc" $($PC --libs benchfarm-bench) 2>"$ERR"; then
		t_ok "a C++ program builds against the header"
		expect_exit 0 "and runs" "$T/cxx" --dry-run
		grep_file "its benchmark" "^vec/256 " "$OUT"
	else
		t_fail "C++ build"
	fi
fi

# BF_BENCH_LOOP keeps the count in a local (C11 -pedantic and C++): it
# measures like bf_bench_keep_running, and leaving it with break is
# reported, not measured.
cat >"$T/loop.c" <<'X'
#include <benchfarm/bench.h>

BF_BENCHMARK(loop)
{
	unsigned x = 1;

	BF_BENCH_LOOP(state)
	{
		x = x * 3u + 1u;
		bf_bench_do_not_optimize(&x);
	}
}

BF_BENCHMARK(loop_break)
{
	BF_BENCH_LOOP(state)
	{
		break;
	}
}
X
cp "$T/loop.c" "$T/loop.cc"
for lang in "cc -std=c11 -pedantic $T/loop.c" "c++ $T/loop.cc"; do
	# shellcheck disable=SC2046,SC2086
	if $lang -O2 -Wall -Wextra -Werror $($PC --cflags benchfarm-bench) \
		-o "$T/loop" $($PC --libs benchfarm-bench) 2>"$ERR"; then
		t_ok "BF_BENCH_LOOP builds: ${lang%% *}"
	else
		t_fail "BF_BENCH_LOOP build: ${lang%% *}: $(cat "$ERR")"
		continue
	fi
	expect_exit 0 "measures (${lang%% *})" "$T/loop" --filter '^loop$' \
		--target-ms 1 --repeats 5 --out "$T/loop.json"
	jq_check "five measurements, sized loops" \
		'.benchmarks[0].name == "loop" and (.benchmarks[0].metrics.timeNs.runs | length) == 5 and .benchmarks[0].repeatIterations > 1' \
		"$T/loop.json"
	expect_exit 1 "break out of it fails the benchmark" "$T/loop" \
		--filter '^loop_break$' --dry-run
	grep_file "saying why" "left BF_BENCH_LOOP with break or goto" "$ERR"
done
