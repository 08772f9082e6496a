#!/bin/sh
# The scripts of the CI integrations under plugins/ci/ run for real on a
# small repository (t0054-ci-integrations.sh checks them as files).
#  - the action's scripts run with bash, with the environment GitHub
#    gives them: step summary, outputs, workflow commands suspended
#    around benchfarm's own output, no gh (the comment is skipped), a
#    stand-in gh (create, then update the comment with the marker; the
#    check run), the exit status of the last step.
#  - the GitLab script runs with sh -e against a GitLab API stand-in on
#    127.0.0.1 (python3): the note is added once, found by its marker
#    across pages and updated in place the second time.
#  - the Jenkins step's shell scripts, extracted from the Groovy file,
#    run with sh -e.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ci_lib.sh"

# The YAML checker parses the action and the template (t0054 checks
# both); the scripts are taken from what it parsed.
ci_build_y2j || {
	t_fail "yaml_to_json does not build"
	exit 1
}
for f in "action:$ACTION" "gitlab:$GITLAB"; do
	"$Y2J" "${f#*:}" >"$T/${f%%:*}.json" 2>"$ERR" || {
		t_fail "$(basename "${f#*:}") does not parse"
		exit 1
	}
done
G="$T/gitlab.json"
ci_gitlab_script
ci_jenkins_scripts

# --- A repository to run them on ----------------------------------------
# alpha is twice as slow on the patch, beta the same; the build step of
# the second config prints a workflow command and fails.
R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
printf 'echo "alpha 100 ns"\necho "beta 50 ns"\n' >"$R/bench.sh"
cat >"$R/benchfarm.yaml" <<'X'
version: 1
project: {repo: ., target_branch: main}
benchmarks:
  - {name: micro, command: [sh, bench.sh], format: lines}
runs: {repeats: 5, warmup: 0}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks]}
review: {link: "https://ci.example.com/pipelines/7"}
X
sed 's/^project: .*/project: {repo: ., target_branch: main, build: [sh, -c, "echo ::error::pwned-by-build; exit 1"]}/' \
	"$R/benchfarm.yaml" >"$R/broken.yaml"
t_git -C "$R" add -A
t_git -C "$R" commit -q -m base
t_git -C "$R" checkout -q -b patch
sed -i 's/alpha 100/alpha 200/' "$R/bench.sh"
t_git -C "$R" commit -q -am "alpha twice as slow"
MAIN=$(git -C "$R" rev-parse main)
PATCH=$(git -C "$R" rev-parse patch)

# PATH without any gh, so the comment step takes its "no gh" branch.
NOGH=$(printf '%s\n' "$PATH" | tr ':' '\n' |
	while IFS= read -r d; do [ -x "$d/gh" ] || printf '%s:' "$d"; done)
NOGH=${NOGH%:}

# --- The action, run as GitHub runs it --------------------------------
# gh_step ID INPUTS_JSON LOG: runs step ID of action.yml with bash in $R,
# its env: resolved from INPUTS_JSON (else the inputs' defaults), the
# outputs of the compare step and $T/github.json; stdout and stderr
# together in LOG (as the runner's log); outputs in $T/out-ID.
gh_step() {
	jq -n -r --arg id "$1" --slurpfile a "$T/action.json" --argjson in "$2" \
		--slurpfile gh "$T/github.json" --slurpfile o "$T/out-compare.json" '
		$gh[0] as $g |
		($a[0].inputs | with_entries(.value = (.value.default // ""))) as $d |
		($d + $in | with_entries(.value |= (if test("^\\$\\{\\{") then
			capture("^\\$\\{\\{ (?<p>[a-z0-9_.-]+) \\}\\}$").p |
			split(".") as $p | {github: $g} | getpath($p) // ""
			else . end))) as $inputs |
		{inputs: $inputs, github: $g, steps: {compare: {outputs: $o[0]}}} as $ctx |
		$a[0].runs.steps[] | select(.id == $id) | .env // {} |
		to_entries[] | .value |= (capture("^\\$\\{\\{ (?<p>[a-z0-9_.-]+) \\}\\}$").p |
			split(".") as $p | $ctx | getpath($p) // "" | tostring) |
		"export \(.key)=\(.value | @sh)"' >"$T/env-$1.sh"
	jq -r --arg id "$1" '.runs.steps[] | select(.id == $id) | .run' \
		"$T/action.json" >"$T/step-$1.sh"
	: >"$T/out-$1"
	(
		cd "$R" || exit 99
		. "$T/env-$1.sh"
		export GITHUB_OUTPUT="$T/out-$1" GITHUB_STEP_SUMMARY="$T/summary.md"
		export GITHUB_REPOSITORY=octo/widgets GITHUB_EVENT_NAME=pull_request
		exec bash --noprofile --norc -eo pipefail "$T/step-$1.sh"
	) >"$3" 2>&1
	rc=$?
	# The outputs file: NAME=VALUE or NAME<<DELIM ... DELIM.
	awk '
		d != "" { if ($0 == d) { print n "\t" v; d = ""; v = "" }
		          else v = (v == "" ? $0 : v "\n" $0); next }
		/^[A-Za-z0-9_-]+<</ { n = $0; sub(/<<.*/, "", n);
		                       d = $0; sub(/^[^<]*<</, "", d); next }
		/=/ { n = $0; sub(/=.*/, "", n); v = $0; sub(/^[^=]*=/, "", v);
		      print n "\t" v; v = "" }' "$T/out-$1" |
		jq -R -n '[inputs | split("\t") | {(.[0]): (.[1:] | join("\t"))}] |
			add // {}' >"$T/out-$1.json"
	return $rc
}
echo '{"token": "", "event": {"pull_request": {"number": 7}}}' >"$T/github.json"
echo '{}' >"$T/out-compare.json"
: >"$T/summary.md"

# id is "compare" in the action; the runs below give it the id names.
in='{"benchfarm": "'"$BF"'", "check-name": "perf-arm", "base": "main"}'
PATH="$NOGH" gh_step compare "$in" "$T/log1"
rc=$?
[ $rc -eq 0 ] && t_ok "action compare step: the step itself succeeds" ||
	{ sed 's/^/#   /' "$T/log1" | tail -20; t_fail "compare step exit $rc"; }
jq_check "outputs: exit-code 1 and 1 regression" \
	'.["exit-code"] == "1" and .regressions == "1"' "$T/out-compare.json"
jq_check "outputs: result, report-dir, comment body" \
	'.result == "benchfarm-report/result.json" and
	 .["report-dir"] == "benchfarm-report" and
	 .["comment-body"] == "benchfarm-report/github-comment.md"' \
	"$T/out-compare.json"
jq_check "the result is the comparison of main with HEAD" \
	".kind == \"compare\" and .base.commit == \"$MAIN\" and
	 .patch.commit == \"$PATCH\"" "$R/benchfarm-report/result.json"
jq_check "outputs: the artifact is named after the check" \
	'.["artifact-name"] == "perf-arm-report"' "$T/out-compare.json"
jq_check "outputs: the marker carries the check name" \
	'.marker == "<!-- benchfarm:report name=perf-arm -->"' \
	"$T/out-compare.json"
grep_file "the comment body has the marker" \
	"^<!-- benchfarm:report name=perf-arm -->$" \
	"$R/benchfarm-report/github-comment.md"
cmp -s "$R/benchfarm-report/github-comment.md" "$R/benchfarm-report/report.md" &&
	t_ok "the comment body is report.md (it fits GitHub's limit)" ||
	t_fail "the comment body differs from report.md"
grep_file "the HTML report is in the uploaded directory" 'id="bf-result"' \
	"$R/benchfarm-report/report.html"
grep_file "outside a workflow run the comment keeps the config's review.link" \
	'https://ci\.example\.com/pipelines/7' "$R/benchfarm-report/report.md"
if [ -s "$R/benchfarm-report/github-summary.md" ] &&
	cmp -s "$T/summary.md" "$R/benchfarm-report/github-summary.md"; then
	t_ok "the step summary is the github reporter's summary"
else
	t_fail "the step summary differs from github-summary.md"
fi
grep_file "the summary names the regressed benchmark" "alpha" "$T/summary.md"
tok=$(sed -n 's/^::stop-commands::\([0-9a-f]\{32\}\)$/\1/p' "$T/log1")
if [ -n "$tok" ] && grep -q "^::$tok::\$" "$T/log1"; then
	t_ok "workflow commands suspended with a random token and resumed"
else
	t_fail "no ::stop-commands::/resume pair in the log"
fi
# benchfarm's output is between the two, the annotations after them.
awk -v t="$tok" '$0 == "::stop-commands::" t { s = 1; next }
	$0 == "::" t "::" { s = 2; next } s == 1' "$T/log1" >"$T/log1-inside"
awk -v t="$tok" '$0 == "::" t "::" { s = 2; next } s == 2' "$T/log1" \
	>"$T/log1-after"
grep_file "compare's markdown is logged while commands are off" "| alpha " \
	"$T/log1-inside"
if [ -s "$R/benchfarm-report/github-commands.txt" ] &&
	grep -qxF "$(head -n 1 "$R/benchfarm-report/github-commands.txt")" \
		"$T/log1-after"; then
	t_ok "the github reporter's workflow commands are printed after"
else
	t_fail "github-commands.txt missing or not printed after the resume"
fi

# The comment step without gh: skipped with a notice, exit 0.
PATH="$NOGH" gh_step comment '{}' "$T/log2"
rc=$?
[ $rc -eq 0 ] && grep -q "gh is not installed" "$T/log2" &&
	t_ok "comment step: no gh, skipped cleanly" ||
	{ cat "$T/log2"; t_fail "comment step without gh: exit $rc"; }

# A stand-in gh: records its arguments; `api ... --jq F` answers with
# jq F over $T/comments.json (gh's own --jq is gojq, with $ENV too); a
# check-run request's --input is kept as $T/gh-check-N.json, N from 1,
# and its answer is the run's id, 555.
mkdir -p "$T/fakegh"
cat >"$T/fakegh/gh" <<X
#!/bin/sh
printf '%s\n' "\$*" >>"$T/gh.log"
case "\$*" in
*/check-runs*)
	n=\$(grep -c check-runs "$T/gh.log")
	while [ \$# -gt 0 ]; do
		[ "\$1" = --input ] && cp "\$2" "$T/gh-check-\$n.json"
		shift
	done
	echo 555
	exit 0 ;;
esac
if [ "\$1 \$2" = "api --method" ]; then
	for a in "\$@"; do
		case \$a in body=@*) cp "\${a#body=@}" "$T/gh-patched.md" ;; esac
	done
	echo '{}'
	exit 0
fi
if [ "\$1" = api ]; then
	while [ \$# -gt 0 ] && [ "\$1" != --jq ]; do shift; done
	exec jq -r "\$2" "$T/comments.json"
fi
if [ "\$1 \$2" = "pr comment" ]; then
	while [ \$# -gt 0 ] && [ "\$1" != --body-file ]; do shift; done
	cp "\$2" "$T/gh-posted.md"
	exit 0
fi
exit 9
X
chmod +x "$T/fakegh/gh"
cat >"$T/comments.json" <<'X'
[{"id": 11, "body": "LGTM"},
 {"id": 12, "body": "<!-- benchfarm:report name=other -->\nx"}]
X
PATH="$T/fakegh:$NOGH" gh_step comment '{}' "$T/log3"
rc=$?
grep_file "gh: the PR's comments are listed" \
	"^api repos/octo/widgets/issues/7/comments --paginate --jq " "$T/gh.log"
if [ $rc -eq 0 ] && grep -q "^pr comment 7 --repo octo/widgets --body-file " \
	"$T/gh.log" &&
	cmp -s "$T/gh-posted.md" "$R/benchfarm-report/github-comment.md"
then
	t_ok "gh: no comment with this marker, a new comment is posted"
else
	t_fail "gh: new comment (exit $rc)"
fi
cat >"$T/comments.json" <<'X'
[{"id": 11, "body": "LGTM"},
 {"id": 12, "body": "<!-- benchfarm:report name=other -->\nx"},
 {"id": 42, "body": "<!-- benchfarm:report name=perf-arm -->\nold"}]
X
: >"$T/gh.log"
PATH="$T/fakegh:$NOGH" gh_step comment '{}' "$T/log4"
rc=$?
if [ $rc -eq 0 ] &&
	grep -q "^api --method PATCH repos/octo/widgets/issues/comments/42 " \
		"$T/gh.log" && ! grep -q "^pr comment" "$T/gh.log" &&
	cmp -s "$T/gh-patched.md" "$R/benchfarm-report/github-comment.md"; then
	t_ok "gh: the comment with the marker (42) is updated in place"
else
	cat "$T/gh.log"
	t_fail "gh: update in place (exit $rc)"
fi

# The check run: created with the first 50 annotations on the PR's head
# commit, then one PATCH per 50 more. 120 regressions: 3 requests.
jq '.results = [range(120) as $i | .results[1] |
	.name = "BM_sort/\($i)" | .source.line = $i + 1]' \
	"$BF_SRC/tests/fixtures/report/compare-regressed.json" >"$T/120.json"
"$BF" report -f github -i "$T/120.json" --output-dir "$T/120" 2>/dev/null
echo '{"report-dir": "'"$T/120"'", "result": "x"}' >"$T/out-compare.json"
echo '{"token": "", "event": {"pull_request": {"number": 7,
	"head": {"sha": "feedfacefeedfacefeedfacefeedfacefeedface"}}}}' \
	>"$T/github.json"
: >"$T/gh.log"
PATH="$T/fakegh:$NOGH" gh_step check-run '{}' "$T/log5"
rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c check-runs "$T/gh.log")" -eq 3 ] &&
	grep -q "^api --method POST repos/octo/widgets/check-runs --input .* --jq .id$" "$T/gh.log" &&
	[ "$(grep -c "^api --method PATCH repos/octo/widgets/check-runs/555 --input " "$T/gh.log")" -eq 2 ]
then
	t_ok "check run: one POST, then a PATCH of run 555 per 50 more"
else
	sed 's/^/#   /' "$T/gh.log" "$T/log5"
	t_fail "check run: the requests (exit $rc)"
fi
jq_check "check run: on the PR's head commit, the first 50 annotations" \
	'.head_sha == "feedfacefeedfacefeedfacefeedfacefeedface" and
	 (.output.annotations | length) == 50' "$T/gh-check-1.json"
jq -s '[.[0].output.annotations[], .[1].output.annotations[],
	.[2].output.annotations[]] | [.[].start_line] == [range(1; 121)]' \
	"$T/gh-check-1.json" "$T/gh-check-2.json" "$T/gh-check-3.json" \
	>"$T/gh-all" 2>&1
grep_file "check run: all 120 annotations sent, in order, once each" \
	'^true$' "$T/gh-all"
PATH="$NOGH" gh_step check-run '{}' "$T/log7"
rc=$?
[ $rc -eq 0 ] && grep -q "gh is not installed; no check run" "$T/log7" &&
	t_ok "check run: no gh, skipped with a notice" ||
	t_fail "check run without gh: exit $rc"

# The last step: compare's status, unless fail-on-regression is false.
verdict() {
	jq -r '.runs.steps[-1].run' "$T/action.json" >"$T/verdict.sh"
	(BF_EXIT=$1 INPUT_FAIL_ON_REGRESSION=$2 bash "$T/verdict.sh") \
		>/dev/null 2>&1
}
verdict 1 true
[ $? -eq 1 ] && t_ok "verdict: a regression fails the job" ||
	t_fail "verdict 1 true"
verdict 1 false
[ $? -eq 0 ] && t_ok "verdict: fail-on-regression false keeps it green" ||
	t_fail "verdict 1 false"
verdict 3 false
[ $? -eq 3 ] && t_ok "verdict: an infrastructure failure always fails" ||
	t_fail "verdict 3 false"
verdict "" true
[ $? -eq 3 ] && t_ok "verdict: no status at all is an infrastructure failure" ||
	t_fail "verdict '' true"

# A build that fails and prints a workflow command: exit 3, reported, and
# its line reaches the log only while workflow commands are off.
: >"$T/summary.md"
in='{"benchfarm": "'"$BF"'", "config": "broken.yaml"}'
PATH="$NOGH" gh_step compare "$in" "$T/log6"
jq_check "broken build: exit-code 3 in the outputs" \
	'.["exit-code"] == "3"' "$T/out-compare.json"
tok=$(sed -n 's/^::stop-commands::\([0-9a-f]\{32\}\)$/\1/p' "$T/log6")
awk -v t="$tok" '$0 == "::stop-commands::" t { s = 1; next }
	$0 == "::" t "::" { s = 0; next } s != 1' "$T/log6" >"$T/log6-outside"
if [ -n "$tok" ] && grep -q "::error::pwned-by-build" "$T/log6" &&
	! grep -q "pwned-by-build" "$T/log6-outside"; then
	t_ok "the build log's ::error:: line is inert (inside stop-commands)"
else
	t_fail "the build log's workflow command escaped"
fi
[ -s "$T/summary.md" ] && t_ok "broken build: the summary is written" ||
	t_fail "broken build: empty summary"

# A config that does not exist: exit 2, no result, said in the summary.
: >"$T/summary.md"
in='{"benchfarm": "'"$BF"'", "config": "missing.yaml"}'
PATH="$NOGH" gh_step compare "$in" "$T/log7"
jq_check "missing config: exit-code 2, no result, no comment body" \
	'.["exit-code"] == "2" and .result == "" and .["comment-body"] == ""' \
	"$T/out-compare.json"
grep_file "missing config: the summary says so" "exited 2 without a report" \
	"$T/summary.md"
grep_file "missing config: an error annotation" \
	"^::error title=benchfarm::benchfarm exited 2 without a report" "$T/log7"

# upload-artifact@v4 refuses / \ : " < > | * ? CR LF in an artifact name;
# the action's name has '_' for each (computed before anything can fail).
in='{"benchfarm": "'"$BF"'", "config": "missing.yaml", "check-name": "perf/pixel"}'
PATH="$NOGH" gh_step compare "$in" "$T/log8"
jq_check "check name perf/pixel: artifact perf_pixel-report" \
	'.["artifact-name"] == "perf_pixel-report"' "$T/out-compare.json"
in='{"benchfarm": "'"$BF"'", "config": "missing.yaml",
	"check-name": "a/b\\c:d\"e<f>g|h*i?j\r\nk"}'
PATH="$NOGH" gh_step compare "$in" "$T/log9"
jq_check "every character upload-artifact refuses becomes _" \
	'.["artifact-name"] == "a_b_c_d_e_f_g_h_i_j__k-report"' \
	"$T/out-compare.json"

# In a workflow run the comment links to the run's page (its artifact
# holds report.html).
rm -rf "$R/benchfarm-report"
GITHUB_RUN_ID=77 GITHUB_SERVER_URL=https://github.example.com \
	PATH="$NOGH" gh_step compare \
	'{"benchfarm": "'"$BF"'", "check-name": "perf-arm", "base": "main"}' "$T/log1b"
grep_file "in a workflow run the comment links to the run, where the artifact is" \
	'(<https://github\.example\.com/octo/widgets/actions/runs/77>)' \
	"$R/benchfarm-report/github-comment.md"

# --- The GitLab script against a GitLab API stand-in --------------------
# gl_run LOG [VAR=VALUE...]: the template's script with sh -e (as the
# runner runs it) in $R, its variables: at their defaults, an MR pipeline.
gl_run() {
	log=$1
	shift
	jq -r '.[".benchfarm-compare"].variables | to_entries[] |
		"export \(.key)=\(.value | @sh)"' "$G" >"$T/gl-env.sh"
	(
		cd "$R" || exit 99
		. "$T/gl-env.sh"
		export BENCHFARM="$BF" CI_MERGE_REQUEST_IID=5 CI_PROJECT_ID=9 \
			CI_MERGE_REQUEST_DIFF_BASE_SHA="$MAIN" \
			CI_COMMIT_SHA="$PATCH" CI_JOB_TOKEN=job-token \
			CI_API_V4_URL="http://127.0.0.1:$PORT/api/v4" "$@"
		exec sh -e "$T/gl.sh"
	) >"$log" 2>&1
}
if command -v python3 >/dev/null 2>&1; then
	cat >"$T/glapi.py" <<'X'
# A GitLab notes API stand-in: GET pages the notes (100 per page), POST
# adds one, PUT replaces one; every request is appended to requests.jsonl.
import json, sys, urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer
d = sys.argv[1]
notes = [{"id": i, "body": "note %d" % i} for i in range(1, 102)]
class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def reply(self, code, obj):
        b = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def handle_any(self):
        u = urllib.parse.urlsplit(self.path)
        n = int(self.headers.get("Content-Length") or 0)
        form = urllib.parse.parse_qs(self.rfile.read(n).decode())
        q = urllib.parse.parse_qs(u.query)
        with open(d + "/requests.jsonl", "a") as f:
            f.write(json.dumps({"method": self.command, "path": u.path,
                "query": {k: v[0] for k, v in q.items()},
                "private_token": self.headers.get("PRIVATE-TOKEN"),
                "job_token": self.headers.get("JOB-TOKEN"),
                "body": form.get("body", [None])[0]}) + "\n")
        base = "/api/v4/projects/9/merge_requests/5/notes"
        if self.headers.get("PRIVATE-TOKEN") != "secret-token" and \
                self.headers.get("JOB-TOKEN") != "job-token":
            return self.reply(401, {"message": "401 Unauthorized"})
        if self.command == "GET" and u.path == base:
            p = int(q.get("page", ["1"])[0])
            return self.reply(200, notes[(p - 1) * 100:p * 100])
        if self.command == "POST" and u.path == base:
            notes.append({"id": 1000 + len(notes), "body": form["body"][0]})
            return self.reply(201, notes[-1])
        if self.command == "PUT" and u.path.startswith(base + "/"):
            i = int(u.path.rsplit("/", 1)[1])
            for x in notes:
                if x["id"] == i:
                    x["body"] = form["body"][0]
                    return self.reply(200, x)
        return self.reply(404, {"message": "404 Not found"})
    do_GET = do_POST = do_PUT = handle_any
s = HTTPServer(("127.0.0.1", 0), H)
with open(d + "/port", "w") as f:
    f.write(str(s.server_address[1]))
s.serve_forever()
X
	python3 "$T/glapi.py" "$T" &
	API_PID=$!
	i=0
	while [ ! -s "$T/port" ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	PORT=$(cat "$T/port")
	git -C "$R" checkout -q main # the CI variables name the commits
	rm -rf "$R/benchfarm-report"
	gl_run "$T/gl1.log" GITLAB_TOKEN=secret-token
	rc=$?
	[ $rc -eq 1 ] && t_ok "gitlab: the job exits 1 (regression)" ||
		{ sed 's/^/#   /' "$T/gl1.log" | tail; t_fail "gitlab exit $rc"; }
	jq_check "gitlab: base is the MR diff base, patch the pipeline commit" \
		".base.commit == \"$MAIN\" and .patch.commit == \"$PATCH\"" \
		"$R/benchfarm-report/result.json"
	for f in report.md gitlab-note.md metrics.txt junit.xml report.html; do
		[ -s "$R/benchfarm-report/$f" ] && t_ok "gitlab: $f written" ||
			t_fail "gitlab: no $f"
	done
	jq_slurp_check "gitlab: both pages listed, then one POST of the report" \
		'[.[] | .method] == ["GET", "GET", "POST"] and
		 .[0].query.page == "1" and .[1].query.page == "2" and
		 all(.[]; .private_token == "secret-token")' "$T/requests.jsonl"
	jq -s -j '.[2].body' "$T/requests.jsonl" >"$T/gl-posted.md"
	if cmp -s "$T/gl-posted.md" "$R/benchfarm-report/gitlab-note.md"; then
		t_ok "gitlab: the note is gitlab-note.md (capped), byte for byte"
	else
		t_fail "gitlab: the posted note differs from gitlab-note.md"
	fi
	grep_file "gitlab: the note keeps the review.link line" \
		'https://ci\.example\.com/pipelines/7' "$T/gl-posted.md"
	: >"$T/requests.jsonl"
	gl_run "$T/gl1b.log" GITLAB_TOKEN=secret-token \
		CI_JOB_URL=https://gitlab.example.com/g/p/-/jobs/42
	jq -s -j '.[2].body' "$T/requests.jsonl" >"$T/gl-linked.md"
	grep_file "gitlab: in a job the note links to its report.html artifact" \
		'(<https://gitlab\.example\.com/g/p/-/jobs/42/artifacts/file/benchfarm-report/report\.html>)' \
		"$T/gl-linked.md"
	: >"$T/requests.jsonl"
	gl_run "$T/gl2.log" GITLAB_TOKEN=secret-token
	jq_slurp_check "gitlab: the second run finds the note and PUTs it" \
		'[.[] | .method] == ["GET", "GET", "PUT"] and
		 (.[2].path | endswith("/notes/1101"))' "$T/requests.jsonl"
	: >"$T/requests.jsonl"
	gl_run "$T/gl3.log"
	[ ! -s "$T/requests.jsonl" ] && grep -q "set GITLAB_TOKEN" "$T/gl3.log" &&
		t_ok "gitlab: no token, no request, a message" ||
		t_fail "gitlab: without a token"
	gl_run "$T/gl4.log" BENCHFARM_NOTE_WITH_JOB_TOKEN=true
	jq_slurp_check "gitlab: the job token when asked, as JOB-TOKEN" \
		'length == 3 and all(.[]; .job_token == "job-token" and
		 .private_token == null)' "$T/requests.jsonl"
	: >"$T/requests.jsonl"
	gl_run "$T/gl5.log" GITLAB_TOKEN=wrong
	rc=$?
	[ $rc -eq 1 ] && grep -q "could not list" "$T/gl5.log" &&
		t_ok "gitlab: a refused token is a message, the status stays 1" ||
		t_fail "gitlab: refused token (exit $rc)"
	kill "$API_PID" 2>/dev/null
	wait "$API_PID" 2>/dev/null
	git -C "$R" checkout -q patch
else
	echo "ok 901 # skip python3 not installed (the GitLab API stand-in)"
fi

# --- The Jenkins step's shell scripts ----------------------------------
rm -rf "$R/benchfarm-report"
(
	cd "$R" || exit 99
	export BENCHFARM="$BF" BF_CONFIG=benchfarm.yaml BF_REPEATS=6 BF_POOL= \
		BF_BASE= BF_PATCH= BF_CHECK_NAME=jenkins \
		BF_REPORT_DIR=benchfarm-report GERRIT_PATCHSET_REVISION="$PATCH" \
		BF_REPORT_LINK= BUILD_URL=https://jenkins.example.com/job/w/12/
	exec sh -xe "$T/jk1.sh"
) >"$T/jk1.log" 2>&1
rc=$?
[ $rc -eq 1 ] && t_ok "jenkins: the compare script exits 1 (regression)" ||
	{ tail "$T/jk1.log"; t_fail "jenkins: exit $rc"; }
jq_check "jenkins: a Gerrit patch set against its parent, 6 repeats" \
	".base.commit == \"$MAIN\" and .patch.commit == \"$PATCH\" and
	 .settings.repeats == 6" "$R/benchfarm-report/result.json"
[ -s "$R/benchfarm-report/junit.xml" ] && t_ok "jenkins: junit.xml written" ||
	t_fail "jenkins: no junit.xml"
grep_file "jenkins: report.html written" 'id="bf-result"' \
	"$R/benchfarm-report/report.html"
grep_file "jenkins: the report links to the archived report.html" \
	'(<https://jenkins\.example\.com/job/w/12/artifact/benchfarm-report/report\.html>)' \
	"$R/benchfarm-report/report.md"
grep_file "jenkins: the marker has the check name" \
	"^<!-- benchfarm:report name=jenkins -->$" "$R/benchfarm-report/report.md"
