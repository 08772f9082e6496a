#!/bin/sh
# Presubmit bad input: benchmarks that crash, hang or print the wrong
# format each get a clear per-benchmark error; a benchmark one side does
# not report is "missing" on that side and fails the gate (exit 1); the
# others are still judged, samples kept, exit 3 only when nothing could
# be measured. A failed build is exit 3 with the log's
# last lines. A corrupt store is refused and left as it was.
. "$(dirname "$0")/lib.sh"

R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
cat >"$R/good.sh" <<'X'
echo "alpha 100 ns"
echo "beta 2.5 us"
X
printf 'kill -SEGV $$\n' >"$R/crash.sh"
printf 'echo "{\\"benchmarks\\": [{\\"name\\": \\"x\\", \\"real"\n' >"$R/trunc.sh"
printf 'echo "gamma 5 ns"\n' >"$R/side.sh"
cat >"$R/bf.yaml" <<'X'
version: 1
project:
  repo: .
  build: [sh, -c, "echo built > built.txt"]
benchmarks:
  - {name: good, command: [sh, good.sh], format: lines}
  - {name: crash, command: [sh, crash.sh], format: lines}
  - {name: hang, command: [sleep, "60"], format: lines, timeout: 1}
  - {name: truncated, command: [sh, trunc.sh], format: gbench}
  - {name: oneside, command: [sh, side.sh], format: lines}
runs: {repeats: 3, warmup: 0}
checks: {battery_min: 0, suppress: [load, throttle]}
X
t_git -C "$R" add -A
t_git -C "$R" commit -q -m base
t_git -C "$R" checkout -q -b patch
printf 'echo "delta 5 ns"\n' >"$R/side.sh"
t_git -C "$R" commit -q -am "rename gamma to delta"

expect_exit 1 "faulty benchmarks do not hide the good one; the renamed one fails (exit 1)" \
	"$BF" compare -c "$R/bf.yaml" --json "$T/r.json" --markdown "$T/r.md"
jq_check "good alpha judged same" \
	'[.results[] | select(.name == "alpha")][0].verdict == "same"' "$T/r.json"
jq_check "crash is benchmark_failed with the signal" \
	'[.errors[] | select(.benchmark == "crash")] | length == 6 and all(.code == "benchmark_failed" and (.message | test("signal 11")))' "$T/r.json"
jq_check "hang is a timeout" \
	'[.errors[] | select(.benchmark == "hang")] | length == 6 and all(.code == "timeout")' "$T/r.json"
jq_check "truncated JSON is a parse_error naming the position" \
	'[.errors[] | select(.benchmark == "truncated")][0] | .code == "parse_error" and (.message | test(":[0-9]+:[0-9]+"))' "$T/r.json"
jq_check "gamma is missing on the patch side" \
	'[.results[] | select(.name == "gamma")][0] | .verdict == "missing" and .missing == "patch"' "$T/r.json"
jq_check "delta is missing on the base side" \
	'[.results[] | select(.name == "delta")][0] | .verdict == "missing" and .missing == "base"' "$T/r.json"
jq_check "samples of the one-sided benchmark kept" \
	'[.samples[] | select(.benchmark == "oneside")] | length == 6' "$T/r.json"
grep_file "markdown has an infrastructure section" "^### Infrastructure" "$T/r.md"
grep_file "markdown's headline says the run is incomplete" \
	"^## benchfarm: incomplete, infrastructure failures" "$T/r.md"
if grep -qi "no regression" "$T/r.md"; then
	t_fail "markdown says 'no regressions' with failures"
else
	t_ok "markdown never says 'no regressions' with failures"
fi

# Nothing measurable at all: exit 3, not a verdict.
sed -e '/name: good/d' -e '/name: oneside/d' "$R/bf.yaml" >"$T/bad.yaml"
sed -i 's|repo: .|repo: '"$R"'|' "$T/bad.yaml"
expect_exit 3 "nothing measured is an infrastructure failure (exit 3)" \
	"$BF" compare -c "$T/bad.yaml" --json "$T/bad.json"
jq_check "no verdicts when nothing was measured" \
	'.summary.regressed == 0 and .summary.same == 0' "$T/bad.json"

# A build that fails: exit 3, the message ends with the log's last lines.
sed 's|build: .*|build: [sh, -c, "echo compiling; echo error: foo.c:3: boom; exit 2"]|' \
	"$T/bad.yaml" >"$T/build.yaml"
expect_exit 3 "failed build is exit 3" "$BF" compare -c "$T/build.yaml"
grep_file "names the failed build" "build of [0-9a-f]* failed: 'sh' exited with status 2" "$ERR"
grep_file "shows the log's last lines" "error: foo.c:3: boom" "$ERR"
st=$(sqlite3 "$BENCHFARM_DB" "select status from runs order by id desc limit 1")
[ "$st" = failed ] && t_ok "failed build recorded as a failed run" ||
	t_fail "failed build recorded as a failed run (got '$st')"
# ... and still writes its result and reports, as an infrastructure
# failure, so that a pipeline replaces its earlier comment.
expect_exit 3 "failed build with --json and --report" "$BF" compare \
	-c "$T/build.yaml" --json "$T/build.json" --report markdown,junit \
	--report-dir "$T/build-reports"
jq_check "the result says infra_failure and why" \
	'.status == "infra_failure" and (.infra_error | test("build of [0-9a-f]+ failed")) and .failure.stage == "build" and .failure.side == "base" and (.failure.log_tail | test("boom")) and (.results | length) == 0' \
	"$T/build.json"
grep_file "the comment names the failed build" \
	"infrastructure failures.*nothing was compared" "$T/build-reports/report.md"
if grep -qi 'no regressions' "$T/build-reports/report.md"; then
	t_fail "a failed build's comment says 'no regressions'"
else
	t_ok "a failed build's comment never says 'no regressions'"
fi

# A corrupt store: refused, never overwritten.
printf 'this is not a database\n' >"$T/corrupt.db"
cp "$T/corrupt.db" "$T/corrupt.orig"
expect_exit 3 "corrupt store refused" \
	"$BF" --db "$T/corrupt.db" compare -c "$R/bf.yaml"
grep_file "says it is not a benchfarm database" "not a benchfarm database" "$ERR"
check "corrupt store left byte-for-byte" cmp "$T/corrupt.db" "$T/corrupt.orig"
