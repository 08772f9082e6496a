#!/bin/sh
# compare --trace on a program with a known call tree
# (tests/fixtures/trace/calltree.c, its leaf made 20 times slower by the
# patch): after the measured runs, one traced run per side and a
# differential flame graph in the report directory, linked from the
# markdown report and inline in the HTML one; a benchmark that writes no
# trace gets the reason and a warning instead.
. "$(dirname "$0")/lib.sh"
umask 022 # a CI runner's usual umask: only benchfarm's own modes count
need_cc
SRC="$BF_SRC/tests/fixtures/trace/calltree.c"

# compare --trace: after the measured runs, one traced run per side and
# a differential flame graph in the report directory, linked from the
# report. The patch makes leaf 20 times slower.
R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
cp "$SRC" "$R/bench.c"
printf '#!/bin/sh\necho "sum $(./ct 5 3 $(cat slow))"\n' >"$R/run.sh"
echo 0 >"$R/slow"
cat >"$R/benchfarm.yaml" <<X
version: 1
project:
  repo: .
  build: [cc, -O1, -finstrument-functions, -o, ct, bench.c, -pthread, "$BF_BUILD_ABS/libbenchfarm_trace.a"]
benchmarks:
  - {name: micro, command: [sh, run.sh], format: lines}
  - {name: plain, command: [sh, -c, "echo x 1"], format: lines}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks, cores]}
runs: {repeats: 2, warmup: 0}
X
t_git -C "$R" add -A
t_git -C "$R" commit -q -m base
echo 1 >"$R/slow"
t_git -C "$R" commit -q -am "slow leaf"
(cd "$R" && "$BF" compare -c benchfarm.yaml --base main~1 --patch main \
	--trace micro --json "$T/cmp.json" --report markdown \
	--report-dir "$T/rep" >"$OUT" 2>"$ERR")
rc=$?
[ $rc -le 1 ] && t_ok "compare --trace (exit $rc)" || t_fail "compare --trace exit $rc"
jq_check "the traced runs are not measured runs: 2 per side" \
	'[.results[] | select(.benchmark == "micro")][0] | .base.n == 2 and .patch.n == 2' \
	"$T/cmp.json"
for f in trace-base.bftrace trace-patch.bftrace trace-diff.svg; do
	[ -s "$T/rep/$f" ] && t_ok "compare wrote $f" || t_fail "no $f"
done
[ "$(stat -c %a "$T/rep/trace-diff.svg")" = 600 ] &&
	t_ok "trace-diff.svg is 0600 like every other result" ||
	t_fail "trace-diff.svg is mode $(stat -c %a "$T/rep/trace-diff.svg")"
jq_check "the result says where the traces are" \
	".trace.benchmark == \"micro\" and .trace.diff_svg == \"$T/rep/trace-diff.svg\"" \
	"$T/cmp.json"
grep_file "the diff marks leaf slower" \
	'<title>leaf ([^)]*, +[0-9.]*% against the base)' "$T/rep/trace-diff.svg"
grep_file "the report links the graph" "Where the time went in micro: the differential flame graph trace-diff.svg" \
	"$T/rep/report.md"
expect_exit 0 "report --format html of a traced comparison" "$BF" report \
	--format html --input "$T/cmp.json" --output "$T/rep/report.html"
grep_file "the HTML report carries the flame graph inline" \
	'<script type="application/json" id="bf-flame">"\\u003c?xml' "$T/rep/report.html"
grep_file "with its frames" 'leaf (' "$T/rep/report.html"
expect_exit 0 "the traces read back" "$BF" trace fold --calls "$T/rep/trace-patch.bftrace"
grep_file "with the program's stacks" "^thread-1;main;run;leaf 5$" "$OUT"
(cd "$R" && "$BF" compare -c benchfarm.yaml --base main~1 --patch main \
	--trace plain --json "$T/cmp2.json" >"$OUT" 2>"$ERR")
jq_check "a benchmark that is not traced: the reason, not a file" \
	'.trace.error | test("wrote no trace: build it with -finstrument-functions")' \
	"$T/cmp2.json"
grep_file "and a warning" "compare --trace: the base run of 'plain' wrote no trace" "$ERR"
