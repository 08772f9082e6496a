#!/bin/sh
# The github and gitlab reporters through the CLI: the check-run fields
# GitHub documents (checked by jq against each fixture's own numbers),
# every line of github-commands.txt one workflow command, and metrics.txt
# in the OpenMetrics text grammar (an awk parser of it below) with
# nothing GitLab's line parser would cut. Hostile names stay one command
# per line.
. "$(dirname "$0")/lib.sh"
# The CI's and the reporters' variables would change what is rendered.
unset GITHUB_SHA GITHUB_REF CI_MERGE_REQUEST_IID CHANGE_ID \
	GERRIT_CHANGE_NUMBER GERRIT_PATCHSET_NUMBER BENCHFARM_PERF_ISSUE \
	BENCHFARM_PERF_PATCHSET BENCHFARM_GERRIT_COMMENTS

FX="$BF_SRC/tests/fixtures/report"
CFG="$FX/golden/benchfarm.yaml"

# jqx "what" FILE JQ-ARGS...: passes when jq -e JQ-ARGS FILE is true.
jqx() {
	what=$1
	file=$2
	shift 2
	if [ -s "$file" ] && jq -e "$@" "$file" >/dev/null 2>&1; then
		t_ok "$what"
	else
		echo "#   jq -e $* is not true for $file"
		t_fail "$what"
	fi
}

# is_commands FILE: every line is ::error|warning|notice, optional
# properties with no raw ':', then '::'; no carriage return anywhere.
is_commands() {
	! grep -v -E '^::(error|warning|notice)( [^:]*)?::' "$1" >"$T/bad" &&
		! grep -q "$(printf '\r')" "$1"
}

# is_openmetrics FILE: OpenMetrics text of gauges, each family's TYPE
# before its samples, label values quoted with only \\ \" \n escapes,
# finite values, no '#' in a sample line (GitLab cuts lines there), and
# "# EOF" as the last line. Prints the first bad line.
is_openmetrics() {
	awk '
	function bad(why) { print NR ": " why ": " $0; err = 1; exit 1 }
	BEGIN { name = "^[a-zA-Z_:][a-zA-Z0-9_:]*" }
	eof { bad("a line after # EOF") }
	$0 == "# EOF" { eof = 1; next }
	/^# TYPE / {
		if ($3 !~ (name "$") || $4 != "gauge" || NF != 4) bad("TYPE")
		if ($3 in typed) bad("a second TYPE")
		typed[$3] = 1; fam = $3; next
	}
	/^# HELP / { if ($3 !~ (name "$")) bad("HELP"); next }
	/^#/ { bad("an unknown comment") }
	{
		line = $0
		if (index(line, "#")) bad("a # in a sample")
		if (!match(line, name)) bad("no metric name")
		m = substr(line, 1, RLENGTH); line = substr(line, RLENGTH + 1)
		if (m != fam) bad("a sample outside its family")
		if (substr(line, 1, 1) == "{") {
			line = substr(line, 2)
			while (substr(line, 1, 1) != "}") {
				if (!match(line, /^[a-zA-Z_][a-zA-Z0-9_]*="/))
					bad("label name")
				line = substr(line, RLENGTH + 1)
				# the value: plain characters or \\ \" \n
				if (!match(line, /^([^"\\]|\\[\\"n])*"/))
					bad("label value")
				line = substr(line, RLENGTH + 1)
				if (substr(line, 1, 1) == ",")
					line = substr(line, 2)
				else if (substr(line, 1, 1) != "}")
					bad("after a label")
			}
			line = substr(line, 2)
		}
		if (line !~ /^ -?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?$/)
			bad("the value")
		n++
	}
	END { if (!err && !eof) { print "no # EOF"; exit 1 } }
	' "$1"
}

for fx in compare-regressed compare-clean compare-infra compare-hostile; do
	D="$T/$fx"
	J="$FX/$fx.json"
	expect_exit 0 "$fx: report --format github" "$BF" report -c "$CFG" \
		--no-post --format github --input "$J" --output-dir "$D"
	for f in github-check.json github-summary.md github-commands.txt \
		github-comment.md github-check-updates.json; do
		[ -f "$D/$f" ] && t_ok "$fx: $f written" || t_fail "$fx: no $f"
	done
	# The PR comment is the markdown report, byte for byte, when it fits.
	expect_exit 0 "$fx: report --format markdown" "$BF" report -c "$CFG" \
		--no-post --format markdown --input "$J" --output-dir "$D"
	cmp -s "$D/github-comment.md" "$D/report.md" &&
		t_ok "$fx: github-comment.md is report.md" ||
		t_fail "$fx: github-comment.md differs from report.md"
	expect_exit 0 "$fx: github without --output-dir" "$BF" report \
		-c "$CFG" --no-post -f github -i "$J"
	cmp -s "$OUT" "$D/github-check.json" &&
		t_ok "$fx: the primary output is the check run" ||
		t_fail "$fx: stdout is not github-check.json"

	# The check run against the fixture's own verdicts.
	jqx "$fx: check-run fields" "$D/github-check.json" --slurpfile d "$J" '
		($d[0]) as $d | ($d.results) as $r |
		keys == ["conclusion", "details_url", "head_sha", "name", "output", "status"] and
		.name == "perf/pixel" and .head_sha == $d.patch.commit and
		.status == "completed" and
		.details_url == "https://ci.example.com/benchfarm/7" and
		(.output | keys) == ["annotations", "summary", "title"] and
		(.output.title | length) <= 255 and
		(.output.summary | length) <= 65535 and
		(.output.annotations | length) ==
			([$r[] | select(.verdict | IN("regressed", "improved", "error"))] | length) and
		all(.output.annotations[];
			(keys == ["annotation_level", "end_line", "message", "path", "start_line", "title"]) and
			.start_line >= 1 and .end_line == .start_line and
			(.annotation_level | IN("notice", "warning", "failure")) and
			(.title | length <= 255) and (.title | test("[\r\n]") | not)) and
		([.output.annotations[].annotation_level] | . == sort_by(
			if . == "failure" then 0 elif . == "warning" then 1 else 2 end))'
	jqx "$fx: annotations point at the source, else the config" \
		"$D/github-check.json" --slurpfile d "$J" '
		($d[0]) as $d |
		[$d.results[] | select(.verdict == "regressed") |
			{path: (.source.file // $d.config), start_line: (.source.line // 1)}] as $want |
		[.output.annotations[] | select(.annotation_level == "failure") |
			{path, start_line}] == $want'
	jqx "$fx: the summary is the step summary" "$D/github-check.json" \
		--rawfile s "$D/github-summary.md" '.output.summary == $s'
	grep_file "$fx: the summary starts with the marker" \
		'^<!-- benchfarm:report name=perf/pixel -->$' "$D/github-summary.md"

	# Workflow commands: one a line, as many as results to flag.
	if is_commands "$D/github-commands.txt"; then
		t_ok "$fx: every line of github-commands.txt is a workflow command"
	else
		sed 's/^/#   /' "$T/bad" | head -5
		t_fail "$fx: github-commands.txt has a line that is not a command"
	fi
	want=$(jq '([.results[] | select(.verdict | IN("regressed", "improved", "error"))] | length)
		+ (.errors | length) + (if .infra_error then 1 else 0 end)' "$J")
	got=$(wc -l <"$D/github-commands.txt")
	[ "$got" -eq "$want" ] && t_ok "$fx: $want commands, one a line" ||
		t_fail "$fx: $got command lines, want $want"

	# GitLab: the note and OpenMetrics metrics.txt.
	expect_exit 0 "$fx: report --format gitlab" "$BF" report -c "$CFG" \
		--no-post --format gitlab --input "$J" --output-dir "$D"
	cmp -s "$D/gitlab-note.md" "$D/github-comment.md" &&
		t_ok "$fx: the note is the review comment, with its link" ||
		t_fail "$fx: gitlab-note.md differs from the comment"
	if is_openmetrics "$D/metrics.txt" >"$T/why"; then
		t_ok "$fx: metrics.txt is OpenMetrics text"
	else
		sed 's/^/#   /' "$T/why"
		t_fail "$fx: metrics.txt is not OpenMetrics text"
	fi
	want=$(jq '[.results[] | select(.patch.median | type == "number")] | length' "$J")
	got=$(grep -c '^benchfarm_patch_median{' "$D/metrics.txt")
	[ "$got" -eq "$want" ] && t_ok "$fx: a patch median per measured result ($got)" ||
		t_fail "$fx: $got patch medians, want $want"
	want=$(jq '[.results[] | select(.verdict == "regressed")] | length' "$J")
	got=$(grep -c '^benchfarm_regressed{.*} 1$' "$D/metrics.txt")
	[ "$got" -eq "$want" ] && t_ok "$fx: benchfarm_regressed 1 for each regression" ||
		t_fail "$fx: $got regressed metrics, want $want"
done

# GitHub refuses a comment over 65,536 characters: 1500 results with long
# names give a comment cut below that, marker first, saying it was cut.
jq '.results = [range(1500) as $i | .results[0] |
	.name = ("BM_" + ("\u00e9" * 150) + ($i | tostring)) |
	.verdict = "same"]' "$FX/compare-clean.json" >"$T/many.json"
expect_exit 0 "1500 results" "$BF" report -c "$CFG" --no-post -f github \
	-i "$T/many.json" --output-dir "$T/many"
# (jq -R -s: each file as one JSON string; its length is in characters)
jq -R -s . "$T/many/github-summary.md" >"$T/many-summary.json"
jq -R -s . "$T/many/github-comment.md" >"$T/many-comment.json"
jq_check "the step summary has all 1500 (over 65,536 characters)" \
	'length > 65536 and (test("cut to GitHub") | not)' "$T/many-summary.json"
jq_check "the comment is at most 65,536 characters" \
	'length <= 65536 and length > 60000' "$T/many-comment.json"
jq_check "it starts with its marker" \
	'startswith("<!-- benchfarm:report name=perf/pixel -->\n")' \
	"$T/many-comment.json"
jq_check "and ends saying it was cut" \
	'endswith("\n…(cut to GitHub'"'"'s limit for a comment; the whole report is in the job'"'"'s step summary)\n")' \
	"$T/many-comment.json"

# Exact values for the regressed fixture.
D="$T/compare-regressed"
jq_check "regressed: failure, titled by counts, the regression first" '
	.conclusion == "failure" and .output.title == "1 regression, 1 improvement" and
	.output.annotations[0] == {path: "bench/sort_bench.cc", start_line: 42,
		end_line: 42, annotation_level: "failure",
		title: "micro/BM_sort/1024 real_time",
		message: "regressed: +12.3% [+8.0%, +17.0%], p 0.002 (base median 48200, patch median 54130 ns)"}' \
	"$D/github-check.json"
grep_file "regressed: the error command at the source line" \
	'^::error file=bench/sort_bench.cc,line=42,title=benchfarm%3A micro/BM_sort/1024 real_time::regressed: +12.3%25 ' \
	"$D/github-commands.txt"
grep_file "regressed: GitLab's patch median" \
	'^benchfarm_patch_median{suite="micro",benchmark="BM_sort/1024",metric="real_time",unit="ns"} 54100$' \
	"$D/metrics.txt"
grep_file "regressed: and the change" \
	'^benchfarm_change_ratio{suite="micro",benchmark="BM_sort/1024",metric="real_time",unit="ns"} 0.123$' \
	"$D/metrics.txt"
jq_check "clean: a success" '.conclusion == "success" and
	.output.title == "No regressions" and .output.annotations == []' \
	"$T/compare-clean/github-check.json"
[ ! -s "$T/compare-clean/github-commands.txt" ] &&
	t_ok "clean: no commands" || t_fail "clean: commands for nothing"

# Infrastructure failures: neutral, never "no regressions".
D="$T/compare-infra"
jq_check "infra: neutral and says what was not measured" '
	.conclusion == "neutral" and
	.output.title == "Incomplete: 1 result not measured, 4 runs failed; nothing regressed among what was measured"' \
	"$D/github-check.json"
if grep -q -i -E 'no regressions?' "$D"/*; then
	t_fail "infra: an output says no regressions"
else
	t_ok "infra: no output says no regressions"
fi
grep_file "infra: a warning for the lost connection" \
	"^::warning title=benchfarm%3A infrastructure failure::micro (patch, run 4, infra): connection to 'pixel-7' lost$" \
	"$D/github-commands.txt"

# fail_on never: a regression is neutral and a warning.
jq '.settings.fail_on = "never"' "$FX/compare-regressed.json" >"$T/never.json"
expect_exit 0 "fail_on never" "$BF" report -f github -i "$T/never.json" \
	--output-dir "$T/never"
jq_check "fail_on never: neutral, warning annotations" '
	.conclusion == "neutral" and .name == "benchfarm" and
	(has("details_url") | not) and
	.output.annotations[0].annotation_level == "warning"' \
	"$T/never/github-check.json"
grep_file "fail_on never: a ::warning, not an ::error" \
	'^::warning file=bench/sort_bench.cc,line=42,' "$T/never/github-commands.txt"

# Hostile names: one command a line, nothing injected, nothing cut.
D="$T/compare-hostile"
if grep -n -v -E '^::(error|warning|notice) ' "$D/github-commands.txt" |
	grep -q .; then
	t_fail "hostile: a line does not start a command"
else
	t_ok "hostile: every line starts a command"
fi
grep_file "hostile: the injected command stays inside the title" \
	'title=benchfarm%3A suite "%3A%3Aerror%3A%3Ainject%250A%0D%0A"/' \
	"$D/github-commands.txt"
if grep -q '::error::inject' "$D/github-commands.txt"; then
	t_fail "hostile: a raw ::error:: survived"
else
	t_ok "hostile: no raw ::error:: in the commands"
fi
jq_check "hostile: titles are single lines" \
	'all(.output.annotations[]; .title | explode | all(. >= 32))' \
	"$D/github-check.json"

# A name with '#' (GitLab cuts lines there) and a long line of escapes.
jq '.results[0].name = "BM_a#b \"q\" \\ x"' "$FX/compare-regressed.json" \
	>"$T/hash.json"
expect_exit 0 "a name with #" "$BF" report -f gitlab -i "$T/hash.json" \
	--output-dir "$T/hash"
if is_openmetrics "$T/hash/metrics.txt" >"$T/why"; then
	t_ok "metrics.txt with a # in a name is still OpenMetrics"
else
	sed 's/^/#   /' "$T/why"
	t_fail "metrics.txt with a # in a name"
fi
grep_file "its label is escaped, # made fullwidth" \
	'^benchfarm_patch_median{suite="micro",benchmark="BM_a＃b \\"q\\" \\\\ x",' \
	"$T/hash/metrics.txt"

# The check run against GitHub's own request schemas (octokit's OpenAPI
# description, tests/fixtures/report/github-check-run.schema.json), with
# python3-jsonschema: 177 annotations, as in a real run that lost 127 of
# them, go as a check of 50 and three updates of 50, 50 and 27.
# check_run_valid CREATE [UPDATES]: prints the first error.
check_run_valid() {
	python3 - "$FX/github-check-run.schema.json" "$@" <<'X'
import json, sys
from jsonschema import Draft4Validator
s = json.load(open(sys.argv[1]))
docs = [("create", json.load(open(sys.argv[2])))]
if len(sys.argv) > 3:
    docs += [("update", u) for u in json.load(open(sys.argv[3]))]
for kind, d in docs:
    for e in Draft4Validator(s[kind]).iter_errors(d):
        print("%s: %s at %s" % (kind, e.message[:200], list(e.path)))
        sys.exit(1)
X
}
if python3 -c 'import jsonschema' 2>/dev/null; then
	jq '.results = [range(177) as $i | .results[1] |
		.name = "BM_sort/\($i)" | .source.line = $i + 1]' \
		"$FX/compare-regressed.json" >"$T/177.json"
	expect_exit 0 "177 regressions" "$BF" report -c "$CFG" --no-post \
		-f github -i "$T/177.json" --output-dir "$T/177"
	for fx in compare-regressed compare-clean compare-infra compare-hostile 177; do
		d=$T/$fx
		if check_run_valid "$d/github-check.json" \
			"$d/github-check-updates.json" >"$T/why"; then
			t_ok "$fx: the check run and its updates fit GitHub's schemas"
		else
			sed 's/^/#   /' "$T/why"
			t_fail "$fx: a check-run payload GitHub would refuse"
		fi
	done
	jq_check "177: 50 annotations in the check run" \
		'.output.annotations | length == 50' "$T/177/github-check.json"
	jq_check "177: and 50, 50 and 27 in three updates, in order" \
		'[.[].output.annotations | length] == [50, 50, 27] and
		 [.[].output.annotations[0].start_line] == [51, 101, 151]' \
		"$T/177/github-check-updates.json"
	jq -s '[.[0].output.annotations[], .[1][].output.annotations[]] |
		[.[].start_line] == [range(1; 178)]' "$T/177/github-check.json" \
		"$T/177/github-check-updates.json" >"$T/all"
	grep_file "177: every annotation is sent, once each" '^true$' "$T/all"
	jq '.output.annotations += .output.annotations[:1]' \
		"$T/177/github-check.json" >"$T/51.json"
	check_run_valid "$T/51.json" >/dev/null &&
		t_fail "the schema check accepts 51 annotations in a request" ||
		t_ok "the schema check rejects 51 annotations in a request"
else
	echo "ok 950 # skip python3-jsonschema not installed"
fi

# The grammar checks can fail.
printf '# TYPE a gauge\na{x="1} 2\n# EOF\n' >"$T/bad1"
printf '# TYPE a gauge\na{x="1"} NaN\n# EOF\n' >"$T/bad2"
printf '# TYPE a gauge\na{x="#"} 1\n# EOF\n' >"$T/bad3"
printf '# TYPE a gauge\na 1\n' >"$T/bad4"
for b in bad1 bad2 bad3 bad4; do
	if is_openmetrics "$T/$b" >/dev/null; then
		t_fail "the OpenMetrics check accepts $b"
	else
		t_ok "the OpenMetrics check rejects $b"
	fi
done
printf '::error file=a:b::x\n' >"$T/badc"
is_commands "$T/badc" && t_fail "the command check accepts a raw ':'" ||
	t_ok "the command check rejects a raw ':' in a property"

# Bad input: named, exit 2.
echo '{"kind": "compare"}' >"$T/nores.json"
for f in github gitlab; do
	expect_exit 2 "$f: no results" "$BF" report -f "$f" -i "$T/nores.json"
	grep_file "$f: the missing field is named" 'no "results" array' "$ERR"
done

# A detect result (postsubmit alerts): what a reader of a push pipeline
# expects on GitHub and GitLab, in the consumers' formats.
D="$T/detect"
GITHUB_SHA=feedfacefeedfacefeedfacefeedfacefeedface expect_exit 0 \
	"detect: report --format github,gitlab" "$BF" report -c "$CFG" \
	--no-post -f github,gitlab -i "$FX/detect.json" --output-dir "$D"
jq_check "detect: a failing check on the job's commit, titled by alerts" \
	'.conclusion == "failure" and .status == "completed" and
	 .head_sha == "feedfacefeedfacefeedfacefeedfacefeedface" and
	 .output.title == "1 new regression alert over 38 measured commits" and
	 .output.annotations == [] and
	 (.output.summary | startswith("<!-- benchfarm:report name=perf/pixel -->\n## benchfarm: 1 new alert over 38 measured commits\n"))' \
	"$D/github-check.json"
if python3 -c 'import jsonschema' 2>/dev/null; then
	if check_run_valid "$D/github-check.json" "$D/github-check-updates.json" \
		>"$T/why"; then
		t_ok "detect: the check run fits GitHub's schema"
	else
		sed 's/^/#   /' "$T/why"
		t_fail "detect: a check run GitHub would refuse"
	fi
fi
if is_commands "$D/github-commands.txt" &&
	[ "$(wc -l <"$D/github-commands.txt")" -eq 1 ]; then
	t_ok "detect: one workflow command, for the new regression"
else
	t_fail "detect: github-commands.txt"
fi
grep_file "detect: it names the series and the commits" \
	'^::error title=benchfarm%3A micro/alpha value::regressed +14.4%25 between b2854137dc88 and 24d4f7149a14' \
	"$D/github-commands.txt"
grep_file "detect: the GitLab note is the alerts' report with its link" \
	'https://ci.example.com/benchfarm/7' "$D/gitlab-note.md"
if is_openmetrics "$D/metrics.txt" >"$T/why"; then
	t_ok "detect: metrics.txt is OpenMetrics text"
else
	sed 's/^/#   /' "$T/why"
	t_fail "detect: metrics.txt is not OpenMetrics text"
fi
grep_file "detect: a metric per alert" \
	'^benchfarm_alert_new{suite="micro",benchmark="alpha",metric="value",unit="ns",direction="regressed",commit="24d4f7149a14b5054e477622e6cefb5f7eeed423"} 1$' \
	"$D/metrics.txt"

# A bisect result (benchfarm bisect --json): the culprit, on GitHub and
# GitLab, in the consumers' formats.
D="$T/bisect"
expect_exit 0 "bisect: report --format github,gitlab" "$BF" report \
	-c "$CFG" --no-post -f github,gitlab -i "$FX/bisect.json" \
	--output-dir "$D"
jq_check "bisect: a failing check on the culprit, titled by it" \
	'.conclusion == "failure" and
	 .head_sha == "1717171717171717171717171717171717171717" and
	 .output.title == "culprit 171717171717: micro alpha value regressed"' \
	"$D/github-check.json"
if python3 -c 'import jsonschema' 2>/dev/null; then
	if check_run_valid "$D/github-check.json" "$D/github-check-updates.json" \
		>"$T/why"; then
		t_ok "bisect: the check run fits GitHub's schema"
	else
		sed 's/^/#   /' "$T/why"
		t_fail "bisect: a check run GitHub would refuse"
	fi
fi
is_commands "$D/github-commands.txt" &&
	t_ok "bisect: github-commands.txt is workflow commands" ||
	t_fail "bisect: github-commands.txt"
grep_file "bisect: the note names the culprit" \
	'^## benchfarm: bisect of micro / alpha value: culprit `171717171717`$' \
	"$D/gitlab-note.md"
if is_openmetrics "$D/metrics.txt" >"$T/why"; then
	t_ok "bisect: metrics.txt is OpenMetrics text"
else
	sed 's/^/#   /' "$T/why"
	t_fail "bisect: metrics.txt is not OpenMetrics text"
fi
