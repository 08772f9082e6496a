#!/bin/sh
# A device unfit for now is not broken. In a pool of two sshd devices,
# one reads a sysroot where 4 tasks besides the agent are runnable on 2
# cores: its load check fails after the agent waited load_wait for it.
# The compare finishes on the other device; the busy one is skipped for
# the job and stays as healthy as it was (device list), and the result,
# the markdown and the HTML report say which device was out and why.
# Then a backfill of 4 commits over a pool whose devices are all down
# stops at the first commit, builds nothing more, names the devices
# and how to resume; run again it builds nothing (the registry has no
# usable device), and once the devices are back it resumes at that
# commit and measures all 4.
. "$(dirname "$0")/lib.sh"

sshd_setup
sshd_start ok
sshd_start busy
sshd_start dn1
sshd_start dn2

# agent NAME FIXTURE: an agent that reads the fixture sysroot
agent() {
	cat >"$T/$1-agent" <<X
#!/bin/sh
exec "$BFA" "\$1" --root "$BF_SRC/tests/fixtures/sysroot/$2"
X
	chmod 755 "$T/$1-agent"
}
agent ok healthy-locked
agent busy busy-now
sshd_add busy "$P_busy" "add busy" --labels lab,busy --agent "$T/busy-agent"
sshd_add ok "$P_ok" "add ok" --labels lab --agent "$T/ok-agent"
sshd_add dn1 "$P_dn1" "add dn1" --labels down --agent "$BFA"
sshd_add dn2 "$P_dn2" "add dn2" --labels down --agent "$BFA"

R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
printf 'echo "x 10 ns"\n' >"$R/bench.sh"
cat >"$R/bf.yaml" <<X
version: 1
project: {repo: ., target_branch: main, build: [sh, -c, 'echo built >>$T/builds'], build_sandbox: off, artifacts: [bench.sh]}
benchmarks:
  - {name: one, command: [sh, bench.sh], format: lines}
  - {name: two, command: [sh, bench.sh], format: lines}
checks: {battery_min: 0, load_wait: 1, suppress: [clocks]}
runs: {repeats: 2, warmup: 0}
devices: {pool: lab, wait: 1}
presubmit: {fail_on: never}
X
t_git -C "$R" add -A
t_git -C "$R" commit -q -m base
for i in 1 2 3 4; do
	echo "$i" >>"$R/README"
	t_git -C "$R" add -A
	t_git -C "$R" commit -q -m "commit $i"
done

# Alone in its pool, the busy device cannot measure: exit 3, and the
# reports say which device was out and why.
expect_exit 3 "a compare on the busy device alone is exit 3" "$BF" compare \
	-c "$R/bf.yaml" --pool busy --base main~1 --patch main \
	--json "$T/r.json" --markdown "$T/r.md"
jq_check "busy is out, skipped for its load after waiting load_wait" \
	'.devices_out | length == 1 and .[0].name == "busy" and .[0].skipped and .[0].health != "bad" and (.[0].why | test("load \\(.*still so after waiting 1 s \\(load_wait 1 s\\)"))' \
	"$T/r.json"
grep_file "the error says no device could measure, naming busy" \
	"no device of the pool could measure: 'busy'" "$ERR"
expect_exit 0 "device list --json" "$BF" device list --json
jq_check "busy keeps its health" \
	'.[] | select(.name == "busy") | .health != "bad" and .state == "idle"' \
	"$OUT"
grep_file "the markdown says busy was out and why" \
	"Device out of the pool: busy (.*skipped for this run): .*load" "$T/r.md"
expect_exit 0 "the HTML report" "$BF" report --format html \
	--input "$T/r.json" --output "$T/r.html"
grep_file "the HTML page carries the device out" '"devices_out".*"busy"' \
	"$T/r.html"
grep_file "the HTML page's script lists devices out" \
	"Device out of the pool: " "$T/r.html"

# With a healthy device beside it, the compare finishes; busy, if it
# took a benchmark, gave it to ok and is still not bad.
expect_exit 0 "the compare on busy and ok finishes" "$BF" compare \
	-c "$R/bf.yaml" --base main~1 --patch main --json "$T/r2.json"
jq_check "every run was measured, on ok" \
	'([.results[] | select(.base.n == 2 and .patch.n == 2)] | length == 2) and ([.samples[] | .device] | unique == ["ok"])' \
	"$T/r2.json"
expect_exit 0 "device show busy" "$BF" device list --json
jq_check "busy is still not bad" \
	'.[] | select(.name == "busy") | .health != "bad"' "$OUT"

# Every device of pool 'down' is down.
"$SSHD_SH" stop "$S" dn1
"$SSHD_SH" stop "$S" dn2
: >"$T/builds"
expect_exit 3 "a backfill with no device that can measure is exit 3" \
	"$BF" backfill -c "$R/bf.yaml" --pool down --json "$T/b.json" \
	main~4..main
n=$(wc -l <"$T/builds")
[ "$n" = 1 ] && t_ok "it stopped after building the first commit" ||
	t_fail "$n commits built"
jq_check "the summary ends at the first commit, no device" \
	'length == 1 and (.[0].result | test("no usable device")) and .[0].failure.stage == "devices"' \
	"$T/b.json"
grep_file "the message names both devices and why" \
	"'dn1' (bad): cannot connect.*'dn2' (bad): cannot connect" "$ERR"
grep_file "the message says where it stopped and how to resume" \
	"stopped at commit .* (1 of 4).*run 'benchfarm backfill main~4..main' again: it resumes at this commit" \
	"$ERR"
sql_check "nothing was recorded for the history" 0 \
	"select count(*) from samples s join runs r on r.id = s.run_id where r.kind = 'run'"

expect_exit 3 "again, now that both are bad: exit 3" "$BF" backfill \
	-c "$R/bf.yaml" --pool down main~4..main
n=$(wc -l <"$T/builds")
[ "$n" = 1 ] && t_ok "nothing is built when the registry has no usable device" ||
	t_fail "$n commits built"
grep_file "it names the devices and their health" \
	"no usable device in pool 'down': 'dn1' (bad): .*'dn2' (bad): " "$ERR"

# Back: the same backfill resumes at the commit where it stopped.
sshd_start dn1
sshd_start dn2
"$BF" device rm dn1 >/dev/null
"$BF" device rm dn2 >/dev/null
sshd_add dn1 "$P_dn1" "add dn1 again" --labels down --agent "$T/ok-agent"
sshd_add dn2 "$P_dn2" "add dn2 again" --labels down --agent "$T/ok-agent"
expect_exit 0 "the rerun records every commit" "$BF" backfill \
	-c "$R/bf.yaml" --pool down --json "$T/b2.json" main~4..main
jq_check "all 4 recorded from the first one: it measured, the rest its build" \
	'length == 4 and .[0].result == "measured" and all(.[1:][]; .result | test("the same build"))' "$T/b2.json"
