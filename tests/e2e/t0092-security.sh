#!/bin/sh
# Security over a whole compare on a real sshd device:
# benchmark names full of shell, markdown, HTML/XML and path
# metacharacters change no command (nothing they name is created) and
# every report format still parses; no canary secret (the private key,
# tokens in the environment) reaches any file, log or output; nothing
# benchfarm writes is readable by others; an unknown host key and an
# sshd that accepts connections and then says nothing are refused with
# a clear message.
. "$(dirname "$0")/lib.sh"

SSHD_SH="$BF_SRC/ci/sshd.sh"
need_sshd
S="$T/sshd"
mkdir -p "$S"
trap 'kill -CONT "$(cat "$S/stall/sshd.pid" 2>/dev/null)" 2>/dev/null; for d in dev stall; do "$SSHD_SH" stop "$S" "$d"; done; rm -rf "$T"' EXIT
trap 'exit 1' HUP INT TERM PIPE
export BENCHFARM_KNOWN_HOSTS="$T/known_hosts"
ME=$(id -un)
umask 022 # what a CI runner usually has: only benchfarm's own modes count

# Canaries: tokens a CI job has in its environment, and the private key.
CANARY="bfcanary$(od -An -tx1 -N8 /dev/urandom | tr -d ' \n')"
export GITHUB_TOKEN="$CANARY-gh" GITLAB_TOKEN="$CANARY-gl"
export CI_JOB_TOKEN="$CANARY-ci" BENCHFARM_TEST_SECRET="$CANARY-env"

"$SSHD_SH" client-key "$S"
chmod 600 "$S/client_key"
KEY="$S/client_key"
KEYLINE=$(sed -n 3p "$KEY") # a line of the key's own base64 bytes
port=$("$SSHD_SH" start "$S" dev) || {
	t_fail "start sshd device"
	exit 1
}

# Hostile benchmark names, printed by the benchmark (lines format: a
# name has no spaces). Each would create a file named PWNED* if any
# command line or shell ever saw it as code.
R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
cat >"$R/bench.sh" <<'X'
for n in 'a$(touch${IFS}PWNED1)' 'b`touch${IFS}PWNED2`' 'c;touch${IFS}PWNED3;' \
	'd|touch${IFS}PWNED4' '<script>alert(1)</script>' '**bold**|cell|' \
	'../../etc/passwd' ']]></testcase><x>' '@everyone' '::error::x' \
	'[link](http://evil.example)' 'e&amp;"q"'"'"; do
	echo "$n 100 ns"
done
X
cat >"$R/bf.yaml" <<X
version: 1
project: {repo: ., target_branch: main, build: [true], artifacts: [bench.sh]}
benchmarks:
  - {name: micro, command: [sh, bench.sh], format: lines}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks]}
runs: {repeats: 5, warmup: 0}
devices: {pool: lab}
presubmit: {fail_on: never}
report: [markdown, github, gitlab, junit, skia-perf, bmf]
X
t_git -C "$R" add -A
t_git -C "$R" commit -q -m base
t_git -C "$R" checkout -q -b patch
# every name regressed, and reported (5 runs a side: the least p of 3
# is above alpha 0.01)
sed -i 's/ 100 ns/ 150 ns/' "$R/bench.sh"
t_git -C "$R" commit -q -am patch

# An unknown host key is refused: registering does not trust it, the
# first connection stops, and only --accept-host-key records it.
expect_exit 0 "registered without --accept-host-key" "$BF" device add dev \
	--host 127.0.0.1 --port "$port" --user "$ME" --key "$KEY" \
	--labels lab --agent "$BFA" --workdir "$T/work/dev"
expect_exit 3 "its unknown host key fails the check" "$BF" device check dev \
	-c "$R/bf.yaml"
grep_file "saying how to accept it" "is not known; check it.*--accept-host-key" \
	"$OUT"
[ ! -s "$BENCHFARM_KNOWN_HOSTS" ] && t_ok "and nothing was trusted" ||
	t_fail "a host key was recorded without --accept-host-key"
expect_exit 0 "removed" "$BF" device rm dev
expect_exit 0 "added again with --accept-host-key" "$BF" device add dev \
	--host 127.0.0.1 --port "$port" --user "$ME" --key "$KEY" \
	--labels lab --agent "$BFA" --workdir "$T/work/dev" --accept-host-key
expect_exit 0 "now it checks good" "$BF" device check dev -c "$R/bf.yaml"

mkdir -p "$T/out"
# (skia-perf writes a comparison as a trybot result of a change)
(cd "$R" && BENCHFARM_PERF_ISSUE=7 BENCHFARM_PERF_PATCHSET=1 \
	"$BF" -v compare -c bf.yaml --json "$T/out/r.json" \
	--report-dir "$T/out/reports" --markdown "$T/out/r.md") \
	>"$OUT" 2>"$ERR"
rc=$?
[ "$rc" = 0 ] && t_ok "compare with hostile names over ssh" ||
	t_fail "compare exit $rc"
jq_check "every hostile name measured" \
	'[.results[] | select(.metric == "value")] | length == 12' "$T/out/r.json"
jq_check "names kept byte for byte" \
	'[.results[].name] | index("a$(touch${IFS}PWNED1)") != null and index("e&amp;\"q\"'"'"'") != null' \
	"$T/out/r.json"
pwned=$(find / -xdev -name 'PWNED*' 2>/dev/null | head -3)
[ -z "$pwned" ] && t_ok "no name ran as a command" ||
	t_fail "a name ran as a command: $pwned"
for f in github-check.json skia-perf.json bmf.json; do
	if [ -f "$T/out/reports/$f" ]; then
		jq -e . "$T/out/reports/$f" >/dev/null 2>&1 &&
			t_ok "$f is valid JSON" || t_fail "$f does not parse"
	fi
done
j=$(ls "$T/out/reports/"*.xml 2>/dev/null | head -1)
[ -n "$j" ] && xmllint --noout "$j" 2>"$ERR" && t_ok "JUnit XML is well formed" ||
	t_fail "JUnit XML: $j"
if grep -q '<script>' "$T/out/r.md" "$T/out/reports/"*.md 2>/dev/null; then
	t_fail "a raw <script> tag in the markdown"
else
	t_ok "no raw <script> tag in any markdown"
fi
W="$T/out/reports/github-commands.txt"
if [ "$(grep -c . "$W")" -ge 12 ] &&
	! grep -vE '^::(warning|error|notice)( [^:]*)?::' "$W" >/dev/null; then
	t_ok "every workflow command line is one command, names inside it"
else
	t_fail "workflow commands: $(head -c 600 "$W")"
fi

# The canaries appear nowhere benchfarm wrote or printed: the store, the
# results, the reports, its logs (with -v), the device's work directory
# and the known_hosts file. Only the key file itself holds the key.
leaks=$(grep -rlF -e "$CANARY" -e "$KEYLINE" "$T" 2>/dev/null |
	grep -vx "$KEY")
[ -z "$leaks" ] && t_ok "no secret in any file or output (canary and key)" ||
	t_fail "secrets found in: $leaks"
sqlite3 "$BENCHFARM_DB" .dump | grep -qF -e "$CANARY" -e "$KEYLINE" &&
	t_fail "a secret in the store's dump" ||
	t_ok "no secret in the store's dump"

# Nothing benchfarm creates is readable by others: the store and its
# companions, known_hosts, the result JSON, the markdown and the reports.
open=$(find "$BENCHFARM_DB"* "$BENCHFARM_KNOWN_HOSTS" "$T/out" \
	-perm -o=r ! -path "$T/out" 2>/dev/null)
[ -z "$open" ] && t_ok "nothing it wrote is world-readable" ||
	t_fail "world-readable: $open"

# An artifact that leads out of the exported tree (the patch is
# untrusted: a "../" in the config, or a symbolic link it commits) is
# never shipped to the device.
echo "host secret $CANARY" >"$T/host-secret"
R2="$T/repo2"
mkdir -p "$R2"
t_git -C "$R2" init -q -b main
cp "$R/bench.sh" "$R2/"
ln -s "$T/host-secret" "$R2/out.bin"
t_git -C "$R2" add -A
t_git -C "$R2" commit -q -m base
sed 's/artifacts: \[bench.sh\]/artifacts: [bench.sh, out.bin]/' "$R/bf.yaml" \
	>"$R2/bf.yaml"
sed 's|artifacts: \[bench.sh\]|artifacts: [bench.sh, ../../../../../../etc/hostname]|' \
	"$R/bf.yaml" >"$R2/dots.yaml"
for c in bf dots; do
	expect_exit 3 "an artifact outside the tree is refused ($c.yaml)" \
		"$BF" compare -c "$R2/$c.yaml" --base main --patch main
	grep_file "naming it and where it leads" \
		"artifact '.*' resolves to '.*', outside" "$ERR"
done
sed 's/artifacts: \[bench.sh\]/artifacts: [bench.sh, out\/missing]/' \
	"$R/bf.yaml" >"$R2/missing.yaml"
expect_exit 3 "an artifact the build did not make is an infrastructure failure" \
	"$BF" compare -c "$R2/missing.yaml" --base main --patch main
grep_file "named" "left no artifact 'out/missing' (project.artifacts)" "$ERR"
expect_exit 0 "device show" "$BF" device show dev --json
jq_check "the device is not blamed for the tree's artifacts" \
	'.health == "good"' "$OUT"
grep -rqF "host secret" "$T/work" 2>/dev/null &&
	t_fail "the host's file reached the device" ||
	t_ok "nothing outside the tree reached the device"

# What a device's benchmark prints on stderr reaches the CI log one
# entry a line, with control characters escaped: it cannot start a
# workflow command ("::error::" at the start of a line) or clear the
# terminal.
printf '%s\n' "printf 'oops\\n::error file=x::INJECTED\\n\\033[2J' >&2" \
	'exit 1' >"$R2/evil.sh"
sed -e 's/artifacts: \[bench.sh\]/artifacts: [evil.sh]/' \
	-e 's/command: \[sh, bench.sh\]/command: [sh, evil.sh]/' \
	"$R/bf.yaml" >"$R2/evil.yaml"
t_git -C "$R2" add evil.sh
t_git -C "$R2" commit -q -m evil
expect_exit 3 "a benchmark that fails with hostile stderr" "$BF" compare \
	-c "$R2/evil.yaml" --base main --patch main
grep_file "its stderr is in the log" "oops | ::error file=x::INJECTED" "$ERR"
if grep -q '^::' "$ERR" || grep -q "$(printf '\033')" "$ERR"; then
	t_fail "the benchmark's stderr started a line with :: or sent ESC"
else
	t_ok "no line starts with :: and no ESC reaches the log"
fi

# An sshd that accepts connections and then says nothing.
sport=$("$SSHD_SH" start "$S" stall) || t_fail "start the stalling sshd"
expect_exit 0 "register the device that will stall" "$BF" device add stall \
	--host 127.0.0.1 --port "$sport" --user "$ME" --key "$KEY" \
	--agent "$BFA" --workdir "$T/work/stall" --accept-host-key
kill -STOP "$(cat "$S/stall/sshd.pid")"
expect_exit 3 "a device whose sshd stalls fails its check" \
	"$BF" device check stall -c "$R/bf.yaml"
grep_file "with the timeout named" \
	"stall.*did not complete the SSH handshake within 10 s" "$OUT"
kill -CONT "$(cat "$S/stall/sshd.pid")"
expect_exit 0 "device show after the stall" "$BF" device show stall --json
jq_check "and it is marked bad" '.health == "bad"' "$OUT"
