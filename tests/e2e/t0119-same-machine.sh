#!/bin/sh
# Two devices that are one machine: two sshd devices on 127.0.0.1 run
# agents that read the same /etc/machine-id and boot id, and a third one
# whose agent reads a sysroot with another machine-id and boot id (its
# hostname, CPU and kernel copied from this machine's, so only the ids
# tell it apart). device add and device list say that d1 and d2 of pool
# lab are one machine and d3 is not; a compare over the pool measures on
# one of d1 and d2 at a time by default (their run journals, merged, have
# no two runs overlapping, and each device ran its share), and on both
# at once with devices.same_machine: parallel (a barrier in the
# benchmark holds each device's first run until both have started).
. "$(dirname "$0")/lib.sh"

sshd_setup
for d in d1 d2 d3; do sshd_start "$d"; done

# d3's agent reads a sysroot: another machine-id and boot id, and the
# facts that corroborate (hostname, kernel, CPU model) as this machine's.
R3="$T/root3"
mkdir -p "$R3/etc" "$R3/proc/sys/kernel/random"
echo 00000000000000000000000000000d03 >"$R3/etc/machine-id"
echo 00000000-0000-4000-8000-000000000d03 >"$R3/proc/sys/kernel/random/boot_id"
cat /proc/sys/kernel/hostname >"$R3/proc/sys/kernel/hostname"
cat /proc/sys/kernel/osrelease >"$R3/proc/sys/kernel/osrelease"
cat /proc/cpuinfo >"$R3/proc/cpuinfo"
cat >"$T/agent3" <<X
#!/bin/sh
exec "$BFA" "\$1" --root "$R3"
X
chmod 755 "$T/agent3"

sshd_add d1 "$P_d1" "add d1" --labels lab --agent "$BFA"
if grep -q "one machine" "$OUT"; then
	t_fail "d1, the first of its machine, is not said to share it"
else
	t_ok "d1, the first of its machine, is not said to share it"
fi
sshd_add d2 "$P_d2" "add d2 on the same machine" --labels lab --agent "$BFA"
grep_file "device add says d1 and d2 are one machine" \
	"^d2: pool 'lab': 'd1', 'd2' are one machine (the same machine-id and boot id); a job measures on one of them at a time" \
	"$OUT"
sshd_add d3 "$P_d3" "add d3 (another machine-id and boot id)" \
	--labels lab --agent "$T/agent3"
if grep -q "one machine" "$OUT"; then
	t_fail "device add does not say d3 shares a machine"
else
	t_ok "device add does not say d3 shares a machine"
fi

expect_exit 0 "device list" "$BF" device list
grep_file "device list names d1 and d2 as one machine" \
	"^  pool 'lab': 'd1', 'd2' are one machine (the same machine-id and boot id)" \
	"$OUT"
if grep "are one machine" "$OUT" | grep -q d3; then
	t_fail "device list does not put d3 on their machine"
else
	t_ok "device list does not put d3 on their machine"
fi
expect_exit 0 "device list --json" "$BF" device list --json
jq_check "the JSON names each device's machine and who shares it" \
	'(.[] | select(.name == "d1") | .machine.same_as == ["d2"] and (.machine.record.machine_id | length) > 0 and (.machine.record.boot_id | length) > 0) and (.[] | select(.name == "d2") | .machine.same_as == ["d1"]) and (.[] | select(.name == "d3") | .machine.same_as == [] and .machine.record.machine_id == "00000000000000000000000000000d03" and .machine.record.hostname != null)' \
	"$OUT"
expect_exit 0 "device show d2" "$BF" device show d2
grep_file "device show names the device on the same machine" \
	"^same machine: 'd1' (a job measures on one of them at a time" "$OUT"

# d3 is another machine; it stays out of the compares, whose subject is
# d1 and d2.
expect_exit 0 "drain d3" "$BF" device drain d3 --reason "not in the compares"

# Two benchmarks, each run printing one sample after 0.2 s; with BARRIER
# present each device's first run waits (up to 20 s) until both devices
# have started one.
R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
cat >"$R/bench.sh" <<X
dev=\${PWD%/home/.cache/benchfarm}
dev=\${dev##*/}
if [ -e "$T/BARRIER" ] && mkdir "$T/arrived.\$dev" 2>/dev/null; then
	n=0
	while [ \$(ls -d "$T"/arrived.* | wc -l) -lt 2 ] && [ \$n -lt 400 ]; do
		n=\$((n + 1))
		sleep 0.05
	done
fi
sleep 0.2
echo "x 10 ns"
X
cat >"$R/bf.yaml" <<'X'
version: 1
project: {repo: ., target_branch: main, build: [true], artifacts: [bench.sh]}
benchmarks:
  - {name: one, command: [sh, bench.sh, one], format: lines}
  - {name: two, command: [sh, bench.sh, two], format: lines}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks, cores]}
runs: {repeats: 3, warmup: 0}
devices: {pool: lab}
presubmit: {fail_on: never}
X
sed 's/^devices: {pool: lab}$/devices: {pool: lab, same_machine: parallel}/' \
	"$R/bf.yaml" >"$R/bf-parallel.yaml"
t_git -C "$R" add -A
t_git -C "$R" commit -q -m base

expect_exit 0 "config check shows the default" "$BF" config check -c "$R/bf.yaml"
jq_check "devices.same_machine is serial by default" \
	'.devices.same_machine == "serial"' "$OUT"
expect_exit 0 "config check of the parallel config" "$BF" config check -c \
	"$R/bf-parallel.yaml"
jq_check "devices.same_machine: parallel is read" \
	'.devices.same_machine == "parallel"' "$OUT"

journals() {
	cat "$S/d1/state/benchfarm/agent-runs.jsonl" \
		"$S/d2/state/benchfarm/agent-runs.jsonl" 2>/dev/null
}
clear_journals() {
	rm -f "$S"/d1/state/benchfarm/agent-runs.jsonl \
		"$S"/d2/state/benchfarm/agent-runs.jsonl
}

# 1. Serial, the default.
clear_journals
expect_exit 0 "compare over the pool, same_machine serial" "$BF" compare \
	-c "$R/bf.yaml" --base main --patch main --allow-same \
	--json "$T/serial.json" --markdown "$T/serial.md"
grep_file "the lease says the two devices are one machine, run one at a time" \
	"warning: 'd1', 'd2' of pool 'lab' are one machine (the same machine-id and boot id): they measure one at a time (devices.same_machine: serial)" \
	"$ERR"
jq_check "the result names the machine and that they ran one at a time" \
	'.status == "ok" and .machines == [{"devices": ["d1", "d2"], "same": "machine-id and boot id", "ran": "one at a time"}]' \
	"$T/serial.json"
jq_check "both devices measured a benchmark" \
	'(.devices | length) == 2 and all(.devices[]; .steps == 6 and .failed == false)' \
	"$T/serial.json"
grep_file "the markdown report says so" \
	"^- One machine: d1, d2 (the same machine-id and boot id); they ran one at a time\.$" \
	"$T/serial.md"
journals >"$T/serial.jsonl"
jq_slurp_check "the journals hold all 12 runs, 6 on each device" \
	'length == 12 and ([.[] | .cwd | test("/d1/")] | map(select(.)) | length) == 6' \
	"$T/serial.jsonl"
jq_slurp_check "no run on one device overlapped a run on the other" \
	'sort_by(.start) | . as $r | all(range(1; length); $r[. - 1].end <= $r[.].start)' \
	"$T/serial.jsonl"

# 2. Parallel, as the config says: both devices measure at once (the
# barrier holds each first run until the other device started one).
clear_journals
touch "$T/BARRIER"
expect_exit 0 "compare over the pool, same_machine parallel" "$BF" compare \
	-c "$R/bf-parallel.yaml" --base main --patch main --allow-same \
	--json "$T/parallel.json" --markdown "$T/parallel.md"
rm -f "$T/BARRIER"
n=$(ls -d "$T"/arrived.* 2>/dev/null | wc -l)
[ "$n" = 2 ] && t_ok "both devices started a run together" ||
	t_fail "$n devices reached the barrier"
grep_file "the lease says they are one machine, measured at once" \
	"warning: 'd1', 'd2' of pool 'lab' are one machine (the same machine-id and boot id): they measure at once, each the other's load (devices.same_machine: parallel)" \
	"$ERR"
jq_check "the result says they ran at once" \
	'.status == "ok" and .machines[0].ran == "at once"' "$T/parallel.json"
grep_file "the markdown report says they ran at once" \
	"^- One machine: d1, d2 (the same machine-id and boot id); they ran at once" \
	"$T/parallel.md"
journals >"$T/parallel.jsonl"
jq_slurp_check "runs of the two devices overlapped" \
	'length == 12 and (sort_by(.start) | . as $r | any(range(1; length); $r[. - 1].end > $r[.].start))' \
	"$T/parallel.jsonl"

# 3. device check records the machine of a device whose record is gone.
db "UPDATE devices SET machine = NULL WHERE name = 'd2'" >/dev/null
expect_exit 0 "device list without d2's record" "$BF" device list --json
jq_check "without its record d2 is no longer said to share d1's machine" \
	'.[] | select(.name == "d1") | .machine.same_as == []' "$OUT"
expect_exit 0 "device check d2 -c" "$BF" device check d2 -c "$R/bf.yaml"
expect_exit 0 "device list after the check" "$BF" device list --json
jq_check "device check recorded it again" \
	'.[] | select(.name == "d1") | .machine.same_as == ["d2"]' "$OUT"
