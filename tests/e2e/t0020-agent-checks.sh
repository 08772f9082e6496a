#!/bin/sh
# `benchfarm-agent info` and `check` on the fixture trees of
# tests/fixtures/sysroot/ (each a directory standing for "/"), and the
# protocol `check` and `info` requests. A fixture tree forces the
# throttle workload's time with /benchfarm/throttle_ns; the throttled
# tree's baseline is in its benchfarm/state/, copied to a state dir.
. "$(dirname "$0")/lib.sh"

FX="$BF_SRC/tests/fixtures/sysroot"
ST="$T/state"

# status_is "what" ID STATUS: the check ID in $OUT has STATUS.
status_is() {
	jq_check "$1" ".checks[] | select(.id == \"$2\") | .status == \"$3\"" \
		"$OUT"
}

# fixture NAME EXIT "battery cores clocks thermal throttle load boost"
fixture() {
	rm -rf "$ST"
	expect_exit "$2" "$1: check exits $2" \
		"$BFA" check --root "$FX/$1" --state-dir "$ST" --json
	set -- "$1" "$2" $3
	name=$1
	shift 2
	for id in battery cores clocks thermal throttle load boost; do
		status_is "$name: $id is $1" "$id" "$1"
		shift
	done
}

fixture healthy-locked 0 "pass pass pass pass pass pass pass"
jq_check "healthy-locked: fit, nothing suppressed, no errors" \
	'.fit == true and .suppressed == [] and .errors == [] and
	 .waited_s == 0' "$OUT"
jq_check "healthy-locked: battery value and threshold" \
	'.checks[0] | .value == 80 and .threshold == 25' "$OUT"
jq_check "healthy-locked: first run records the throttle baseline" \
	'.checks[4].message | test("recorded as the baseline")' "$OUT"
if [ "$(stat -c %a "$ST/throttle-local.json" 2>/dev/null)" = 600 ]; then
	t_ok "baseline file is mode 0600"
else
	t_fail "baseline file is mode 0600"
fi
jq_check "baseline file holds the measurement" \
	'.version == 2 and .baseline_ns == 1000000' "$ST/throttle-local.json"
expect_exit 0 "healthy-locked: second run compares" \
	"$BFA" check --root "$FX/healthy-locked" --state-dir "$ST" --json
jq_check "healthy-locked: second run is at the baseline" \
	'.checks[4] | .status == "pass" and .value == 1 and .threshold == 1.1' \
	"$OUT"

fixture low-battery 1 "fail skip skip skip skip skip skip"
jq_check "low-battery: says 15% below 25%, discharging" \
	'.fit == false and (.checks[0].message |
	 test("15%.*below the 25% minimum.*Discharging"))' "$OUT"
expect_exit 0 "low-battery with --battery-min 10" \
	"$BFA" check --root "$FX/low-battery" --battery-min 10 --json
expect_exit 1 "low-battery: --require-charging still fails" \
	"$BFA" check --root "$FX/low-battery" --battery-min 10 \
	--require-charging --json
jq_check "low-battery: charging is required" \
	'.checks[0].message | test("charging is required")' "$OUT"

fixture core-offline 1 "skip fail warn skip skip skip skip"
jq_check "core-offline: 3 of 4 online, names cpu 3" \
	'.checks[1] | .value == 3 and .threshold == 4 and
	 (.message | test("cpu 3 offline"))' "$OUT"
expect_exit 0 "core-offline: --suppress cores" \
	"$BFA" check --root "$FX/core-offline" --suppress cores --json
jq_check "core-offline: suppressed is listed, fail became warn" \
	'.fit == true and .suppressed == ["cores"] and
	 .checks[1].status == "warn" and .checks[1].suppressed == true' "$OUT"

fixture unlocked-schedutil 0 "skip pass warn skip skip skip skip"
jq_check "unlocked-schedutil: at the lowest available frequency" \
	'.checks[2].message | test("lowest available frequency")' "$OUT"
expect_exit 1 "unlocked-schedutil: --require-locked-clocks fails" \
	"$BFA" check --root "$FX/unlocked-schedutil" --require-locked-clocks \
	--json
status_is "unlocked-schedutil: clocks fail when required" clocks fail
expect_exit 0 "unlocked-schedutil: required but suppressed" \
	"$BFA" check --root "$FX/unlocked-schedutil" --require-locked-clocks \
	--suppress clocks --json

fixture hot-95c 1 "skip skip skip fail skip skip skip"
jq_check "hot-95c: names the zone and its temperature" \
	'.checks[3] | .value == 95 and .threshold == 70 and
	 (.message | test("thermal_zone1 \\(soc-thermal\\) at 95.0 C"))' "$OUT"
expect_exit 0 "hot-95c with --thermal-max 100" \
	"$BFA" check --root "$FX/hot-95c" --thermal-max 100 --json
# Waiting really sleeps: the cap is 1 s, and the zone stays hot.
expect_exit 1 "hot-95c: --wait-max 1 waits, then gives up" \
	"$BFA" check --root "$FX/hot-95c" --wait-max 1 --json
jq_check "hot-95c: waited_s is recorded" \
	'.waited_s >= 1 and .waited_s < 5 and .probes == 2' "$OUT"

rm -rf "$ST"
cp -R "$FX/throttled/benchfarm/state" "$ST"
expect_exit 1 "throttled: check exits 1" \
	"$BFA" check --root "$FX/throttled" --state-dir "$ST" --json
jq_check "throttled: 30% slower than the baseline" \
	'.checks[4] | .status == "fail" and .value == 1.3 and
	 .threshold == 1.1 and (.message | test("\\+30.0%"))' "$OUT"
for id in battery cores clocks thermal load boost; do
	status_is "throttled: $id is skip" "$id" skip
done
expect_exit 0 "throttled: --throttle-tolerance 0.5" \
	"$BFA" check --root "$FX/throttled" --state-dir "$ST" \
	--throttle-tolerance 0.5 --json
expect_exit 0 "throttled: \$BENCHFARM_THROTTLE_NS overrides the fixture" \
	env BENCHFARM_THROTTLE_NS=1050000 \
	"$BFA" check --root "$FX/throttled" --state-dir "$ST" --json

# Load is what runs now. A 2-core device whose build has just ended
# (1-minute average 3.50) but that runs nothing else now is fit at
# once; one running 4 other tasks is refused after --load-wait, and the
# message says what was measured.
fixture after-build 0 "skip pass skip skip skip pass skip"
jq_check "after-build: no waiting, the lagging average only quoted" \
	'.waited_s == 0 and (.checks[5] | .value == 0 and .threshold == 2 and
	 (.message | test("^0 runnable tasks besides ours right now, limit 2 .*the 1-minute average 3.50 lags")))' \
	"$OUT"
expect_exit 1 "busy-now: refused after --load-wait 1" \
	"$BFA" check --root "$FX/busy-now" --state-dir "$ST" --load-wait 1 \
	--json
jq_check "busy-now: waited, and the message names the count and limit" \
	'.fit == false and .waited_s >= 1 and (.checks[5] | .status == "fail"
	 and .value == 4 and .threshold == 2 and (.message |
	 test("^4 runnable tasks besides ours right now, limit 2 \\(load_max 1.00 per core x 2 online cores\\).*still so after waiting 1 s")))' \
	"$OUT"
expect_exit 2 "a negative --load-wait is a usage error" \
	"$BFA" check --root "$FX/busy-now" --load-wait -1
grep_file "it names load_wait" "load_wait (--load-wait) must be 0..3600" "$ERR"

# Bad input: every bad file named, nothing reported as fine.
fixture garbage-sysfs 1 "fail fail warn warn skip fail warn"
for f in '/sys/devices/system/cpu/online' \
	'/sys/class/thermal/thermal_zone0/temp' \
	'/sys/class/thermal/thermal_zone2/temp: 250.0 C' \
	'/sys/class/power_supply/BAT0/capacity' '/proc/loadavg' \
	'/proc/meminfo' '/sys/devices/system/cpu/cpufreq/boost'; do
	jq_check "garbage-sysfs: an error names $f" \
		".errors | any(startswith(\"$f\"))" "$OUT"
done
jq_check "garbage-sysfs: the negative zone is read (-5.0 C)" \
	'.checks[3].value == -5' "$OUT"

# Unreadable files, made at run time (git cannot store modes).
U="$T/unreadable"
cp -R "$FX/healthy-locked" "$U"
rm "$U/sys/class/power_supply/BAT0/capacity"
mkdir "$U/sys/class/power_supply/BAT0/capacity"
chmod 000 "$U/sys/class/thermal/thermal_zone0/temp"
expect_exit 1 "unreadable: check exits 1" \
	"$BFA" check --root "$U" --state-dir "$ST" --json
jq_check "unreadable: a directory for a file fails battery, named" \
	'.checks[0].status == "fail" and
	 (.checks[0].message | test("BAT0/capacity"))' "$OUT"
if [ "$(id -u)" -eq 0 ]; then
	echo "# running as root: mode 000 cannot make a file unreadable;" \
		"the thermal assertion is skipped"
else
	jq_check "unreadable: mode 000 fails thermal, named" \
		'.checks[3].status == "fail" and
		 (.checks[3].message | test("thermal_zone0/temp.*Permission denied"))' \
		"$OUT"
fi
chmod 644 "$U/sys/class/thermal/thermal_zone0/temp"

# Usage errors.
expect_exit 2 "missing sysroot" "$BFA" check --root "$T/nope" --json
grep_file "names the sysroot" "nope" "$ERR"
expect_exit 2 "unknown suppress id" \
	"$BFA" check --root "$FX/hot-95c" --suppress LOW-BATTERY
grep_file "names the id" "unknown check id 'LOW-BATTERY'" "$ERR"
expect_exit 2 "bad --battery-min" "$BFA" check --battery-min 120
expect_exit 2 "bad --wait-max" "$BFA" check --wait-max 9999
grep_file "names the option" "wait_max (--wait-max) must be 0..3600 seconds" "$ERR"
expect_exit 2 "bad --load-wait" "$BFA" check --load-wait 99999
grep_file "names the option" "load_wait (--load-wait) must be 0..3600 seconds" "$ERR"
expect_exit 2 "bad --thermal-max" "$BFA" check --thermal-max hot
expect_exit 0 "text output without --json" \
	"$BFA" check --root "$FX/unlocked-schedutil"
grep_file "text output: one line per check" "^  warn  clocks" "$OUT"

# info
expect_exit 0 "info on healthy-locked" "$BFA" info --root "$FX/healthy-locked"
jq_check "info: the orchestrator's fields" \
	'.hostname == "fixture-healthy" and .arch == "aarch64" and
	 .agent != null and .cpus_online == 4 and
	 (.kernel | startswith("5.10"))' "$OUT"
jq_check "info: cpufreq, thermal, power, memory, load" \
	'.cpu.cores[0].governor == "userspace" and
	 .cpu.cores[0].available_khz == [300000,600000,1000000,1400000,1800000] and
	 .cpu.clocks_locked == true and .cpu.boost == false and
	 .thermal[0].temp_c == 45 and .power_supplies[1].capacity == 80 and
	 .memory.total_kb == 3809472 and .load.avg1 == 0.2 and .aslr == 2' "$OUT"
expect_exit 0 "info on garbage-sysfs still answers" \
	"$BFA" info --root "$FX/garbage-sysfs"
jq_check "info: garbage fields are null, errors named" \
	'.load.avg1 == null and .cpu.online == null and
	 (.errors | length) == 8' "$OUT"
expect_exit 0 "info on this machine" "$BFA" info
jq_check "info on / has the orchestrator's fields" \
	'(.hostname | type) == "string" and (.arch | type) == "string" and
	 .root == "/"' "$OUT"

# The protocol: check with the orchestrator's fields, and info.
printf '%s\n' \
	'{"type":"check","id":1,"battery_min":90,"require_charging":true,"require_all_cores":true,"require_locked_clocks":false,"thermal_max":70,"throttle_tolerance":0.1,"load_max":1,"suppress":[],"wait_max":0}' \
	'{"type":"check","id":2,"suppress":["battery"],"battery_min":90}' \
	'{"type":"check","id":3,"suppress":["nope"]}' \
	'{"type":"check","id":4,"battery_min":"x"}' \
	'{"type":"info","id":5}' >"$T/req.in"
"$BFA" serve --root "$FX/healthy-locked" <"$T/req.in" >"$T/resp.out" \
	2>"$ERR"
jq -s '.' "$T/resp.out" >"$T/resp.json" 2>/dev/null
jq_check "protocol check: battery below 90% is unfit" \
	'.[] | select(.id == 1) | .type == "result" and .fit == false and
	 (.checks[] | select(.id == "battery") | .status == "fail")' \
	"$T/resp.json"
jq_check "protocol check: suppress turns the fail into a warning" \
	'.[] | select(.id == 2) | .fit == true and .suppressed == ["battery"]' \
	"$T/resp.json"
jq_check "protocol check: unknown suppress id is a bad request" \
	'.[] | select(.id == 3) | .type == "error" and .code == "bad_request"
	 and (.message | test("nope"))' "$T/resp.json"
jq_check "protocol check: wrong field type is a bad request" \
	'.[] | select(.id == 4) | .type == "error" and
	 (.message | test("battery_min"))' "$T/resp.json"
jq_check "protocol info: the same object under info" \
	'.[] | select(.id == 5) | .info.hostname == "fixture-healthy" and
	 .info.cpus_online == 4 and (.info.thermal | length) == 1' \
	"$T/resp.json"
