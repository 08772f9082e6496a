#!/bin/sh
# The markdown a review shows, read by the renderer GitHub and GitLab
# build on: cmark-gfm with GitHub's extensions (tables, autolinks, the tag
# filter) and raw HTML let through, so a name that reached the comment
# as markup would show up as an element. For every result fixture, hostile
# names included, each markdown output (the markdown report, GitHub's
# comment and step summary, GitLab's note) renders to the tags a comment
# is meant to have, one table row per result, alert or probe, and every
# benchmark name shown as text (tests/fixtures/report/cmark_check.py).
. "$(dirname "$0")/lib.sh"
unset GITHUB_SHA GITHUB_REF CI_MERGE_REQUEST_IID CHANGE_ID \
	GERRIT_CHANGE_NUMBER GERRIT_PATCHSET_NUMBER BENCHFARM_PERF_ISSUE \
	BENCHFARM_PERF_PATCHSET BENCHFARM_GERRIT_COMMENTS

FX="$BF_SRC/tests/fixtures/report"
CFG="$FX/golden/benchfarm.yaml"
if ! command -v cmark-gfm >/dev/null 2>&1; then
	t_fail "cmark-gfm is not installed (ci/deps.sh installs it)"
	echo "1..$t_n"
	exit 1
fi
render() {
	cmark-gfm --unsafe -e table -e autolink -e tagfilter -e strikethrough \
		"$1"
}

# The checker itself fails on what it is there to catch.
printf '| a | b |\n|---|---|\n| <img src=x> | y |\n' >"$T/bad.md"
render "$T/bad.md" >"$T/bad.html"
if python3 "$FX/cmark_check.py" "$T/bad.html" "$FX/compare-clean.json" \
	>"$T/why"; then
	t_fail "the checker passes raw HTML"
else
	grep -q '<img>' "$T/why" && t_ok "the checker catches raw HTML" ||
		t_fail "the checker missed the <img>"
fi

for fx in compare-regressed compare-clean compare-infra compare-hostile \
	detect bisect; do
	D="$T/$fx"
	expect_exit 0 "$fx renders as markdown, github and gitlab" \
		"$BF" report -c "$CFG" --no-post -f markdown,github,gitlab \
		-i "$FX/$fx.json" --output-dir "$D"
	for md in report.md github-comment.md github-summary.md gitlab-note.md; do
		[ -f "$D/$md" ] || {
			t_fail "$fx: no $md"
			continue
		}
		render "$D/$md" >"$D/$md.html"
		if python3 "$FX/cmark_check.py" "$D/$md.html" "$FX/$fx.json" \
			>"$T/why" 2>&1; then
			t_ok "$fx: $md renders as a comment should"
		else
			sed 's/^/#   /' "$T/why"
			t_fail "$fx: $md does not render as a comment should"
		fi
	done
done
echo "1..$t_n"
