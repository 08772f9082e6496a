#!/bin/sh
# Text from a device or a benchmark is printed inert: an agent whose
# check ids and messages carry ESC (terminal control), CR, a line feed
# followed by "::error::" (a GitHub Actions workflow command) and U+202E
# (a bidi override), on a real sshd device, changes nothing in what
# device check, device show and device list print; a patch whose
# benchmark names and failing stderr carry the same changes nothing in
# compare's terminal output, its markdown report or its JUnit file.
. "$(dirname "$0")/lib.sh"

SSHD_SH="$BF_SRC/ci/sshd.sh"
need_sshd
S="$T/sshd"
mkdir -p "$S"
trap '"$SSHD_SH" stop "$S" dev; rm -rf "$T"' EXIT
trap 'exit 1' HUP INT TERM PIPE
export BENCHFARM_KNOWN_HOSTS="$T/known_hosts"
ME=$(id -un)

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

"$SSHD_SH" client-key "$S"
chmod 600 "$S/client_key"
port=$("$SSHD_SH" start "$S" dev) || {
	t_fail "start sshd device"
	exit 1
}

# The malicious agent: the real one, with every check's message and the
# first check's id rewritten to the hostile text, and that check failed.
cat >"$T/evil-agent" <<X
#!/bin/sh
e=\$(printf 'x\\033[2J\\033]0;pwned\\007\\rCR\\n::error::pwned\\n::set-output name=a::b\\342\\200\\256evil\\302\\233')
"$BFA" "\$@" | jq -c --unbuffered --arg e "\$e" \
	'if .type == "result" and (.checks | type) == "array" then .fit = false | .checks[0].id = \$e | .checks[0].status = "fail" | .checks |= map(.message = \$e) else . end'
X
chmod 755 "$T/evil-agent"
R="$T/repo"
mkdir -p "$R"
cat >"$R/bf.yaml" <<'X'
version: 1
project: {repo: .}
benchmarks:
  - {name: b, command: ["true"], format: lines}
checks: {suppress: [throttle, load]}
X
expect_exit 0 "add the device" "$BF" device add evil --host 127.0.0.1 \
	--port "$port" --user "$ME" --key "$S/client_key" \
	--agent "$T/evil-agent" --accept-host-key
expect_exit 3 "its failed check makes it bad" "$BF" device check evil \
	-c "$R/bf.yaml"
grep_file "the table shows the reason" 'not fit to measure: x.*\[2J' "$OUT"
inert "device check's table is inert" "$OUT"
inert "device check's stderr is inert" "$ERR"
expect_exit 0 "device show" "$BF" device show evil
grep_file "show lists the check, escaped" '^  fail  x\\x1b\[2J.*\\u{202E}evil' \
	"$OUT"
inert "device show is inert" "$OUT"
expect_exit 0 "device list" "$BF" device list
grep_file "list's reason is there" '^evil .*not fit to measure: x.*\[2J' "$OUT"
inert "device list is inert" "$OUT"
# A patch under test: a benchmark named with the hostile characters and
# one that fails with them on stderr.
P="$T/proj"
mkdir -p "$P"
t_git -C "$P" init -q -b main
printf 'echo "ok 1 ns"\n' >"$P/names.sh"
printf 'echo "ok 1 ns"\n' >"$P/fails.sh"
cat >"$P/bf.yaml" <<'X'
version: 1
project: {repo: ., target_branch: main, build: [true]}
benchmarks:
  - {name: names, command: [sh, names.sh], format: lines}
  - {name: fails, command: [sh, fails.sh], format: lines}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks, cores]}
runs: {repeats: 2, warmup: 0}
presubmit: {fail_on: never}
X
t_git -C "$P" add -A
t_git -C "$P" commit -q -m base
t_git -C "$P" checkout -q -b patch
cat >"$P/names.sh" <<'X'
printf 'ok 1 ns\n\342\200\256evil 1 ns\n'
X
cat >"$P/fails.sh" <<'X'
printf 'boom\033[2J\r\n::error::pwned\n  ::set-output name=a::b\n\342\200\256evil\n' >&2
exit 1
X
t_git -C "$P" commit -q -am hostile
(cd "$P" && "$BF" compare -c bf.yaml --base main --patch patch \
	--report markdown,junit,github --report-dir "$T/rep" \
	--json "$T/cmp.json" >"$OUT" 2>"$ERR")
rc=$?
[ $rc -le 3 ] && t_ok "compare of the hostile patch ends (exit $rc)" ||
	t_fail "compare exit $rc"
inert "compare's stdout is inert" "$OUT"
inert "compare's stderr is inert" "$ERR"
grep_file "the failing benchmark's stderr is shown, escaped" \
	'boom\\x1b\[2J\\x0d' "$ERR"
inert "the markdown report is inert" "$T/rep/report.md"
grep_file "the markdown shows the override, escaped" '\\u{202E}' \
	"$T/rep/report.md"
inert "the JUnit file is inert" "$T/rep/junit.xml"
# github-commands.txt is workflow commands by design: each line one
# command of benchfarm's, with none of the hostile bytes raw.
bad=$(LC_ALL=C grep -c "$(printf '\033\\|\r\\|\302\233\\|\342\200\256')" \
	"$T/rep/github-commands.txt")
other=$(grep -cv '^::\(error\|warning\|notice\) ' "$T/rep/github-commands.txt")
[ "$bad" = 0 ] && [ "$other" = 0 ] &&
	t_ok "github-commands.txt is only benchfarm's commands, the text inert" ||
	t_fail "github-commands.txt: $bad lines with hostile bytes, $other not a command"
inert "github-summary.md is inert" "$T/rep/github-summary.md"
# The Gerrit review's message: plain text, the overrides shown.
cat >"$T/g.yaml" <<X
version: 1
project: {repo: .}
benchmarks:
  - {name: micro, command: [x]}
review:
  gerrit: {host: 127.0.0.1, port: 1, user: $ME, key: $S/client_key, change: "1,1"}
X
expect_exit 0 "the gerrit review renders" "$BF" report -c "$T/g.yaml" \
	--no-post -f gerrit -i "$T/cmp.json" --output-dir "$T/g"
jq_check "its message holds no control or override character" \
	'.message | (explode | all((. >= 32 or . == 10) and . != 127 and (. < 128 or . > 159) and . != 8238)) and contains("\\u{202E}evil")' \
	"$T/g/gerrit-review.json"
if command -v xmllint >/dev/null 2>&1; then
	check "the JUnit file is valid against junit-10.xsd" xmllint --noout \
		--schema "$BF_SRC/tests/fixtures/report/junit-10.xsd" \
		"$T/rep/junit.xml"
fi
