#!/bin/sh
# Bad devices in a pool: a compare leases its devices in registry order
# and every broken one fails in its own way: a full disk (a 256 KiB tmpfs
# work directory, when this machine lets us mount one), an agent that
# prints garbage, an agent that never answers, an unreachable host, a
# device too hot to measure. Each gets one clear error naming it; the
# broken ones are marked bad, the hot one (unfit for now, not broken) is
# skipped for the job and keeps its health; a spare takes each one's
# place and the job finishes on the two good devices with every sample.
# A pool with no device left that can measure is exit 3 with an error
# saying so and naming the devices.
. "$(dirname "$0")/lib.sh"

sshd_setup
mkdir -p "$T/work/full"
t_atexit() {
	umount "$T/work/full" 2>/dev/null
}
for d in ok1 ok2 gone; do
	sshd_start "$d"
done

cat >"$T/hot-agent" <<X
#!/bin/sh
exec "$BFA" "\$1" --root "$BF_SRC/tests/fixtures/sysroot/hot-95c"
X
printf '#!/bin/sh\necho "this is not json"\n' >"$T/garbage-agent"
printf '#!/bin/sh\nexec sleep 60\n' >"$T/mute-agent"
chmod 755 "$T/hot-agent" "$T/garbage-agent" "$T/mute-agent"

# add NAME PORT AGENT [WORKDIR]
add() {
	sshd_add "$1" "$2" "add $1" --labels lab --agent "$3" \
		--workdir "${4:-$T/work/$1}"
}
full=no
if mount -t tmpfs -o size=256k tmpfs "$T/work/full" 2>/dev/null; then
	full=yes
	add full "$P_ok2" "$BFA" "$T/work/full"
else
	echo "# cannot mount a tmpfs here: the full-disk device is left out"
fi
add garbage "$P_ok1" "$T/garbage-agent"
add gone "$P_gone" "$BFA"
add hot "$P_ok2" "$T/hot-agent"
add mute "$P_ok1" "$T/mute-agent"
add ok1 "$P_ok1" "$BFA"
add ok2 "$P_ok2" "$BFA"
"$SSHD_SH" stop "$S" gone

R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
# A 1 MiB artifact cannot fit in the full device's work directory.
head -c 1048576 /dev/urandom >"$R/blob.bin"
cat >"$R/bench.sh" <<'X'
#!/bin/sh
echo "$1 $(cat "$2") ms"
X
echo 10 >"$R/speed"
cat >"$R/benchfarm.yaml" <<'X'
version: 1
project: {repo: ., artifacts: [bench.sh, blob.bin, speed]}
benchmarks:
  - {name: one, command: [sh, bench.sh, one, speed], format: lines}
  - {name: two, command: [sh, bench.sh, two, speed], format: lines}
devices: {pool: lab}
checks: {battery_min: 0, suppress: [load, throttle, battery]}
runs: {repeats: 4, warmup: 0, retries: 1}
presubmit: {fail_on: never}
X
t_git -C "$R" add -A
t_git -C "$R" commit -q -m base
t_git -C "$R" checkout -q -b patch
echo 12 >"$R/speed"
t_git -C "$R" commit -q -am slower

expect_exit 0 "the compare finishes on the good devices" "$BF" compare \
	-c "$R/benchfarm.yaml" --base main --patch patch --json "$T/r.json"
jq_check "both benchmarks have 4 runs per side" \
	'[.results[] | select(.base.n == 4 and .patch.n == 4)] | length == 2' \
	"$T/r.json"
# Which of ok1 and ok2 was leased first and how much each did depends on
# how long each bad device took to fail; only they may have done work.
jq_check "the work was done by ok1 and ok2 only" \
	'[.devices[] | select(.steps > 0) | .name] | length > 0 and all(.[]; . == "ok1" or . == "ok2")' \
	"$T/r.json"
run=$(jq .run_id "$T/r.json")
sql_check "16 samples stored" 16 \
	"select count(*) from samples where run_id = $run"
sql_check "no sample from a bad device" 0 \
	"select count(*) from samples where run_id = $run and device not in ('ok1', 'ok2')"

expect_exit 0 "device list --json" "$BF" device list --json
cp "$OUT" "$T/list.json"
# why NAME PATTERN: the device is bad, its reason names it and matches.
why() {
	jq_check "$1 is bad: $2" \
		".[] | select(.name == \"$1\") | .health == \"bad\" and .state == \"idle\" and (.health_reason | test(\"'$1'\")) and (.health_reason | test(\"$2\"; \"i\"))" \
		"$T/list.json"
}
[ $full = yes ] && why full "space"
why garbage "hello"
why mute "hello"
why gone "refused|connect"
jq_check "hot is skipped, not marked bad" \
	'.[] | select(.name == "hot") | .health != "bad"' "$T/list.json"
jq_check "the result lists hot as skipped for its heat, the others as bad" \
	'(.devices_out | map(select(.name == "hot" and .skipped and .health != "bad" and (.why | test("thermal")))) | length == 1) and (.devices_out | map(select(.name == "garbage" and .health == "bad")) | length == 1)' \
	"$T/r.json"
jq_check "only the good devices are good" \
	'[.[] | select(.health == "good") | .name] | length > 0 and all(.[]; . == "ok1" or . == "ok2")' \
	"$T/list.json"
if [ $full = yes ]; then
	n=$(find "$T/work/full" -type f -name '*blob*' | wc -l)
	[ "$n" = 0 ] && t_ok "no half-written upload left on the full disk" ||
		t_fail "$n files left on the full disk"
fi
n=$(sqlite3 "$BENCHFARM_DB" 'select count(*) from leases')
[ "$n" = 0 ] && t_ok "every lease released" || t_fail "$n leases left"

# Only bad devices left in the pool: exit 3, saying so.
"$BF" device drain ok1 >/dev/null
"$BF" device drain ok2 >/dev/null
expect_exit 3 "a pool without a healthy device is exit 3" "$BF" compare \
	-c "$R/benchfarm.yaml" --base main --patch patch --json "$T/r2.json"
grep_file "the error says no device could measure and names hot" \
	"no device of the pool could measure: .*'hot' .*thermal" "$ERR"
n=$(sqlite3 "$BENCHFARM_DB" "select count(*) from samples")
[ "$n" = 16 ] && t_ok "the stored samples are intact" || t_fail "$n samples now"
