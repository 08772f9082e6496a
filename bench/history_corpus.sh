#!/bin/sh
# Step detection on real histories (BENCHMARKS.md, "Step detection on
# real histories").
#
#   bench/history_corpus.sh            score every detector, at its
#                                      defaults, on the held-in corpus
#                                      tests/data/histories/*.hist (make
#                                      bench runs this)
#   bench/history_corpus.sh -v         the same, listing every alert
#   bench/history_corpus.sh measure PROJECT REPO RANGE OUT.hist
#                                      measure it again: PROJECT lz4 or
#                                      xxhash, REPO a clone of it (any
#                                      path or URL git clones), RANGE its
#                                      first-parent range
#
# measure runs benchfarm itself: a config per project (the project's
# own benchmark through bench/history/PROJECT_bench.sh, format lines,
# runs.repeats 5, warmup 0, the load/throttle checks suppressed as the
# machine is shared), `benchfarm backfill` over RANGE into a store of
# its own, then bench/history/export.sh writes every repeat of every
# commit. The documented steps ("step" lines) and the header are added
# by hand: see tests/data/histories/README.md.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$SRC/${BF_BUILD:-build/default}" && pwd)

if [ "${1:-}" = measure ]; then
	[ $# -eq 5 ] || { echo "usage: $0 measure PROJECT REPO RANGE OUT.hist" >&2; exit 2; }
	project=$2 repo=$3 range=$4 out=$5
	W=${HISTORY_WORKDIR:-$(mktemp -d "${TMPDIR:-/tmp}/bf-history.XXXXXX")}
	git clone -q --no-checkout "$repo" "$W/$project"
	tip=${range#*..}
	git -C "$W/$project" checkout -q -B measured "$tip"
	case $project in
	lz4)
		# the input: lz4's own v1.8.3 source tree as a tar (1.4 MB),
		# 128 times over; timed in user CPU time by rusage_run
		git -C "$W/$project" archive --format=tar v1.8.3 >"$W/one.tar"
		for i in $(seq 128); do cat "$W/one.tar"; done >"$W/lz4-v1.8.3-x128.tar"
		${CC:-cc} -O2 -o "$W/rusage_run" "$SRC/bench/rusage_run.c"
		build='[make, lz4]'
		cmd="[sh, $SRC/bench/history/lz4_bench.sh, $W/rusage_run, $W/lz4-v1.8.3-x128.tar]"
		name=lz4-cpu ;;
	xxhash)
		build='[make, xxhsum]'
		cmd="[sh, $SRC/bench/history/xxhash_bench.sh]"
		name=xxhsum-b ;;
	*) echo "$0: unknown project '$project' (lz4 or xxhash)" >&2; exit 2 ;;
	esac
	cat >"$W/$project/benchfarm.yaml" <<X
version: 1
project: {repo: ., target_branch: measured, build: $build}
benchmarks:
  - {name: $name, command: $cmd, format: lines}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks]}
runs: {repeats: 5, warmup: 0}
X
	BENCHFARM_DB="$W/store.db" "$B/benchfarm" backfill \
		-c "$W/$project/benchfarm.yaml" "$range" || [ $? -eq 3 ]
	sh "$SRC/bench/history/export.sh" "$W/store.db" "$W/$project" "$range" >"$out"
	echo "wrote $out (the store and clone are in $W)"
	exit 0
fi

W=$(mktemp -d "${TMPDIR:-/tmp}/bf-history-score.XXXXXX")
trap 'rm -rf "$W"' EXIT
CFLAGS="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2"
${CC:-cc} $CFLAGS -I"$SRC/core/include" -I"$SRC/tests/unit/detect_corpus" \
	-o "$W/history_score" "$SRC/bench/history_score.c" \
	"$SRC/tests/unit/detect_corpus/corpus.c" "$B/libbfcore.a" \
	$(pkg-config --libs jansson) -lm
"$W/history_score" "$@" "$SRC"/tests/data/histories/*.hist
