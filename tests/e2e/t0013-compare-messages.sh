#!/bin/sh
# What compare and its neighbours say when they are given something they
# cannot do: each error names the option, key or path, and a compare
# that could only be an A/A run is refused or marked as one.
. "$(dirname "$0")/lib.sh"

R="$T/repo"
make_demo_repo "$R"
C="$R/benchfarm.yaml"

# Options take their config setting's type and range, and say which
# option was wrong.
expect_exit 2 "compare --repeats abc" "$BF" compare -c "$C" --repeats abc
grep_file "names --repeats" "^benchfarm: compare: --repeats: 'abc' is not an integer" "$ERR"
expect_exit 2 "compare --alpha 2" "$BF" compare -c "$C" --alpha 2
grep_file "names --alpha and its range" \
	"^benchfarm: compare: --alpha: must be greater than 0 and less than 1 (as presubmit.alpha), not 2" "$ERR"
expect_exit 2 "compare --min-effect -1" "$BF" compare -c "$C" --min-effect -1
grep_file "names --min-effect" "^benchfarm: compare: --min-effect: must be at least 0" "$ERR"
expect_exit 2 "compare --warmup 1001" "$BF" compare -c "$C" --warmup 1001
grep_file "names --warmup and the config's range" \
	"^benchfarm: compare: --warmup: must be between 0 and 1000 (as runs.warmup)" "$ERR"
# runs.repeats is 2 to 10000 in the config; every command agrees.
# (a revision that does not exist: a binary that took the value would
# stop there, quickly, with another message)
for cmd in "compare --patch no-such-rev" "run --commit no-such-rev" \
	"bisect --good a --bad b --benchmark micro" "detect"; do
	for n in 1 10001; do
		# shellcheck disable=SC2086
		expect_exit 2 "$cmd --repeats $n" "$BF" $cmd -c "$C" --repeats $n
		grep_file "$cmd: runs.repeats' range" \
			"--repeats: must be between 2 and 10000 (as runs.repeats), not $n" "$ERR"
	done
done
sed 's/repeats: 10$/repeats: 10001/' "$C" >"$T/big.yaml"
expect_exit 2 "runs.repeats: 10001 in the config" "$BF" config check -c "$T/big.yaml"
grep_file "the config says the same range" \
	"'runs.repeats' must be between 2 and 10000, not 10001" "$ERR"
expect_exit 2 "analyze compare --alpha 2" "$BF" analyze compare --alpha 2 \
	--base "$C" --patch "$C"
grep_file "analyze names --alpha" "^benchfarm: analyze: --alpha: must be greater than 0" "$ERR"

# A target branch that the repository does not have names the key.
sed 's/target_branch: main/target_branch: trunk/' "$C" >"$R/trunk.yaml"
expect_exit 2 "unknown project.target_branch" "$BF" compare -c "$R/trunk.yaml"
grep_file "names project.target_branch" \
	"project.target_branch 'trunk' in .*trunk.yaml: unknown revision 'trunk'" "$ERR"
# detect, history and dashboard read the branch's history: the same key
# is named.
for cmd in detect history dashboard; do
	"$BF" $cmd -c "$R/trunk.yaml" >"$OUT" 2>"$ERR"
	rc=$?
	[ "$rc" -ge 2 ] && t_ok "$cmd on an unknown target_branch fails ($rc)" ||
		t_fail "$cmd on an unknown target_branch: exit $rc"
	grep_file "$cmd names project.target_branch" \
		"project.target_branch 'trunk' in .*trunk.yaml (set it to the branch whose history is measured.*unknown revision 'trunk'" "$ERR"
done

# A patch already on the target branch is its own merge-base: refused
# (exit 2) rather than reported as "no regressions".
git -C "$R" checkout -q main
expect_exit 2 "compare of a commit on target_branch is refused" \
	"$BF" compare -c "$C" --repeats 2 --warmup 0 --json "$T/same.json"
grep_file "says the patch is on project.target_branch" \
	"the patch 'HEAD' ([0-9a-f]*) is already on project.target_branch 'main'" "$ERR"
grep_file "says what to do" "give --base REV .* or --allow-same" "$ERR"
if [ -e "$T/same.json" ]; then t_fail "no result written"; else t_ok "no result written"; fi
expect_exit 0 "--allow-same runs it" "$BF" compare -c "$C" --allow-same \
	--repeats 2 --warmup 0 --json "$T/same.json" --markdown "$T/same.md"
grep_file "warns on stderr" "warning: base and patch are the same commit" "$ERR"
jq_check "the result says same_commit" '.same_commit == true' "$T/same.json"
grep_file "the report says so" "Base and patch are the same commit" "$T/same.md"
expect_exit 0 "an explicit --base of the same commit runs" "$BF" compare \
	-c "$C" --base main --patch main --repeats 2 --warmup 0 --json "$T/same2.json"
jq_check "and is marked too" '.same_commit == true' "$T/same2.json"
git -C "$R" checkout -q patch
"$BF" compare -c "$C" --repeats 2 --warmup 0 --json "$T/diff.json" \
	>"$OUT" 2>"$ERR"
rc=$?
if [ "$rc" -le 1 ]; then t_ok "a real patch still compares"; else
	t_fail "a real patch still compares (exit $rc)"; fi
jq_check "not marked same_commit" '.same_commit == false' "$T/diff.json"

# report --output names a file; a directory is a usage error that names it.
mkdir "$T/outdir"
expect_exit 2 "report --output DIR" "$BF" report --format markdown \
	--input "$T/same.json" --output "$T/outdir"
grep_file "names the directory" "^benchfarm: report: --output '$T/outdir' is a directory" "$ERR"
if [ -z "$(ls -A "$T/outdir")" ]; then t_ok "nothing left in it"; else t_fail "nothing left in it"; fi

# benchfarm-agent run says what is wrong with --timeout.
expect_exit 2 "agent run --timeout xyz" "$BFA" run --timeout xyz --format lines -- true
grep_file "names --timeout" "^benchfarm-agent: run: --timeout: 'xyz' is not a number" "$ERR"
expect_exit 2 "agent run --timeout 0" "$BFA" run --timeout 0 --format lines -- true
grep_file "says it must be positive" "^benchfarm-agent: run: --timeout: must be more than 0" "$ERR"
expect_exit 2 "agent run --timeout beyond a benchmark's timeout in the config" \
	"$BFA" run --timeout 604801 --format lines -- true
grep_file "with the config's bound" "at most 604800 seconds, not 604801" "$ERR"

# Runs are counted from 1 everywhere, and a warmup is called "warmup":
# a benchmark that fails on its first call (a warmup: they come first)
# and its third (the first measured run of the other side).
F="$T/flaky"
mkdir -p "$F"
t_git -C "$F" init -q -b main
cat >"$F/bench.sh" <<'SH'
#!/bin/sh
n=$(($(cat "$COUNT" 2>/dev/null || echo 0) + 1))
echo $n >"$COUNT"
case " $FAIL " in *" $n "*) echo "failing on call $n" >&2; exit 1 ;; esac
echo "work 10"
SH
chmod 755 "$F/bench.sh"
cat >"$F/benchfarm.yaml" <<'YAML'
version: 1
project: {repo: ., target_branch: main}
benchmarks:
  - {name: flaky, command: [./bench.sh], format: lines}
checks:
  battery_min: 0
  suppress: [load, throttle, battery, clocks]
runs: {repeats: 3, warmup: 1, retries: 0}
YAML
t_git -C "$F" add -A
t_git -C "$F" commit -q -m one
t_git -C "$F" commit -q --allow-empty -m two
COUNT="$T/count" FAIL="1 3" expect_exit 0 "a compare with two failed runs" \
	"$BF" compare -c "$F/benchfarm.yaml" --base HEAD~1 --seed 1 \
	--json "$T/flaky.json" --markdown "$T/flaky.md"
jq_check "the failed warmup is repeat -1, the run repeat 0" \
	'[.errors[].repeat] == [-1, 0]' "$T/flaky.json"
grep_file "the warning calls the warmup a warmup" \
	"warning: local: flaky base warmup 1: benchmark_failed" "$ERR"
grep_file "the warning counts the run from 1" \
	"warning: local: flaky [a-z]* run 1: benchmark_failed" "$ERR"
grep_file "markdown: warmup" "^- flaky (base, warmup, " "$T/flaky.md"
grep_file "markdown: run 1" "^- flaky ([a-z]*, run 1, " "$T/flaky.md"
if grep -q "run 0" "$ERR" "$T/flaky.md"; then t_fail "no run 0 anywhere"; else
	t_ok "no run 0 anywhere"; fi
expect_exit 0 "junit and github reports" "$BF" report --format junit,github \
	--input "$T/flaky.json" --output-dir "$T/flaky-reports"
grep_file "junit: warmup" 'name="flaky base warmup"' "$T/flaky-reports/junit.xml"
grep_file "junit: run 1" 'name="flaky [a-z]* run 1"' "$T/flaky-reports/junit.xml"
grep_file "github: warmup" "flaky (base, warmup, " "$T/flaky-reports/github-commands.txt"

# A benchmark that prints its results to standard error: the parse error
# quotes both streams and says which is parsed; output: stderr reads it.
cat >"$F/err.sh" <<'SH'
#!/bin/sh
echo "starting"
echo "work 10 ms" >&2
SH
chmod 755 "$F/err.sh"
sed 's|{name: flaky, command: \[./bench.sh\], format: lines}|{name: err, command: [./err.sh], format: lines}|' \
	"$F/benchfarm.yaml" >"$F/err.yaml"
sed 's|format: lines}|format: lines, output: stderr}|' "$F/err.yaml" >"$F/err2.yaml"
t_git -C "$F" add -A
t_git -C "$F" commit -q -m err
t_git -C "$F" commit -q --allow-empty -m err-again
expect_exit 3 "nothing parsable on standard output" "$BF" compare \
	-c "$F/err.yaml" --base HEAD~1 --json "$T/err.json" --markdown "$T/err.md"
jq_check "the error quotes standard output and standard error" \
	'.errors[0].code == "parse_error" and (.errors[0].message | test("standard output \\(9 bytes\\): .starting.; standard error \\(11 bytes\\): .work 10 ms.; only standard output is parsed \\(the benchmark.s .output: stdout.\\)"))' \
	"$T/err.json"
expect_exit 0 "output: stderr parses standard error" "$BF" compare \
	-c "$F/err2.yaml" --base HEAD~1 --json "$T/err2.json"
jq_check "and measures it" \
	'[.results[] | select(.name == "work")][0].base.n == 3' "$T/err2.json"
expect_exit 0 "config check shows output" "$BF" config check -c "$F/err2.yaml"
jq_check "as stderr" '.benchmarks[0].output == "stderr"' "$OUT"
sed 's|output: stderr|output: stdrr|' "$F/err2.yaml" >"$T/bad-output.yaml"
expect_exit 2 "an unknown output stream" "$BF" config check -c "$T/bad-output.yaml"
grep_file "is named" "output.*stdrr.*did you mean 'stderr'" "$ERR"
expect_exit 3 "agent run: the same message" "$BFA" run --format lines -- "$F/err.sh"
grep_file "agent run quotes both streams" \
	"standard error (11 bytes): 'work 10 ms'" "$OUT"
expect_exit 0 "agent run --output both" "$BFA" run --format lines --output both \
	-- sh -c 'echo "a 1"; echo "b 2" >&2'
grep_file "reads both streams" '"benchmark":"b"' "$OUT"

# A reader that has gone (`| head -1`) is not a failure: the write fails
# with EPIPE (SIGPIPE is ignored) and the command ends quietly. The pipe
# here has no reader from the start, so the write always fails.
if command -v cc >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
	cc -O1 -g -finstrument-functions -o "$T/ct" \
		"$BF_SRC/tests/fixtures/trace/calltree.c" -pthread \
		"$BF_BUILD_ABS/libbenchfarm_trace.a"
	BENCHFARM_TRACE="$T/a.trace" "$T/ct" 5 3 >/dev/null
	cat >"$T/closed.py" <<'PY'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
sys.exit(subprocess.run(sys.argv[1:], stdout=w).returncode)
PY
	expect_exit 0 "trace fold into a closed pipe exits 0" \
		python3 "$T/closed.py" "$BF" trace fold "$T/a.trace"
	if [ -s "$ERR" ]; then t_fail "and says nothing"; else t_ok "and says nothing"; fi
	expect_exit 0 "config check into a closed pipe exits 0" \
		python3 "$T/closed.py" "$BF" config check -c "$C"
	expect_exit 3 "a full disk is still a failure" sh -c \
		'"$1" trace fold "$2" >/dev/full' sh "$BF" "$T/a.trace"
	grep_file "and says so" "cannot write standard output" "$ERR"
else
	t_ok "# skip no C compiler or python3"
fi
