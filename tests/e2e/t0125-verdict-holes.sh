#!/bin/sh
# Verdict holes, each run as an attack on the local pool:
# - a patch that slows benchmark "slowed" by 30% and renames it
#   "slowed_v2", or makes it crash on its side, while another benchmark
#   is measured: the series the base reports and the patch does not is
#   "missing on the patch side" and fails the gate (exit 1), in every
#   report format; presubmit.missing_series: ignore lets a suite that
#   renames on purpose pass;
# - a benchmark that prints negative nanoseconds (-10 ns on the base,
#   -5 ns on the patch: slower, and "improved" through the ratio) is a
#   parse error of each run, never a verdict.
. "$(dirname "$0")/lib.sh"

# repo DIR BASE_SCRIPT PATCH_SCRIPT [BENCHMARKS]: main holds b.sh = BASE,
# branch patch holds b.sh = PATCH; BENCHMARKS is the config's list
# (default: benchmark b running b.sh, format lines); 3 runs a side.
repo() {
	mkdir -p "$1"
	t_git -C "$1" init -q -b main
	printf '%s\n' "$2" >"$1/b.sh"
	cat >"$1/bf.yaml" <<X
version: 1
project: {repo: ., target_branch: main}
benchmarks:
${4:-  - {name: b, command: [sh, b.sh], format: lines\}}
runs: {repeats: 3, warmup: 0}
checks: {battery_min: 0, suppress: [load, throttle]}
X
	t_git -C "$1" add -A
	t_git -C "$1" commit -q -m base
	t_git -C "$1" checkout -q -b patch
	printf '%s\n' "$3" >"$1/b.sh"
	t_git -C "$1" commit -q -am patch
}

STEADY='for d in 0 1 2; do echo "steady $((100 + d)) ns"; done'

# 1. The rename: slowed (base) becomes slowed_v2, 30% slower (patch).
R="$T/rename"
repo "$R" "$STEADY
for d in 0 1 2; do echo \"slowed \$((100 + d)) ns\"; done" "$STEADY
for d in 0 1 2; do echo \"slowed_v2 \$((130 + d)) ns\"; done"
expect_exit 1 "a patch that renames its slowed benchmark fails the gate" \
	"$BF" compare -c "$R/bf.yaml" --json "$T/rename.json" \
	--markdown "$T/rename.md"
jq_check "slowed is missing on the patch side" \
	'[.results[] | select(.name == "slowed")][0] | .verdict == "missing" and .missing == "patch"' \
	"$T/rename.json"
jq_check "slowed_v2 is missing on the base side" \
	'[.results[] | select(.name == "slowed_v2")][0] | .verdict == "missing" and .missing == "base"' \
	"$T/rename.json"
jq_check "steady was measured, the summary counts 2 missing" \
	'.summary.missing == 2 and .summary.same + .summary.unknown == 1 and .settings.missing_series == "fail"' \
	"$T/rename.json"
grep_file "the markdown says it" "\*\*missing on the patch side\*\*" \
	"$T/rename.md"
for fmt in github junit gerrit html json; do
	expect_exit 0 "$fmt renders it" "$BF" report -c "$R/bf.yaml" --no-post \
		--format "$fmt" --input "$T/rename.json" --output-dir "$T/r-$fmt"
done
jq_check "the GitHub check fails" '.conclusion == "failure" and
	(.output.title | test("2 series missing on one side"))' \
	"$T/r-github/github-check.json"
grep_file "a GitHub error command names it" \
	"^::error .*missing on the patch side" "$T/r-github/github-commands.txt"
grep_file "junit: a failure of type missing" \
	'<failure type="missing" message="missing on the patch side' \
	"$T/r-junit/junit.xml"
jq_check "gerrit: the message says it" \
	'.message | test("b/slowed value: missing on the patch side")' \
	"$T/r-gerrit/gerrit-review.json"
grep_file "html: the page carries the verdict" '"verdict": *"missing"' \
	"$T/r-html/report.html"
jq_check "json: the verdict as compare wrote it" \
	'[.results[] | select(.verdict == "missing")] | length == 2' \
	"$T/r-json/"*.json

# The same with presubmit.missing_series: ignore: said, and passing.
sed 's/^checks:/presubmit: {missing_series: ignore}\nchecks:/' \
	"$R/bf.yaml" >"$R/ignore.yaml"
expect_exit 0 "config check accepts missing_series: ignore" \
	"$BF" config check -c "$R/ignore.yaml"
jq_check "config check shows it" '.presubmit.missing_series == "ignore"' "$OUT"
expect_exit 0 "config check of the default" "$BF" config check -c "$R/bf.yaml"
jq_check "the default is fail" '.presubmit.missing_series == "fail"' "$OUT"
expect_exit 0 "missing_series: ignore lets the rename pass" \
	"$BF" compare -c "$R/ignore.yaml" --json "$T/ignore.json"
jq_check "and still says missing" \
	'.summary.missing == 2 and .settings.missing_series == "ignore"' \
	"$T/ignore.json"

# 2. The crash: benchmark c (series slowed) fails on the patch's side
# while benchmark b (series steady) is measured.
R="$T/crash"
repo "$R" "case \$1 in
steady) $STEADY ;;
*) for d in 0 1 2; do echo \"slowed \$((100 + d)) ns\"; done ;;
esac" "case \$1 in
steady) $STEADY ;;
*) exit 1 ;;
esac" "  - {name: b, command: [sh, b.sh, steady], format: lines}
  - {name: c, command: [sh, b.sh, slowed], format: lines}"
expect_exit 1 "a patch whose benchmark crashes on its side fails the gate" \
	"$BF" compare -c "$R/bf.yaml" --json "$T/crash.json"
jq_check "its series is missing on the patch side, steady measured" \
	'([.results[] | select(.verdict == "missing")] | map(.name + ":" + .missing)) == ["slowed:patch"] and
	 ([.results[] | select(.name == "steady")][0].verdict | test("same|unknown"))' \
	"$T/crash.json"

# 3. Negative nanoseconds: -10 ns on the base, -5 ns on the patch.
R="$T/neg"
repo "$R" 'for d in 0 1 2; do echo "slowed -$((10 + d)) ns"; done' \
	'for d in 0 1 2; do echo "slowed -$((5 + d)) ns"; done'
expect_exit 3 "negative ns values give no verdict" \
	"$BF" compare -c "$R/bf.yaml" --json "$T/neg.json"
jq_check "nothing reads improved" \
	'[.results[] | select(.verdict == "improved")] | length == 0' \
	"$T/neg.json"
jq_check "each run is a parse error naming the value" \
	'(.errors | length) == 6 and all(.errors[]; .message | test("slowed.*-1?[0-9] ns is negative"))' \
	"$T/neg.json"

# 4. Values above DBL_MAX / 2 (finite; the parsers accept them): the
# mean of two middle values does not overflow, so the run's median and
# history's point are finite and shown, not null nor left out.
R="$T/big"
repo "$R" 'echo "big 1.7e308"; echo "big 1.6e308"' 'echo "big 1.7e308"'
git -C "$R" checkout -q main
expect_exit 0 "run records a commit of values near DBL_MAX" \
	"$BF" run -c "$R/bf.yaml" --repeats 2 --json "$T/big-run.json"
jq_check "its median is finite" \
	'.results[0].median > 1.6e308 and .results[0].median < 1.7e308' \
	"$T/big-run.json"
expect_exit 0 "history of it" "$BF" history -c "$R/bf.yaml" --json
jq_check "history shows the point" \
	'[.series[] | select(.benchmark == "big")][0].points | length == 1 and .[0].value > 1.6e308' \
	"$OUT"
