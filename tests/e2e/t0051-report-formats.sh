#!/bin/sh
# Every format through the CLI, each output checked by a real parser
# against what its consumer documents: JSON by jq, JUnit XML by xmllint
# against Jenkins' JUnit schema, GitHub workflow commands and OpenMetrics by
# their line grammars. From all four compare fixtures, hostile names
# included.
. "$(dirname "$0")/lib.sh"
# The CI's and the reporters' variables would change what is rendered.
unset GITHUB_SHA GITHUB_REF CI_MERGE_REQUEST_IID CHANGE_ID \
	GERRIT_CHANGE_NUMBER GERRIT_PATCHSET_NUMBER BENCHFARM_PERF_ISSUE \
	BENCHFARM_PERF_PATCHSET BENCHFARM_GERRIT_COMMENTS

FX="$BF_SRC/tests/fixtures/report"
XSD="$FX/junit-10.xsd" # Jenkins' (xunit plugin), vendored
# The schema names the tests that use it: those tests must exist.
for t in $(grep -o 'tests/e2e/t[0-9]*-[a-z0-9-]*\.sh' "$XSD"); do
	[ -f "$BF_SRC/$t" ] && t_ok "junit-10.xsd names $t, which exists" ||
		t_fail "junit-10.xsd names $t, which does not exist"
done
grep -q "tests/e2e/$(basename "$0")" "$XSD" &&
	t_ok "junit-10.xsd names this test" ||
	t_fail "junit-10.xsd does not name $0"
have_xmllint=1
command -v xmllint >/dev/null 2>&1 || have_xmllint=0

# perf_check FX FILE: Skia Perf's ingestion format version 1 as Perf's
# own schema (perf/go/ingest/format/formatSchema.json) states it: only
# the keys version, git_hash, issue, patchset, key, results and links;
# version 1; issue and patchset strings; string keys and links; each
# result a key with measurements of {value: string, measurement:
# number} and nothing else. And Perf's rule for keys: [A-Za-z0-9._-].
perf_check() {
	jq_check "$1: skia-perf.json is Perf format version 1" '
		(keys - ["version", "git_hash", "issue", "patchset", "key", "results", "links"]) == [] and
		.version == 1 and (.git_hash | test("^[0-9a-f]{40}$")) and
		((.issue // "") | type == "string") and ((.patchset // "") | type == "string") and
		(.key | type == "object" and all(.[]; type == "string")) and
		((.links // {}) | type == "object" and all(.[]; type == "string")) and
		(.results | type == "array") and
		all(.results[]; (keys - ["key", "measurement", "measurements"]) == [] and
			(.key | to_entries | all(.key + .value | test("^[A-Za-z0-9._-]+$"))) and
			all(.measurements[][]; keys == ["measurement", "value"] and
				(.value | type == "string") and (.measurement | type == "number")))' \
		"$2"
}

for fx in compare-regressed compare-clean compare-infra compare-hostile; do
	D="$T/$fx"
	# (the change a comparison measured, for skia-perf's trybot fields)
	BENCHFARM_PERF_ISSUE=4711 BENCHFARM_PERF_PATCHSET=3 \
		expect_exit 0 "$fx: every format at once" "$BF" report \
		-f markdown,github,gitlab,gerrit,junit,skia-perf,bmf,json \
		-i "$FX/$fx.json" --output-dir "$D"

	# JUnit XML: valid against the schema; counts agree with verdicts.
	if [ $have_xmllint = 1 ]; then
		check "$fx: junit.xml is valid JUnit (xmllint --schema)" \
			xmllint --noout --schema "$XSD" "$D/junit.xml"
		reg=$(jq '[.results[] | select(.verdict == "regressed")] | length' "$FX/$fx.json")
		got=$(xmllint --xpath 'count(//testcase/failure)' "$D/junit.xml")
		[ "$reg" = "$got" ] && t_ok "$fx: $reg regression(s), $got failure(s)" ||
			t_fail "$fx: $reg regressions but $got failures"
		n=$(jq '.results | length' "$FX/$fx.json")
		got=$(xmllint --xpath 'count(//testsuite[@name!="benchfarm.infrastructure"]/testcase)' "$D/junit.xml")
		[ "$n" = "$got" ] && t_ok "$fx: one test case per result ($n)" ||
			t_fail "$fx: $n results but $got test cases"
	else
		echo "ok 999 # skip no xmllint"
	fi

	# GitHub: the check-run fields and one workflow command per line.
	jq_check "$fx: github-check.json has the check-run fields" \
		'(.name | type == "string") and (.head_sha | test("^[0-9a-f]{40}$")) and .status == "completed" and (.conclusion | IN("success", "failure", "neutral")) and (.output.title | length <= 255) and (.output.summary | length <= 65535) and (.output.annotations | length <= 50) and all(.output.annotations[]; (.path | type == "string") and (.start_line >= 1) and (.annotation_level | IN("notice", "warning", "failure")) and (.title | length <= 255))' \
		"$D/github-check.json"
	if grep -v -E '^::(error|warning|notice)( [a-z]+=[^,:]*(,[a-z]+=[^,:]*)*)?::' \
		"$D/github-commands.txt" >"$T/badcmd"; then
		sed 's/^/#   /' "$T/badcmd" | head -5
		t_fail "$fx: a line of github-commands.txt is not a workflow command"
	else
		t_ok "$fx: every line of github-commands.txt is one workflow command"
	fi

	# GitLab: OpenMetrics text, every sample line in its grammar.
	if grep -v -E '^(# (TYPE|HELP) [a-zA-Z_:][a-zA-Z0-9_:]* .*|[a-zA-Z_:][a-zA-Z0-9_:]*\{([a-z_]+="([^"\\]|\\.)*",?)*\} -?[0-9.e+-]+|# EOF)$' \
		"$D/metrics.txt" >"$T/badmet"; then
		sed 's/^/#   /' "$T/badmet" | head -5
		t_fail "$fx: metrics.txt has a line outside the OpenMetrics grammar"
	else
		t_ok "$fx: metrics.txt is OpenMetrics text"
	fi
	[ "$(tail -1 "$D/metrics.txt")" = "# EOF" ] &&
		t_ok "$fx: metrics.txt ends with # EOF" || t_fail "$fx: no # EOF"

	# Gerrit: a ReviewInput.
	jq_check "$fx: gerrit-review.json is a ReviewInput" \
		'(.message | type == "string") and .tag == "autogenerated:benchfarm" and ((.labels // {}) | type == "object") and (.comments | type == "object") and (has("robot_comments") | not) and all(.comments[][]; (.message | type == "string") and (.unresolved | type == "boolean") and ((.line // 1) | type == "number"))' \
		"$D/gerrit-review.json"

	# Skia Perf format version 1 and Bencher Metric Format.
	perf_check "$fx" "$D/skia-perf.json"
	jq_check "$fx: a trybot result: the base commit, issue and patchset" \
		'.git_hash == "1111111111111111111111111111111111111111" and .issue == "4711" and .patchset == "3"' \
		"$D/skia-perf.json"
	jq_check "$fx: bmf.json is Bencher Metric Format" \
		'type == "object" and all(.[]; type == "object" and all(.[]; (.value | type == "number") and ((.lower_value // 0) | type == "number") and ((.upper_value // 0) | type == "number")))' \
		"$D/bmf.json"
	jq_check "$fx: json is the document" '.kind == "compare"' "$D/result.json"
done

# The checks can fail: a JUnit file the schema rejects.
if [ $have_xmllint = 1 ]; then
	printf '<?xml version="1.0"?>\n<testsuites><testsuite tests="1"><testcase/></testsuite></testsuites>\n' \
		>"$T/bad.xml"
	if xmllint --noout --schema "$XSD" "$T/bad.xml" >/dev/null 2>&1; then
		t_fail "the schema accepts a test case without a name"
	else
		t_ok "the schema rejects a test case without a name"
	fi
fi

# Hostile names: the markdown has no live HTML, the commands no extra line.
D="$T/compare-hostile"
if grep -q '<script' "$D/report.md" "$D/github-summary.md" "$D/gitlab-note.md"; then
	t_fail "a <script> tag survived into the markdown"
else
	t_ok "no <script> tag in any markdown"
fi
n=$(jq '[.results[] | select(.verdict != "same" and .verdict != "unknown")] | length' \
	"$FX/compare-hostile.json")
e=$(jq '.errors | length' "$FX/compare-hostile.json")
lines=$(wc -l <"$D/github-commands.txt")
[ "$lines" -eq $((n + e)) ] && t_ok "one command per flagged result and failure ($lines)" ||
	t_fail "$lines command lines for $n results and $e failures"

# A format that does not render a kind says so, and names those that do.
expect_exit 2 "skia-perf does not render detect results" "$BF" report \
	-f skia-perf -i "$FX/detect.json"
grep_file "it names what it renders" \
	"skia-perf: reporter 'skia-perf' renders compare,run results, not 'detect'; formats for detect results: .*markdown.*junit" \
	"$ERR"
expect_exit 0 "markdown renders detect results" "$BF" report \
	-f markdown -i "$FX/detect.json"
grep_file "with the alerts" "^| micro / alpha | value |" "$OUT"

# Every format of a list is checked before anything is written: one that
# cannot render this kind of result, wherever it stands in the list,
# leaves the directory unmade (it used to hold the formats before it).
for list in markdown,junit,skia-perf skia-perf,markdown markdown,json,bmf; do
	expect_exit 2 "$list on a detect result: exit 2" "$BF" report \
		-f "$list" -i "$FX/detect.json" --output-dir "$T/half-$list"
	[ ! -e "$T/half-$list" ] && t_ok "$list: nothing written" ||
		t_fail "$list: wrote $(ls "$T/half-$list" | tr '\n' ' ')"
done
# The formats that render detect and bisect results render them together.
for fx in detect bisect; do
	expect_exit 0 "markdown,junit,json on a $fx result" "$BF" report \
		-f markdown,junit,json -i "$FX/$fx.json" --output-dir "$T/all-$fx"
	for f in report.md junit.xml result.json; do
		[ -s "$T/all-$fx/$f" ] && t_ok "$fx: $f written" ||
			t_fail "$fx: no $f"
	done
done
# A postsubmit run (kind "run"): its commit is one Perf and Bencher can
# place, so skia-perf and bmf render it, without any change.
D="$T/run"
expect_exit 0 "run: skia-perf and bmf render a postsubmit run" "$BF" report \
	-f skia-perf,bmf -i "$FX/run.json" --output-dir "$D"
perf_check run "$D/skia-perf.json"
jq_check "run: git_hash is the run's commit, no trybot fields" \
	'.git_hash == "3333333333333333333333333333333333333333" and
	 (has("issue") or has("patchset") | not) and (.results | length) == 4 and
	 .results[0].measurements.stat[0] == {"value": "median", "measurement": 48250}' \
	"$D/skia-perf.json"
jq_check "run: bmf has its medians, MB/s apart from ops/s, latency in ns" \
	'.["micro/BM_sort/1024"].real_time == {"value": 48250, "lower_value": 48100, "upper_value": 48700} and
	 (.["io/copy"] | keys) == ["throughput-mb-s"] and
	 .["io/open"].latency.value == 12500 and
	 .["micro/BM_hash"].throughput.value == 1200000000' "$D/bmf.json"

# A comparison without a known change: Perf would retry the unmerged
# commit, then drop the file; skia-perf says why instead (exit 2).
expect_exit 2 "skia-perf refuses a comparison without a change" \
	"$BF" report -f skia-perf -i "$FX/compare-regressed.json"
grep_file "and says what to give" \
	"unmerged patch.*BENCHFARM_PERF_ISSUE.*'run' result" "$ERR"
GITHUB_REF=refs/pull/58/merge expect_exit 0 "a GitHub pull request's" \
	"$BF" report -f skia-perf -i "$FX/compare-regressed.json" \
	--output-dir "$T/gh58"
jq_check "is issue 58, patchset the patch commit" \
	'.issue == "58" and .patchset == "2222222222222222222222222222222222222222"' \
	"$T/gh58/skia-perf.json"
