/*
 * benchfarmCompare: a Jenkins shared-library pipeline step that runs
 * `benchfarm compare` on the current workspace, renders the markdown and
 * JUnit reports (and, for a Gerrit change, posts the Gerrit review),
 * publishes junit.xml with the junit step, archives the result JSON and
 * the reports, and returns compare's exit status:
 * 0 ok, 1 regression, 2 usage or config error, 3 infrastructure failure.
 *
 *   def rc = benchfarmCompare(config: 'benchfarm.yaml', pool: 'pixel6')
 *
 * Arguments (all optional):
 *   config      the config file (benchfarm.yaml)
 *   repeats     measured runs per side (default: the config's)
 *   pool        device pool label (default: the config's)
 *   base, patch revisions; for a Gerrit Trigger build the default is the
 *               patch set ($GERRIT_PATCHSET_REVISION) against its parent,
 *               otherwise compare's default (merge-base with the config's
 *               project.target_branch, and HEAD)
 *   checkName   stable check and comment marker name (benchfarm)
 *   reportDir   where result.json and the reports go (benchfarm-report)
 *   benchfarm   the program (benchfarm on PATH)
 *   gerrit      post the review to Gerrit when the build is for a Gerrit
 *               change ($GERRIT_CHANGE_NUMBER/$GERRIT_PATCHSET_NUMBER set
 *               by the Gerrit Trigger plugin); uses the config's
 *               review.gerrit (host, user, key, label) (default true)
 *   propagate   true (default): a regression marks the build UNSTABLE
 *               (FAILURE with failOnRegression: true), exit 2 or 3 fails
 *               it; false: only return the status (the junit step is
 *               told not to mark the build UNSTABLE for the failing
 *               test cases either)
 *   failOnRegression  see propagate (default false)
 *
 * Safety: every value reaches the shell as an environment variable
 * (withEnv) and the scripts are single-quoted Groovy strings that use
 * "$VAR", so no argument, branch or benchmark name is ever parsed as
 * shell text.
 */
def call(Map args = [:]) {
    String dir = args.reportDir ?: 'benchfarm-report'
    boolean propagate = args.propagate != false
    List<String> vars = [
        "BENCHFARM=${args.benchfarm ?: 'benchfarm'}",
        "BF_CONFIG=${args.config ?: 'benchfarm.yaml'}",
        "BF_REPEATS=${args.repeats ?: ''}",
        "BF_POOL=${args.pool ?: ''}",
        "BF_BASE=${args.base ?: ''}",
        "BF_PATCH=${args.patch ?: ''}",
        "BF_CHECK_NAME=${args.checkName ?: 'benchfarm'}",
        "BF_REPORT_DIR=${dir}",
        "BF_REPORT_LINK=${args.reportLink ?: ''}",
    ]
    int code = 0
    withEnv(vars) {
        code = sh(returnStatus: true, label: 'benchfarm compare', script: '''
set -u
dir=$BF_REPORT_DIR
result=$dir/result.json
mkdir -p -- "$dir"
rm -f -- "$result" "$dir/report.md" "$dir/junit.xml" "$dir/report.html"
link=$BF_REPORT_LINK
if [ -z "$link" ] && [ -n "${BUILD_URL:-}" ]; then
    link=${BUILD_URL}artifact/$dir/report.html
fi
[ "$link" != config ] || link=
base=$BF_BASE
patch=$BF_PATCH
if [ -z "$base$patch" ] && [ -n "${GERRIT_PATCHSET_REVISION:-}" ]; then
    patch=$GERRIT_PATCHSET_REVISION
    base=$GERRIT_PATCHSET_REVISION^
fi
code=0
"$BENCHFARM" compare -c "$BF_CONFIG" --json "$result" ${BF_REPEATS:+--repeats "$BF_REPEATS"} ${BF_POOL:+--pool "$BF_POOL"} ${base:+--base "$base"} ${patch:+--patch "$patch"} || code=$?
if [ -s "$result" ]; then
    rc=0
    "$BENCHFARM" report -c "$BF_CONFIG" --check-name "$BF_CHECK_NAME" --format markdown,junit,html ${link:+--link "$link"} --input "$result" --output-dir "$dir" || rc=$?
    # as compare --report does: a failed report wins over a verdict
    if [ "$rc" -ne 0 ] && [ "$code" -ne 3 ]; then
        code=$rc
    fi
fi
exit "$code"
''')
        boolean change = env.GERRIT_CHANGE_NUMBER && env.GERRIT_PATCHSET_NUMBER
        if (args.gerrit != false && change && fileExists("${dir}/result.json")) {
            int posted = sh(returnStatus: true, label: 'benchfarm Gerrit review', script: '''
link=$BF_REPORT_LINK
if [ -z "$link" ] && [ -n "${BUILD_URL:-}" ]; then
    link=${BUILD_URL}artifact/$BF_REPORT_DIR/report.html
fi
[ "$link" != config ] || link=
"$BENCHFARM" report ${link:+--link "$link"} -c "$BF_CONFIG" --check-name "$BF_CHECK_NAME" --format gerrit --input "$BF_REPORT_DIR/result.json" --output-dir "$BF_REPORT_DIR" --gerrit-change "$GERRIT_CHANGE_NUMBER,$GERRIT_PATCHSET_NUMBER"
''')
            if (posted != 0) {
                echo "benchfarm: the Gerrit review was not posted (exit ${posted})"
                if (code == 0) {
                    code = 3
                }
            }
        }
    }
    if (fileExists("${dir}/junit.xml")) {
        // junit marks the build UNSTABLE for a failing test case itself
        junit(testResults: "${dir}/junit.xml", allowEmptyResults: true,
              skipMarkingBuildUnstable: !propagate)
    }
    archiveArtifacts(artifacts: "${dir}/**", allowEmptyArchive: true)
    if (propagate) {
        if (code == 1 && args.failOnRegression) {
            error('benchfarm: regression (exit 1)')
        } else if (code == 1) {
            unstable('benchfarm: regression (exit 1)')
        } else if (code != 0) {
            error("benchfarm: exit ${code} (2: usage or config error, 3: infrastructure failure)")
        }
    }
    return code
}
