#!/bin/sh
# The measuring engine prints nothing of its own: each command that runs
# it (compare, run, backfill, bisect) shows its errors under its own
# name. A repository of five commits with a shell benchmark: c2 does not
# build ("error: boom" in its log), c3 mends it and doubles the time.
. "$(dirname "$0")/lib.sh"

R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
cat >"$R/b.sh" <<'X'
n=$(od -An -N1 -tu1 /dev/urandom | tr -d ' ')
echo "x $(($(cat level) * 1000 + n % 3)) ns"
X
cat >"$R/build.sh" <<'X'
if [ -f broken ]; then
	echo compiling
	echo "error: boom" >&2
	exit 2
fi
X
echo 1 >"$R/level"
cat >"$R/bf.yaml" <<'X'
version: 1
project: {repo: ., target_branch: main, build: [sh, build.sh]}
benchmarks:
  - {name: b, command: [sh, b.sh], format: lines}
runs: {repeats: 6, warmup: 0}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks]}
X
t_git -C "$R" add -A
t_git -C "$R" commit -q -m c0
C0=$(git -C "$R" rev-parse HEAD)
echo c1 >"$R/README"
t_git -C "$R" add -A
t_git -C "$R" commit -q -m c1
C1=$(git -C "$R" rev-parse HEAD)
: >"$R/broken"
t_git -C "$R" add -A
t_git -C "$R" commit -q -m "c2: breaks the build"
C2=$(git -C "$R" rev-parse HEAD)
t_git -C "$R" rm -q broken
echo 2 >"$R/level"
t_git -C "$R" commit -q -am "c3: mends it, twice as slow"
echo c4 >>"$R/README"
t_git -C "$R" commit -q -am c4
C4=$(git -C "$R" rev-parse HEAD)
C2S=$(printf %.12s "$C2")

# no_line "what" PATTERN FILE: passes when no line of FILE matches.
no_line() {
	if grep -q -- "$2" "$3"; then
		echo "#   a line matches '$2' in $3"
		t_fail "$1"
	else
		t_ok "$1"
	fi
}

expect_exit 3 "compare of the broken commit" "$BF" compare -c "$R/bf.yaml" \
	--base "$C1" --patch "$C2"
grep_file "compare names itself and the build" \
	"^benchfarm: compare: build of ${C2S}[0-9a-f]* failed" "$ERR"
grep_file "then the build log's last lines" "^error: boom" "$ERR"
grep_file "and that its runs were stopped" "^benchfarm: compare: stopped: build of" \
	"$ERR"
grep_file "the markdown report still goes to stdout" "nothing was compared" "$OUT"

expect_exit 3 "backfill over the broken commit" "$BF" backfill \
	-c "$R/bf.yaml" "$C0..$C4"
grep_file "backfill names itself and the build, not run" \
	"^benchfarm: backfill: build of ${C2S}[0-9a-f]* failed" "$ERR"
grep_file "then the build log's last lines" "^error: boom" "$ERR"
no_line "no message of backfill's says run" "^benchfarm: run:" "$ERR"
grep_file "the summary counts the failure" \
	"4 commits: 3 measured, 0 the same build as one measured, 0 already measured, 1 failed" "$OUT"

# (backfill first: it would not build again a commit whose build
# failed in an earlier run)
expect_exit 3 "run of the broken commit" "$BF" run -c "$R/bf.yaml" \
	--commit "$C2"
grep_file "run names itself and the build" \
	"^benchfarm: run: build of ${C2S}[0-9a-f]* failed" "$ERR"
grep_file "then the build log's last lines" "^error: boom" "$ERR"

expect_exit 0 "bisect over the broken commit" "$BF" bisect -c "$R/bf.yaml" \
	--good "$C0" --bad "$C4" --benchmark b --json "$T/bisect.json"
jq_check "the broken commit is skipped" \
	".skipped == [\"$C2\"] and ([.probes[] | select(.verdict == \"skipped\") | .reason] == [\"does not build\"])" \
	"$T/bisect.json"
grep_file "bisect names itself and the probe's build, not compare" \
	"^benchfarm: bisect: build of ${C2S}[0-9a-f]* failed" "$ERR"
no_line "no message of bisect's says compare" "^benchfarm: compare:" "$ERR"
