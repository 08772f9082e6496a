#!/bin/sh
# A presubmit compare spread over a pool of four real OpenSSH sshd
# "devices" (ci/sshd.sh) running the real benchfarm-agent: the work is
# spread over three devices in parallel with the artifacts uploaded by
# SFTP; then the same compare with one device's sshd killed in the
# middle of a benchmark (by the benchmark's own wrapper, at its fifth
# run, so the moment is deterministic): it finishes on the others with
# every sample kept once; then two orchestrators on one store at once
# never share a device.
. "$(dirname "$0")/lib.sh"

sshd_setup
# A run waiting for $T/release is let go however the script ends.
t_atexit() {
	touch "$T/release"
}
sshd_pool "with the default work directory" d1 d2 d3 d4
expect_exit 0 "device show d1 --json" "$BF" device show d1 --json
jq_check "no work directory was given" '.workdir == null' "$OUT"
# The devices' SFTP servers start in $S/NAME/home (ci/sshd.sh), so each
# one's default work directory is $S/NAME/home/.cache/benchfarm; their
# commands start in the real home, which no run may depend on.

# The demo project, with a wrapper around the benchmark program. The
# wrapper runs on the device with the device's work directory as its
# current directory ($S/NAME/home/.cache/benchfarm: the device's name
# is the part before /home).
#   KILL:   the fifth BM_sort run on any device (after two warmups and
#           two measured runs) kills that device's sshd: the listener
#           and the session the agent runs in, so the connection drops
#           and reconnecting is refused. Once per test.
#   GATE:   runs wait for $T/release while $T/GATE exists and is
#           empty or names the device (the concurrency test).
#   BARRIER: while it exists, each device's first run waits until as
#           many devices as it says have started theirs, so no device
#           can finish its unit before the others have taken one (a
#           slow SSH connect under load would otherwise let a fast
#           device take two units).
# It also fails loudly if two runs ever overlap on one device.
# The four devices are one machine (127.0.0.1), which a job would
# measure on one at a time; this test is of spreading over a pool, so
# its config says devices.same_machine: parallel (t0119 tests the
# default).
R="$T/repo"
demo_repo_start "$R" micro.cc Makefile
cat >"$R/wrap.sh" <<X
#!/bin/sh
dev=\${PWD%/home/.cache/benchfarm}
dev=\${dev##*/}
mkdir "\$PWD/busy" 2>/dev/null || echo "\$dev" >>"$T/overlap"
if [ -e "$T/BARRIER" ] && mkdir "$T/arrived.\$dev" 2>/dev/null; then
	n=0
	while [ \$(ls -d "$T"/arrived.* | wc -l) -lt \$(cat "$T/BARRIER") ] &&
		[ \$n -lt 1200 ]; do
		n=\$((n + 1))
		sleep 0.05
	done
fi
if [ -e "$T/GATE" ] && { [ ! -s "$T/GATE" ] || grep -qx "\$dev" "$T/GATE"; }
then
	n=0
	while [ ! -e "$T/release" ] && [ \$n -lt 1200 ]; do
		n=\$((n + 1))
		sleep 0.05
	done
fi
case "\$*" in
*BM_sort*)
	n=\$((\$(cat sorts 2>/dev/null || echo 0) + 1))
	echo \$n >sorts
	if [ -e "$T/KILL" ] && [ \$n -eq 5 ] && mkdir "$T/killed" 2>/dev/null
	then
		echo "\$dev" >"$T/killed/device"
		pids=\$(cat "$S/\$dev/sshd.pid")
		p=\$\$
		while [ "\$p" -gt 1 ]; do
			p=\$(awk '/^PPid:/ { print \$2 }' /proc/\$p/status)
			[ "\$(cat /proc/\$p/comm 2>/dev/null)" = sshd ] &&
				pids="\$pids \$p"
		done
		rmdir "\$PWD/busy"
		kill -9 \$pids
		exit 9
	fi
	;;
esac
"\$@"
rc=\$?
rmdir "\$PWD/busy"
exit \$rc
X
chmod 755 "$R/wrap.sh"
cat >"$R/benchfarm.yaml" <<'X'
version: 1
project:
  repo: .
  target_branch: main
  build: [make]
  artifacts: [out/micro, wrap.sh]
benchmarks:
  - name: checksum
    command: [./wrap.sh, out/micro, --benchmark_filter=BM_checksum,
              --benchmark_format=json, --benchmark_min_time=0.01]
    format: gbench
  - name: sort
    command: [./wrap.sh, out/micro, --benchmark_filter=BM_sort,
              --benchmark_format=json, --benchmark_min_time=0.01]
    format: gbench
  - name: sum
    command: [./wrap.sh, out/micro, --benchmark_filter=BM_sum,
              --benchmark_format=json, --benchmark_min_time=0.01]
    format: gbench
devices: {pool: lab, same_machine: parallel}
checks:
  battery_min: 0
  suppress: [load, throttle, battery]
runs: {repeats: 5, warmup: 1, interleave: true, retries: 1}
presubmit: {fail_on: never}
X
demo_repo_commit "$R"

# no_dups RUN: every sample of the run is stored once, and each
# benchmark has 5 measured runs on each side.
no_dups() {
	n=$(sqlite3 "$BENCHFARM_DB" "select count(*) - count(distinct benchmark || '|' || metric || '|' || side || '|' || repeat_idx || '|' || iter_idx) from samples where run_id = $1")
	[ "$n" = 0 ] && t_ok "run $1: no sample stored twice" ||
		t_fail "run $1: $n samples stored twice"
	n=$(sqlite3 "$BENCHFARM_DB" "select count(*) from (select benchmark, side, count(distinct repeat_idx) as r from samples where run_id = $1 and metric = 'real_time' group by benchmark, side having r = 5)")
	[ "$n" = 6 ] && t_ok "run $1: 5 runs per benchmark and side" ||
		t_fail "run $1: only $n of 6 benchmark sides have 5 runs"
}

# 1. The pool: three benchmarks on three devices at once.
echo 3 >"$T/BARRIER"
expect_exit 0 "compare over the pool" "$BF" compare -c "$R/benchfarm.yaml" \
	--base main --patch patch --json "$T/r1.json" --seed 7
rm -f "$T/BARRIER"
n=$(ls -d "$T"/arrived.* 2>/dev/null | wc -l)
[ "$n" = 3 ] && t_ok "three devices started a unit together" ||
	t_fail "$n devices reached the start barrier"
jq_check "three devices did the work, none failed" \
	'(.devices | length) == 3 and all(.devices[]; .failed == false and .steps == 12)' \
	"$T/r1.json"
jq_check "each device reports the agent's info" \
	'all(.devices[]; (.info.hostname | type) == "string")' "$T/r1.json"
# Three agents share two cores here: real time is noisy, CPU time shows
# the patch's 20%.
jq_check "all three benchmarks measured, checksum slower in CPU time" \
	'(.results | map(select(.metric == "real_time")) | length) == 3 and (.results[] | select(.name == "BM_checksum" and .metric == "cpu_time") | .effect) > 0.1' \
	"$T/r1.json"
jq_check "no infrastructure retries" \
	'.status == "ok" and .summary.reconnects == 0 and .summary.moved_units == 0' \
	"$T/r1.json"
run1=$(jq .run_id "$T/r1.json")
no_dups "$run1"
n=$(sqlite3 "$BENCHFARM_DB" "select count(distinct device) from samples where run_id = $run1")
[ "$n" = 3 ] && t_ok "samples come from three devices" ||
	t_fail "samples from $n devices"
n=$(sqlite3 "$BENCHFARM_DB" "select count(*) from (select benchmark from samples where run_id = $run1 group by benchmark having count(distinct device) > 1)")
[ "$n" = 0 ] && t_ok "each benchmark stays on one device (A/B pairs meet the same hardware)" ||
	t_fail "$n benchmarks were spread over devices"
n=$(ls "$S"/d*/home/.cache/benchfarm/artifacts/*/micro 2>/dev/null | wc -l)
[ "$n" -ge 3 ] && t_ok "the program was uploaded into the devices' default work directories" ||
	t_fail "uploaded copies of micro: $n"
expect_exit 0 "device list after the compare" "$BF" device list --json
jq_check "leases are released and the used devices are good" \
	'all(.[]; .state == "idle" and .lease_holder == null) and ([.[] | select(.health == "good")] | length) == 3' \
	"$OUT"

# 2. The same compare with a device killed in the middle.
touch "$T/KILL"
rm -f "$S"/d*/home/.cache/benchfarm/sorts
expect_exit 0 "compare with a device killed mid-run completes" "$BF" \
	compare -c "$R/benchfarm.yaml" --base main --patch patch \
	--json "$T/r2.json" --markdown "$T/r2.md" --seed 7
[ -s "$T/killed/device" ] && t_ok "the wrapper killed a device" ||
	t_fail "no device was killed"
dead=$(cat "$T/killed/device" 2>/dev/null)
jq_check "the killed device failed, named with its error" \
	".devices[] | select(.name == \"$dead\") | .failed == true and (.error | test(\"$dead\"))" \
	"$T/r2.json"
jq_check "the job is ok with the move counted as infrastructure" \
	'.status == "ok" and .summary.moved_units == 1' "$T/r2.json"
jq_check "all three benchmarks still measured" \
	'[.results[] | select(.metric == "real_time" and .base.n == 5 and .patch.n == 5)] | length == 3' \
	"$T/r2.json"
run2=$(jq .run_id "$T/r2.json")
no_dups "$run2"
n=$(sqlite3 "$BENCHFARM_DB" "select count(*) from samples where run_id = $run2 and benchmark = 'BM_sort' and device = '$dead'")
[ "$n" -gt 0 ] && t_ok "samples measured on the killed device before it died are kept" ||
	t_fail "no samples kept from $dead"
grep_file "the report counts the retries apart from verdicts" \
	"^- Retries: .* 1 benchmark moved to another device" \
	"$T/r2.md"
expect_exit 0 "device list after the kill" "$BF" device list --json
jq_check "the killed device is bad, every lease released" \
	".[] | select(.name == \"$dead\") | .health == \"bad\" and .state == \"idle\"" \
	"$OUT"
[ ! -e "$T/overlap" ] && t_ok "no device ever ran two benchmarks at once" ||
	t_fail "overlapping runs on: $(cat "$T/overlap")"

# 3. Two orchestrators on one store. Restart the dead device and mark
# the pool good; A holds three devices (its runs wait for a file), B
# starts while A runs and must take the fourth.
rm -f "$T/KILL"
"$SSHD_SH" stop "$S" "$dead"
sshd_start "$dead"
"$BF" device rm "$dead" >/dev/null
sshd_add "$dead" "$port" "re-add the restarted device" --labels lab \
	--agent "$BFA"
touch "$T/GATE"
"$BF" compare -c "$R/benchfarm.yaml" --base main --patch patch \
	--json "$T/ra.json" --seed 7 >"$T/a.out" 2>"$T/a.err" &
apid=$!
n=0
while [ "$(sqlite3 "$BENCHFARM_DB" 'select count(*) from leases')" != 3 ] &&
	[ $n -lt 600 ]; do
	n=$((n + 1))
	sleep 0.05
done
[ $n -lt 600 ] && t_ok "A leased three devices" || t_fail "A never leased three"
# From now on only A's devices wait.
sqlite3 "$BENCHFARM_DB" 'select d.name from leases l join devices d on d.id = l.device_id' >"$T/gate.tmp"
mv "$T/gate.tmp" "$T/GATE"
expect_exit 0 "B runs on the free device while A holds three" "$BF" \
	compare -c "$R/benchfarm.yaml" --base main --patch patch \
	--json "$T/rb.json" --seed 8
touch "$T/release"
wait $apid
rc=$?
[ $rc = 0 ] && t_ok "A completes (exit 0)" || {
	t_fail "A exit $rc"
	cat "$T/a.err"
}
jq_check "B worked on one device only" \
	'(.devices | length) == 1 and .status == "ok"' "$T/rb.json"
a_devs=$(jq -r '.devices[].name' "$T/ra.json" | sort | tr '\n' ' ')
b_dev=$(jq -r '.devices[0].name' "$T/rb.json")
case " $a_devs" in
*" $b_dev "*) t_fail "A ($a_devs) and B ($b_dev) shared a device" ;;
*) t_ok "A ($a_devs) and B ($b_dev) used different devices" ;;
esac
no_dups "$(jq .run_id "$T/ra.json")"
no_dups "$(jq .run_id "$T/rb.json")"
[ ! -e "$T/overlap" ] && t_ok "no device ran two jobs' benchmarks at once" ||
	t_fail "overlapping runs on: $(cat "$T/overlap")"
n=$(sqlite3 "$BENCHFARM_DB" 'select count(*) from leases')
[ "$n" = 0 ] && t_ok "both jobs released their leases" || t_fail "$n leases left"

# 4. One device, killed mid-run: nothing can move, and the result does
# not say that something did.
rm -f "$T/GATE" "$S"/d*/home/.cache/benchfarm/sorts
rm -rf "$T/killed"
touch "$T/KILL"
"$BF" compare -c "$R/benchfarm.yaml" --base main --patch patch \
	--device d1 --json "$T/r4.json" --markdown "$T/r4.md" --seed 9 \
	>"$OUT" 2>"$ERR"
[ "$(cat "$T/killed/device" 2>/dev/null)" = d1 ] &&
	t_ok "the single device was killed" || t_fail "d1 was not killed"
jq_check "one device, nothing counted as moved" \
	'(.devices | length) == 1 and .summary.moved_units == 0' "$T/r4.json"
if grep -q "moved to another device" "$T/r4.md"; then
	t_fail "the report says a benchmark moved to another device"
else
	t_ok "the report does not say a benchmark moved"
fi
