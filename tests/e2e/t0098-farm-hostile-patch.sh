#!/bin/sh
# A hostile patch under test on a real OpenSSH sshd device
# (ci/sshd.sh), registered with the documented defaults. The patch's
# benchmark runs as the user that owns the device's artifact cache and
# rewrites the base's cached copies there: the program (same size,
# "100" becomes "900") and a file of the base's data directory. The
# base must still measure 100 in that compare and in the next one that
# shares the base: the agent checks every cached artifact against the
# hash its directory is named after before each run, removes a changed
# one, and the orchestrator uploads it again.
. "$(dirname "$0")/lib.sh"

sshd_setup
sshd_pool "with the defaults" d1
CACHE="$S/d1/home/.cache/benchfarm/artifacts"

# The base: a program that says 100 ns, and a data directory whose
# value a second benchmark reports.
R="$T/repo"
mkdir -p "$R/data"
t_git -C "$R" init -q -b main
cat >"$R/bench.sh" <<'X'
#!/bin/sh
if [ -n "${1:-}" ]; then echo "BM_data $(cat "$1/value") ns"; exit 0; fi
echo "BM_prog 100 ns"
X
chmod 755 "$R/bench.sh"
echo 100 >"$R/data/value"
cat >"$R/benchfarm.yaml" <<'X'
version: 1
project:
  repo: .
  target_branch: main
  build: [true]
  artifacts: [bench.sh, data/]
benchmarks:
  - name: prog
    command: [bench.sh]
    format: lines
  - name: data
    command: [bench.sh, data]
    format: lines
devices: {pool: lab}
checks:
  battery_min: 0
  suppress: [load, throttle, battery, clocks]
runs: {repeats: 4, warmup: 0, interleave: true, retries: 1}
presubmit: {fail_on: never}
X
t_git -C "$R" add -A
t_git -C "$R" commit -q -m base
# The patch: the same numbers, and a benchmark that rewrites every
# other cached bench.sh and data/value it finds on the device.
t_git -C "$R" checkout -q -b patch
cat >"$R/bench.sh" <<'X'
#!/bin/sh
for f in "$PWD"/artifacts/*/bench.sh "$PWD"/artifacts/*/data/value; do
	case "$f" in "$0" | "$1"/*) continue ;; esac
	[ -f "$f" ] || continue
	chmod u+w "$f" "${f%/*}" 2>/dev/null
	sed 's/100/900/' "$f" >"$T_NEW" 2>/dev/null || continue
	cat "$T_NEW" >"$f"
done
if [ -n "${1:-}" ]; then echo "BM_data $(cat "$1/value") ns"; exit 0; fi
echo "BM_prog 100 ns"
X
sed -i "s|\$T_NEW|$T/new|" "$R/bench.sh"
echo "the patch's data" >"$R/data/note"
t_git -C "$R" add -A
t_git -C "$R" commit -q -m "patch"

# base_is_100 N: in compare N, the base measured 100 ns in every run.
base_is_100() {
	jq_check "compare $1: the base of both benchmarks is 100 ns in every run" \
		'[.results[] | select(.base.n == 4 and .base.median == 100 and .patch.median == 100)] | length == 2' \
		"$T/r$1.json"
}

expect_exit 0 "compare 1 with the hostile patch" "$BF" compare \
	-c "$R/benchfarm.yaml" --base main --patch patch --json "$T/r1.json" \
	--seed 3
base_is_100 1
grep_file "the changed artifact is named, and uploaded again" \
	"is not what was uploaded.*uploading the artifacts again" "$ERR"
n=$(grep -c '900' "$CACHE"/*/bench.sh "$CACHE"/*/data/value 2>/dev/null |
	awk -F: '{ s += $2 } END { print s + 0 }')
[ "$n" -gt 0 ] && t_ok "the patch did rewrite the base's cached copies" ||
	t_fail "the attack rewrote nothing: the test proves nothing"
expect_exit 0 "compare 2 shares the poisoned cache" "$BF" compare \
	-c "$R/benchfarm.yaml" --base main --patch patch --json "$T/r2.json" \
	--seed 5
base_is_100 2
# The patch's own copies, which its benchmark leaves alone, show the
# modes of the upload: read-only.
modes=$(for f in "$CACHE"/*/bench.sh "$CACHE"/*/data/note; do
	grep -q 'chmod u+w' "$f" || [ "${f##*/}" = note ] || continue
	stat -c '%a' "$f"
done | sort | tr '\n' ' ')
[ "$modes" = "444 555 " ] && t_ok "cached artifacts are uploaded read-only" ||
	t_fail "modes of the patch's cached program and data file: $modes"
expect_exit 0 "device list" "$BF" device list --json
jq_check "the device stays good and idle" \
	'.[0].health == "good" and .[0].state == "idle"' "$OUT"

# A flood: the patch's benchmark reports 200,001 samples in one run,
# more than runs.samples_max (100,000 by default). That run is the
# benchmark's error naming the key, nothing of it is kept, the
# connection it flooded is dropped, and the next run is measured.
F="$T/flood"
mkdir -p "$F"
t_git -C "$F" init -q -b main
cat >"$F/flood.sh" <<'X'
#!/bin/sh
echo "BM_flood 7 ns"
X
chmod 755 "$F/flood.sh"
cat >"$F/benchfarm.yaml" <<'X'
version: 1
project:
  repo: .
  target_branch: main
  build: [true]
  artifacts: [flood.sh]
benchmarks:
  - name: flood
    command: [flood.sh]
    format: lines
devices: {pool: lab}
checks:
  battery_min: 0
  suppress: [load, throttle, battery, clocks]
runs: {repeats: 2, warmup: 0, interleave: true, retries: 1}
presubmit: {fail_on: never}
X
t_git -C "$F" add -A
t_git -C "$F" commit -q -m base
t_git -C "$F" checkout -q -b patch
cat >"$F/flood.sh" <<'X'
#!/bin/sh
awk 'BEGIN { for (i = 0; i <= 200000; i++) print "BM_flood 7 ns" }'
X
t_git -C "$F" commit -q -am "flood"
"$BF" compare -c "$F/benchfarm.yaml" --base main --patch patch \
	--json "$T/f.json" --seed 1 >"$OUT" 2>"$ERR"
jq_check "each flooding run is the benchmark's error naming runs.samples_max" \
	'[.errors[] | select(.side == "patch" and (.message | test("more than 100000 samples \\(runs.samples_max\\)")))] | length == 2' \
	"$T/f.json"
jq_check "nothing of the flood is compared" \
	'.results[0].verdict == "missing" and .results[0].missing == "patch"' \
	"$T/f.json"
run=$(jq .run_id "$T/f.json")
sql_check "the base's runs are stored, no sample of the flood" "base:2" \
	"select side || ':' || count(*) from samples where run_id = $run group by side"
expect_exit 0 "device list after the flood" "$BF" device list --json
jq_check "the device stays good, its lease released" \
	'.[0].health == "good" and .[0].state == "idle" and .[0].lease_holder == null' \
	"$OUT"

# A sparse monster: the patch's build leaves an 8 GiB file of holes as
# an artifact. It is refused by its size before a byte is read or
# shipped, as the job's error naming the file and the limit.
sed -i 's|  build: \[true\]|  build: [truncate, -s, 8G, big.bin]|; s|  artifacts: \[flood.sh\]|  artifacts: [flood.sh, big.bin]|' \
	"$F/benchfarm.yaml"
expect_exit 3 "compare with an 8 GiB sparse artifact fails" "$BF" compare \
	-c "$F/benchfarm.yaml" --base main --patch patch --seed 1
grep_file "the error names the file and the 4 GiB limit" \
	"big.bin' is 8589934592 bytes, more than the limit of 4294967296" "$ERR"
n=$(find "$S" -name big.bin | wc -l)
[ "$n" = 0 ] && t_ok "nothing of it was shipped" || t_fail "$n copies shipped"
expect_exit 0 "device list after the monster" "$BF" device list --json
jq_check "the device stays good, its lease released" \
	'.[0].health == "good" and .[0].state == "idle" and .[0].lease_holder == null' \
	"$OUT"
