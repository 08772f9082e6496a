#!/bin/sh
# Names a benchmark prints are data, never commands. A gbench benchmark
# whose names carry ESC, CR, a line feed and "::error::" and U+202E is
# recorded with `run`: `history` and `detect` print it inert (one line,
# escaped), `history --json` keeps it exact. A benchmark that forks a
# child doing most of its work is counted whole under measure:
# instructions. A benchmark that prints its own task_clock_ns beside
# the kernel's (counters: true) cannot mix it into the kernel-measured
# series.
. "$(dirname "$0")/lib.sh"
need_cc

# inert "what" FILE: no ESC, CR, C1 CSI or U+202E byte, and no line that
# is a workflow command ("::" after blanks at a line's start).
inert() {
	bad=$(LC_ALL=C grep -c "$(printf '\033\\|\r\\|\302\233\\|\342\200\256')" "$2")
	cmds=$(LC_ALL=C grep -c '^[[:space:]]*::' "$2")
	if [ "$bad" = 0 ] && [ "$cmds" = 0 ]; then
		t_ok "$1"
	else
		echo "#   $bad lines with control bytes, $cmds command lines in $2"
		LC_ALL=C grep -n "$(printf '\033\\|\r\\|\302\233\\|\342\200\256')\\|^[[:space:]]*::" "$2" |
			od -c | head -8 | sed 's/^/#   /'
		t_fail "$1"
	fi
}

# --- hostile names in the history ------------------------------------------
R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
NAME='x\u001b[2J\u001b]0;t\u0007\rCR\n::error::pwned\u202eevil\u009b'
cat >"$R/g.json" <<X
{"benchmarks": [{"name": "$NAME", "run_type": "iteration", "iterations": 1,
 "real_time": @V@, "cpu_time": @V@, "time_unit": "ns"}]}
X
printf 'sed "s/@V@/$(cat level)/g" g.json\n' >"$R/g.sh"
cat >"$R/bf.yaml" <<'X'
version: 1
project: {repo: ., target_branch: main}
benchmarks:
  - {name: g, command: [sh, g.sh], format: gbench}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks, cores]}
runs: {repeats: 2, warmup: 0}
postsubmit: {detector: {name: perfherder, width: 2}}
X
for i in 1 2 3 4; do
	echo $((i * 100)) >"$R/level"
	t_git -C "$R" add -A
	t_git -C "$R" commit -q -m "commit $i"
	"$BF" run -c "$R/bf.yaml" --commit main >"$OUT" 2>"$ERR" ||
		t_fail "run records commit $i"
done
inert "run's output is inert" "$OUT"
expect_exit 0 "history" "$BF" history -c "$R/bf.yaml"
inert "history is inert" "$OUT"
grep_file "history names the series, escaped, on one line" \
	'^g x\\x1b\[2J\\x1b\]0;t\\x07\\x0dCR | ::error::pwned\\u{202E}evil\\u{009B} real_time' \
	"$OUT"
expect_exit 0 "history --json" "$BF" history -c "$R/bf.yaml" --json
jq_check "history --json keeps the exact name" \
	"[.series[].benchmark] | unique == [\"$NAME\"]" "$OUT"
"$BF" detect -c "$R/bf.yaml" >"$OUT" 2>"$ERR"
rc=$?
[ "$rc" -le 1 ] && t_ok "detect ends (exit $rc)" || t_fail "detect exit $rc"
inert "detect is inert" "$OUT"
inert "detect's stderr is inert" "$ERR"
grep_file "detect names the series, escaped" \
	'x\\x1b\[2J.*| ::error::pwned\\u{202E}evil' "$OUT"

# the dashboard page holds no hidden character in its bytes: its script
# shows them escaped (plots.js: inert)
expect_exit 0 "dashboard" "$BF" dashboard -c "$R/bf.yaml" -o "$T/dash.html"
bad=$(LC_ALL=C grep -c "$(printf '\302\233\|\342\200\256')" "$T/dash.html")
[ "$bad" = 0 ] && t_ok "the dashboard page has no U+202E or C1 byte" ||
	t_fail "the dashboard page has $bad lines with U+202E or C1 bytes"
grep_file "the page's JSON writes U+202E as an escape" 'pwned\\u202eevil' \
	"$T/dash.html"

# --- measure: instructions counts every process of the run ---------------
if command -v valgrind >/dev/null 2>&1; then
	# the parent: 1M iterations; a forked child 10M, waited for; or an
	# exec'd program doing them (work)
	cat >"$T/fork.c" <<'X'
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static void spin(unsigned long n)
{
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < n; i++)
		x += i * 7;
}
int main(int argc, char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (argc > 1)
			execl(argv[1], argv[1], (char *)NULL);
		else
			spin(10000000UL);
		_exit(0);
	}
	spin(1000000UL);
	waitpid(pid, NULL, 0);
	printf("forked 1 ns\n");
	return 0;
}
X
	cat >"$T/work.c" <<'X'
int main(void)
{
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < 10000000UL; i++)
		x += i * 7;
	return 0;
}
X
	cc -O1 -o "$T/fork" "$T/fork.c" && cc -O1 -o "$T/work" "$T/work.c" ||
		t_fail "the fork programs build"
	ins() { # ins FILE: the run's instructions
		jq -r 'select(.type == "result") | .counters[] |
			select(.metric == "instructions") | .value' "$1"
	}
	"$BFA" run --format lines --measure instructions -- "$T/fork" \
		>"$T/fork.out" 2>"$ERR"
	n=$(ins "$T/fork.out")
	# the child's 10M iterations are at least 30M instructions
	if [ -n "$n" ] && awk -v n="$n" 'BEGIN { exit !(n > 30000000) }'; then
		t_ok "a forked child's instructions are counted ($n)"
	else
		t_fail "a forked child's instructions are counted ($n > 30M)"
	fi
	"$BFA" run --format lines --measure instructions -- "$T/fork" "$T/work" \
		>"$T/exec.out" 2>"$ERR"
	n=$(ins "$T/exec.out")
	if [ -n "$n" ] && awk -v n="$n" 'BEGIN { exit !(n > 30000000) }'; then
		t_ok "an exec'd child's instructions are counted ($n)"
	else
		t_fail "an exec'd child's instructions are counted ($n > 30M)"
	fi
	# the work, then an exec of true: valgrind writes no count at an
	# exec, so the run is refused, never counted as true's
	cat >"$T/exec-away.c" <<'X'
#include <unistd.h>
int main(void)
{
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < 10000000UL; i++)
		x += i * 7;
	execl("/bin/true", "true", (char *)0);
	return 1;
}
X
	cc -O1 -o "$T/exec-away" "$T/exec-away.c" || t_fail "exec-away builds"
	"$BFA" run --format lines --measure instructions -- "$T/exec-away" \
		>"$T/away.out" 2>"$ERR"
	jq_check "work hidden behind an exec is refused, not counted as true's" \
		'select(.type == "error") | .message | test("exec.d another program")' \
		"$T/away.out"
else
	t_skip "a forked child's instructions are counted" "no valgrind"
	t_skip "an exec'd child's instructions are counted" "no valgrind"
	t_skip "work hidden behind an exec is refused" "no valgrind"
fi

# --- a benchmark's own task_clock_ns beside the kernel's ------------------
C="$T/cnt"
mkdir -p "$C"
t_git -C "$C" init -q -b main
cat >"$C/c.sh" <<'X'
echo '{"format": "benchfarm-native", "version": 1, "samples": [
 {"benchmark": "cnt", "metric": "value", "unit": "ns", "value": 5},
 {"benchmark": "cnt", "metric": "task_clock_ns", "unit": "ns", "value": 1}]}'
X
cat >"$C/bf.yaml" <<'X'
version: 1
project: {repo: ., target_branch: main}
benchmarks:
  - {name: cnt, command: [sh, c.sh], format: native, counters: true}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks, cores]}
runs: {repeats: 2, warmup: 0}
X
t_git -C "$C" add -A
t_git -C "$C" commit -q -m one
"$BF" run -c "$C/bf.yaml" --commit main >"$OUT" 2>"$ERR"
echo "#   run exit $?"
sql_check "the printed task_clock_ns is not in the kernel's series" 0 \
	"select count(*) from samples where suite = 'cnt' and benchmark = 'cnt'
	 and metric = 'task_clock_ns' and value = 1"
grep_file "the run says why: the benchmark printed a counter's name" \
	"task_clock_ns" "$ERR"
