#!/bin/sh
# make install puts both programs in PREFIX/bin; compare shows a progress
# line on stderr only when stderr is a terminal (script(1) gives it one).
. "$(dirname "$0")/lib.sh"

expect_exit 0 "make install" make -s -C "$BF_SRC" BUILD_DIR="$BF_BUILD_ABS" \
	install PREFIX="$T/prefix"
expect_exit 0 "installed benchfarm runs" "$T/prefix/bin/benchfarm" --version
expect_exit 0 "installed agent runs" "$T/prefix/bin/benchfarm-agent" --version
for f in lib/libbenchfarm_trace.a lib/libbenchfarm_trace.so \
	lib/pkgconfig/benchfarm-trace.pc include/benchfarm/trace.h \
	lib/libbenchfarm_bench.a lib/libbenchfarm_bench.so \
	lib/libbenchfarm_bench_main.a lib/pkgconfig/benchfarm-bench.pc \
	include/benchfarm/bench.h; do
	[ -f "$T/prefix/$f" ] && t_ok "installed $f" || t_fail "no $f"
done
grep_file "the tracer's pkg-config names the install prefix" \
	"^prefix=$T/prefix$" "$T/prefix/lib/pkgconfig/benchfarm-trace.pc"
if command -v cc >/dev/null 2>&1 && command -v pkg-config >/dev/null 2>&1; then
	flags=$(PKG_CONFIG_PATH="$T/prefix/lib/pkgconfig" pkg-config \
		--cflags --libs --static benchfarm-trace)
	# shellcheck disable=SC2086
	cc -O1 -o "$T/ct" "$BF_SRC/tests/fixtures/trace/calltree.c" $flags \
		-Wl,-rpath,"$T/prefix/lib" -pthread 2>"$ERR" &&
		t_ok "a program builds with pkg-config benchfarm-trace" ||
		t_fail "build with pkg-config benchfarm-trace"
	BENCHFARM_TRACE="$T/ct.trace" "$T/ct" 2 1 >/dev/null
	expect_exit 0 "and its trace reads" "$T/prefix/bin/benchfarm" trace \
		fold --calls "$T/ct.trace"
	grep_file "with its stacks" "^thread-1;main;run;leaf 2$" "$OUT"
	flags=$(PKG_CONFIG_PATH="$T/prefix/lib/pkgconfig" pkg-config \
		--cflags --libs benchfarm-bench)
	# shellcheck disable=SC2086
	cc -O1 -o "$T/hb" "$BF_SRC/tests/fixtures/harness/benches.c" $flags \
		2>"$ERR" && t_ok "a benchmark builds with pkg-config benchfarm-bench" ||
		t_fail "build with pkg-config benchfarm-bench"
	expect_exit 0 "and runs from the installed shared library" "$T/hb" --list
	grep_file "with its benchmarks" "^fill/4096$" "$OUT"
fi

R="$T/repo"
tiny_repo "$R" "runs: {repeats: 2, warmup: 0}
checks: {battery_min: 0, suppress: [load, throttle]}"

expect_exit 0 "compare without a terminal" \
	"$BF" compare -c "$R/bf.yaml" --base HEAD --patch HEAD
if grep -q '\[[0-9]*/[0-9]*\]' "$ERR"; then
	t_fail "no progress line when stderr is not a terminal"
else
	t_ok "no progress line when stderr is not a terminal"
fi
if command -v script >/dev/null 2>&1; then
	script -qec "'$BF' compare -c '$R/bf.yaml' --base HEAD --patch HEAD \
		--markdown '$T/md'" "$T/typescript" >/dev/null 2>&1
	grep_file "progress line on a terminal" '\[4/4\] b [a-z]* run 2' \
		"$T/typescript"
fi
