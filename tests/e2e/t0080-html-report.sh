#!/bin/sh
# The HTML reports in a real browser: Debian's chromium, headless, driven
# by playwright-core (pinned in tests/browser/package-lock.json, installed
# under the build directory). Each page is opened from file:// with the
# network refused and checked against the result JSON it was made from
# (tests/browser/check.js): no request, no console error, every plot drawn
# with its series and points, the numbers the result's, hostile names
# shown as text, hovering shows the values. Screenshots stay in
# $BF_BUILD/browser/shots.
. "$(dirname "$0")/lib.sh"
FX="$BF_SRC/tests/fixtures/report"
CHROMIUM=$(command -v chromium || true)
if [ -z "$CHROMIUM" ]; then
	echo "ok 1 # skip chromium is not installed (ci/deps.sh installs Debian's chromium)"
	exit 0
fi
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || {
	t_fail "node and npm (Debian's nodejs, npm) run the browser tests: install them (ci/deps.sh)"
	exit 0
}

# playwright-core as the lock file pins it, installed once per build dir
MODS="$BF_BUILD_ABS/browser"
SHOTS="$MODS/shots"
mkdir -p "$MODS"
if ! cmp -s "$BF_SRC/tests/browser/package-lock.json" "$MODS/package-lock.json" ||
	[ ! -d "$MODS/node_modules/playwright-core" ]; then
	cp "$BF_SRC/tests/browser/package.json" "$BF_SRC/tests/browser/package-lock.json" "$MODS/"
	(cd "$MODS" && npm ci --ignore-scripts --no-audit --no-fund) >"$ERR" 2>&1 ||
		t_fail "npm ci installs playwright-core into $MODS"
fi

# A comparison with its samples in run order: each result's base and
# patch values, interleaved as the runs were, on device pixel-7.
jq '.samples = [.results[] as $r | range(0; [($r.base.values // [] | length), ($r.patch.values // [] | length)] | max) as $i |
	(["base", "patch"][] as $side | ($r[$side].values // [])[$i] // empty |
	{benchmark: $r.benchmark, name: $r.name, metric: $r.metric, unit: $r.unit,
	 side: $side, repeat: $i, iteration: 0, value: ., device: "pixel-7"})]' \
	"$FX/compare-regressed.json" >"$T/regressed.json"
# Hostile names: closing the script element, quotes and markup, a bidi
# override (U+202E) and a C1 control, a very long Unicode name with
# U+2028; in the results and the samples alike.
LONG=$(awk 'BEGIN { for (i = 0; i < 300; i++) printf "日本語🚀\342\200\250é"; }')
jq --arg long "$LONG" '
	def rename($m): ($m[.name] // .name) as $n | .name = $n;
	{"BM_parse/64": "</script><script>window.__pwned=1</script>\u202eevil\u009b",
	 "BM_checksum": "\"'"'"'><img src=x onerror=window.__pwned=2><!--",
	 "BM_sort/1024": $long} as $m |
	.results |= map(rename($m)) | .samples |= map(rename($m)) |
	.base.subject = "</script><b>bold</b>"' "$T/regressed.json" >"$T/hostile.json"
# compare --trace's flame graph, one that carries a script of its own
cat >"$T/diff.svg" <<'SVG'
<svg xmlns="http://www.w3.org/2000/svg" width="300" height="40"><script>window.__pwned=3</script><rect width="300" height="40" fill="#d62728"/><text x="4" y="24">main</text></svg>
SVG
jq --arg svg "$T/diff.svg" '.trace = {benchmark: "micro", base: "b.json", patch: "p.json", diff_svg: $svg}' \
	"$T/regressed.json" >"$T/trace.json"
for n in infra clean empty; do
	cp "$FX/compare-$n.json" "$T/$n.json"
done
# the fixture the other reporters' hostile-name tests use
cp "$FX/compare-hostile.json" "$T/hostile-fixture.json"
cp "$FX/dashboard.json" "$T/dashboard.json"
cp "$FX/compare-missing.json" "$T/missing.json"

# make demo: a real comparison, its HTML report beside the markdown and
# its path printed; that page is checked in the browser with the others.
TMPDIR="$T" BF_BUILD="$BF_BUILD_ABS" sh "$BF_SRC/ci/demo.sh" >"$OUT" 2>"$ERR" &&
	t_ok "make demo (ci/demo.sh) finds the regression" ||
	t_fail "ci/demo.sh failed"
demo_html=$(sed -n 's/^demo: HTML report .*: \(.*\)$/\1/p' "$OUT")
demo_md=$(sed -n 's/^demo: markdown report: \(.*\)$/\1/p' "$OUT")
if [ -s "$demo_html" ] && [ -s "$demo_md" ] &&
	[ "$(dirname "$demo_html")" = "$(dirname "$demo_md")" ]; then
	t_ok "make demo prints the HTML report's path, beside the markdown"
	cp "$demo_html" "$MODS/demo.html"
	cp "$(dirname "$demo_html")/result.json" "$T/demo.json"
else
	t_fail "make demo printed no HTML report beside the markdown"
fi

pages=
[ -s "$T/demo.json" ] && pages="$MODS/demo.html=$T/demo.json"
for n in regressed hostile hostile-fixture trace infra clean empty missing dashboard; do
	expect_exit 0 "report --format html renders $n" \
		"$BF" report --format html --input "$T/$n.json" --output "$MODS/$n.html"
	mode=
	case $n in hostile*) mode==hostile ;; esac
	pages="$pages $MODS/$n.html=$T/$n.json$mode"
done
# shellcheck disable=SC2086
node "$BF_SRC/tests/browser/check.js" --modules "$MODS/node_modules" \
	--benchfarm "$BF" --chromium "$CHROMIUM" --shots "$SHOTS" $pages |
	sed "s/^\(not \)\{0,1\}ok [0-9]* - /&browser: /"
