#!/bin/sh
# Android devices through adb: `benchfarm-agent info --adb SERIAL` and
# `check --adb SERIAL --json` against recorded device output.
#
# No Android device can be attached where these tests run. The adb path
# is tested by replaying recorded output: BENCHFARM_ADB points at the
# stand-in tests/fixtures/adb/adb, which answers from
# tests/fixtures/adb/SERIAL/ (transcripts reconstructed from the
# documented Android 13/14 formats; see docs/android.md).
. "$(dirname "$0")/lib.sh"

export BENCHFARM_ADB="$BF_SRC/tests/fixtures/adb/adb"
export BF_ADB_STATE="$T/adb-state"
export BF_ADB_LOG="$T/adb.log"
mkdir -p "$BF_ADB_STATE"

# The stand-in itself, end to end: what a Jetpack run leaves on the
# device, pulled with `shell cat` and parsed by the agent's jetpack
# parser (bf_android_run_jetpack does the same; its unit tests drive it).
RUNNER=com.example.benchmark.test/androidx.benchmark.junit4.AndroidBenchmarkRunner
"$BENCHFARM_ADB" -s pixel-healthy shell am instrument -w -r -e \
	androidx.benchmark.output.enable true "$RUNNER" >"$T/instr.txt"
grep_file "the recorded run ends with INSTRUMENTATION_CODE: -1" \
	'^INSTRUMENTATION_CODE: -1$' "$T/instr.txt"
json=$(sed -n 's/^INSTRUMENTATION_RESULT: additionalTestOutputFile_[^=]*=//p' "$T/instr.txt")
"$BENCHFARM_ADB" -s pixel-healthy shell cat "$json" >"$T/bench.json"
expect_exit 0 "the pulled benchmarkData.json parses as jetpack" \
	"$BFA" parse --format jetpack "$T/bench.json"
jq_check "10 samples, the G5 example's timeNs runs first" \
	'(.samples | length) == 10 and .samples[0].metric == "timeNs" and
	 .samples[0].benchmark == "com.example.bench.JsonBenchmark.parseJson[size=1024]"' "$OUT"
expect_exit 1 "the disconnected stand-in fails like adb" \
	"$BENCHFARM_ADB" -s disconnected shell getprop
grep_file "with adb's message" "error: device 'disconnected' not found" "$ERR"

# info and check through adb, when the agent supports --adb.
"$BFA" info --adb pixel-healthy >"$OUT" 2>"$ERR"
rc=$?
if [ "$rc" -ne 0 ] && grep -q "not implemented" "$ERR"; then
	t_ok "info --adb # SKIP benchfarm-agent info/check without --adb yet"
	exit 0
fi
if [ "$rc" -eq 0 ]; then t_ok "info --adb pixel-healthy exits 0"; else t_fail "info --adb pixel-healthy exits 0 (got $rc)"; fi
jq_check "info: getprop build properties" \
	'.android.properties["ro.product.model"] == "Pixel 6" and
	 .android.properties["ro.build.version.sdk"] == "34" and
	 .android.properties["ro.build.fingerprint"] == "google/oriole/oriole:14/AP2A.240805.005/12025142:user/release-keys"' "$OUT"
jq_check "info: dumpsys battery and thermalservice" \
	'.android.battery.capacity == 87 and .android.battery.charging == true and
	 .android.thermal_status == 0' "$OUT"
jq_check "info: cores and cpufreq from sysfs over adb" \
	'.cpus_online == 8 and (.cpu.cores | length) == 8 and
	 .cpu.cores[7].cpuinfo_max_khz == 2802000' "$OUT"
grep_file "info read the device through adb -s" "^-s pixel-healthy shell dumpsys battery$" "$BF_ADB_LOG"

expect_exit 0 "check --adb pixel-healthy: fit" \
	"$BFA" check --adb pixel-healthy --json
jq_check "check: battery passes at 87%" \
	'.fit == true and ([.checks[] | select(.id == "battery")][0] | .status == "pass" and .value == 87)' "$OUT"

expect_exit 1 "check --adb pixel-hot-discharging: unfit" \
	"$BFA" check --adb pixel-hot-discharging --json
jq_check "check: low battery, hot zone and thermal status fail" \
	'.fit == false and
	 ([.checks[] | select(.id == "battery")][0].status == "fail") and
	 ([.checks[] | select(.id == "thermal")][0].status == "fail") and
	 ([.checks[] | select(.id == "throttle")][0].status == "fail")' "$OUT"

"$BFA" check --adb disconnected --json >"$OUT" 2>"$ERR"
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then t_ok "check --adb disconnected: infrastructure exit ($rc), not a verdict"; else t_fail "check --adb disconnected: infrastructure exit, not 0/1 (got $rc)"; fi
grep_file "a clear disconnect message" "adb device 'disconnected' disconnected" "$ERR"

expect_exit 0 "info --adb garbage reports, never crashes" \
	"$BFA" info --adb garbage
jq_check "info: garbage named per command" \
	'[.errors[] | select(test("dumpsys battery") or test("dumpsys thermalservice") or test("getprop"))] | length == 3' "$OUT"

# The protocol's instrument request: a Jetpack run through adb, samples
# streamed back; a disconnect mid-run discards partial results.
req='{"type":"instrument","id":7,"runner":"'"$RUNNER"'"}'
printf '%s\n' "$req" | "$BFA" serve --adb pixel-healthy >"$T/ins.out" 2>"$ERR"
jq_slurp_check "instrument streams the run's 10 samples" \
	'[.[] | select(.type == "sample" and .id == 7)] | length == 10' "$T/ins.out"
jq_slurp_check "then one result counting them" \
	'[.[] | select(.type == "result" and .id == 7)][0].samples == 10' "$T/ins.out"
jq_slurp_check "whose counters are each unavailable on the device, with why" \
	'[.[] | select(.type == "result" and .id == 7)][0].counters |
	 length == 8 and all(has("value") | not) and
	 all(.unavailable | test("^unavailable on this device: an Android instrumentation"))' "$T/ins.out"
printf '%s\n' "$req" | "$BFA" serve --adb mid-run-disconnect >"$T/ins2.out" 2>"$ERR"
jq_slurp_check "a disconnect mid-run is an error, no samples" \
	'([.[] | select(.type == "sample")] | length) == 0 and
	    [.[] | select(.id == 7)][0].code == "disconnected"' "$T/ins2.out"
printf '%s\n' "$req" | "$BFA" serve >"$T/ins3.out" 2>"$ERR"
jq_slurp_check "instrument without --adb is refused" \
	'[.[] | select(.id == 7)][0].code == "no_device"' "$T/ins3.out"
