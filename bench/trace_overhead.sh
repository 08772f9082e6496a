#!/bin/sh
# The tracer's overhead targets (make bench; numbers in BENCHMARKS.md): the added
# nanoseconds per traced call (entry plus exit) of libbenchfarm_trace,
# side by side with uftrace record (Debian's uftrace) on the same binary
# in the same run. Target: at most 10 ns per call, and at least 10 times
# less overhead than uftrace.
#
# One binary, built with -finstrument-functions: untraced it calls
# glibc's empty __cyg_profile_func_* stubs; LD_PRELOAD of
# libbenchfarm_trace.so (with BENCHFARM_TRACE set) or uftrace's libmcount
# replaces them. The program times its own call loop, so start-up and
# writing the trace are not counted. Best of R runs each.
#
# Side by side, the cost of one read of the counter the tracer
# time-stamps with (rdtsc on x86-64), alone in a loop of CALLS reads:
# two reads per call are the floor under the added time. And the tracer
# built with -DBF_TRACE_NO_COUNTER (an increment instead of the counter):
# what the rest of the recording path costs.
# Usage: bench/trace_overhead.sh [CALLS] [RUNS]
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$SRC/${BF_BUILD:-build/default}" && pwd)
CALLS=${1:-6000000}
RUNS=${2:-5}
command -v uftrace >/dev/null || { echo "trace_overhead: needs uftrace (make deps)" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/bf-trace-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
${CC:-cc} -O2 -finstrument-functions -o "$W/calls" "$SRC/bench/trace_calls.c"
${CC:-cc} -O2 -o "$W/plain" "$SRC/bench/trace_calls.c"
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -fPIC -shared -fno-instrument-functions \
	-DBF_TRACE_NO_COUNTER -I"$SRC/agent/tracer/include" \
	-I"$SRC/agent/tracer" -I"$SRC/core/include" -o "$W/nocounter.so" "$SRC/agent/tracer/trace.c" \
	"$SRC/agent/tracer/objects.c"

best() { # best loop seconds of RUNS runs of "$@"
	b=
	for i in $(seq "$RUNS"); do
		s=$("$@" | awk '{print $2}')
		if [ -z "$b" ] || [ "$(echo "$s < $b" | bc -l)" = 1 ]; then b=$s; fi
	done
	echo "$b"
}
records=$((2 * CALLS + 1000))
plain=$(best "$W/plain" "$CALLS")
untraced=$(best "$W/calls" "$CALLS")
counter=$(best "$W/plain" --counter "$CALLS")
ours=$(best env LD_PRELOAD="$B/libbenchfarm_trace.so" \
	BENCHFARM_TRACE="$W/t.trace" BENCHFARM_TRACE_RECORDS=$records \
	"$W/calls" "$CALLS")
nocounter=$(best env LD_PRELOAD="$W/nocounter.so" \
	BENCHFARM_TRACE="$W/n.trace" BENCHFARM_TRACE_RECORDS=$records \
	"$W/calls" "$CALLS")
uft=$(best uftrace record --no-pager -d "$W/uftrace.data" "$W/calls" "$CALLS")
"$B/benchfarm" trace top -n 3 "$W/t.trace" >"$W/top" 2>"$W/top.err"
grep -q partial "$W/top.err" && { echo "trace_overhead: our trace lost events" >&2; exit 1; }
ns() { echo "($1 - $untraced) * 1000000000 / $CALLS" | bc -l; }
printf 'calls %d, best of %d, loop seconds: plain %.4f, untraced %.4f, benchfarm %.4f, uftrace %.4f\n' \
	"$CALLS" "$RUNS" "$plain" "$untraced" "$ours" "$uft"
read=$(echo "$counter * 1000000000 / $CALLS" | bc -l)
printf 'one counter read alone %.2f ns (2 per call: %.2f ns); benchfarm without the counter %.2f ns per call\n' \
	"$read" "$(echo "2 * $read" | bc -l)" "$(ns "$nocounter")"
printf 'added per call: benchfarm %.2f ns, uftrace %.2f ns; uftrace / benchfarm = %.1f\n' \
	"$(ns "$ours")" "$(ns "$uft")" "$(echo "($uft - $untraced) / ($ours - $untraced)" | bc -l)"
printf 'targets: <= 10 ns per call: %s; >= 10x less than uftrace: %s\n' \
	"$([ "$(echo "$(ns "$ours") <= 10" | bc -l)" = 1 ] && echo met || echo MISSED)" \
	"$([ "$(echo "($uft - $untraced) >= 10 * ($ours - $untraced)" | bc -l)" = 1 ] && echo met || echo MISSED)"
