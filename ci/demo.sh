#!/bin/sh
# make demo: a presubmit comparison, end to end, on this machine.
# Creates a small Google Benchmark project as a real git repository in a
# temporary directory (sources from configs/examples/demo/): a baseline
# commit on main and a patch that makes one benchmark ~20% slower. Then
# runs `benchfarm compare` on it, prints the report and writes it beside
# the result as report.md and report.html (the page with the plots).
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
: "${BF_BUILD:=build/default}"
case $BF_BUILD in
/*) BUILD=$BF_BUILD ;;
*) BUILD=$SRC/$BF_BUILD ;;
esac
BF="$BUILD/benchfarm"
DEMO=$(mktemp -d "${TMPDIR:-/tmp}/benchfarm-demo.XXXXXX")
REPO="$DEMO/repo"
export BENCHFARM_DB="$DEMO/benchfarm.db"
export BENCHFARM_CACHE="$DEMO/cache"

git_() {
	git -C "$REPO" -c user.name=benchfarm-demo \
		-c user.email=demo@benchfarm.invalid "$@" >/dev/null
}

# BF_DEMO=harness: the same workloads measured with libbenchfarm_bench
# (configs/examples/harness-demo/) instead of Google Benchmark.
EX="$SRC/configs/examples/demo"
FILES="micro.cc Makefile benchfarm.yaml README.md"
if [ "${BF_DEMO:-gbench}" = harness ]; then
	EX="$SRC/configs/examples/harness-demo"
	FILES="micro.c Makefile benchfarm.yaml README.md"
	export PKG_CONFIG_PATH="$BUILD/pkgconfig-uninstalled"
fi
mkdir -p "$REPO"
git -C "$REPO" init -q -b main
for f in $FILES; do
	cp "$EX/$f" "$REPO/$f"
done
cp "$EX/tuning_base.h" "$REPO/tuning.h"
printf 'out/\n' >"$REPO/.gitignore"
git_ add -A
git_ commit -q -m "demo: baseline"
git_ checkout -q -b patch
cp "$EX/tuning_patch.h" "$REPO/tuning.h"
git_ commit -q -am "checksum: two more rounds, to be safe"

echo "demo: repository $REPO (main = baseline, patch = +20% work in the checksum benchmark)"
echo "demo: benchfarm compare -c $REPO/benchfarm.yaml --json $DEMO/result.json"
echo
set +e
"$BF" compare -c "$REPO/benchfarm.yaml" --json "$DEMO/result.json"
rc=$?
set -e
echo
echo "demo: compare exited $rc (1 = regression found, as expected here)"
echo "demo: result JSON: $DEMO/result.json; store: $BENCHFARM_DB"
# The same result as the reviewers see it, and as a page with plots.
"$BF" report --format markdown,html --input "$DEMO/result.json" \
	--output-dir "$DEMO"
echo "demo: markdown report: $DEMO/report.md"
echo "demo: HTML report (open it in a browser; it needs no network): $DEMO/report.html"
[ "$rc" -eq 1 ]
