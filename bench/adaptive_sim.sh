#!/bin/sh
# Adaptive repeats against fixed 10 and fixed 30 runs per side, SIMULATED
# (no device, no timing): false verdict rate on A/A, power for 2% and 5%
# slowdowns, mean runs per side. Numbers in BENCHMARKS.md.
# Usage: bench/adaptive_sim.sh [TRIALS] [SEED]
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$SRC/${BF_BUILD:-build/default}" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/bf-adaptive-sim.XXXXXX")
trap 'rm -rf "$W"' EXIT
CFLAGS="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2"
${CC:-cc} $CFLAGS -I"$SRC/core/include" -o "$W/adaptive_sim" \
	"$SRC/bench/adaptive_sim.c" "$B/libbfcore.a" \
	$(pkg-config --libs jansson) -lm
"$W/adaptive_sim" "${1:-1000}" "${2:-1}"
