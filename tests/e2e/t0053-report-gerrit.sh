#!/bin/sh
# The gerrit reporter posting over real SSH: an OpenSSH sshd on 127.0.0.1
# (ci/sshd.sh) stands in for Gerrit. Its authorized_keys gives each of
# two client keys a forced command (command="..."): one records the
# command line ($SSH_ORIGINAL_COMMAND) and stdin, answers `gerrit query`
# with a canned patch set and exits 0; the other fails as Gerrit does.
# benchfarm must ask for the patch set's files, then send exactly
# `gerrit review --json CHANGE` with the ReviewInput it writes on stdin,
# through the devices' transport: strict host keys, the configured key,
# no shell on our side.
. "$(dirname "$0")/lib.sh"
# The CI's and the reporters' variables would change what is rendered.
unset GITHUB_SHA GITHUB_REF CI_MERGE_REQUEST_IID CHANGE_ID \
	GERRIT_CHANGE_NUMBER GERRIT_PATCHSET_NUMBER BENCHFARM_PERF_ISSUE \
	BENCHFARM_PERF_PATCHSET BENCHFARM_GERRIT_COMMENTS

need_sshd
SSHD_SH="$BF_SRC/ci/sshd.sh"
FX="$BF_SRC/tests/fixtures/report"
S="$T/sshd"
CMDS="$T/gerrit-cmds"
mkdir -p "$S"
export BENCHFARM_KNOWN_HOSTS="$T/known_hosts"
trap 'sh "$SSHD_SH" stop "$S" gerrit; rm -rf "$T"' EXIT

# The stand-ins.
cat >"$T/gerrit-ok" <<X
#!/bin/sh
printf '%s\n' "\$SSH_ORIGINAL_COMMAND" >>"$CMDS"
case \$SSH_ORIGINAL_COMMAND in
"gerrit query "*) cat "$T/query-answer" ;;
"gerrit review "*) cat >"$T/gerrit-stdin" ;;
*) echo "fatal: not a gerrit command" >&2; exit 1 ;;
esac
X
cat >"$T/gerrit-broken" <<X
#!/bin/sh
printf '%s\n' "\$SSH_ORIGINAL_COMMAND" >>"$T/broken-cmds"
cat >/dev/null
echo 'fatal: "4711,3" no such change' >&2
exit 1
X
chmod +x "$T/gerrit-ok" "$T/gerrit-broken"
sh "$SSHD_SH" client-key "$S"
ssh-keygen -q -t ed25519 -N '' -C broken -f "$S/broken_key"
PORT=$(sh "$SSHD_SH" start "$S" gerrit) ||
	{ t_fail "sshd did not start"; exit 0; }
# sshd reads authorized_keys at each login: the forced commands per key
OPTS=no-pty,no-port-forwarding,no-agent-forwarding,no-X11-forwarding
{
	printf 'command="%s",%s %s\n' "$T/gerrit-ok" "$OPTS" \
		"$(cat "$S/client_key.pub")"
	printf 'command="%s",%s %s\n' "$T/gerrit-broken" "$OPTS" \
		"$(cat "$S/broken_key.pub")"
} >"$S/gerrit/authorized_keys"

# What `gerrit query --format JSON --patch-sets --files change:4711`
# answers: patch set 3 touches the benchmark and the config.
answer() { # answer FILE...
	{
		printf '{"project":"demo","number":4711,"patchSets":['
		printf '{"number":2,"revision":"%s","files":[{"file":"/COMMIT_MSG"}]},' \
			2222222222222222222222222222222222222222
		printf '{"number":3,"revision":"%s","files":[{"file":"/COMMIT_MSG","type":"ADDED"}' \
			3333333333333333333333333333333333333333
		for f; do printf ',{"file":"%s","type":"MODIFIED"}' "$f"; done
		printf ']}]}\n{"type":"stats","rowCount":1}\n'
	} >"$T/query-answer"
}
answer bench/sort_bench.cc benchfarm.yaml

config() { # config FILE KEY
	cat >"$1" <<X
version: 1
project: {repo: .}
benchmarks:
  - {name: micro, command: [x]}
review:
  check_name: perf/pixel
  gerrit:
    host: 127.0.0.1
    port: $PORT
    user: $(id -un)
    key: $2
    label: Performance-Verified
    change: "4711,3"
X
}
config "$T/ok.yaml" "$S/client_key"
config "$T/broken.yaml" "$S/broken_key"

# Unknown host key: refused, nothing reaches the stand-in.
expect_exit 2 "an unknown Gerrit host key is refused" "$BF" report \
	-c "$T/ok.yaml" -f gerrit -i "$FX/compare-regressed.json" \
	--output-dir "$T/r0"
grep_file "the error names the server and the unknown key" \
	"cannot post to Gerrit at 127.0.0.1:$PORT: .*host key SHA256:.* is not known" "$ERR"
[ ! -e "$CMDS" ] && t_ok "nothing was run on the server" ||
	t_fail "the stand-in ran with an unknown host key"

printf '[127.0.0.1]:%s %s\n' "$PORT" \
	"$(cut -d' ' -f1,2 "$S/gerrit/host_key.pub")" >"$T/known_hosts"

# --no-post renders the review and connects to nothing.
expect_exit 0 "--no-post" "$BF" report -c "$T/ok.yaml" --no-post \
	-f gerrit -i "$FX/compare-regressed.json" --output-dir "$T/np"
[ ! -e "$CMDS" ] && t_ok "--no-post made no connection" ||
	t_fail "--no-post reached the server"
jq_check "the vote is -1 on a regression" \
	'.labels == {"Performance-Verified": -1}' "$T/np/gerrit-review.json"

# cmds_are LINE...: the stand-in ran exactly these commands, in order.
cmds_are() {
	printf '%s\n' "$@" >"$T/want-cmds"
	if cmp -s "$CMDS" "$T/want-cmds"; then
		t_ok "the server ran: $(paste -sd';' "$T/want-cmds")"
	else
		sed 's/^/#   got: /' "$CMDS" 2>/dev/null
		t_fail "the commands run on the server"
	fi
	rm -f "$CMDS"
}
QUERY="gerrit query --format JSON --patch-sets --files"

# Posting: the exact commands and the exact bytes.
expect_exit 0 "posting the review" "$BF" report -c "$T/ok.yaml" \
	-f gerrit -i "$FX/compare-regressed.json" --output-dir "$T/p1"
cmds_are "$QUERY change:4711" "gerrit review --json 4711,3"
if cmp -s "$T/gerrit-stdin" "$T/np/gerrit-review.json"; then
	t_ok "its stdin is byte for byte the --no-post ReviewInput"
else
	t_fail "stdin differs from the ReviewInput"
fi
cmp -s "$T/p1/gerrit-review.json" "$T/gerrit-stdin" &&
	t_ok "the written file is what was posted" ||
	t_fail "posting changed the written review"
grep_file "it says where it posted" "posted the review of 4711,3 to 127.0.0.1:$PORT" "$ERR"
jq_check "the ReviewInput's fields" \
	'.tag == "autogenerated:benchfarm" and .labels == {"Performance-Verified": -1} and (.message | startswith("benchfarm (perf/pixel): 1 regression, 1 improvement\n")) and (has("robot_comments") | not) and .comments["bench/sort_bench.cc"] == [{"message": "micro/BM_sort/1024 real_time regressed: +12.3% [+8.0%, +17.0%], p 0.002", "unresolved": true, "line": 42}] and .comments["benchfarm.yaml"] == [{"message": "micro/BM_hash items_per_second improved: +8.5% [+5.0%, +11.0%], p 0.004", "unresolved": false, "line": 8}]' \
	"$T/gerrit-stdin"

# Robot comments, for a server before 3.12, only when asked for.
BENCHFARM_GERRIT_COMMENTS=robot expect_exit 0 "posting robot comments" \
	"$BF" report -c "$T/ok.yaml" -f gerrit \
	-i "$FX/compare-regressed.json" --output-dir "$T/p1r"
cmds_are "$QUERY change:4711" "gerrit review --json 4711,3"
jq_check "BENCHFARM_GERRIT_COMMENTS=robot posts robot comments instead" \
	'(has("comments") | not) and .robot_comments["bench/sort_bench.cc"] == [{"robot_id": "perf/pixel", "robot_run_id": "7", "message": "micro/BM_sort/1024 real_time regressed: +12.3% [+8.0%, +17.0%], p 0.002", "line": 42}] and .robot_comments["benchfarm.yaml"][0].line == 8' \
	"$T/gerrit-stdin"

# A patch set that does not touch the benchmark: Gerrit would refuse a
# comment on it, so it goes to the patch set level with its location.
answer src/sort.c
expect_exit 0 "posting to a patch set without the benchmark's file" \
	"$BF" report -c "$T/ok.yaml" -f gerrit \
	-i "$FX/compare-regressed.json" --output-dir "$T/p1b"
cmds_are "$QUERY change:4711" "gerrit review --json 4711,3"
jq_check "the comments are at the patch set level, with their location" \
	'(.comments | keys) == ["/PATCHSET_LEVEL"] and ([.comments["/PATCHSET_LEVEL"][] | .message | split(": ")[0]] == ["bench/sort_bench.cc:42", "benchfarm.yaml:8"]) and ([.comments["/PATCHSET_LEVEL"][] | has("line")] == [false, false])' \
	"$T/gerrit-stdin"
cmp -s "$T/p1b/gerrit-review.json" "$T/gerrit-stdin" &&
	t_ok "and the written file is what was posted" ||
	t_fail "the written file differs from what was posted"
answer bench/sort_bench.cc benchfarm.yaml

# A clean result votes +1 (nothing on a file: no query); infrastructure
# failures alone get no vote.
expect_exit 0 "posting a clean result" "$BF" report -c "$T/ok.yaml" \
	-f gerrit -i "$FX/compare-clean.json" --output-dir "$T/p2"
cmds_are "gerrit review --json 4711,3"
jq_check "+1 when nothing regressed" \
	'.labels == {"Performance-Verified": 1}' "$T/gerrit-stdin"
expect_exit 0 "posting a result with infrastructure failures" "$BF" \
	report -c "$T/ok.yaml" -f gerrit -i "$FX/compare-infra.json" \
	--output-dir "$T/p3"
jq_check "no vote when something was not measured" \
	'has("labels") | not' "$T/gerrit-stdin"
jq_check "and the message says so" \
	'.message | test("incomplete, infrastructure failures") and (test("no regressions?"; "i") | not)' \
	"$T/gerrit-stdin"
rm -f "$CMDS"

# The change from the command line and from Gerrit Trigger's environment.
expect_exit 0 "--gerrit-change" "$BF" report -c "$T/ok.yaml" \
	--gerrit-change 99,1 -f gerrit -i "$FX/compare-clean.json" \
	--output-dir "$T/p4"
cmds_are "gerrit review --json 99,1"
sed '/change:/d' "$T/ok.yaml" >"$T/env.yaml"
GERRIT_CHANGE_NUMBER=123 GERRIT_PATCHSET_NUMBER=4 expect_exit 0 \
	"the change from the environment" "$BF" report -c "$T/env.yaml" \
	-f gerrit -i "$FX/compare-clean.json" --output-dir "$T/p5"
cmds_are "gerrit review --json 123,4"

# A change that is not one never reaches the command line.
expect_exit 2 "a hostile change is refused" "$BF" report -c "$T/ok.yaml" \
	--gerrit-change '1,2; rm -rf /' -f gerrit \
	-i "$FX/compare-clean.json" --output-dir "$T/p6"
grep_file "the error names it" "'1,2; rm -rf /' is not a change" "$ERR"
[ ! -e "$CMDS" ] && t_ok "and nothing was run" ||
	t_fail "a hostile change reached the server"

# Gerrit refuses (the second key's forced command): its exit status and
# its message are shown, and the command exits non-zero.
expect_exit 3 "a review Gerrit refuses" "$BF" report -c "$T/broken.yaml" \
	-f gerrit -i "$FX/compare-clean.json" --output-dir "$T/p7"
grep_file "the exit status is named" \
	"gerrit review of 4711,3 on 127.0.0.1:$PORT exited with status 1" "$ERR"
grep_file "Gerrit's message is shown" 'fatal: "4711,3" no such change' "$ERR"
[ "$(cat "$T/broken-cmds" 2>/dev/null)" = "gerrit review --json 4711,3" ] &&
	t_ok "the second key ran its own forced command" ||
	t_fail "the broken stand-in: $(cat "$T/broken-cmds" 2>/dev/null)"
[ ! -e "$CMDS" ] && t_ok "and not the first key's" ||
	t_fail "the first key's command ran"
