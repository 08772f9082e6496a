#!/bin/sh
# Build identity on a real project's history (BENCHMARKS.md, "Build
# identity on a real project's history: google/snappy"): snappy's first-parent
# history measured by `benchfarm backfill` on two real OpenSSH sshd
# devices of one pool (ci/sshd.sh, on 127.0.0.1), three times into
# three stores:
#
#   warm  backfill with the defaults; it builds every commit into the
#         build cache (so that the two passes below measure with every
#         build cached and their run times hold no build), and is a
#         second recording of (a);
#   a     backfill with the defaults: a commit whose build a complete run
#         of the pool measured is recorded as that build's point;
#   b     backfill --measure-every: every commit measured.
#
# Then `detect --json` and `history --json` on each store, and
# bench/build-identity/summary.py over it all (what BENCHMARKS.md
# quotes), written to WORKDIR/summary.txt and printed.
#
# Usage: bench/build-identity/record.sh [-w WORKDIR] [-r RANGE] [-n REPEATS]
#                                       [-i code|bytes] SNAPPY_REPO
#   SNAPPY_REPO  a git repository (or bare git directory) with snappy's
#                history, e.g. a clone of https://github.com/google/snappy
#   -w WORKDIR   where everything is kept (default: a new one under TMPDIR)
#   -r RANGE     the first-parent range A..B (default: the 30 commits of
#                9cc3689b..f603a020, 2021-07-28 to 2023-03-16; the next
#                commit, 92f18e6, does not compile: SNAPPY_PREFETCH is
#                defined only from cfc573e on); main is set to B in the
#                clone
#   -n REPEATS   runs per benchmark and commit (default 7, and 1 warmup)
#   -i IDENTITY  project.build_identity: code (default) or bytes
#
# Each pass builds nothing that the warm pass built (one build cache,
# WORKDIR/cache). It needs sshd (openssh-server), python3, g++ and
# Debian's libbenchmark-dev; at the defaults it took 7 minutes on 2 CPUs
# (the builds about 2 of them).
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$SRC/bench/build-identity
case ${BF_BUILD:=build/default} in
/*) B=$BF_BUILD ;;
*) B=$SRC/$BF_BUILD ;;
esac
usage() {
	sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//'
}
case ${1:-} in
-h | --help) usage; exit 0 ;;
esac
W=
RANGE=9cc3689b2120bd25a74f264f05ed8692c9e22dfe..f603a020086da1115118eef206ce28a4a5829438
N=7
ID=code
while getopts w:r:n:i: o; do
	case $o in
	w) W=$OPTARG ;;
	r) RANGE=$OPTARG ;;
	n) N=$OPTARG ;;
	i) ID=$OPTARG ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { usage >&2; exit 2; }
REPO_SRC=$1
case $N in
'' | *[!0-9]*) echo "$0: -n wants a number of runs, not '$N'" >&2; exit 2 ;;
esac
case $ID in
code | bytes) ;;
*) echo "$0: -i is code or bytes, not '$ID'" >&2; exit 2 ;;
esac
case $RANGE in
?*..?*) ;;
*) echo "$0: -r wants A..B, not '$RANGE'" >&2; exit 2 ;;
esac
for p in "$B/benchfarm" "$B/benchfarm-agent"; do
	[ -x "$p" ] || { echo "$0: no $p (make first, or set BF_BUILD)" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "$0: needs python3" >&2; exit 2; }

[ -n "$W" ] || W=$(mktemp -d "${TMPDIR:-/tmp}/bf-buildid.XXXXXX")
mkdir -p "$W"
W=$(cd "$W" && pwd)
export BENCHFARM_CACHE="$W/cache" BENCHFARM_KNOWN_HOSTS="$W/known_hosts"
unset BENCHFARM_DB
BF=$B/benchfarm
S=$W/sshd
SSHD_SH=$SRC/ci/sshd.sh
DEVICES="d1 d2"
stop_devices() {
	for d in $DEVICES; do
		"$SSHD_SH" stop "$S" "$d" 2>/dev/null || :
	done
}
trap 'stop_devices' EXIT
trap 'exit 1' HUP INT TERM

# The repository benchfarm reads: a clone whose main ends the range.
END=${RANGE#*..}
if [ ! -d "$W/repo/.git" ]; then
	git clone -q "$REPO_SRC" "$W/repo"
	git -C "$W/repo" checkout -q -B main "$END"
fi
sed -e "s|@REPO@|$W/repo|" -e "s|@BUILD@|$HERE/build-snappy.sh|" \
	-e "s|@IDENTITY@|$ID|" -e "s|@REPEATS@|$N|" \
	"$HERE/benchfarm.yaml.in" >"$W/benchfarm.yaml"
CFG=$W/benchfarm.yaml
"$BF" config check -c "$CFG" >/dev/null

# Two devices of pool "snappy", registered in each store.
mkdir -p "$S"
"$SSHD_SH" client-key "$S"
chmod 600 "$S/client_key"
for d in $DEVICES; do
	port=$("$SSHD_SH" start "$S" "$d")
	for store in warm a b; do
		"$BF" --db "$W/$store.db" device add "$d" --host 127.0.0.1 \
			--port "$port" --user "$(id -un)" --key "$S/client_key" \
			--labels snappy --agent "$B/benchfarm-agent" \
			--accept-host-key >/dev/null
	done
done

now() { date +%s.%N; }
# pass STORE [OPTION...]: one backfill of the range into WORKDIR/STORE.db,
# its output in STORE-backfill.{txt,json}, its wall time in STORE.time,
# each device's agent run journal of it in STORE-journal-DEVICE.jsonl.
pass() {
	store=$1
	shift
	[ -s "$W/$store.time" ] && return 0
	for d in $DEVICES; do
		rm -f "$S/$d/state/benchfarm/agent-runs.jsonl"
	done
	echo "build-identity: pass $store: backfill $* $RANGE" >&2
	t0=$(now)
	rc=0
	"$BF" --db "$W/$store.db" backfill -c "$CFG" "$@" "$RANGE" \
		--json "$W/$store-backfill.json" >"$W/$store-backfill.txt" || rc=$?
	t1=$(now)
	tail -n 1 "$W/$store-backfill.txt" >&2
	# 3: a commit failed (its build), recorded as such; go on, the
	# summary counts it.
	case $rc in
	0) ;;
	3) echo "$0: warning: backfill ($store) exited 3 (see $W/$store-backfill.txt)" >&2 ;;
	*) echo "$0: backfill ($store) exited $rc" >&2; exit 3 ;;
	esac
	for d in $DEVICES; do
		cp "$S/$d/state/benchfarm/agent-runs.jsonl" \
			"$W/$store-journal-$d.jsonl" 2>/dev/null ||
			: >"$W/$store-journal-$d.jsonl"
	done
	echo "$t0 $t1" >"$W/$store.time"
}
pass warm
pass a
pass b --measure-every

for store in warm a b; do
	rc=0
	"$BF" --db "$W/$store.db" detect -c "$CFG" --json "$W/$store-detect.json" \
		>"$W/$store-detect.txt" || rc=$?
	[ $rc -le 1 ] || { echo "$0: detect ($store) exited $rc" >&2; exit 3; }
	"$BF" --db "$W/$store.db" history -c "$CFG" --range "$RANGE" --json \
		>"$W/$store-history.json"
done
# Every run and raw sample of each store as text, to keep with the
# results (summary.py reads the stores themselves).
command -v sqlite3 >/dev/null &&
	for store in warm a b; do
		sqlite3 -header -separator '	' "$W/$store.db" \
			"SELECT id, patch_commit, status, build_id, measured_by,
			 started_at, finished_at FROM runs ORDER BY id" \
			>"$W/$store-runs.tsv"
		sqlite3 -header -separator '	' "$W/$store.db" \
			"SELECT run_id, commit_id, suite, benchmark, metric, unit,
			 device, repeat_idx, value FROM samples ORDER BY id" \
			>"$W/$store-samples.tsv"
	done
"$BF" --db "$W/a.db" cache list --json >"$W/cache.json"
python3 "$HERE/summary.py" "$W" >"$W/summary.txt"
cat "$W/summary.txt"
echo "build-identity: everything in $W" >&2
