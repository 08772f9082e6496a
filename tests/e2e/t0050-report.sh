#!/bin/sh
# benchfarm report: the command, its errors, exec:NAME reporters run from
# PATH by argv (never a shell), and compare --report writing several
# formats in one go. The format-specific reporters have their own tests
# (t0051 to t0053).
. "$(dirname "$0")/lib.sh"

FX="$BF_SRC/tests/fixtures/report"

expect_exit 0 "report --help" "$BF" report --help
grep_file "the usage names --output-dir" "--output-dir DIR" "$OUT"
expect_exit 0 "report --list" "$BF" report --list
for f in markdown json exec; do
	grep_file "--list has $f" "^$f " "$OUT"
done

# exec:NAME: a user's reporter on PATH gets the document on stdin.
mkdir -p "$T/bin"
cat >"$T/bin/benchfarm-report-keep" <<X
#!/bin/sh
cat >"$T/exec-stdin.json"
echo "kept \$# args"
X
printf '#!/bin/sh\ncat >/dev/null\necho broken >&2\nexit 4\n' \
	>"$T/bin/benchfarm-report-broken"
printf '#!/bin/sh\ncat >/dev/null\nkill -SEGV $$\n' \
	>"$T/bin/benchfarm-report-crash"
chmod +x "$T/bin/benchfarm-report-keep" "$T/bin/benchfarm-report-broken" \
	"$T/bin/benchfarm-report-crash"
PATH="$T/bin:$PATH" expect_exit 0 "exec:keep" "$BF" report -f exec:keep \
	-i "$FX/compare-regressed.json"
grep_file "its stdout is the report, with no arguments" "^kept 0 args$" "$OUT"
if jq -e --slurpfile a "$FX/compare-regressed.json" '. == $a[0]' \
	"$T/exec-stdin.json" >/dev/null; then
	t_ok "it got the whole document on stdin"
else
	t_fail "stdin differs from the document"
fi
PATH="$T/bin:$PATH" expect_exit 2 "a failing reporter" "$BF" report \
	-f exec:broken -i "$FX/compare-regressed.json"
grep_file "its status is named" "exit status 4" "$ERR"
grep_file "its stderr passes through" "^broken$" "$ERR"
PATH="$T/bin:$PATH" expect_exit 3 "a reporter that crashes" "$BF" report \
	-f exec:crash -i "$FX/compare-regressed.json"
grep_file "the signal is named" \
	"'benchfarm-report-crash' was killed by signal 11 (Segmentation fault)" \
	"$ERR"
expect_exit 2 "a reporter not on PATH" "$BF" report -f exec:nowhere \
	-i "$FX/compare-regressed.json"
grep_file "the program is named" "benchfarm-report-nowhere" "$ERR"
(cd "$T" && expect_exit 2 "a name with shell in it" "$BF" report \
	-f 'exec:$(touch pwned)' -i "$FX/compare-regressed.json")
[ ! -e "$T/pwned" ] && t_ok "nothing ran" || t_fail "the shell ran"
grep_file "the name rule is explained" "may only hold letters" "$ERR"

# Bad use and bad input.
expect_exit 2 "an unknown format" "$BF" report -f bogus -i \
	"$FX/compare-clean.json"
grep_file "it points at --list" "report --list" "$ERR"
expect_exit 2 "no input" "$BF" report -f markdown
expect_exit 2 "output and output-dir" "$BF" report -f markdown \
	-i "$FX/compare-clean.json" -o "$T/a" --output-dir "$T/b"
expect_exit 2 "two formats need a directory" "$BF" report \
	-f markdown,json -i "$FX/compare-clean.json"
printf '{"kind": "compare", ' >"$T/trunc.json"
expect_exit 2 "truncated JSON" "$BF" report -f json -i "$T/trunc.json"
grep_file "the error names the file" "trunc.json" "$ERR"
echo '{"results": []}' >"$T/nokind.json"
expect_exit 2 "a document without kind" "$BF" report -f json \
	-i "$T/nokind.json"
grep_file "it says what is expected" "benchfarm compare --json" "$ERR"
expect_exit 2 "a missing input" "$BF" report -f json -i "$T/none.json"
expect_exit 0 "stdin as input" sh -c \
	"\"$BF\" report -f json -i - <\"$FX/detect.json\""
jq_check "detect results go through json" '.kind == "detect"' "$OUT"

# Words from the command line reach JSON, XML and markdown: a check name
# that is not UTF-8, or holds a control character, is refused by every
# format (exit 2, the option named, nothing written), never a crash or
# an invalid document.
ff=$(printf '\377')
tab=$(printf '\t')
for fmt in $("$BF" report --list | awk '$1 !~ /^exec/ {print $1}'); do
	expect_exit 2 "$fmt refuses a check name that is not UTF-8" "$BF" \
		report -f "$fmt" --no-post --check-name "perf$ff" \
		-i "$FX/compare-regressed.json" --output-dir "$T/badname/$fmt"
	grep_file "$fmt names the option" \
		"$fmt: the check name (--check-name, review.check_name) is not UTF-8 text" \
		"$ERR"
	[ ! -e "$T/badname/$fmt" ] && t_ok "$fmt wrote nothing" ||
		t_fail "$fmt wrote an output"
	expect_exit 2 "$fmt refuses a check name with a tab" "$BF" \
		report -f "$fmt" --no-post --check-name "perf${tab}x" \
		-i "$FX/compare-regressed.json" -o "$T/tabname.out"
	grep_file "$fmt names the byte" "byte 0x09 at offset 4" "$ERR"
done

# A result whose benchmark name is not UTF-8 is not a JSON document:
# refused (exit 2) with the file, the place and the byte named.
LC_ALL=C sed "s|\"BM_sort/1024\"|\"BM_$ff\"|" \
	"$FX/compare-regressed.json" >"$T/nonutf8.json"
grep -q "BM_$ff" "$T/nonutf8.json" && t_ok "the fixture has a 0xff name" ||
	t_fail "the fixture has no 0xff name"
for fmt in markdown github junit; do
	expect_exit 2 "$fmt refuses a benchmark name that is not UTF-8" \
		"$BF" report -f "$fmt" -i "$T/nonutf8.json"
	grep_file "$fmt says which byte, where" \
		"nonutf8.json:[0-9]*:[0-9]*: unable to decode byte 0xff" "$ERR"
done
sed 's|"BM_sort/1024"|"BM_\\udcff"|' "$FX/compare-regressed.json" \
	>"$T/surrogate.json"
expect_exit 2 "a lone surrogate escape in a name is refused" "$BF" \
	report -f markdown -i "$T/surrogate.json"
grep_file "it is named" "surrogate.json:.*invalid Unicode" "$ERR"

# Several formats in one directory; a failed write is exit 3.
PATH="$T/bin:$PATH" expect_exit 0 "json and exec into a directory" "$BF" \
	report -f json,exec:keep -i "$FX/compare-regressed.json" \
	--output-dir "$T/out"
[ -f "$T/out/result.json" ] && [ -f "$T/out/exec-keep.out" ] &&
	t_ok "each output under its name" || t_fail "outputs missing"
touch "$T/file"
expect_exit 3 "a directory that cannot be made" "$BF" report -f json \
	-i "$FX/compare-regressed.json" --output-dir "$T/file/sub"

# A result from another version: refused with both versions named; a
# patch release of ours is read.
jq '.benchfarm = "9.0.0"' "$FX/compare-clean.json" >"$T/v9.json"
expect_exit 2 "a result from benchfarm 9.0.0" "$BF" report -f markdown \
	-i "$T/v9.json"
grep_file "both versions are named" "written by benchfarm '9.0.0' and this is benchfarm 0\.1\.0" "$ERR"
jq '.benchfarm = "0.1.9"' "$FX/compare-clean.json" >"$T/v019.json"
expect_exit 0 "a result from 0.1.9 is read" "$BF" report -f markdown \
	-i "$T/v019.json"
for v in 0.1.x 0.1.0garbage 00.1.0 0.1; do
	jq --arg v "$v" '.benchfarm = $v' "$FX/compare-clean.json" >"$T/vbad.json"
	expect_exit 2 "a version that is not MAJOR.MINOR.PATCH: $v" "$BF" \
		report -f markdown -i "$T/vbad.json"
done
jq '.benchfarm = "0.1.2-rc1"' "$FX/compare-clean.json" >"$T/vrc.json"
expect_exit 0 "a pre-release of ours is read" "$BF" report -f markdown \
	-i "$T/vrc.json"
jq '.benchfarm = "9.0.0"' "$FX/detect.json" >"$T/dv9.json"
expect_exit 2 "a detect result from benchfarm 9.0.0" "$BF" report \
	-f markdown -i "$T/dv9.json"
jq 'del(.alerts)' "$FX/detect.json" >"$T/noalerts.json"
expect_exit 2 "a detect result without alerts" "$BF" report -f markdown \
	-i "$T/noalerts.json"
grep_file "it says what is missing" 'no "alerts" array' "$ERR"
jq '.benchfarm = 1' "$FX/compare-clean.json" >"$T/vnum.json"
expect_exit 2 "a version that is not a string" "$BF" report -f markdown \
	-i "$T/vnum.json"

# compare --report on a real repository.
if command -v c++ >/dev/null 2>&1 && [ -f /usr/include/benchmark/benchmark.h ]; then
	make_demo_repo "$T/repo"
	(cd "$T/repo" && PATH="$T/bin:$PATH" "$BF" compare -c benchfarm.yaml \
		--base main --patch patch -n 3 --warmup 0 \
		--report json,markdown,exec:keep --report-dir "$T/rep" \
		>"$T/cmp.out" 2>"$T/cmp.err")
	rc=$?
	[ $rc -le 1 ] && t_ok "compare --report (exit $rc)" ||
		{ cat "$T/cmp.err"; t_fail "compare --report exit $rc"; }
	for f in result.json report.md exec-keep.out; do
		[ -s "$T/rep/$f" ] && t_ok "compare wrote $f" ||
			t_fail "compare did not write $f"
	done
	jq_check "the report's JSON is the compare result" \
		'.kind == "compare" and (.results | length) > 0' "$T/rep/result.json"
	jq_check "each result points at its benchmark's entry in the config" \
		'all(.results[]; .source.file == "benchfarm.yaml" and .source.line > 1)' \
		"$T/rep/result.json"
	n=$(grep -n 'name: *micro' "$T/repo/benchfarm.yaml" | head -1 | cut -d: -f1)
	jq_check "at the line of its entry ($n)" \
		"all(.results[]; .source.line == ${n:-0})" "$T/rep/result.json"
	if [ "$(head -1 "$T/rep/report.md")" = \
		"<!-- benchfarm:report name=benchfarm -->" ]; then
		t_ok "the markdown starts with its marker"
	else
		t_fail "the markdown's first line is not the marker"
	fi
	# A misspelt format or a missing exec program is found before
	# anything is built or measured: no run is stored.
	runs=$(sqlite3 "$BENCHFARM_DB" "select count(*) from runs")
	for bad in "markdwn|unknown report format 'markdwn'" \
		"markdown,exec:nosuch|exec:nosuch: no program 'benchfarm-report-nosuch' on PATH" \
		"exec:|exec needs a name"; do
		(cd "$T/repo" && "$BF" compare -c benchfarm.yaml --base main \
			--patch patch -n 3 --report "${bad%%|*}" \
			>/dev/null 2>"$T/bad.err")
		rc=$?
		[ $rc = 2 ] && t_ok "compare --report ${bad%%|*}: exit 2" ||
			t_fail "compare --report ${bad%%|*}: exit $rc"
		grep_file "it says: ${bad#*|}" "^benchfarm: compare: ${bad#*|}" \
			"$T/bad.err"
	done
	n=$(sqlite3 "$BENCHFARM_DB" "select count(*) from runs")
	[ "$n" = "$runs" ] && t_ok "nothing was run for a bad --report" ||
		t_fail "runs went from $runs to $n for a bad --report"
	# PATH is searched as execvp searches it: an empty entry is the
	# current directory.
	(cd "$T/bin" && PATH="/usr/bin:/bin:" "$BF" compare \
		-c "$T/repo/benchfarm.yaml" --base main --patch patch -n 3 \
		--report exec:keep --report-dir "$T/rep2" >/dev/null 2>&1)
	rc=$?
	[ $rc -le 1 ] && [ -s "$T/rep2/exec-keep.out" ] &&
		t_ok "an exec reporter in an empty PATH entry's directory runs" ||
		t_fail "exec:keep through an empty PATH entry: exit $rc"
	# The config's review settings reach every markdown compare writes:
	# --markdown FILE, stdout and --report markdown carry the same marker,
	# headline and link as `report --format markdown -c`, so a pipeline
	# that posts any of them updates one comment.
	printf 'review:\n  check_name: perf/pixel-7\n  link: https://ci.example/run/9\n' \
		>>"$T/repo/benchfarm.yaml"
	(cd "$T/repo" && "$BF" compare -c benchfarm.yaml --base main \
		--patch patch -n 3 --warmup 0 --markdown "$T/cmp.md" \
		--json "$T/cmp.json" --report markdown --report-dir "$T/rep3" \
		>/dev/null 2>"$T/cmp.err")
	rc=$?
	[ $rc -le 1 ] && t_ok "compare with review settings (exit $rc)" ||
		{ cat "$T/cmp.err"; t_fail "compare with review settings exit $rc"; }
	[ "$(head -1 "$T/cmp.md")" = \
		"<!-- benchfarm:report name=perf/pixel-7 -->" ] &&
		t_ok "compare --markdown has review.check_name's marker" ||
		t_fail "compare --markdown's first line: $(head -1 "$T/cmp.md")"
	grep_file "compare --markdown has review.link" \
		'^\[Full results\](<https://ci.example/run/9>)$' "$T/cmp.md"
	cmp -s "$T/cmp.md" "$T/rep3/report.md" &&
		t_ok "compare --markdown is byte for byte --report markdown" ||
		t_fail "compare --markdown and --report markdown differ"
	"$BF" report -f markdown -c "$T/repo/benchfarm.yaml" \
		-i "$T/cmp.json" -o "$T/again.md" 2>"$ERR"
	cmp -s "$T/cmp.md" "$T/again.md" &&
		t_ok "and byte for byte report --format markdown -c" ||
		t_fail "compare --markdown and report --format markdown differ"
else
	echo "ok 999 # skip no C++ compiler or Google Benchmark"
fi
