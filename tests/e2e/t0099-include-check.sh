#!/bin/sh
# The tree keeps its include rules (ci/include-check.py): each program
# includes only its own headers and core's public ones, folders include
# each other one way, and no project header has the name of a system
# header; and the checker finds each kind of breach in a tree made to
# break them.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "the repository keeps its include rules" \
	python3 "$BF_SRC/ci/include-check.py" "$BF_SRC"
grep_file "the checker read the repository's sources" "include-check: ok" "$OUT"

D="$T/tree"
mkdir -p "$D/core/include/benchfarm" "$D/orchestrator/store" \
	"$D/orchestrator/job" "$D/agent/parse" "$D/plugins"
printf '#define BF_ERR 1\n' >"$D/core/include/benchfarm/err.h"
printf 'int store_open(void);\n' >"$D/orchestrator/store/store.h"
printf 'int parse(void);\n' >"$D/agent/parse/parse.h"
printf 'int md(void);\n' >"$D/plugins/report_markdown.h"
cat >"$D/orchestrator/job/ok.c" <<'X'
#include "benchfarm/err.h"
#include "store/store.h"
#include "generated.h"
X
expect_exit 0 "a tree that keeps the rules passes" \
	python3 "$BF_SRC/ci/include-check.py" "$D"

cat >"$D/orchestrator/job/bad.c" <<'X'
#include "store/store.h"
#include "../../agent/parse/parse.h"
#include "report_markdown.h"
X
printf 'int x;\n' >"$D/plugins/report_util.h"
printf '#include "store/store.h"\n' >"$D/plugins/report_x.c"
printf 'int sched_plan(void);\n' >"$D/orchestrator/sched.h"
printf 'int m(void);\n' >"$D/agent/parse/stdio.h"
expect_exit 1 "a tree that breaks them fails" \
	python3 "$BF_SRC/ci/include-check.py" "$D"
grep_file "an include that climbs out of its program, with file and line" \
	"orchestrator/job/bad.c:2: \"../../agent/parse/parse.h\" climbs out" "$ERR"
grep_file "a header of another program, not on this one's include path" \
	"orchestrator/job/bad.c:3: \"report_markdown.h\" is plugins/report_markdown.h, which is not on orchestrator's include path" "$ERR"
grep_file "a plugin reaching into the orchestrator" \
	"plugins/report_x.c:1: \"store/store.h\" is orchestrator/store/store.h, which is not on plugins's include path" "$ERR"
grep_file "a header that shadows <sched.h>" \
	"orchestrator/sched.h: \"sched.h\" is also the system header" "$ERR"
n=$(grep -c '^include-check: ' "$ERR")
[ "$n" = 4 ] && t_ok "exactly the four breaches are named" ||
	t_fail "exactly the four breaches are named (got $n)"

# folders that include each other, round a loop of three
rm "$D/orchestrator/job/bad.c" "$D/plugins/report_x.c" "$D/orchestrator/sched.h"
mkdir -p "$D/orchestrator/farm"
printf '#include "job/plan.h"\n' >"$D/orchestrator/store/store.c"
printf 'int plan(void);\n' >"$D/orchestrator/job/plan.h"
printf '#include "farm/ssh.h"\n' >"$D/orchestrator/job/plan.c"
printf '#include "store/store.h"\nint ssh(void);\n' >"$D/orchestrator/farm/ssh.h"
expect_exit 1 "folders that include each other fail" \
	python3 "$BF_SRC/ci/include-check.py" "$D"
grep_file "the loop is named with a place for each step" \
	"folders orchestrator/farm/, orchestrator/job/, orchestrator/store/ include each other: orchestrator/farm/ -> orchestrator/store/ (orchestrator/farm/ssh.h:1: \"store/store.h\"); orchestrator/job/ -> orchestrator/farm/ (orchestrator/job/plan.c:1: \"farm/ssh.h\"); orchestrator/job/ -> orchestrator/store/ (orchestrator/job/ok.c:2: \"store/store.h\"); orchestrator/store/ -> orchestrator/job/ (orchestrator/store/store.c:1: \"job/plan.h\")" "$ERR"
rm "$D/orchestrator/store/store.c"
expect_exit 0 "one way, the same folders pass" \
	python3 "$BF_SRC/ci/include-check.py" "$D"
if grep -q 'agent/parse/stdio.h' "$ERR"; then
	t_fail "a header reached only by its folder (\"parse/stdio.h\") is not a system name"
else
	t_ok "a header reached only by its folder (\"parse/stdio.h\") is not a system name"
fi

# The folder map in docs/architecture.md names every folder of C code,
# and each folder it names exists.
tracked=$(cd "$BF_SRC" && git ls-files 'core/*.[ch]' 'orchestrator/*.[ch]' \
	'agent/*.[ch]' 'plugins/*.[ch]' | sed 's|/[^/]*$||' |
	sed 's|^core/.*|core|; s|^agent/harness/.*|agent/harness|; s|^agent/tracer/.*|agent/tracer|; s|^plugins/html$|plugins|' |
	sort -u)
mapped=$(sed -n '/^## Folders/,/^## /p' "$BF_SRC/docs/architecture.md" |
	grep -o '^| `[a-z/]*/` |' | sed 's/^| `//; s,/` |$,,' | sort -u)
missing=$(printf '%s\n' "$tracked" | while read -r d; do
	printf '%s\n' "$mapped" | grep -qx "$d" || printf '%s ' "$d"
done)
[ -z "$missing" ] && t_ok "the folder map names every folder of C code" ||
	t_fail "the folder map names every folder of C code (missing: $missing)"
gone=$(printf '%s\n' "$mapped" | while read -r d; do
	[ -d "$BF_SRC/$d" ] || printf '%s ' "$d"
done)
[ -z "$gone" ] && t_ok "every folder the map names exists" ||
	t_fail "every folder the map names exists (not there: $gone)"
