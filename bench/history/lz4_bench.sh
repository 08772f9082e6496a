#!/bin/sh
# One run of lz4 on a fixed input (frames without a content checksum,
# so decompression is the decoder), timed in CPU time (user), in the
# lines format: compression (level 1) and decompression speed in MB/s
# of the input's size per user CPU second (higher is better).
# Usage: lz4_bench.sh RUSAGE_RUN INPUT. RUSAGE_RUN is bench/rusage_run.c
# built; INPUT the corpus input (README of tests/data/histories).
#
# CPU time, not lz4 -b's wall-clock speed: on a machine shared with
# other jobs (2 cores, load 6 to 8 while this corpus was measured) lz4
# -b's speeds varied by 2x between repeats of one commit; the user CPU
# time of a whole (de)compression of 180 MB is what the code costs,
# with the noise that cache and memory sharing still leave; the best of
# a few takes out most of that.
set -eu
ru=$1 in=$2
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
size=$(wc -c <"$in")
for i in 1 2 3; do
	"$ru" "$t/c$i" ./lz4 -1 -q -f --no-frame-crc "$in" "$t/in.lz4"
done
for i in 1 2 3 4 5; do
	"$ru" "$t/d$i" ./lz4 -d -q -c "$t/in.lz4" >/dev/null
done
# the best (least user time) of 3 compressions and of 5 decompressions
for op in c d; do
	cat "$t/$op"[0-9] | awk '!(best > 0) || $1 < best { best = $1 }
		END { if (!(best > 0)) exit 1; print best }' >"$t/$op"
done
awk -v size="$size" -v c="$(cat "$t/c")" -v d="$(cat "$t/d")" 'BEGIN {
	printf "compress %.1f MB/s\n", size / 1e6 / c
	printf "decompress %.1f MB/s\n", size / 1e6 / d
}' 
