#!/bin/sh
# Hostile output paths: a character device or FIFO named as --json or
# --markdown is written in place and stays what it was (renaming a
# result over /dev/null, run as root, replaced the device node); a
# symbolic link planted at the temporary name benchfarm used
# (FILE.tmp.PID) is neither followed nor replaced; a directory is
# refused by name; results are 0600. A character device made here
# (mknod, same numbers as /dev/null) stands in for /dev/null, so a
# failure cannot break the machine's own; /dev/fd/3 stands in for
# /dev/stdout redirected to a file for the same reason.
. "$(dirname "$0")/lib.sh"
umask 022 # a CI runner's usual umask: only benchfarm's own modes count

R="$T/repo"
mkdir -p "$R"
t_git -C "$R" init -q -b main
printf 'echo "fast 100 ns"\n' >"$R/bench.sh"
cat >"$R/bf.yaml" <<X
version: 1
project: {repo: ., target_branch: main, build: [true]}
benchmarks:
  - {name: micro, command: [sh, bench.sh], format: lines}
checks: {battery_min: 0, suppress: [load, throttle, battery, clocks, cores]}
runs: {repeats: 2, warmup: 0}
presubmit: {fail_on: never}
X
t_git -C "$R" add -A
t_git -C "$R" commit -q -m base
t_git -C "$R" checkout -q -b patch
printf 'echo "fast 101 ns"\n' >"$R/bench.sh"
t_git -C "$R" commit -q -am patch

cmp_to() { # cmp_to ARGS...: a compare of main and patch with ARGS
	"$BF" compare -c "$R/bf.yaml" --base main --patch patch --seed 1 "$@"
}

# A character device: written in place, still a device afterwards.
if mknod "$T/null" c 1 3 2>/dev/null; then
	expect_exit 0 "compare --json to a character device" \
		cmp_to --json "$T/null" --markdown "$T/null"
	[ -c "$T/null" ] && t_ok "the device is still a character device" ||
		t_fail "the device was replaced: $(ls -l "$T/null")"
else
	t_ok "# skip mknod needs root"
fi

# A FIFO: its reader gets the result, and it stays a FIFO.
mkfifo "$T/fifo"
cat "$T/fifo" >"$T/fifo.out" &
reader=$!
expect_exit 0 "compare --json to a FIFO" cmp_to --json "$T/fifo"
if [ -p "$T/fifo" ]; then
	wait "$reader"
	t_ok "the FIFO is still a FIFO"
else
	kill "$reader" 2>/dev/null # nobody will ever write the FIFO
	wait "$reader"
	t_fail "the FIFO was replaced: $(ls -l "$T/fifo")"
fi
jq_check "its reader got the result JSON" '.results | length == 1' \
	"$T/fifo.out"

# A descriptor of the caller's named by path (as /dev/stdout is when
# stdout is redirected to a file): written through it, in place.
expect_exit 0 "compare --json /dev/fd/3 with 3 open on a file" \
	sh -c 'exec "$1" compare -c "$2/bf.yaml" --base main --patch patch \
		--json /dev/fd/3 3>"$3"' sh "$BF" "$R" "$T/via-fd.json"
jq_check "the file open on 3 got the result" '.results | length == 1' \
	"$T/via-fd.json"

# The old temporary name, FILE.tmp.PID, planted as a symbolic link to a
# file of the victim's: exec keeps the shell's pid for benchfarm.
echo precious >"$T/victim"
expect_exit 0 "compare --json with a link planted at the temporary name" \
	sh -c 'ln -s "$1/victim" "$1/r.json.tmp.$$" &&
		exec "$2" compare -c "$3/bf.yaml" --base main --patch patch \
			--json "$1/r.json" --markdown "$1/r.md"' \
	sh "$T" "$BF" "$R"
[ "$(cat "$T/victim")" = precious ] &&
	t_ok "the link's target is untouched" ||
	t_fail "the link's target was overwritten: $(head -c 80 "$T/victim")"
jq_check "the result went to the named file" '.results | length == 1' \
	"$T/r.json"
for f in r.json r.md; do
	[ "$(stat -c %a "$T/$f")" = 600 ] && t_ok "$f is 0600" ||
		t_fail "$f is mode $(stat -c %a "$T/$f")"
done
left=$(find "$T" -maxdepth 1 -name '.r.json.*' -o -maxdepth 1 -name '.r.md.*')
[ -z "$left" ] && t_ok "no temporary file is left behind" ||
	t_fail "left behind: $left"

# A directory is refused by name, not renamed over or into.
mkdir "$T/dir.json"
expect_exit 3 "compare --json to a directory fails" cmp_to --json "$T/dir.json"
grep_file "naming the path and what to do" \
	"cannot write '$T/dir.json': it exists and is not a regular file, character device or FIFO; name a file to create" \
	"$ERR"

# trace -o to a FIFO: the reader gets the flame graph.
if command -v cc >/dev/null 2>&1; then
	cc -O1 -g -finstrument-functions -o "$T/ct" \
		"$BF_SRC/tests/fixtures/trace/calltree.c" -pthread \
		"$BF_BUILD_ABS/libbenchfarm_trace.a" 2>"$ERR"
	BENCHFARM_TRACE="$T/a.trace" "$T/ct" 2 2 >/dev/null
	cat "$T/fifo" >"$T/svg.out" &
	reader=$!
	expect_exit 0 "trace svg -o a FIFO" "$BF" trace svg "$T/a.trace" \
		-o "$T/fifo"
	if [ -p "$T/fifo" ]; then wait "$reader"; else
		kill "$reader" 2>/dev/null
		wait "$reader"
	fi
	grep_file "its reader got the SVG" '^</svg>' "$T/svg.out"
fi
