#!/bin/sh
# libbenchfarm_trace and benchfarm trace on a program with a known call
# tree (tests/fixtures/trace/calltree.c): exact folded stacks and call
# counts on three threads with recursion, Chrome trace events, a flame
# graph that parses as XML, a differential graph that marks the slowed
# function, and what happens with a full buffer, a cut or foreign file
# and a stripped binary.
. "$(dirname "$0")/lib.sh"
umask 022 # a CI runner's usual umask: only benchfarm's own modes count
need_cc
SRC="$BF_SRC/tests/fixtures/trace/calltree.c"
cc -O1 -g -finstrument-functions -o "$T/ct" "$SRC" -pthread \
	"$BF_BUILD_ABS/libbenchfarm_trace.a" 2>"$ERR" &&
	t_ok "a program builds against libbenchfarm_trace.a" ||
	{ t_fail "build with the static library"; exit 0; }

# 65,536 records (1 MiB) per thread: each worker pre-faults its buffer
# at its first call while main waits in pthread_join, and on a loaded
# machine faulting the default 16 MiB can take tens of milliseconds of
# main's self time, enough to shrink deep below a pixel in the SVG that
# Chromium is checked against below.
BENCHFARM_TRACE="$T/a.trace" BENCHFARM_TRACE_RECORDS=65536 "$T/ct" 5 3 \
	>/dev/null &&
	[ -s "$T/a.trace" ] && t_ok "BENCHFARM_TRACE writes the trace at exit" ||
	t_fail "no trace written"

# The expected stacks, from the program's structure: main runs run(5),
# two workers run(3); run calls leaf n times and deep(3) recurses to 0
# and calls leaf there.
stacks() { # thread root n
	echo "$1 1"
	echo "$1;$2 1"
	echo "$1;$2;run 1"
	echo "$1;$2;run;leaf $3"
	echo "$1;$2;run;deep 1"
	echo "$1;$2;run;deep;deep 1"
	echo "$1;$2;run;deep;deep;deep 1"
	echo "$1;$2;run;deep;deep;deep;deep 1"
	echo "$1;$2;run;deep;deep;deep;deep;leaf 1"
}
{
	stacks thread-1 main 5
	stacks thread-2 worker 3
	stacks thread-3 worker 3
} >"$T/want.fold"
expect_exit 0 "trace fold --calls" "$BF" trace fold --calls "$T/a.trace"
if cmp -s "$OUT" "$T/want.fold"; then
	t_ok "the folded stacks and counts are exactly the call tree"
else
	diff "$T/want.fold" "$OUT" | sed 's/^/#   /' | head -20
	t_fail "folded stacks differ from the call tree"
fi
[ ! -s "$ERR" ] && t_ok "a whole trace is not called partial" ||
	t_fail "warnings on a whole trace"

expect_exit 0 "trace top --json" "$BF" trace top --json -n 0 "$T/a.trace"
jq_check "leaf: 5 + 2*3 + 3 calls, deep 12, run 3, worker 2" \
	'[.functions[] | {(.function): .calls}] | add | .leaf == 14 and .deep == 12 and .run == 3 and .worker == 2 and .main == 1' \
	"$OUT"
jq_check "recursion counts deep's time once: inclusive deep <= inclusive run" \
	'[.functions[] | {(.function): .inclusive_ns}] | add | .deep <= .run and .run <= .main + .worker' \
	"$OUT"
jq_check "not partial" '.partial == false' "$OUT"

# Known relative durations: leaf does 400,000 rounds of work, deep none.
BENCHFARM_TRACE="$T/slow.trace" "$T/ct" 5 3 1 >/dev/null
expect_exit 0 "trace top of the slow run" "$BF" trace top --json "$T/slow.trace"
jq_check "leaf's self time is most of run's inclusive time" \
	'[.functions[] | {(.function): .}] | add | .leaf.self_ns > 0.5 * (.run.inclusive_ns - .deep.self_ns)' \
	"$OUT"

expect_exit 0 "trace chrome" "$BF" trace chrome "$T/a.trace" -o "$T/a.json"
jq_check "Chrome trace events: 14 complete leaf events on 3 threads" \
	'([.traceEvents[] | select(.name == "leaf" and .ph == "X")] | length) == 14 and ([.traceEvents[] | select(.ph == "X") | .tid] | unique | length) == 3 and all(.traceEvents[] | select(.ph == "X"); .dur >= 0 and .ts >= 0)' \
	"$T/a.json"
# Metadata events by the Trace Event Format's rules: "ph" "M", a name
# among the five it defines, a pid, args with the name (a string) or
# the sort_index (an integer), a tid for the thread ones; one
# process_name for the process, one thread_name per thread that has
# events, named as fold and top name it.
jq_check "metadata events follow the format's rules" \
	'[.traceEvents[] | select(.ph == "M")] | length > 0 and all(.[]; (.name | IN("process_name", "process_labels", "process_sort_index", "thread_name", "thread_sort_index")) and (.pid | type == "number") and (.args | type == "object") and (if (.name | test("_name$")) then (.args.name | type == "string" and length > 0) else (.args.sort_index | type == "number") end) and (if (.name | startswith("thread_")) then (.tid | type == "number") else true end))' \
	"$T/a.json"
jq_check "the process is named after the traced program" \
	'[.traceEvents[] | select(.ph == "M" and .name == "process_name")] | length == 1 and .[0].args.name == "ct"' \
	"$T/a.json"
jq_check "each thread with events has one thread_name, thread-N" \
	'([.traceEvents[] | select(.ph == "X") | [.pid, .tid]] | unique) as $threads | [.traceEvents[] | select(.ph == "M" and .name == "thread_name")] as $names | ($names | length) == ($threads | length) and all($threads[]; . as $t | [$names[] | select([.pid, .tid] == $t)] | length == 1 and .[0].args.name == "thread-\($t[1])")' \
	"$T/a.json"
jq_check "the metadata comes before the events it names" \
	'[.traceEvents[].ph] | (index("X")) > (rindex("M"))' "$T/a.json"

expect_exit 0 "trace svg" "$BF" trace svg "$T/a.trace" -o "$T/a.svg"
[ "$(stat -c %a "$T/a.svg")" = 600 ] && t_ok "trace svg -o writes 0600" ||
	t_fail "trace svg -o wrote mode $(stat -c %a "$T/a.svg")"
if command -v xmllint >/dev/null 2>&1; then
	check "the flame graph is well-formed XML" xmllint --noout "$T/a.svg"
fi
grep_file "frames have hover titles with time and share" \
	'<title>leaf ([0-9]* ns, [0-9.]*%, [0-9]* calls\?)</title>' "$T/a.svg"
n=$(grep -c '<rect' "$T/a.svg")
[ "$n" -ge 10 ] && t_ok "the graph draws the frames ($n)" || t_fail "$n frames"

expect_exit 0 "trace diff" "$BF" trace diff "$T/a.trace" "$T/slow.trace" \
	-o "$T/d.svg"
grep_file "the slowed leaf is marked slower against the base" \
	'<title>leaf ([^)]*, +[0-9.]*% against the base)</title><rect [^>]*fill="rgb(255,' \
	"$T/d.svg"

# A full buffer: the trace says so, and what was recorded is read.
BENCHFARM_TRACE="$T/full.trace" BENCHFARM_TRACE_RECORDS=9 "$T/ct" 5 3 \
	>/dev/null
expect_exit 0 "a trace whose buffers filled" "$BF" trace fold --calls \
	"$T/full.trace"
grep_file "it is called partial, with the cause and when" \
	"partial: thread-[0-9]*'s buffer filled [0-9.]* ms into the trace: [0-9]* events after it were dropped" "$ERR"
for th in 1 2 3; do
	grep_file "stderr says where thread-$th was cut" \
		"full.trace: thread-$th was truncated [0-9.]* ms into the trace: [0-9]* events after were dropped" "$ERR"
done
grep_file "what was recorded is there" "^thread-1;main;run;leaf" "$OUT"
expect_exit 0 "trace top of the full trace" "$BF" trace top "$T/full.trace"
grep_file "top's table says partial" "^(partial: thread-" "$OUT"
grep_file "and where each thread was cut" \
	"^(thread-2 truncated [0-9.]* ms into the trace: [0-9]* events dropped after)$" "$OUT"
"$BF" trace top --json "$T/full.trace" >"$T/full.json" 2>/dev/null
jq_check "top --json lists the cuts with their time" \
	'.partial == true and ([.truncated[] | select(.at_ns > 0 and .dropped > 0)] | length) == 3' \
	"$T/full.json"
"$BF" trace chrome "$T/full.trace" -o "$T/full-chrome.json" 2>/dev/null
jq_check "Chrome events mark each cut with an instant event on its thread" \
	'([.traceEvents[] | select(.ph == "i" and (.name | test("buffer full")))] | length) == 3 and .otherData.partial == true and (.otherData.truncated | length) == 3' \
	"$T/full-chrome.json"
# the calls open where the records end are events too, as in the tree
expect_exit 0 "fold --calls of the full trace" "$BF" trace fold --calls \
	"$T/full.trace"
awk '{ n = split($1, f, ";"); c[f[n]] += $2 } END { for (k in c) if (k !~ /^thread-/) print k, c[k] }' \
	"$OUT" | sort >"$T/full-tree.calls"
jq -r '[.traceEvents[] | select(.ph == "X") | .name] | group_by(.) | .[] | "\(.[0]) \(length)"' \
	"$T/full-chrome.json" | sort >"$T/full-chrome.calls"
if [ -s "$T/full-tree.calls" ] && cmp -s "$T/full-tree.calls" "$T/full-chrome.calls"; then
	t_ok "chrome has the same calls as the tree, open ones included"
else
	diff "$T/full-tree.calls" "$T/full-chrome.calls" | sed 's/^/#   /'
	t_fail "chrome's calls differ from the tree's"
fi
"$BF" trace svg "$T/full.trace" -o "$T/full.svg" 2>/dev/null
grep_file "the SVG's thread frames say where they were cut" \
	"<title>thread-1 ([^)]*, truncated [0-9.]* ms into the trace: [0-9]* events dropped after)</title>" \
	"$T/full.svg"

# A file cut short keeps its whole records; other files are refused.
size=$(wc -c <"$T/a.trace")
head -c $((size - 100)) "$T/a.trace" >"$T/cut.trace"
expect_exit 0 "a trace cut short" "$BF" trace top "$T/cut.trace"
grep_file "the cut is named" "partial: the file ends inside" "$ERR"
grep_file "and the top table says partial" "^(partial: " "$OUT"
printf 'not a trace at all\n' >"$T/junk.trace"
expect_exit 2 "a file that is not a trace" "$BF" trace svg "$T/junk.trace"
grep_file "is named as such" "junk.trace: not a benchfarm trace" "$ERR"
expect_exit 2 "a missing file" "$BF" trace fold "$T/none.trace"
head -c 20 "$T/a.trace" >"$T/hdr.trace"
expect_exit 2 "a header cut short" "$BF" trace fold "$T/hdr.trace"
grep_file "names where" "header cut short" "$ERR"
head -c 300 "$T/a.trace" >"$T/map.trace"
expect_exit 2 "a file cut inside its memory map" "$BF" trace fold \
	"$T/map.trace"
grep_file "says the file is damaged" "the memory map is [0-9]* bytes but only [0-9]* are left" "$ERR"

# A stripped binary: addresses stay addresses, and the output says so.
cp "$T/ct" "$T/ct-stripped"
strip "$T/ct-stripped"
BENCHFARM_TRACE="$T/s.trace" "$T/ct-stripped" 2 1 >/dev/null
expect_exit 0 "trace of a stripped binary" "$BF" trace fold --calls \
	"$T/s.trace"
grep_file "unknown functions are counted" "function addresses\? had no symbol" "$ERR"
grep_file "and shown as file+offset" "ct-stripped+0x[0-9a-f]*" "$OUT"

# A binary rebuilt after the trace (one function more: every address
# after it moves): its build-id differs from the recorded one, so its
# symbols are not used for names they would get wrong; the output says
# so and is partial.
cp "$T/ct" "$T/ct-rb"
BENCHFARM_TRACE="$T/rb.trace" "$T/ct-rb" 2 1 >/dev/null
{ printf 'void extra_fn(void);\nvoid extra_fn(void) {}\n'; cat "$SRC"; } \
	>"$T/ct2.c"
cc -O1 -g -finstrument-functions -o "$T/ct-rb" "$T/ct2.c" -pthread \
	"$BF_BUILD_ABS/libbenchfarm_trace.a"
expect_exit 0 "trace fold of a rebuilt binary" "$BF" trace fold --calls \
	"$T/rb.trace"
grep_file "warns that the file is not the traced one" \
	"warning: '$T/ct-rb' is not the file that was traced (build-id [0-9a-f]* then, [0-9a-f]* now)" \
	"$ERR"
grep_file "and marks the result partial" "rb.trace is partial: '$T/ct-rb' is not the file" "$ERR"
grep_file "its functions show as file+offset" "^thread-1;[^;]*/ct-rb+0x[0-9a-f]*;" "$OUT"
if grep -q "main" "$OUT"; then t_fail "names from the rebuilt binary"; else
	t_ok "no names taken from the rebuilt binary"; fi
expect_exit 0 "trace top --json of a rebuilt binary" "$BF" trace top --json \
	"$T/rb.trace"
jq_check "top says partial and why" \
	'.partial == true and (.partial_reason | test("is not the file that was traced"))' \
	"$OUT"
expect_exit 0 "trace svg of a rebuilt binary" "$BF" trace svg "$T/rb.trace" \
	-o "$T/rb.svg"
grep_file "the SVG's title says partial" "(partial: '[^']*ct-rb' is not the file" "$T/rb.svg"
expect_exit 0 "trace chrome of a rebuilt binary" "$BF" trace chrome \
	"$T/rb.trace" -o "$T/rb.json"
jq_check "Chrome's otherData says partial" '.otherData.partial == true' \
	"$T/rb.json"
# A binary that is not there when the trace is read (another machine):
# named, and the result partial. Its directory's long UTF-8 name makes
# the reason longer than its buffer: the cut must not split a character.
LONG=$(awk 'BEGIN { for (i = 0; i < 120; i++) printf "\303\251" }')
mkdir -p "$T/$LONG"
cp "$T/ct" "$T/$LONG/ct-gone"
BENCHFARM_TRACE="$T/gone.trace" "$T/$LONG/ct-gone" 2 1 >/dev/null
rm "$T/$LONG/ct-gone"
expect_exit 0 "trace top --json of a trace whose binary is gone" "$BF" \
	trace top --json "$T/gone.trace"
grep_file "the missing file is named" \
	"warning: '$T/$LONG/ct-gone' is not there to be read" "$ERR"
jq_check "top says partial and why, in valid UTF-8" \
	'.partial == true and (.partial_reason | type == "string" and length > 100)' \
	"$OUT"
expect_exit 0 "trace svg of it" "$BF" trace svg "$T/gone.trace" \
	-o "$T/gone.svg"
check "its SVG is well-formed XML" xmllint --noout "$T/gone.svg"
expect_exit 0 "trace chrome of it" "$BF" trace chrome "$T/gone.trace" \
	-o "$T/gone.json"
jq_check "chrome's otherData has the reason" \
	'.otherData.partial and (.otherData.partial_reason | type == "string")' \
	"$T/gone.json"
# without a build-id the inode is compared (the linker writes a new file)
cc -O1 -finstrument-functions -Wl,--build-id=none -o "$T/ct-noid" "$SRC" \
	-pthread "$BF_BUILD_ABS/libbenchfarm_trace.a"
BENCHFARM_TRACE="$T/noid.trace" "$T/ct-noid" 2 1 >/dev/null
expect_exit 0 "a binary without build-id, unchanged" "$BF" trace fold \
	--calls "$T/noid.trace"
grep_file "reads with names" "^thread-1;main;run 1$" "$OUT"
cp "$T/ct-noid" "$T/ct-noid.new" && mv "$T/ct-noid.new" "$T/ct-noid"
expect_exit 0 "a binary without build-id, replaced" "$BF" trace fold \
	--calls "$T/noid.trace"
grep_file "is caught by its inode" "is not the file that was traced (inode [0-9]* then, [0-9]* now; the trace has no build-id for it)" "$ERR"

# Addresses outside every mapped file: a plugin unloaded before the
# trace was written. Shown as addresses, counted, and partial everywhere.
cc -O1 -finstrument-functions -shared -fPIC -DPLUGIN -o "$T/plug.so" \
	"$BF_SRC/tests/fixtures/trace/unload.c" &&
	cc -O1 -finstrument-functions -o "$T/unload" \
		"$BF_SRC/tests/fixtures/trace/unload.c" -ldl
LD_PRELOAD="$BF_BUILD_ABS/libbenchfarm_trace.so" \
	BENCHFARM_TRACE="$T/u.trace" "$T/unload" "$T/plug.so"
expect_exit 0 "trace fold with an unloaded plugin" "$BF" trace fold --calls \
	"$T/u.trace"
grep_file "the unloaded function is an address" \
	"^thread-1;main;call_plugin;0x[0-9a-f]* 2$" "$OUT"
grep_file "counted on stderr" "1 function address lies outside every mapped file" "$ERR"
grep_file "and partial" "u.trace is partial: 1 function address lies outside" "$ERR"
expect_exit 0 "trace top with an unloaded plugin" "$BF" trace top "$T/u.trace"
grep_file "top's table says partial" "^(partial: 1 function address lies outside" "$OUT"
"$BF" trace svg "$T/u.trace" -o "$T/u.svg" 2>/dev/null
grep_file "so does the SVG" "(partial: 1 function address lies outside" "$T/u.svg"
"$BF" trace chrome "$T/u.trace" -o "$T/u.json" 2>/dev/null
jq_check "and Chrome's otherData" \
	'.otherData.partial == true and (.otherData.partial_reason | test("outside every mapped file"))' \
	"$T/u.json"

# Many functions under one caller (names are looked up in hash tables,
# not scanned; bench/trace_render.sh times it): 3,000 functions called
# twice each from main, every count exact.
awk 'BEGIN {
	print "static volatile unsigned long sink;"
	for (i = 0; i < 3000; i++)
		printf "__attribute__((noinline)) void f%d(void) { sink += %d; }\n", i, i
	print "int main(void)\n{\n\tfor (int k = 0; k < 2; k++) {"
	for (i = 0; i < 3000; i++)
		printf "\t\tf%d();\n", i
	print "\t}\n\treturn 0;\n}"
}' >"$T/many.c"
cc -O1 -finstrument-functions -o "$T/many" "$T/many.c" \
	"$BF_BUILD_ABS/libbenchfarm_trace.a" -pthread
BENCHFARM_TRACE="$T/many.trace" "$T/many"
expect_exit 0 "trace top of 3,000 functions" "$BF" trace top --json -n 0 \
	"$T/many.trace"
jq_check "each of the 3,000 is named and called twice" \
	'[.functions[] | select(.function | test("^f[0-9]+$")) | select(.calls == 2)] | length == 3000' \
	"$OUT"
expect_exit 0 "trace fold --calls of 3,000 functions" "$BF" trace fold \
	--calls "$T/many.trace"
n=$(grep -c '^thread-1;main;f[0-9]* 2$' "$OUT")
[ "$n" -eq 3000 ] && t_ok "3,000 stacks under main, 2 calls each" ||
	t_fail "$n of 3,000 stacks"

# A recursion 100,000 calls deep: every command reads it (the tree keeps
# 2,000 levels, deeper calls being the 2,000th's self time) and says it
# is partial, instead of overflowing its stack in a recursive walk.
printf '%s\n' '#include <stdlib.h>' \
	'static int rec(int n) { return n ? 1 + rec(n - 1) : 0; }' \
	'int main(int argc, char **argv) { (void)argc; return rec(atoi(argv[1])) == 0; }' \
	>"$T/rec.c"
cc -O0 -finstrument-functions -o "$T/rec" "$T/rec.c" \
	"$BF_BUILD_ABS/libbenchfarm_trace.a" -pthread
BENCHFARM_TRACE="$T/rec.trace" BENCHFARM_TRACE_RECORDS=300000 "$T/rec" 100000
for cmd in fold top; do
	expect_exit 0 "trace $cmd of a 100,000-deep recursion" "$BF" trace \
		$cmd "$T/rec.trace"
	grep_file "$cmd says the deep stacks are cut" \
		"is partial: call stacks deeper than 2000 frames" "$ERR"
done
# chrome draws every call as an event of its own, with no tree to cut
expect_exit 0 "trace chrome of a 100,000-deep recursion" "$BF" trace \
	chrome "$T/rec.trace" -o "$T/rec.json"
jq_check "chrome has all 100,001 calls of rec" \
	'[.traceEvents[] | select(.name == "rec")] | length == 100001' \
	"$T/rec.json"
expect_exit 0 "trace svg of a 100,000-deep recursion" "$BF" trace svg \
	"$T/rec.trace" -o "$T/rec.svg"
check "the deep SVG is well-formed XML" xmllint --noout "$T/rec.svg"
expect_exit 0 "trace fold --calls of the deep recursion" "$BF" trace fold \
	--calls "$T/rec.trace"
n=$(awk -F';' '{ print NF - 1 }' "$OUT" | sort -n | tail -1)
[ "$n" = 2000 ] && t_ok "the deepest stack is cut at 2,000 levels" ||
	t_fail "the deepest stack has $n levels under its thread"

# Names that are not plain ASCII: a stripped program in a directory
# whose name is not UTF-8 (its functions are named file+offset) and a
# function named in UTF-8 whose SVG label is cut: every output stays
# valid JSON or XML.
LAT=$(printf 'caf\351')
mkdir -p "$T/$LAT"
printf '%s\n' '#include <unistd.h>' \
	'__attribute__((noinline)) void caf\303\251_\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251(void) { usleep(3000); }' \
	'__attribute__((noinline)) void other(void) { usleep(1000); }' \
	'int main(void) { caf\303\251_\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251(); for (int i = 0; i < 60; i++) other(); return 0; }' |
	while IFS= read -r l; do printf "$l\n"; done >"$T/u8.c"
cc -O1 -finstrument-functions -o "$T/$LAT/u8" "$T/u8.c" \
	"$BF_BUILD_ABS/libbenchfarm_trace.a" -pthread
cp "$T/$LAT/u8" "$T/$LAT/u8s" && strip "$T/$LAT/u8s"
BENCHFARM_TRACE="$T/u8.trace" "$T/$LAT/u8"
BENCHFARM_TRACE="$T/u8s.trace" "$T/$LAT/u8s"
expect_exit 0 "trace chrome of a program in a non-UTF-8 directory" "$BF" \
	trace chrome "$T/u8s.trace" -o "$T/u8s.json"
jq_check "its events are named file+offset, valid JSON" \
	'[.traceEvents[] | select(.name? // "" | test("caf.?/u8s[+]0x"))] | length > 60' \
	"$T/u8s.json"
expect_exit 0 "trace top --json of it" "$BF" trace top --json "$T/u8s.trace"
jq_check "top lists its functions" '(.functions | length) >= 2' "$OUT"
expect_exit 0 "trace svg of a UTF-8 function name" "$BF" trace svg \
	"$T/u8.trace" -o "$T/u8.svg"
check "its SVG is well-formed XML" xmllint --noout "$T/u8.svg"
grep_file "the UTF-8 name is in it" "$(printf 'caf\303\251_')" "$T/u8.svg"

# A forked child that exits after its parent wrote the trace leaves it
# alone (it held a copy of the parent's buffers and path): the parent
# writes with bf_trace_stop, then lets the child go through a pipe and
# waits for it.
cat >"$T/fork.c" <<'X'
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <benchfarm/trace.h>
__attribute__((noinline)) void parent_work(void) { }
__attribute__((noinline)) void child_work(void) { }
int main(void)
{
	int p[2], st;
	char c;
	pid_t pid;

	for (int i = 0; i < 5; i++)
		parent_work();
	if (pipe(p) || (pid = fork()) < 0)
		return 1;
	if (!pid) {
		child_work();
		close(p[1]);
		if (read(p[0], &c, 1) < 0)
			return 1;
		child_work();
		exit(0);
	}
	parent_work();
	if (bf_trace_stop())
		return 1;
	close(p[1]);
	return waitpid(pid, &st, 0) != pid || st != 0;
}
X
cc -O1 -finstrument-functions -I"$BF_SRC/agent/tracer/include" \
	-o "$T/fork" "$T/fork.c" "$BF_BUILD_ABS/libbenchfarm_trace.a" -pthread
check "a traced program forks" env BENCHFARM_TRACE="$T/fork.trace" "$T/fork"
expect_exit 0 "trace fold --calls of the forking program" "$BF" trace fold \
	--calls "$T/fork.trace"
grep_file "the parent's six calls are there" "^thread-1;main;parent_work 6$" \
	"$OUT"
if grep -q child_work "$OUT"; then
	t_fail "the child's exit replaced the parent's trace"
else
	t_ok "the child's exit left the parent's trace alone"
fi

# --only FUNC: the stacks through deep, nothing else, with every count.
expect_exit 0 "trace fold --only deep" "$BF" trace fold --calls --only deep \
	"$T/a.trace"
for th in "thread-1;main" "thread-2;worker" "thread-3;worker"; do
	printf '%s\n' "$th;run;deep 1" "$th;run;deep;deep 1" \
		"$th;run;deep;deep;deep 1" "$th;run;deep;deep;deep;deep 1" \
		"$th;run;deep;deep;deep;deep;leaf 1"
done >"$T/want-deep.fold"
if cmp -s "$OUT" "$T/want-deep.fold"; then
	t_ok "only the stacks through deep, counts unchanged"
else
	diff "$T/want-deep.fold" "$OUT" | sed 's/^/#   /' | head -20
	t_fail "--only deep stacks differ"
fi
expect_exit 0 "trace top --only deep" "$BF" trace top --json -n 0 --only deep \
	"$T/a.trace"
jq_check "top counts deep and what it calls, not the way there" \
	'([.functions[].function] | sort) == ["deep", "leaf"] and ([.functions[] | {(.function): .calls}] | add) == {"deep": 12, "leaf": 3}' \
	"$OUT"
expect_exit 0 "trace fold --only twice" "$BF" trace fold --calls --only deep \
	--only worker "$T/a.trace"
grep_file "either name selects" "^thread-2;worker;run;leaf 3$" "$OUT"
"$BF" trace chrome --only deep "$T/a.trace" -o "$T/only.json"
jq_check "Chrome events only under deep" \
	'[.traceEvents[].name] | (map(select(. == "deep")) | length) == 12 and (map(select(. == "leaf")) | length) == 3 and (map(select(. == "run" or . == "main")) | length) == 0' \
	"$T/only.json"
"$BF" trace svg --only deep "$T/a.trace" -o "$T/only.svg"
grep_file "the SVG draws the way there as such" \
	"<title>run ([0-9]* ns, [0-9.]*%, the way to --only)</title>" "$T/only.svg"
expect_exit 0 "--only with a name that is not there" "$BF" trace fold \
	--only no_such_function "$T/a.trace"
grep_file "warns that nothing matched" "no function in .* is 'no_such_function' (--only): nothing to show" "$ERR"
[ ! -s "$OUT" ] && t_ok "and prints no stacks" || t_fail "stacks printed"

# The library filter: only the program's own functions.
BENCHFARM_TRACE="$T/only.trace" BENCHFARM_TRACE_ONLY=nothing-matches \
	"$T/ct" 5 3 >/dev/null
expect_exit 0 "a filter that matches nothing" "$BF" trace fold --calls \
	"$T/only.trace"
grep_file "records only the threads" "^thread-1 1$" "$OUT"
if grep -q "leaf" "$OUT"; then t_fail "the filter let leaf through"; else
	t_ok "and no function"; fi

expect_exit 2 "an unknown subcommand" "$BF" trace flame "$T/a.trace"
expect_exit 0 "trace --help" "$BF" trace --help
grep_file "the help names every subcommand" "benchfarm trace diff BASE PATCH" "$OUT"

# The API: start and stop around some calls, flush on demand.
cc -O1 -finstrument-functions -I"$BF_SRC/agent/tracer/include" \
	-o "$T/api" "$BF_SRC/tests/fixtures/trace/api.c" \
	"$BF_BUILD_ABS/libbenchfarm_trace.a" -pthread 2>"$ERR" &&
	t_ok "a program using the API builds" || t_fail "API program build"
expect_exit 0 "bf_trace_start and bf_trace_stop" "$T/api" "$T/api.trace"
expect_exit 0 "its trace reads" "$BF" trace fold --calls "$T/api.trace"
grep_file "the three traced calls" "^thread-1;traced 3$" "$OUT"
if grep -q before "$OUT"; then t_fail "calls outside start..stop recorded"; else
	t_ok "nothing outside start..stop"; fi
"$T/api" "$T/crash.trace" crash >/dev/null 2>&1
[ $? -gt 128 ] && t_ok "the program aborted after flushing" ||
	t_fail "the crash variant did not abort"
expect_exit 0 "the flushed trace of a crashed program reads" "$BF" trace \
	fold --calls "$T/crash.trace"
grep_file "it holds the two calls before the flush" "^thread-1;traced 2$" "$OUT"

# C++: names are demangled (c++filt), and --only takes the name without
# its parameters.
if command -v g++ >/dev/null 2>&1 && command -v c++filt >/dev/null 2>&1; then
	g++ -O1 -finstrument-functions -o "$T/cxx" \
		"$BF_SRC/tests/fixtures/trace/cxx.cc" \
		"$BF_BUILD_ABS/libbenchfarm_trace.a" -pthread 2>"$ERR" &&
		t_ok "a C++ program builds against the tracer" || t_fail "cxx.cc build"
	BENCHFARM_TRACE="$T/cxx.trace" "$T/cxx" >/dev/null
	expect_exit 0 "trace fold of the C++ program" "$BF" trace fold --calls \
		"$T/cxx.trace"
	grep_file "a member function demangled" \
		"^thread-1;main;shapes::Widget::spin(int) 2$" "$OUT"
	grep_file "a template instance demangled (spaces as _)" \
		"^thread-1;main;int_shapes::twice<int>(int) 1$" "$OUT"
	if grep -q "_ZN" "$OUT"; then t_fail "a mangled name is left"; else
		t_ok "no mangled name left"; fi
	expect_exit 0 "trace top --only a C++ name" "$BF" trace top --json \
		--only shapes::Widget::spin "$T/cxx.trace"
	jq_check "selects shapes::Widget::spin(int)" \
		'[.functions[].function] == ["shapes::Widget::spin(int)"]' "$OUT"
	expect_exit 0 "trace chrome --only a C++ name" "$BF" trace chrome \
		--only shapes::Widget::spin "$T/cxx.trace" -o "$T/cxx.json"
	jq_check "Chrome names demangled, only under the C++ name" \
		'[.traceEvents[] | select(.ph == "X") | .name] | unique == ["shapes::Widget::spin(int)"]' \
		"$T/cxx.json"
	# a function template's name starts with its return type
	for only in "shapes::twice" "shapes::twice<int>"; do
		expect_exit 0 "trace top --only $only" "$BF" trace top \
			--json --only "$only" "$T/cxx.trace"
		jq_check "selects int shapes::twice<int>(int)" \
			'[.functions[].function] == ["int shapes::twice<int>(int)"]' \
			"$OUT"
	done
	# a class template's name selects none of its members
	expect_exit 0 "trace fold --only shapes::Box" "$BF" trace fold \
		--only shapes::Box "$T/cxx.trace"
	grep_file "nothing is shapes::Box" "no function .* is 'shapes::Box'" \
		"$ERR"
	expect_exit 0 "trace top --only its member" "$BF" trace top --json \
		--only 'shapes::Box<int>::get' "$T/cxx.trace"
	jq_check "selects shapes::Box<int>::get() const" \
		'[.functions[].function] == ["shapes::Box<int>::get() const"]' \
		"$OUT"
else
	echo "ok 998 # skip no g++ or c++filt"
fi

# Pre-faulted buffers: a loop writing 32 MB of records takes no page
# faults. Without pre-faulting it takes one per huge page it enters:
# 2,000,000 records of 16 bytes are 30.5 MiB, 15.3 huge pages of 2 MiB,
# the first of them already touched by the claiming call: at least 15
# (16 was counted from decimal megabytes and failed on an aligned buffer).
cc -O1 -finstrument-functions -o "$T/faults" \
	"$BF_SRC/tests/fixtures/trace/faults.c" \
	"$BF_BUILD_ABS/libbenchfarm_trace.a" -pthread 2>"$ERR" &&
	t_ok "the page-fault program builds" || t_fail "faults.c build"
n=$(BENCHFARM_TRACE="$T/pf.trace" BENCHFARM_TRACE_RECORDS=2100000 "$T/faults")
[ "$n" -lt 4 ] && t_ok "a claimed buffer is pre-faulted ($n faults while recording)" ||
	t_fail "$n page faults while recording 32 MB"
n=$(BENCHFARM_TRACE="$T/pf.trace" BENCHFARM_TRACE_RECORDS=2100000 \
	BENCHFARM_TRACE_PREFAULT=0 "$T/faults")
[ "$n" -ge 15 ] && t_ok "BENCHFARM_TRACE_PREFAULT=0 leaves the faults ($n)" ||
	t_fail "with BENCHFARM_TRACE_PREFAULT=0: $n faults"

# The flame graph opens in a real browser: headless Chromium parses it
# and its DOM holds every frame the SVG drew.
if command -v chromium >/dev/null 2>&1; then
	# a loaded machine can make Chromium give up once: two tries
	for try in 1 2; do
		timeout 120 chromium --headless --no-sandbox --disable-gpu \
			--dump-dom "file://$T/a.svg" >"$T/dom.html" \
			2>"$T/chromium.err" && grep -q '<svg' "$T/dom.html" && break
	done
	want=$(grep -c '<g><title>' "$T/a.svg")
	got=$(grep -o '<title>[^<]*</title><rect' "$T/dom.html" | wc -l)
	[ "$want" -gt 0 ] && [ "$got" -eq "$want" ] &&
		t_ok "Chromium loads the flame graph with all $got frames" ||
		t_fail "Chromium's DOM has $got of $want frames"
	for f in main worker run deep leaf; do
		grep_file "Chromium shows the $f frame" "<title>$f (" "$T/dom.html"
	done
else
	echo "ok 999 # skip no chromium (make deps installs it)"
fi
