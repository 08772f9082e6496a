#!/bin/sh
# Postsubmit on a pool of three real OpenSSH sshd "devices"
# (ci/sshd.sh) registered with the documented defaults (no --workdir):
# a Google Benchmark program of a generated 12-commit repository,
# where commit 8 makes BM_compress four times slower. It needs 14 files
# on the device: the program, a data directory (a tree of 11 files,
# found through an env: variable) and two files of a glob. `run` records
# one commit on one device, `backfill` the first six over the pool,
# `run` the last three; `detect --bisect` then finds the step in the
# gap and bisects it on the pool, and `bisect` names the same commit.
# Every commit is recorded with samples from the pool's devices, and
# every device stays good with its lease released.
. "$(dirname "$0")/lib.sh"

need_sshd
if ! command -v g++ >/dev/null 2>&1 ||
	! printf '#include <benchmark/benchmark.h>\n' | g++ -E -x c++ - >/dev/null 2>&1; then
	echo "ok 1 # skip no g++ with Google Benchmark"
	exit 0
fi
sshd_setup
sshd_pool "with the defaults" d1 d2 d3

# The project: a compression-like Google Benchmark suite.
R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
cat >"$R/bench.cc" <<'X'
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "level.h"

static volatile int rounds = ROUNDS;

// A file the benchmark needs; exits 2 (no result) when it is missing.
static std::string need(const std::string &path)
{
	std::ifstream f(path, std::ios::binary);
	if (!f) {
		std::fprintf(stderr, "cannot open %s\n", path.c_str());
		std::exit(2);
	}
	return std::string(std::istreambuf_iterator<char>(f), {});
}

// The corpus: $CORPUS/index lists its files, relative to $CORPUS.
static std::vector<uint8_t> corpus()
{
	const char *dir = std::getenv("CORPUS");
	std::string index = need(std::string(dir ? dir : "testdata") + "/index");
	std::vector<uint8_t> in;
	size_t at = 0, nl;
	while ((nl = index.find('\n', at)) != std::string::npos) {
		std::string data = need(std::string(dir) + "/" +
		                        index.substr(at, nl - at));
		in.insert(in.end(), data.begin(), data.end());
		at = nl + 1;
	}
	return in;
}

static void BM_compress(benchmark::State &state)
{
	std::vector<uint8_t> in = corpus();
	for (auto _ : state) {
		uint32_t h = 2166136261u;
		for (int r = 0; r < rounds; r++)
			for (uint8_t b : in)
				h = (h ^ b) * 16777619u;
		benchmark::DoNotOptimize(h);
	}
}
BENCHMARK(BM_compress);

static void BM_crc(benchmark::State &state)
{
	std::vector<uint8_t> in(4096, 3);
	need(std::getenv("LEVEL") ? std::getenv("LEVEL") : "levels/fast.cfg");
	for (auto _ : state) {
		uint32_t c = 0;
		for (uint8_t b : in)
			c = (c >> 1) ^ (b * 0xedb88320u);
		benchmark::DoNotOptimize(c);
	}
}
BENCHMARK(BM_crc);

static void BM_copy(benchmark::State &state)
{
	std::vector<uint8_t> in(4096, 5), out(4096);
	for (auto _ : state) {
		for (size_t i = 0; i < in.size(); i++)
			out[i] = in[i];
		benchmark::DoNotOptimize(out.data());
	}
}
BENCHMARK(BM_copy);

BENCHMARK_MAIN();
X
cat >"$R/Makefile" <<'X'
out/bench: bench.cc level.h
	mkdir -p out
	g++ -O1 -o $@ bench.cc -lbenchmark -lpthread
X
printf 'out/\n' >"$R/.gitignore"
cat >"$R/benchfarm.yaml" <<'X'
version: 1
project:
  repo: .
  target_branch: main
  build: [make]
  artifacts: [out/bench, testdata/, "levels/*.cfg"]
benchmarks:
  - name: compress
    command: [out/bench, --benchmark_filter=BM_compress,
              --benchmark_format=json, --benchmark_min_time=0.02]
    env: {CORPUS: testdata}
    format: gbench
  - name: crc
    command: [out/bench, --benchmark_filter=BM_crc,
              --benchmark_format=json, --benchmark_min_time=0.02]
    env: {LEVEL: ./levels/best.cfg}
    format: gbench
  - name: copy
    command: [out/bench, --benchmark_filter=BM_copy,
              --benchmark_format=json, --benchmark_min_time=0.02]
    format: gbench
devices: {pool: lab}
checks:
  battery_min: 0
  suppress: [load, throttle, battery, clocks]
runs: {repeats: 3, warmup: 0, retries: 1}
presubmit: {fail_on: never}
postsubmit: {detector: {name: jetpack, width: 3}}
X
echo '#define ROUNDS 2' >"$R/level.h"
# The data: a corpus of ten files in a tree, and two level files.
mkdir -p "$R/testdata/text/en" "$R/testdata/bin" "$R/levels"
: >"$R/testdata/index"
for f in text/a text/b text/en/c text/en/d text/en/e bin/f bin/g bin/h i j; do
	awk -v f="$f" 'BEGIN { for (i = 0; i < 80; i++) print f, i, i * i }' \
		>"$R/testdata/$f"
	echo "$f" >>"$R/testdata/index"
done
echo 'level 1' >"$R/levels/fast.cfg"
echo 'level 9' >"$R/levels/best.cfg"
echo "commit 1" >"$R/README"
t_git -C "$R" add -A
t_git -C "$R" commit -q -m "commit 1"
i=2
while [ $i -le 12 ]; do
	[ $i = 8 ] && echo '#define ROUNDS 8' >"$R/level.h"
	# a shipped file changes, so each commit is a build of its own
	# (one whose build is another's is not measured again)
	echo "level 1 (commit $i)" >"$R/levels/fast.cfg"
	echo "commit $i" >>"$R/README"
	t_git -C "$R" commit -q -am "commit $i"
	i=$((i + 1))
done
c() { git -C "$R" rev-parse "main~$((12 - $1))"; }
CFG="$R/benchfarm.yaml"

healthy='.health == "good"'
# all_good WHEN: every device of the pool is good and idle, and no lease is left.
all_good() {
	expect_exit 0 "device list after $1" "$BF" device list --json
	jq_check "after $1 every device of the pool is good and idle" \
		"[.[] | select(.labels | index(\"lab\"))] | length == 3 and all(.[]; $healthy and .state == \"idle\" and .lease_holder == null)" \
		"$OUT"
	n=$(sqlite3 "$BENCHFARM_DB" 'select count(*) from leases')
	[ "$n" = 0 ] && t_ok "after $1 no lease is left" ||
		t_fail "after $1 $n leases are left"
}

# 1. run on one SSH device.
expect_exit 0 "run on an SSH device" "$BF" run -c "$CFG" \
	--commit "$(c 1)" --device d1 -n 3 --json "$T/run1.json"
jq_check "the run recorded the three benchmarks with 3 values each" \
	'.kind == "run" and ([.results[] | select(.metric == "real_time" and .n == 3)] | length) == 3' \
	"$T/run1.json"
n=$(sqlite3 "$BENCHFARM_DB" "select count(*) from samples where device = 'd1' and commit_id = '$(c 1)'")
[ "$n" -gt 0 ] && t_ok "its samples come from d1" || t_fail "no sample from d1"
# The data directory keeps its tree under one directory named by its
# content; the levels glob shipped both files.
A="$S/d1/home/.cache/benchfarm/artifacts"
n=$(ls "$A"/*/testdata/text/en/c "$A"/*/testdata/index 2>/dev/null | wc -l)
[ "$n" = 2 ] && t_ok "testdata/ keeps its tree on d1" ||
	t_fail "testdata/ on d1: $(find "$A" -type f | head -20 | tr '\n' ' ')"
n=$(ls "$A"/*/fast.cfg "$A"/*/best.cfg 2>/dev/null | wc -l)
[ "$n" = 2 ] && t_ok "both levels/*.cfg were shipped" || t_fail "$n levels shipped"
expect_exit 0 "device show d1" "$BF" device show d1 --json
jq_check "d1 is good and idle after the run" \
	'.health == "good" and .state == "idle"' "$OUT"

# 2. backfill over the pool.
expect_exit 0 "backfill over the pool" "$BF" backfill -c "$CFG" \
	"$(c 1)..$(c 6)" --json "$T/bf.json"
grep_file "backfill measured five commits" \
	"5 commits: 5 measured, 0 the same build as one measured, 0 already measured, 0 failed" "$OUT"
for i in 10 11 12; do
	expect_exit 0 "run commit $i on the pool" "$BF" run -c "$CFG" \
		--commit "$(c $i)"
done
n=$(sqlite3 "$BENCHFARM_DB" "select count(distinct commit_id) from samples where device in ('d1', 'd2', 'd3')")
[ "$n" = 9 ] && t_ok "nine commits have samples from the pool" ||
	t_fail "$n commits have samples from the pool"
n=$(sqlite3 "$BENCHFARM_DB" "select count(*) from samples where device not in ('d1', 'd2', 'd3')")
[ "$n" = 0 ] && t_ok "no sample from elsewhere" || t_fail "$n samples from elsewhere"
all_good "the backfill"

# 3. Failures of the job, not of the devices: each is reported as the
# job's, every device stays good and every lease is released. The
# configs differ from the project's in one thing each.
cfg_with() { # NAME SED-EXPRESSION
	sed "$2" "$CFG" >"$R/$1.yaml"
}
C12=$(c 12)
# A config error: an artifact the build leaves that is not a file.
cfg_with fifo 's|^  build: .*|  build: [sh, -c, "make \&\& rm -f out/pipe \&\& mkfifo out/pipe"]|; s|artifacts: \[out/bench,|artifacts: [out/bench, out/pipe,|'
expect_exit 3 "an artifact that is not a file fails the run" "$BF" run \
	-c "$R/fifo.yaml" --commit "$C12"
grep_file "the error names the artifact" \
	"artifact 'out/pipe' is not a regular file or a directory" "$ERR"
all_good "an artifact that is not a file"
# A directory artifact with a link to a file of this host.
cfg_with leak 's|^  build: .*|  build: [sh, -c, "make \&\& mkdir -p out/data \&\& ln -sf /etc/passwd out/data/p"]|; s|artifacts: \[out/bench,|artifacts: [out/bench, out/data,|'
expect_exit 3 "a link out of the export fails the run" "$BF" run \
	-c "$R/leak.yaml" --commit "$C12"
grep_file "the error says where the link goes" \
	"out/data/p' resolves to '/etc/passwd', outside" "$ERR"
n=$(find "$S" -name p -path '*artifacts*' | wc -l)
[ "$n" = 0 ] && t_ok "nothing was shipped" || t_fail "$n copies shipped"
all_good "a link out of the export"
# A missing artifact: the build does not leave it.
cfg_with missing 's|artifacts: \[out/bench,|artifacts: [out/bench, out/nothere,|'
expect_exit 3 "a missing artifact fails the run" "$BF" run \
	-c "$R/missing.yaml" --commit "$C12"
grep_file "the error names the missing artifact" \
	"left no artifact 'out/nothere'" "$ERR"
all_good "a missing artifact"
cfg_with noglob 's|artifacts: \[out/bench,|artifacts: [out/bench, "out/*.dict",|'
expect_exit 3 "a glob that matches nothing fails the run" "$BF" run \
	-c "$R/noglob.yaml" --commit "$C12"
grep_file "the error names the glob" \
	"'out/\*.dict' matches nothing in the export" "$ERR"
all_good "a glob that matches nothing"
# A benchmark that fails: its own error, not the device's.
cfg_with failing 's|out/bench, --benchmark_filter=BM_crc,|out/bench, --benchmark_filter=BM_crc, --no_such_flag,|'
expect_exit 0 "a failing benchmark is recorded as its error" "$BF" run \
	-c "$R/failing.yaml" --commit "$C12" --json "$T/failing.json"
jq_check "the others are recorded, crc is not" \
	'([.results[] | select(.metric == "real_time")] | length) == 2 and all(.results[]; .name != "BM_crc")' \
	"$T/failing.json"
all_good "a failing benchmark"
# An orchestrator-side error: the store refuses every sample. Commit
# 12 is measured already, so these runs ask to measure it again
# (--measure-every): the same build would otherwise be recorded as that
# measurement, without a device.
sqlite3 "$BENCHFARM_DB" "create trigger refuse before insert on samples begin select raise(fail, 'refused by the test'); end"
expect_exit 3 "a store that refuses the samples fails the run" "$BF" run \
	-c "$CFG" --commit "$C12" --measure-every
sqlite3 "$BENCHFARM_DB" "drop trigger refuse"
grep_file "the error is the job's and says what failed" \
	"the job failed, not a device.*recording the samples.*refused by the test" \
	"$ERR"
all_good "a store error"

# 4. A device whose sshd is gone is the only one marked bad; the run
# finishes on the others.
"$SSHD_SH" stop "$S" d2
expect_exit 0 "run with d2's sshd stopped" "$BF" run -c "$CFG" \
	--commit "$C12" --measure-every --json "$T/gone.json"
jq_check "the three benchmarks are recorded" \
	'([.results[] | select(.metric == "real_time" and .n == 3)] | length) == 3' \
	"$T/gone.json"
expect_exit 0 "device list after d2 failed" "$BF" device list --json
jq_check "only d2 is bad, naming why; every device is idle" \
	'all(.[]; .state == "idle") and ([.[] | select(.health == "bad") | .name] == ["d2"]) and (.[] | select(.name == "d2") | .health_reason | test("d2"))' \
	"$OUT"
n=$(sqlite3 "$BENCHFARM_DB" 'select count(*) from leases')
[ "$n" = 0 ] && t_ok "no lease is left after d2 failed" ||
	t_fail "$n leases are left after d2 failed"
sshd_start d2
"$BF" device rm d2 >/dev/null
sshd_add d2 "$port" "re-add the restarted d2" --labels lab --agent "$BFA"
# Re-added, d2 is "unknown" until a job uses it: healthy, not "good".
healthy='(.health == "good" or (.name == "d2" and .health == "unknown"))'

# 5. Channels per connection. A device whose sshd logs each channel
# (LogLevel DEBUG1), outside the pool, runs the project's 14 files:
# one SFTP session per connection however many artifacts. A device
# whose sshd allows one session per connection (MaxSessions 1) is
# refused with an error that names the limit.
sshd_start chan "LogLevel DEBUG1"
sshd_add chan "$port" "add chan" --labels chan --agent "$BFA"
# device add connected once to ask the agent which machine it is (one
# session channel, no SFTP): count the run's connections only.
conns0=$(grep -c '^Accepted publickey' "$S/chan/sshd.log")
chans0=$(grep -c 'server_input_channel_open: ctype session' "$S/chan/sshd.log")
expect_exit 0 "run 14 files on chan" "$BF" run -c "$CFG" --commit "$C12" \
	--device chan
n=$(find "$S"/chan/home/.cache/benchfarm/artifacts -type f | wc -l)
[ "$n" = 14 ] && t_ok "chan got the 14 files" || t_fail "chan has $n files"
conns=$(($(grep -c '^Accepted publickey' "$S/chan/sshd.log") - conns0))
sftps=$(grep -c "Starting session: subsystem 'sftp'" "$S/chan/sshd.log")
chans=$(($(grep -c 'server_input_channel_open: ctype session' "$S/chan/sshd.log") - chans0))
echo "# chan: $conns connections, $sftps SFTP sessions, $chans session channels"
[ "$conns" -ge 1 ] && [ "$sftps" = "$conns" ] &&
	t_ok "one SFTP session per connection ($sftps for $conns)" ||
	t_fail "$sftps SFTP sessions for $conns connections"
[ "$chans" -le $((2 * conns)) ] &&
	t_ok "at most two session channels per connection ($chans for $conns)" ||
	t_fail "$chans session channels for $conns connections"
sshd_start tight "MaxSessions 1"
sshd_add tight "$port" "add tight" --labels tight --agent "$BFA"
expect_exit 3 "a run on a device allowing one session fails" "$BF" run \
	-c "$CFG" --commit "$C12" --device tight
grep_file "the error names sshd's MaxSessions" \
	"'tight'.*refused a new channel.*MaxSessions (default 10)" "$ERR"

# 6. detect --bisect over the pool: the step of BM_compress lies in
# the unmeasured gap after commit 6; the bisect on the pool names
# commit 8. Then bisect by hand names it too.
C8=$(c 8)
expect_exit 0 "detect --bisect" "$BF" detect -c "$CFG" --bisect -n 6 \
	--json "$T/detect.json"
# Real time on two shared cores may step too, and its probes may be too
# noisy to judge; CPU time's step is clear. Noise on a loaded or
# sanitized build may raise an alert elsewhere, but no bisect names
# another commit.
jq_check "BM_compress regressed, the CPU time alert's culprit is commit 8" \
	"[.alerts[] | select(.new)] | all(.[]; .culprit == null or .culprit == \"$C8\") and any(.[]; .benchmark == \"BM_compress\" and .metric == \"cpu_time\" and .direction == \"regressed\" and .culprit == \"$C8\")" \
	"$T/detect.json"
all_good "detect --bisect"
# alert list keeps its columns with a long benchmark and metric name (a
# user counter of a parameterised benchmark), stored as detect would.
sqlite3 "$BENCHFARM_DB" "insert into alerts (benchmark, metric, device_class, commit_lo, commit_hi, direction, size, score, created_at, group_id, suite) values ('BM_compress/level:9/window:65536', 'bytes_per_second_compressed', 'lab', '$(c 2)', '$(c 3)', 'improved', -0.1, 5, 0, 1, 'compress')"
expect_exit 0 "alert list" "$BF" alert list
awk 'NR == 1 { want = index($0, "COMMITS") } NR > 1 && index($0, "..") - 12 != want { bad++ } END { exit !(NR >= 3 && !bad) }' "$OUT" &&
	t_ok "alert list: every row's commits start under COMMITS" ||
	t_fail "alert list columns are misaligned"
# and every column after COMMITS starts under its heading
awk 'NR == 1 { c = index($0, "CULPRIT"); g = index($0, "GROUP"); k = index($0, "CLASS") }
NR > 1 { for (i in p) delete p[i]; p[1] = c; p[2] = g; p[3] = k
	for (i = 1; i <= 3; i++) if (substr($0, p[i] - 1, 1) != " " || substr($0, p[i], 1) == " ") bad++ }
END { exit !(NR >= 3 && !bad) }' "$OUT" &&
	t_ok "alert list: culprit, group and class start under their headings" ||
	t_fail "alert list: culprit, group or class is off its heading"
expect_exit 0 "bisect over the pool" "$BF" bisect -c "$CFG" \
	--good "$(c 6)" --bad "$(c 10)" --benchmark compress \
	--metric cpu_time -n 6 --json "$T/bisect.json"
jq_check "bisect names commit 8" ".culprit == \"$C8\"" "$T/bisect.json"
n=$(sqlite3 "$BENCHFARM_DB" "select count(*) from samples s join runs r on r.id = s.run_id where r.kind = 'compare' and s.device in ('d1', 'd2', 'd3')")
m=$(sqlite3 "$BENCHFARM_DB" "select count(*) from samples s join runs r on r.id = s.run_id where r.kind = 'compare' and s.device not in ('d1', 'd2', 'd3')")
[ "$n" -gt 0 ] && [ "$m" = 0 ] &&
	t_ok "the bisects' probes ran on the pool ($n samples)" ||
	t_fail "probe samples: $n from the pool, $m from elsewhere"
all_good "bisect"

# 7. A commit whose build fails is built once: a second backfill skips
# it, saying so, while the config is the same; --retry-failed builds it.
echo 'syntax error' >>"$R/bench.cc"
t_git -C "$R" commit -q -am "commit 13: breaks the build"
C13=$(git -C "$R" rev-parse HEAD)
sed -i '$d' "$R/bench.cc"
t_git -C "$R" commit -q -am "commit 14: fixes it"
runs13() {
	sqlite3 "$BENCHFARM_DB" "select count(*) from runs where patch_commit = '$C13'"
}
expect_exit 3 "backfill over a broken commit" "$BF" backfill -c "$CFG" \
	"$C12..main"
# commit 14 undoes commit 13: its build is commit 12's, not measured again
grep_file "the broken commit fails once, its fix is commit 12's build" \
	"2 commits: 0 measured, 1 the same build as one measured, 0 already measured, 1 failed$" "$OUT"
[ "$(runs13)" = 1 ] && t_ok "one run of the broken commit" ||
	t_fail "$(runs13) runs of the broken commit"
expect_exit 3 "backfill again" "$BF" backfill -c "$CFG" "$C12..main" \
	--json "$T/bf2.json"
grep_file "the broken commit is not built again, and the line says why" \
	"$(printf %.12s "$C13") not built: its build failed before under the same build inputs (--retry-failed builds it again) (run [0-9]*)" \
	"$OUT"
grep_file "the summary counts it" \
	"2 commits: 0 measured, 0 the same build as one measured, 1 already measured, 1 failed (1 not built again: their build failed before)" \
	"$OUT"
[ "$(runs13)" = 1 ] && t_ok "still one run of the broken commit" ||
	t_fail "$(runs13) runs of the broken commit"
jq_check "the summary JSON names the failed run" \
	".[] | select(.commit == \"$C13\") | .failure.stage == \"build\" and (.failure.failed_run | type) == \"number\"" \
	"$T/bf2.json"
expect_exit 3 "backfill --retry-failed" "$BF" backfill -c "$CFG" \
	--retry-failed "$C12..main"
grep_file "it builds the broken commit again" \
	"$(printf %.12s "$C13") failed (recorded as failed, no point): .*build" "$OUT"
[ "$(runs13)" = 2 ] && t_ok "a second run of the broken commit" ||
	t_fail "$(runs13) runs of the broken commit"
# Other build inputs are another build: a changed build environment
# builds it again; a config edit that changes no build input does not.
CXXFLAGS=-O1 "$BF" backfill -c "$CFG" "$C12..main" >"$OUT" 2>"$ERR"
grep_file "a changed CXXFLAGS builds the broken commit again" \
	"$(printf %.12s "$C13") failed (recorded as failed, no point): .*build" "$OUT"
[ "$(runs13)" = 3 ] && t_ok "a third run of the broken commit" ||
	t_fail "$(runs13) runs of the broken commit"
printf '# a comment changes no build input\n' >>"$CFG"
expect_exit 3 "backfill after a comment in the config" "$BF" backfill \
	-c "$CFG" "$C12..main"
grep_file "does not build the broken commit again" \
	"$(printf %.12s "$C13") not built: its build failed before" "$OUT"
[ "$(runs13)" = 3 ] && t_ok "still three runs of the broken commit" ||
	t_fail "$(runs13) runs of the broken commit"
all_good "the broken builds"
