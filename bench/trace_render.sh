#!/bin/sh
# How long benchfarm trace takes to read a big trace of a
# program with many functions (numbers in BENCHMARKS.md). A generated
# program with FUNCS functions (default 3,000) that main calls in turn,
# ROUNDS times (default 170: about 1,020,000 records, a 16 MB trace),
# traced once; then the best of RUNS wall times of trace top, fold, svg,
# chrome and diff (the trace against itself) on it.
# Usage: bench/trace_render.sh [FUNCS] [ROUNDS] [RUNS]
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$SRC/${BF_BUILD:-build/default}" && pwd)
FUNCS=${1:-3000}
ROUNDS=${2:-170}
RUNS=${3:-3}
W=$(mktemp -d "${TMPDIR:-/tmp}/bf-trace-render.XXXXXX")
trap 'rm -rf "$W"' EXIT
awk -v n="$FUNCS" 'BEGIN {
	print "#include <stdio.h>\n#include <stdlib.h>\n"
	print "static volatile unsigned long sink;\n"
	for (i = 0; i < n; i++)
		printf "__attribute__((noinline)) void f%d(void) { sink += %d; }\n", i, i
	print "int main(int argc, char **argv)\n{"
	print "\tint r = argc > 1 ? atoi(argv[1]) : 1;\n"
	print "\tfor (int k = 0; k < r; k++) {"
	for (i = 0; i < n; i++)
		printf "\t\tf%d();\n", i
	print "\t}\n\tprintf(\"%lu\\n\", sink);\n\treturn 0;\n}"
}' >"$W/many.c"
${CC:-cc} -O1 -finstrument-functions -o "$W/many" "$W/many.c" \
	"$B/libbenchfarm_trace.a" -pthread
BENCHFARM_TRACE="$W/m.trace" \
	BENCHFARM_TRACE_RECORDS=$((2 * FUNCS * ROUNDS + 1000)) \
	"$W/many" "$ROUNDS" >/dev/null

best() { # best wall seconds of RUNS runs of "$@", output discarded
	b=
	for i in $(seq "$RUNS"); do
		t0=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		t1=$(date +%s.%N)
		s=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$b" ] || [ "$(echo "$s < $b" | bc -l)" = 1 ]; then b=$s; fi
	done
	echo "$b"
}
printf 'functions %d, records %d, trace %d bytes, best of %d, seconds:' \
	"$FUNCS" $((2 * FUNCS * ROUNDS)) "$(wc -c <"$W/m.trace")" "$RUNS"
for c in top fold svg chrome diff; do
	if [ $c = diff ]; then
		s=$(best "$B/benchfarm" trace diff "$W/m.trace" "$W/m.trace" -o /dev/null)
	else
		s=$(best "$B/benchfarm" trace $c "$W/m.trace")
	fi
	printf ' %s %.3f' $c "$s"
done
echo
