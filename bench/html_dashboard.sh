#!/bin/sh
# The HTML dashboard at scale: 100 series of 1,000 commits each
# (tests/browser/gen-dashboard.js, deterministic), rendered by
# `benchfarm report --format html`, opened in headless Chromium
# (tests/browser/check.js, offline). Prints the page's size and the time
# from navigation to the last plot drawn, 5 times; targets: at most
# 1.5 MB and under 1 s.
set -eu
cd "$(dirname "$0")/.."
: "${BF_BUILD:=build/default}"
BFB=$(cd "$BF_BUILD" && pwd)
N=${1:-5}
MODS="$BFB/browser"
OUTD="$BFB/bench-html"
mkdir -p "$MODS" "$OUTD"
command -v chromium >/dev/null || { echo "bench: needs chromium (ci/deps.sh)" >&2; exit 2; }
if ! cmp -s tests/browser/package-lock.json "$MODS/package-lock.json" ||
	[ ! -d "$MODS/node_modules/playwright-core" ]; then
	cp tests/browser/package.json tests/browser/package-lock.json "$MODS/"
	(cd "$MODS" && npm ci --ignore-scripts --no-audit --no-fund >/dev/null)
fi
node tests/browser/gen-dashboard.js 100 1000 >"$OUTD/dash100x1000.json"
"$BFB/benchfarm" report --format html --input "$OUTD/dash100x1000.json" \
	--output "$OUTD/dash100x1000.html"
i=0
while [ "$i" -lt "$N" ]; do
	node tests/browser/check.js --modules "$MODS/node_modules" \
		--benchfarm "$BFB/benchfarm" --chromium "$(command -v chromium)" --shots "$OUTD" \
		"$OUTD/dash100x1000.html=$OUTD/dash100x1000.json=bench" |
		grep -E '^# bench|^# timing|^not ok'
	i=$((i + 1))
done
