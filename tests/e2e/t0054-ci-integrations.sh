#!/bin/sh
# The CI integrations under plugins/ci/ as files: the GitHub composite
# action, the GitLab CI template and the Jenkins pipeline step
# (t0059-ci-integrations-run.sh runs their scripts).
#  - action.yml, the GitLab template and the YAML of both READMEs are
#    parsed by libyaml (tests/tools/yaml_to_json.c, compiled here) and
#    their structure checked with jq; no ${{ }} expression is inside a
#    run: script (GitHub's script-injection guidance).
#  - every `"$BENCHFARM" SUBCOMMAND` the three integrations run exists,
#    every option they pass is in that subcommand's --help, and every
#    report format they ask for is in `benchfarm report --list`.
#  - Groovy cannot run here: the Jenkins step is checked as text (sh with
#    returnStatus in withEnv, single-quoted scripts, junit,
#    archiveArtifacts, the status returned).
#  - the scripts extracted from the three pass shellcheck, when installed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ci_lib.sh"

# The YAML checker: libyaml in, jansson out, as the project builds them.
if ci_build_y2j; then
	t_ok "yaml_to_json builds against yaml-0.1 and jansson"
else
	t_fail "yaml_to_json does not build"
	exit 1
fi

# The checker itself: a duplicate key and a syntax error are caught.
printf 'a: 1\nb:\n  - {c: d}\n' >"$T/ok.yml"
expect_exit 0 "yaml_to_json parses a mapping" "$Y2J" "$T/ok.yml"
jq_check "scalars are strings, nesting kept" '.a == "1" and .b[0].c == "d"' \
	"$OUT"
printf 'a: 1\nb: 2\na: 3\n' >"$T/dup.yml"
expect_exit 1 "a duplicate key is an error" "$Y2J" "$T/dup.yml"
grep_file "it is located" "dup.yml:3:1: duplicate key: a" "$ERR"
printf 'a: [1, 2\nb: 3\n' >"$T/bad.yml"
expect_exit 1 "a syntax error is an error" "$Y2J" "$T/bad.yml"
grep_file "with line and column" "bad.yml:[0-9]*:[0-9]*: " "$ERR"

# y2j NAME FILE: parses FILE into $T/NAME.json (no file when it fails:
# jq -e is true on an empty input).
y2j() {
	if "$Y2J" "$2" >"$T/$1.json" 2>"$ERR"; then
		t_ok "$(basename "$2") parses"
	else
		rm -f "$T/$1.json"
		t_fail "$(basename "$2") does not parse"
	fi
}

# --- The GitHub action ------------------------------------------------
y2j action "$ACTION"
A="$T/action.json"
jq_check "action: name and description" \
	'(.name | length) > 0 and (.description | length) > 0' "$A"
jq_check "action: the inputs asked for, each described" \
	'.inputs as $i | ["config", "repeats", "pool", "base", "patch",
	  "check-name", "report-dir", "fail-on-regression", "benchfarm"] |
	 all(. as $k | $i[$k].description | length > 0)' "$A"
jq_check "action: defaults of config, check-name, benchfarm" \
	'.inputs.config.default == "benchfarm.yaml" and
	 .inputs["check-name"].default == "benchfarm" and
	 .inputs.benchfarm.default == "benchfarm"' "$A"
jq_check "action: a composite action" '.runs.using == "composite"' "$A"
jq_check "action: every run step has shell bash" \
	'[.runs.steps[] | select(has("run"))] | length >= 3 and
	 all(.shell == "bash")' "$A"
jq_check "action: every step either runs or uses" \
	'all(.runs.steps[]; (has("run") or has("uses")) and
	 (has("run") and has("uses") | not))' "$A"
jq_check "action: no \${{ }} inside a run script" \
	'all(.runs.steps[] | select(has("run")); .run | contains("${{") | not)' \
	"$A"
jq_check "action: env values are single expressions of inputs, steps, github" \
	'[.runs.steps[] | .env // {} | to_entries[] | .value] |
	 all(test("^\\$\\{\\{ (inputs|steps|github)\\.[a-z0-9_.-]+ \\}\\}$"))' \
	"$A"
jq_check "action: every inputs.X used is declared" \
	'(.inputs | keys) as $k |
	 [.. | strings | scan("inputs\\.([a-z0-9_-]+)") | .[0]] | unique |
	 all(. as $x | $k | index($x))' "$A"
jq_check "action: outputs result, exit-code, regressions from the compare step" \
	'[.outputs.result, .outputs["exit-code"], .outputs.regressions] |
	 all(.value | test("^\\$\\{\\{ steps\\.compare\\.outputs\\."))' "$A"
jq_check "action: the JSON is uploaded with upload-artifact v4" \
	'[.runs.steps[] | select(.uses == "actions/upload-artifact@v4")] |
	 length == 1 and (.[0].if | contains("always()"))' "$A"
jq_check "action: the artifact is named by the compare step (sanitised)" \
	'[.runs.steps[] | select(.uses == "actions/upload-artifact@v4")][0] |
	 .with.name == "${{ steps.compare.outputs.artifact-name }}"' "$A"
jq_check "action: the comment step runs after a failure too" \
	'[.runs.steps[] | select(.id == "comment")][0].if | contains("always()")' \
	"$A"
jq_check "action: the last step exits with the status, always" \
	'.runs.steps[-1] | .if == "always()" and (.run | contains("exit \"$code\""))' \
	"$A"
jq_check "check run: skipped when the input is false or without a result" \
	'[.runs.steps[] | select(.id == "check-run")][0].if |
	 contains("inputs.check-run == '"'"'true'"'"'") and
	 contains("steps.compare.outputs.result != '"''"'") and
	 contains("always()")' "$A"
# Every steps.compare.outputs.X read somewhere is written by the script.
jq -r '.runs.steps[] | select(.id == "compare") | .run' "$A" >"$T/gh-compare.sh"
jq -r '.runs.steps[] | select(.id == "comment") | .run' "$A" >"$T/gh-comment.sh"
jq -r '.runs.steps[-1].run' "$A" >"$T/gh-verdict.sh"
missing=
for o in $(jq -r '[.. | strings | scan("steps\\.compare\\.outputs\\.([a-z0-9_-]+)") | .[0]] | unique[]' "$A"); do
	grep -q "^ *out $o " "$T/gh-compare.sh" || missing="$missing $o"
done
[ -z "$missing" ] && t_ok "action: every output read is written" ||
	t_fail "action: outputs never written:$missing"

# --- The GitLab template ----------------------------------------------
y2j gitlab "$GITLAB"
G="$T/gitlab.json"
jq_check "gitlab: the hidden job .benchfarm-compare has a script" \
	'.[".benchfarm-compare"].script | type == "array" and length > 0' "$G"
jq_check "gitlab: metrics and junit reports, the result kept" \
	'.[".benchfarm-compare"].artifacts |
	 .reports.metrics == "benchfarm-report/metrics.txt" and
	 .reports.junit == "benchfarm-report/junit.xml" and
	 (.paths | index("benchfarm-report/")) and .when == "always"' "$G"
jq_check "gitlab: the variables users set" \
	'.[".benchfarm-compare"].variables | has("BENCHFARM_CONFIG") and
	 has("BENCHFARM_REPEATS") and has("BENCHFARM_POOL") and
	 has("BENCHFARM_CHECK_NAME") and .GIT_DEPTH == "0"' "$G"
ci_gitlab_script
grep_file "gitlab: base from the MR diff base" \
	'base=${CI_MERGE_REQUEST_DIFF_BASE_SHA' "$T/gl.sh"
grep_file "gitlab: patch is the pipeline's commit" 'patch=${CI_COMMIT_SHA' \
	"$T/gl.sh"
jq_check "gitlab: no other top-level keys (nothing leaks into the pipeline)" \
	'keys == [".benchfarm-compare"]' "$G"

# --- The Jenkins step, as text ----------------------------------------
grep_file "jenkins: def call(Map args = [:])" '^def call(Map args = \[:\])' \
	"$GROOVY"
grep_file "jenkins: sh with returnStatus inside withEnv" \
	"code = sh(returnStatus: true" "$GROOVY"
grep_file "jenkins: withEnv" "withEnv(vars)" "$GROOVY"
grep_file "jenkins: junit on junit.xml" 'junit(testResults: "${dir}/junit.xml"' \
	"$GROOVY"
grep_file "jenkins: propagate defaults to true" \
	"^    boolean propagate = args.propagate != false$" "$GROOVY"
grep_file "jenkins: junit marks the build UNSTABLE only when propagating" \
	"^ *skipMarkingBuildUnstable: !propagate)$" "$GROOVY"
grep_file "jenkins: the verdict is propagated by the same flag" \
	"^    if (propagate) {$" "$GROOVY"
grep_file "jenkins: archiveArtifacts" "archiveArtifacts(artifacts:" "$GROOVY"
grep_file "jenkins: returns the status" "^    return code$" "$GROOVY"
# Every sh script is a single-quoted Groovy string (no interpolation).
n_sh=$(grep -c 'sh(' "$GROOVY")
n_sq=$(grep -c "sh(.*script: '''$" "$GROOVY")
[ "$n_sh" -ge 2 ] && [ "$n_sh" = "$n_sq" ] &&
	t_ok "jenkins: all $n_sh sh scripts are ''' strings" ||
	t_fail "jenkins: $n_sh sh calls, $n_sq single-quoted"
ci_jenkins_scripts
[ -s "$T/jk1.sh" ] && [ -s "$T/jk2.sh" ] &&
	t_ok "jenkins: two shell scripts extracted" ||
	t_fail "jenkins: shell scripts not found"
grep_file "jenkins: Gerrit change and patch set" \
	'--gerrit-change "$GERRIT_CHANGE_NUMBER,$GERRIT_PATCHSET_NUMBER"' \
	"$T/jk2.sh"

# --- The READMEs' pipeline files ----------------------------------------
# yaml_blocks README PREFIX: each ```yaml block into PREFIX.N.yml.
yaml_blocks() {
	awk -v p="$2" '/^```yaml$/ { n++; f = p "." n ".yml"; next }
		/^```$/ { f = ""; next } f { print > f }' "$1"
}
yaml_blocks "$CI/github-action/README.md" "$T/ghreadme"
y2j ghwf "$T/ghreadme.1.yml"
jq_check "README: a pull_request workflow with a full checkout" \
	'(.on | has("pull_request")) and
	 ([.jobs[].steps[] | select(.uses // "" | startswith("actions/checkout@"))
	   | .with["fetch-depth"]] == ["0"])' "$T/ghwf.json"
jq_check "README: it uses the action and installs benchfarm first" \
	'[.jobs[].steps[] | .uses // .run] |
	 (map(strings | test("plugins/ci/github-action")) | index(true)) as $u |
	 (map(strings | test("make .*install")) | index(true)) as $i |
	 $u != null and $i != null and $i < $u' "$T/ghwf.json"
jq_check "README: the permissions the comment and the check run need" \
	'.permissions["pull-requests"] == "write" and
	 .permissions.checks == "write"' "$T/ghwf.json"
yaml_blocks "$CI/gitlab/README.md" "$T/glreadme"
y2j glci "$T/glreadme.1.yml"
jq_check "README: .gitlab-ci.yml includes the template and extends the job" \
	'(.include | tostring | contains("benchfarm.gitlab-ci.yml")) and
	 ([.[] | objects | select(.extends == ".benchfarm-compare")] | length) >= 1' \
	"$T/glci.json"
grep_file "README: a Jenkinsfile using the step" "benchfarmCompare(" \
	"$CI/jenkins/README.md"
grep_file "README: the Gerrit Trigger variables" "GERRIT_PATCHSET_NUMBER" \
	"$CI/jenkins/README.md"

# --- The benchfarm commands they call ---------------------------------
# calls FILE: one line per "$BENCHFARM" call, continuation lines joined.
calls() {
	sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$1" |
		grep -o '"\$BENCHFARM" [a-z][a-z-]*.*'
}
: >"$T/calls"
for f in "$T/gh-compare.sh" "$T/gl.sh" "$T/jk1.sh" "$T/jk2.sh"; do
	calls "$f" >>"$T/calls"
done
for f in "$T/gh-compare.sh" "$T/gl.sh" "$T/jk1.sh"; do
	if calls "$f" | grep -q '^"$BENCHFARM" compare ' &&
		calls "$f" | grep -q '^"$BENCHFARM" report '; then
		t_ok "$(basename "$f") runs compare and report"
	else
		t_fail "$(basename "$f") does not run compare and report"
	fi
done
"$BF" report --list >"$T/formats" 2>"$ERR" || t_fail "report --list"
bad=
while IFS= read -r line; do
	sub=$(printf '%s\n' "$line" | cut -d' ' -f2)
	rest=$(printf '%s\n' "$line" | cut -d' ' -f3-)
	if ! "$BF" "$sub" --help >"$T/help" 2>&1; then
		bad="$bad [$sub --help fails]"
		continue
	fi
	for o in $(printf '%s\n' "$rest" |
		grep -oE '(^|[ +])--?[a-zA-Z][a-zA-Z-]*' | tr -d ' +'); do
		grep -qE -- "(^|[ ,])$o([ =,]|\$)" "$T/help" ||
			bad="$bad [$sub $o]"
	done
	for w in $(printf '%s\n' "$rest" |
		grep -oE -- '--(format|report) [a-z:,-]+' | cut -d' ' -f2 |
		tr ',' ' '); do
		grep -q "^$w " "$T/formats" || bad="$bad [format $w]"
	done
done <"$T/calls"
n=$(wc -l <"$T/calls")
[ -z "$bad" ] && [ "$n" -ge 7 ] &&
	t_ok "$n benchfarm calls: subcommands, options and formats exist" ||
	t_fail "$n benchfarm calls; missing:$bad"

# --- shellcheck of the extracted scripts, when installed ----------------
if command -v shellcheck >/dev/null 2>&1; then
	for f in gh-compare gh-comment gh-verdict; do
		check "shellcheck: action step $f" shellcheck -s bash "$T/$f.sh"
	done
	check "shellcheck: gitlab script" shellcheck -s sh "$T/gl.sh"
	check "shellcheck: jenkins scripts" shellcheck -s sh "$T/jk1.sh" \
		"$T/jk2.sh"
else
	echo "ok 900 # skip shellcheck not installed"
fi
