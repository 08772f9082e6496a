#!/bin/sh
# JUnit XML as test dashboards read it: valid against Jenkins' schema
# (tests/fixtures/report/junit-10.xsd, vendored from the xunit plugin),
# a time on every suite and case and a timestamp and hostname on every
# suite (without them dashboards show NaN durations), "unknown" verdicts
# skipped with their reason rather than passed, and detect and bisect
# results as test cases: a new regression, or a bad commit, fails.
. "$(dirname "$0")/lib.sh"

FX="$BF_SRC/tests/fixtures/report"
XSD="$FX/junit-10.xsd"
if ! command -v xmllint >/dev/null 2>&1; then
	echo "ok 1 # skip no xmllint"
	exit 0
fi

# x FILE XPATH: the XPath's value in FILE.
x() {
	xmllint --xpath "$2" "$1" 2>/dev/null
}

# same "what" GOT WANT
same() {
	[ "$2" = "$3" ] && t_ok "$1" || t_fail "$1: got '$2', want '$3'"
}

for fx in compare-regressed compare-clean compare-infra compare-hostile \
	compare-empty detect bisect; do
	D="$T/$fx"
	expect_exit 0 "$fx: junit" "$BF" report -f junit -i "$FX/$fx.json" \
		--output-dir "$D"
	check "$fx: valid against Jenkins' junit-10.xsd" \
		xmllint --noout --schema "$XSD" "$D/junit.xml"
	same "$fx: every suite has a time, a timestamp and a hostname" \
		"$(x "$D/junit.xml" 'count(//testsuite[not(@time) or not(@timestamp) or not(@hostname)])')" 0
	same "$fx: every case has a time" \
		"$(x "$D/junit.xml" 'count(//testcase[not(@time)])')" 0
	same "$fx: the root has a time" \
		"$(x "$D/junit.xml" 'count(/testsuites[@time])')" 1
	bad=$(x "$D/junit.xml" '//@time[not(number(.) >= 0)]')
	same "$fx: every time is a number of seconds" "$bad" ""
	bad=$(x "$D/junit.xml" '//testsuite/@timestamp' |
		grep -v -E '^ timestamp="[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}"$')
	same "$fx: timestamps are ISO 8601 date and time" "$bad" ""
	# the counts the suites declare are what they hold
	for k in failure:failures error:errors skipped:skipped; do
		held=$(x "$D/junit.xml" "count(//testsuite/testcase/${k%%:*})")
		said=$(x "$D/junit.xml" "sum(//testsuite/@${k#*:})")
		same "$fx: the suites count their ${k#*:}" "$held" "$said"
	done
done

# The timestamp is when the compare started (UTC); the hostname the
# device's host.
D="$T/compare-regressed"
same "timestamp from the result's started" \
	"$(x "$D/junit.xml" 'string(//testsuite[1]/@timestamp)')" \
	"$(jq -r '.started | sub("Z$"; "")' "$FX/compare-regressed.json")"
same "hostname from the device's info" \
	"$(x "$D/junit.xml" 'string(//testsuite[1]/@hostname)')" "lab-7"
same "the run's wall time on <testsuites>" \
	"$(x "$D/junit.xml" 'string(/testsuites/@time)')" "12.500"

# "unknown" is skipped with its reason, never a pass or a failure.
for fx in compare-regressed compare-hostile; do
	D="$T/$fx"
	n=$(jq '[.results[] | select(.verdict == "unknown")] | length' "$FX/$fx.json")
	[ "$n" -gt 0 ] || t_fail "$fx has no unknown verdict to test"
	same "$fx: each unknown result is skipped ($n)" \
		"$(x "$D/junit.xml" 'count(//testcase/skipped)')" "$n"
	same "$fx: a skip says why" \
		"$(x "$D/junit.xml" 'count(//testcase/skipped[starts-with(@message, "not conclusive: too few or too noisy samples")])')" "$n"
	same "$fx: a skipped case is no failure" \
		"$(x "$D/junit.xml" 'count(//testcase[skipped][failure or error])')" 0
done

# Without "started" (a document made by hand): rendered with the time
# of rendering, still a valid timestamp.
jq 'del(.started)' "$FX/compare-clean.json" >"$T/nostart.json"
expect_exit 0 "a result without started" "$BF" report -f junit \
	-i "$T/nostart.json" -o "$T/nostart.xml"
x "$T/nostart.xml" 'string(//testsuite[1]/@timestamp)' |
	grep -q -E '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$' &&
	t_ok "its timestamp is the time of rendering" ||
	t_fail "no timestamp without started"

# detect: a case per alert; the new regression fails, the ignored
# improvement is skipped with the reason.
D="$T/detect"
same "detect: a case per alert" \
	"$(x "$D/junit.xml" 'count(//testcase)')" "$(jq '.alerts | length' "$FX/detect.json")"
same "detect: the new regression fails" \
	"$(x "$D/junit.xml" 'count(//testcase[starts-with(@name, "alpha value at ")]/failure[@type="regression"])')" 1
same "detect: the ignored alert is skipped, saying so" \
	"$(x "$D/junit.xml" 'string(//testcase[starts-with(@name, "beta value at ")]/skipped/@message)')" \
	"ignored: marked as no regression"
jq '.alerts = []' "$FX/detect.json" >"$T/noalert.json"
expect_exit 0 "detect without alerts" "$BF" report -f junit \
	-i "$T/noalert.json" -o "$T/noalert.xml"
same "one passing case says what was looked at" \
	"$(x "$T/noalert.xml" 'string(//testcase/@name)')" \
	"no alert in 2 series over 38 measured commits"
check "that too is valid" xmllint --noout --schema "$XSD" "$T/noalert.xml"

# bisect: a case per probed commit; the bad one fails, the one that
# does not build is skipped with its reason.
D="$T/bisect"
same "bisect: a case per probe" "$(x "$D/junit.xml" 'count(//testcase)')" 3
same "bisect: the bad commit fails" \
	"$(x "$D/junit.xml" 'string(//testcase[failure]/@name)')" \
	"alpha value at 171717171717"
same "bisect: the unbuildable commit is skipped" \
	"$(x "$D/junit.xml" 'string(//testcase/skipped/@message)')" \
	"does not build"

# The schema can fail: a suite without its required counts.
printf '<?xml version="1.0"?>\n<testsuites><testsuite name="a" tests="1"><testcase name="b"/></testsuite></testsuites>\n' \
	>"$T/bad.xml"
if xmllint --noout --schema "$XSD" "$T/bad.xml" >/dev/null 2>&1; then
	t_fail "the schema accepts a suite without failures and errors"
else
	t_ok "the schema rejects a suite without failures and errors"
fi
